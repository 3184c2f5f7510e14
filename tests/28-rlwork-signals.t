#!/bin/bash
# No signal leaves rlwork's target file behind.  Every signal whose
# default action ends the process (signal(7): Term and Core, real-time
# ones included; SIGKILL aside) is sent to a run whose threads are going:
# SIGINT, SIGTERM and SIGHUP stop it (exit 1, "interrupted by a signal"),
# any other kills it with that signal's own status; the file it created is
# gone either way, and so is every temporary file.  Then the cases that
# reach a signal by themselves: a pipe closed under its stdout (SIGPIPE),
# a signal during the fill, and a run that cannot stop between two ops
# (calib at its largest --loops), which must still end within seconds.
. "$(dirname "$0")/lib/tap.sh"
need_rlwork
scratch_dir
trap 'rm -rf "$dir"' EXIT

# signal(7)'s Term and Core signals, then every real-time one
sigs=(HUP INT QUIT ILL TRAP ABRT BUS FPE USR1 SEGV USR2 PIPE ALRM TERM STKFLT
	XCPU XFSZ VTALRM PROF IO PWR SYS)
rtmin=$(kill -l RTMIN) rtmax=$(kill -l RTMAX)
for ((s = rtmin; s <= rtmax; s++)); do sigs+=("$(kill -l "$s")"); done
plan $(( ${#sigs[@]} + 4 ))

# ntasks PID: its threads (0 once it is gone)
ntasks() {
	local t=("/proc/$1/task/"*)
	[ -e "${t[0]}" ] && echo "${#t[@]}" || echo 0
}

# left: anything under $dir but the run's own logs
left() { find "$dir" -mindepth 1 ! -name out ! -name err | sed "s|^$dir/||" | xargs; }

# Core signals would write a core file: none here, whatever core_pattern.
ulimit -c 0
# Under nohup SIGHUP is ignored from the start, and rlwork leaves it so,
# as nohup asks: the HUP case then checks that it runs on.
hup_ignored=$(( 0x$(awk '/^SigIgn:/ {print $2}' /proc/$$/status) & 1 ))
for sig in "${sigs[@]}"; do
	"$RLWORK" buffered-rw --file "$dir/f" --size 4m --runtime 30 --ramp 0 \
		>"$dir/out" 2>"$dir/err" &
	pid=$!
	# the worker thread runs: handlers are set, the file is filled
	for _ in $(seq 500); do
		[ "$(ntasks "$pid")" -gt 1 ] && break
		sleep 0.01
	done
	kill -s "$sig" "$pid"
	if [ "$sig" = HUP ] && [ "$hup_ignored" = 1 ]; then
		sleep 0.3
		running=$(ntasks "$pid")
		kill -s TERM "$pid"
		wait "$pid" 2>/dev/null
		rc=$?
		is "$((running > 0)):$rc:$(left)" "1:1:" "SIGHUP ignored from the start (nohup): rlwork runs on; SIGTERM stops it, exit 1, the file gone"
		rm -f "$dir/f" "$dir/out" "$dir/err"
		continue
	fi
	wait "$pid" 2>/dev/null
	rc=$?
	case $sig in
	INT|TERM|HUP) want=1 ;;
	*) want=$((128 + $(kill -l "$sig"))) ;;
	esac
	is "$rc:$(left)" "$want:" "SIG$sig while the threads run: exit $want, the target file is gone"
	rm -f "$dir/f" "$dir/out" "$dir/err"
done

# The reader of its stdout exits: the summary's write raises SIGPIPE.
"$RLWORK" buffered-rw --file "$dir/f" --size 16m --runtime 0.3 --ramp 0 | head -n1 >/dev/null
is "${PIPESTATUS[0]}:$(left)" "141:" "stdout piped into head -n1: SIGPIPE ends rlwork, the 16 MiB file is gone"

# A signal during the fill, before any thread: the file goes as well.
"$RLWORK" buffered-rw --file "$dir/f" --size 1g --runtime 5 --ramp 0 \
	>"$dir/out" 2>"$dir/err" &
pid=$!
for _ in $(seq 500); do
	[ "$(stat -c %b "$dir/f" 2>/dev/null || echo 0)" -gt 0 ] && break
	sleep 0.01
done
kill -s USR1 "$pid"
wait "$pid" 2>/dev/null
rc=$?
is "$rc:$(left)" "$(( 128 + $(kill -l USR1) )):" "SIGUSR1 during the fill of 1 GiB: the file is gone"
rm -f "$dir/f" "$dir/out" "$dir/err"

# calib's largest --loops: one op is 2e12 instructions, minutes long.
# SIGTERM and SIGINT must end the run within seconds all the same.
for sig in TERM INT; do
	"$RLWORK" calib --loops 1000000000000 --file "$dir/c" --runtime 60 --ramp 0 \
		--json "$dir/c.json" >"$dir/out" 2>"$dir/err" &
	pid=$!
	for _ in $(seq 500); do
		[ "$(ntasks "$pid")" -gt 1 ] && break
		sleep 0.01
	done
	sleep 0.3
	kill -s "$sig" "$pid"
	start=$SECONDS
	while [ "$(ntasks "$pid")" -gt 0 ] && [ $((SECONDS - start)) -lt 10 ]; do
		sleep 0.05
	done
	took=$((SECONDS - start))
	kill -s KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rc=$?
	res=$(jq -r '.status + ": " + .error' "$dir/c.json" 2>/dev/null)
	rm -f "$dir/c.json"
	is "$rc:$res:$(left)" "1:failed: interrupted by a signal:" \
		"calib --loops 1e12, SIG$sig: ends (in ${took} s), exit 1, a failed result, the file gone"
	rm -f "$dir/c" "$dir/out" "$dir/err"
done
done_testing
