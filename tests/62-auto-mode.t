#!/bin/bash
# MODE=auto, the default, and cost mode's two boots: no kernel is built
# and no guest boots (the stand-ins of tests/53; RLBENCH_TEST_KVM fakes
# whether KVM runs a guest).  Without KVM, `make bench`'s default matrix
# plans its single-role points in cost mode and its multi-role points in
# time mode, and the report's header says so; with KVM every point runs
# in both; MODE=time|cost|both are as asked; a bad MODE names the
# accepted ones.  Cost mode under ITERATIONS=auto runs two boots a
# variant, which the gate decides on, and a third only of the points
# whose two boots differ.
. "$(dirname "$0")/lib/tap.sh"
plan 51

make -s -C workloads >/dev/null 2>&1
make -s -C analysis >/dev/null || exit 2
R=$TOP/analysis/rlstat
tmp=$(mktemp -d)
made=()
# shellcheck disable=SC2317  # run from the EXIT trap
cleanup() {
	local d
	rm -rf "$tmp"
	for d in ${made[@]+"${made[@]}"}; do
		case $d in "$TOP"/results/?*) rm -rf "$d" ;; esac
	done
}
trap cleanup EXIT

# The default matrix's points by their threads' roles (configs/default.matrix):
# direct IO, buffered, readahead, faults alone and punches alone are
# single-role; the fault/punch races (p019: the disjoint one, no refills)
# and the truncate storm are not.
single="p001-dio p002-dio p003-dio p004-dio p005-dio p006-dio p007-dio p008-dio p014-buffered-rw p015-buffered-rw p016-readahead p017-mmap-punch p018-mmap-punch"
multi="p009-mmap-punch p010-mmap-punch p011-mmap-punch p012-mmap-punch p013-truncate-storm p019-mmap-punch"
all=$(xargs -n1 <<<"$single $multi" | sort | xargs)

# ---- rlstat plan create: the modes, decided per point ----
runners/matrix configs/default.matrix >"$tmp/default.out" || exit 2
res=$tmp/results
create() { run_split "$R" plan create --runner qemu --matrix "$TOP/configs/default.matrix" --results "$res" \
	--kernel rangelock --variants "stock rangelock" "$@" <"$tmp/default.out"; }
key() { sed -n "s/^$1 //p" <<<"$out"; }
points_in() {	# META MODE: the points meta.json's auto gives MODE, sorted
	jq -r --arg m "$2" '.auto.points | to_entries[] | select(.value == $m) | .key' "$1" | sort | xargs
}
create --kvm no --kvm-why "no /dev/kvm"
rd=$(key run)
is "$rc:$(key mode):$(key modes):$(key iterations):$(key rounds):$(key cost_rounds)" "0:auto:cost time:auto:3:2" \
	"no KVM, no MODE=: mode auto, cost and time units, 2 cost rounds and 3 time rounds"
is "$(points_in "$rd/meta.json" cost)" "$(xargs -n1 <<<"$single" | sort | xargs)" "the single-role points in cost mode"
is "$(points_in "$rd/meta.json" time)" "$(xargs -n1 <<<"$multi" | sort | xargs)" "the multi-role points in time mode"
is "$(jq -c '[.mode, .requested.mode, .auto.kvm, .auto.why, .cost.device]' "$rd/meta.json")" \
	'["auto","auto",false,"no /dev/kvm","brd"]' "meta.json: mode auto, as requested, why, and the cost device"
like "${rd#"$res"/}" "^[0-9]{8}-[0-9]{6}-default-stock\+rangelock$" "the default mode names no mode in the run's name"
auto_rd=$rd
run_split "$R" plan resume "$auto_rd" <"$tmp/default.out"
is "$rc:$(key mode):$(key modes):$(key cost_rounds)" "0:auto:cost time:2" "a RESUME goes by the modes the run recorded"
is "$("$R" plan rerun "$auto_rd" | paste -sd' ' | grep -o -- '--mode [a-z]*')" "--mode auto" "make rerun decides again (MODE=auto)"
create --kvm yes --kvm-why "a KVM guest ran (probe)"
rd=$(key run)
is "$rc:$(key mode):$(key modes):$(points_in "$rd/meta.json" both | wc -w)" "0:both:cost time:19" \
	"KVM: auto is both, every point in both modes"
for m in time cost both; do
	create --kvm no --mode "$m"
	rd=$(key run)
	want=$m; [ "$m" = both ] && want="cost time"
	is "$rc:$(key mode):$(key modes):$(jq -c '[has("auto"), .requested.mode]' "$rd/meta.json")" "0:$m:$want:[false,\"$m\"]" \
		"MODE=$m: as asked, no per-point modes, whatever KVM does"
done
n0=$(find "$res" -mindepth 1 -maxdepth 1 | wc -l)
create --kvm no --mode fast
is "$rc:$err:$(find "$res" -mindepth 1 -maxdepth 1 | wc -l)" \
	"2:rlstat: MODE='fast' is not one of auto, time, cost, both:$n0" "a bad MODE exits 2 naming the accepted ones, auto first, nothing made"
create --kvm maybe
like "$rc:$err" "^2:rlstat: --kvm 'maybe' is not one of yes, no" "a bad --kvm exits 2"
# A matrix that names virtio-blk has no cost mode: auto runs it all in time.
printf '# v\ndevice virtio-blk\npoint dio --threads 1 --size 4m\npoint mmap-punch --threads 1 --size 4m\n' >"$tmp/virtio.matrix"
runners/matrix "$tmp/virtio.matrix" >"$tmp/virtio.out" || exit 2
run_split "$R" plan create --runner qemu --matrix "$tmp/virtio.matrix" --results "$res" --kvm no <"$tmp/virtio.out"
is "$rc:$(key modes):$(points_in "$(key run)/meta.json" time | wc -w)" "0:time:2" "auto with device virtio-blk: every point in time mode"

# ---- runners/run: the boots each mode runs ----
cat >"$tmp/kbuild" <<'S'
#!/bin/bash
v=$1; shift
d=$STUB/build/$v
mkdir -p "$d/include/config" "$d/arch/x86/boot"
echo "6.12.0-rl-$v" >"$d/include/config/kernel.release"
echo "CONFIG_STUB_$v=y" >"$d/.config"
: >"$d/arch/x86/boot/bzImage"
echo "$d"
S
cat >"$tmp/qemu" <<'S'
#!/bin/bash
# runners/qemu stand-in: a fake ok result per plan line; logs the boot.
while [ $# -gt 0 ]; do
	case $1 in --plan) plan=$2 ;; --out) out=$2 ;; --variant) v=$2 ;; --mode) m=$2 ;; esac
	shift 2
done
it=$(awk 'NR == 1 {print $2}' "$plan")
exec 9>>"$STUB/lock"
flock 9
echo "$v $m $it $(awk '{sub(/-cost$/, "", $1); print $1}' "$plan" | sort | xargs)" >>"$STUB/boots.log"
flock -u 9
mkdir -p "$out"
while read -r key iter _; do echo '{"status": "ok"}' >"$out/$key-i$iter.result.json"; done <"$plan"
S
cat >"$tmp/rlstat" <<'S'
#!/bin/bash
# rlstat stand-in: next --mode cost prints STUB/cost-next, next nothing.
case $1 in
next) echo "$*" >>"$STUB/next.log"; [[ " $* " != *" --mode cost "* ]] || cat "$STUB/cost-next" 2>/dev/null; exit 0 ;;
report) echo stub >"$2/report.txt"; exit 0 ;;
esac
exit 2
S
chmod +x "$tmp/kbuild" "$tmp/qemu" "$tmp/rlstat"
export RLBENCH_KBUILD=$tmp/kbuild RLBENCH_QEMU=$tmp/qemu RLBENCH_RLSTAT=$tmp/rlstat RLBENCH_COST_JOBS=1
fresh() { export STUB=$tmp/stub-$1; rm -rf "$STUB"; mkdir -p "$STUB"; }
bench() {
	run runners/run bench --kernel rangelock --seed 3 "$@"
	rd=$(sed -n 's/^run: //p' <<<"$OUT" | tail -1)
	[ -n "$rd" ] && made+=("$TOP/$rd")
}
booted() {	# MODE ITERATION: the points the boots of MODE in ITERATION ran, per variant
	awk -v m="$1" -v i="$2" '$2 == m && $3 == i {$2 = $3 = ""; print}' "$STUB/boots.log" | sort | tr -s ' '
}
two() { printf 'rangelock %s\nstock %s\n' "$1" "$1"; }

fresh nokvm
RLBENCH_TEST_KVM=no bench
is "$RC:$(jq -r .mode "$rd/meta.json")" "0:auto" "make bench without KVM (faked): mode auto"
is "$(booted cost 1)" "$(two "$(xargs -n1 <<<"$single" | sort | xargs)")" "its cost boots run the single-role points"
# a stats boot (<point>-stats, its counters on, tests/64) is a time boot
is "$(booted time 1 | grep -v -- -stats)" "$(two "$(xargs -n1 <<<"$multi" | sort | xargs)")" "its time boots the multi-role points"
is "$(booted time 1 | grep -- -stats)" "$(two "$(xargs -n1 <<<"$multi" | sort | sed 's/$/-stats/' | xargs)")" \
	"its stats boots the same, once"
is "$(awk '{print $2}' "$STUB/boots.log" | sort | uniq -c | awk '{print $2 $1}' | xargs)" "cost4 time8" \
	"two cost boots a variant, three time boots and a stats boot, no third cost boot when the two agree"
like "$OUT" "MODE=auto: single-role points in cost mode, the others in time mode" "the runner says what auto chose"
like "$OUT" "cost: the two boots of every variant agree on every suited point" "and why no third cost boot"

fresh kvm
RLBENCH_TEST_KVM=yes bench
is "$RC:$(jq -r .mode "$rd/meta.json")" "0:both" "make bench with KVM (faked): both"
is "$(booted cost 2)$(booted time 3)" "$(two "$all")$(two "$all")" "every point in cost and in time boots"

fresh third
echo p003-dio >"$STUB/cost-next"
RLBENCH_TEST_KVM=no bench
is "$(booted cost 3)" "$(two p003-dio)" "two cost boots that differ: a third of that point alone, on each variant"
is "$(jq -c '[.boot_order[] | select(.mode == "cost" and .iteration == 3) | .points]' "$rd/meta.json")" \
	'[["p003-dio"],["p003-dio"]]' "recorded in meta.json's boot_order"
like "$OUT" "cost: a third boot for 1 point\(s\) whose two boots differ: p003-dio" "and said"
is "$(grep -c -- '--mode cost' "$STUB/next.log")" 1 "asked once: never a fourth"

fresh explicit
echo p003-dio >"$STUB/cost-next"
RLBENCH_TEST_KVM=no bench --mode time --iterations 2
is "$RC:$(awk '{print $2}' "$STUB/boots.log" | sort -u | xargs):$(booted time 2)" "0:time:$(two "$all")" \
	"MODE=time without KVM: time boots of every point, as before"
fresh explicit-cost
echo p003-dio >"$STUB/cost-next"
RLBENCH_TEST_KVM=yes bench --mode cost --iterations 2
is "$RC:$(awk '{print $2}' "$STUB/boots.log" | sort -u | xargs):$(booted cost 2):$(booted cost 3)" "0:cost:$(two "$all"):" \
	"MODE=cost ITERATIONS=2 with KVM: cost boots of every point, no third"
RLBENCH_TEST_KVM=yes run runners/run bench --kernel rangelock --mode fast
like "$RC:$OUT" "^2:run: MODE='fast' is not one of auto, time, cost, both" "make bench MODE=fast: exit 2, naming the accepted values"

# ---- the KVM answer: cached, never a test's ----
# (in a shell of its own: runners/lib.sh's functions, its own cache)
# shellcheck disable=SC2016  # expanded by that shell
kvm=$(RLBENCH_CACHE=$tmp/cache RLBENCH_TEST_KVM='' bash -c '
	. runners/lib.sh
	f=$(kvm_cache_file)
	kvm_record no "a KVM guest printed nothing"
	echo "record:$(cat "$f" 2>/dev/null)"
	rm -f "$f"
	RLBENCH_TEST_KVM_FAIL=1 kvm_record no "broken on purpose"
	echo "broken:$(cat "$f" 2>/dev/null)"
	kvm_known tcg
	echo "tcg:$?:$KVM_STATE:$KVM_WHY"
	RLBENCH_TEST_KVM=yes kvm_known tcg
	echo "hook:$KVM_STATE"')
is "$(sed -n 's/^record://p' <<<"$kvm")" "no a KVM guest printed nothing" "kvm_record caches the answer under RLBENCH_CACHE"
is "$(grep -c '^broken:$' <<<"$kvm")" 1 "a KVM attempt a test broke is not cached"
is "$(sed -n 's/^tcg://p' <<<"$kvm")" "0:no:ACCEL=tcg" "ACCEL=tcg: no KVM, without a probe"
is "$(sed -n 's/^hook://p' <<<"$kvm")" yes "RLBENCH_TEST_KVM fakes the answer"
# kvm_probe boots a kernel under KVM and waits for its banner: a stand-in
# qemu-system-x86_64 on PATH writes the serial file it is given, or not
mkdir -p "$tmp/pbin"
cat >"$tmp/pbin/qemu-system-x86_64" <<'EOS'
#!/bin/bash
# a stand-in: the kernel's banner on -serial file:PATH unless KERNEL_SILENT
for a; do case $a in file:*) s=${a#file:} ;; esac; done
echo "$*" >>"$PROBE_LOG"
[ -n "${KERNEL_SILENT:-}" ] || echo "Linux version 6.12.0-rl-stock (rlbench@rlbench)" >"$s"
sleep 30
EOS
chmod +x "$tmp/pbin/qemu-system-x86_64"
probe() {	# KERNEL_SILENT value -> "state|why|cached|args"
	rm -rf "$tmp/pcache"
	PROBE_LOG=$tmp/probe.log KERNEL_SILENT=$1 PATH="$tmp/pbin:$PATH" RLBENCH_CACHE=$tmp/pcache RLBENCH_TEST_KVM='' \
		RLBENCH_KVM_WATCHDOG=1 bash -c '. runners/lib.sh; kvm_probe /k/bzImage stock
		echo "$KVM_STATE|$KVM_WHY|$(cat "$(kvm_cache_file)")"'
}
: >"$tmp/probe.log"
is "$(probe '')" "yes|a KVM guest booted (probe: the stock kernel)|yes a KVM guest booted (probe: the stock kernel)" \
	"kvm_probe: a kernel that prints its banner under KVM is a yes, cached"
like "$(cat "$tmp/probe.log")" "-accel kvm .*-kernel /k/bzImage .*console=ttyS0" "it boots the kernel it is given, under KVM, its console on serial"
is "$(probe 1)" "no|a KVM guest printed nothing (probe: the stock kernel)|no a KVM guest printed nothing (probe: the stock kernel)" \
	"a kernel that prints nothing within RLBENCH_KVM_WATCHDOG is a no, cached (firmware printing is not enough)"
ok "$(! pgrep -f "$tmp/pbin/qemu-system-x86_64" >/dev/null; echo $?)" "no probe guest is left running"

# plan create --check: every input checked, nothing made or printed
n0=$(find "$TOP/results" -maxdepth 1 2>/dev/null | wc -l)
out=$(runners/matrix configs/quick.matrix | "$R" plan create --check --kvm no --runner qemu --matrix configs/quick.matrix \
	--kernel rangelock --baseline stock --variants "stock rangelock" 2>&1); rc=$?
is "$rc:$out:$(find "$TOP/results" -maxdepth 1 2>/dev/null | wc -l)" "0::$n0" "plan create --check: exit 0, prints nothing, makes no run directory"
out=$(runners/matrix configs/quick.matrix | "$R" plan create --check --kvm no --runner qemu --matrix configs/quick.matrix \
	--kernel rangelock --baseline stock --variants "stock rangelock" --budget soon 2>&1); rc=$?
like "$rc:$out" "^2:rlstat: BUDGET='soon' is not a time" "and a bad input still exits 2, before anything is built or booted"

RLBENCH_TEST_KVM=maybe run runners/run bench --kernel rangelock
like "$RC:$OUT" "^2:run: RLBENCH_TEST_KVM='maybe' is not one of yes, no" "a bad RLBENCH_TEST_KVM exits 2"

# ---- the report: which mode answered which points, and why ----
"$TOP/analysis/rlsynth" "$tmp/syn" --mode both --iterations 3 --variants stock,rangelock --seed 3 >/dev/null
jq '.mode = "auto" | .auto = {kvm: false, why: "no /dev/kvm", points: {"p000-dio": "cost", "p001-dio": "time"}}' \
	"$tmp/syn/meta.json" >"$tmp/m.json" && mv "$tmp/m.json" "$tmp/syn/meta.json"
"$R" report "$tmp/syn" --no-charts >/dev/null 2>&1
mode_text() { sed -n '/^Mode:/,/^Iterations:/p' "$1" | sed '$d' | tr -s ' \n' ' '; }
is "$(mode_text "$tmp/syn/report.txt")" \
	"Mode: auto: cost mode for the 1 single-role point, time mode under TCG for the 1 others, as no KVM runs guests here (no /dev/kvm); MODE=time|cost|both asks for another " \
	"without KVM the header says in one sentence which mode answered which points, why, and how to ask for another"
ok "$(awk 'length($0) >= 80 {exit 1}' "$tmp/syn/report.txt"; echo $?)" "in lines of under 80 columns"
like "$(grep -A3 '^== Time mode' "$tmp/syn/report.txt" | tr '\n' ' ')" \
	"^== Time mode under TCG: the contention points, wall clock == No KVM here: TCG's wall clock carries the emulator's speed and the host's load. These figures are for structural effects \(a lock that makes one role wait for another\), not for small differences\. $" \
	"its time section says what TCG's wall clock can show"
jq '.mode = "both" | .auto = {kvm: true, why: "a KVM guest ran (probe)", points: {"p000-dio": "both", "p001-dio": "both"}}' \
	"$tmp/syn/meta.json" >"$tmp/m.json" && mv "$tmp/m.json" "$tmp/syn/meta.json"
"$R" report "$tmp/syn" --no-charts >/dev/null 2>&1
like "$(mode_text "$tmp/syn/report.txt")" "^Mode: auto: both modes for every point, time on KVM and cost on TCG, as KVM runs guests here \(a KVM guest ran \(probe\)\); MODE=time\|cost\|both asks for one $" \
	"with KVM: both"
is "$(grep -c '^== Time mode: wall-clock' "$tmp/syn/report.txt")" 1 "and its time section is the usual one"

# ---- cost mode's two boots: the gate decides; a third where they differ ----
slower() {	# RESULT: its read op 1% more ops in the same seconds
	jq '.runtime_s as $t | .ops |= map(if .name == "read" then .count = ((.count * 1.01) | floor) |
		.ops_per_s = .count / $t | .bytes_per_s = .count * 4096 / $t else . end)' "$1" >"$tmp/r.json" &&
		mv "$tmp/r.json" "$1"
}
"$TOP/analysis/rlsynth" "$tmp/c2" --mode cost --iterations 2 --variants stock,rangelock --seed 5 >/dev/null
"$R" report "$tmp/c2" --no-charts >/dev/null
like "$(grep '^Verdict:' "$tmp/c2/report.txt")" "^Verdict: +PASS against stock" "two cost boots a side decide: PASS"
run_split "$R" next "$tmp/c2" --mode cost
is "$rc:$out" "0:" "rlstat next --mode cost: nothing when each variant's two boots agree"
f=$tmp/c2/rangelock/p001-dio-cost-i2.result.json
slower "$f"
run_split "$R" next "$tmp/c2" --mode cost
is "$rc:$out" "0:p001-dio" "two boots 1% apart: that point, for a third boot"
"$TOP/analysis/rlsynth" "$tmp/c3" --mode cost --iterations 3 --variants stock,rangelock --seed 5 >/dev/null
f=$tmp/c3/rangelock/p001-dio-cost-i2.result.json
slower "$f"
run_split "$R" next "$tmp/c3" --mode cost
is "$rc:$out" "0:" "none after three boots"
run_split "$R" next "$tmp/c2" --mode fast
like "$rc:$err" "^2:rlstat: next: --mode 'fast' is not one of time, cost" "a bad --mode exits 2"
done_testing
