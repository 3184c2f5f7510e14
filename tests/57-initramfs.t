#!/bin/bash
# runners/initramfs puts only static binaries into the guest: in a copy of
# the scripts, a dynamically linked rlwork and a file that is no ELF at
# all are refused (exit 2, named); the real static rlwork is accepted.
. "$(dirname "$0")/lib/tap.sh"
plan 4
make -s -C workloads >/dev/null || bail_out "rlwork does not build"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/runners" "$tmp/workloads"
cp runners/initramfs runners/lib.sh runners/guest-init "$tmp/runners/"
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
done_testing
