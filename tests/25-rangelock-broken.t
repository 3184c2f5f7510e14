#!/bin/bash
# The stress validator can fail: each deliberately broken build of the lock
# (tests/rangelock/mutants/*.sed applied to the real lib/range_lock.c) must
# be reported, with the report its script's "# expect:" line names, while
# the real lock passes the same run.  tsan-* mutants run under TSan.
dir=tests/rangelock
muts=$(cd $dir/mutants && for f in ./*.sed; do [ -f "$f" ] && basename "$f" .sed; done)
[ -n "$muts" ] || bail_out "no mutants in $dir/mutants"
echo "1..$(( $(echo "$muts" | wc -l) + 1 ))"
args=(--threads 4 --space 16 --kill --stall-ms 1500)
n=1
fail=0
out=$(timeout 120 $dir/bin/dbg/rl_stress "${args[@]}" --seconds 2 2>&1)
rc=$?
if [ $rc -eq 0 ]; then
	echo "ok 1 - real lock passes the validator"
else
	echo "not ok 1 - real lock fails the validator (exit $rc)"
	printf '%s\n' "$out" | sed 's/^/# /'
	fail=1
fi
for m in $muts; do
	n=$((n + 1))
	expect=$(sed -n 's/^# expect: //p' "$dir/mutants/$m.sed")
	bin=$dir/bin/mut-$m/rl_stress
	out=$(TSAN_OPTIONS="halt_on_error=1 exitcode=1" timeout 120 "$bin" "${args[@]}" --seconds 20 2>&1)
	rc=$?
	if [ $rc -eq 1 ] && [ -n "$expect" ] && printf '%s\n' "$out" | grep -qE "$expect"; then
		echo "ok $n - broken lock '$m' reported: $(printf '%s\n' "$out" | grep -m1 -E "$expect" | cut -c1-100)"
	else
		echo "not ok $n - broken lock '$m' not reported as $expect (exit $rc)"
		printf '%s\n' "$out" | tail -5 | sed 's/^/# /'
		fail=1
	fi
done
exit $fail
