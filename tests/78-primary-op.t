#!/bin/bash
# rlwork --primary-op decides which rate of a multi-role point the gate
# decides: a run whose rangelock boots punch at half stock's rate and
# fault at the same rate FAILs on the punches when the point was run with
# --primary-op punch, and does not when it was run without (the faults,
# the workload's first op, are then gated, and the punches only shown).
# The rangelock boots are stock's results with the punch rate halved, so
# nothing but the planted change differs. The report's explanation takes
# in the ungated punch rate that moved, and names its cause.
. "$(dirname "$0")/lib/tap.sh"
need_rlwork
command -v jq >/dev/null || { echo "1..0 # skip jq not installed"; exit 0; }
make -s -C analysis rlstat >&2 || { echo "1..0 # skip rlstat does not build"; exit 0; }
scratch_dir
trap 'rm -rf "$dir"' EXIT
plan 10

RLSTAT=analysis/rlstat

# scale OP by F: count, rate and kinds as rlwork writes them (rlstat
# validates that the three agree); the $ are jq's
# shellcheck disable=SC2016
scale='def scale($op; $f): .runtime_s as $rt |
	(.ops[] | select(.name == $op)) |= ((.count * $f | floor) as $n |
		.count = $n | .ops_per_s = $n / $rt |
		.kinds |= (with_entries(.value.count = (.value.count * $f | floor)) |
			. as $k | ($k | keys[0]) as $first |
			.[$first].count += $n - ([$k[].count] | add)));'

# make_run NAME [RLWORK OPTIONS...]: one run of a disjoint fault/punch
# point made into three stock boots 1% apart, and three rangelock boots
# the same with half the punches a second (PUNCH=1: the same punches):
# only the planted change differs, and the test does not depend on the
# host's noise
make_run() {
	local rd=$dir/$1 i f made=0 punch=${PUNCH:-0.5}
	shift
	mkdir -p "$rd/stock" "$rd/rangelock"
	jq '.variants |= map(select(.name == "stock" or .name == "rangelock"))' \
		tests/fixtures/run-small/meta.json >"$rd/meta.json"
	workloads/rlwork mmap-punch --overlap disjoint --refill-threads 0 "$@" \
		--file "$dir/w.dat" --size 8m --runtime 0.3 --ramp 0.05 --variant stock \
		--json "$dir/one.json" >/dev/null || return
	for i in 1 2 3; do
		f=p001-mmap-punch-i$i.result.json
		jq --argjson f "1.0$i" --argjson i "$i" "$scale"'
			.iteration = $i | scale("fault"; $f) | scale("punch"; $f)' \
			"$dir/one.json" >"$rd/stock/$f" &&
			jq --argjson p "$punch" "$scale"'.kernel.variant = "rangelock" | scale("punch"; $p)' \
				"$rd/stock/$f" >"$rd/rangelock/$f" && made=$((made + 1))
	done
	echo "$made"
}

# report_of NAME: rlstat report of the run; its text in txt, RC its exit
report_of() {
	run "$RLSTAT" report "$dir/$1" --no-charts
	txt=$(cat "$dir/$1/report.txt" 2>/dev/null)
}

is "$(make_run gated --primary-op punch)" 3 "three boots a side, run with --primary-op punch"
report_of gated
like "$RC:$txt" $'^0:.*\nVerdict: +FAIL against stock' "--primary-op punch: the halved punch rate FAILs the run"
like "$txt" $'\n  moved \\(FAIL\\) +rangelock +p001-mmap-punch Gmean punch ops/s' \
	"... on the punch rate, the point's gated metric"

is "$(make_run first)" 3 "the same point without --primary-op"
report_of first
like "$RC:$txt" $'^0:.*\nVerdict: +(PASS|INCONCLUSIVE)' "without it the punches are not gated: the same change does not FAIL"
like "$txt" $'\nAmean punch ops/s|\nGmean punch ops/s +[0-9.]+ \\( *0.00%\\) +\\+[0-9.]+ \\(-50.00%\\)\\+' \
	"... it is shown, marked as an ungated change (+value (change)+)"
# the report's explanation takes in a role's rate that moved although
# the gate did not gate it: the punches, half as many, each twice as long
sec=$(sed -n '/^== What each difference is made of ==/,/^== /p' "$dir/first/report.txt")
like "$sec" $'\n  rangelock against stock: punch.ops_per_s worse \\(uncorrected\\)\n' \
	"the explanation names the ungated punch rate that moved (uncorrected)"
like "$sec" $'\n  punch +rate +-50.0% [^\n]*\n(  +[^\n]*\n)*  +cause +the cost per kind\n' \
	"... and its cause: each punch took twice as long (the same kinds)"

# nothing moved: no rate past the threshold, so no point to explain
is "$(PUNCH=1 make_run same)" 3 "a run whose variants differ in nothing"
report_of same
ok "$(grep -q 'What each difference' "$dir/same/report.txt"; echo $((!$? || RC)))" \
	"... has no explanation section"

done_testing
