#!/bin/bash
# The matrix's device and fs settings: memory-backed brd and null_blk, and
# xfs on the virtio disk; every point runs on the device it names and the
# filesystem is checked afterwards: ext4 on a memory device by the guest,
# the rest by the host, and a filesystem broken on purpose (@corrupt-fs)
# fails the boot's points either way.  Range kernels have no xfs, so an
# xfs matrix leaves them out and says so.
. "$(dirname "$0")/lib/tap.sh"
plan 19

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
	if [ "$dev" = brd ]; then
		ok "$(grep -q '^e2fsck -fn /dev/ram0, in the guest$' "$rd"/stock/fsck-boot1.txt &&
		      ! grep -aq '^rlbench: memdev' "$rd"/stock/console-boot1.log; echo $?)" \
			"$dev/$fs: the guest checked it, nothing was copied back"
	fi
done
is "$(jq -r .env.device "$rd"/stock/p001-*.result.json)" virtio-blk "results record the device"
is "$(jq -r .env.fs "$rd"/stock/p001-*.result.json)" xfs "and the filesystem"

# A filesystem broken after the points (the superblock zeroed): the check
# that follows fails every point of the boot, in the guest on brd, on the
# host for the virtio disk.
export RLBENCH_TEST_HOOKS=1
for spec in "brd /dev/ram0 in the guest" "virtio-blk /dev/vda on the host"; do
	read -r dev node where <<<"$spec"
	cat >"$tmp/corrupt-$dev.matrix" <<EOM
mode time
iterations 1
runtime 1
ramp 0
mem_mb 512
disk_mb 128
device $dev
point dio --threads 1 --rw write --size 4m --verify
point @corrupt-fs
EOM
	run runners/run bench --kernel stock --matrix "$tmp/corrupt-$dev.matrix" --name "corrupt-$dev"
	rd=$(echo "$OUT" | sed -n 's/^run: \(results\/\)/\1/p' | tail -1)
	is "$RC" 1 "$dev, corrupted: the run fails"
	case $where in
	in*) want="^fsck: e2fsck -fn $node in the guest exit [1-9][0-9]* after boot 1$" ;;
	*) want="^fsck: e2fsck -fn exit [1-9][0-9]* after boot 1$" ;;
	esac
	like "$(jq -r '"\(.status) \(.error)"' "$rd"/stock/p001-dio-i1.result.json)" "^failed ${want#^}" \
		"$dev, corrupted: the point that passed fails on the check $where"
	ok "$(grep -q '^e2fsck exit: [1-9]' "$rd"/stock/fsck-boot1.txt; echo $?)" "$dev, corrupted: fsck-boot1.txt keeps the failing check"
done
unset RLBENCH_TEST_HOOKS

# A range kernel cannot run xfs: the variant is skipped, recorded, not failed.
run runners/run bench --kernel stock,rangelock --matrix "$tmp/virtio-blk-xfs.matrix" --name dev-xfs-skip
rd=$(echo "$OUT" | sed -n 's/^run: \(results\/\)/\1/p' | tail -1)
is "$(jq -r '.skipped[0].variant' "$rd/meta.json")" rangelock "an xfs matrix skips rangelock and meta.json says so"
done_testing
