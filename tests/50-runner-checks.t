#!/bin/bash
# The runner's input checks and its console classifier, without booting.
. "$(dirname "$0")/lib/tap.sh"
. runners/lib.sh
plan 25

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# classify_log must catch each kind of failure a broken kernel prints, and
# name the specific one (a lockdep report is also a WARNING line).
printf '[ 1.0] ok\n[ 2.0] Kernel panic - not syncing: sysrq triggered crash\n' >"$tmp/panic"
printf '[ 1.0] WARNING: possible circular locking dependency detected\n' >"$tmp/lockdep"
printf '[ 1.0] INFO: task rlwork:123 blocked for more than 30 seconds.\n' >"$tmp/hung"
printf '[ 1.0] WARNING: CPU: 1 PID: 7 at mm/filemap.c:100 foo+0x1/0x2\n' >"$tmp/warn"
printf '[ 1.0] Oops: 0000 [#1] SMP\n' >"$tmp/oops"
printf '[ 1.0] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:\n' >"$tmp/rcu"
printf '[ 1.0] EXT4-fs (vda): mounted filesystem\nrlbench: end p001-dio 1 rc=0\n' >"$tmp/clean"
for k in panic lockdep hung_task:hung WARN:warn oops rcu_stall:rcu; do
	want=${k%%:*} f=${k##*:}
	got=$(classify_log "$tmp/$f" | cut -f1)
	is "$got" "$want" "classify_log names a $want"
done
is "$(classify_log "$tmp/clean")" "" "classify_log is silent on a clean log"

# DEBUG=kcsan: a KCSAN report fails a point when it names a lock's
# function, first or second; one elsewhere in the kernel does not, nor is
# it taken as a plain BUG; a real BUG beside it still is.
other='[ 1.0] BUG: KCSAN: data-race in ext4_da_write_end / zap_page_range_single'
printf '%s\n[ 2.0] BUG: KCSAN: data-race in range_list_unlock / range_list_read_lock\n' "$other" >"$tmp/kcsan"
printf '%s\n[ 2.0] BUG: KCSAN: data-race in generic_fillattr / filemap_invalidate_lock_shared\n' "$other" >"$tmp/kcsan2"
printf '%s\n[ 2.0] ok\n' "$other" >"$tmp/kcsan-other"
printf '%s\n[ 2.0] BUG: unable to handle page fault for address: 0\n' "$other" >"$tmp/kcsan-bug"
is "$(classify_log "$tmp/kcsan")" $'kcsan\t[ 2.0] BUG: KCSAN: data-race in range_list_unlock / range_list_read_lock' \
	"a KCSAN report in a range lock's function is a kcsan failure, with its line"
is "$(classify_log "$tmp/kcsan2" | cut -f1)" kcsan "so is one whose second function is the invalidate lock's"
is "$(classify_log "$tmp/kcsan-other")" "" "a KCSAN report elsewhere in the kernel is not the point's failure"
is "$(classify_log "$tmp/kcsan-bug")" $'BUG\t[ 2.0] BUG: unable to handle page fault for address: 0' \
	"a BUG beside it still is, named by its own line"

# DEBUG is 0, 1 or kcsan: another value stops make before anything runs
run make -s bench KERNEL=listlock DEBUG=yes
like "$RC:$OUT" "^2:.*DEBUG='yes' is not one of 0, 1, kcsan" "make bench DEBUG=yes: exit 2, the accepted values named"
run runners/run kernels --kernel listlock --kcsan
like "$RC:$OUT" "^2:.*--kcsan is a debug kernel's \(DEBUG=kcsan\): accepted with --debug only" \
	"runners/run --kcsan without --debug: exit 2"

# Bad matrices are refused with file, line and reason, before any boot.
make -s -C workloads >/dev/null 2>&1
printf 'iterations 3\nruntime ten\npoint dio\n' >"$tmp/m1.matrix"
run runners/matrix "$tmp/m1.matrix"
is "$RC" 2 "non-numeric runtime exits 2"
like "$OUT" "m1.matrix:2: runtime needs a whole number" "names file, line and reason"
printf 'point dio\nbogus 1\n' >"$tmp/m2.matrix"
run runners/matrix "$tmp/m2.matrix"
like "$OUT" "m2.matrix:2: unknown setting 'bogus'" "unknown setting names its line"
printf 'runtime 1\npoint dio --file /etc/passwd\n' >"$tmp/m3.matrix"
run runners/matrix "$tmp/m3.matrix"
like "$OUT" "m3.matrix:2: '--file' is set by the runner" "runner-owned options are refused"
printf 'runtime 1\n\npoint no-such-workload\n' >"$tmp/m4.matrix"
run runners/matrix "$tmp/m4.matrix"
like "$RC:$OUT" "^2:.*m4.matrix:3: point 'no-such-workload" "rlwork's own check rejects an unknown workload with the line"
printf 'fs btrfs\npoint dio\n' >"$tmp/m5.matrix"
run runners/matrix "$tmp/m5.matrix"
like "$RC:$OUT" "^2:.*m5.matrix:1: fs 'btrfs' is not supported \\(accepted: ext4, xfs\\)" "an unsupported filesystem is refused"
printf 'device nvme\npoint dio\n' >"$tmp/m6.matrix"
run runners/matrix "$tmp/m6.matrix"
like "$RC:$OUT" "^2:.*m6.matrix:1: device 'nvme' is not supported \\(accepted: virtio-blk, brd, null_blk\\)" "an unsupported device is refused"
printf 'sysfs /etc/shadow 1\npoint dio\n' >"$tmp/m7.matrix"
run runners/matrix "$tmp/m7.matrix"
like "$RC:$OUT" "^2:.*m7.matrix:1: sysfs takes a path under /sys" "a knob outside /sys is refused"
printf 'sysfs /sys/module/ext4/parameters/x 0\npoint dio\n' >"$tmp/m8.matrix"
is "$(runners/matrix "$tmp/m8.matrix" | grep '^set knobs')" "set knobs /sys/module/ext4/parameters/x:0" "a sysfs knob is passed on with its absolute path"

for m in configs/*.matrix; do
	runners/matrix "$m" >/dev/null 2>"$tmp/err"
	[ -s "$tmp/err" ] && cat "$tmp/err" >&2
done
run bash -c 'for m in configs/*.matrix; do runners/matrix "$m" >/dev/null || exit 1; done'
is "$RC" 0 "every committed matrix parses"

run runners/run bench --kernel no-such-kernel --matrix smoke
like "$RC:$OUT" "^2:.*unknown KERNEL='no-such-kernel'; valid: .*stock" "unknown KERNEL lists the valid ones"
run runners/run bench --kernel stock --matrix dio-serial
like "$RC:$OUT" "^2:.*dio-serial.matrix runs only on the variants stock\+shared-alloc-dio rangelock\+shared-alloc-dio rwsem-range\+shared-alloc-dio; KERNEL='stock'" "a matrix refuses a variant without the feature it lists"

done_testing
