#!/bin/bash
# runners/bench-noise --run: the CoeffVar table of a run, judged against
# the cost-mode target.  A single-role point (one op, a fault-only or
# punch-only mmap-punch among them) over 0.1% fails the target; a point of
# several roles over 1% is only marked unsuited; time mode is never judged.
# Synthetic results: no guest boots.
. "$(dirname "$0")/lib/tap.sh"
plan 11

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# result RUN POINT MODE WORKLOAD ITERATION OP:RATE...
result() {
	local rd=$1 pt=$2 m=$3 w=$4 i=$5 ops='[]' o
	shift 5
	for o in "$@"; do
		ops=$(jq -c --arg n "${o%%:*}" --argjson r "${o#*:}" '. + [{name: $n, ops_per_s: $r}]' <<<"$ops")
	done
	mkdir -p "$rd/stock"
	jq -n --arg p "$pt" --arg m "$m" --arg w "$w" --argjson o "$ops" \
		'{status: "ok", workload: $w, kernel: {variant: "stock"}, env: {point: $p, mode: $m}, ops: $o}' \
		>"$rd/stock/$pt-$m-i$i.result.json"
}
# A run whose cost-mode points are deterministic, whose time-mode point is
# noisy and whose two-role point varies by 2%.
mkrun() {
	local rd=$1
	mkdir -p "$rd"
	echo '{}' >"$rd/meta.json"
	result "$rd" p001-dio cost dio 1 read:1000000
	result "$rd" p001-dio cost dio 2 read:1000100
	result "$rd" p001-dio time dio 1 read:500000
	result "$rd" p001-dio time dio 2 read:900000
	result "$rd" p004-mmap-punch cost mmap-punch 1 fault:200000
	result "$rd" p004-mmap-punch cost mmap-punch 2 fault:200010
	result "$rd" p006-mmap-punch cost mmap-punch 1 fault:100000 punch:5000
	result "$rd" p006-mmap-punch cost mmap-punch 2 fault:102000 punch:5100
}

mkrun "$tmp/good"
run runners/bench-noise --run "$tmp/good"
is "$RC" 0 "single-role cost points within 0.1%: the target is met"
like "$OUT" "stock +p001-dio +cost +read +2 +1000050.0 +0.0071% +1000" \
	"a row: variant, point, mode, op, boots, mean rate, CoeffVar and insn/op"
like "$OUT" "p006-mmap-punch +cost +fault .*unsuited to cost mode" "a two-role point over 1% is marked unsuited"
ok "$(grep -E 'time' <<<"$OUT" | grep -q 'target\|unsuited'; [ $? = 1 ]; echo $?)" \
	"a time-mode row is not judged (its CoeffVar is 40%)"

# The same run with the fault-only point 0.5% apart.
mkrun "$tmp/bad"
result "$tmp/bad" p004-mmap-punch cost mmap-punch 2 fault:201000
run runners/bench-noise --run "$tmp/bad"
is "$RC" 1 "a single-role mmap-punch point over 0.1% fails the target"
like "$OUT" "p004-mmap-punch +cost +fault .*over the 0.1% target" "and is named"
like "$OUT" "run: $tmp/bad" "the run is printed"

# Results that say which threads ran which op (workers, ops[].threads): a
# read/write mix in every thread is single-role and judged; ops in
# threads of their own are roles.
mkrun "$tmp/thr"
for i in 1 2; do
	for f in "$tmp/thr/stock/p006-"*"-i$i.result.json"; do
		jq -c '.workers = 2 | .ops |= map(.threads = 1)' "$f" >"$f.new" && mv "$f.new" "$f"
	done
	result "$tmp/thr" p007-dio cost dio "$i" "read:$((100000 + i * 500))" "write:100000"
	f=$tmp/thr/stock/p007-dio-cost-i$i.result.json
	jq -c '.workers = 2 | .ops |= map(.threads = 2)' "$f" >"$f.new" && mv "$f.new" "$f"
done
run runners/bench-noise --run "$tmp/thr"
like "$RC:$OUT" "^1:.*p006-mmap-punch +cost +fault .*unsuited to cost mode" "ops in threads of their own: roles, marked unsuited"
like "$OUT" "p007-dio +cost +read .*over the 0.1% target" "a read/write mix in every thread: judged against the target"

expect_bad "a directory that is not a run is refused" "is not a run directory" \
	runners/bench-noise --run "$tmp/none"
expect_bad "an unknown option is refused" "unknown option '--bogus'" runners/bench-noise --bogus 1
done_testing
