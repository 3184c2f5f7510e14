#!/bin/bash
# The stats boot (issue #35, item 1): the lock counters cost time on every
# acquisition when on, so a time-mode run boots each variant once more on
# its own kernel with them on (mapping_lock.stats=1) for the report's waits.
# Planned by rlstat plan, run by runners/run with the stubs tests/53 uses
# (no kernel, no guest): one stats boot per variant of a matrix with
# `stats_boot yes` (configs/default.matrix) or with STATS=1, none for
# imutex (no lock to count), none with STATS=0 or in cost mode; its results never
# enter a rate or the verdict; the report shows each variant's waits per
# role where the point has one op, says "not separable" where it has
# several, and draws them against threads (rlsynth runs).
. "$(dirname "$0")/lib/tap.sh"
for c in jq gnuplot; do
	command -v $c >/dev/null || { echo "1..0 # skip $c not installed"; exit 0; }
done
plan 46

tmp=$(mktemp -d)
# shellcheck disable=SC2317  # run from the EXIT trap
cleanup() {
	local d
	[ -f "$tmp/made" ] && while read -r d; do
		case $d in "$TOP"/results/?*) rm -rf "$d" ;; esac
	done <"$tmp/made"
	rm -rf "$tmp"
}
trap cleanup EXIT
make -s -C workloads >/dev/null 2>&1
make -s -C analysis >/dev/null 2>&1

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
# runners/qemu stand-in: logs the boot (its kernel, mode, monitors, plan
# keys) and writes one ok result per plan line.
while [ $# -gt 0 ]; do
	case $1 in --plan) plan=$2 ;; --out) out=$2 ;; --variant) v=$2 ;; --mode) m=$2 ;;
	--kernel) k=$2 ;; --monitors) mons=$2 ;; esac
	shift 2
done
k=${k%/arch/x86/boot/bzImage}
echo "$v $m ${k##*/} <$mons> $(awk '{print $1}' "$plan" | xargs)" >>"$STUB/boots.log"
cat "$plan" >>"$STUB/plans.log"
mkdir -p "$out"
while read -r key iter _; do
	echo '{"status": "ok"}' >"$out/$key-i$iter.result.json"
done <"$plan"
S
chmod +x "$tmp/kbuild" "$tmp/qemu"
export RLBENCH_KBUILD=$tmp/kbuild RLBENCH_QEMU=$tmp/qemu RLBENCH_RLSTAT=/bin/true
cat >"$tmp/two.matrix" <<'M'
# two: two points, with stats boots as configs/default.matrix
mode time
iterations 2
runtime 1
ramp 0
stats_boot yes
point dio --threads 1 --size 4m
point buffered-rw --threads 1 --size 4m
M
grep -v '^stats_boot' "$tmp/two.matrix" >"$tmp/plain.matrix"
fresh() { export STUB=$tmp/stub-$1; mkdir -p "$STUB"; }
bench() {
	run runners/run bench --matrix "$tmp/two.matrix" "$@"
	sed -n "s|^run: run directory: |$TOP/|p" <<<"$OUT" >>"$tmp/made"
	rd=$(sed -n 's/^run: //p' <<<"$OUT" | tail -1)
}

# --- a time-mode run: one stats boot per variant, none for imutex ---
fresh time
bench --kernel rangelock,imutex --seed 5
is "$RC" 0 "a time-mode run of stock, rangelock and imutex runs"
is "$(sort "$STUB/kbuild.log" | xargs)" "imutex rangelock rangelock stock stock" \
	"the stats boot's kernel is the variant's own, no flavour of its own; none for imutex"
jq_ok "meta.json: stats_boot on, imutex's stats flavour skipped" "$rd/meta.json" \
	'.stats_boot.on and ([.flavours_skipped[] | "\(.variant) \(.flavour)"] == ["imutex stats"])'
is "$(analysis/rlstat plan list "$rd" | awk '$1 == "stats"' | sort | xargs)" \
	"stats rangelock 1 - stats stock 1 -" "plan list: one stats boot per variant, iteration 1, none for imutex"
order=$(jq -r '.boot_order[] | "\(.mode) \(.iteration)"' "$rd/meta.json" | xargs)
is "$order" "time 1 time 1 time 1 stats 1 stats 1 time 2 time 2 time 2" \
	"after the first round's boots, outside its order"
t1=$(jq -r '[.boot_order[] | select(.mode == "time" and .iteration == 1) | .variant] | join(" ")' "$rd/meta.json")
t2=$(jq -r '[.boot_order[] | select(.mode == "time" and .iteration == 2) | .variant] | join(" ")' "$rd/meta.json")
is "$t2" "$(xargs -n1 <<<"$t1" | tac | xargs)" "the second round still runs the first backwards (ABBA)"
is "$(grep -- '-stats' "$STUB/boots.log" | awk '{print $1, $2, $3, $4, $5}' | sort)" \
	"$(printf 'rangelock time rangelock <mapping_lock> p001-dio-stats\nstock time stock <mapping_lock> p001-dio-stats')" \
	"a stats boot: a time boot on the variant's kernel with the mapping_lock monitor"
is "$(grep -v -- '-stats ' "$STUB/boots.log" | awk '{print $3, $4}' | sort -u | xargs)" \
	"imutex <> rangelock <> stock <>" "the timed boots: their own kernels, no counters"
is "$(grep -c -- '-stats 1 .*--env mode=time .*--env boot=stats$' "$STUB/plans.log")" 4 \
	"its plan lines: the time points as <point>-stats, env.mode time and env.boot stats"
is "$(awk '{print $2}' "$STUB/boots.log" | sort | uniq -c | awk '{print $2 $1}' | xargs)" "time8" \
	"2 timed boots a variant and a stats boot for two of them"
is "$(find "$rd" -name '*-stats-i1.result.json' | sed 's|^.*results/[^/]*/||' | sort | xargs)" \
	"rangelock/p001-dio-stats-i1.result.json rangelock/p002-buffered-rw-stats-i1.result.json stock/p001-dio-stats-i1.result.json stock/p002-buffered-rw-stats-i1.result.json" \
	"its results: <point>-stats-i1 in the variant's directory"
jq_ok "its host seconds are recorded, but no budget counts them" "$rd/meta.json" \
	'[.boot_order[] | select(.mode == "stats") | .seconds | numbers] | length == 2'

# a RESUME whose stats boot was lost runs it alone
rm "$rd"/stock/*-stats-i1.result.json
: >"$STUB/boots.log"
run runners/run bench --resume "$rd"
is "$RC:$(awk '{print $1, $3, $4}' "$STUB/boots.log")" "0:stock stock <mapping_lock>" "RESUME: the missing stats boot alone, counting"

# --- opting out, cost mode, monitors mapping_lock: none ---
fresh off
bench --kernel rangelock --stats 0
is "$RC:$(sort "$STUB/kbuild.log" | xargs):$(grep -c -- dio-stats "$STUB/boots.log")" "0:rangelock stock:0" \
	"STATS=0: no stats boot (each kernel asked for once)"
jq_ok "meta.json says why, and a rerun repeats STATS=0" "$rd/meta.json" \
	'(.stats_boot | .on == false and .why == "STATS=0") and .requested.stats == "0"'
like "$(analysis/rlstat plan rerun "$rd" | xargs)" "--stats 0" "rlstat plan rerun: --stats 0"
fresh plain
run runners/run bench --matrix "$tmp/plain.matrix" --kernel rangelock
sed -n "s|^run: run directory: |$TOP/|p" <<<"$OUT" >>"$tmp/made"
rd=$(sed -n 's/^run: //p' <<<"$OUT" | tail -1)
is "$RC:$(grep -c -- dio-stats "$STUB/boots.log"):$(grep -c -- '<mapping_lock>' "$STUB/boots.log")" "0:0:0" \
	"a matrix without stats_boot yes (a debug one, say): no stats boot, no boot counts"
: >"$STUB/boots.log"
run runners/run bench --matrix "$tmp/plain.matrix" --kernel rangelock --stats 1
sed -n "s|^run: run directory: |$TOP/|p" <<<"$OUT" >>"$tmp/made"
is "$RC:$(grep -c -- dio-stats "$STUB/boots.log")" "0:2" "... unless STATS=1 asks for it"
fresh cost
bench --kernel rangelock --mode cost
is "$RC:$(grep -c -- dio-stats "$STUB/boots.log"):$(jq -r .stats_boot.why "$rd/meta.json")" \
	"0:0:no point runs in time mode" "cost mode: no stats boot (cost mode counts instructions, no waits)"
fresh mon
printf 'monitors mapping_lock\ninclude two.matrix\n' >"$tmp/mon.matrix"
run runners/run bench --matrix "$tmp/mon.matrix" --kernel rangelock
sed -n "s|^run: run directory: |$TOP/|p" <<<"$OUT" >>"$tmp/made"
rd=$(sed -n 's/^run: //p' <<<"$OUT" | tail -1)
is "$RC:$(grep -c -- dio-stats "$STUB/boots.log"):$(jq -r .stats_boot.on "$rd/meta.json")" "0:0:false" \
	"monitors mapping_lock: every boot counts already, no stats boot"
# The counters count only in a guest booted with mapping_lock.stats=1,
# which the mapping_lock monitor (a stats boot's) asks for, and no other.
# shellcheck disable=SC2016  # the inner script's own $1
append() { bash -c '. runners/lib.sh && guest_append ext4 brd 64 "$1" "" time stock' _ "$1"; }
like "$(append "vmstat mapping_lock")" " mapping_lock\.stats=1( |$)" "a boot with the mapping_lock monitor counts: mapping_lock.stats=1"
ok "$(! grep -q 'mapping_lock\.stats' <<<"$(append vmstat)"; echo $?)" "a boot without it (a timed boot) does not"
fresh bad
n=$(find results -maxdepth 1 -mindepth 1 2>/dev/null | wc -l)
run runners/run bench --matrix "$tmp/two.matrix" --kernel rangelock --stats yes
like "$RC:$OUT" "^2:.*STATS='yes' is not one of 1 .*, 0 " "STATS=yes: exit 2, naming what is accepted"
is "$(find results -maxdepth 1 -mindepth 1 2>/dev/null | wc -l):$(cat "$STUB/kbuild.log" 2>/dev/null)" "$n:" "... nothing built, no run directory"

printf 'stats_boot maybe\ninclude two.matrix\n' >"$tmp/bad.matrix"
run runners/matrix "$tmp/bad.matrix"
like "$RC:$OUT" "^2:.*bad.matrix:1: stats_boot 'maybe' is not supported \(accepted: yes, no\)" \
	"a matrix's stats_boot maybe: exit 2, its file and line, what is accepted"

# --- the report: rlsynth runs with a stats boot ---
synth() {	# NAME ARGS...: a synthetic run, its report
	analysis/rlsynth "$tmp/$1" --iterations 4 --noise 0.01 --effect rangelock=-20 "${@:2}" >/dev/null &&
		analysis/rlstat report "$tmp/$1" >/dev/null 2>&1
}
synth one --ops 1 --stats-boot rangelock
synth none --ops 1
synth swapped --ops 1 --stats-boot stock
synth both --stats-boot rangelock
gm() { grep -E '^(Gmean|p99|p50|  Verdict|  CoeffVar)' "$tmp/$1/report.txt"; }
is "$(gm one)" "$(gm none)" "the stats boot's rates (a tenth of the timed ones) enter no table and no verdict"
# (the check fails when they do: a stats result renamed as a timed boot)
cp -r "$tmp/none" "$tmp/leak"
jq 'del(.env.boot) | .iteration = 5' "$tmp/one/rangelock/p000-dio-stats-i1.result.json" >"$tmp/leak/rangelock/p000-dio-i5.result.json"
analysis/rlstat report "$tmp/leak" >/dev/null 2>&1
ok "$([ "$(gm leak)" != "$(gm none)" ]; echo $?)" "(the comparison fails a run whose stats result counts as a timed boot)"
jq '.iteration = 5' "$tmp/one/rangelock/p000-dio-stats-i1.result.json" >"$tmp/leak/rangelock/p000-dio-i5.result.json"
run analysis/rlstat report "$tmp/leak"
like "$RC:$OUT" "^2:.*p000-dio-i5.result.json: env.boot \"stats\" names a stats boot" \
	"a stats boot's result under a timed boot's name: exit 2, the file named"

# waits_of RUN VARIANT: the report names VARIANT as the one whose read role
# waited more (table and explanation), from the stats boot
waits_of() {
	local t=$1/report.txt pat='contended 1000 -> 8000'
	# the tables' columns: stock (the baseline), then rangelock
	awk -v v="$2" '/^Waits read +stats boot +stats boot$/ {w = 1; next}
		w && /^  contended\/boot/ {n++; good += (v == "rangelock") == ($3 > $2); w = 0}
		END {exit !(n >= 2 && good == n)}' "$t" || return 1
	grep -qE "^  waits +all read's \(the point's one op\), above$" "$t" || return 1
	[ "$2" = rangelock ] || pat='contended 8000 -> 1000'
	grep -A1 "waits     read's, per boot (stats boot):" "$t" | grep -q "$pat"
}
ok "$(waits_of "$tmp/one" rangelock; echo $?)" "the report names rangelock's read waits: table rows and the explanation"
ok "$(waits_of "$tmp/swapped" rangelock; [ $? = 1 ]; echo $?)" "(the check fails the swapped run)"
ok "$(waits_of "$tmp/swapped" stock; echo $?)" "... which names stock's"
like "$(sed -n '/^Stats boots:/,/^[A-Z]/p' "$tmp/one/report.txt")" "^Stats boots: one per variant, its lock counters on: the lock waits only" \
	"the header says the run has stats boots, and what they are for"
like "$(cat "$tmp/one/report.txt")" $'  mean wait us +10.0 +25.0\n  max wait us +500.0 +3000.0' \
	"mean wait (total over contended) and the point's longest, per variant"
like "$(cat "$tmp/both/report.txt")" $'Waits all roles +stats boot +stats boot\n(.*\n){4}  \\(per role: not separable' \
	"two ops: the point's waits, said not separable by role"
like "$(cat "$tmp/both/report.txt")" "write     rate .*            waits     not separable by role" \
	"... and per role in the explanation"
ok "$(grep -q '^Waits' "$tmp/none/report.txt" || grep -q 'waits     read' "$tmp/none/report.txt"; [ $? = 1 ]; echo $?)" \
	"no stats boot: no waits rows, the waits not measured"
like "$(cat "$tmp/one/report.html")" "the read role's own \\(the point's one op\\), per boot \\(stats boot\\): contended 1000 &rarr; 8000" \
	"report.html: the role's waits"
like "$(cat "$tmp/one/report.html")" "<tr><td>rangelock</td><td>stats boot</td><td>8000</td><td>200.00</td><td>25.0</td><td>3000.0</td></tr>" \
	"... and its point sections the waits table"

# --- the chart: waits against threads beside throughput ---
is "$(analysis/rlstat charts "$tmp/one" | awk -F'\t' '$2 == "waits" {print $1}')" "waits-01-dio" \
	"a waits chart per series, numbered as its throughput chart (tput-01-dio-read)"
is "$(analysis/rlstat charts "$tmp/none" | awk -F'\t' '$2 == "waits"' | wc -l)" 0 "none without a stats boot"
ok "$([ -s "$tmp/one/waits-01-dio.png" ] && tail -c 200 "$tmp/one/waits-01-dio.svg" | grep -q '</svg>'; echo $?)" \
	"drawn as PNG and SVG"
svg=$(cat "$tmp/one/waits-01-dio.svg")
ok "$([[ $svg == *"rangelock read"* && $svg == *"stock read"* && $svg == *"ms waited per s"* && $svg == *"contended per s"* ]]; echo $?)" \
	"its lines name variant and role, its axes ms waited and contended per second"
run tests/lib/svg-fits "$tmp/one/waits-01-dio.svg" "$tmp/both/waits-01-dio.svg"
is "$RC:$OUT" "0:" "every text of the chart lies on its canvas (tests/lib/svg-fits)"
like "$(cat "$tmp/one/report.html")" "<h2>Lock waits against threads \\(time mode, stats boot\\)</h2>" "report.html shows it in a section of its own"

# --- runners/collect: a maximum is the point's own only after a reset ---
delta=$(sed -n '/^monitor_delta()/,/^}/p' runners/collect)
printf 'stats.contended 5\nstats.wait_ns_max 0\n' >"$tmp/b0"
printf 'stats.contended 5\nstats.wait_ns_max 900\n' >"$tmp/b1"
printf 'stats.contended 9\nstats.wait_ns_max 700\n' >"$tmp/a"
is "$(eval "$delta"; monitor_delta "$tmp/b0" "$tmp/a")" '{"stats.contended": 4, "stats.wait_ns_max_point": 700}' \
	"collect: counters as differences, a maximum reset before the point as the point's own"
is "$(eval "$delta"; monitor_delta "$tmp/b1" "$tmp/a")" '{"stats.contended": 4}' \
	"... a maximum not reset (an older guest) left out, never a difference"
done_testing
