#!/bin/bash
# khugepaged's collapse_file() against a write fault under rangelock, on
# the kernel's lock in userspace (no guest config reaches khugepaged):
# waiting for the range with the old folios locked is an ABBA deadlock
# with ext4_page_mkwrite(), which holds its range and locks the folio;
# trying the range and abandoning the collapse, as 0006 does, is not.
# Both run, under the debug and the ASan/UBSan builds.
for bin in tests/rangelock/bin/dbg/rl_collapse tests/rangelock/bin/asan/rl_collapse; do
	[ -x "$bin" ] || { echo "Bail out! $bin not built: run make -C tests/rangelock"; exit 1; }
done
out=$(timeout 60 tests/rangelock/bin/dbg/rl_collapse; echo "rc=$?"; timeout 60 tests/rangelock/bin/asan/rl_collapse | sed 's/^\(\(not \)\?ok [0-9]* - \)/\1asan: /'; echo "rc=$?")
n=$(grep -c '^\(not \)\?ok ' <<<"$out")
awk '/^(not )?ok / { sub(/ok [0-9]+ /, "ok " ++k " "); print; next }
	/^rc=/ { next } /^1\.\./ { next } { print }' <<<"$out"
echo "1..$n"
[[ $out != *"not ok"* ]] && ! grep -q '^rc=[1-9]' <<<"$out"
