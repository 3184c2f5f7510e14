#!/bin/bash
# Killable range locks: a killed waiter returns -EINTR, leaves the tree,
# releases exactly the later waiters that counted it and wakes nobody who
# still has an earlier blocker; a kill racing the last unlock is consistent.
bin=tests/rangelock/bin/dbg/rl_test
[ -x "$bin" ] || { echo "Bail out! $bin not built: run make -C tests/rangelock"; exit 1; }
exec timeout 300 "$bin" killable
