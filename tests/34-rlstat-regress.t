#!/bin/bash
# The regression gate end to end on synthetic runs: exit 0 for A vs A',
# 1 for a planted regression or a failed candidate point, 2 for bad input
# or mismatched matrices (listing the points present on one side only).
. "$(dirname "$0")/lib/tap.sh"
[ -x analysis/rlstat ] || make -s -C analysis >/dev/null || exit 2
plan 16

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
R=analysis/rlstat
gen() {	# dir seed [rlsynth options]
	local d=$1 s=$2; shift 2
	analysis/rlsynth "$tmp/$d" --seed "$s" --variants stock,rangelock \
		--threads 1,2 --iterations 5 --noise 0.02 --samples 300 "$@"
}
gen A 1
gen A2 2
gen slow 3 --effect rangelock=-10
gen fast 4 --effect rangelock=10
gen wide 5 --threads 1,2,4
gen more 6 --variants stock,rangelock,imutex
gen failB 7 --fail rangelock:1:3
gen few 8 --iterations 2

run $R regress "$tmp/A" "$tmp/A2"
[ "$RC" = 0 ] && [[ $OUT == *"0 regressions, 0 failed points in 24 metrics"*PASS* ]]
ok $? "A vs A' (another seed, same setup): exit 0, PASS"
[ "$RC" = 0 ] || echo "$OUT" | sed 's/^/# /'

run $R regress "$tmp/A" "$tmp/A"
is "$RC" 0 "a run against itself: exit 0"

run $R regress "$tmp/A" "$tmp/slow"
is "$RC" 1 "planted 10% slowdown: exit 1"
line=$(grep 'REGRESSION rangelock p000-dio .*read.ops_per_s' <<<"$OUT")
like "$line" 'read\.ops_per_s [0-9.e+]+ -> [0-9.e+]+ ops/s, -[0-9.]+%, p=[0-9.e-]+ \(Holm [0-9.e-]+\), CI95 of change \[-[0-9.]+%, -[0-9.]+%\]' \
	"the regression line has both values, change, p and CI"
[[ $OUT != *"REGRESSION stock"* ]]
ok $? "the unchanged variant is not flagged"

run $R regress "$tmp/A" "$tmp/fast"
is "$RC" 0 "a 10% improvement is not a regression"

run $R regress "$tmp/A" "$tmp/slow" --threshold 15%
is "$RC" 0 "--threshold 15% lets a 10% slowdown pass"

run $R regress "$tmp/A" "$tmp/wide"
[ "$RC" = 2 ] && [[ $OUT == *"only in $tmp/wide: stock p002-dio: dio threads=4"* ]] &&
	[[ $OUT == *"only in $tmp/wide: rangelock p002-dio: dio threads=4"* ]]
ok $? "mismatched matrices: exit 2, lists the points on one side only"

run $R regress "$tmp/more" "$tmp/A"
[ "$RC" = 2 ] && [ "$(grep -c "^only in $tmp/more: imutex" <<<"$OUT")" = 2 ]
ok $? "a variant on one side only: exit 2, listed"

run $R regress "$tmp/A" "$tmp/failB"
[ "$RC" = 1 ] && [[ $OUT == *"REGRESSION rangelock p001-dio"*"1 of 5 iterations failed"* ]]
ok $? "a failed point on the candidate side is a regression"

run $R regress "$tmp/failB" "$tmp/A"
[ "$RC" = 0 ] && [[ $OUT == *"not compared: rangelock p001-dio failed in the baseline run"* ]]
ok $? "a point failed only in the baseline is reported, not a regression"

run $R regress "$tmp/few" "$tmp/few"
[ "$RC" = 2 ] && [[ $OUT == *"not enough iterations"* ]] && [[ $OUT != *PASS* ]]
ok $? "fewer than 3 iterations: no verdict, exit 2"

run $R regress "$tmp/A" "$tmp/nonexistent"
is "$RC" 2 "a missing run: exit 2"

run $R regress "$tmp/A" "$tmp/A2" --threshold lots
[ "$RC" = 2 ] && [[ $OUT == *"--threshold lots: accepted is a percentage"* ]]
ok $? "a bad threshold: exit 2"

# A/A end to end over many seeds: false alarms at most alpha. With 40
# pairs, P(7 or more | rate 0.05) < 0.5%, so more than 6 is a failure.
fa=0
for s in $(seq 100 139); do
	gen aa$s $s; gen bb$s $((s + 1000))
	$R regress "$tmp/aa$s" "$tmp/bb$s" >/dev/null 2>&1
	rc=$?
	[ $rc = 1 ] && fa=$((fa + 1))
	[ $rc = 2 ] && fa=99
	rm -rf "$tmp/aa$s" "$tmp/bb$s"
done
[ $fa -le 6 ]
ok $? "A/A over 40 seed pairs: $fa false alarms (<= 6 allowed)"

# And a planted 5% slowdown at noise CV 2%, N = 5 (MDE about 4%) is caught
# in most of them.
hit=0
for s in $(seq 200 219); do
	gen aa$s $s; gen bb$s $((s + 1000)) --effect rangelock=-5
	$R regress "$tmp/aa$s" "$tmp/bb$s" >/dev/null 2>&1 && :
	[ $? = 1 ] && hit=$((hit + 1))
	rm -rf "$tmp/aa$s" "$tmp/bb$s"
done
[ $hit -ge 10 ]
ok $? "planted 5% slowdown over 20 seed pairs: detected $hit times (>= 10)"
done_testing
