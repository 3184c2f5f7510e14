#!/bin/bash
# runners/initramfs puts only static binaries into the guest: in a copy of
# the scripts, a dynamically linked rlwork and a file that is no ELF at
# all are refused (exit 2, named); the real static rlwork is accepted.
# The guest's check of the kernel it booted (runners/guest-check.sh, run
# by guest-init before any point) against a stand-in command line and
# /sys/kernel/mapping_lock: the strategy and exactly the features asked.
. "$(dirname "$0")/lib/tap.sh"
plan 15
make -s -C workloads >/dev/null || bail_out "rlwork does not build"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/runners" "$tmp/workloads"
cp runners/initramfs runners/lib.sh runners/guest-init runners/guest-check.sh "$tmp/runners/"
export RLBENCH_CACHE=$tmp/cache

cp /bin/true "$tmp/workloads/rlwork"
run "$tmp/runners/initramfs"
like "$RC:$OUT" "^2:.*workloads/rlwork is dynamically linked" "a dynamically linked rlwork is refused"
printf '#!/bin/sh\n' >"$tmp/workloads/rlwork"; chmod +x "$tmp/workloads/rlwork"
run "$tmp/runners/initramfs"
like "$RC:$OUT" "^2:.*workloads/rlwork is not an ELF executable" "a script in its place is refused"
ok "$([ ! -d "$tmp/cache/initramfs" ] || [ -z "$(ls -A "$tmp/cache/initramfs")" ]; echo $?)" "and no image was written"
cp workloads/rlwork "$tmp/workloads/rlwork"
run "$tmp/runners/initramfs"
like "$RC:$OUT" "^0:$tmp/cache/initramfs/rlbench-[0-9a-f]+\.cpio\.gz$" "the static rlwork is packed"
ok "$(zcat "${OUT#0:}" | cpio -it --quiet 2>/dev/null | grep -qx guest-check.sh; echo $?)" \
	"the image holds the kernel check"
ok "$(zcat "${OUT#0:}" | cpio -it --quiet 2>/dev/null | grep -qx sbin/e2fsck; echo $?)" \
	"and the static e2fsck that checks a memory device's ext4"
ok "$(grep -q '^\. /guest-check\.sh$' runners/guest-init && grep -q 'kernel_mismatch /proc/cmdline /sys/kernel/mapping_lock' runners/guest-init; echo $?)" \
	"and guest-init runs it on /proc/cmdline and /sys/kernel/mapping_lock"

# mismatch CMDLINE [STRATEGY [FEATURES]]: the check's verdict under the
# guest's shell, on a kernel whose sysfs says STRATEGY and FEATURES
# ("-": no such file).
sh=(sh)
command -v busybox >/dev/null && sh=(busybox sh)
mismatch() {
	local d=$tmp/sys
	rm -rf "$d" && mkdir -p "$d/ml"
	echo "console=ttyS0 $1 rlbench.mode=time" >"$d/cmdline"
	[ "${2:--}" = - ] || echo "$2" >"$d/ml/strategy"
	[ "${3:--}" = - ] || printf '%s\n' "$3" >"$d/ml/features"
	# shellcheck disable=SC2016  # the guest shell's own $1 and $2
	"${sh[@]}" -c '. runners/guest-check.sh; kernel_mismatch "$1" "$2" || echo match' _ "$d/cmdline" "$d/ml"
}
is "$(mismatch 'rlbench.strategy=rangelock rlbench.features=shared-alloc-dio,fault-retry' rangelock 'shared-alloc-dio fault-retry')" \
	match "the strategy and the features asked for: the points run"
is "$(mismatch 'rlbench.strategy=stock rlbench.features=' stock '')" match "no features asked, an empty features line: they run"
is "$(mismatch 'rlbench.strategy=stock rlbench.features=' stock -)" match \
	"no features asked, a kernel without the features file (an older series): they run"
is "$(mismatch 'rlbench.strategy=stock rlbench.features=shared-alloc-dio' stock -)" \
	"features mismatch: asked for 'shared-alloc-dio', kernel reports 'none'" "a feature asked of a kernel without it: refused, and why"
is "$(mismatch 'rlbench.strategy=stock rlbench.features=' stock 'fault-retry')" \
	"features mismatch: asked for 'none', kernel reports 'fault-retry'" "a feature the kernel has and was not asked for: refused"
is "$(mismatch 'rlbench.strategy=stock rlbench.features=shared-alloc-dio' stock 'shared-alloc-dio fault-retry')" \
	"features mismatch: asked for 'shared-alloc-dio', kernel reports 'shared-alloc-dio fault-retry'" "one more than asked: refused"
is "$(mismatch 'rlbench.strategy=stock rlbench.features=' rangelock '')" \
	"strategy mismatch: asked for stock, kernel reports rangelock" "the strategy is checked as before"
is "$(mismatch 'rlbench.strategy=' - 'fault-retry')" match "a caller that asks nothing is not refused"
done_testing
