#!/bin/bash
# report.txt against a golden file on the committed fixture run; the
# summary; percentiles from merged histograms; the fixture's generator;
# the header's features lines; and how long analysis of a few hundred
# results takes.
. "$(dirname "$0")/lib/tap.sh"
[ -x analysis/rlstat ] || make -s -C analysis >/dev/null || exit 2
plan 23

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
R=analysis/rlstat
fx=tests/fixtures/run-small

cp -r $fx "$tmp/run-small"
sums() { (cd "$1" && find . -type f ! -name 'report.*' ! -name '*.png' ! -name '*.svg' -print0 |
	sort -z | xargs -0 sha256sum); }
before=$(sums "$tmp/run-small")
run $R report "$tmp/run-small" --no-charts
is "$RC" 0 "report exits 0"
is "$OUT" "$tmp/run-small/report.txt" "report prints the path of report.txt"
diff -u tests/fixtures/run-small.report.txt "$tmp/run-small/report.txt" >"$tmp/diff"
ok $? "report.txt matches the golden file"
[ -s "$tmp/diff" ] && sed 's/^/# /' "$tmp/diff" | head -40
is "$(sums "$tmp/run-small")" "$before" "report changes nothing but its own outputs"
awk 'length($0) >= 80 { bad = 1 } / $/ { bad = 1 } END { exit bad }' "$tmp/run-small/report.txt"
ok $? "report.txt: every line under 80 columns, no trailing blanks"

txt=$(cat "$tmp/run-small/report.txt")
like "$txt" $'\n''Gmean read ops/s    [ 0-9.]+ \(  0\.00%\)  [ 0-9.]+ \( *-?[0-9.]+%\) \*[ 0-9.]+ \( *-[0-9.]+%\)\*' \
	"the planted 8% rangelock slowdown is starred (the gate FAILs it), baseline first"
like "$txt" "FAILED 1/3" "the failed iteration is shown, not averaged away"
like "$txt" "one-sided Welch tests on"$'\n'"the logs, Holm within each family, alpha 0.05 split 0.04/0.01" "legend names the test, the correction and alpha"
like "$txt" $'\nVerdict:     FAIL against stock' "the verdict comes before the tables"
like "$txt" $'\n  Verdict +INCONCLUSIVE +FAIL\n' "a gated metric's cells say FAIL or INCONCLUSIVE"
like "$txt" $'\nGmean ratio +[0-9.]+ \(n=2\) +[0-9.]+ \(n=2\) +[0-9.]+ \(n=1\)\n  CI95 +\[[0-9.]+, [0-9.]+\]' \
	"summary rows: geometric mean of the ratios per variant, with its CI"

run $R report "$tmp/run-small" --no-charts --baseline rangelock
[ "$RC" = 0 ] && head -5 "$tmp/run-small/report.txt" | grep -q '^Kernels:     rangelock ' &&
	grep -q '^Baseline:    rangelock' "$tmp/run-small/report.txt"
ok $? "--baseline moves that variant first"

run $R summary "$tmp/run-small"
[ "$RC" = 0 ] && [[ $OUT == *"p001-dio: dio threads=2 layout=disjoint bs=4096"* ]] &&
	[[ $OUT == *"rwsem-range  FAILED 1/3"* ]] && [ "$(grep -c '^  stock ' <<<"$OUT")" = 4 ]
ok $? "summary: one line per point, variant and op; failures shown"

# The summary's percentiles come from the histogram merged over
# iterations: iteration 1 has 200 reads at 10 us, iterations 2 and 3 have
# 100 each at 1 ms. The merged p50 is 10 us. (Bucket 526 holds 9984..10111 ns, 954 999424..1007615.)
mkdir -p "$tmp/merge/stock"
jq '.variants |= map(select(.name == "stock"))' $fx/meta.json >"$tmp/merge/meta.json"
for i in 1 2 3; do
	if [ $i = 1 ]; then h='{"526": 200}'; else h='{"954": 100}'; fi
	jq -c --argjson h "$h" '(.ops[] | select(.name == "read") | .lat_ns.hist.counts) = $h' \
		$fx/stock/p000-dio-i$i.result.json >"$tmp/merge/stock/p000-dio-i$i.result.json"
done
run $R summary "$tmp/merge"
like "$(grep '^  stock        read' <<<"$OUT")" '^  stock +read +[0-9.]+ +[0-9.]+% +10\.0 +1003\.5 +1003\.5 +3$' \
	"summary p50/p99/p99.9 from the merged histogram"
# The report's p50 is one statistic for test and print alike: the
# geometric mean of the per-boot p50s (bucket midpoints 10047 and
# 1003519 ns): (10047 * 1003519^2)^(1/3) ns.
run $R report "$tmp/merge" --no-charts
want=$(awk 'BEGIN { printf "%.2f", exp((log(10047) + 2 * log(1003519)) / 3) / 1000 }')
like "$(cat "$tmp/merge/report.txt")" $'\n''p50 read us +'"$want " "report p50: geometric mean of per-boot p50s ($want us)"

# The fixture is what the committed generator makes.
analysis/rlsynth "$tmp/regen" --seed 7 --variants stock,imutex,rangelock,rwsem-range \
	--threads 1,2 --iterations 3 --effect rangelock=-8 --noise 0.02 --samples 400 \
	--fail rwsem-range:1:2 --name small
diff -r $fx "$tmp/regen" >/dev/null
ok $? "rlsynth reproduces tests/fixtures/run-small byte for byte"

# Boots 60% apart: a p99's MDE past 1000% is shown as such, not as a
# figure with five digits.
analysis/rlsynth "$tmp/wild" --seed 1 --variants stock,rangelock --iterations 3 --boot-noise 0.6 >/dev/null
run $R report "$tmp/wild" --no-charts
grep -q '^  MDE  *>1000%$' "$tmp/wild/report.txt" && ! grep -Eq '^  MDE .*[0-9]{4,}\.[0-9]{2}%' "$tmp/wild/report.txt"
ok $? "an MDE past 1000% reads '>1000%'"

# Features (meta.json variants[].strategy and .features, as runners/run
# writes them): the header names every variant's, and says when a variant
# differs from the baseline in more than the lock.
features_run() {	# DIR VARIANTS: an rlsynth run whose meta.json names them
	analysis/rlsynth "$1" --seed 3 --variants "$2" --iterations 3 >/dev/null
	jq '.variants |= map(.strategy = (.name | sub("\\+.*"; "")) | .features = (.name | split("+")[1:]))' \
		"$1/meta.json" >"$1/m" && mv "$1/m" "$1/meta.json"
}
features_run "$tmp/feat" stock,rangelock,stock+shared-alloc-dio,rangelock+shared-alloc-dio+fault-retry
run $R report "$tmp/feat" --no-charts
hdr=$(sed -n '/^Features:/,/^Machine:/p' "$tmp/feat/report.txt" | sed '$d')
is "$hdr" "Features:    stock        none
             stock+shared-alloc-dio shared-alloc-dio
             rangelock    none
             rangelock+shared-alloc-dio+fault-retry shared-alloc-dio fault-retry
Note:        stock+shared-alloc-dio differs from stock only in: shared-alloc-dio
Note:        rangelock+shared-alloc-dio+fault-retry differs from stock in the lock and in: shared-alloc-dio fault-retry" \
	"report.txt names every variant's features, and each that differs from the baseline in more than the lock"
run $R report "$tmp/feat" --no-charts --baseline stock+shared-alloc-dio
is "$(grep '^Note:' "$tmp/feat/report.txt")" "Note:        stock differs from stock+shared-alloc-dio only in: no shared-alloc-dio
Note:        rangelock differs from stock+shared-alloc-dio in the lock and in: no shared-alloc-dio
Note:        rangelock+shared-alloc-dio+fault-retry differs from stock+shared-alloc-dio in the lock and in: fault-retry" \
	"against a baseline with a feature: what the others lack or add"
grep -q 'rangelock+shared-alloc-dio+fault-retry' "$tmp/feat/report.html" && grep -q 'Note:        stock differs' "$tmp/feat/report.html"
ok $? "report.html shows them too"
features_run "$tmp/feat0" stock,rangelock
run $R report "$tmp/feat0" --no-charts
is "$(grep -E '^(Features|Note):' "$tmp/feat0/report.txt")" "Features:    none: the variants differ in the lock alone" \
	"variants without features: one line says so, no note"
ok "$(! grep -qE '^(Features|Note):' "$tmp/run-small/report.txt"; echo $?)" \
	"a run from before features (no features in meta.json) has neither line"

# A few hundred results: 4 variants x 8 points x 10 iterations.
analysis/rlsynth "$tmp/big" --variants stock,imutex,rangelock,rwsem-range \
	--threads 1,2,3,4,5,6,7,8 --iterations 10 --samples 2000
n=$(find "$tmp/big" -name '*.result.json' | wc -l)
t0=$(date +%s%N)
run $R report "$tmp/big" --no-charts
t1=$(date +%s%N)
is "$RC" 0 "report on $n result files"
echo "# analysis of $n result files (no charts): $(( (t1 - t0) / 1000000 )) ms"
done_testing
