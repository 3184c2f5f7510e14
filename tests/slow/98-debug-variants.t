#!/bin/bash
# tests/93 on every other safe variant (the other range strategies and
# stock; imutex loses data by design, make check-race shows it): a DEBUG=1
# (lockdep, hung-task detector) kernel of each runs configs/debug.matrix
# (every workload with the oracle on and the hole-punch window widened),
# polled direct IO (configs/debug-poll.matrix) and faults against slow
# direct write completions (configs/debug-mmlock.matrix), with tests/93's
# checks.
# Each variant is its own boot and its own run, so one that fails shows
# its checks failing and the next still runs.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/debug-matrix.sh"
. "$(dirname "$0")/../lib/debug-poll.sh"
. "$(dirname "$0")/../lib/debug-mmlock.sh"
strategies="rwsem-range bitmap adaptive listlock stock"
plan $(( $(wc -w <<<"$strategies") * 26 ))

for v in $strategies; do
	run runners/run bench --kernel "$v" --debug --matrix debug --baseline none --name "debug-$v"
	debug_matrix_checks "$v"

	run make --no-print-directory bench KERNEL="$v" DEBUG=1 MATRIX=debug-poll BASELINE=none
	debug_poll_checks "$v"

	run make --no-print-directory bench KERNEL="$v" DEBUG=1 MATRIX=debug-mmlock BASELINE=none
	debug_mmlock_checks "$v"
done
done_testing
