# shellcheck shell=bash
# The checks of a configs/debug-mmlock.matrix run on a DEBUG=1 kernel,
# shared by tests/93 (rangelock) and tests/slow/98 (the other safe
# variants): call after `run make ... MATRIX=debug-mmlock ...` with the
# variant; six tests (two a point).
#
# No strategy takes the invalidate lock in direct IO, so the faults must
# not wait for the direct writes whose completion the knob widens (fault
# p99 under half that completion; on rangelock-debug 4.7 ms with the
# host idle and 33 ms beside a kernel build, of 200, where the series
# that took ranges around direct IO made faults wait for them; the
# matrix says why the delay is that long), and mprotect(), which waits for every fault in progress on
# the mapping, must not stall: under a quarter of its thread's time in
# calls of half that completion or longer (shorter stalls come from the
# host too: a vCPU thread preempted by a build on the host).  A kernel
# whose faults waited for a range with the mmap or VMA lock held stalled
# mprotect() 67-76% of the run.
debug_mmlock_checks() {
	local v=$1 rd res failed delay_ns r kind fault_p99 stalled
	echo "$OUT" | tail -3 | sed 's/^/# /'
	rd=$(echo "$OUT" | sed -n 's/^run: //p' | tail -1)
	res=("$rd/$v"/*.result.json)
	failed=$(jq -r 'select(.status != "ok") | .env.point + ": " + .error' "${res[@]}")
	is "$RC:${#res[@]}:$failed:$(jq -s 'map(.verify.errors // 0) | add' "${res[@]}")" \
		"0:$(runners/matrix configs/debug-mmlock.matrix | grep -c '^point ')::0" \
		"faults and mprotect against slow direct write completions: every point passed, no data errors"
	delay_ns=$(( $(sed -n 's|^debugfs mapping_lock/dio_end_delay_us \([0-9]*\)$|\1|p' configs/debug-mmlock.matrix) * 1000 ))
	grep -q "debugfs mapping_lock/dio_end_delay_us = $((delay_ns / 1000))" "$rd/$v"/console-boot*.log
	ok $? "... with the write completion widened to $((delay_ns / 1000000)) ms in the guest"
	for r in "${res[@]}"; do
		kind=$(jq -r 'if .params["fault-write"] then "write" else "read" end' "$r")
		fault_p99=$(jq '.ops[] | select(.name == "fault") | .lat_ns.percentiles["99"]' "$r")
		ok "$([ -n "$fault_p99" ] && [ "$fault_p99" -lt $((delay_ns / 2)) ]; echo $?)" \
			"... $kind faults did not wait for the writes' completions (fault p99 ${fault_p99:-none} ns < $((delay_ns / 2)))"
		# The share of the run that mprotect spent in calls of delay/2 or
		# more, from the latency buckets (docs/formats.md: a bucket's
		# middle).
		# shellcheck disable=SC2016  # $rt, $ns, $min are jq variables
		stalled=$(jq --argjson min $((delay_ns / 2)) "$JQ_BUCKET_MID"'
			.runtime_s as $rt | .ops[] | select(.name == "mprotect" and .count > 0) |
			[.lat_ns.hist.counts | to_entries[] | (.key | tonumber | mid) as $ns |
			 select($ns >= $min) | $ns * .value] | (add // 0) / ($rt * 1e9) * 100 | floor' "$r")
		ok "$([ -n "$stalled" ] && [ "$stalled" -lt 25 ]; echo $?)" \
			"... $kind faults without the mmap or VMA lock: mprotect stalled ${stalled:-?}% of the run (< 25%) in calls >= $((delay_ns / 2000000)) ms"
	done
}
