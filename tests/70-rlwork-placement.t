#!/bin/bash
# rlwork --placement and --membind on synthetic 2-socket topologies (hwloc's
# HWLOC_SYNTHETIC and HWLOC_XMLFILE): pack fills package 0 first, spread
# alternates packages, list takes the CPUs given; the result records the
# CPU, node and package of every thread; bad specs exit 2 with one line.
. "$(dirname "$0")/lib/tap.sh"
need_rlwork
command -v jq >/dev/null || { echo "1..0 # skip jq not installed"; exit 0; }
scratch_dir
plan 19
trap 'rm -rf "$dir"' EXIT
j=$dir/r.json
short=(--file "$dir/w.dat" --size 1m --runtime 0.05 --ramp 0 --json "$j")
# 2 packages, one NUMA node each, 4 cores of 2 hardware threads: PUs 0-7
# on package 0 (cores 0-3: PUs 0,1 2,3 ...), 8-15 on package 1.
export HWLOC_SYNTHETIC="package:2 [numa] core:4 pu:2"

cpus() { jq -c '[.env.placement.threads[].cpu]' "$j"; }
field() { jq -c "[.env.placement.threads[].$1]" "$j"; }

run_split "$RLWORK" dio --threads 4 --placement pack "${short[@]}"
ok $rc "pack: exit 0"
is "$(cpus)" "[0,2,4,6]" "pack: one thread per core of package 0"
is "$(field package)" "[0,0,0,0]" "pack: all on package 0"
like "$out" "placement pack, membind none .*thread 3 cpu 6 node 0 package 0" "pack: resolved placement printed at start"
run_split "$RLWORK" dio --threads 10 --placement pack "${short[@]}"
is "$(cpus)" "[0,2,4,6,1,3,5,7,8,10]" "pack: second hardware threads of package 0 before package 1"

run_split "$RLWORK" dio --threads 4 --placement spread "${short[@]}"
ok $rc "spread: exit 0"
is "$(cpus)" "[0,8,2,10]" "spread: packages alternate"
is "$(field node)" "[0,1,0,1]" "spread: nodes alternate with them"
jq_ok "spread: params carry placement, env.placement the policy and topology" "$j" \
	'.params.placement == "spread" and (.params | has("membind") | not) and
	 .env.placement.policy == "spread" and .env.placement.packages == 2 and
	 .env.placement.nodes == 2 and .env.placement.cpus == 16 and
	 .env.placement.bound == false and ([.env.placement.threads[].ran_on] | all(. == null))'

run_split "$RLWORK" dio --threads 3 --placement list:9,12-13 --membind interleave "${short[@]}"
is "$(cpus)" "[9,12,13]" "list: the CPUs given, in order"
is "$(jq -c '[.params.membind, .env.placement.membind]' "$j")" '["interleave","interleave"]' "membind in params and env"

# the same from a saved XML topology
xml=$dir/topo.xml
HWLOC_SYNTHETIC="package:2 [numa] core:2 pu:1" lstopo-no-graphics --of xml "$xml" 2>/dev/null
run_split env -u HWLOC_SYNTHETIC HWLOC_XMLFILE="$xml" "$RLWORK" dio --threads 2 --placement spread "${short[@]}"
is "$(cpus),$(field node)" "[0,2],[0,1]" "HWLOC_XMLFILE: spread over the two packages"

# without placement nothing is recorded and params are as before
run_split "$RLWORK" dio --threads 2 "${short[@]}"
jq_ok "no --placement: no env.placement, no placement param" "$j" \
	'(.env | has("placement") | not) and (.params | has("placement") | not)'

# on this machine threads are bound: ran_on is where each one ran
run_split env -u HWLOC_SYNTHETIC "$RLWORK" dio --threads 2 --placement list:0 "${short[@]}"
jq_ok "real topology: bound, and every thread ran on its CPU" "$j" \
	'.env.placement.bound and ([.env.placement.threads[] | .ran_on == .cpu] | all)'

expect_bad "bad policy exits 2" "--placement: 'compact' is not pack, spread or list:<cpus>" \
	"$RLWORK" dio --placement compact "${short[@]}"
expect_bad "bad list exits 2" "'list:3-1' is not a CPU list" \
	"$RLWORK" dio --placement list:3-1 "${short[@]}"
expect_bad "CPU outside the topology exits 2" "CPU 16 is not in this machine's topology" \
	"$RLWORK" dio --placement list:0,16 "${short[@]}"
expect_bad "bad membind exits 2" "--membind: 'remote' is not local or interleave" \
	"$RLWORK" dio --placement pack --membind remote "${short[@]}"
expect_bad "--pin with --placement exits 2" "--pin and --placement exclude each other" \
	"$RLWORK" dio --pin --placement pack "${short[@]}"
