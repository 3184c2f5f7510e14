#!/bin/bash
# KERNEL=host: the matrix runs on the running kernel inside SCRATCH, with
# monitors, the topology and the same result format as guests.
. "$(dirname "$0")/lib/tap.sh"
plan 18

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/scratch"
cat >"$tmp/m.matrix" <<'M'
iterations 1
runtime 1
ramp 0
monitors vmstat perf
threads 1 2
point dio --size 4m --rw read
M
# As the README writes it, with the matrix of this test.
run make --no-print-directory bench KERNEL=host SCRATCH="$tmp/scratch" MATRIX="$tmp/m.matrix"
rd=$(echo "$OUT" | sed -n 's/^run: //p' | tail -1)
is "$RC" 0 "the bare run passed"
res=("$rd"/*/*.result.json)
is "${#res[@]}" 2 "one result per point"
is "$(jq -r .env.runner "${res[0]}")" bare "results say the bare runner made them"
is "$(jq -r .kernel.release "${res[0]}")" "$(uname -r)" "and name the running kernel"
ok "$(jq -e '.monitors.vmstat and .monitors.perf' "${res[0]}" >/dev/null; echo $?)" "the monitors are referenced from the result"
ok "$(jq -e '.nr_dirtied != null' "$rd/$(jq -r .monitors.vmstat "${res[0]}")" >/dev/null; echo $?)" "vmstat deltas were recorded"
is "$(jq -r .env.pinned "${res[0]}")" true "workers are pinned inside the hwloc binding"
like "$(jq -r .host.topology "$rd/meta.json")" "[0-9]+ cores, [0-9]+ PUs" "meta.json records the topology"
is "$(ls -A "$tmp/scratch")" "" "nothing is left in SCRATCH"
rm -rf "$rd"

# A matrix that includes another is kept written out in the run, so
# RESUME reads the run's own copy.
mkdir "$tmp/inc"
grep -v '^point' "$tmp/m.matrix" | sed 's/threads 1 2/threads 1/' >"$tmp/inc/base.matrix"
echo 'point dio --size 4m --rw read' >>"$tmp/inc/base.matrix"
printf '# top: includes base\ninclude base.matrix\nmonitors vmstat\n' >"$tmp/inc/top.matrix"
run runners/run bench --kernel host --matrix "$tmp/inc/top.matrix" --scratch "$tmp/scratch"
rd2=$(echo "$OUT" | sed -n 's/^run: //p' | tail -1)
[ "$RC" = 0 ] || echo "$OUT" | diag
ok "$([ "$RC" = 0 ] && ! grep -q "^include" "$rd2/matrix" && grep -q '^point dio' "$rd2/matrix"; echo $?)" \
	"the run keeps the matrix with its include written out"
# As the README writes it: no KERNEL=, the run's meta.json names its runner.
run make --no-print-directory bench RESUME="$rd2" SCRATCH="$tmp/scratch"
[ "$RC" = 0 ] || echo "$OUT" | diag
is "$RC" 0 "and make bench RESUME= of it runs from that copy on the bare runner"
rm -rf "$rd2"

run runners/run bench --kernel host --matrix "$tmp/m.matrix" --scratch "$tmp/nonexistent"
like "$RC:$OUT" "^2:.*neither a directory nor a block device" "a missing SCRATCH is refused"
run runners/run bench --kernel stock --matrix "$tmp/m.matrix"
like "$RC:$OUT" "^2:.*perf monitor needs the workload on the host" "perf in a guest is refused before anything builds"
# The knobs a bare run sets come back from the EXIT trap, even when one
# of them cannot be restored; a value with colons survives; a "a [b] c"
# knob goes back to its bracketed choice.
k=$tmp/knobs
mkdir "$k"
echo 'a:b:c' >"$k/colon"
echo 'always [madvise] never' >"$k/choice"
echo 1 >"$k/gone"
(
	set -euo pipefail
	. runners/lib.sh
	. runners/knobs.sh
	trap 'knobs_restore; touch "$k/cleaned"' EXIT
	knobs_set "$k/colon:x:y,$k/choice:never,$k/gone:2"
	[ "$(cat "$k/colon")" = x:y ] || exit 7
	rm "$k/gone" && mkdir "$k/gone"	# a knob that no longer takes a write
	exit 0
) 2>"$k/err"
is "$?" 0 "a knob that cannot be restored does not end the trap with an error"
is "$(cat "$k/colon")" 'a:b:c' "a value holding colons is restored exactly"
is "$(cat "$k/choice")" madvise "a bracketed choice is restored as the choice"
ok "$([ -e "$k/cleaned" ]; echo $?)" "cleanup after the failed restore still ran"
like "$(cat "$k/err")" "could not restore $k/gone" "the knob left behind is named"

done_testing
