#!/bin/bash
# rlwork dio on the host kernel for about a second, result JSON checked
# field by field against docs/formats.md.
. "$(dirname "$0")/lib/tap.sh"
need_rlwork
command -v jq >/dev/null || { echo "1..0 # skip jq not installed"; exit 0; }
scratch_dir
plan 33

mnt=
# shellcheck disable=SC2317  # run from the EXIT trap
cleanup() {
	if [ -n "$mnt" ]; then umount "$mnt" 2>/dev/null || true; fi
	rm -rf "$dir"
}
trap cleanup EXIT
j=$dir/dio.result.json

run_split "$RLWORK" dio --file "$dir/dio.dat" --size 16m --threads 2 --runtime 1 \
	--ramp 0.2 --json "$j" --variant stock --iteration 3 \
	--env runner=host --env accel=none --env guest_cpus=2 --env ratio=0.5
ok $rc "rlwork dio ran for a second (exit 0)"
[ "$rc" -eq 0 ] || echo "$err" | diag
left=("$dir"/*)
[ ! -e "$dir/dio.dat" ] && [ "${left[*]}" = "$dir/dio.result.json" ]
ok $? "the file it created is gone, no temp file left next to the JSON"

jq_ok "schema, workload, status" "$j" \
	'.schema == "rlbench-result/1" and .workload == "dio" and .status == "ok"'
jq_ok "params: resolved options with JSON types" "$j" \
	'.params | .threads == 2 and .bs == 4096 and .size == 16777216 and
	 .layout == "random" and .rw == "read" and .verify == false'
jq_ok "params leave out runtime, ramp, file, json and bookkeeping" "$j" \
	'.params | [has("runtime", "ramp", "file", "json", "variant",
	 "iteration", "env", "dry-run", "inject-corruption")] | any | not'
jq_ok "iteration, runtime_s (measured), ramp_s" "$j" \
	'.iteration == 3 and .runtime_s > 0.9 and .runtime_s < 5 and .ramp_s == 0.2'
jq_ok "kernel block: variant, release, strategy" "$j" \
	".kernel.variant == \"stock\" and .kernel.release == \"$(uname -r)\" and
	 (.kernel | has(\"strategy\"))"
jq_ok "env block: cpus, mem_mb, fs, started" "$j" \
	".env.cpus == $(nproc) and .env.mem_mb > 0 and .env.fs == \"$(findmnt -n -o FSTYPE -T "$dir" | tail -n 1)\" and
	 (.env.started | test(\"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$\"))"
jq_ok "--env values: strings stay strings, numbers become numbers" "$j" \
	'.env.runner == "host" and .env.accel == "none" and .env.guest_cpus == 2 and .env.ratio == 0.5'
jq_ok "ops: only read (--rw=read runs no write), and it did work" "$j" \
	'[.ops[].name] == ["read"] and .ops[0].count > 100 and
	 .ops[0].ops_per_s > 100'
jq_ok "bytes_per_s is ops_per_s times bs" "$j" \
	'.ops[0] | (.bytes_per_s / .ops_per_s - 4096 | fabs) < 0.01'
jq_ok "ops_per_s is count over runtime_s" "$j" \
	'(.ops[0].count / .runtime_s - .ops[0].ops_per_s | fabs) < 1'
jq_ok "lat_ns has min, mean, max, stddev and the five percentiles" "$j" \
	'.ops[0].lat_ns | (.min > 0 and .min <= .mean and .mean <= .max and
	 .stddev >= 0 and (.percentiles | keys == ["50", "90", "99", "99.9", "99.99"]))'
jq_ok "percentiles are ordered" "$j" \
	'.ops[0].lat_ns.percentiles | .["50"] <= .["90"] and .["90"] <= .["99"] and
	 .["99"] <= .["99.9"] and .["99.9"] <= .["99.99"]'
jq_ok "hist: bits 6, counts add up to the op count" "$j" \
	'.ops[0] | .lat_ns.hist.bits == 6 and ([.lat_ns.hist.counts[]] | add) == .count'
jq_ok "hist: only non-zero buckets, decimal string indices below 3776" "$j" \
	'[.ops[0].lat_ns.hist.counts | to_entries[] | (.value > 0 and
	 (.key | test("^[0-9]+$")) and (.key | tonumber) < 3776)] | all'
# the percentile recomputed from the stored buckets (docs/formats.md)
# shellcheck disable=SC2016  # $s is a jq variable
jq_ok "p50 and p99 recomputed from the buckets match the reported ones" "$j" "$JQ_BUCKET_MID"'
	def pct($p; $c; $total): ([$c | to_entries[] | {k: (.key | tonumber), v: .value}]
		| sort_by(.k)) as $b | ([1, (($p / 100 * $total) | ceil)] | max) as $rank |
		[foreach $b[] as $x (0; . + $x.v; if . >= $rank then $x.k else empty end)]
		| first | mid;
	.ops[0] | .lat_ns.hist.counts as $c | .count as $n |
	pct(50; $c; $n) == .lat_ns.percentiles["50"] and
	pct(99; $c; $n) == .lat_ns.percentiles["99"]'
jq_ok "metrics: declared with unit and direction" "$j" \
	'[.metrics[] | select(.name == "read.ops_per_s")][0] == {"name": "read.ops_per_s", "unit": "ops/s", "higher_is_better": true} and
	 [.metrics[] | select(.name == "read.lat_ns.p99")][0].higher_is_better == false and
	 ([.metrics[].name] | index("read.bytes_per_s") != null) and
	 ([.metrics[].name] | map(startswith("write.")) | any | not)'
jq_ok "counters present, verify disabled" "$j" \
	'.counters.short_ios == 0 and .verify == {"enabled": false, "checked": 0, "errors": 0, "first_error": null}'
grep -q "^rlwork dio: resolved options" <<<"$out" && grep -q "^  read " <<<"$out"
ok $? "stdout has the resolved options and a summary table"

run_split "$RLWORK" dio --file "$dir/dio.dat" --size 16m --threads 2 --runtime 1 \
	--ramp 0.2 --verify --rw rw --layout disjoint --bs 8k --json "$j"
ok $rc "dio --verify --rw=rw --layout=disjoint: exit 0"
jq_ok "... zero verification errors, pages checked, both ops ran" "$j" \
	'.verify.enabled and .verify.errors == 0 and .verify.checked > 100 and
	 .ops[0].count > 0 and .ops[1].count > 0 and .params.verify == true'

# mm writers against faults: every mprotect timed, the mapping random
run_split "$RLWORK" dio --file "$dir/dio.dat" --size 1m --bs 64k --rw write \
	--fault-threads 1 --fault-random --mprotect-threads 1 --verify \
	--runtime 0.5 --ramp 0 --json "$j"
ok $rc "dio --fault-threads 1 --fault-random --mprotect-threads 1: exit 0"
jq_ok "... mprotect timed beside the faults, data verified" "$j" \
	'([.ops[].name] == ["write", "fault", "mprotect"]) and
	 (.ops[2].count > 0 and .ops[2].bytes_per_s == 0) and .ops[1].count > 0 and
	 .params["mprotect-threads"] == 1 and .params["fault-random"] == true and
	 .verify.errors == 0'
# the same with stores (an atomic add of 0): every fault a write fault,
# through ->page_mkwrite; mprotect toggles PROT_EXEC, which a writable
# mapping's stores survive
run_split "$RLWORK" dio --file "$dir/dio.dat" --size 1m --bs 64k --rw write \
	--fault-threads 2 --fault-random --fault-write --mprotect-threads 1 \
	--runtime 0.5 --ramp 0 --json "$j"
ok $rc "dio --fault-threads 2 --fault-write --mprotect-threads 1: exit 0"
jq_ok "... write faults and mprotect timed beside the direct writes" "$j" \
	'([.ops[].name] == ["write", "fault", "mprotect"]) and
	 .ops[1].count > 0 and .ops[2].count > 0 and .ops[0].count > 0 and
	 .params["fault-write"] == true'
# io_uring IOs whose submitter reads a page of each one's range through
# the page cache before reaping it; the IOs' own data still verified
run_split "$RLWORK" dio --file "$dir/dio.dat" --size 1m --bs 16k --rw rw \
	--engine io_uring --iodepth 4 --touch-inflight --verify \
	--runtime 0.5 --ramp 0 --json "$j"
ok $rc "dio --engine io_uring --touch-inflight: exit 0"
jq_ok "... reads and writes done and verified" "$j" \
	'.ops[0].count > 0 and .ops[1].count > 0 and .verify.errors == 0 and
	 .params["touch-inflight"] == true'

# --split-pages on an ext4 of 1 KiB blocks (a loop mount: root only)
if [ "$(id -u)" = 0 ] && command -v mkfs.ext4 >/dev/null &&
   truncate -s 64m "$dir/1k.img" && mkfs.ext4 -q -F -b 1024 "$dir/1k.img" &&
   mkdir "$dir/1k" && mount -o loop "$dir/1k.img" "$dir/1k" 2>/dev/null; then
	mnt=$dir/1k
	run_split "$RLWORK" dio --file "$mnt/f" --size 4m --bs 8k --split-pages \
		--rw rw --verify --runtime 0.5 --ramp 0 --json "$j"
	ok $rc "dio --split-pages --verify on 1 KiB blocks: exit 0"
	ext=$(sed -n 's/^rlwork dio: --split-pages: 1024-byte blocks, \([0-9]*\) extents before, \([0-9]*\) after$/\1 \2/p' <<<"$out")
	# 512 IOs of 8k: each first page's second block moved, two extents more each
	read -r before after <<<"$ext"
	ok "$([ "${before:-0}" -ge 1 ] && [ "${after:-0}" -ge $((before + 2 * 512 - 64)) ]; echo $?)" \
		"... the second block of every IO's first page moved ($ext extents before/after)"
	jq_ok "... and the data read back is what was written" "$j" \
		'.verify.errors == 0 and .verify.checked > 0 and .params["split-pages"] == true'
	umount "$mnt" && mnt=
else
	skip "not root or no loop device"; skip "no loop"; skip "no loop"
fi

# an existing rlwork file is reused and kept; one it made is deleted
run_split "$RLWORK" dio --file "$dir/kept.dat" --size 1m --runtime 0.2 --ramp 0 --keep
run_split "$RLWORK" dio --file "$dir/kept.dat" --size 1m --runtime 0.2 --ramp 0 --rw write
ok "$(( rc != 0 ))" "a file rlwork created (--keep) may be rewritten without --force"
[ -f "$dir/kept.dat" ]
ok $? "... and is not deleted by a run that did not create it"

done_testing
