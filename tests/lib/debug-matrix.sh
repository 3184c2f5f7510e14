# shellcheck shell=bash
# The checks of a configs/debug.matrix run on a DEBUG=1 kernel, shared by
# tests/93 (rangelock) and tests/slow/98 (the other safe variants):
# call after `run runners/run bench --kernel V --debug --matrix debug ...`
# with the variant; sixteen tests.
#
# Every workload with the oracle on and the hole-punch window widened, and
# direct IO beside the range lock's users (sync and io_uring, reads and
# writes, disjoint and overlapping, allocating writes with the shared
# inode lock, DIO against faults, buffered readers and truncation; IOs of
# several bios tried with IOCB_NOWAIT first, bios that end inside pages,
# allocating writes with the completion widened): no lockdep report,
# WARN, oops or hang, no data error, a clean filesystem, and the KUnit
# suites of every range lock passing in every boot.
debug_matrix_checks() {
	local v=$1 rd res others failed fscks kerr suite kunit verdict
	echo "$OUT" | tail -5 | sed 's/^/# /'
	rd=$(echo "$OUT" | sed -n 's/^run: //p' | tail -1)
	res=("$rd/$v"/*.result.json)
	others=$(jq -r 'select(.status != "ok") | .env.point' "${res[@]}")
	ok "$([ "$RC" = 0 ] && [ -z "$others" ]; echo $?)" "$v: every point passed on the debug kernel"
	is "${#res[@]}" "$(runners/matrix configs/debug.matrix | grep -c '^point ')" "$v: one result per point"
	like "$(jq -r .kernel.release "${res[0]}")" "-rl-$v-debug$" "$v: the debug kernel ran"
	grep -q 'debugfs mapping_lock/punch_delay_us = 2000' "$rd/$v"/console-boot*.log
	ok $? "$v: the punch-delay knob was set"
	failed=$(jq -r 'select(.status != "ok") | .env.point + ": " + .error' "${res[@]}")
	is "$failed" "" "$v: no point shows a lockdep report, WARN, oops or hang"
	is "$(jq -s 'map(.verify.errors) | add' "${res[@]}")" 0 "$v: the oracle found no data errors"
	# io_uring direct IO of several bios that finds a range busy after
	# issuing some ends short; it must return the short count from the
	# issue, so that io_uring issues the rest and the application sees
	# whole IOs.
	kerr=$(jq -s 'map(select(.workload == "dio" and .params.engine == "io_uring" and .params.bs >= 2097152) | .verify.errors) | add // 0' "${res[@]}")
	is "$kerr" 0 "$v: io_uring direct IO of several bios against faults returns whole IOs"
	fscks=$(cat "$rd/$v"/fsck-boot*.txt | grep -c '^e2fsck exit: ')
	is "$(cat "$rd/$v"/fsck-boot*.txt | grep -c '^e2fsck exit: 0$'):$fscks" "$fscks:$fscks" "$v: e2fsck found the disk clean after every boot"
	jq -se '[.[] | select(.workload == "dio" and .params.engine == "io_uring") |
		.ops[] | select(.name == "write" and .count > 0)] | length > 0' "${res[@]}" >/dev/null
	ok $? "$v: io_uring direct writes ran beside the range lock's users"
	# KUnit prints "# range_lock: pass:N fail:0 skip:0 total:N" after a
	# suite's cases: the tree lock's, and the three newer locks' (patch
	# 0017), built into every debug kernel whatever its strategy.
	for suite in range_lock range_lock_bitmap range_lock_adaptive range_lock_list; do
		kunit=$(grep -ahoE "$suite: pass:[0-9]+ fail:[0-9]+ skip:[0-9]+ total:[0-9]+" "$rd/$v"/console-boot*.log | sort -u)
		verdict=$(awk 'NF { n++; split($0, f, /[: ]+/)
			if (f[3] + 0 == 0 || f[3] != f[9] || f[5] != 0) bad++ }
			END { print (n && !bad) ? "passed" : "failed or missing" }' <<<"$kunit")
		is "$verdict" passed "$v: the $suite KUnit suite passed in every boot ($kunit)"
	done
	grep -q 'debugfs mapping_lock/dio_end_delay_us = 1000' "$rd/$v"/console-boot*.log
	ok $? "$v: the direct write completion delay knob was set"
	jq -se '[.[] | select(.workload == "dio" and .params.nowait == true) |
		.counters.nowait_again] | add > 0' "${res[@]}" >/dev/null
	ok $? "$v: RWF_NOWAIT direct IO of several bios was declined by the kernel at least once"
	jq -se '[.[] | select(.workload == "dio" and .params["buf-offset"] == 512) |
		.ops[] | select(.count > 0)] | length > 0' "${res[@]}" >/dev/null
	ok $? "$v: direct IO with bios that end inside pages ran"
}
