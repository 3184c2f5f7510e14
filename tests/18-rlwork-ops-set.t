#!/bin/bash
# A workload reports exactly the ops its options run: in ops[], in
# metrics[] and in the summary table, whatever happened at run time.
. "$(dirname "$0")/lib/tap.sh"
need_rlwork
command -v jq >/dev/null || { echo "1..0 # skip jq not installed"; exit 0; }
scratch_dir

# the ops reported, in declaration order | the command
cases=(
	"read|dio --rw read"
	"write|dio --rw write"
	"read,write|dio --rw rw"
	"read|dio --rw rw --rwmix 100"
	"write|dio --rw rw --rwmix 0"
	"read,write|dio --rw rw --rwmix 99"
	"read|dio --engine io_uring --iodepth 4 --rw read"
	"write,fault,buffered_read|dio --rw write --fault-threads 1 --buffered-threads 1"
	"read,buffered_read|dio --buffered-threads 1"
	"read,fault,mprotect|dio --fault-threads 1 --mprotect-threads 1"
	"read|buffered-rw --rw read"
	"write|buffered-rw --rw write --cache cold"
	"read,write|buffered-rw --rw rw"
	"read|readahead --mode seq"
	"read,willneed|readahead --mode willneed"
	"fault,punch,refill|mmap-punch"
	"fault,punch|mmap-punch --refill-threads 0"
	"fault|mmap-punch --punch-threads 0"
	"punch,refill|mmap-punch --fault-threads 0"
	"punch|mmap-punch --fault-threads 0 --refill-threads 0"
	"truncate,extend,read,write,fault,dio_read|truncate-storm"
	"truncate,extend,read|truncate-storm --roles read"
	"truncate,extend,read,dio_read|truncate-storm --roles dio,read"
	"truncate,extend,fault|truncate-storm --roles fault --write-pct 0"
)
plan $(( ${#cases[@]} + 7 ))

trap 'rm -rf "$dir"' EXIT
j=$dir/r.json

for oc in "${cases[@]}"; do
	ops=${oc%%|*} c=${oc#*|}
	# shellcheck disable=SC2086
	run_split "$RLWORK" $c --file "$dir/w.dat" --size 8m --runtime 0.2 --ramp 0 \
		--json "$j"
	# every op: in ops[] with a histogram, and its metrics; no other op
	v=$(jq -r --arg ops "$ops" '($ops | split(",")) as $want |
		[.ops[].name] == $want and
		([.ops[] | .lat_ns.hist | has("counts")] | all) and
		([.metrics[].name | select(startswith("counters.") | not) |
		  sub("\\.(ops_per_s|bytes_per_s|lat_ns\\..*)$"; "")] | unique) ==
		($want | unique) and
		([$want[] | . + ".ops_per_s"] - [.metrics[].name] == [])' \
		"$j" 2>&1)
	[ "$rc" -eq 0 ] && [ "$v" = true ]
	st=$?
	ok $st "$c: reports exactly $ops"
	if [ $st -ne 0 ]; then
		echo "rc=$rc $err" | diag
		jq -c '[.ops[].name], [.metrics[].name]' "$j" 2>&1 | diag
	fi
done

run_split "$RLWORK" dio --rw read --file "$dir/w.dat" --size 8m --runtime 0.2 --ramp 0
grep -q "^  read " <<<"$out" && ! grep -q "^  write " <<<"$out"
ok "$(( rc != 0 || $? != 0 ))" "the summary table of dio --rw read has a read row and no write row"

# An op the options run is reported even when a short run never got to it:
# the metrics of every iteration of a point are the same.
run_split "$RLWORK" mmap-punch --file "$dir/w.dat" --size 8m --runtime 0.01 --ramp 0 \
	--json "$j"
a=$(jq -c '[.metrics[].name]' "$j")
run_split "$RLWORK" mmap-punch --file "$dir/w.dat" --size 8m --runtime 0.3 --ramp 0 \
	--json "$j" --iteration 2
[ -n "$a" ] && [ "$a" = "$(jq -c '[.metrics[].name]' "$j")" ]
ok $? "two iterations of a point, 0.01 s and 0.3 s, report the same metrics"
jq -e '[.ops[].name] == ["fault", "punch", "refill"]' "$j" >/dev/null
ok $? "... including refill, however many refills ran"

# --primary-op: the op a comparison gates is the first rate in metrics[]
# (the gate's primary, analysis/README.md); ops[] keeps its order
run_split "$RLWORK" mmap-punch --refill-threads 0 --primary-op punch --file "$dir/w.dat" \
	--size 8m --runtime 0.2 --ramp 0 --json "$j"
is "$rc:$(jq -c '[([.metrics[].name | select(endswith(".ops_per_s"))]), [.ops[].name], .params["primary-op"]]' "$j")" \
	'0:[["punch.ops_per_s","fault.ops_per_s"],["fault","punch"],"punch"]' \
	"--primary-op punch: punch's rate first in metrics, ops[] in declaration order, the option in params"
is "$(jq -c '[.metrics[].name] | sort' "$j")" "$(jq -c '[.metrics[].name] | sort' <<<"$(
	"$RLWORK" mmap-punch --refill-threads 0 --file "$dir/w.dat" --size 8m --runtime 0.05 --ramp 0 --json - 2>/dev/null)")" \
	"... the same metrics as without it, only in another order"
n0=$(find "$dir" -mindepth 1 | wc -l)
run_split "$RLWORK" mmap-punch --refill-threads 0 --primary-op refill --file "$dir/w2.dat" --size 8m --json "$dir/r2.json"
is "$rc:$err:$(find "$dir" -mindepth 1 | wc -l)" \
	"2:rlwork mmap-punch: --primary-op: 'refill' is not an op this run times (fault|punch) (see rlwork mmap-punch --help):$n0" \
	"--primary-op naming an op the run does not time: exit 2, the ops it times named, no file made"
run_split "$RLWORK" dio --primary-op chop --dry-run
like "$rc:$err" "^2:.*--primary-op: 'chop' is not an op this run times \(read\)" "... and an op no workload has"

done_testing
