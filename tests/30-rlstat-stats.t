#!/bin/bash
# rlstat's statistics against published worked examples, and the
# regression gate's false-alarm rate and power by simulation (TAP from C).
cd "$(dirname "$0")/.." || exit 2
[ -x analysis/test-stats ] || make -s -C analysis >/dev/null || exit 2
exec analysis/test-stats
