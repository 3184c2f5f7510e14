#!/bin/bash
# runners/lava jobs: one LAVA job per boot, in the run's balanced order,
# each carrying its plan, that lava-run --validate accepts against the
# device in configs/lava and a server's strict job schema; a broken job is reported invalid; bad input
# exits 2 and leaves nothing behind.  No kernel is built or booted: a
# stand-in build directory gives the jobs their bzImage.
. "$(dirname "$0")/lib/tap.sh"
make -s -C workloads >/dev/null || bail_out "rlwork does not build"
if ! command -v lava-run >/dev/null; then
	scripts/setup lava >&2 || { echo "1..0 # skip lava-dispatcher is not installed (scripts/setup lava)"; exit 0; }
fi
plan 19

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
while read -r v; do
	mkdir -p "$tmp/k/$v/arch/x86/boot" "$tmp/k/$v/include/config"
	echo "bzImage of $v" >"$tmp/k/$v/arch/x86/boot/bzImage"
	echo "6.12.0-rl-$v" >"$tmp/k/$v/include/config/kernel.release"
	echo "CONFIG_$v=y" >"$tmp/k/$v/.config"
done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' kernels/variants | awk '{print $1}')
# shellcheck disable=SC2016  # $1 is the stand-in script's argument
printf '#!/bin/sh\necho "%s/k/$1"\n' "$tmp" >"$tmp/kbuild"
chmod +x "$tmp/kbuild"
export RLBENCH_KBUILD=$tmp/kbuild

run runners/lava jobs --kernel all --matrix smoke --iterations 2 --seed 5 --out "$tmp/jobs"
is "$RC" 0 "jobs for every variant, 2 boots each"
mapfile -t jobs < <(ls "$tmp"/jobs/[0-9]*.yaml)
nv=$(runners/matrix configs/smoke.matrix | awk '$2 == "variants" {print NF - 2}')
is "${#jobs[@]}" "$((nv * 2))" "one job per variant and boot (${#jobs[@]})"
is "$OUT" "$(printf '%s\n' "${jobs[@]}")" "the job files are printed, one a line"
# ABBA: the second round is the first backwards
order=$(for j in "${jobs[@]}"; do basename "$j" .yaml | sed 's/^[0-9]*-//'; done | xargs)
r1=$(tr ' ' '\n' <<<"$order" | grep -- '-i1$' | sed 's/-time-i1//' | xargs)
r2=$(tr ' ' '\n' <<<"$order" | grep -- '-i2$' | sed 's/-time-i2//' | tac | xargs)
is "$r2" "$r1" "the second round of boots runs the first backwards"
npoints=$(runners/matrix configs/smoke.matrix | grep -c '^point ')
is "$(grep -c '^# rlbench-plan: ' "${jobs[0]}")" "$npoints" "each job carries its plan, one line per point"
like "$(grep -m1 'image_arg: "-kernel' "${jobs[0]}")" "rdinit=/lava-init .*rlbench.strategy=" "the kernel boots the overlay's init with the guest's parameters"
# every archive of the concatenated initramfs, as the kernel unpacks them
cpio_names() {
	zcat "$1" | python3 -c '
import sys
d, i = sys.stdin.buffer.read(), 0
while i + 110 <= len(d):
    if d[i:i + 6] != b"070701":
        i += 1; continue
    size, nl = int(d[i + 54:i + 62], 16), int(d[i + 94:i + 102], 16)
    name = d[i + 110:i + 110 + nl - 1].decode()
    i = (i + 110 + nl + 3) & ~3
    i = (i + size + 3) & ~3
    if name != "TRAILER!!!":
        print(name)'
}
names=$(cpio_names "$tmp/jobs/artifacts/$(basename "${jobs[0]}" .yaml).cpio.gz" | grep -x 'rlbench/plan\|lava-init\|init\|bin/rlwork' | xargs)
is "$names" "init bin/rlwork lava-init rlbench/plan" "its initramfs holds the guest's init and rlwork, then the overlay and the plan"

bad=0
for j in "${jobs[@]}"; do
	runners/lava validate "$j" >"$tmp/v.out" 2>&1 || { bad=$((bad + 1)); diag <"$tmp/v.out"; }
done
is "$bad" 0 "lava-run --validate accepts every generated job"

# a broken job is caught: the deploy no longer says where
sed '/to: tmpfs/d' "${jobs[0]}" >"$tmp/broken.yaml"
run runners/lava validate "$tmp/broken.yaml"
like "$RC:$OUT" "^1:invalid: .*broken.yaml" "a job without its deploy target is invalid (exit 1)"
sed 's/^      pattern: .*//' "${jobs[0]}" >"$tmp/broken2.yaml"
run runners/lava validate "$tmp/broken2.yaml"
like "$RC:$OUT" "^1:invalid: " "a monitor without a pattern is invalid"
# a context key lava-run lets pass and a server's job schema refuses
# (as 2023.01 refused "cpus"; the CPUs go in extra_options)
sed 's/^  arch: amd64/&\n  cpus: 2/' "${jobs[0]}" >"$tmp/broken3.yaml"
run runners/lava validate "$tmp/broken3.yaml"
like "$RC:$OUT" "^1:invalid: .*extra keys not allowed .*'cpus'" "a context key the server refuses is invalid"

# A variant with a feature: its name in one spelling, its markers asked
# of the guest as runners/run asks them.
v=stock+shared-alloc-dio
mkdir -p "$tmp/k/$v/arch/x86/boot" "$tmp/k/$v/include/config"
echo "bzImage of $v" >"$tmp/k/$v/arch/x86/boot/bzImage"
echo "6.12.0-rl-$v" >"$tmp/k/$v/include/config/kernel.release"
echo "CONFIG_EXT4_DIO_WRITE_SHARED=y" >"$tmp/k/$v/.config"
run runners/lava jobs --kernel "$v" --baseline none --matrix smoke --iterations 1 --out "$tmp/jf"
jf=("$tmp"/jf/[0-9]*.yaml)
[ "$RC" = 0 ] && [ "${#jf[@]}" = 1 ] && [[ ${jf[0]} == *"-$v-time-i1.yaml" ]] &&
	grep -m1 'image_arg: "-kernel' "${jf[0]}" | grep -q ' rlbench.strategy=stock rlbench.features=shared-alloc-dio '
ok $? "KERNEL=$v: one job that asks the guest for the stock strategy and the feature's marker"
# The lock counters are in every kernel with a lock: a matrix that
# monitors them boots the guest with them on, no kernel flavour needed.
printf '# m\nmonitors mapping_lock\ninclude %s/configs/smoke.matrix\n' "$TOP" >"$tmp/mon.matrix"
run runners/lava jobs --kernel stock --baseline none --matrix "$tmp/mon.matrix" --iterations 1 --out "$tmp/jm"
jm=("$tmp"/jm/[0-9]*.yaml)
[ "$RC" = 0 ] && [ -f "${jm[0]}" ] &&
	grep -m1 'image_arg: "-kernel' "${jm[0]}" | grep -q ' mapping_lock.stats=1 .*rlbench.monitors=mapping_lock '
ok $? "monitors mapping_lock: a job whose guest is booted with the lock counters on"
run runners/lava jobs --kernel stock+nosuch --matrix smoke --out "$tmp/j2"
like "$RC:$OUT" "^2:.*unknown feature 'nosuch'" "an unknown feature exits 2"
run runners/lava jobs --kernel nosuch --matrix smoke --out "$tmp/j2"
like "$RC:$OUT" "^2:.*unknown KERNEL='nosuch'" "an unknown variant exits 2"
run runners/lava jobs --kernel stock --matrix smoke --iterations auto --out "$tmp/j2"
like "$RC:$OUT" "^2:.*ITERATIONS='auto' is not a whole number" "ITERATIONS=auto is refused (jobs are planned ahead)"
run runners/lava jobs --kernel stock --matrix smoke --device-type beaglebone --out "$tmp/j2"
like "$RC:$OUT" "^2:.*DEVICE_TYPE='beaglebone' is not supported" "an unsupported device type exits 2"
ok "$([ ! -e "$tmp/j2" ]; echo $?)" "and no job directory was left"
before=$(find "$tmp/jobs" -type f -exec sha256sum {} + | sort)
run runners/lava jobs --kernel stock --matrix smoke --out "$tmp/jobs"
after=$(find "$tmp/jobs" -type f -exec sha256sum {} + | sort)
like "$RC:$([ "$before" = "$after" ]; echo $?)" "^2:0$" "an existing job directory is refused and left as it was"
done_testing
