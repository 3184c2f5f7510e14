#!/bin/bash
# rlwork's work-mix counts (ops[].kinds) on the host: every kind adds up
# to its op's count and its time to the op's timed total; a punch over a
# chunk already punched (no refill since) counts as a hole, a fault where
# nothing is punched as data; --probe-residency sees the page cache the
# fault meets; truncate-storm's kinds agree with the
# counters it always kept; --probe-blocks adds the truncate's kinds; and
# rlstat validate refuses kinds that do not add up.
. "$(dirname "$0")/lib/tap.sh"
need_rlwork
command -v jq >/dev/null || { echo "1..0 # skip jq not installed"; exit 0; }
make -s -C analysis rlstat >&2 || { echo "1..0 # skip rlstat does not build"; exit 0; }
scratch_dir
trap 'rm -rf "$dir"' EXIT
plan 17

RLSTAT=analysis/rlstat
j=$dir/r.json
common=(--file "$dir/w.dat" --runtime 1 --ramp 0.2 --json "$j")

# every kinded op: the kinds' counts sum to count, their ns to the timed
# total (lat_ns.mean * count, both from the same clock readings)
adds_up='([.ops[] | select(.kinds) |
	([.kinds[].count] | add) == .count and
	(([.kinds[].time_ns] | add) - .lat_ns.mean * .count | fabs) <=
		1e-6 * .lat_ns.mean * .count + 1] | all)'

# 16 chunks of 64k, every one a punch target, nothing refilled: a chunk's
# first measured punch may find data, every later one finds the hole
run_split workloads/rlwork mmap-punch --size 1m --punch-len 64k \
	--overlap identical --refill-threads 0 --threads 1 "${common[@]}"
ok "$rc" "mmap-punch without refills: exit 0"
[ "$rc" = 0 ] || echo "$err" | diag
jq_ok "mmap-punch: fault and punch count hole and data, refill nothing" "$j" \
	'[.ops[] | select(.name == "fault" or .name == "punch") |
	  .kinds | keys == ["data", "hole"]] == [true, true] and
	 ([.ops[] | select(.kinds)] | length) == 2'
jq_ok "mmap-punch: the kinds add up to the count and the timed ns" "$j" "$adds_up"
jq_ok "mmap-punch: punches over the 16 punched chunks are holes (at most 16 found data)" "$j" \
	'.ops[] | select(.name == "punch") |
	 .count > 16 and .kinds.data.count <= 16 and
	 .kinds.hole.count == .count - .kinds.data.count'
jq_ok "mmap-punch: faults land on holes once chunks are punched" "$j" \
	'.ops[] | select(.name == "fault") | .kinds.hole.count > 0'
like "$out" $'\n'"    kinds: hole [0-9]+ \\([0-9.]+ us\\), data [0-9]+" \
	"the summary prints each op's kinds under it"

# --probe-residency: mincore() before the touch, crossed with hole/data;
# a fault after its chunk's punch misses (and reads the chunk around it)
run_split workloads/rlwork mmap-punch --size 1m --punch-len 64k \
	--overlap identical --refill-threads 0 --threads 1 --probe-residency "${common[@]}"
jq_ok "mmap-punch --probe-residency: four fault kinds that add up, and misses after punches" "$j" \
	"$adds_up and .params.\"probe-residency\" == true and
	 (.ops[] | select(.name == \"fault\") | (.kinds | keys) ==
		[\"data_cached\", \"data_missed\", \"hole_cached\", \"hole_missed\"] and
	  .kinds.hole_missed.count > 0) and
	 (.ops[] | select(.name == \"punch\") | .kinds | keys) == [\"data\", \"hole\"]"

# nothing punched: every fault finds data
run_split workloads/rlwork mmap-punch --size 1m --punch-threads 0 --threads 1 \
	"${common[@]}"
jq_ok "mmap-punch --punch-threads 0: every fault counts as data (no probe param)" "$j" \
	'(.params | has("probe-residency") | not) and (.ops[] | select(.name == "fault") |
	 .count > 0 and .kinds.hole.count == 0 and .kinds.data.count == .count)'
run_split workloads/rlwork mmap-punch --size 1m --punch-threads 0 --threads 1 \
	--probe-residency "${common[@]}"
jq_ok "mmap-punch --punch-threads 0 --probe-residency: the filled file's pages are all cached" "$j" \
	'.ops[] | select(.name == "fault") | .count > 0 and .kinds.data_cached.count == .count'

# truncate-storm: the kinds against the counters it kept before them
# (each looks at the phase once, so the two may differ by an op a thread
# at the ramp's end and at the stop)
run_split workloads/rlwork truncate-storm --size 4m --threads 1 "${common[@]}"
ok "$rc" "truncate-storm: exit 0"
jq_ok "truncate-storm: faults past EOF are the sigbus counter, short reads short_reads" "$j" \
	'def k(o; n): [.ops[] | select(.name == o) | .kinds[n].count] | add // 0;
	 (k("fault"; "past_eof") - .counters.sigbus | fabs) <= 2 * .workers and
	 (k("read"; "short") + k("dio_read"; "short") -
	  .counters.short_reads - .counters.dio_read_eio | fabs) <= 2 * .workers and
	 k("fault"; "past_eof") > 0 and k("read"; "short") > 0'
jq_ok "truncate-storm: no --probe-blocks, no truncate kinds (nor the param); the others add up" "$j" \
	"([.ops[] | select(.name == \"truncate\" and .kinds)] | length) == 0 and
	 (.params | has(\"probe-blocks\") | not) and $adds_up"
# Readers alone allocate nothing: only a truncate below every earlier one
# frees blocks (a new record low, some ln(n) of n), and the first one, with
# no ramp, always does: the file starts full.
run_split workloads/rlwork truncate-storm --size 4m --threads 1 --probe-blocks \
	--roles read "${common[@]}" --ramp 0
jq_ok "truncate-storm --probe-blocks: truncates count freed (new lows: 1 to 40) and empty" "$j" \
	".params.\"probe-blocks\" == true and $adds_up and
	 (.ops[] | select(.name == \"truncate\") | (.kinds | keys) == [\"empty\", \"freed\"] and
	  .count > 100 and .kinds.freed.count >= 1 and .kinds.freed.count <= 40)"
like "$out" "probe-blocks +yes" "--probe-blocks is printed with the resolved options"

# rlstat: what rlwork wrote is valid, kinds that do not add up are not,
# and a result from before the counts still is
run "$RLSTAT" validate "$j"
is "$RC" 0 "rlstat validate accepts a result with kinds"
jq '(.ops[] | select(.name == "read") | .kinds.full.count) += 1' "$j" >"$dir/bad.json"
expect_bad "rlstat validate refuses kinds that do not add up to the count" \
	'op "read": its kinds count [0-9]* ops, its count is [0-9]*' \
	"$RLSTAT" validate "$dir/bad.json"
jq 'del(.ops[].kinds)' "$j" >"$dir/old.json"
run "$RLSTAT" validate "$dir/old.json"
is "$RC" 0 "rlstat validate accepts a result without kinds (older rlwork)"
done_testing
