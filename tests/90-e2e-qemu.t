#!/bin/bash
# End to end, as a user runs it: build the stock kernel (ccache keeps the
# rerun cheap), then `make bench KERNEL=stock MATRIX=smoke` exactly as the
# README writes it (KVM when it works, TCG otherwise), and check what comes
# back.
. "$(dirname "$0")/lib/tap.sh"
plan 20

run runners/run kernels --kernel stock
is "$RC" 0 "stock kernel builds"
t0=$SECONDS
run kernels/build stock
like "$OUT" "stock: up to date" "a second build with nothing changed is a no-op"
ok "$([ $((SECONDS - t0)) -lt 30 ]; echo $?)" "the no-op build does not run kbuild ($((SECONDS - t0)) s)"

run make --no-print-directory bench KERNEL=stock MATRIX=smoke
echo "$OUT" | tail -20 | sed 's/^/# /'
run_dir=$(echo "$OUT" | sed -n 's/^run: \(results\/\)/\1/p' | tail -1)
like "$run_dir" "^results/[0-9]{8}-[0-9]{6}-smoke-stock$" "make bench prints the run directory last"
is "$RC" 0 "every smoke point passed"

# MODE=auto: one result per point and mode it ran in (both where KVM runs
# a guest, else cost or time; meta.json's auto.points)
npoints=$(jq '[.auto.points[] | if . == "both" then 2 else 1 end] | add' "$run_dir/meta.json")
results=("$run_dir"/stock/*.result.json)
is "${#results[@]}" "$npoints" "one result per smoke point and mode"

bad=$(jq -r 'select(.schema != "rlbench-result/1" or .status != "ok") | input_filename' "${results[@]}")
is "$bad" "" "every result is an ok rlbench-result/1 document"
built=$(cat "${RLBENCH_CACHE:-$HOME/.cache/rlbench}/build/stock/include/config/kernel.release")
is "$(jq -r '.kernel.release' "${results[0]}")" "$built" "results name the release the guest booted"
like "$(jq -r '.kernel.release' "${results[0]}")" "^6\.12\.[0-9]+-rl-stock$" "the release is the stock variant's"
# a time boot's accelerator is the variant's (cost boots always run TCG)
timed=$(find "$run_dir"/stock -name '*.result.json' ! -name '*-cost-i*' | sort | head -1)
like "$(jq -r '.env.accel' "${timed:-${results[0]}}")" "^(kvm|tcg)$" "the accelerator that ran is recorded"
is "$(jq -r '.variants[0].accel' "$run_dir/meta.json")" "$(jq -r '.env.accel' "${timed:-${results[0]}}")" "meta.json records the same accelerator"
verr=$(jq -s 'map(.verify.errors) | add' "${results[@]}")
is "$verr" 0 "the oracle found no data errors on stock"
fscks=$(cat "$run_dir"/stock/fsck-boot*.txt 2>/dev/null | grep -c 'e2fsck exit: ')
clean=$(cat "$run_dir"/stock/fsck-boot*.txt 2>/dev/null | grep -c 'e2fsck exit: 0$')
ok "$([ "$fscks" -ge 1 ] && [ "$fscks" = "$clean" ]; echo $?)" "the disk image is clean after every boot ($clean/$fscks)"
ok "$([ -s "$run_dir/report.txt" ] && ls "$run_dir"/*.png >/dev/null 2>&1; echo $?)" "the report and a chart were written"

# make bench RESUME= of a finished run boots nothing and reports again.
nres=$(find "$run_dir" -name '*.result.json' | wc -l)
run make --no-print-directory bench RESUME="$run_dir"
is "$RC" 0 "make bench RESUME= of a finished run succeeds"
ok "$(! grep -q '\[boot [0-9]' <<<"$OUT" && [ "$(find "$run_dir" -name '*.result.json' | wc -l)" = "$nres" ] &&
	[ -s "$run_dir/report.txt" ]; echo $?)" "and boots nothing: the results are as they were"

# make rerun: the same matrix and kernels into a new directory that names
# the run it repeats.
run make --no-print-directory rerun RUN="$run_dir"
rerun_dir=$(echo "$OUT" | sed -n 's/^run: \(results\/\)/\1/p' | tail -1)
is "$RC" 0 "the rerun passed"
ok "$([ -n "$rerun_dir" ] && [ "$rerun_dir" != "$run_dir" ] && cmp -s "$run_dir/matrix" "$rerun_dir/matrix"; echo $?)" "into a new directory, with the same matrix"
is "$(jq -r '.rerun_of + " " + .matrix' "$rerun_dir/meta.json")" "$run_dir smoke.matrix" "meta.json names the run it repeats and its matrix"
is "$(find "$rerun_dir"/stock -name '*.result.json' | wc -l)" "${#results[@]}" "with as many results"

done_testing
