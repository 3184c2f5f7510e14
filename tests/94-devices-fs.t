#!/bin/bash
# The matrix's device and fs settings: memory-backed brd and null_blk, and
# xfs on the virtio disk; every point runs on the device it names and the
# filesystem is checked afterwards.  Range kernels have no xfs, so an xfs
# matrix leaves them out and says so.
. "$(dirname "$0")/lib/tap.sh"
plan 12

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
matrix() {	# matrix NAME DEVICE FS
	# time mode: one boot a device, the fsck after it (MODE=auto could
	# split the points between cost and time boots)
	cat >"$tmp/$1.matrix" <<EOM
mode time
iterations 1
runtime 2
ramp 0
mem_mb 1024
disk_mb 320
device $2
fs $3
point dio --threads 2 --rw write --layout shared --size 8m --verify
point mmap-punch --threads 1 --size 8m --verify
EOM
}

for spec in "brd ext4 /dev/ram0" "null_blk ext4 /dev/nullb0" "virtio-blk xfs /dev/vda"; do
	read -r dev fs node <<<"$spec"
	matrix "$dev-$fs" "$dev" "$fs"
	run runners/run bench --kernel stock --matrix "$tmp/$dev-$fs.matrix" --name "dev-$dev-$fs"
	echo "$OUT" | tail -3 | sed 's/^/# /'
	rd=$(echo "$OUT" | sed -n 's/^run: \(results\/\)/\1/p' | tail -1)
	is "$RC" 0 "$dev/$fs: every point passed"
	grep -q "^rlbench: mounted $node ($dev) as $fs" "$rd"/stock/console-boot*.log
	ok $? "$dev/$fs: the guest mounted $node"
	case $fs in
	ext4) tool=e2fsck ;; xfs) tool=xfs_repair ;;
	esac
	is "$(cat "$rd"/stock/fsck-boot*.txt | grep -c "^$tool exit: 0$")" 1 "$dev/$fs: $tool found the filesystem clean"
done
is "$(jq -r .env.device "$rd"/stock/p001-*.result.json)" virtio-blk "results record the device"
is "$(jq -r .env.fs "$rd"/stock/p001-*.result.json)" xfs "and the filesystem"

# A range kernel cannot run xfs: the variant is skipped, recorded, not failed.
run runners/run bench --kernel stock,rangelock --matrix "$tmp/virtio-blk-xfs.matrix" --name dev-xfs-skip
rd=$(echo "$OUT" | sed -n 's/^run: \(results\/\)/\1/p' | tail -1)
is "$(jq -r '.skipped[0].variant' "$rd/meta.json")" rangelock "an xfs matrix skips rangelock and meta.json says so"
done_testing
