#!/bin/bash
# Unit test of the verification oracle's rules (workloads/oracle.[ch]).
cd "$(dirname "$0")/.." || exit 1
if ! make -s -C workloads oracle-test >&2; then
	echo "1..1"
	echo "not ok 1 - build workloads/oracle-test"
	exit 1
fi
# the errors it provokes on purpose go to stderr: keep them out of the log
exec workloads/oracle-test 2>/dev/null
