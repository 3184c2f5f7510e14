#!/bin/bash
# The range lock patch, kernel side: the harness compiled the lock and the
# rbtree from the patched tree that kernels/prepare-src prints (and keeps
# no copy of them), and the patch is checkpatch --strict and kernel-doc
# clean, with kernel-doc on every exported function.
echo "1..7"
fail=0
n=0
res() {	# ok?, description
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}
ksrc=$(kernels/prepare-src 2>/dev/null)
[ -n "$ksrc" ] && [ -f "$ksrc/lib/range_lock.c" ]
res $? "kernels/patches/series applies and adds lib/range_lock.c ($ksrc)"

copies=$(find tests/rangelock -path tests/rangelock/build -prune -o \
	\( -name range_lock.c -o -name rbtree.c -o -name 'interval_tree*' \) -print)
[ -z "$copies" ]
res $? "no private copy of the lock or the trees in tests/rangelock${copies:+: $copies}"

srcs=$(for o in range_lock rbtree; do
	readelf --debug-dump=info tests/rangelock/bin/dbg/$o.o 2>/dev/null |
		sed -n 's/.*DW_AT_name.*: \(\/.*\.c\)$/\1/p' | head -1; done)
[ "$srcs" = "$(printf '%s\n' "$ksrc/lib/range_lock.c" "$ksrc/lib/rbtree.c")" ]
res $? "harness objects compiled from $ksrc/lib"

mapfile -t series < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' kernels/patches/series)
patches=$(cd kernels/patches && grep -l 'range_lock\.[ch]' "${series[@]}" | xargs)
out=$(cd "$ksrc" && for p in $patches; do
	perl scripts/checkpatch.pl --strict "$OLDPWD/kernels/patches/$p" 2>/dev/null |
		grep -E '^(ERROR|WARNING|CHECK)|^total'; done)
# A here-string, not printf | grep -q: grep -q stops reading at the first
# match, printf would die of SIGPIPE, and under pipefail the negation
# would call a dirty series clean.
! grep -qE '^(ERROR|WARNING|CHECK)' <<<"$out" && [ -n "$patches" ]
res $? "checkpatch --strict clean: $patches"
[ $fail = 0 ] || printf '%s\n' "$out" | sed 's/^/# /'

out=$(cd "$ksrc" && perl scripts/kernel-doc -none -Wall include/linux/range_lock.h lib/range_lock.c 2>&1)
[ -z "$out" ]
res $? "kernel-doc -Wall has no complaint"
[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/# /'

missing=$(sed -n 's/^EXPORT_SYMBOL_GPL(\(.*\));/\1/p' "$ksrc/lib/range_lock.c" |
	while read -r f; do grep -q "^ \* $f - " "$ksrc/lib/range_lock.c" || echo "$f"; done)
[ -z "$missing" ]
res $? "every exported function has kernel-doc${missing:+ (missing: $missing)}"
# `make bench ... DEBUG=1` (debug kernels) reaches this Makefile through
# `make all` with DEBUG=1 on the command line, which overrides any
# variable of that name in a sub-make: the harness's own debug flags must
# not be called DEBUG.
n_dbg=$(make --no-print-directory -n -B -C tests/rangelock all DEBUG=1 2>&1 | grep -c -- '-DSHIM_DEBUG')
[ "$n_dbg" -gt 0 ]
res $? "the harness builds with its lockdep shim under make's DEBUG=1 ($n_dbg compilations with -DSHIM_DEBUG)"
exit $fail
