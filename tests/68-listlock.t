#!/bin/bash
# The list range lock (kernels/patches/0016, lib/range_lock_list.c): the
# patch adds files and a Kconfig symbol that only its KUnit suite
# (debug kernels) and the listlock variant (0018) select, so the patch
# itself changes no variant's compiled output; it is checkpatch --strict and kernel-doc
# clean; the harness compiles it unchanged from the patched tree with
# the shim's RCU; its deterministic tests and the stress validator pass
# under the debug shims, ASan and TSan, with and without failing
# allocations; every mutants/list/*.sed is reported.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"

dir=tests/rangelock
ksrc=$(kernels/prepare-src 2>/dev/null)
if [ -z "$ksrc" ] || [ ! -f "$ksrc/lib/range_lock_list.c" ]; then
	bail_out "kernels/prepare-src gives no tree with lib/range_lock_list.c"
fi
patch=$(grep -l '^+++ b/lib/range_lock_list\.c' kernels/patches/*.patch)
[ "$(wc -w <<<"$patch")" = 1 ] || bail_out "expected one patch adding lib/range_lock_list.c, got: $patch"
make -s -C $dir all >/dev/null 2>&1 || bail_out "make -C $dir all fails"
muts=$(cd $dir/mutants/list && for f in ./*.sed; do [ -f "$f" ] && basename "$f" .sed; done)
[ -n "$muts" ] || bail_out "no mutants in $dir/mutants/list"

plan $((18 + $(wc -w <<<"$muts")))

# What a patch does to files that exist: every line it removes, and every
# line it adds to an existing file other than the Kconfig symbol and the
# Makefile line of the list lock (MAINTAINERS is not compiled).
changes_existing() {	# patch
	MAKEFILE=lib/Makefile MAKE_RE='^obj-\$\(CONFIG_RANGE_LOCK_LIST\) \+= range_lock_list\.o$' \
	KCONFIG=lib/Kconfig CONFIG_RE='^config RANGE_LOCK_LIST$' \
	BODY_RE=$'^\t(bool|help)$' \
		awk -f tests/lib/changes-existing.awk "$1"
}
out=$(changes_existing "$patch")
is "$out" "" "$(basename "$patch") adds files, a bool symbol and its Makefile line, nothing else"
out=$(changes_existing kernels/patches/0014-lib-add-a-bitmap-range-lock.patch)
like "$out" "lib/Makefile: adds: obj-" "the check sees another lock's Makefile line (0014's)"

# Only its KUnit suite (patch 0017, debug kernels) and the listlock strategy
# (patch 0018) select it.
out=$(grep -rn --include='Kconfig*' -E '(select|depends on|default).*RANGE_LOCK_LIST\b' "$ksrc" |
	grep -vx -e "$ksrc/lib/Kconfig.debug:[0-9]*:.select RANGE_LOCK_LIST" \
		-e "$ksrc/mm/Kconfig:[0-9]*:.select RANGE_LOCK_LIST" | head -3)
is "$out" "" "only its KUnit suite and MAPPING_LOCK_LIST select RANGE_LOCK_LIST; nothing depends on it"

out=$(cd "$ksrc" && perl scripts/checkpatch.pl --strict "$TOP/$patch" 2>&1 |
	grep -E '^(ERROR|WARNING|CHECK)')
is "$out" "" "checkpatch --strict clean: $(basename "$patch")"

out=$(cd "$ksrc" && perl scripts/kernel-doc -none -Wall include/linux/range_lock_list.h \
	lib/range_lock_list.c 2>&1)
is "$out" "" "kernel-doc -Wall has no complaint"

missing=$(sed -n 's/^EXPORT_SYMBOL_GPL(\(.*\));/\1/p' "$ksrc/lib/range_lock_list.c" |
	while read -r f; do grep -q "^ \* $f - " "$ksrc/lib/range_lock_list.c" || echo "$f"; done)
is "$missing" "" "every exported function has kernel-doc"

copies=$(find $dir -path $dir/build -prune -o -name 'range_lock_list*' -print)
is "$copies" "" "no private copy of the list lock in $dir"
src=$(readelf --debug-dump=info $dir/bin/dbg/range_lock_list.o 2>/dev/null |
	sed -n 's/.*DW_AT_name.*: \(\/.*\.c\)$/\1/p' | head -1)
is "$src" "$ksrc/lib/range_lock_list.c" "harness object compiled from the patched tree"

check() {	# description, command...
	local desc=$1
	shift
	run env TSAN_OPTIONS="halt_on_error=1 exitcode=66" timeout 300 "$@"
	ok "$RC" "$desc"
	[ "$RC" = 0 ] || tail -30 <<<"$OUT" | diag
}
check "deterministic tests (debug shims, lockdep)" $dir/bin/dbg/rl_list_test all
check "deterministic tests under ASan+UBSan" $dir/bin/asan/rl_list_test all
check "deterministic tests under TSan" $dir/bin/tsan/rl_list_test all
check "stress, 4 threads on 64 indices" $dir/bin/dbg/rl_stress --lock list --threads 4 --seconds 2
check "stress with kills under ASan+UBSan, 6 threads on 16 indices" \
	$dir/bin/asan/rl_stress --lock list --threads 6 --space 16 --kill --seconds 3 --seed 7
check "stress with kills under ASan, every 3rd allocation failing" \
	env RL_LIST_FAIL_EVERY=3 $dir/bin/asan/rl_stress --lock list --threads 6 --space 16 \
	--kill --seconds 3 --seed 5
check "stress under TSan, 4 threads on 64 indices" \
	$dir/bin/tsan/rl_stress --lock list --threads 4 --seconds 3
check "stress with kills under TSan, 6 threads on 8 indices, every 4th allocation failing" \
	env RL_LIST_FAIL_EVERY=4 $dir/bin/tsan/rl_stress --lock list --threads 6 --space 8 \
	--kill --seconds 3 --seed 3

expect_bad "rl_stress --lock nosuch: exit 2, names the accepted locks" \
	"--lock 'nosuch': expected one of tree, bitmap, adaptive, list" $dir/bin/dbg/rl_stress --lock nosuch
expect_bad "rl_list_test with an unknown group: exit 2" \
	"unknown group 'nosuch'" $dir/bin/dbg/rl_list_test nosuch

# The checks can fail: each broken build of the lock is reported with the
# report its script's "# expect:" line names, by rl_stress or by the
# program its "# run:" line names.
args=(--lock list --threads 4 --space 16 --kill --stall-ms 1500)
for m in $muts; do
	expect=$(sed -n 's/^# expect: //p' "$dir/mutants/list/$m.sed")
	read -ra prog <<<"$(sed -n 's/^# run: //p' "$dir/mutants/list/$m.sed")"
	# a race the stress has to hit: up to six runs (seeds 1-6), the first
	# report ends them. Unloaded, a run hits writer-skips-validation in
	# under a second; beside six busy loops in 1.4-8 s; beside a kernel
	# build and a benchmark it once missed three runs of 20 s in a row.
	for try in 1 2 3 4 5 6; do
		p=("${prog[@]}")
		[ "${#p[@]}" -gt 0 ] || p=(rl_stress "${args[@]}" --seconds 20 --seed "$try")
		run env TSAN_OPTIONS="halt_on_error=1 exitcode=1" timeout 120 \
			"$dir/bin/mut-list-$m/${p[0]}" "${p[@]:1}"
		[ "$RC" = 1 ] && [ -n "$expect" ] && grep -qE "$expect" <<<"$OUT" && break
	done
	if [ "$RC" = 1 ] && [ -n "$expect" ] && grep -qE "$expect" <<<"$OUT"; then
		ok 0 "broken lock '$m' reported: $(grep -m1 -E "$expect" <<<"$OUT" | cut -c1-90)"
	else
		ok 1 "broken lock '$m' reported as $expect"
		echo "exit $RC" | diag
		tail -5 <<<"$OUT" | diag
	fi
done
done_testing
