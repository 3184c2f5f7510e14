#!/bin/bash
# A DEBUG=1 (lockdep, hung-task detector) rangelock kernel runs every
# workload with the oracle on and the hole-punch window widened
# (configs/debug.matrix; tests/lib/debug-matrix.sh says what it checks).
# Then polled direct IO (io_uring IOPOLL on null_blk's poll queue,
# configs/debug-poll.matrix) whose first bio ends inside a page the next
# bio starts in: an IO that waited for its own polled bio would hang until
# the device timeout.  Then faults against direct writes whose completion
# is widened to 200 ms (configs/debug-mmlock.matrix): no fault may wait
# for a direct write, and mprotect() of the faulted mapping must not
# stall.  tests/slow/98 runs the same on the other safe variants.
. "$(dirname "$0")/lib/tap.sh"
. "$(dirname "$0")/lib/debug-matrix.sh"
. "$(dirname "$0")/lib/debug-poll.sh"
. "$(dirname "$0")/lib/debug-mmlock.sh"
plan 26

run runners/run bench --kernel rangelock --debug --matrix debug --baseline none --name debug-rangelock
debug_matrix_checks rangelock

run make --no-print-directory bench KERNEL=rangelock DEBUG=1 MATRIX=debug-poll BASELINE=none
debug_poll_checks rangelock

run make --no-print-directory bench KERNEL=rangelock DEBUG=1 MATRIX=debug-mmlock BASELINE=none
debug_mmlock_checks rangelock
done_testing
