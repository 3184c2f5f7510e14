#!/bin/bash
# rlstat next: the time-mode points still undecided against the baseline
# by the sequential rule, one label a line; and a runner's ITERATIONS=auto
# loop driven by it on a synthetic run, ending with a verdict.
. "$(dirname "$0")/lib/tap.sh"
[ -x analysis/rlstat ] || make -s -C analysis >/dev/null || exit 2
plan 15

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
R=analysis/rlstat
gen() {	# dir seed [rlsynth options]
	local d=$1 s=$2; shift 2
	analysis/rlsynth "$tmp/$d" --seed "$s" --variants stock,rangelock \
		--threads 1,2,3 --noise 0.03 --samples 2000 "$@" >/dev/null
}

# The full sequence a runner could produce: 10 boots a variant, rangelock
# 6% slower at p001 only. The run under test starts with boots 1-3.
gen full 1 --iterations 10 --effect rangelock=-6 --effect-point 1 --boot-noise 0.01 --sequential 10
mkdir -p "$tmp/run/stock" "$tmp/run/rangelock"
cp "$tmp/full/meta.json" "$tmp/run/"
for v in stock rangelock; do cp "$tmp/full/$v"/*-i[123].result.json "$tmp/run/$v/"; done

run $R next "$tmp/run"
is "$RC" 0 "next exits 0"
like "$OUT" '^(p00[0-2]-dio
)*p00[0-2]-dio$' "one point label a line"
[[ $OUT == *p001-dio* ]]
ok $? "the planted regression is undecided after 3 boots (it needs more)"
first=$OUT

# The runner's loop: one more boot of every variant for the named points.
rounds=0
while labels=$($R next "$tmp/run") && [ -n "$labels" ] && [ $rounds -lt 20 ]; do
	for l in $labels; do
		for v in stock rangelock; do
			n=$(find "$tmp/run/$v" -name "$l-i*.result.json" | wc -l)
			cp "$tmp/full/$v/$l-i$((n + 1)).result.json" "$tmp/run/$v/"
		done
	done
	rounds=$((rounds + 1))
done
[ -z "$labels" ] && [ $rounds -le 7 ]
ok $? "the loop ends: nothing undecided after $rounds rounds (at most 7 to reach 10 boots)"
n1=$(find "$tmp/run/rangelock" -name 'p001-dio-i*' | wc -l)
max=$(for p in p000 p001 p002; do find "$tmp/run/stock" -name "$p-dio-i*" | wc -l; done | sort -n | tail -1)
[ "$max" -le 10 ]
ok $? "no point has more than max_iterations boots (most: $max; p001: $n1)"
for p in p000 p001 p002; do
	echo "# $p-dio: $(find "$tmp/run/stock" -name "$p-dio-i*" | wc -l) boots a side"
done
$R report "$tmp/run" --no-charts >/dev/null 2>&1
grep -q 'moved (FAIL) *rangelock *p001-dio *Gmean read ops/s' "$tmp/run/report.txt"
ok $? "the final report FAILs the planted regression"
grep -q 'moved (FAIL) *rangelock *p00[02]-dio' "$tmp/run/report.txt"
ok $((!$?)) "... and nothing else"

# A run the budget stopped says so in the report's header, with how many
# points were left undecided; one every point of which was decided, that.
jq '.budget = "8m" | .budget_s = 480 | .auto_stop = {rule: "budget", rounds: 3, undecided: ["p001-dio", "p002-dio"]}' \
	"$tmp/full/meta.json" >"$tmp/m.json" && cp "$tmp/m.json" "$tmp/run/meta.json"
$R report "$tmp/run" --no-charts >/dev/null 2>&1
grep -A1 '^Iterations:' "$tmp/run/report.txt" | grep -qx ' *(auto: the budget (8 min) left no time for the next round; 2 points undecided)'
ok $? "the report says the budget stopped the rounds, with 2 points undecided"
# rlstat next also gives up on a point that more rounds could not decide
# (futility, or max_iterations): the loop above ends with two of them, so
# "nothing left to run" is said as the points left undecided, and "every
# point decided" only when the verdict has none.
jq '.auto_stop = {rule: "decided", rounds: 5, undecided: []}' "$tmp/full/meta.json" >"$tmp/run/meta.json"
$R report "$tmp/run" --no-charts >/dev/null 2>&1
n=$(sed -n '/^Verdict:/,/^$/p' "$tmp/run/report.txt" | awk '$1 == "undecided" { print $3 }' | sort -u | wc -l)
[ "$n" -gt 0 ] && grep -A1 '^Iterations:' "$tmp/run/report.txt" |
	grep -qx " *(auto: $n points\{0,1\} undecided that more rounds could not decide)"
ok $? "rounds that stopped with $n points undecided say so, not 'every point decided'"
analysis/rlsynth "$tmp/alldone" --variants stock,rangelock --iterations 4 --noise 0.002 --boot-noise 0.0005 >/dev/null
jq '.auto_stop = {rule: "decided", rounds: 4, undecided: []}' "$tmp/alldone/meta.json" >"$tmp/m.json" &&
	cp "$tmp/m.json" "$tmp/alldone/meta.json"
$R report "$tmp/alldone" --no-charts >/dev/null 2>&1
! grep -q '^  undecided' "$tmp/alldone/report.txt" &&
	grep -A1 '^Iterations:' "$tmp/alldone/report.txt" | grep -qx ' *(auto: every point decided)'
ok $? "... or, when the verdict has none undecided, that every point was decided"

# Nothing to decide: one variant, cost mode only, or every point at max.
analysis/rlsynth "$tmp/one" --variants stock --iterations 3 >/dev/null
run $R next "$tmp/one"
[ "$RC" = 0 ] && [ -z "$OUT" ]
ok $? "a run of one variant: nothing printed"
analysis/rlsynth "$tmp/cost" --mode cost --iterations 3 >/dev/null
run $R next "$tmp/cost"
[ "$RC" = 0 ] && [ -z "$OUT" ]
ok $? "cost mode needs no more boots: nothing printed"
run $R next "$tmp/full"
[ "$RC" = 0 ] && [ -z "$OUT" ]
ok $? "every point at max_iterations (10): nothing printed"
run $R next "$tmp/run" --max-iterations 3
[ "$RC" = 0 ] && [ -z "$OUT" ]
ok $? "--max-iterations caps it too"

run $R next "$tmp/run" --baseline nosuch
[ "$RC" = 2 ] && [[ $OUT == *'baseline "nosuch" is not in'* ]]
ok $? "an unknown baseline: exit 2, named"
echo "# first round named: ${first//$'\n'/ }"
done_testing
