# shellcheck shell=bash
# Shared by the runner scripts; sourced, never run.

RLBENCH_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RLBENCH_CACHE=${RLBENCH_CACHE:-$HOME/.cache/rlbench}

die()  { echo "${0##*/}: $*" >&2; exit 2; }
fail() { echo "${0##*/}: $*" >&2; exit 1; }
log()  { echo "${0##*/}: $*" >&2; }

# Console lines that make a point (or a boot) a failure, with the reason
# recorded for each.  Lockdep reports start with "WARNING: possible ..." or
# "WARNING: inconsistent lock state", so they are caught as WARN too but
# named for what they are first.
#
# A KCSAN kernel (DEBUG=kcsan, kernels/configs/kcsan.config) in strict
# mode reports races all over the kernel: a KCSAN report is a point's
# failure only when its title names a range lock's or the invalidate
# lock's function ("BUG: KCSAN: data-race in range_list_unlock /
# range_list_read_lock"); the others are not the lock's, and no other
# pattern takes them.
KCSAN_LOCK_FUNCS='range_|mapping_range_|filemap_invalidate_'
FAILURE_PATTERNS=(
	'Kernel panic - not syncing|panic'
	"BUG: KCSAN: [^ ]+ in (([^ ]+ / )?($KCSAN_LOCK_FUNCS))|kcsan"
	'WARNING: (possible (circular|recursive) locking|inconsistent lock state|suspicious RCU usage|bad unlock balance|held lock freed)|lockdep'
	'BUG: (soft|hard)lockup|softlockup'
	'rcu: INFO: .*detected stall|rcu_stall'
	'INFO: task .* blocked for more than|hung_task'
	'BUG: |BUG'
	'Oops: |oops'
	'WARNING: |WARN'
	'general protection fault|gpf'
	'EXT4-fs error|ext4_error'
)

# classify_log FILE: print "reason<TAB>first matching line" for the most
# specific failure in FILE, nothing when it is clean.
classify_log() {
	local entry re reason line
	[ -r "$1" ] || return 0
	for entry in "${FAILURE_PATTERNS[@]}"; do
		re=${entry%|*}
		reason=${entry##*|}
		# every match read to the end (sed, not grep -m1 or head): no
		# early exit to break the pipe under pipefail
		line=$({ grep -a -E -- "$re" "$1" 2>/dev/null || true; } |
			if [ "$reason" = kcsan ]; then cat; else grep -a -v 'BUG: KCSAN: ' || true; fi |
			sed -n 1p)
		[ -n "$line" ] || continue
		printf '%s\t%s\n' "$reason" "$line"
		return 0
	done
	return 0
}

# first_line PREFIX FILE: the rest of FILE's first line that starts with
# PREFIX.  Reads to the end, so no pipeline upstream ever gets SIGPIPE.
first_line() {
	awk -v p="$1" '!found && index($0, p) == 1 {print substr($0, length(p) + 1); found = 1}' "${2:--}"
}

variants_list() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$RLBENCH_TOP/kernels/variants" | awk '{print $1}'
}

# ISO 8601 UTC, the one time format of every document the suite writes.
now_utc() { date -u +%Y-%m-%dT%H:%M:%SZ; }

# atomic_write PATH: stdin to PATH through a temp file and rename, so a
# killed runner never leaves half a document behind.
atomic_write() {
	local tmp
	tmp=$(mktemp "$1.tmp.XXXXXX") || return 1
	cat >"$tmp" && mv -f "$tmp" "$1"
}

# budget_seconds VALUE: the seconds of a time budget (BUDGET=, the
# matrix's `budget`): "none" (prints nothing), whole minutes ("8", "8m")
# or seconds ("90s"), from 1 s to 7 days.  Returns 1 on anything else,
# for which BUDGET_ACCEPTED is the message's tail.
# shellcheck disable=SC2034  # used by the scripts that source this file
BUDGET_ACCEPTED="(accepted: none, or minutes: 8, 8m, or seconds: 90s; from 1 s to 7 days)"
budget_seconds() {
	local n
	case $1 in
	none) return 0 ;;
	*s) n=${1%s} ;;
	*m) n=${1%m} ;;
	*) n=$1 ;;
	esac
	[[ $n =~ ^[1-9][0-9]{0,5}$ ]] || return 1
	[[ $1 == *s ]] || n=$((n * 60))
	[ "$n" -le 604800 ] || return 1
	echo "$n"
}

# cost_machine MEM_MB: QEMU's -machine for a cost-mode guest of MEM_MB for
# the points (the memory device comes on top).  Little RAM below 4 GiB, so
# nearly all of it is ZONE_NORMAL: the device's pages come from there and
# leave the points' memory free in the same zone.  With QEMU's default (3
# GiB below 4 GiB once a guest has 3.5 GiB) the device filled ZONE_NORMAL
# to its watermark, and whether an allocation was served there or fell
# back to ZONE_DMA32 changed as the free count moved: stock's cold
# buffered read cost 11705 to 11736 insn/op from boot to boot, 11644.0 in
# each boot with this, and readahead's 0.9% steps went too.
cost_machine() {
	echo "pc,max-ram-below-4g=$(($1 / 2 < 1024 ? $1 / 2 : 1024))M"
}

# run_names KERNEL BASELINE MATRIX-FILE VARIANTS: the kernels a run of a
# matrix boots, in RUN_NAMES, and the baseline in one spelling (or none)
# in RUN_BASELINE; exit 2 (die) on a name the matrix does not run.
# VARIANTS is the matrix's `variants`: the kernels its points make sense
# on (a knob only some have, with at least its features), which
# KERNEL=all means.  The baseline joins the kernels asked for when the
# matrix allows it.  Needs kernels/lib.sh (kl_names, kl_allows), kept out
# of it because a change there rebuilds every kernel (its build key).
# shellcheck disable=SC2034  # RUN_BASELINE is the caller's
run_names() {
	local v allowed=" $4 "
	kl_names "$1"
	RUN_NAMES=("${KL_NAMES[@]}") RUN_BASELINE=$2
	if [ "$1" = all ]; then
		read -r -a RUN_NAMES <<<"$allowed"
	else
		for v in "${RUN_NAMES[@]}"; do
			kl_allows "$v" "$allowed" ||
				die "$3 runs only on the variants $4; KERNEL='$v' is not one of them"
		done
	fi
	[ "$2" != none ] || return 0
	kl_resolve "$2" BASELINE
	RUN_BASELINE=$KL_NAME
	[[ " ${RUN_NAMES[*]} " != *" $KL_NAME "* ]] || return 0
	if kl_allows "$KL_NAME" "$allowed"; then RUN_NAMES=("$KL_NAME" "${RUN_NAMES[@]}")
	else log "the matrix does not run on the baseline $KL_NAME; the report compares against ${RUN_NAMES[0]}"; fi
}

# plan_settings ARGS... <MATRIX-OUTPUT: `rlstat plan ARGS...` (create or
# resume) given runners/matrix's output; the settings it prints (`key
# value` lines) land in the caller's associative array S, and its refusal
# is the caller's own: the message under the runner's name, exit 2.
plan_settings() {
	local pkey pval err rc=0 f
	f=$(mktemp)
	err=$("$RLBENCH_TOP/analysis/rlstat" plan "$@" 2>&1 >"$f") || rc=$?
	# shellcheck disable=SC2034,SC2004  # S is the caller's
	while read -r pkey pval; do S[$pkey]=$pval; done <"$f"
	rm -f "$f"
	[ -z "$err" ] || echo "${0##*/}: ${err#rlstat: }" >&2
	[ $rc = 0 ] || exit 2
}

# kvm_known ACCEL: does KVM run a guest here, as far as is known without
# booting?  Sets KVM_STATE (yes, no) and KVM_WHY, what MODE=auto goes by
# (rlstat plan create --kvm), and returns 0; returns 1 when only a probe
# can tell (kvm_probe).  ACCEL=tcg: no; ACCEL=kvm: yes (a KVM that fails
# then fails the boot, as asked).  Otherwise /dev/kvm must be read-write,
# and the answer is the cached one (kvm_cache_file), from an earlier
# probe or boot: runners/qemu rewrites it when a boot's KVM attempt says
# otherwise (kvm_record).  Test hook: RLBENCH_TEST_KVM=yes|no is the
# answer, nothing probed or cached.
kvm_known() {
	local f
	KVM_STATE=no
	case ${RLBENCH_TEST_KVM:-} in
	'') ;;
	yes|no) KVM_STATE=$RLBENCH_TEST_KVM KVM_WHY="RLBENCH_TEST_KVM=$RLBENCH_TEST_KVM, a test's stand-in"; return 0 ;;
	*) die "RLBENCH_TEST_KVM='$RLBENCH_TEST_KVM' is not one of yes, no (a test hook)" ;;
	esac
	case $1 in
	tcg) KVM_WHY="ACCEL=tcg"; return 0 ;;
	kvm) KVM_STATE=yes KVM_WHY="ACCEL=kvm"; return 0 ;;
	esac
	[ -e /dev/kvm ] || { KVM_WHY="no /dev/kvm"; return 0; }
	{ [ -r /dev/kvm ] && [ -w /dev/kvm ]; } || { KVM_WHY="/dev/kvm is not read-write for $(id -un)"; return 0; }
	f=$(kvm_cache_file)
	if [ -s "$f" ] && read -r KVM_STATE KVM_WHY <"$f" && [[ $KVM_STATE =~ ^(yes|no)$ ]]; then
		KVM_WHY="$KVM_WHY (cached: $f)"
		return 0
	fi
	KVM_STATE=no KVM_WHY=''
	return 1
}

# kvm_probe BZIMAGE NAME: boot the kernel BZIMAGE (NAME, for the record)
# under KVM, without a disk or an initramfs, and wait up to
# RLBENCH_KVM_WATCHDOG seconds for its banner on the serial console.
# Only a Linux kernel says whether KVM runs one: where nested KVM is
# broken, firmware and hand-made payloads (even one that enters long
# mode) print under KVM while a kernel prints nothing.  Sets KVM_STATE
# and KVM_WHY as kvm_known does, and caches them (kvm_record).
kvm_probe() {
	local l i pid
	l=$(mktemp)
	qemu-system-x86_64 -accel kvm -cpu host -smp 1 -m 256 -display none -nodefaults -no-reboot \
		-kernel "$1" -append "console=ttyS0 earlyprintk=serial panic=-1" -serial "file:$l" >/dev/null 2>&1 &
	pid=$!
	for ((i = 0; i < ${RLBENCH_KVM_WATCHDOG:-10} * 5; i++)); do
		grep -aq 'Linux version' "$l" && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.2
	done
	kill -9 $pid 2>/dev/null || true
	wait $pid 2>/dev/null || true
	KVM_STATE=no KVM_WHY="a KVM guest printed nothing (probe: the $2 kernel)"
	grep -aq 'Linux version' "$l" && KVM_STATE=yes KVM_WHY="a KVM guest booted (probe: the $2 kernel)"
	rm -f "$l"
	kvm_record "$KVM_STATE" "$KVM_WHY"
}

# kvm_cache_file: where kvm_known finds what kvm_probe or a boot found,
# keyed by the QEMU binary and the host's kernel (either changing may
# change it).
kvm_cache_file() {
	local q
	q=$(command -v qemu-system-x86_64 || echo none)
	echo "$RLBENCH_CACHE/kvm/$({ echo "$q"; stat -Lc '%s %Y' "$q" 2>/dev/null; uname -r; } |
		sha256sum | cut -c1-16)"
}

# kvm_record yes|no WHY: whether KVM runs a guest, cached; never a test's
# (RLBENCH_TEST_KVM, or a KVM attempt RLBENCH_TEST_KVM_FAIL broke).
kvm_record() {
	local f
	[ -z "${RLBENCH_TEST_KVM:-}" ] && [ "${RLBENCH_TEST_KVM_FAIL:-0}" != 1 ] || return 0
	f=$(kvm_cache_file)
	mkdir -p "${f%/*}" 2>/dev/null || return 0
	if printf '%s %s\n' "$1" "$2" >"$f.$$"; then mv -f "$f.$$" "$f"; fi 2>/dev/null || true
}

# lock_dir DIR WAIT: one runner at a time in DIR, waiting up to WAIT
# seconds: a lock on the directory, open in every child (runners/qemu,
# runners/boot, QEMU), so it is held until the last of them has exited.
lock_dir() {
	local fd
	exec {fd}<"$1"
	flock -w "$2" "$fd" || die "$1 is in use by another run that has not ended (waited ${2}s)"
}

# make_disk FS IMAGE MB: IMAGE made anew, MB MiB, with an FS filesystem
# that is the same in every boot and every lab: fixed UUIDs and hash
# seed, so a directory's hash order does not change from boot to boot.
# Returns 2 for an FS the guests cannot mount, 1 when mkfs fails.
make_disk() {
	local fs=$1 img=$2 mb=$3
	truncate -s 0 "$img" && truncate -s "${mb}M" "$img" || return 1
	case $fs in
	ext4) E2FSPROGS_FAKE_TIME=1767225600 mkfs.ext4 -q -F -U 6c62656e-6368-4000-8000-000000000001 \
		-E lazy_itable_init=0,lazy_journal_init=0,hash_seed=6c62656e-6368-4000-8000-000000000002 "$img" ;;
	xfs) mkfs.xfs -q -f -m uuid=6c62656e-6368-4000-8000-000000000001 "$img" ;;
	*) echo "${0##*/}: fs '$fs' is not supported (accepted: ext4, xfs)" >&2; return 2 ;;
	esac || return 1
}

# guest_append FS DEVICE DISK_MB MONITORS KNOBS MODE STRATEGY [FEATURES]:
# the guest kernel's command line as runners/guest-init reads it, the
# same for a local boot and a LAVA job.  rlbench.features= (empty: none)
# only when FEATURES is given: without it the guest does not check them
# (runners/guest-check.sh).  Memory devices are sized like the disk
# image, whose filesystem the guest copies onto them; null_blk's default
# device is not memory backed.  The mapping_lock monitor boots the kernel
# with mapping_lock.stats=1, its counters on.  no_timer_check: a guest slowed down by a
# loaded host fails the IO-APIC timer check and panics at boot
# ("IO-APIC + timer doesn't work").  Returns 2 for an unknown DEVICE.
guest_append() {
	local fs=$1 device=$2 disk_mb=$3 monitors=$4 knobs=$5 mode=$6 strategy=$7 a
	a="console=ttyS0 panic=-1 no_timer_check rlbench.fs=$fs rlbench.disk=/dev/vda rlbench.device=$device"
	case $device in
	brd) a+=" brd.rd_nr=1 brd.rd_size=$((disk_mb * 1024))" ;;
	null_blk) a+=" null_blk.nr_devices=0" ;;
	virtio-blk) ;;
	*) echo "${0##*/}: device '$device' is not supported (accepted: virtio-blk, brd, null_blk)" >&2; return 2 ;;
	esac
	a+=" rlbench.strategy=$strategy"
	[ $# -lt 8 ] || a+=" rlbench.features=$8"
	# the lock counters count only when asked for at boot (kernels/build)
	[[ " $monitors " != *" mapping_lock "* ]] || a+=" mapping_lock.stats=1"
	echo "$a rlbench.monitors=${monitors// /,} rlbench.knobs=$knobs rlbench.mode=$mode"
}

# window_tag NAME: the tag rlwork gives the window of the point whose
# result is NAME (FNV-1a, 32 bits, of the name; workloads/harness.c), in hex.
window_tag() {
	local s=$1 h=2166136261 i c
	for ((i = 0; i < ${#s}; i++)); do
		printf -v c '%d' "'${s:i:1}"
		h=$(( ((h ^ c) * 16777619) & 0xffffffff ))
	done
	printf '%08x' "$h"
}

# profile_loads: QEMU loads the instruction profiler (PROFILE=insn), or
# exit 2; checked once before a run is made, so that a plugin QEMU
# refuses stops it before anything is built or booted, not as a failed
# boot per point.
profile_loads() {
	local so=$RLBENCH_TOP/runners/plugins/insn-profile.so pdir why
	[ -f "$so" ] || die "PROFILE=insn: runners/plugins/insn-profile.so is not built (make all builds it)"
	pdir=$(mktemp -d)
	why=$(echo quit | qemu-system-x86_64 -M none -display none -monitor stdio -S \
		-plugin "$so,dir=$pdir" 2>&1 >/dev/null) || { rm -rf "$pdir"
		die "PROFILE=insn: QEMU cannot load runners/plugins/insn-profile.so: $(tail -1 <<<"$why") (accepted: the plugin as make all builds it, for $(qemu-system-x86_64 --version | sed -n 1p))"; }
	rm -rf "$pdir"
}

# cost_jobs_default MEM_MB DISK_MB: how many cost guests run at once by
# default: one a host CPU, as many as the available memory holds (a cost
# guest's memory holds its memory device too).
cost_jobs_default() {
	awk -v g="$(($1 + $2 + 512))" -v n="$(nproc)" \
		'/^MemAvailable:/ {j = int($2 / 1024 / g); print (j < 1 ? 1 : j > n ? n : j)}' /proc/meminfo
}

# boot_seconds T0 RUNDIR: a boot's host seconds since T0 ($EPOCHREALTIME),
# what a time budget counts.  A test's stand-in for runners/qemu
# (RLBENCH_QEMU) may say how long its boot took in RUNDIR/.boot-seconds,
# so the budget's arithmetic is checked without the host's load in it.
boot_seconds() {
	if [ -n "${RLBENCH_QEMU:-}" ] && [ -s "$2/.boot-seconds" ]; then
		cat "$2/.boot-seconds"
		rm -f "$2/.boot-seconds"
		return 0
	fi
	awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f", b - a}'
}
