#!/bin/bash
# The plan runners/run drives, checked without building or booting: the
# kernel build, the guest runner and `rlstat` are stubs (RLBENCH_KBUILD,
# RLBENCH_QEMU, RLBENCH_RLSTAT) that record what they were asked and write
# fake results.  Boots interleave in a seeded, balanced order recorded in
# meta.json; KERNEL=rangelock runs the stock baseline too; RESUME runs only
# the missing boots; ITERATIONS=auto extends exactly the points `rlstat
# next` names; cost mode refuses virtio-blk and names its results -cost;
# the flavours follow the matrix; a variant with features is built, named
# and booted by its full name, and meta.json names its strategy and
# features.
. "$(dirname "$0")/lib/tap.sh"
plan 84

tmp=$(mktemp -d)
made=()
# shellcheck disable=SC2317  # run from the EXIT trap
# Only run directories under results/: a runner that died before its
# `run:` line leaves rd empty, and "$TOP/" must never be removed.
cleanup() {
	local d
	[ -f "$tmp/made" ] && mapfile -t -O "${#made[@]}" made <"$tmp/made"
	rm -rf "$tmp"
	for d in ${made[@]+"${made[@]}"}; do
		case $d in "$TOP"/results/?*) rm -rf "$d" ;; esac
	done
}
trap cleanup EXIT
make -s -C workloads >/dev/null 2>&1

cat >"$tmp/kbuild" <<'S'
#!/bin/bash
# kernels/build stand-in: a build directory with what the runner reads.
v=$1; shift
name=$v
for f in "$@"; do name=$name-${f#--}; done
echo "$v $*" >>"$STUB/kbuild.log"
d=$STUB/build/$name
mkdir -p "$d/include/config" "$d/arch/x86/boot"
echo "6.12.0-rl-$name" >"$d/include/config/kernel.release"
echo "CONFIG_STUB_$name=y" >"$d/.config"
: >"$d/arch/x86/boot/bzImage"
echo "$d"
S
cat >"$tmp/qemu" <<'S'
#!/bin/bash
# runners/qemu stand-in: one fake ok result per plan line; logs the boot.
# STUB_DIE_AFTER=N: the N+1st boot dies like a killed runner.
while [ $# -gt 0 ]; do
	case $1 in --plan) plan=$2 ;; --out) out=$2 ;; --variant) v=$2 ;; --mode) m=$2 ;; --device) dev=$2 ;; --cpus) cpus=$2 ;;
	--strategy) echo "$v $2" >>"$STUB/strategy.log" ;; --features) echo "$v <$2>" >>"$STUB/features.log" ;; esac
	shift 2
done
# Cost boots may run side by side: the count is taken under a lock.
exec 9>>"$STUB/lock"
flock 9
n=$(cat "$STUB/boots" 2>/dev/null || echo 0)
[ -n "${STUB_DIE_AFTER:-}" ] && [ "$n" -ge "$STUB_DIE_AFTER" ] && exit 130
echo $((n + 1)) >"$STUB/boots"
flock -u 9
it=$(awk 'NR == 1 {print $2}' "$plan")
# STUB_COST_SLEEP=S: a cost boot takes S seconds; STUB_FAIL=V: V's cost
# boots fail (exit 1) after a tenth of a second.
echo "start $v $m $it $(date +%s.%N)" >>"$STUB/spans.log"
if [ "$m" = cost ]; then
	[ "${STUB_FAIL:-}" = "$v" ] && { sleep 0.1; exit 1; }
	sleep "${STUB_COST_SLEEP:-0}"
fi
# STUB_TIME_SLEEP=B,P: a time boot takes B seconds plus P a point, and
# says so to the runner (runners/lib.sh boot_seconds): the budget's checks
# then hold on a loaded host too.
if [ "$m" = time ] && [ -n "${STUB_TIME_SLEEP:-}" ]; then
	secs=$(awk -v n="$(wc -l <"$plan")" -v s="$STUB_TIME_SLEEP" 'BEGIN {split(s, a, ","); print a[1] + n * a[2]}')
	sleep "$secs"
	echo "$secs" >"$(dirname "$out")/.boot-seconds"
fi
echo "$v $m $it $(awk '{print $1}' "$plan" | xargs)" >>"$STUB/boots.log"
echo "$v $m $dev" >>"$STUB/devices.log"
echo "$v $m $cpus" >>"$STUB/cpus.log"
cat "$plan" >>"$STUB/plans.log"
mkdir -p "$out"
while read -r key iter _; do
	echo "{\"status\": \"ok\", \"boot\": $((n + 1))}" >"$out/$key-i$iter.result.json"
done <"$plan"
echo "end $v $m $it $(date +%s.%N)" >>"$STUB/spans.log"
S
cat >"$tmp/rlstat" <<'S'
#!/bin/bash
# rlstat stand-in: `next` prints STUB/next-<k> for the run's current
# time-mode iteration k (nothing when absent), or STUB/next-always.
case $1 in
next)
	k=$(jq '[.boot_order[] | select(.mode == "time") | .iteration] | max' "$2/meta.json")
	echo "next $k $*" >>"$STUB/next.log"
	cat "$STUB/next-$k" "$STUB/next-always" 2>/dev/null
	exit 0 ;;
report)	# after the rounds that ran (their boots have seconds)
	k=$(jq '[.boot_order[] | select(.mode == "time" and .seconds != null) | .iteration] | max' "$2/meta.json")
	echo "report $k $*" >>"$STUB/report.log"
	printf 'Verdict:     INCONCLUSIVE against stock (stub at %s)\n' "$k" >"$2/report.txt"
	exit 0 ;;
esac
exit 2
S
chmod +x "$tmp/kbuild" "$tmp/qemu" "$tmp/rlstat"
export RLBENCH_KBUILD=$tmp/kbuild RLBENCH_QEMU=$tmp/qemu RLBENCH_RLSTAT=$tmp/rlstat
cat >"$tmp/two.matrix" <<'M'
# two: two points
mode time
iterations 3
runtime 1
ramp 0
point dio --threads 1 --size 4m
point buffered-rw --threads 1 --size 4m
M

fresh() { export STUB=$tmp/stub-$1; rm -rf "$STUB"; mkdir -p "$STUB"; }
# The run's directory from its last line; the one it made, from its log
# line, goes to the cleanup even when the runner died before that line.
rundir() {
	sed -n "s|^run: run directory: |$TOP/|p" <<<"$OUT" >>"$tmp/made"
	sed -n 's/^run: //p' <<<"$OUT" | tail -1
}
bench() { run runners/run bench --matrix "$tmp/two.matrix" "$@"; rd=$(rundir); [ -n "$rd" ] && made+=("$TOP/$rd"); }

# KERNEL=rangelock, as the README writes it (no --name): stock joins it,
# and the boots interleave.
fresh order
bench --kernel rangelock --seed 7
is "$RC" 0 "KERNEL=rangelock runs (exit 0)"
like "$rd" "^results/[0-9]{8}-[0-9]{6}-two-stock\+rangelock$" "the run is named after the matrix and both variants"
is "$(jq -r '[.variants[].name] | join(" ")' "$rd/meta.json")" "stock rangelock" "meta.json lists the stock baseline and rangelock"
is "$(jq -r '.seed' "$rd/meta.json")" 7 "meta.json records the seed"
order=$(jq -r '.boot_order[] | "\(.variant) \(.mode) \(.iteration)"' "$rd/meta.json")
is "$(wc -l <<<"$order")" 6 "boot_order: 3 boots per variant"
is "$(awk '{print $1, $2, $3}' "$STUB/boots.log")" "$order" "the boots ran in the recorded order"
# No variant runs all its iterations before another starts.
interleaved() {	# ORDER: 0 when every variant's last boot comes after every other's first
	awk '{if (!($1 in first)) first[$1] = NR; last[$1] = NR}
	     END {for (a in last) for (b in first) if (a != b && last[a] < first[b]) exit 1}' <<<"$1"
}
ok "$(interleaved "$order"; echo $?)" "no variant runs all its iterations before another starts"
ok "$(interleaved $'a\na\na\nb\nb\nb'; [ $? = 1 ]; echo $?)" "(the check fails a sequential order)"
r1=$(awk '$3 == 1 {print $1}' <<<"$order" | xargs) r2=$(awk '$3 == 2 {print $1}' <<<"$order" | xargs)
is "$r2" "$(xargs -n1 <<<"$r1" | tac | xargs)" "the second round runs the first backwards (ABBA)"
is "$(grep -c -- '--env mode=time' "$STUB/plans.log")" 12 "every plan line carries --env mode=time"
results=$(find "$rd" -name '*.result.json' | sed 's|.*/||' | sort | uniq -c | awk '{print $1}' | sort -u | xargs)
is "$(find "$rd" -name '*.result.json' | wc -l):$results" "12:2" "one result per variant, point and iteration"
rd_seed7=$rd
fresh order2
bench --kernel rangelock --seed 7
is "$(jq -c '[.boot_order[] | del(.seconds)]' "$rd/meta.json")" "$(jq -c '[.boot_order[] | del(.seconds)]' "$rd_seed7/meta.json")" "the same seed gives the same order (of boots; their seconds differ)"

fresh none
bench --kernel rangelock --baseline none
is "$(jq -r '[.variants[].name] | join(" ")' "$rd/meta.json")" rangelock "BASELINE=none runs only KERNEL"

# RESUME: a runner killed after three boots; the rerun runs the other three.
fresh resume
STUB_DIE_AFTER=3 bench --kernel rangelock --seed 11
is "$RC" 130 "the killed runner stops"
rd=$(find "$TOP/results" -maxdepth 1 -name '*-two-stock+rangelock' -newer "$tmp/two.matrix" | sort | tail -1)
rd=${rd#"$TOP"/}
made+=("$TOP/$rd")
is "$(find "$rd" -name '*.result.json' | wc -l)" 6 "three boots' results are kept"
sums=$(find "$rd" -name '*.result.json' -exec sha256sum {} + | sort)
cp "$STUB/boots.log" "$tmp/before.log"
run runners/run bench --resume "$rd"
is "$RC" 0 "RESUME finishes the run"
want=$(jq -r '.boot_order[3:][] | "\(.variant) \(.mode) \(.iteration)"' "$rd/meta.json")
is "$(tail -n +4 "$STUB/boots.log" | awk '{print $1, $2, $3}')" "$want" "RESUME ran exactly the three missing boots, in order"
is "$(find "$rd" -name '*.result.json' | wc -l)" 12 "every result is there"
is "$(find "$rd" -name '*.result.json' -exec sha256sum {} + | grep -cF -f <(awk '{print $1}' <<<"$sums"))" 6 "the results from before the kill are untouched"
# A process of the interrupted run that still holds the run directory (a
# boot cleaning up its share) makes a RESUME wait, up to RLBENCH_LOCK_WAIT.
flock "$rd" sleep 4 &
holder=$!
sleep 0.5
RLBENCH_LOCK_WAIT=1 run runners/run bench --resume "$rd"
like "$RC:$OUT" "^2:.*is in use by another run that has not ended \(waited 1s\)" "a RESUME while the run's processes live gives up after the wait, exit 2"
RLBENCH_LOCK_WAIT=60 run runners/run bench --resume "$rd"
gone=$(kill -0 "$holder" 2>/dev/null; echo $?)
is "$RC:$gone" "0:1" "with time to wait, it goes ahead once they have exited"
wait "$holder"
is "$(find "$rd" -name '*.result.json' | wc -l)" 12 "and the finished run is left as it was"
RLBENCH_LOCK_WAIT=soon run runners/run bench --resume "$rd"
like "$RC:$OUT" "^2:.*RLBENCH_LOCK_WAIT='soon' is not a number of seconds" "a wait that is not a number is refused, exit 2"

# ITERATIONS=auto: after 3 rounds `rlstat next` names p001-dio, after 4
# both points, after 5 nothing: rounds 4 and 5 run exactly those.
fresh auto
echo p001-dio >"$STUB/next-3"
printf 'p001-dio\np002-buffered-rw\n' >"$STUB/next-4"
bench --kernel rangelock --iterations auto --seed 5
is "$RC" 0 "ITERATIONS=auto runs"
is "$(jq -r '.boot_order[] | select(.iteration == 4) | "\(.variant) \(.points | join(","))"' "$rd/meta.json" | sort | xargs)" \
	"rangelock p001-dio stock p001-dio" "round 4: the point rlstat next named, on both variants"
is "$(awk '$3 == 4 {print $1, $4, $5}' "$STUB/boots.log" | sort | xargs)" "rangelock p001-dio stock p001-dio" "and its boots ran only that point"
is "$(awk '$3 == 5 {print $1, $4, $5}' "$STUB/boots.log" | sort | xargs)" \
	"rangelock p001-dio p002-buffered-rw stock p001-dio p002-buffered-rw" "round 5: both named points"
is "$(jq '.boot_order | length' "$rd/meta.json")" 10 "no round 6 once nothing is undecided"
like "$(head -1 "$STUB/next.log")" "^next 3 next .* --baseline stock$" "rlstat next is asked against the baseline"
ok "$(interleaved "$(jq -r '.boot_order[] | "\(.variant)"' "$rd/meta.json")"; echo $?)" "the added rounds interleave too"
is "$(awk '{print $2, ($NF == "--no-charts")}' "$STUB/report.log" | xargs)" "3 1 4 1 5 0" \
	"a report without charts before each added round, the full one at the end"
like "$OUT" "after 3 boots a variant: INCONCLUSIVE against stock \(stub at 3\); report so far: results/[0-9-]+-two-stock\+rangelock/report\.txt" \
	"the verdict so far is printed with the report's path"
fresh auto-max
echo p002-buffered-rw >"$STUB/next-always"
printf '# m\nmax_iterations 5\ninclude two.matrix\n' >"$tmp/max.matrix"
run runners/run bench --matrix "$tmp/max.matrix" --kernel rangelock --iterations auto
rd=$(rundir); made+=("$TOP/$rd")
is "$(jq '[.boot_order[].iteration] | max' "$rd/meta.json")" 5 "a point never decided stops at max_iterations"
is "$(jq -c .auto_stop "$rd/meta.json")" '{"rule":"max_iterations","rounds":5,"undecided":["p002-buffered-rw"]}' "meta.json says why the rounds ended, and which points were still undecided"
# BUDGET: a round is added only if the time boots fit in it, by the last
# boot's seconds less its points' own (here 1 s + 1 s a point, each point
# 1 s of runtime): 6 boots of 3 s, then a round of one point, 2 x 2 s,
# ends at 22 s, inside 24 s; the next would end at 26 s.
fresh budget
echo p001-dio >"$STUB/next-always"
STUB_TIME_SLEEP=1,1 bench --kernel rangelock --iterations auto --budget 24s
is "$RC:$(jq '[.boot_order[].iteration] | max' "$rd/meta.json")" 0:4 "BUDGET=24s: one round added, not two"
is "$(jq -c .auto_stop "$rd/meta.json")" '{"rule":"budget","rounds":4,"undecided":["p001-dio"]}' \
	"meta.json: the budget stopped it, with the point still undecided"
is "$(jq -r '[.boot_order[] | (.seconds | floor)] | map(tostring) | join(" ")' "$rd/meta.json")" "3 3 3 3 3 3 2 2" \
	"each time boot's host seconds are recorded"
like "$OUT" "budget 24 s: round 5 \(1 points, about 4 s\) would take the time boots from 2[0-9] s past it; stopping with 1 point\(s\) undecided" \
	"the log says why no round 5"
is "$(jq -r '[.budget, .budget_s, .requested.budget] | join(" ")' "$rd/meta.json")" "24s 24 24s" "meta.json records the budget"
# RESUME with a longer BUDGET goes on: rounds 5 (to 26 s) and 6 (to 30 s)
# fit in 32 s, round 7 would not.
STUB_TIME_SLEEP=1,1 run runners/run bench --resume "$rd" --budget 32s
is "$RC:$(jq '[.boot_order[].iteration] | max' "$rd/meta.json"):$(jq -r '[.budget, .auto_stop.rule, .auto_stop.rounds] | join(" ")' "$rd/meta.json")" \
	"0:6:32s budget 6" "RESUME with BUDGET=32s adds rounds 5 and 6 and records the new budget"
run runners/run bench --matrix "$tmp/two.matrix" --kernel rangelock --budget soon
like "$RC:$OUT" "^2:run: BUDGET='soon' is not a time \(accepted: none, or minutes: 8, 8m, or seconds: 90s" "BUDGET=soon: exit 2, naming it"

# Cost mode: results named -cost, env.mode=cost, a memory device.
fresh both
bench --kernel stock --mode both --iterations 2
is "$RC" 0 "MODE=both runs"
is "$(find "$rd/stock" -name '*-cost-i*.result.json' | wc -l):$(find "$rd/stock" -name '*.result.json' ! -name '*-cost-*' | wc -l)" "4:4" \
	"MODE=both: <point>-cost-iN and <point>-iN results"
is "$(grep -c -- '--env mode=cost' "$STUB/plans.log"):$(grep -c -- '--env mode=time' "$STUB/plans.log")" "4:4" "with env.mode cost and time"
is "$(sort -u "$STUB/devices.log" | xargs)" "stock cost brd stock time virtio-blk" "cost boots use brd, time boots the matrix's device"
is "$(sort -u "$STUB/cpus.log" | xargs)" "stock cost 1 stock time $(nproc)" "cost boots get 1 vCPU, time boots the matrix's cpus"
is "$(jq .cost.cpus "$rd/meta.json")" 1 "meta.json records the cost guests' vCPUs"
fresh cost-cpus
printf '# c\ninclude two.matrix\ncpus 3\ncost_cpus 2\n' >"$tmp/cc.matrix"
run runners/run bench --matrix "$tmp/cc.matrix" --kernel stock --mode both --iterations 1
rd=$(rundir); made+=("$TOP/$rd")
is "$RC:$(sort -u "$STUB/cpus.log" | xargs)" "0:stock cost 2 stock time 3" "cost_cpus and cpus set them"
rm "$rd"/stock/*-cost-i1.result.json "$STUB/cpus.log"
jq '.cost.cpus = 4' "$rd/meta.json" >"$tmp/m.json" && mv "$tmp/m.json" "$rd/meta.json"
run runners/run bench --resume "$rd"
is "$RC:$(sort -u "$STUB/cpus.log" | xargs)" "0:stock cost 4" "RESUME keeps the cost vCPUs meta.json recorded"
# Cost boots run side by side (RLBENCH_COST_JOBS at once, never two of one
# variant), all before the time boots, which run one at a time.
spans() {	# SPANS-LOG: "variant mode iteration start end" per boot
	awk '$1 == "start" {s[$2 " " $3 " " $4] = $5} $1 == "end" {print $2, $3, $4, s[$2 " " $3 " " $4], $5}' "$1"
}
overlaps() {	# SPANS [same|other]: the pairs of cost boots that overlap in time
	awk -v want="$2" '$2 == "cost" {v[n] = $1; a[n] = $4; b[n++] = $5}
		END {for (i = 0; i < n; i++) for (j = i + 1; j < n; j++)
			if (a[i] < b[j] && a[j] < b[i] && ((v[i] == v[j]) == (want == "same"))) c++; print c + 0}' <<<"$1"
}
fresh parallel
STUB_COST_SLEEP=1 RLBENCH_COST_JOBS=2 bench --kernel rangelock --mode both --iterations 2 --seed 5
sp=$(spans "$STUB/spans.log")
is "$RC:$(wc -l <<<"$sp")" "0:8" "MODE=both, two variants, two cost jobs: 8 boots"
ok "$([ "$(overlaps "$sp" other)" -gt 0 ]; echo $?)" "cost boots of two variants run at the same time"
is "$(overlaps "$sp" same)" 0 "never two of one variant"
is "$(awk '$2 == "cost" && $5 > m {m = $5} $2 == "time" && (f == "" || $4 < f) {f = $4} END {print (m < f)}' <<<"$sp")" 1 \
	"every cost boot ends before the first time boot starts"
is "$(awk '$2 == "time" {print $1, $3}' "$STUB/boots.log")" \
	"$(jq -r '.boot_order[] | select(.mode == "time") | "\(.variant) \(.iteration)"' "$rd/meta.json")" "the time boots run one by one in the recorded order"
is "$(jq -r '[.variants[].accel] | join(" ")' "$rd/meta.json")" "tcg tcg" "meta.json names the variants' accelerator"
fresh serial
STUB_COST_SLEEP=0.3 RLBENCH_COST_JOBS=1 bench --kernel rangelock --mode cost --iterations 2
is "$RC:$(overlaps "$(spans "$STUB/spans.log")" other)" "0:0" "RLBENCH_COST_JOBS=1: one cost boot at a time"
for bad in 0 x 100; do
	RLBENCH_COST_JOBS=$bad run runners/run bench --matrix "$tmp/two.matrix" --kernel stock --mode cost
	like "$RC:$OUT" "^2:run: RLBENCH_COST_JOBS='$bad' is not a number of guests from 1 to 99" "RLBENCH_COST_JOBS=$bad: exit 2, naming it"
done
# A cost boot whose runner fails ends the run, and stops the one beside it.
fresh fail
STUB_FAIL=rangelock STUB_COST_SLEEP=30 RLBENCH_COST_JOBS=2 bench --kernel rangelock --mode cost --iterations 1
is "$RC" 1 "a failed cost boot's exit status ends the run"
# (a killed boot may take a moment to go after the runner's exit, more
# on a loaded host; one left running sleeps 30 s, past these 20)
for _ in $(seq 200); do pgrep -f "$tmp/qemu" >/dev/null || break; sleep 0.1; done
is "$(grep -c '^end' "$STUB/spans.log"):$(pgrep -fc "$tmp/qemu" || true)" "0:0" "the other boot was stopped, not left running"

# Cost boots run min(runtime, 2) after 3 s of ramp unless the matrix
# says cost_runtime and cost_ramp; time boots the matrix's runtime.
fresh cost-runtime
printf '# r\ninclude two.matrix\nruntime 7\nramp 2\n' >"$tmp/long.matrix"
run runners/run bench --matrix "$tmp/long.matrix" --kernel stock --mode both --iterations 1
rd=$(rundir); made+=("$TOP/$rd")
is "$(grep -- '--env mode=cost' "$STUB/plans.log" | grep -o -- '--runtime [0-9]* --ramp [0-9]*' | sort -u):$(grep -- '--env mode=time' "$STUB/plans.log" | grep -o -- '--runtime [0-9]* --ramp [0-9]*' | sort -u)" \
	"--runtime 1 --ramp 1:--runtime 7 --ramp 2" "cost boots run 1 s after 1 s of ramp, time boots the matrix's 7 and 2"
fresh cost-runtime-set
printf '# r\ninclude two.matrix\nruntime 7\nramp 2\ncost_runtime 5\ncost_ramp 0\n' >"$tmp/long.matrix"
run runners/run bench --matrix "$tmp/long.matrix" --kernel stock --mode cost --iterations 1
rd=$(rundir); made+=("$TOP/$rd")
is "$(grep -o -- '--runtime [0-9]* --ramp [0-9]*' "$STUB/plans.log" | sort -u)" "--runtime 5 --ramp 0" "cost_runtime and cost_ramp set them"
printf '# v\ndevice virtio-blk\ninclude two.matrix\n' >"$tmp/virtio.matrix"
n0=$(find "$TOP/results" -maxdepth 1 | wc -l)
run runners/run bench --matrix "$tmp/virtio.matrix" --kernel stock --mode cost
like "$RC:$OUT" "^2:run: [^ ]*/virtio.matrix:2: device virtio-blk cannot run in cost mode" "a virtio-blk cost matrix is refused with its line"
is "$(find "$TOP/results" -maxdepth 1 | wc -l)" "$n0" "and no run directory is made"

# Flavours: none for `monitors mapping_lock` (every kernel with a lock
# carries the counters, booted to count them; imutex has no lock, and
# meta.json says so), xfs only where Kconfig allows it.
fresh flavours
printf '# f\nmonitors mapping_lock\ninclude two.matrix\n' >"$tmp/stats.matrix"
run runners/run bench --matrix "$tmp/stats.matrix" --kernel imutex,rangelock --iterations 1
rd=$(rundir); made+=("$TOP/$rd")
is "$(sort "$STUB/kbuild.log" | xargs)" "imutex rangelock stock" "mapping_lock builds no flavour of its own"
is "$(jq -r '.flavours_skipped[0] | "\(.variant) \(.flavour)"' "$rd/meta.json")" "imutex stats" "meta.json records the skipped flavour"
fresh xfs
printf '# x\nfs xfs\ndisk_mb 320\ninclude two.matrix\n' >"$tmp/xfs.matrix"
run runners/run bench --matrix "$tmp/xfs.matrix" --kernel rangelock --iterations 1
rd=$(rundir); made+=("$TOP/$rd")
is "$(xargs <"$STUB/kbuild.log")" "stock --xfs" "an xfs matrix builds the xfs flavour of stock only"
is "$(jq -r '.skipped[0].variant' "$rd/meta.json")" rangelock "and skips rangelock in meta.json"

# Features: KERNEL=<variant>+<feature>, BASELINE too, in their one
# spelling; a matrix's variant allows its strategy with at least its
# features, so dio-serial takes rangelock with one more.
fresh features
run runners/run bench --matrix dio-serial --kernel rangelock+fault-retry+shared-alloc-dio \
	--baseline rwsem-range+shared-alloc-dio --iterations 1
rd=$(rundir); [ -n "$rd" ] && made+=("$TOP/$rd")
is "$RC" 0 "KERNEL=rangelock+fault-retry+shared-alloc-dio BASELINE=rwsem-range+shared-alloc-dio runs"
is "$(sort -u "$STUB/kbuild.log" | xargs)" "rangelock+shared-alloc-dio+fault-retry rwsem-range+shared-alloc-dio" \
	"each is built by its full name, features in kernels/features' order (flavours as its strategy allows)"
like "$rd" "^results/[0-9]{8}-[0-9]{6}-dio-serial-rwsem-range\+shared-alloc-dio,rangelock\+shared-alloc-dio\+fault-retry$" \
	"the run is named after both full names, joined by ','"
is "$(jq -c '[.variants[] | [.name, .strategy, .features]]' "$rd/meta.json")" \
	'[["rwsem-range+shared-alloc-dio","rwsem-range",["shared-alloc-dio"]],["rangelock+shared-alloc-dio+fault-retry","rangelock",["shared-alloc-dio","fault-retry"]]]' \
	"meta.json: each variant's strategy and features"
is "$(jq -r .baseline "$rd/meta.json")" rwsem-range+shared-alloc-dio "and the baseline's full name"
is "$(sort -u "$STUB/features.log" | xargs)" "rangelock+shared-alloc-dio+fault-retry <shared-alloc-dio,fault-retry> rwsem-range+shared-alloc-dio <shared-alloc-dio>" \
	"the guest runner is asked for the features' markers"
is "$(sort -u "$STUB/strategy.log" | xargs)" "rangelock+shared-alloc-dio+fault-retry rangelock rwsem-range+shared-alloc-dio rwsem-range" \
	"and for the strategy's marker"
is "$(find "$TOP/$rd" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort | xargs)" \
	"rangelock+shared-alloc-dio+fault-retry rwsem-range+shared-alloc-dio" "results go to a directory per full name"
# README.md's ablation: the DIO feature on both sides, the lock alone differs.
fresh features-readme
run runners/run bench --matrix "$tmp/two.matrix" --kernel rangelock+shared-alloc-dio --baseline stock+shared-alloc-dio --iterations 1
rd=$(rundir); [ -n "$rd" ] && made+=("$TOP/$rd")
is "$RC:$(jq -c '[.variants[] | [.name, .strategy, .features]]' "$rd/meta.json")" \
	'0:[["stock+shared-alloc-dio","stock",["shared-alloc-dio"]],["rangelock+shared-alloc-dio","rangelock",["shared-alloc-dio"]]]' \
	"README's KERNEL=rangelock+shared-alloc-dio BASELINE=stock+shared-alloc-dio: both built with the feature"
fresh features-none
run runners/run bench --matrix "$tmp/two.matrix" --kernel rangelock --iterations 1
rd=$(rundir); [ -n "$rd" ] && made+=("$TOP/$rd")
is "$(jq -c '[.variants[] | [.name, .strategy, .features]]' "$rd/meta.json"):$(sort -u "$STUB/features.log" | xargs)" \
	'[["stock","stock",[]],["rangelock","rangelock",[]]]:rangelock <> stock <>' \
	"the default variants: no features in meta.json, none asked of the guest"
for k in "stock+|an empty feature after '\\+'" "stock+nosuch|unknown feature 'nosuch'; accepted: shared-alloc-dio fault-retry" \
	"stock+fault-retry+fault-retry|feature 'fault-retry' named twice" \
	"imutex+fault-retry|feature 'fault-retry' does not apply to imutex; accepted on: stock rangelock rwsem-range bitmap adaptive listlock"; do
	n=${k%%|*}
	run runners/run bench --matrix "$tmp/two.matrix" --kernel "$n" --iterations 1
	like "$RC:$OUT" "^2:[^"$'\n'"]*KERNEL='${n//+/\\+}': ${k#*|}" "KERNEL=$n: exit 2, naming it and why"
done
run runners/run bench --matrix "$tmp/two.matrix" --kernel stock --baseline rangelock+fault-retry+fault-retry --iterations 1
like "$RC:$OUT" "^2:[^"$'\n'"]*BASELINE='rangelock\+fault-retry\+fault-retry': feature 'fault-retry' named twice" "a bad BASELINE: exit 2, naming it"
done_testing
