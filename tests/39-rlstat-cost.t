#!/bin/bash
# Cost mode in the analysis: results with env.mode "cost" are insn/op in
# a section of their own, never compared with time mode; the gate works
# at near-zero variance: a planted 0.5% insn/op change FAILs at N=3 while
# an A/A pair PASSes. MODE=both runs hold both kinds of result.
. "$(dirname "$0")/lib/tap.sh"
[ -x analysis/rlstat ] || make -s -C analysis >/dev/null || exit 2
plan 22

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
R=analysis/rlstat
gen() {	# dir seed [rlsynth options]
	local d=$1 s=$2; shift 2
	analysis/rlsynth "$tmp/$d" --seed "$s" --variants stock,rangelock \
		--threads 1,2 --iterations 3 --samples 200 "$@" >/dev/null
}
gen c1 1 --mode cost
gen c2 2 --mode cost
gen c3 3 --mode cost --effect rangelock=-0.5
gen both 4 --mode both
gen time 5 --mode time

[ -f "$tmp/c1/stock/p000-dio-cost-i1.result.json" ] &&
	[ "$(jq -r .env.mode "$tmp/c1/stock/p000-dio-cost-i1.result.json")" = cost ]
ok $? "rlsynth --mode cost: <point>-cost-i<N> files with env.mode cost"

run $R report "$tmp/c1" --no-charts
txt=$(cat "$tmp/c1/report.txt")
[[ $txt == *"Mode:        cost (insn/op from QEMU icount)"* ]] &&
	[[ $txt == *"== Cost mode: instructions per operation (insn/op, lower is better) =="* ]] &&
	[[ $txt != *"== Time mode"* ]]
ok $? "the report says which mode, in the header and the section"
[[ $txt == *"Gmean read insn/op"* ]] && [[ $txt != *"ops/s"* ]] && [[ $txt != *" us "* ]]
ok $? "cost mode is shown as insn/op, never as throughput or latency"
# insn/op = 1e9 / R, the geometric mean over boots
want=$(for i in 1 2 3; do jq -r '.ops[0].ops_per_s' "$tmp/c1/stock/p000-dio-cost-i$i.result.json"; done |
	awk '{ s += log(1e9 / $1) } END { printf "%.2f", exp(s / NR) }')
like "$(grep '^Gmean read insn/op' <<<"$txt" | head -1)" "^Gmean read insn/op +$want " \
	"insn/op is 1e9 / ops_per_s, geometric mean over boots ($want)"

run $R regress "$tmp/c1" "$tmp/c2"
[ "$RC" = 0 ] && [[ $OUT == *"rlstat regress: PASS"* ]]
ok $? "cost mode A/A pair, N=3: PASS (exit 0)"
[ "$RC" = 0 ] || printf '%s\n' "$OUT" | sed 's/^/# /'
run $R regress "$tmp/c1" "$tmp/c3"
[ "$RC" = 1 ] && [ "$(grep -c '^FAIL rangelock p00[01]-dio .*read.insn_per_op \[primary\]' <<<"$OUT")" = 2 ]
ok $? "a planted 0.5% insn/op increase: FAIL at N=3 (exit 1) at both points"
like "$(grep '^FAIL rangelock p000-dio' <<<"$OUT" | head -1)" 'insn/op, \+0\.[45][0-9]%, worse' \
	"... printed as +0.5% insn/op, worse"
gen c4 6 --mode cost --effect rangelock=-0.5
run $R regress "$tmp/c3" "$tmp/c4"
is "$RC" 0 "two runs with the same 0.5% change: PASS"

# Identical values on both sides: the quantisation floor, not p = 0.
cp -r "$tmp/c1" "$tmp/c1copy"
run $R regress "$tmp/c1" "$tmp/c1copy" -v
[ "$RC" = 0 ] && ! grep -q 'p=0 ' <<<"$OUT" && grep -q 'p=0\.5 ' <<<"$OUT"
ok $? "a run against its copy: PASS with p = 0.5, never a degenerate p"

[ -f "$tmp/both/stock/p000-dio-i1.result.json" ] &&
	[ -f "$tmp/both/stock/p000-dio-cost-i1.result.json" ]
ok $? "rlsynth --mode both: both file kinds in one run directory"
run $R report "$tmp/both"
txt=$(cat "$tmp/both/report.txt")
[ "$RC" = 0 ] && [[ $txt == *"== Time mode"*"== Cost mode"* ]] &&
	[[ $txt == *"Mode:        time and cost (separate sections, never compared)"* ]]
ok $? "MODE=both: one report, a time section and a cost section"
grep -q '^Test system: qemu, 2 cpus, 2048 MiB, ext4, virtio-blk (time mode)$' <<<"$txt" &&
	grep -q '^             qemu, 1 cpus, 2048 MiB, ext4, brd (cost mode)$' <<<"$txt" &&
	! grep -q '(cost mode)$' "$tmp/c1/report.txt"
ok $? "MODE=both: the header names each mode's test system; a one-mode run names one, unlabelled"
[ "$(grep -c '^Across the matrix' <<<"$txt")" = 2 ] &&
	[ -s "$tmp/both/relative-insn-per-op.svg" ] && [ -s "$tmp/both/cost-01-dio-read.svg" ] &&
	[ ! -e "$tmp/both/lat-p000-dio-cost-read.svg" ]
ok $? "summary rows and charts per mode; no latency charts in cost mode"
# a time-only run against a cost+time run: the cost points are only in one
run $R regress "$tmp/time" "$tmp/both"
[ "$RC" = 2 ] && [[ $OUT == *"only in $tmp/both: stock p000-dio"* ]]
ok $? "cost and time results are never compared with each other (exit 2)"

# A cost cell is an instruction path only when every thread runs the same
# ops and the boots agree as counts do; otherwise it is listed as
# unsuited, not gated.  A read/write mix in every thread is suited.
cp -r "$tmp/c3" "$tmp/roles"
for f in "$tmp"/roles/*/p000-dio-cost-i*.result.json; do
	jq -c '.workers = 2 | .ops |= map(.threads = 1)' "$f" >"$f.new" && mv "$f.new" "$f"
done
for f in "$tmp"/roles/*/p001-dio-cost-i*.result.json; do
	jq -c '.workers = 2 | .ops |= map(.threads = 2)' "$f" >"$f.new" && mv "$f.new" "$f"
done
run $R report "$tmp/roles" --no-charts
txt=$(cat "$tmp/roles/report.txt")
grep -q '^  unsuited  *rangelock  *p000-dio  *Gmean read insn/op' <<<"$txt" &&
	grep -q 'its 2 ops run in different threads; CoeffVar' <<<"$txt" &&
	grep -q '^  moved (FAIL)  *rangelock  *p001-dio  *Gmean read insn/op' <<<"$txt"
ok $? "a cost point whose ops run in threads of their own is unsuited; one mixing them in every thread still FAILs"
run $R regress "$tmp/c1" "$tmp/roles"
[ "$RC" = 1 ] && grep -q '^unsuited rangelock p000-dio .* -> .*its 2 ops run in different threads, not gated' <<<"$OUT" &&
	[ "$(grep -c 'rangelock p000-dio' <<<"$OUT")" = 1 ] && ! grep -q '^FAIL rangelock p000-dio' <<<"$OUT"
ok $? "regress prints each unsuited cell once, with its figures, and does not gate it"
gen spread 7 --mode cost --effect rangelock=-5 --cost-noise 0.03
run $R report "$tmp/spread" --no-charts
txt=$(cat "$tmp/spread/report.txt")
grep -q 'boots differ by more than 1%; CoeffVar' <<<"$txt" &&
	grep -q '^  Verdict  *unsuited' <<<"$txt" && ! grep -q '^  moved (FAIL)' <<<"$txt"
ok $? "cost boots 3% apart: unsuited, with the CoeffVar, the 5% change not gated"
# A candidate cannot take a cell out of the gate by being noisy: one
# point 20% up with its 3 boots 1.5-3% apart is unsuited, and the run,
# PASS everywhere else, is INCONCLUSIVE at best.
cp -r "$tmp/c2" "$tmp/noisy"
i=0
for k in 1 0.985 0.97; do
	i=$((i + 1)) f=$tmp/noisy/rangelock/p001-dio-cost-i$i.result.json
	jq -c --argjson k "$k" '.ops[0].ops_per_s /= 1.2 / $k | .ops[0].count = (.ops[0].ops_per_s * .runtime_s | floor)' "$f" >"$f.new" && mv "$f.new" "$f"
done
run $R regress "$tmp/c1" "$tmp/noisy"
[ "$RC" = 3 ] && grep -q '^unsuited rangelock p001-dio .*boots differ by more than 1%, not gated' <<<"$OUT" &&
	[[ $OUT == *"rlstat regress: INCONCLUSIVE: 0 FAIL, 0 INCONCLUSIVE, 3 PASS of 3 gated metrics"* ]]
ok $? "an unsuited cell makes a run that PASSes elsewhere INCONCLUSIVE (exit $RC)"
$R report "$tmp/noisy" --no-charts >/dev/null 2>&1
grep -q '^Verdict:     INCONCLUSIVE against stock' "$tmp/noisy/report.txt"
ok $? "... in the report too"

# Only time mode adds boots while undecided: a cost cell of a sequential
# run is judged with the whole alpha, not the share of an interim look.
# (0.2% boot-to-boot: significant at the run's alpha, not at the 2% of it
# an interim look of time mode spends)
gen seq 8 --mode both --effect rangelock=-1 --cost-noise 0.002 --sequential 10
run $R report "$tmp/seq" --no-charts
grep -Eq '^  moved \(FAIL\) +rangelock +p000-dio +Gmean read insn/op' "$tmp/seq/report.txt"
ok $? "a 1% insn/op change at 0.2% noise FAILs at 3 cost boots in a sequential run"
run $R next "$tmp/seq"
! grep -q cost <<<"$OUT"
ok $? "rlstat next never asks for cost boots"

f=$tmp/c2/stock/p000-dio-cost-i1.result.json
jq -c '.env.mode = "fast"' "$f" >"$f.new" && mv "$f.new" "$f"
run $R report "$tmp/c2" --no-charts
[ "$RC" = 2 ] && [[ $OUT == *"p000-dio-cost-i1.result.json: env.mode"* ]]
ok $? "an unknown env.mode: exit 2, named"
done_testing
