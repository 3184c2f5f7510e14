#!/bin/bash
# tests/93 on the reader/writer range lock: a DEBUG=1 (lockdep, hung-task
# detector) rwsem-range kernel runs every workload with the oracle on and
# the punch window widened, and direct IO under the range lock (sync and
# io_uring, reads and writes, disjoint and overlapping, allocating writes
# with the shared inode lock, DIO against faults, buffered readers and
# truncation; IOs of several bios tried with IOCB_NOWAIT first, bios that
# end inside pages, allocating writes with the completion widened): no
# lockdep report, WARN, oops or hang, no data error, a clean filesystem.
# Then polled direct IO (configs/debug-poll.matrix, as tests/93), and
# faults that must not wait for a direct write's range with the mmap or
# VMA lock held (configs/debug-mmlock.matrix, as tests/93).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/debug-poll.sh"
. "$(dirname "$0")/../lib/debug-mmlock.sh"
plan 20

run runners/run bench --kernel rwsem-range --debug --matrix debug --baseline none --name debug-rwsem-range
echo "$OUT" | tail -5 | sed 's/^/# /'
rd=$(echo "$OUT" | sed -n 's/^run: //p' | tail -1)
is "$RC" 0 "every point passed on the debug kernel"
res=("$rd"/rwsem-range/*.result.json)
is "${#res[@]}" "$(runners/matrix configs/debug.matrix | grep -c '^point ')" "one result per point"
like "$(jq -r .kernel.release "${res[0]}")" "-rl-rwsem-range-debug$" "the debug kernel ran"
grep -q 'debugfs mapping_lock/punch_delay_us = 2000' "$rd"/rwsem-range/console-boot*.log
ok $? "the punch-delay knob was set"
failed=$(jq -r 'select(.status != "ok") | .env.point + ": " + .error' "${res[@]}")
is "$failed" "" "no point shows a lockdep report, WARN, oops or hang"
is "$(jq -s 'map(.verify.errors) | add' "${res[@]}")" 0 "the oracle found no data errors"
fscks=$(cat "$rd"/rwsem-range/fsck-boot*.txt | grep -c '^e2fsck exit: ')
is "$(cat "$rd"/rwsem-range/fsck-boot*.txt | grep -c '^e2fsck exit: 0$'):$fscks" "$fscks:$fscks" "e2fsck found the disk clean after every boot"
jq -se '[.[] | select(.workload == "dio" and .params.engine == "io_uring") |
	.ops[] | select(.name == "write" and .count > 0)] | length > 0' "${res[@]}" >/dev/null
ok $? "io_uring direct writes ran under the range lock"
# KUnit prints "# range_lock: pass:N fail:0 skip:0 total:N" after its cases.
kunit=$(grep -ahoE 'range_lock: pass:[0-9]+ fail:[0-9]+ skip:[0-9]+ total:[0-9]+' "$rd"/rwsem-range/console-boot*.log | sort -u)
verdict=$(awk 'NF { n++; split($0, f, /[: ]+/)
	if (f[3] + 0 == 0 || f[3] != f[9] || f[5] != 0) bad++ }
	END { print (n && !bad) ? "passed" : "failed or missing" }' <<<"$kunit")
is "$verdict" passed "the range lock KUnit suite passed in every boot ($kunit)"
grep -q 'debugfs mapping_lock/dio_end_delay_us = 1000' "$rd"/rwsem-range/console-boot*.log
ok $? "the direct write completion delay knob was set"
jq -se '[.[] | select(.workload == "dio" and .params.nowait == true) |
	.counters.nowait_again] | add > 0' "${res[@]}" >/dev/null
ok $? "RWF_NOWAIT direct IO of several bios was declined by the kernel at least once"
jq -se '[.[] | select(.workload == "dio" and .params["buf-offset"] == 512) |
	.ops[] | select(.count > 0)] | length > 0' "${res[@]}" >/dev/null
ok $? "direct IO with bios that end inside pages ran"

run make --no-print-directory bench KERNEL=rwsem-range DEBUG=1 MATRIX=debug-poll BASELINE=none
debug_poll_checks rwsem-range

run make --no-print-directory bench KERNEL=rwsem-range DEBUG=1 MATRIX=debug-mmlock BASELINE=none
debug_mmlock_checks rwsem-range
done_testing
