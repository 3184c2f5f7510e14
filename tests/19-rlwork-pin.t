#!/bin/bash
# rlwork --pin: worker thread i runs on the i-th CPU the process was allowed
# at start-up, round-robin; env.pinned says whether it did. Placement is
# read from /proc, never inferred from timings.
. "$(dirname "$0")/lib/tap.sh"
need_rlwork
command -v jq >/dev/null || { echo "1..0 # skip jq not installed"; exit 0; }
scratch_dir
plan 7

pid=""
# shellcheck disable=SC2317  # run from the EXIT trap
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
j=$dir/r.json
short=(--file "$dir/w.dat" --size 8m --runtime 0.3 --ramp 0)

run_split "$RLWORK" dio --threads 2 --pin "${short[@]}" --json "$j"
ok $rc "dio --threads 2 --pin: exit 0"
[ "$rc" -eq 0 ] || echo "$err" | diag
jq -e '.status == "ok" and .env.pinned == true and (.params | has("pin") | not)
	and .ops[0].count > 0' "$j" >/dev/null
ok $? "... env.pinned is true, params has no pin"
run_split "$RLWORK" dio --threads 2 "${short[@]}" --json "$j"
jq -e '.env.pinned == false' "$j" >/dev/null
ok "$(( rc != 0 || $? != 0 ))" "without --pin env.pinned is false"

# more threads than allowed CPUs: they share the one CPU
run_split taskset -c 0 "$RLWORK" dio --threads 3 --pin "${short[@]}" --json "$j"
jq -e '.env.pinned and .ops[0].count > 0' "$j" >/dev/null
ok "$(( rc != 0 || $? != 0 ))" "--pin with 3 threads and one allowed CPU runs"

# Cpus_allowed_list of each worker thread of a running rlwork, by thread id
# (threads are created in worker order), the main thread left out.
worker_cpus() {
	local t n=0 tasks
	for _ in $(seq 100); do
		tasks=("/proc/$pid/task"/*)
		n=${#tasks[@]}
		[ "$n" -gt "$1" ] && break
		sleep 0.05
	done
	for t in $(cd "/proc/$pid/task" && printf '%s\n' * | sort -n); do
		[ "$t" = "$pid" ] && continue
		sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$pid/task/$t/status"
	done | paste -sd' '
}

if [ "$(nproc)" -ge 2 ] && taskset -c 0,1 true 2>/dev/null; then
	# mmap-punch: 1 fault, 1 punch and 1 refill thread on CPUs {0,1}
	taskset -c 0,1 "$RLWORK" mmap-punch --pin "${short[@]}" --runtime 5 \
		>/dev/null 2>&1 &
	pid=$!
	got=$(worker_cpus 3)
	main=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$pid/status")
	kill "$pid"; wait "$pid" 2>/dev/null; pid=""
	[ "$got" = "0 1 0" ]; ok $? "3 pinned threads on allowed CPUs 0,1: round-robin 0 1 0"
	[ "$got" = "0 1 0" ] || echo "got: $got" | diag
	[ "$main" = "0-1" ]; ok $? "... and the main thread is left unpinned"
	taskset -c 0,1 "$RLWORK" mmap-punch "${short[@]}" --runtime 5 \
		>/dev/null 2>&1 &
	pid=$!
	got=$(worker_cpus 3)
	kill "$pid"; wait "$pid" 2>/dev/null; pid=""
	[ "$got" = "0-1 0-1 0-1" ]; ok $? "without --pin every thread may use both CPUs"
	[ "$got" = "0-1 0-1 0-1" ] || echo "got: $got" | diag
else
	skip "needs CPUs 0 and 1"; skip "needs CPUs 0 and 1"
	skip "needs CPUs 0 and 1"
fi

done_testing
