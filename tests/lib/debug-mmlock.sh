# shellcheck shell=bash
# The checks of a configs/debug-mmlock.matrix run on a DEBUG=1 kernel,
# shared by tests/93 (rangelock) and tests/slow/98 (rwsem-range): call
# after `run make ... MATRIX=debug-mmlock ...` with the variant; four tests.
#
# The faults must have waited for direct writes' ranges (fault p99 at
# least a fifth of the widened write completion, or the point tested
# nothing), and mprotect(), which waits for every fault in progress on the
# mapping, must not have waited with them: under a quarter of its thread's
# time in calls of half that completion or longer (shorter stalls come
# from the host too: a vCPU thread preempted by a build on the host).  A
# kernel whose faults wait for the range with the mmap or VMA lock held
# stalls mprotect() most of the time: 67-76% of the run on rangelock and
# 73-76% on rwsem-range with that wait put back; 1-6% as it is, 9% with
# a kernel build running beside the guest.
debug_mmlock_checks() {
	local v=$1 rd res failed delay_ns fault_p99 stalled
	echo "$OUT" | tail -3 | sed 's/^/# /'
	rd=$(echo "$OUT" | sed -n 's/^run: //p' | tail -1)
	res=("$rd/$v"/*.result.json)
	failed=$(jq -r 'select(.status != "ok") | .env.point + ": " + .error' "${res[@]}")
	is "$RC:${#res[@]}:$failed:$(jq -s 'map(.verify.errors) | add' "${res[@]}")" "0:1::0" \
		"faults and mprotect against slow direct write completions: the point passed, no data errors"
	delay_ns=$(( $(sed -n 's|^debugfs mapping_lock/dio_end_delay_us \([0-9]*\)$|\1|p' configs/debug-mmlock.matrix) * 1000 ))
	grep -q "debugfs mapping_lock/dio_end_delay_us = $((delay_ns / 1000))" "$rd/$v"/console-boot*.log
	ok $? "... with the write completion widened to $((delay_ns / 1000000)) ms in the guest"
	fault_p99=$(jq '.ops[] | select(.name == "fault") | .lat_ns.percentiles["99"]' "${res[0]}")
	ok "$([ "${fault_p99:-0}" -ge $((delay_ns / 5)) ]; echo $?)" \
		"... the faults waited for the writes' ranges (fault p99 ${fault_p99:-none} ns >= $((delay_ns / 5)))"
	# The share of the run that mprotect spent in calls of delay/2 or
	# more, from the latency buckets (docs/formats.md: a bucket's middle).
	# shellcheck disable=SC2016  # $rt, $ns, $min are jq variables
	stalled=$(jq --argjson min $((delay_ns / 2)) "$JQ_BUCKET_MID"'
		.runtime_s as $rt | .ops[] | select(.name == "mprotect" and .count > 0) |
		[.lat_ns.hist.counts | to_entries[] | (.key | tonumber | mid) as $ns |
		 select($ns >= $min) | $ns * .value] | (add // 0) / ($rt * 1e9) * 100 | floor' "${res[0]}")
	ok "$([ -n "$stalled" ] && [ "$stalled" -lt 25 ]; echo $?)" \
		"... without the mmap or VMA lock: mprotect stalled ${stalled:-?}% of the run (< 25%) in calls >= $((delay_ns / 2000000)) ms"
}
