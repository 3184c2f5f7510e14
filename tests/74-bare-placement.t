#!/bin/bash
# KERNEL=host records the machine's topology as hwloc XML and the placement
# of every thread in every result: the bound package with --pin, the
# point's own with a matrix that sweeps placement (which then gets the whole
# machine, not package 0).  The saved XML is a topology rlwork can resolve
# placements against (HWLOC_XMLFILE).
. "$(dirname "$0")/lib/tap.sh"
make -s -C workloads >/dev/null || bail_out "rlwork does not build"
command -v lstopo-no-graphics >/dev/null || { echo "1..0 # skip hwloc not installed (make setup)"; exit 0; }
plan 7

tmp=$(mktemp -d)
rd=
# shellcheck disable=SC2317  # run from the EXIT trap
cleanup() { rm -rf "$tmp" ${rd:+"$rd"}; }
trap cleanup EXIT
mkdir "$tmp/scratch"
cat >"$tmp/m.matrix" <<'M'
iterations 1
runtime 1
ramp 0
placement pack spread
point dio --size 4m --rw read --threads 2
point dio --size 4m --rw write --threads 1 --placement list:0
M
run runners/run bench --kernel host --matrix "$tmp/m.matrix" --scratch "$tmp/scratch"
rd=$(echo "$OUT" | sed -n 's/^run: //p' | tail -1)
is "$RC" 0 "the bare run with a placement sweep passed"
res=("$rd"/*/*.result.json)
is "${#res[@]}" 3 "one result per point: pack, spread, and the point's own list"
ok "$(grep -q '<topology' "$rd/topology.xml"; echo $?)" "the run directory has the topology as hwloc XML"
bad=$(jq -r 'select((.env.placement.threads | length) != .params.threads or
	(.env.placement.threads | map(.cpu >= 0 and .node >= 0) | all | not)) | input_filename' "${res[@]}")
is "$bad" "" "every result records the CPU and node of every thread"
is "$(jq -r '[.params.placement, .env.placement.policy, .env.pinned] | join(" ")' "${res[@]}" | sort | xargs)" \
	"list:0 list false pack pack false spread spread false" "each point ran with its own placement, unpinned"
run env HWLOC_XMLFILE="$rd/topology.xml" workloads/rlwork dio --threads 2 --placement pack \
	--file "$tmp/w.dat" --size 1m --runtime 0.05 --ramp 0 --json "$tmp/r.json"
is "$RC:$(jq -c '[.env.placement.threads[].cpu]' "$tmp/r.json")" \
	"0:$(jq -c '[.env.placement.threads[].cpu]' "$(grep -l '"pack"' "${res[@]}" | head -1)")" \
	"the saved XML resolves pack as the machine did"

# without a placement the threads are pinned inside package 0, recorded too
printf 'iterations 1\nruntime 1\nramp 0\npoint dio --size 4m --threads 2\n' >"$tmp/p.matrix"
rm -rf "$rd"
run runners/run bench --kernel host --matrix "$tmp/p.matrix" --scratch "$tmp/scratch"
rd=$(echo "$OUT" | sed -n 's/^run: //p' | tail -1)
res=("$rd"/*/*.result.json)
jq_ok "a pinned point records its placement (policy pin)" "${res[0]}" \
	'.env.pinned and .env.placement.policy == "pin" and (.env.placement.threads | length) == 2'
done_testing
