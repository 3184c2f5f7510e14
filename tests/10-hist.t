#!/bin/bash
# Unit test of the log-linear latency histogram (workloads/hist.[ch]).
cd "$(dirname "$0")/.." || exit 1
if ! make -s -C workloads hist-test >&2; then
	echo "1..1"
	echo "not ok 1 - build workloads/hist-test"
	exit 1
fi
exec workloads/hist-test
