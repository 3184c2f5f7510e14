#!/bin/bash
# Range lock semantics: overlap, disjoint and adjacent ranges, readers and
# writers, [0, ULONG_MAX], trylock, request reuse, lockdep balance.  The
# lock is lib/range_lock.c from the patched 6.12 tree (kernels/prepare-src).
bin=tests/rangelock/bin/dbg/rl_test
[ -x "$bin" ] || { echo "Bail out! $bin not built: run make -C tests/rangelock"; exit 1; }
exec timeout 300 "$bin" semantics
