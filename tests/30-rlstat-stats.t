#!/bin/bash
# rlstat's statistics against published worked examples (test-stats), and
# the comparison and the gate, with their operating characteristics by
# simulation against the targets (test-gate); TAP from C.
cd "$(dirname "$0")/.." || exit 2
[ -x analysis/test-stats ] && [ -x analysis/test-gate ] || make -s -C analysis >/dev/null || exit 2
out=$(analysis/test-stats; echo "rc=$?"; analysis/test-gate | sed 's/^1\.\.[0-9]*$//'; echo "rc=$?")
n=$(grep -c '^\(not \)\?ok ' <<<"$out")
# one plan and one numbering for both programs
awk '/^(not )?ok / { sub(/ok [0-9]+ /, "ok " ++k " "); print; next }
	/^rc=/ { next } /^1\.\./ { next } { print }' <<<"$out"
echo "1..$n"
[[ $out != *"not ok"* ]] && ! grep -q '^rc=[1-9]' <<<"$out"
