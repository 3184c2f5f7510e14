#!/bin/bash
# The range lock tests and the stress validator under AddressSanitizer and
# UndefinedBehaviorSanitizer (any report aborts the run).
d=tests/rangelock/bin/asan
echo "1..3"
n=0
check() {	# description, command...
	local desc=$1 out rc
	shift
	n=$((n + 1))
	out=$(timeout 300 "$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc (exit $rc)"
		printf '%s\n' "$out" | tail -40 | sed 's/^/# /'
		fail=1
	fi
}
fail=0
check "deterministic tests under ASan+UBSan" "$d/rl_test" all
check "stress, 4 threads, under ASan+UBSan" "$d/rl_stress" --threads 4 --seconds 3
check "stress with kills, 6 threads on 16 indices, under ASan+UBSan" \
	"$d/rl_stress" --threads 6 --space 16 --kill --seconds 3 --seed 7
exit $fail
