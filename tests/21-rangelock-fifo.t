#!/bin/bash
# Range lock fairness with a deterministic schedule: a request that overlaps
# an earlier waiter queues behind it (no barging), readers queue behind
# earlier writers, trylock never overtakes a waiter, FIFO grant order.
bin=tests/rangelock/bin/dbg/rl_test
[ -x "$bin" ] || { echo "Bail out! $bin not built: run make -C tests/rangelock"; exit 1; }
exec timeout 300 "$bin" fifo
