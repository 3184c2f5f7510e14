#!/bin/bash
# rlstat plan as the one writer of meta.json: create resolves a run's
# settings against the matrix's, makes its directory (never an existing
# one) and writes meta.json in runners/run's shape (bare's and lava's in
# theirs); bad input is refused with nothing made; variant and skip are
# recorded once, end once; resume gives a RESUME's settings (a bad budget
# leaves meta.json as it was); rerun prints what `make rerun` repeats;
# boot prints a boot's plan lines byte for byte as runners/run's bash did.
. "$(dirname "$0")/lib/tap.sh"
plan 50
make -s -C workloads >/dev/null 2>&1
make -s -C analysis >/dev/null || exit 2
R=$TOP/analysis/rlstat
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
res=$tmp/results
cat >"$tmp/two.matrix" <<'M'
# two: two points
mode time
iterations 3
runtime 1
ramp 0
point dio --threads 1 --size 4m
point   buffered-rw	--threads 1 --size 4m
M
runners/matrix "$tmp/two.matrix" >"$tmp/two.out" || exit 2
create() { run_split "$R" plan create --runner qemu --matrix "$tmp/two.matrix" --results "$res" "$@" <"$tmp/two.out"; }
key() { sed -n "s/^$1 //p" <<<"$out"; }
ndirs() { find "$res" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }

# ---- create ----
create --kernel rangelock --variants "stock rangelock" --baseline stock --seed 7
rd=$(key run)
is "$rc:$(key mode) $(key iterations) $(key rounds) $(key max_iterations) $(key budget) $(key seed) $(key accel) $(key debug) $(key baseline)" \
	"0:time 3 3 10 none 7 auto 0 stock" "create prints the settings the run goes by"
is "$(key variants):$(key time_device):$(key cost_cpus)" "stock rangelock:virtio-blk:1" "and the variants, the device, the cost vCPUs"
like "${rd#"$res"/}" "^[0-9]{8}-[0-9]{6}-two-stock\+rangelock$" "the run is named after the matrix and its variants"
create --kernel all --variants "stock imutex rangelock" --baseline stock
like "${out%%$'\n'*}" "^run $res/[0-9]{8}-[0-9]{6}-two-stock\+imutex\+rangelock$" "three variants without a feature: every name joined by '+'"
is "$(find "$rd" -mindepth 1 -printf "%f\n" | sort | xargs)" "matrix meta.json suite.diff" "with its matrix copy, suite.diff and meta.json, no temporary left"
is "$(jq -c keys_unsorted "$rd/meta.json")" \
	'["schema","name","runner","matrix","matrix_sha256","rerun_of","suite","host","qemu","accel_requested","debug","mode","iterations","max_iterations","budget","budget_s","auto_stop","seed","baseline","profile","cost","stats_boot","requested","variants","boot_order","started","ended"]' \
	"meta.json has runners/run's keys, in its order"
is "$(jq -c '[.host.cpus, .host.mem_mb, .host.kernel, .suite.commit, .matrix, .matrix_sha256, .iterations, .requested]' "$rd/meta.json")" \
	"$(jq -nc --argjson n "$(nproc)" --argjson m "$(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo)" \
		--arg k "$(uname -r)" --arg c "$(git rev-parse HEAD)" --arg s "$(sha256sum <"$tmp/two.matrix" | cut -c1-64)" \
		'[$n, $m, $k, $c, "two.matrix", $s, 3, {kernel: "rangelock", baseline: "stock", mode: "time", iterations: 3, budget: null, profile: null, stats: null}]')" \
	"the host's facts, the suite, the matrix and what was asked for"
is "$(jq -c '[.qemu.version, .suite.dirty]' "$rd/meta.json")" \
	"$(jq -nc --arg q "$(qemu-system-x86_64 --version | sed -n 1p)" --argjson d "$([ -s "$rd/suite.diff" ] && echo true || echo false)" '[$q, $d]')" \
	"QEMU's version and whether the suite is dirty"
is "$(cat "$rd/matrix")" "$(runners/matrix --flatten "$tmp/two.matrix")" "the matrix copy is the flattened matrix"
first=$rd
# the next minute of stamps taken: create starts within it even on a loaded host
for s in $(seq 0 59); do mkdir -p "$res/$(date -u -d "@$(( $(date +%s) + s ))" +%Y%m%d-%H%M%S)-taken"; done
create --kernel stock --variants stock --name taken
like "${out%%$'\n'*}" "^run $res/[0-9]{8}-[0-9]{6}-taken-2$" "an existing directory is never reused: -2"
create --kernel stock --variants "stock rangelock+fault-retry" --mode cost --debug --iterations 2 --budget 8m --accel kvm
rd=$(key run)
like "${rd#"$res"/}" "^[0-9]{8}-[0-9]{6}-two-stock,rangelock\+fault-retry-debug-cost$" "a feature joins names with ',', DEBUG and cost mode are named"
is "$(jq -c '[.mode, .iterations, .budget, .budget_s, .debug, .accel_requested, .cost, .requested.budget]' "$rd/meta.json")" \
	'["cost",2,"8m",480,true,"kvm",{"qemu":"-accel tcg -icount shift=0,sleep=off,align=off -machine pc,max-ram-below-4g=1024M","device":"brd","cpus":1},"8m"]' \
	"cost mode: a memory device for virtio-blk, the machine, the vCPUs, the budget"
create --kernel stock --variants stock --mode cost
is "$(key iterations):$(key rounds):$(jq .iterations "$(key run)/meta.json")" "3:3:3" "the matrix's iterations line wins over cost mode's 3"
seed=$(jq .seed "$rd/meta.json")
ok "$([[ $seed =~ ^[0-9]+$ ]] && [ "$seed" -lt 1000000000 ]; echo $?)" "no --seed: a seed below 10^9 from the clock ($seed)"

# ---- bad input: exit 2, the runner's message, nothing made ----
n0=$(ndirs)
bad() {	# NAME PATTERN ARGS...
	local name=$1 pat=$2
	shift 2
	create --kernel stock --variants stock "$@"
	like "$rc:$err:$(ndirs)" "^2:rlstat: $pat.*:$n0\$" "$name: exit 2, no run directory"
}
bad "MODE=fast" "MODE='fast' is not one of auto, time, cost, both" --mode fast
bad "ITERATIONS=100" "ITERATIONS='100' is not auto or a whole number from 1 to 99" --iterations 100
bad "ITERATIONS=07" "ITERATIONS='07' is not auto" --iterations 07
bad "BUDGET=soon" "BUDGET='soon' is not a time \(accepted: none, or minutes" --budget soon
bad "BUDGET=8d" "BUDGET='8d' is not a time" --budget 8d
bad "--seed -1" "--seed '-1' is not a whole number below 10\^9" --seed -1
bad "ACCEL=xen" "ACCEL='xen' is not one of auto, kvm, tcg" --accel xen
printf '# v\ndevice virtio-blk\ninclude two.matrix\n' >"$tmp/virtio.matrix"
runners/matrix "$tmp/virtio.matrix" >"$tmp/virtio.out"
run_split "$R" plan create --runner qemu --matrix "$tmp/virtio.matrix" --results "$res" --mode both <"$tmp/virtio.out"
like "$rc:$err:$(ndirs)" "^2:rlstat: $tmp/virtio.matrix:2: device virtio-blk cannot run in cost mode \(MODE=both\).*:$n0\$" \
	"a virtio-blk line in cost mode: exit 2 with its file:line, nothing made"
printf '# w\ninclude virtio.matrix\n' >"$tmp/inc.matrix"
run_split "$R" plan create --runner qemu --matrix "$tmp/inc.matrix" --results "$res" --mode cost <"$tmp/virtio.out"
like "$rc:$err:$(ndirs)" "^2:rlstat: $tmp/inc.matrix \(in a file it includes\): device virtio-blk.*:$n0\$" "and one from an include"

# ---- variant, skip, end ----
rd=$first
mk=$tmp/build/rangelock-stats
mkdir -p "$mk/include/config" "$rd/rangelock"
echo 6.12.0-rl-rangelock-stats >"$mk/include/config/kernel.release"
echo CONFIG_X=y >"$rd/rangelock/kernel.config"
for _ in 1 2; do $R plan variant "$rd" rangelock "$mk" --strategy rangelock --feature a --feature b; done
is "$(jq -c '.variants' "$rd/meta.json")" \
	"$(jq -nc --arg c "$(sha256sum <"$rd/rangelock/kernel.config" | cut -c1-64)" '[{name: "rangelock", strategy: "rangelock", features: ["a","b"], build: "rangelock-stats", release: "6.12.0-rl-rangelock-stats", config_sha256: $c, series_hash: "KSRC", source: "unknown", qemu_cmdline: "rangelock/qemu-boot*.cmd", accel: null}]')" \
	"variant: the kernel's entry, once however often it is given"
for _ in 1 2; do
	$R plan skip "$rd" imutex "no xfs"
	$R plan skip "$rd" imutex "no invalidate lock to count" --flavour stats
done
is "$(jq -c '[.skipped, .flavours_skipped]' "$rd/meta.json")" \
	'[[{"variant":"imutex","reason":"no xfs"}],[{"variant":"imutex","flavour":"stats","reason":"no invalidate lock to count"}]]' \
	"skip: a skipped variant and a skipped flavour, each once"
$R plan end "$rd"
like "$(jq -r .ended "$rd/meta.json")" "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$" "end: the run's end time"
run "$R" plan list "$rd"
is "$RC" 0 "the document passes meta.json's check (rlbench-meta/1)"

# ---- the instruction profile: cost boots only ----
n0=$(ndirs)
create --kernel rangelock --variants rangelock --baseline none --profile insn
like "$rc:$err" "^2:rlstat: PROFILE=insn: profile insn counts instructions in cost-mode boots; MODE is time" "PROFILE=insn in time mode is refused"
create --kernel rangelock --variants rangelock --baseline none --mode cost --profile cache
like "$rc:$err" "^2:rlstat: PROFILE='cache' is not one of insn, none" "an unknown profile is refused"
is "$(ndirs)" "$n0" "and neither made a run directory"
create --kernel rangelock --variants rangelock --baseline none --mode cost --profile insn
pd=$(key run)
is "$rc:$(key profile):$(jq -c '[.profile, .requested.profile]' "$pd/meta.json"):$(grep -c ' main$' "$pd/rlwork.map")" \
	'0:insn:["insn","insn"]:1' "PROFILE=insn in cost mode: recorded, asked for, rlwork's symbols beside meta.json"

# ---- resume ----
run_split "$R" plan resume "$rd" <"$tmp/two.out"
is "$rc:$(key run) $(key mode) $(key iterations) $(key seed) $(key baseline) $(key variants)" \
	"0:$rd time 3 7 stock rangelock imutex" "resume: the run's own settings, its variants and skipped ones"
sum=$(sha256sum <"$rd/meta.json")
run_split "$R" plan resume "$rd" --budget soon <"$tmp/two.out"
is "$rc:$(sha256sum <"$rd/meta.json")" "2:$sum" "a bad budget: exit 2, meta.json byte for byte as it was"
run_split "$R" plan resume "$rd" --budget 32s <"$tmp/two.out"
is "$rc:$(key budget_s):$(jq -c '[.budget, .budget_s, .requested.budget]' "$rd/meta.json")" '0:32:["32s",32,"32s"]' \
	"resume --budget: more time, recorded"
jq '.cost = {cpus: 0}' "$rd/meta.json" >"$tmp/m" && cp "$tmp/m" "$tmp/bad.json"
mkdir -p "$tmp/badrun" && cp "$tmp/bad.json" "$tmp/badrun/meta.json"
run_split "$R" plan resume "$tmp/badrun" <"$tmp/two.out"
like "$rc:$err" "^2:.*cost.cpus '0' is not a vCPU count \(accepted: 1..256\)" "a recorded cost.cpus out of range is refused"

# ---- rerun ----
run_split "$R" plan rerun "$rd"
is "$(xargs <<<"$out")" "bench --kernel rangelock --baseline stock --mode time --matrix $rd/matrix --accel auto --name two-stock+rangelock --iterations 3 --budget 32s" \
	"rerun: what make rerun repeats, one argument a line"
rd2=$(find "$res" -maxdepth 1 -name '*-debug-cost')
run_split "$R" plan rerun "$rd2"
is "$(tail -5 <<<"$out" | xargs)" "--iterations 2 --budget 8m --debug" "a DEBUG run's rerun is DEBUG, with its budget"

# DEBUG=kcsan: the debug kernels with KCSAN, named, recorded and rerun
create --kernel listlock --variants listlock --baseline none --debug --kcsan
rdk=$(key run)
like "$rc:${rdk#"$res"/}:$(key kcsan)" "^0:[0-9]{8}-[0-9]{6}-two-listlock-debug-kcsan:1$" "--kcsan: the run is named -debug-kcsan, its settings say kcsan 1"
is "$(jq -c '[.debug, .kcsan]' "$rdk/meta.json" 2>/dev/null)" "[true,true]" "meta.json records debug and kcsan"
run_split "$R" plan rerun "$rdk"
is "$(tail -2 <<<"$out" | xargs)" "--debug --kcsan" "its rerun is DEBUG=kcsan"
n=$(ndirs)
create --kernel listlock --variants listlock --kcsan
like "$rc:$err:$(ndirs)" "^2:.*--kcsan is a debug run's \(DEBUG=kcsan\): accepted with --debug only:$n$" \
	"--kcsan without --debug is refused, nothing made"

# ---- boot: the lines of runners/run's plan_for, byte for byte ----
plan_for() {	# the bash it replaced: VARIANT MODE ITERATION [POINT...]
	local parsed points v=$1 m=$2 i=$3 p id args key dev rt rp tmo commit
	parsed=$(cat "$tmp/two.out") commit=$(jq -r .suite.commit "$5/meta.json")
	setting() { awk -v k="$1" '$1 == "set" && $2 == k {sub(/^set [^ ]+ ?/, ""); print}' <<<"$parsed"; }
	mapfile -t points < <(awk '$1 == "point" {$1 = ""; sub(/^ /, ""); print}' <<<"$parsed")
	dev=$(setting device) rt=$(setting runtime) rp=$(setting ramp) tmo=$(setting timeout)
	[ "$tmo" -gt 0 ] || tmo=$(( (rt + rp) * 3 + 60 ))
	[ "$m" = cost ] && dev=$(jq -r .cost.device "$5/meta.json") rt=$(setting cost_runtime) rp=$(setting cost_ramp)
	for p in "${points[@]}"; do
		id=${p%% *} args=${p#* }
		[ "$4" = - ] || [[ ",$4," == *",$id,"* ]] || continue
		key=$id
		[ "$m" = cost ] && key=$id-cost
		echo "$key $i $tmo $args --runtime $rt --ramp $rp --variant $v --env runner=qemu --env accel=@ACCEL@ --env mode=$m --env device=$dev --env fs=$(setting fs) --env point=$id --env suite_commit=$commit"
	done
}
$R plan boot "$rd" rangelock time 2 <"$tmp/two.out" >"$tmp/c1"
plan_for rangelock time 2 - "$rd" >"$tmp/b1"
ok "$(cmp -s "$tmp/c1" "$tmp/b1"; echo $?)" "boot: a time boot's lines, byte for byte the old ones"
$R plan boot "$rd2" stock cost 4 p002-buffered-rw <"$tmp/two.out" >"$tmp/c2"
plan_for stock cost 4 p002-buffered-rw "$rd2" >"$tmp/b2"
ok "$(cmp -s "$tmp/c2" "$tmp/b2" && [ "$(wc -l <"$tmp/c2")" = 1 ]; echo $?)" "a cost boot of one point: its -cost line, the memory device"
ok "$(sed 's/ramp 0/ramp 1/' "$tmp/b1" | cmp -s "$tmp/c1" -; [ $? = 1 ]; echo $?)" "(the comparison fails lines that differ)"
run_split "$R" plan boot "$rd" stock fast 1 <"$tmp/two.out"
like "$rc:$err" "^2:.*expected VARIANT time\|cost\|stats N" "a bad mode is refused"
# A LAVA job's plan: the same lines with no run directory, its runner and
# accelerator written in (no @ACCEL@ for runners/boot to fill in).
c=$(jq -r .suite.commit "$rd/meta.json")
$R plan boot - rangelock time 2 --runner lava --accel tcg --commit "$c" <"$tmp/two.out" >"$tmp/c3"
ok "$(sed 's/runner=qemu --env accel=@ACCEL@/runner=lava --env accel=tcg/' "$tmp/c1" | cmp -s "$tmp/c3" -; echo $?)" \
	"boot - (a LAVA job): a run's lines, runner lava and accel tcg"
run_split "$R" plan boot - rangelock time 2 --accel tcg <"$tmp/two.out"
like "$rc:$err" "^2:.*needs --runner and --accel" "boot - without the runner is refused"

# ---- bare and lava: their runners' documents ----
b=$tmp/bare
mkdir -p "$b/rangelock"
runners/matrix --flatten "$tmp/two.matrix" >"$b/matrix"
: >"$b/suite.diff"
$R plan create --runner bare --run "$b" --matrix "$tmp/two.matrix" --variant rangelock --strategy rangelock \
	--scratch /mnt/x --fs ext4 --topology "4 cores, 8 PUs, 1 packages, 1 NUMA nodes" --binding "hwloc-bind x --"
is "$(jq -c '[keys_unsorted, .runner, .name, .scratch, .host.topology_file, .host.binding, (.variants[0] | keys_unsorted), .variants[0].accel, .variants[0].config_sha256, .suite.dirty]' "$b/meta.json")" \
	'[["schema","name","runner","matrix","matrix_sha256","suite","host","scratch","variants","started","ended"],"bare","bare",{"path":"/mnt/x","fs":"ext4"},"topology.txt","hwloc-bind x --",["name","release","config_sha256","accel","strategy","features"],"none","unknown",false]' \
	"bare: runners/bare's document (topology, binding, scratch, the running kernel)"
l=$tmp/lava
mkdir -p "$l"
printf 'cpus 4\nmem_mb 4096\n' >"$l/matrix"
{
	echo 'job {"id":"17","device":"qemu01","worker":"w2","health":"Complete","state":"Finished","variant":"stock","mode":"time","iteration":1}'
	echo 'job {"id":"18","device":"qemu02","worker":"w1","health":"Complete","state":"Finished","variant":"rangelock","mode":"time","iteration":2}'
	echo 'variant {"name":"stock","release":"6.12-rl-stock"}'
	echo 'variant {"name":"rangelock","release":"6.12-rl-rangelock"}'
	echo 'variant {"name":"stock","release":"6.12-rl-stock"}'
} | $R plan create --runner lava --run "$l" --name lv --matrix two.matrix --matrix-sha abc --commit c0 --seed 5 --baseline stock
is "$(jq -c '[keys_unsorted, .host, .iterations, .requested, .boot_order, (.lava.jobs | length), .ended == .started]' "$l/meta.json")" \
	'[["schema","name","runner","matrix","matrix_sha256","rerun_of","suite","host","qemu","accel_requested","debug","mode","iterations","max_iterations","seed","baseline","cost","requested","variants","boot_order","lava","started","ended"],{"cpu_model":"LAVA worker w1, w2","cpus":4,"mem_mb":4096,"kernel":"unknown"},2,{"kernel":"stock,rangelock","baseline":"stock","mode":"time","iterations":2},[{"variant":"stock","mode":"time","iteration":1,"points":null},{"variant":"rangelock","mode":"time","iteration":2,"points":null}],2,true]' \
	"lava: runners/lava's document (its jobs, the workers, each variant once)"
echo 'job {"id":"local-1","variant":"stock","mode":"time","iteration":1}' |
	$R plan create --runner lava --run "$l" --name lv --matrix m --matrix-sha a --commit c --seed 1 --baseline none
is "$(jq -c '[.host.cpus, .host.kernel]' "$l/meta.json")" "[$(nproc),\"$(uname -r)\"]" "lava-run's jobs ran here: this machine's facts"
done_testing
