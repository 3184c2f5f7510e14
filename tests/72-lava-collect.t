#!/bin/bash
# runners/lava collect, without a lab: a job log written here as lava-run
# writes it (the guest's console as "target" lines) becomes a run
# directory: the result the console carried comes back whole, a
# point whose kernel panicked fails with the panic, a point the job never
# reached fails as not run with the job's reason, a result garbled on the
# console fails as garbled; meta.json names the LAVA job, device and
# worker, and rlstat reads the run.  Bad JOB arguments exit 2.
. "$(dirname "$0")/lib/tap.sh"
make -s -C workloads >/dev/null || bail_out "rlwork does not build"
make -s -C analysis >/dev/null || bail_out "rlstat does not build"
plan 16

tmp=$(mktemp -d)
runs=()
# shellcheck disable=SC2317  # run from the EXIT trap
cleanup() { rm -rf "$tmp" ${runs[@]+"${runs[@]}"}; }
trap cleanup EXIT
mkdir -p "$tmp/k/stock/arch/x86/boot" "$tmp/k/stock/include/config"
echo bz >"$tmp/k/stock/arch/x86/boot/bzImage"
echo "6.12.0-rl-stock" >"$tmp/k/stock/include/config/kernel.release"
echo "CONFIG_X=y" >"$tmp/k/stock/.config"
# shellcheck disable=SC2016  # $1 is the stand-in script's argument
printf '#!/bin/sh\necho "%s/k/$1"\n' "$tmp" >"$tmp/kbuild"
chmod +x "$tmp/kbuild"
cat >"$tmp/t.matrix" <<'M'
iterations 1
runtime 1
ramp 0
point dio --size 1m
point buffered-rw --size 1m
point readahead --size 1m
M
RLBENCH_KBUILD=$tmp/kbuild run runners/lava jobs --kernel stock --baseline none --matrix "$tmp/t.matrix" --out "$tmp/jobs"
is "$RC" 0 "a job for the three points"
job=$(echo "$OUT" | tail -1)
mapfile -t plan < <(sed -n 's/^# rlbench-plan: //p' "$job")

# p001's result, made by rlwork as the guest would
read -r _ _ _ args <<<"${plan[0]}"
eval "workloads/rlwork $args --file $tmp/w.dat --json $tmp/p001-dio-i1.result.json --iteration 1" >"$tmp/p001-dio-i1.out" 2>&1 ||
	bail_out "rlwork did not run the point"

# console LINE...: lava-run's log entries for the guest's console lines
console() { local l; for l; do jq -nc --arg m "$l" '{dt: "2026-01-01T00:00:00", lvl: "target", msg: $m}'; done; }
send() {	# FILE [GARBLE]: the overlay's lines for one file
	local l n=0
	while read -r l; do
		n=$((n + 1))
		if [ "${2:-}" = garble ] && [ $n = 3 ]; then	# one character changed
			if [ "${l:0:1}" = A ]; then l=B${l:1}; else l=A${l:1}; fi
		fi
		console "rlbench: data ${1##*/} $l"
	done < <(gzip -c "$1" | base64)
	console "rlbench: file ${1##*/} $(wc -c <"$1") $(sha256sum <"$1" | cut -c1-64)"
}
mkjob() {	# DIR GARBLE: a run-local directory whose guest panics in p002
	mkdir -p "$1"
	cp "$job" "$1/job.yaml"
	{
		console "Linux version 6.12.0-rl-stock" "rlbench: guest up release=6.12.0-rl-stock strategy=stock cpus=2"
		console "rlbench: start p001-dio 1"
		send "$tmp/p001-dio-i1.result.json" "$2"
		send "$tmp/p001-dio-i1.out"
		console "rlbench: end p001-dio 1 rc=0" "rlbench: start p002-buffered-rw 1"
		console "[   12.7] sysrq: Trigger a crash" "[   12.7] Kernel panic - not syncing: sysrq triggered crash"
		jq -nc '{dt: "x", lvl: "results", msg: {case: "job", definition: "lava", result: "fail", error_msg: "Connection closed"}}'
	} >"$1/job.log"
	echo '{"id": "local-1", "device": "rlbench-qemu-x86_64", "worker": "w1", "lava_run_exit": 0}' >"$1/job.json"
}
mkjob "$tmp/j1" ""
run runners/lava collect "$tmp/j1"
rd=$(echo "$OUT" | sed -n 's/^run: //p' | tail -1)
[ -n "$rd" ] && runs+=("$rd")
is "$RC" 1 "a run with failed points exits 1"
like "$rd" "^results/[0-9]{8}-[0-9]{6}-t-stock-lava$" "the run directory is printed last"
is "$(jq -cS . "$rd/stock/p001-dio-i1.result.json")" "$(jq -cS . "$tmp/p001-dio-i1.result.json")" \
	"the result the console carried comes back whole"
st() { jq -r ".$2" "$rd/stock/$1-i1.result.json"; }
is "$(st p002-buffered-rw status)" failed "the panicking point failed"
like "$(st p002-buffered-rw error)" "^panic: .*Kernel panic - not syncing" "with the panic as its reason"
like "$(st p003-readahead error)" "^lava: not run: LAVA job local-1 ended before the guest finished: Incomplete: Connection closed" \
	"the point the job never reached fails as not run, with the job's reason"
is "$(st p003-readahead params.size)" 1048576 "a failed point keeps its params (groups with its passing iterations)"
jq_ok "meta.json names the LAVA job, its device and worker" "$rd/meta.json" \
	'.runner == "lava" and .lava.jobs[0].id == "local-1" and .lava.jobs[0].device == "rlbench-qemu-x86_64"
	 and .lava.jobs[0].worker == "w1" and .variants[0].release == "6.12.0-rl-stock"'
ok "$(! grep -q '^rlbench: data' "$rd/stock/console-boot1.log"; echo $?)" "the kept console has the kernel's lines, not the transfer's"
run analysis/rlstat report "$rd" --baseline stock
ok "$([ "$RC" = 0 ] && grep -q 'FAILED' "$rd/report.txt"; echo $?)" "rlstat reports the run, failed points marked"

mkjob "$tmp/j2" garble
run runners/lava collect "$tmp/j2"
rd=$(echo "$OUT" | sed -n 's/^run: //p' | tail -1)
[ -n "$rd" ] && runs+=("$rd")
like "$(st p001-dio error)" "^lava: the result came back garbled in the job log" "a result changed on the console fails as garbled"

run runners/lava collect "$tmp/nosuch"
like "$RC:$OUT" "^2:.*JOB '$tmp/nosuch' is neither a job id" "a JOB that is neither an id nor a directory exits 2"
mkdir -p "$tmp/empty"
run runners/lava collect "$tmp/empty"
like "$RC:$OUT" "^2:.*is not a run-local directory" "a directory without a job exits 2"
# runners/lava-yaml, the YAML and log reading behind collect: bad input
# is exit 2 naming it
run runners/lava-yaml metadata "$tmp/no-such-job.yaml"
like "$RC:$OUT" "^2:lava-yaml: $tmp/no-such-job.yaml: " "lava-yaml names a job file it cannot read, exit 2"
run runners/lava-yaml health "$tmp/no-such.log" soon
like "$RC:$OUT" "^2:lava-yaml: usage: " "and refuses arguments it does not take, exit 2"
done_testing
