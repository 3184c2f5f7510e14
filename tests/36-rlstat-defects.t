#!/bin/bash
# The statistics defects a review found, each on hand-made values: a
# counter rising from 0, test/threshold/print on different statistics, a
# zero rate switching the average (now a failed point), a real change
# the threshold allows FAILed, zero variance from quantisation, and the
# boot-level offset rlsynth must be able to plant.
. "$(dirname "$0")/lib/tap.sh"
[ -x analysis/rlstat ] || make -s -C analysis >/dev/null || exit 2
plan 18

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
R=analysis/rlstat
gen() {	# dir seed [rlsynth options]
	local d=$1 s=$2; shift 2
	analysis/rlsynth "$tmp/$d" --seed "$s" --variants stock --threads 1 \
		--iterations 3 --noise 0.02 --samples 300 "$@" >/dev/null
}
# setv run jq-filter v1 v2 v3: one value per iteration of stock p000,
# the filter sees it as $v
setv() {
	local d=$1 filter=$2 i=1 v f; shift 2
	for v in "$@"; do
		f=$tmp/$d/stock/p000-dio-i$i.result.json
		jq -c --argjson v "$v" "$filter" "$f" >"$f.new" && mv "$f.new" "$f"
		i=$((i + 1))
	done
}
# a rate is count / runtime_s (10 s here)
# shellcheck disable=SC2016  # $v is a jq variable
rate='.ops[0].ops_per_s = $v | .ops[0].count = ($v * 10 | floor)'
# every iteration's histogram of reads in one bucket; $v its midpoint
bucket() {
	echo ".ops[0].lat_ns |= (.hist.counts = {\"$1\": 1000} | .min = \$v |
		.max = \$v | .mean = \$v | .stddev = 0 |
		.percentiles |= with_entries(.value = \$v))"
}

# 1. A counter that rises from 0 has no percentage change; it is decided
# by the absolute difference, and an error counter fails when non-zero.
gen A 1; gen B 2
# shellcheck disable=SC2016  # $v is a jq variable
setv B '.counters.short_reads = $v' 50 50 50
run $R regress "$tmp/A" "$tmp/B" -v
line=$(grep 'counters.short_reads' <<<"$OUT")
like "$line" '0 -> 50 count, \+50 ' "a counter 0 -> 50 prints its absolute change"
like "$line" 'worse' "... and is reported as worse"
for d in A B; do
	for f in "$tmp/$d"/stock/*.result.json; do
		jq -c '.counters.errors = 0 | .metrics += [{"name": "counters.errors",
			"unit": "count", "higher_is_better": false}]' "$f" >"$f.new" &&
			mv "$f.new" "$f"
	done
done
# shellcheck disable=SC2016  # $v is a jq variable
setv B '.counters.errors = $v' 0 3 0
run $R regress "$tmp/A" "$tmp/B"
[ "$RC" = 1 ] && [[ $OUT == *"FAIL stock p000-dio"*"counters.errors"* ]]
ok $? "an error counter that is non-zero in one iteration fails the gate"

# 2. One statistic per metric: A = {95, 100, 105}, B = {70, 100, 130}.
# The ratio of geometric means is exp(mean log B - mean log A) = 0.96985
# (-3.01%); the old gate printed the harmonic means' -6.03% and tested the
# arithmetic means (p = 1).
gen A2 3; gen B2 4
setv A2 "$rate" 95 100 105
setv B2 "$rate" 70 100 130
run $R regress "$tmp/A2" "$tmp/B2" -v
line=$(grep ' read.ops_per_s' <<<"$OUT")
like "$line" ' -3\.01%' "the printed change is the ratio of geometric means (-3.01%)"
like "$line" 'CI95 \[-[0-9.]+%, \+[0-9.]+%\]' "... with the CI of that same ratio"
want=$(awk 'BEGIN { d = (log(70) + log(100) + log(130) - log(95) - log(100) - log(105)) / 3;
	printf "%.2f", 100 * (exp(d) - 1) }')
is "$want" "-3.01" "hand computation of the ratio agrees"

# 3. A rate iteration of 0 or near 0 does not silently change the average.
gen Z 5
setv Z "$rate" 100 0.5 100
$R report "$tmp/Z" --no-charts >/dev/null 2>&1
like "$(grep ' read ops/s' "$tmp/Z/report.txt")" '^Gmean read ops/s +17\.10 ' \
	"{100, 0.5, 100}: the geometric mean 17.10, labelled Gmean"
# a boot that did no work is a failed point, named by its file, not a
# value that switches the row to the linear scale
setv Z "$rate" 100 0 100
gen Z0 15
run $R regress "$tmp/Z0" "$tmp/Z"
[ "$RC" = 1 ] && [[ $OUT == *"FAIL stock p000-dio"*"p000-dio-i2.result.json: status \"ok\" but its main rate (the first op's ops_per_s) is 0"* ]]
ok $? "{100, 0, 100}: the boot whose rate is 0 is a failed point, its file named (exit $RC)"

# 4. The gate tests against the threshold, not against zero. Rates a
# tenth of a percent apart; the p99 of every boot in one bucket.
gen W1 16; gen W2 17; gen W3 18
for d in W1 W2 W3; do setv $d "$(bucket 526)" 10047 10047 10047; done
setv W1 "$rate" 1000 1001 999
setv W2 "$rate" 990 991 989
run $R regress "$tmp/W1" "$tmp/W2"
[ "$RC" = 0 ] && [[ $OUT == *"PASS stock p000-dio"*"read.ops_per_s"*"-1.00%, worse,"*", worse, within threshold"* ]]
ok $? "a real 1% slowdown (2% threshold) is worse, within threshold: PASS, exit $RC"
[[ $OUT == *"PASS stock p000-dio"*"read.ops_per_s"*", at least 0."*"% worse at level"* ]]
ok $? "its lower bound is said as \"at least x% worse\""
setv W2 "$rate" 1001 1002 1000
run $R regress "$tmp/W1" "$tmp/W2" -v
[ "$RC" = 0 ] && [[ $OUT == *"PASS stock p000-dio"*"read.ops_per_s"*", at most "*"% better at level"* ]] &&
	[[ $OUT != *"at least -"* ]]
ok $? "a lower bound below zero is said as \"at most x% better\", never \"at least -x% worse\""
setv W2 "$rate" 990 991 989
# -2.2% with a CI reaching -0.4%: the interval crosses the threshold
setv W1 "$rate" 1000 1010 990
setv W3 "$rate" 978 988 968
run $R regress "$tmp/W1" "$tmp/W3" -v
line=$(grep ' read.ops_per_s' <<<"$OUT")
[ "$RC" = 3 ] && [[ $line == "INCONCLUSIVE "*"-2.20%, worse,"*", worse, not shown past the threshold"* ]]
ok $? "an estimate of -2.2% whose interval reaches inside the threshold is INCONCLUSIVE, not FAIL (exit $RC)"

# 5. Zero variance is quantisation, not certainty: every per-iteration p99
# of A in one bucket, every one of B two buckets up (about 3%).
gen Q1 6; gen Q2 7
# (bucket 526 holds 9984..10111 ns, 528 10240..10367)
setv Q1 "$(bucket 526)" 10047 10047 10047
setv Q2 "$(bucket 528)" 10303 10303 10303
run $R regress "$tmp/Q1" "$tmp/Q2" -v
line=$(grep ' read.lat_ns.p99 ' <<<"$OUT")
like "$line" 'p=[0-9.]+e-[0-9]+|p=0\.[0-9]*[1-9]' "p99 in fixed buckets: p is not 0"
lo=$(sed -n 's/.*CI95 \[\([-+0-9.]*\)%, \([-+0-9.]*\)%\].*/\1/p' <<<"$line")
hi=$(sed -n 's/.*CI95 \[\([-+0-9.]*\)%, \([-+0-9.]*\)%\].*/\2/p' <<<"$line")
awk -v l="$lo" -v h="$hi" 'BEGIN { exit !(l != "" && h - l > 0.5) }'
ok $? "... and its CI has the width of the bucket resolution ($lo%, $hi%)"

# 7. rlsynth plants a boot-level offset shared by every metric and point
# of a boot; the analysis takes the boot (iteration) as the replicate.
analysis/rlsynth "$tmp/boot" --seed 9 --variants stock --threads 1,2 \
	--iterations 4 --noise 0 --boot-noise 0.05 --samples 100 >/dev/null 2>&1
ok $? "rlsynth --boot-noise"
r() { jq -r ".ops[$2].ops_per_s" "$tmp/boot/stock/p00$1-dio-i$3.result.json"; }
# with --noise 0 the ratio of any two boots is the same for every metric
q1=$(awk -v a="$(r 0 0 1)" -v b="$(r 0 0 2)" 'BEGIN { printf "%.6f", a / b }')
q2=$(awk -v a="$(r 1 1 1)" -v b="$(r 1 1 2)" 'BEGIN { printf "%.6f", a / b }')
[[ $q1 =~ ^[0-9]+\.[0-9]+$ ]] && [ "$q1" = "$q2" ] && [ "$q1" != 1.000000 ]
ok $? "the offset is shared by the points and ops of a boot ($q1, $q2)"
q3=$(awk -v a="$(r 0 0 3)" -v b="$(r 0 0 4)" 'BEGIN { printf "%.6f", a / b }')
[[ $q3 =~ ^[0-9]+\.[0-9]+$ ]] && [ "$q1" != "$q3" ]
ok $? "... and differs between boots ($q1, $q3)"
run $R report "$tmp/boot" --no-charts
is "$RC" 0 "a run with boot offsets reports"
done_testing
