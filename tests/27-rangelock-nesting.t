#!/bin/bash
# Nesting two requests on one range lock tree deadlocks even over disjoint
# ranges (no barging): T holds A, Z overlapping A and B queues, T asks for
# B behind Z.  The harness shows it happen and both ways it is detected:
# the request for a free range stays blocked past a timeout, and lockdep
# (the shim's) reports the nesting as recursive locking.
bin=tests/rangelock/bin/dbg/rl_nesting
[ -x "$bin" ] || { echo "Bail out! $bin not built: run make -C tests/rangelock"; exit 1; }
exec timeout 300 "$bin"
