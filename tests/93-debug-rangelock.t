#!/bin/bash
# A DEBUG=1 (lockdep, hung-task detector) rangelock kernel runs every
# workload with the oracle on and the hole-punch window widened: no lockdep
# report, WARN, oops or hang, no data error, a clean filesystem.
. "$(dirname "$0")/lib/tap.sh"
plan 6

run runners/run bench --kernel rangelock --debug --matrix debug --name debug-rangelock
echo "$OUT" | tail -5 | sed 's/^/# /'
rd=$(echo "$OUT" | sed -n 's/^run: //p' | tail -1)
is "$RC" 0 "every point passed on the debug kernel"
res=("$rd"/rangelock/*.result.json)
is "${#res[@]}" "$(runners/matrix configs/debug.matrix | grep -c '^point ')" "one result per point"
like "$(jq -r .kernel.release "${res[0]}")" "-rl-rangelock-debug$" "the debug kernel ran"
grep -q 'debugfs mapping_lock/punch_delay_us = 2000' "$rd"/rangelock/console-boot*.log
ok $? "the punch-delay knob was set"
failed=$(jq -r 'select(.status != "ok") | .env.point + ": " + .error' "${res[@]}")
is "$failed" "" "no point shows a lockdep report, WARN, oops or hang"
is "$(jq -s 'map(.verify.errors) | add' "${res[@]}")" 0 "the oracle found no data errors"
done_testing
