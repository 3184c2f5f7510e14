#!/bin/bash
# rlwork fairness on the host: one wide punch or truncate at a time against
# narrow faults and reads. The wide op's result carries wait_ns (count,
# mean, p99, max, unfinished) with p99 <= max and mean <= max; the oracle
# passes and catches a planted stale page; bad options exit 2 and leave
# nothing behind; rlstat validate accepts the results and refuses a broken
# wait_ns; rlstat report prints the wide request waits table per variant
# from a run made of these results, and the counted-waits cross-check line only
# where a mapping_lock monitor recorded every boot.
. "$(dirname "$0")/lib/tap.sh"
need_rlwork
command -v jq >/dev/null || { echo "1..0 # skip jq not installed"; exit 0; }
make -s -C analysis rlstat >&2 || { echo "1..0 # skip rlstat does not build"; exit 0; }
scratch_dir
trap 'rm -rf "$dir"' EXIT
plan 42

RLSTAT=analysis/rlstat
j=$dir/r.json
common=(--file "$dir/w.dat" --size 8m --runtime 1 --ramp 0.2)

# the wide op's wait_ns: every field, count > 0, p99 and mean under max
wait_ok='def w: .ops[] | select(.wait_ns);
	([.ops[] | select(.wait_ns)] | length) == 1 and
	(w | .wait_ns | keys) == ["count", "max", "mean", "p99", "unfinished"] and
	(w | .wait_ns.count == .count and .wait_ns.count > 0 and
	     .wait_ns.p99 <= .wait_ns.max and .wait_ns.mean <= .wait_ns.max and
	     .wait_ns.max == .lat_ns.max and .wait_ns.p99 > 0)'

run_split workloads/rlwork fairness --threads 2 --verify "${common[@]}" --json "$j"
ok "$rc" "fairness (wide punch, 2 narrow threads, --verify): exit 0"
[ "$rc" = 0 ] || echo "$err" | diag
jq_ok "ops: the narrow fault and read first, then wide_punch; 3 workers" "$j" \
	'[.ops[].name] == ["fault", "read", "wide_punch"] and .workers == 3 and
	 ([.ops[] | select(.name != "wide_punch") | .count > 0 and .threads == 2] | all) and
	 (.ops[] | select(.name == "wide_punch") | .threads) == 1'
jq_ok "wide_punch: wait_ns count > 0, mean and p99 at most max, max the op's lat_ns.max" "$j" "$wait_ok"
jq_ok "the oracle checked the narrow reads and the wide read-backs: no errors" "$j" \
	'.verify.enabled and .verify.errors == 0 and .verify.checked > 0 and .status == "ok"'
jq_ok "params: the wide request's options (defaults: punch, 90%, 1 ms apart, 1 thread)" "$j" \
	'.params | ."wide-op" == "punch" and ."wide-pct" == 90 and ."wide-gap-us" == 1000 and
	 ."wide-threads" == 1 and ."read-pct" == 50 and ."write-pct" == 25'
like "$out" $'\n  wide_punch .*\n    wait: [0-9]+ requests, mean [0-9.]+ us, p99 [0-9.]+ us, max [0-9.]+ us, unfinished [0-9.]+ us' \
	"the summary prints the wait line under the wide op"
cp "$j" "$dir/punch.json"

run_split workloads/rlwork fairness --threads 2 --wide-op truncate --runtime 2 \
	--file "$dir/w.dat" --size 8m --ramp 0.2 --verify --json "$j"
ok "$rc" "fairness --wide-op truncate --verify: exit 0"
jq_ok "truncate: wide_truncate carries wait_ns, extend does not; faults past EOF counted" "$j" \
	"[.ops[].name] == [\"fault\", \"read\", \"wide_truncate\", \"extend\"] and $wait_ok and
	 (.ops[] | select(.name == \"wide_truncate\") | .wait_ns) != null and
	 .counters.sigbus > 0 and .verify.errors == 0"

# no gap: the wide thread is inside a request nearly all the time, so
# the one the window's close cut short is kept as unfinished.  "Nearly":
# a thread preempted between two requests at the close has none in
# flight, so up to three runs are given to show one.
for try in 1 2 3; do
	run_split workloads/rlwork fairness --threads 1 --wide-gap-us 0 "${common[@]}" --json "$j"
	jq -e '.ops[] | select(.name == "wide_punch") | .wait_ns.unfinished > 0' "$j" >/dev/null && break
	echo "try $try: no request in flight at the window's close" | diag
done
jq_ok "--wide-gap-us 0: the request in flight at the window's close is unfinished (> 0)" "$j" \
	'.ops[] | select(.name == "wide_punch") | .wait_ns.unfinished > 0'

run_split workloads/rlwork fairness --threads 2 --wide-threads 0 --read-pct 100 "${common[@]}" --json "$j"
jq_ok "--wide-threads 0 --read-pct 100: read alone, no wait_ns anywhere" "$j" \
	'[.ops[].name] == ["read"] and ([.ops[] | select(.wait_ns)] | length) == 0 and .workers == 2'

# the oracle can fail here: a stale page planted behind the workload
run_split workloads/rlwork fairness --threads 2 --verify --inject-corruption stale "${common[@]}" --json "$j"
is "$rc" 1 "the oracle reports a planted stale page: exit 1"
jq_ok "... and the result says failed, with the verification error" "$j" \
	'.status == "failed" and .verify.errors > 0 and (.error | test("found stale"))'

# bad options: exit 2, one line naming the option, nothing written
rm -f "$dir/w.dat" "$j"
expect_bad "--wide-pct 0: out of range, named" "rlwork fairness: --wide-pct: 0 is out of range (1..100)" \
	workloads/rlwork fairness --wide-pct 0 "${common[@]}" --json "$j"
expect_bad "--wide-op chop: the choices named" "--wide-op: 'chop' is not one of punch|truncate" \
	workloads/rlwork fairness --wide-op chop "${common[@]}" --json "$j"
expect_bad "--wide-gap-us with --wide-threads 0: refused" "--wide-gap-us 5 without wide threads" \
	workloads/rlwork fairness --wide-threads 0 --wide-gap-us 5 "${common[@]}" --json "$j"
expect_bad "--wide-pct under a page of the file: refused" "--wide-pct 1 of --size 65536 is less than a page" \
	workloads/rlwork fairness --wide-pct 1 --size 64k --file "$dir/w.dat" --json "$j"
expect_bad "--read-pct 101: out of range" "--read-pct: 101 is out of range (0..100)" \
	workloads/rlwork fairness --read-pct 101 "${common[@]}" --json "$j"
expect_bad "--wide-threads 65: out of range" "--wide-threads: 65 is out of range (0..64)" \
	workloads/rlwork fairness --wide-threads 65 "${common[@]}" --json "$j"
is "$(find "$dir" -mindepth 1 -maxdepth 1 ! -name '*.json' | wc -l):$([ -e "$j" ]; echo $?)" "0:1" \
	"the refusals left no data file and no result"

# rlstat validate: what rlwork wrote, and a broken wait_ns
run "$RLSTAT" validate "$dir/punch.json"
is "$RC" 0 "rlstat validate accepts a result with wait_ns"
broken() {	# DESC PATTERN JQ-EDIT
	jq "$3" "$dir/punch.json" >"$dir/bad.json"
	expect_bad "rlstat validate refuses $1" "$2" "$RLSTAT" validate "$dir/bad.json"
}
W='(.ops[] | select(.name == "wide_punch") | .wait_ns)'
broken "p99 above max" 'op "wide_punch": wait_ns.p99 is above wait_ns.max' "$W.p99 = $W.max + 1"
broken "mean above max" 'op "wide_punch": wait_ns.mean is above wait_ns.max' "$W.mean = $W.max + 1"
broken "a missing field" 'op "wide_punch": wait_ns has no mean (it needs count, mean, p99, max, unfinished)' \
	"del($W.mean)"
broken "a count other than the op's" "op \"wide_punch\": wait_ns.count is not the op's count" "$W.count += 1"
broken "an unknown field" 'wait_ns has "p95"; accepted are count, mean, p99, max, unfinished' "$W.p95 = 1"
broken "a max other than lat_ns.max" 'op "wide_punch": wait_ns.max is not lat_ns.max' \
	"$W.max += 1 | $W.p99 = 0"
jq 'del(.ops[].wait_ns)' "$dir/punch.json" >"$dir/old.json"
run "$RLSTAT" validate "$dir/old.json"
is "$RC" 0 "rlstat validate accepts a result without wait_ns (older rlwork)"

# rlstat report: a run of two variants, three boots each, of one point;
# stock's boots have the mapping_lock monitor (the lock counters)
run_dir=$dir/run
mkdir -p "$run_dir/stock" "$run_dir/rangelock"
jq '.variants |= map(select(.name == "stock" or .name == "rangelock"))' \
	tests/fixtures/run-small/meta.json >"$run_dir/meta.json"
made=0
for v in stock rangelock; do
	for i in 1 2 3; do
		workloads/rlwork fairness --threads 2 --file "$dir/w.dat" --size 4m --runtime 0.4 \
			--ramp 0.1 --variant "$v" --iteration "$i" \
			--json "$run_dir/$v/p001-fairness-i$i.result.json" >/dev/null && made=$((made + 1))
	done
done
for i in 1 2 3; do
	f=$run_dir/stock/p001-fairness-i$i.result.json
	echo "{\"stats.contended\": $((i * 100)), \"stats.wait_ns_total\": $((i * 100 * 5000))}" \
		>"$run_dir/stock/p001-fairness-i$i.mapping_lock.json"
	jq --arg m "stock/p001-fairness-i$i.mapping_lock.json" '.monitors = {mapping_lock: $m}' "$f" >"$f.tmp" &&
		mv "$f.tmp" "$f"
done
is "$made" 6 "six boots' results made"
run "$RLSTAT" report "$run_dir" --no-charts
is "$RC" 0 "rlstat report of the fairness run: exit 0"
txt=$(cat "$run_dir/report.txt" 2>/dev/null)
like "$txt" $'\nWide request waits \\(wide_punch, call to return, us; all boots\\):\n  variant +boots +count +mean +p99 +max +unfinished\n  stock +3 +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+\n  rangelock +3 +[0-9]+ ' \
	"the report shows the wide request waits table, one row per variant, baseline first"
# the row's figures are the boots': requests summed, max the largest.
# The max goes over as integer ns and awk divides and rounds it as the
# report does (the same double, the same printf): a difference of 0.05
# after a subtraction of two doubles can come out a hair above 0.05.
want=$(jq -s '[([.[].ops[] | select(.name == "wide_punch") | .wait_ns.count] | add),
	([.[].ops[] | select(.name == "wide_punch") | .wait_ns.max] | max)] |
	"\(.[0]) \(.[1])"' -r "$run_dir"/stock/*.result.json)
got=$(awk -v want="$want" 'BEGIN { split(want, w, " "); m = sprintf("%.1f", w[2] / 1000) }
	/^Wide request waits/ { t = 1 }
	t && $1 == "stock" { print ($3 == w[1] && $6 == m) ? "ok" : $3 " " $6 " (want " w[1] " " m ")"; exit }' \
	"$run_dir/report.txt")
is "$got" "ok" "stock's row: the boots' requests summed ($want) and their largest max"
p99=$(awk '/^Wide request waits/ { t = 1 } t && $1 == "rangelock" { print ($5 <= $6) ? "ok" : $5 " > " $6; exit }' \
	"$run_dir/report.txt")
is "$p99" "ok" "rangelock's row: p99 (merged histogram) at most max"
# p001-fairness is one column wider than the verdict block's: a line that
# would pass 79 columns carries its figures on a continuation line
vb=$(sed -n '/^Verdict:/,/^$/p' "$run_dir/report.txt")
ok "$([ -n "$vb" ] && awk 'length($0) > 79 { exit 1 }' <<<"$vb"; echo $?)" \
	"the verdict block stays within 79 columns with a long point name"
like "$vb" $'\n  [a-z(), ]+ +rangelock +p001-fairness [^\n]*\n {18}[-+]' \
	"and a line too long for it carries its figures on the next line"
like "$txt" $'\n  stock: counted lock waits, all roles: 600 contended, mean 5.0 us\n' \
	"stock's -stats monitor: its lock waits as a cross-check line"
! grep -q '^  rangelock: counted lock waits' <<<"$txt"
ok $? "no cross-check line for a variant without the monitor"
awk '/^Wide request waits/ { t = 1 } t && /^$/ { t = 0 } t && length($0) >= 80 { bad = 1 }
	END { exit bad }' "$run_dir/report.txt"
ok $? "the table's lines stay under 80 columns"
# the point's metric table: a label longer than the usual column
# ("p99.9 wide_punch us") is shown whole, and the table still fits
# (a figure the gate calls significant is marked +figure (change)+)
like "$txt" $'\np99.9 wide_punch us +[0-9.]+ \( *0.00%\) +[*+]?[0-9.]+ \( *-?[0-9.]+%\)[*+]?\n' \
	"the longest metric label is not cut, its figures beside it"
like "$txt" $'\n[AG]mean wide_punch ops/s +[0-9.]+ ' "nor is the wide request's rate label"
awk '/^p001-fairness:/ { t = 1 } t && /^(Wide request|$)/ { t = 0 } t && length($0) >= 80 { bad = 1 }
	END { exit bad }' "$run_dir/report.txt"
ok $? "the point's metric table stays under 80 columns"

# the same boots as cost-mode results: roles, so the gate leaves the
# cells unsuited, and cost mode's "ns" are instructions: no table
cost_dir=$dir/cost
mkdir -p "$cost_dir/stock" "$cost_dir/rangelock"
cp "$run_dir/meta.json" "$cost_dir/"
for f in "$run_dir"/*/p001-fairness-i?.result.json; do
	v=$(basename "$(dirname "$f")") i=${f##*-i}
	jq '.env.mode = "cost"' "$f" >"$cost_dir/$v/p001-fairness-cost-i$i"
done
run "$RLSTAT" report "$cost_dir" --no-charts
ctxt=$(cat "$cost_dir/report.txt" 2>/dev/null)
like "$RC:$ctxt" "^0:.*unsuited +rangelock +p001-fairness" "cost mode: the fairness point is unsuited (roles)"
! grep -q "Wide request waits" <<<"$ctxt"
ok $? "cost mode: no wide request waits table"
done_testing
