#!/bin/bash
# The adaptive range lock (kernels/patches/0015, lib/range_lock_adaptive.c):
# the patch adds files and a Kconfig symbol that only its KUnit suite
# (debug kernels) and the adaptive variant (0018) select, so the patch
# itself changes no variant's compiled output; it is checkpatch --strict and
# kernel-doc clean; it uses the tree lock through its API only; the
# harness compiles it unchanged from the patched tree; its deterministic
# tests and the stress validator (which re-arms cheat mode thousands of
# times a run) pass under the debug shims, ASan and TSan; every
# mutants/adaptive/*.sed is reported by the program its "# run:" names.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"

dir=tests/rangelock
ksrc=$(kernels/prepare-src 2>/dev/null)
if [ -z "$ksrc" ] || [ ! -f "$ksrc/lib/range_lock_adaptive.c" ]; then
	bail_out "kernels/prepare-src gives no tree with lib/range_lock_adaptive.c"
fi
patch=$(grep -l '^+++ b/lib/range_lock_adaptive\.c' kernels/patches/*.patch)
[ "$(wc -w <<<"$patch")" = 1 ] || bail_out "expected one patch adding lib/range_lock_adaptive.c, got: $patch"
make -s -C $dir all >/dev/null 2>&1 || bail_out "make -C $dir all fails"
muts=$(cd $dir/mutants/adaptive && for f in ./*.sed; do [ -f "$f" ] && basename "$f" .sed; done)
[ -n "$muts" ] || bail_out "no mutants in $dir/mutants/adaptive"

plan $((20 + $(wc -w <<<"$muts")))

# What a patch does to files that exist: every line it removes, and every
# line it adds to an existing file other than the Kconfig symbol and the
# Makefile line of the adaptive lock (MAINTAINERS is not compiled).
changes_existing() {	# patch
	MAKEFILE=lib/Makefile MAKE_RE='^obj-\$\(CONFIG_RANGE_LOCK_ADAPTIVE\) \+= range_lock_adaptive\.o$' \
	KCONFIG=lib/Kconfig CONFIG_RE='^config RANGE_LOCK_ADAPTIVE$' \
	BODY_RE=$'^\t(bool|help|select RANGE_LOCK)$' \
		awk -f tests/lib/changes-existing.awk "$1"
}
out=$(changes_existing "$patch")
is "$out" "" "$(basename "$patch") adds files, a bool symbol and its Makefile line, nothing else"
out=$(changes_existing kernels/patches/0014-lib-add-a-bitmap-range-lock.patch)
like "$out" "lib/Kconfig: adds: config RANGE_LOCK_BITMAP" "the check sees another lock's symbol (0014's)"

# Only its KUnit suite (patch 0017, debug kernels) and the adaptive strategy
# (patch 0018) select it.
out=$(grep -rn --include='Kconfig*' -E '(select|depends on|default).*RANGE_LOCK_ADAPTIVE\b' "$ksrc" |
	grep -vx -e "$ksrc/lib/Kconfig.debug:[0-9]*:.select RANGE_LOCK_ADAPTIVE" \
		-e "$ksrc/mm/Kconfig:[0-9]*:.select RANGE_LOCK_ADAPTIVE" | head -3)
is "$out" "" "only its KUnit suite and MAPPING_LOCK_ADAPTIVE select RANGE_LOCK_ADAPTIVE; nothing depends on it"

out=$(cd "$ksrc" && perl scripts/checkpatch.pl --strict "$TOP/$patch" 2>&1 |
	grep -E '^(ERROR|WARNING|CHECK)')
is "$out" "" "checkpatch --strict clean: $(basename "$patch")"

out=$(cd "$ksrc" && perl scripts/kernel-doc -none -Wall include/linux/range_lock_adaptive.h \
	lib/range_lock_adaptive.c 2>&1)
is "$out" "" "kernel-doc -Wall has no complaint"

missing=$(sed -n 's/^EXPORT_SYMBOL_GPL(\(.*\));/\1/p' "$ksrc/lib/range_lock_adaptive.c" |
	while read -r f; do grep -q "^ \* $f - " "$ksrc/lib/range_lock_adaptive.c" || echo "$f"; done)
is "$missing" "" "every exported function has kernel-doc"

# The precise mode is 0001's lock through its API: no tree internals.
internals='range_it_|->(root|owner|seqnum|blocking_ranges)\b|tree\.(root|lock|owner|seqnum)\b'
out=$(grep -nE "$internals" "$ksrc/lib/range_lock_adaptive.c" "$ksrc/include/linux/range_lock_adaptive.h")
is "$out" "" "the wrapper touches no private field of the tree lock"
out=$(grep -cE "$internals" "$ksrc/lib/range_lock.c")
ok "$([ "$out" -gt 0 ]; echo $?)" "the check sees the tree's internals in lib/range_lock.c ($out lines)"

copies=$(find $dir -path $dir/build -prune -o -name 'range_lock_adaptive*' -print)
is "$copies" "" "no private copy of the adaptive lock in $dir"
src=$(readelf --debug-dump=info $dir/bin/dbg/range_lock_adaptive.o 2>/dev/null |
	sed -n 's/.*DW_AT_name.*: \(\/.*\.c\)$/\1/p' | head -1)
is "$src" "$ksrc/lib/range_lock_adaptive.c" "harness object compiled from the patched tree"

check() {	# description, command...
	local desc=$1
	shift
	run env TSAN_OPTIONS="halt_on_error=1 exitcode=66" timeout 300 "$@"
	ok "$RC" "$desc"
	[ "$RC" = 0 ] || tail -30 <<<"$OUT" | diag
}
check "deterministic tests (debug shims, lockdep)" $dir/bin/dbg/rl_adaptive_test all
check "deterministic tests under ASan+UBSan" $dir/bin/asan/rl_adaptive_test all
check "deterministic tests under TSan" $dir/bin/tsan/rl_adaptive_test all
check "stress, 4 threads on 64 indices" $dir/bin/dbg/rl_stress --lock adaptive --threads 4 --seconds 2
switches=$(sed -n 's/^adaptive: \([0-9]*\) switches.*/\1/p' <<<"$OUT")
ok "$([ "${switches:-0}" -ge 100 ]; echo $?)" "the stress run switched the lock at least 100 times: ${switches:-none}"
check "stress with kills under ASan+UBSan, 6 threads on 16 indices" \
	$dir/bin/asan/rl_stress --lock adaptive --threads 6 --space 16 --kill --seconds 3 --seed 7
check "stress under TSan, 4 threads on 64 indices" \
	$dir/bin/tsan/rl_stress --lock adaptive --threads 4 --seconds 3
check "stress with kills under TSan, 6 threads on 8 indices" \
	$dir/bin/tsan/rl_stress --lock adaptive --threads 6 --space 8 --kill --seconds 3 --seed 3

expect_bad "rl_stress --lock nosuch: exit 2, names the accepted locks" \
	"--lock 'nosuch': expected one of tree, bitmap, adaptive, list" $dir/bin/dbg/rl_stress --lock nosuch
expect_bad "rl_adaptive_test with an unknown group: exit 2" \
	"unknown group 'nosuch'" $dir/bin/dbg/rl_adaptive_test nosuch

# The validator and the tests can fail: each broken build of the lock is
# reported, by rl_stress or rl_adaptive_test as its "# run:" line says,
# with the report its "# expect:" line names.
args=(--lock adaptive --threads 4 --space 16 --kill --stall-ms 1500)
for m in $muts; do
	sed=$dir/mutants/adaptive/$m.sed
	expect=$(sed -n 's/^# expect: //p' "$sed")
	# a race the stress has to hit: up to six seeds, the first report
	# ends them (on a loaded host a run may miss it: tests/68)
	for try in 1 2 3 4 5 6; do
		case $(sed -n 's/^# run: //p' "$sed") in
		test) run timeout 300 "$dir/bin/mut-adaptive-$m/rl_adaptive_test" all ;;
		stress) run env TSAN_OPTIONS="halt_on_error=1 exitcode=1" timeout 120 \
			"$dir/bin/mut-adaptive-$m/rl_stress" "${args[@]}" --seconds 20 --seed "$try" ;;
		*) RC=2; OUT="$sed: '# run:' must be test or stress"; break ;;
		esac
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
