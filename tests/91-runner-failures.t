#!/bin/bash
# A runner that survives a bad kernel: an injected panic and an injected
# hang become failed points with reasons while the other points complete;
# a KVM attempt that cannot boot falls back to TCG; a killed run resumes
# with only what is missing; the bare runner refuses a formatted device.
. "$(dirname "$0")/lib/tap.sh"
plan 19

tmp=$(mktemp -d)
# shellcheck disable=SC2317  # run from the EXIT trap
cleanup() { [ -n "${loopdev:-}" ] && losetup -d "$loopdev"; rm -rf "$tmp"; }
trap cleanup EXIT

# time mode: the failures of time boots (MODE=auto would run the
# single-role points in cost mode where KVM does not run a guest)
cat >"$tmp/inject.matrix" <<'M'
mode time
iterations 1
runtime 1
ramp 0
timeout 8
mem_mb 512
disk_mb 256
point dio --threads 1 --size 4m
point @panic
point dio --threads 2 --size 4m --rw write --verify
point @hang
point buffered-rw --threads 1 --size 4m --verify
M
export RLBENCH_TEST_HOOKS=1 RLBENCH_HANG_SLACK=10
RLBENCH_TEST_KVM_FAIL=1 run runners/run bench --kernel stock --matrix "$tmp/inject.matrix" --accel auto --name inject
rd=$(echo "$OUT" | sed -n 's/^run: //p' | tail -1)
is "$RC" 1 "a run with failed points exits 1"
st() { jq -r "$2" "$rd/stock/$1-i1.result.json" 2>/dev/null; }
is "$(st p001-dio .status)" ok "the point before the panic passed"
is "$(st p002-@panic .status)" failed "the panicking point failed"
like "$(st p002-@panic .error)" "^panic: .*Kernel panic" "its reason is the panic"
like "$(st p002-@panic .log_excerpt)" "sysrq" "with the console excerpt"
is "$(st p003-dio .status)" ok "the runner rebooted and ran the next point"
is "$(st p004-@hang .status)" failed "the hanging point failed"
like "$(st p004-@hang .error)" "^hang: " "its reason is the hang"
is "$(st p005-buffered-rw .status)" ok "the point after the hang passed"
is "$(find "$rd"/stock -name 'console-boot*.log' ! -name '*fallback*' | wc -l)" 3 "three boots: after the panic and after the hang"
if [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
	ok "$([ -f "$rd"/stock/console-boot1-kvm-fallback.log ]; echo $?)" "the KVM attempt that could not boot was abandoned"
else
	ok 0 "# SKIP /dev/kvm not usable here: TCG chosen without a KVM attempt"
fi
is "$(st p001-dio .env.accel)" tcg "TCG ran and is recorded"

# Resume: kill the runner after its first result, then finish the run.
cat >"$tmp/resume.matrix" <<'M'
mode time
iterations 2
runtime 1
ramp 0
mem_mb 512
disk_mb 256
point dio --threads 1 --size 4m
point dio --threads 2 --size 4m
M
setsid runners/run bench --kernel stock --matrix "$tmp/resume.matrix" --accel tcg --name resume >"$tmp/resume.log" 2>&1 &
pid=$!
rd2=
for _ in $(seq 1 300); do
	sleep 1
	rd2=$(sed -n 's/^run: run directory: //p' "$tmp/resume.log")
	[ -n "$rd2" ] && ls "$rd2"/stock/*.result.json >/dev/null 2>&1 && break
done
kill -TERM -- -"$pid" 2>/dev/null; wait "$pid" 2>/dev/null
first=$(find "$rd2"/stock -name '*.result.json' 2>/dev/null | sort | sed -n 1p)
ok "$([ -n "$first" ]; echo $?)" "the killed run kept its completed result"
nbefore=$(find "$rd2"/stock -name '*.result.json' 2>/dev/null | wc -l)
ok "$([ "$nbefore" -lt 4 ]; echo $?)" "the run was interrupted before the end ($nbefore of 4)"
sum=$(sha256sum "$first" | cut -c1-64)
run runners/run bench --resume "$rd2"
is "$RC" 0 "RESUME finishes the run"
is "$(find "$rd2"/stock -name '*.result.json' | wc -l)" 4 "every point has its result"
is "$(sha256sum "$first" | cut -c1-64)" "$sum" "the result recorded before the kill is untouched"

# Bare metal: a device that holds a filesystem is refused without FORCE.
truncate -s 64M "$tmp/dev.img"
mkfs.ext4 -q "$tmp/dev.img"
if loopdev=$(losetup -f --show "$tmp/dev.img" 2>/dev/null); then
	run runners/run bench --kernel host --matrix smoke --scratch "$loopdev"
	like "$RC:$OUT" "^2:.*holds data \(TYPE=\"?ext4\"?\); set FORCE=1" "a formatted device is refused"
	is "$(blkid -p -o value -s UUID "$loopdev")" "$(blkid -p -o value -s UUID "$tmp/dev.img")" "and left as it was"
else
	ok 0 "# SKIP no loop devices here"
	ok 0 "# SKIP no loop devices here"
fi
done_testing
