#!/bin/bash
# Cost mode boots stock under QEMU icount (guest time counts instructions):
# the calibration loop of known instruction count measures within 1% of
# it, two boots of the same kernel are within 0.1% CoeffVar on a 1-thread
# direct read (a determinism check, not a timing one), and a cost matrix on
# virtio-blk is refused before anything boots.
. "$(dirname "$0")/lib/tap.sh"
plan 12

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
loops=200000
cat >"$tmp/cost.matrix" <<M
# cost: calibration and one direct read, two boots
mode cost
iterations 2
runtime 2
ramp 1
cpus 1
mem_mb 512
disk_mb 128
point calib --loops $loops
point dio --rw read --layout disjoint --size 16m --threads 1
M
# A run directory with a comma (a variant with a feature names it so):
# QEMU parses the paths in its options, where a comma ends a value.
run runners/run bench --kernel stock --baseline none --matrix "$tmp/cost.matrix" --name cost,comma
echo "$OUT" | tail -5 | sed 's/^/# /'
rd=$(sed -n 's/^run: //p' <<<"$OUT" | tail -1)
is "$RC" 0 "the cost-mode run passed"
res=("$rd"/stock/*.result.json)
is "$(printf '%s\n' "${res[@]##*/}" | xargs)" \
	"p001-calib-cost-i1.result.json p001-calib-cost-i2.result.json p002-dio-cost-i1.result.json p002-dio-cost-i2.result.json" \
	"results are named <point>-cost-i<N>"
is "$(jq -r '"\(.env.mode) \(.env.accel) \(.env.device)"' "${res[0]}")" "cost tcg brd" "they record cost mode, TCG and the memory device"
# (the .cmd file is printf %q: commas may come back escaped)
grep -qE -- '-icount shift=0\\?,sleep=off\\?,align=off' "$rd"/stock/qemu-boot1.cmd
ok $? "the guest ran under icount"
# Nearly all RAM above 4 GiB (runners/lib.sh cost_machine): half of mem_mb
# below, so brd's pages and the points' come from one zone.
grep -qE -- '-machine pc\\?,max-ram-below-4g=256M' "$rd"/stock/qemu-boot1.cmd &&
	jq -e '.cost.qemu | endswith("-machine pc,max-ram-below-4g=256M")' "$rd/meta.json" >/dev/null
ok $? "the guest had 256 MiB below 4 GiB, and meta.json says so"
is "$(find "$rd"/stock -name 'qemu-boot*.cmd' | wc -l)" 2 "one boot per iteration"

# Calibration: 2 x loops instructions per op, plus the op's bookkeeping
# and the ticks that land in it, which must stay under 1%.
want=$((2 * loops))
for i in 1 2; do
	ipo=$(jq -r '.ops[] | select(.name == "loop") | 1e9 / .ops_per_s | floor' "$rd/stock/p001-calib-cost-i$i.result.json")
	ok "$(awk -v g="$ipo" -v w="$want" 'BEGIN {exit !(g >= w && (g - w) / w < 0.01)}'; echo $?)" \
		"boot $i: calib measures $ipo insn/op for a loop of $want instructions (within 1%)"
done
# The check itself fails a figure 2% off.
ok "$(awk -v g=$((want * 102 / 100)) -v w="$want" 'BEGIN {exit !(g >= w && (g - w) / w < 0.01)}'; [ $? = 1 ]; echo $?)" \
	"(the 1% check fails a figure 2% off)"

# Determinism: the same kernel, two boots, the same 1-thread direct read,
# held to the target README states for single-role cost points: a
# CoeffVar (sample standard deviation over mean) within 0.1%.  Boots
# mostly agree to 0.005%, but now and then one lands a few insn/op off
# (2 to 6 of about 5000, up to 0.12%), a step whose source is not found.
r1=$(jq -r '.ops[0].ops_per_s' "$rd/stock/p002-dio-cost-i1.result.json")
r2=$(jq -r '.ops[0].ops_per_s' "$rd/stock/p002-dio-cost-i2.result.json")
cv_within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN {m = (a + b) / 2; d = a - b; if (d < 0) d = -d
	exit !(m > 0 && d / sqrt(2) / m <= t)}'; }
ok "$(cv_within "$r1" "$r2" 0.001; echo $?)" "two boots' CoeffVar on dio read is within 0.1%: $r1 vs $r2 ops/s"
ok "$(cv_within 100 100.2 0.001; [ $? = 1 ]; echo $?)" "(the check fails boots 0.2% apart, CoeffVar 0.14%)"

# A virtio-blk cost matrix is refused before anything boots.
sed 's/^cpus 1$/device virtio-blk/' "$tmp/cost.matrix" >"$tmp/virtio.matrix"
run runners/run bench --kernel stock --baseline none --matrix "$tmp/virtio.matrix"
line=$(grep -n '^device virtio-blk$' "$tmp/virtio.matrix" | cut -d: -f1)
like "$RC:$OUT" "^2:run: [^ ]*/virtio.matrix:$line: device virtio-blk cannot run in cost mode" "device virtio-blk in cost mode is refused, naming its line"
done_testing
