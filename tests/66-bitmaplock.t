#!/bin/bash
# The bitmap range lock (kernels/patches/0014, lib/range_lock_bitmap.c):
# the patch adds files and a Kconfig symbol that only its KUnit suite
# (debug kernels) and the bitmap variant (0018) select, so the patch
# itself changes no variant's compiled output; it is checkpatch --strict and
# kernel-doc clean; the harness compiles it unchanged from the patched
# tree; its deterministic tests and the stress validator pass under the
# debug shims, ASan and TSan; every mutants/bitmap/*.sed is reported.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"

dir=tests/rangelock
ksrc=$(kernels/prepare-src 2>/dev/null)
if [ -z "$ksrc" ] || [ ! -f "$ksrc/lib/range_lock_bitmap.c" ]; then
	bail_out "kernels/prepare-src gives no tree with lib/range_lock_bitmap.c"
fi
patch=$(grep -l '^+++ b/lib/range_lock_bitmap\.c' kernels/patches/*.patch)
[ "$(wc -w <<<"$patch")" = 1 ] || bail_out "expected one patch adding lib/range_lock_bitmap.c, got: $patch"
make -s -C $dir all >/dev/null 2>&1 || bail_out "make -C $dir all fails"
muts=$(cd $dir/mutants/bitmap && for f in ./*.sed; do [ -f "$f" ] && basename "$f" .sed; done)
[ -n "$muts" ] || bail_out "no mutants in $dir/mutants/bitmap"

plan $((16 + $(wc -w <<<"$muts")))

# What a patch does to files that exist: every line it removes, and every
# line it adds to an existing file other than the Kconfig symbol and the
# Makefile line of the bitmap lock (MAINTAINERS is not compiled).
changes_existing() {	# patch
	MAKEFILE=lib/Makefile MAKE_RE='^obj-\$\(CONFIG_RANGE_LOCK_BITMAP\) \+= range_lock_bitmap\.o$' \
	KCONFIG=lib/Kconfig CONFIG_RE='^config RANGE_LOCK_BITMAP$' \
	BODY_RE=$'^\t(bool|help)$' \
		awk -f tests/lib/changes-existing.awk "$1"
}
out=$(changes_existing "$patch")
is "$out" "" "$(basename "$patch") adds files, a bool symbol and its Makefile line, nothing else"
out=$(changes_existing kernels/patches/0001-lib-add-range-locks.patch)
like "$out" "lib/Kconfig.debug: adds" "the check sees a change to an existing file (0001's Kconfig.debug)"

# Only its KUnit suite (patch 0017, debug kernels) and the bitmap strategy
# (patch 0018) select it.
out=$(grep -rn --include='Kconfig*' -E '(select|depends on|default).*RANGE_LOCK_BITMAP\b' "$ksrc" |
	grep -vx -e "$ksrc/lib/Kconfig.debug:[0-9]*:.select RANGE_LOCK_BITMAP" \
		-e "$ksrc/mm/Kconfig:[0-9]*:.select RANGE_LOCK_BITMAP" | head -3)
is "$out" "" "only its KUnit suite and MAPPING_LOCK_BITMAP select RANGE_LOCK_BITMAP; nothing depends on it"

out=$(cd "$ksrc" && perl scripts/checkpatch.pl --strict "$TOP/$patch" 2>&1 |
	grep -E '^(ERROR|WARNING|CHECK)')
is "$out" "" "checkpatch --strict clean: $(basename "$patch")"

out=$(cd "$ksrc" && perl scripts/kernel-doc -none -Wall include/linux/range_lock_bitmap.h \
	lib/range_lock_bitmap.c 2>&1)
is "$out" "" "kernel-doc -Wall has no complaint"

missing=$(sed -n 's/^EXPORT_SYMBOL_GPL(\(.*\));/\1/p' "$ksrc/lib/range_lock_bitmap.c" |
	while read -r f; do grep -q "^ \* $f - " "$ksrc/lib/range_lock_bitmap.c" || echo "$f"; done)
is "$missing" "" "every exported function has kernel-doc"

copies=$(find $dir -path $dir/build -prune -o -name 'range_lock_bitmap*' -print)
is "$copies" "" "no private copy of the bitmap lock in $dir"
src=$(readelf --debug-dump=info $dir/bin/dbg/range_lock_bitmap.o 2>/dev/null |
	sed -n 's/.*DW_AT_name.*: \(\/.*\.c\)$/\1/p' | head -1)
is "$src" "$ksrc/lib/range_lock_bitmap.c" "harness object compiled from the patched tree"

check() {	# description, command...
	local desc=$1
	shift
	run env TSAN_OPTIONS="halt_on_error=1 exitcode=66" timeout 300 "$@"
	ok "$RC" "$desc"
	[ "$RC" = 0 ] || tail -30 <<<"$OUT" | diag
}
check "deterministic tests (debug shims, lockdep)" $dir/bin/dbg/rl_bitmap_test all
check "deterministic tests under ASan+UBSan" $dir/bin/asan/rl_bitmap_test all
check "stress, 4 threads on 64 indices" $dir/bin/dbg/rl_stress --lock bitmap --threads 4 --seconds 2
check "stress with kills under ASan+UBSan, 6 threads on 16 indices" \
	$dir/bin/asan/rl_stress --lock bitmap --threads 6 --space 16 --kill --seconds 3 --seed 7
check "stress under TSan, 4 threads on 64 indices" \
	$dir/bin/tsan/rl_stress --lock bitmap --threads 4 --seconds 3
check "stress with kills under TSan, 6 threads on 8 indices" \
	$dir/bin/tsan/rl_stress --lock bitmap --threads 6 --space 8 --kill --seconds 3 --seed 3

expect_bad "rl_stress --lock nosuch: exit 2, names the accepted locks" \
	"--lock 'nosuch': expected one of tree, bitmap" $dir/bin/dbg/rl_stress --lock nosuch
expect_bad "rl_bitmap_test with an unknown group: exit 2" \
	"unknown group 'nosuch'" $dir/bin/dbg/rl_bitmap_test nosuch

# The validator can fail: each broken build of the lock is reported with
# the report its script's "# expect:" line names.
args=(--lock bitmap --threads 4 --space 16 --kill --stall-ms 1500)
for m in $muts; do
	expect=$(sed -n 's/^# expect: //p' "$dir/mutants/bitmap/$m.sed")
	# a race the stress has to hit: up to six seeds, the first report
	# ends them (on a loaded host a run may miss it: tests/68)
	for try in 1 2 3 4 5 6; do
		run env TSAN_OPTIONS="halt_on_error=1 exitcode=1" timeout 120 \
			"$dir/bin/mut-bitmap-$m/rl_stress" "${args[@]}" --seconds 20 --seed "$try"
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
