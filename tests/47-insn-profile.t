#!/bin/bash
# The instruction profiler (docs/profile.md): the plugin loads into
# Debian's QEMU and counts a guest of known instruction counts exactly
# (tests/fixtures/insn-profile-guest.S, no kernel needed), the same in two
# boots; rlwork carries the markers; `rlstat profile` resolves a synthetic
# profile with a synthetic System.map and checks it against the guest
# clock; bad input exits 2 with one line and runs nothing.  With a stock
# kernel already built in RLBENCH_CACHE, a real cost run with PROFILE=insn:
# calib's loop is rlwork's calib_thread within 0.1%, the direct read's profile agrees
# with its clock and is the same in both boots.
. "$(dirname "$0")/lib/tap.sh"
for c in qemu-system-x86_64 gcc ld jq objdump; do
	command -v $c >/dev/null || { echo "1..0 # skip $c not installed"; exit 0; }
done
plan 40

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! { make -s -C runners/plugins >&2 && make -s -C workloads >&2 && make -s -C analysis rlstat >&2; }; then
	bail_out "the plugin, rlwork or rlstat does not build"
fi
so=$TOP/runners/plugins/insn-profile.so
RLSTAT=$TOP/analysis/rlstat

# --- the plugin on a guest of known counts ---
# The window's tag is what runners/boot looks for: FNV-1a of a result name.
tag=$(bash -c '. runners/lib.sh; window_tag p001-dio-cost-i1.result.json')
is "$tag" 888907ad "the runner's window tag is FNV-1a (32 bits) of the result's name"
loops=100000 atoms=1000
if ! { gcc -m32 -c -DTAG="0x$tag" -DLOOPS=$loops -DATOMS=$atoms -o "$tmp/g.o" tests/fixtures/insn-profile-guest.S &&
	ld -m elf_i386 -Ttext=0x100000 -o "$tmp/g.elf" "$tmp/g.o"; }; then
	bail_out "the test guest does not build"
fi
guest() {	# DIR [PLUGIN ARGS]: boot the guest; QEMU's exit status in $RC
	mkdir -p "$1"
	run qemu-system-x86_64 -M pc -accel tcg -icount shift=0,sleep=off,align=off \
		-display none -monitor none -serial none -device isa-debug-exit,iobase=0xf4,iosize=4 \
		-kernel "$tmp/g.elf" -plugin "$so,${2:-dir=$1}"
}
guest "$tmp/w1"
# isa-debug-exit: status (0 << 1) | 1 when the guest reached its end
is "$RC" 1 "QEMU loads the plugin and the guest runs to its end"
w=$tmp/w1/w0001-$tag.profile
ok "$([ -f "$w" ]; echo $?)" "the window is written as w<seq>-<tag>.profile"
field() { awk -v k="$1" '$1 == k {print $2; exit}' "$2"; }
row() { awk -v a="$(printf '%016x' "0x$1")" '$1 == a {print $2, $3}' "$2"; }
spin=$(nm "$tmp/g.elf" | awk '$3 == "spin" {print $1}')
atom=$(nm "$tmp/g.elf" | awk '$3 == "atom" {print $1}')
is "$(row "$spin" "$w")" "$((2 * loops)) 0" "the loop's block: 2 x loops instructions, no atomics"
# the first pass through atom shares the block before it, the rest are its own
is "$(row "$atom" "$w")" "$((7 * (atoms - 1))) $((3 * (atoms - 1)))" \
	"lock inc, xchg with memory and ds inc are atomic; inc and xchg of registers are not"
# window: the start marker, mov, jmp; the loop; mov + 7 x atoms
is "$(field insns "$w") $(field atomics "$w")" "$((2 * loops + 7 * atoms + 4)) $((3 * atoms))" \
	"the window's totals: every instruction from the start marker to the end marker, once"
is "$(awk 'NR > 8 {i += $2; a += $3} END {print i, a}' "$w")" "$(field insns "$w") $(field atomics "$w")" \
	"the rows sum to the header's totals"
guest "$tmp/w2"
cmp -s "$w" "$tmp/w2/w0001-$tag.profile"
ok $? "a second boot writes the same window, byte for byte"
# count=block: one add per block, times its length: the start marker's
# block is left out, the end marker's counted whole (3 each)
guest "$tmp/w5" "dir=$tmp/w5,count=block"
is "$(field insns "$tmp/w5/w0001-$tag.profile") $(row "$atom" "$tmp/w5/w0001-$tag.profile")" \
	"$((2 * loops + 7 * atoms + 4)) $((7 * (atoms - 1))) $((3 * (atoms - 1)))" "count=block counts whole blocks"
guest "$tmp/w3" "dir=$tmp/missing"
ok "$([ "$RC" != 0 ] && [[ $OUT == *"insn-profile: dir='$tmp/missing' is not a directory"* ]]; echo $?)" \
	"a plugin that cannot write its windows refuses to load, saying why"
guest "$tmp/w4" "dir=$tmp/w4,bogus=1"
ok "$([ "$RC" != 0 ] && [[ $OUT == *"unknown argument 'bogus=1'"* ]]; echo $?)" \
	"an unknown plugin argument is refused by name"

# --- rlwork's markers ---
marks=$(objdump -d workloads/rlwork | grep -oE 'nopw +0x524c53(01|02|10|11)\(' | sort -u | wc -l)
is "$marks" 4 "rlwork carries the start, end and both bit markers"

# --- rlstat profile on a synthetic run ---
run_dir=$tmp/run cache=$tmp/cache
mkdir -p "$run_dir/stock" "$cache/build/b1"
echo '{"variants": [{"name": "stock", "build": "b1"}]}' >"$run_dir/meta.json"
cat >"$cache/build/b1/System.map" <<'EOF'
ffffffff81000000 T _text
ffffffff81100000 T filemap_read
ffffffff81100200 t filemap_get_pages
ffffffff81100400 D some_data
ffffffff81200000 T _etext
EOF
profile() {	# FILE: a window of 10^6 instructions, 1000 atomics
	printf '# rlbench insn-profile 1\ntag\t%s\nwindow\t1\nend\tmarker\ninsns\t1000000\natomics\t1000\nblocks\t5\nvaddr\tinsns\tatomics\n' "$tag"
	printf '0000000000401000\t90000\t0\nffffffff81100010\t600000\t0\nffffffff81100100\t200000\t0\n'
	printf 'ffffffff81100300\t100000\t1000\nffffffffa0001000\t10000\t0\n'
} >"$1"
result() {	# FILE OPS_PER_S: 1000 read ops
	jq -n --argjson r "$2" '{status: "ok", ops: [{name: "read", count: 1000, ops_per_s: $r}]}' >"$1"
}
profile "$run_dir/stock/p001-dio-cost-i1.profile"
result "$run_dir/stock/p001-dio-cost-i1.result.json" 1e6	# 1000 insn/op by the clock
run_split env RLBENCH_CACHE="$cache" "$RLSTAT" profile "$run_dir"
is "$rc" 0 "rlstat profile: exit 0 when the profile agrees with the clock"
fn() { awk -v f="$1" 'index($0, "  " f " ") == 1 {print $(NF - 2), $NF}' <<<"$out"; }
is "$(fn filemap_read)" "800.00 0.000" "blocks go to the function holding their address, summed"
is "$(fn filemap_get_pages)" "100.00 1.000" "atomics per op by function"
is "$(fn "user (rlwork)")" "90.00 0.000" "addresses below the kernel half are rlwork's"
printf '0000000000400000 T main\n0000000000401000 t calib_thread\n0000000000402000 T _fini\n' >"$run_dir/rlwork.map"
out=$(RLBENCH_CACHE="$cache" "$RLSTAT" profile "$run_dir")
is "$(fn "rlwork: calib_thread")" "90.00 0.000" "with the run's rlwork.map, user addresses are rlwork's functions"
like "$out" "kernel \(not in System.map[^)]*\) +10.00 " "kernel addresses past _etext are named as such"
like "$out" "insn/op: 1000.00 by the guest clock, 1000.00 by the profile \(\+0.000%\) ok" \
	"the cross-check compares the window's total per op with 1e9 / ops_per_s"
result "$run_dir/stock/p001-dio-cost-i1.result.json" 1.0101e6	# 990 insn/op: 1% apart
run_split env RLBENCH_CACHE="$cache" "$RLSTAT" profile "$run_dir"
ok "$([ "$rc" = 1 ] && [[ $out == *MISMATCH* ]]; echo $?)" "a profile 1% off the clock is flagged, exit 1"
result "$run_dir/stock/p001-dio-cost-i1.result.json" 1e6
expect_bad "a missing System.map: exit 2 naming it" "variant stock: cannot read its System.map, $tmp/nocache/build/b1/System.map" \
	env RLBENCH_CACHE="$tmp/nocache" "$RLSTAT" profile "$run_dir"
expect_bad "a run without profiles: exit 2" "no instruction profiles" \
	env RLBENCH_CACHE="$cache" "$RLSTAT" profile "$run_dir" --point p009
sed -i 's/^insns\t1000000/insns\t1000001/' "$run_dir/stock/p001-dio-cost-i1.profile"
expect_bad "a profile whose rows do not sum to its header: exit 2" "the rows sum to 1000000" \
	env RLBENCH_CACHE="$cache" "$RLSTAT" profile "$run_dir"

# --diff: a second variant with one more function and a cheaper one
mkdir -p "$run_dir/rangelock" "$cache/build/b2"
jq '.variants += [{name: "rangelock", build: "b2"}]' "$run_dir/meta.json" >"$tmp/m" && mv "$tmp/m" "$run_dir/meta.json"
sed 's/^ffffffff81100400 D some_data$/ffffffff81100400 t range_lock/' "$cache/build/b1/System.map" >"$cache/build/b2/System.map"
sed -i 's/^insns\t1000001/insns\t1000000/' "$run_dir/stock/p001-dio-cost-i1.profile"
{
	printf '# rlbench insn-profile 1\ntag\t%s\nwindow\t1\nend\tmarker\ninsns\t1150000\natomics\t3000\nblocks\t4\nvaddr\tinsns\tatomics\n' "$tag"
	printf '0000000000401000\t90000\t0\nffffffff81100010\t850000\t0\n'
	printf 'ffffffff81100300\t60000\t1000\nffffffff81100410\t150000\t2000\n'
} >"$run_dir/rangelock/p001-dio-cost-i1.profile"
result "$run_dir/rangelock/p001-dio-cost-i1.result.json" "$(awk 'BEGIN {print 1e9 / 1150}')"
run_split env RLBENCH_CACHE="$cache" "$RLSTAT" profile "$run_dir" --diff stock --top 3
# a row: insn/op and atomics/op of each side and their deltas, then the function
dl() { awk -v f="$1" '/^where the difference goes/ {d = 1}
	d { n = $0; sub(/^ +/, "", n); for (k = 0; k < 6; k++) sub(/^[-+0-9.]+ +/, "", n); if (n == f) print $1, $2, $3, $4, $5, $6 }' <<<"$out"; }
is "$rc:$(dl range_lock)|$(dl filemap_read)|$(dl filemap_get_pages)" \
	"0:0.00 150.00 +150.00 0.00 2.00 +2.00|800.00 850.00 +50.00 0.00 0.00 +0.00|100.00 60.00 -40.00 1.00 1.00 +0.00" \
	"--diff: the functions that moved most, both sides and the delta of insn/op and atomics/op, by name across System.maps"
is "$(dl "(the other 2 functions)")|$(dl total)" "100.00 90.00 -10.00 0.00 0.00 +0.00|1000.00 1150.00 +150.00 1.00 3.00 +2.00" \
	"--diff: the rows below --top in one, summing to the total delta"
expect_bad "--diff of a variant the run does not have: exit 2" "--diff 'imutex' is not a variant" \
	env RLBENCH_CACHE="$cache" "$RLSTAT" profile "$run_dir" --diff imutex
# The run's own System.map (runners/kernel keeps it) names its addresses,
# whatever was built in the build directory since.
sed 's/ filemap_read$/ filemap_read_of_the_run/' "$cache/build/b1/System.map" >"$run_dir/stock/System.map"
out=$(RLBENCH_CACHE="$cache" "$RLSTAT" profile "$run_dir" --point p001 2>&1)
like "$out" "  filemap_read_of_the_run +800.00 " "the run's own <variant>/System.map is read before the build directory's"
rm "$run_dir/stock/System.map"
# --diff RUN: one variant, two runs (a commit against its parent): the
# planted 20 insn/op in filemap_get_pages, by name across the runs.
run2=$tmp/run2
mkdir -p "$run2/stock"
cp "$run_dir/rlwork.map" "$run2/"
echo '{"variants": [{"name": "stock", "build": "b1"}]}' >"$run2/meta.json"
sed 's/^ffffffff81100300\t100000\t1000$/ffffffff81100300\t120000\t1000/; s/^insns\t1000000$/insns\t1020000/' \
	"$run_dir/stock/p001-dio-cost-i1.profile" >"$run2/stock/p001-dio-cost-i1.profile"
result "$run2/stock/p001-dio-cost-i1.result.json" "$(awk 'BEGIN {print 1e9 / 1020}')"
run_split env RLBENCH_CACHE="$cache" "$RLSTAT" profile "$run2" --diff "$run_dir" --top 1
is "$rc:$(dl filemap_get_pages)|$(dl total)" \
	"0:100.00 120.00 +20.00 1.00 1.00 +0.00|1000.00 1020.00 +20.00 1.00 1.00 +0.00" \
	"--diff RUN: each point against the other run's point of the same name and variant"
like "$out" "BASELINE: stock p001-dio-cost of $run_dir" "... and the table names the run it is measured against"
mkdir -p "$tmp/empty" && echo '{"variants": [{"name": "rangelock", "build": "b2"}]}' >"$tmp/empty/meta.json"
expect_bad "--diff RUN with no point of the same name and variant: exit 2" "no profiled point of the one has the same name and variant" \
	env RLBENCH_CACHE="$cache" "$RLSTAT" profile "$run2" --diff "$tmp/empty"
expect_bad "--diff of a directory that is not a run: exit 2" "--diff $tmp/nosuch/meta.json" \
	env RLBENCH_CACHE="$cache" "$RLSTAT" profile "$run2" --diff "$tmp/nosuch"

# --- the wiring refuses a profile outside cost mode, before anything runs
# (RLBENCH_KBUILD=false: a check that let it through fails at the build,
# never starts one) ---
printf 'mode cost\nprofile insn\npoint calib --loops 1000\n' >"$tmp/p.matrix"
expect_bad "profile with MODE=time: exit 2 before anything runs" "counts instructions in cost-mode boots; MODE is time" \
	env RLBENCH_KBUILD=false runners/run bench --kernel stock --baseline none --matrix "$tmp/p.matrix" --mode time
is "$(find results -mindepth 1 -maxdepth 1 -name "*-p-stock*" | wc -l)" 0 "... and no run directory was made"
# a plugin QEMU cannot load: refused once, before anything runs
mkdir -p "$tmp/top/runners/plugins" "$tmp/top/results"
cp -a runners analysis workloads kernels configs "$tmp/top/" 2>/dev/null
echo garbage >"$tmp/top/runners/plugins/insn-profile.so"
expect_bad "a plugin QEMU cannot load: exit 2 before anything runs" "QEMU cannot load runners/plugins/insn-profile.so: .*file too short" \
	env RLBENCH_KBUILD=false "$tmp/top/runners/run" bench --kernel stock --baseline none --matrix "$tmp/p.matrix"
is "$(find "$tmp/top/results" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)" 0 "... and no run directory was made"
printf 'profile cachex\npoint calib\n' >"$tmp/bad.matrix"
expect_bad "a matrix's unknown profile: exit 2 with its line" "bad.matrix:1: profile 'cachex' is not supported (accepted: insn, none)" \
	runners/matrix "$tmp/bad.matrix"
like "$(make -s -n bench PROFILE=insn MODE=cost 2>/dev/null | tr -d '\\\n')" "runners/run bench .*--profile insn" \
	"make bench PROFILE=insn passes it to the runner"

# --- a real cost run, when a stock kernel is built ---
kcache=${RLBENCH_CACHE:-$HOME/.cache/rlbench}
if [ ! -f "$kcache/build/stock/arch/x86/boot/bzImage" ] || [ ! -f "$kcache/build/stock/System.map" ]; then
	skip "no stock kernel in $kcache/build/stock (make kernels KERNEL=stock)"
	skip "no stock kernel: no run to keep its System.map"
	skip "no stock kernel: no run to resume"
else
	cloops=200000
	cat >"$tmp/real.matrix" <<M
# profile: calibration and one direct read, two boots
mode cost
profile insn
iterations 2
runtime 2
ramp 1
mem_mb 512
disk_mb 128
point calib --loops $cloops
point dio --rw read --layout disjoint --size 16m --threads 1
M
	run runners/run bench --kernel stock --baseline none --matrix "$tmp/real.matrix"
	rd=$(sed -n 's/^run: //p' <<<"$OUT" | tail -1)
	run_split "$RLSTAT" profile "$rd" --top 100000
	u=$(awk '/ p001-calib-cost-i1:/ {f = 1} f && /rlwork: calib_thread / {print $(NF - 2); exit}' <<<"$out")
	# The two boots' tables of the direct read: how far their functions
	# move in sum, against how far the clock's insn/op moves.
	moved=$(awk '/^stock p002-dio-cost-i[12]:/ {s = substr($2, 15, 2); next}
		/^$/ {s = ""}
		s != "" && /insn\/op:/ {clock[s] = $2; next}
		s != "" && /^  / && !/atomics\/op:|^  function|^  total/ {
			name = $0; sub(/ +[-0-9.]+ +[-0-9.]+% +[-0-9.]+$/, "", name)
			v[s, name] = $(NF - 2); names[name] = 1
		}
		END {
			for (n in names) { d = v["i1", n] - v["i2", n]; sum += d < 0 ? -d : d }
			dc = clock["i1"] - clock["i2"]; if (dc < 0) dc = -dc
			printf "%.2f %.2f %.2f\n", sum, dc, clock["i1"]
		}' <<<"$out")
	printf '%s\n' "$out" | grep -E '^stock |insn/op:' | diag
	echo "direct read, two boots: functions moved $moved (sum, clock's move, insn/op)" | diag
	ok "$([ "$rc" = 0 ] &&
		awk -v u="$u" -v n="$cloops" 'BEGIN {d = u / (2 * n) - 1; exit !(d < 0.001 && d > -0.001)}' &&
		awk -v m="$moved" 'BEGIN {split(m, a, " "); exit !(a[3] > 0 && a[1] <= 2 * a[2] + 0.0005 * a[3])}'; echo $?)" \
		"real run: calib's loop (calib_thread) within 0.1% of 2 x loops, profiles agree with the clock, two boots move only as their insn/op does"
	cmp -s "$rd/stock/System.map" "$kcache/build/stock/System.map"
	ok $? "real run: the run keeps its kernel's System.map, so a later build cannot rename its addresses"
	# A kernel rebuilt with other symbols cannot add boots to the run.
	echo "ffffffff81ffff00 T planted_by_the_test" >>"$rd/stock/System.map"
	run runners/run bench --resume "$rd"
	ok "$([ "$RC" = 2 ] && [[ $OUT == *"the stock kernel was rebuilt with other symbols (System.map) since the run started"* ]]; echo $?)" \
		"real run: RESUME with a kernel of other symbols is refused, exit 2"
fi
done_testing
