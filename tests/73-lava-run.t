#!/bin/bash
# A real LAVA job on this machine (make test-lava): the smoke matrix on the
# stock kernel through lava-run with configs/lava/qemu-x86_64.yaml (TCG),
# collected into a run directory checked as tests/90 checks the QEMU
# runner's, then a job whose kernel panics in its second point.  Boots a
# kernel, so `make test` skips it unless RLBENCH_LAVA=1.
. "$(dirname "$0")/lib/tap.sh"
[ "${RLBENCH_LAVA:-0}" = 1 ] || { echo "1..0 # skip boots a kernel under lava-run: make test-lava"; exit 0; }
command -v lava-run >/dev/null || bail_out "lava-run not installed (scripts/setup lava)"
plan 18

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# (RLBENCH_KBUILD, as runners/lava reads it: a build directory already made)
run "${RLBENCH_KBUILD:-kernels/build}" stock
[ "$RC" = 0 ] || bail_out "the stock kernel does not build: $OUT"
kdir=$(tail -1 <<<"$OUT")

run runners/lava jobs --kernel stock --matrix smoke --baseline none --iterations 1 --out "$tmp/jobs"
is "$RC" 0 "a LAVA job for the smoke matrix on stock"
job=$(tail -1 <<<"$OUT")
run runners/lava run-local --out "$tmp/local" "$job"
is "$RC" 0 "lava-run ran it"
jdir=$(tail -1 <<<"$OUT")
jq_ok "the job completed" "$jdir/job.json" '.lava_run_exit == 0'
run runners/lava collect "$jdir"
echo "$OUT" | tail -5 | diag
run_dir=$(echo "$OUT" | sed -n 's/^run: //p' | tail -1)
like "$run_dir" "^results/[0-9]{8}-[0-9]{6}-smoke-stock-lava$" "collect prints the run directory last"
is "$RC" 0 "every smoke point passed"

npoints=$(runners/matrix configs/smoke.matrix | grep -c '^point ')
results=("$run_dir"/stock/*.result.json)
is "${#results[@]}" "$npoints" "one result per smoke point"
bad=$(jq -r 'select(.schema != "rlbench-result/1" or .status != "ok") | input_filename' "${results[@]}")
is "$bad" "" "every result is an ok rlbench-result/1 document"
is "$(jq -r '.kernel.release' "${results[0]}")" "$(cat "$kdir/include/config/kernel.release")" "results name the release the guest booted"
like "$(jq -r '.kernel.release' "${results[0]}")" "^6\.12\.[0-9]+-rl-stock$" "the release is the stock variant's"
is "$(jq -r '[.env.accel, .env.runner] | join(" ")' "${results[0]}")" "tcg lava" "the accelerator and the runner are recorded"
is "$(jq -r '.variants[0].accel' "$run_dir/meta.json")" tcg "meta.json records the same accelerator"
mem=$(runners/matrix configs/smoke.matrix | awk '$2 == "mem_mb" {print $3}')
ok "$(jq -e --argjson m "$mem" '.env.mem_mb <= $m and .env.mem_mb > $m * 0.8' "${results[0]}" >/dev/null; echo $?)" \
	"the guest has the matrix's memory ($mem MiB; the job's context sets the device's -m)"
is "$(jq -s 'map(.verify.errors) | add' "${results[@]}")" 0 "the oracle found no data errors on stock"
jq_ok "meta.json names the LAVA job, device and worker" "$run_dir/meta.json" \
	'.runner == "lava" and (.lava.jobs[0].id | startswith("local-")) and .lava.jobs[0].device == "rlbench-qemu-x86_64" and .lava.jobs[0].health == "Complete"'
run make --no-print-directory report RUN="$run_dir"
ok "$([ "$RC" = 0 ] && [ -s "$run_dir/report.txt" ] && ls "$run_dir"/*.png >/dev/null 2>&1; echo $?)" "make report reads it: report and charts written"

# a kernel that panics: the point fails with the panic, the rest of the
# job's plan as not run
cat >"$tmp/inject.matrix" <<'M'
iterations 1
runtime 1
ramp 0
timeout 8
mem_mb 512
disk_mb 256
point dio --threads 1 --size 4m
point @panic
point buffered-rw --threads 1 --size 4m --verify
M
RLBENCH_TEST_HOOKS=1 run runners/lava jobs --kernel stock --matrix "$tmp/inject.matrix" --baseline none --out "$tmp/jobs2"
run runners/lava run-local --out "$tmp/local2" "$(tail -1 <<<"$OUT")"
run runners/lava collect "$(tail -1 <<<"$OUT")"
rd=$(echo "$OUT" | sed -n 's/^run: //p' | tail -1)
st() { jq -r ".$2" "$rd/stock/$1-i1.result.json"; }
is "$RC:$(st p001-dio status)" "1:ok" "collect exits 1; the point before the panic passed"
like "$(st p002-@panic status) $(st p002-@panic error)" "^failed panic: .*Kernel panic - not syncing" "the panicking point failed with the panic"
like "$(st p003-buffered-rw status) $(st p003-buffered-rw error)" "^failed lava: not run: LAVA job .* ended before the guest finished: Incomplete" \
	"the point after it fails as not run, with the job's health"
[ -n "$rd" ] && rm -rf "$rd"
done_testing
