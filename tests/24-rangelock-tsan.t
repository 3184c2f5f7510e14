#!/bin/bash
# The stress validator under ThreadSanitizer: holders touch plain data, so
# a missing acquire/release in the lock shows as a data race; the shadow
# holder counts catch exclusion failures.
d=tests/rangelock/bin/tsan
echo "1..3"
n=0
fail=0
check() {	# description, command...
	local desc=$1 out rc
	shift
	n=$((n + 1))
	out=$(TSAN_OPTIONS="halt_on_error=1 exitcode=66" timeout 300 "$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc (exit $rc)"
		printf '%s\n' "$out" | tail -60 | sed 's/^/# /'
		fail=1
	fi
}
check "stress, 4 threads on 64 indices, TSan" "$d/rl_stress" --threads 4 --seconds 3
check "stress with kills, 6 threads on 8 indices, TSan" \
	"$d/rl_stress" --threads 6 --space 8 --kill --seconds 3 --seed 3
check "stress, 2 threads on 4 indices, TSan" \
	"$d/rl_stress" --threads 2 --space 4 --kill --seconds 2 --seed 5
exit $fail
