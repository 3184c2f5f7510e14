#!/bin/bash
# rlwork --dry-run --json: the point document (docs/formats.md), whose
# params are the ones a real run of the same command line reports.
. "$(dirname "$0")/lib/tap.sh"
need_rlwork
command -v jq >/dev/null || { echo "1..0 # skip jq not installed"; exit 0; }
scratch_dir
plan 15

trap 'rm -rf "$dir"' EXIT

run_split "$RLWORK" dio --threads 2 --dry-run --json -
ok $rc "dio --threads 2 --dry-run --json -: exit 0"
jq -e . <<<"$out" >/dev/null 2>&1
ok $? "stdout is one JSON document and nothing else"
[ "$(jq -c '[.schema, .workload, (keys | sort)]' <<<"$out" 2>/dev/null)" = \
  '["rlbench-point/1","dio",["params","schema","workload"]]' ]
ok $? "schema rlbench-point/1, workload, params and no other key"
[ "$(jq -c '.params | [.threads, .rw, .bs, has("dry-run"), has("json")]' <<<"$out" 2>/dev/null)" = \
  '[2,"read",4096,false,false]' ]
ok $? "params: the resolved options, without the bookkeeping ones"
grep -q "^rlwork dio: resolved options" <<<"$err" && grep -q "^  threads  *2$" <<<"$err"
ok $? "the resolved-options block goes to stderr"

# The same command lines run for real: the same params, for every workload
# (those no case names with their defaults).
cases=(
	"dio --threads 2 --rw rw --rwmix 70 --layout disjoint --bs 8k --engine io_uring --iodepth 4"
	"mmap-punch --punch-len 16k --refill-threads 0 --overlap interleaved"
	"truncate-storm --roles fault,dio --min-size 4m --truncate-threads 2"
	"buffered-rw --rw write --cache cold --pattern seq --layout shared"
	"readahead --mode willneed --window 256k --threads 2"
)
nwl=0
for w in $("$RLWORK" --list); do
	nwl=$((nwl + 1))
	printf '%s\n' "${cases[@]}" | grep -qE "^$w( |$)" || cases+=("$w")
done
bad=""
for c in "${cases[@]}"; do
	common=(--file "$dir/w.dat" --size 8m --runtime 0.2 --ramp 0
		--variant stock --iteration 2 --env runner=host)
	# shellcheck disable=SC2086
	run_split "$RLWORK" $c "${common[@]}" --json "$dir/real.json"
	# shellcheck disable=SC2086
	"$RLWORK" $c "${common[@]}" --dry-run --json "$dir/point.json" 2>/dev/null
	if [ "$rc" -ne 0 ] || ! jq -e --slurpfile p "$dir/point.json" \
	     '.params == $p[0].params and .workload == $p[0].workload' \
	     "$dir/real.json" >/dev/null; then
		bad+=" ${c%% *}"
		echo "$c: rc=$rc $err" | diag
	fi
done
ok "$([ -z "$bad" ] && [ "$nwl" -ge 5 ]; echo $?)" "dry-run params equal the real run's params, all $nwl workloads${bad:+ (differ:$bad)}"

rm -f "$dir"/*
run_split "$RLWORK" mmap-punch --file "$dir/none.dat" --dry-run --json "$dir/p.json"
ok $rc "--dry-run --json PATH: exit 0"
[ "$(ls "$dir")" = p.json ]
ok $? "... writes PATH and no other file (no target, no temp file)"
[ -z "$out" ] && grep -q "resolved options" <<<"$err"
ok $? "... and prints the options to stderr, nothing to stdout"
jq -e '.schema == "rlbench-point/1" and .workload == "mmap-punch" and
	.params["refill-threads"] == 1' "$dir/p.json" >/dev/null
ok $? "... PATH holds the point document"

run_split "$RLWORK" dio --pin --env runner=qemu --variant x --iteration 7 --seed 3 \
	--dry-run --json -
a=$(jq -c .params <<<"$out")
run_split "$RLWORK" dio --seed 3 --dry-run --json -
[ -n "$a" ] && [ "$a" = "$(jq -c .params <<<"$out")" ]
ok $? "--pin, --env, --variant and --iteration are not part of params"

run_split "$RLWORK" dio --dry-run
grep -q "^rlwork dio: resolved options" <<<"$out" && ! grep -q "schema" <<<"$out"
ok "$(( rc != 0 || $? != 0 ))" "--dry-run without --json: options on stdout, no document"

run_split "$RLWORK" dio --threads 0 --dry-run --json -
[ "$rc" -eq 2 ] && [ -z "$out" ] && grep -q -- "--threads: 0 is out of range" <<<"$err"
ok $? "bad options with --dry-run --json -: exit 2, nothing on stdout"
run_split "$RLWORK" dio --dry-run --json "$dir/missing/p.json"
ok "$(( rc != 2 ))" "--json into a missing directory: exit 2"
mkdir "$dir/adir"
run_split "$RLWORK" dio --dry-run --json "$dir/adir"
[ "$rc" -eq 2 ] && [ -d "$dir/adir" ] &&
	grep -q "adir' is a directory, which rlwork never replaces" <<<"$err"
ok $? "PATH that is a directory: refused with exit 2, says so"

done_testing
