#!/bin/bash
# The KUnit suites of the three newer range locks (kernels/patches/0017):
# the patch adds the suites' files and, to existing files, only their
# Kconfig.debug entries, Makefile lines and MAINTAINERS lines, so no
# variant's compiled output changes; it is checkpatch --strict clean;
# the debug fragment turns every suite on, and each suite and its lock
# compile with W=1 against the patched 6.12 tree under that fragment
# (lockdep on).  The suites run at every debug boot: tests/93 checks
# their results on the console.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"

ksrc=$(kernels/prepare-src 2>/dev/null)
if [ -z "$ksrc" ] || [ ! -f "$ksrc/lib/range_lock_list_kunit.c" ]; then
	bail_out "kernels/prepare-src gives no tree with lib/range_lock_list_kunit.c"
fi
patch=$(grep -l '^+++ b/lib/range_lock_list_kunit\.c' kernels/patches/*.patch)
[ "$(wc -w <<<"$patch")" = 1 ] || bail_out "expected one patch adding the KUnit suites, got: $patch"
suites="bitmap adaptive list"
plan 6

# What the patch does to files that exist, other than a suite's Kconfig
# entry, its Makefile line and MAINTAINERS (which is not compiled).
changes_existing() {	# patch
	MAKEFILE=lib/Makefile MAKE_RE='^obj-\$\(CONFIG_RANGE_LOCK_[A-Z]+_KUNIT_TEST\) \+= range_lock_[a-z]+_kunit\.o$' \
	KCONFIG=lib/Kconfig.debug CONFIG_RE='^config RANGE_LOCK_[A-Z]+_KUNIT_TEST$' \
	BODY_RE=$'^\t(tristate "KUnit tests for [a-z-]+ range locks" if !KUNIT_ALL_TESTS|depends on KUNIT|select RANGE_LOCK_[A-Z]+|default KUNIT_ALL_TESTS|help)$' \
		awk -f tests/lib/changes-existing.awk "$1"
}
out=$(changes_existing "$patch")
is "$out" "" "$(basename "$patch") adds the suites, their Kconfig entries and Makefile lines, nothing else"
out=$(changes_existing kernels/patches/0007-mm-report-the-invalidate-lock-strategy-and-its-stati.patch)
like "$out" "mm/Kconfig: adds: config MAPPING_LOCK_STATS" "the check sees another patch's Kconfig entry (0007's)"

out=$(cd "$ksrc" && perl scripts/checkpatch.pl --strict "$TOP/$patch" 2>&1 |
	grep -E '^(ERROR|WARNING|CHECK)')
is "$out" "" "checkpatch --strict clean: $(basename "$patch")"

missing=$(for s in $suites; do
	u=${s^^}
	grep -qx "CONFIG_RANGE_LOCK_${u}_KUNIT_TEST=y" kernels/configs/debug.config || echo "$u"
	grep -q "\.name = \"range_lock_$s\"" "$ksrc/lib/range_lock_${s}_kunit.c" || echo "suite name range_lock_$s"
	grep -q "range_lock_$s" tests/lib/debug-matrix.sh || echo "tests/lib/debug-matrix.sh: range_lock_$s"
done)
is "$missing" "" "the debug fragment runs every suite, and tests/93 and 98 read each by its name"

# W=1 against the patched tree, with the fragments of a debug range kernel
# (lockdep on): a tinyconfig, the fragments merged, only these objects.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
objs=()
for s in $suites; do objs+=("lib/range_lock_$s.o" "lib/range_lock_${s}_kunit.o"); done
mapfile -t frags < <(kernels/build --resolve rangelock --debug | sed -n 's/^fragment /kernels\//p')
run tests/lib/build-objs.sh "$ksrc" "$tmp/o" "${frags[@]}" -- "${objs[@]}"
grep -q "^CONFIG_PROVE_LOCKING=y" "$tmp/o/.config" || RC=lockdep-off
ok "$([ "$RC" = 0 ] && ! grep -qE "warning|error" <<<"$OUT"; echo $?)" \
	"each suite and its lock compile with W=1 and lockdep, without a warning"
n=$(for o in "${objs[@]}"; do [ -s "$tmp/o/$o" ] && echo "$o"; done | wc -l)
is "$n" "${#objs[@]}" "... all ${#objs[@]} objects were built"
[ "$RC" = 0 ] || printf '%s\n' "$OUT" | tail -20 | diag
done_testing
