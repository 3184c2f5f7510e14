#!/bin/bash
# Prove the oracle: corrupt a page behind the workload's back through a
# second file descriptor (stale data after a punch, another page's tag, a
# bad checksum, a lost write) and check every workload's oracle reports it:
# exit 1, the error with offset, expected and found, in the JSON too.
# The damage is done after the threads stop, before the final pass, so the
# outcome does not depend on timing.
. "$(dirname "$0")/lib/tap.sh"
need_rlwork
command -v jq >/dev/null || { echo "1..0 # skip jq not installed"; exit 0; }
scratch_dir

cases=(
	"stale|dio --rw=rw|found stale"
	"tag|dio|found file [0-9]* page [0-9]*"
	"stale|dio --engine=io_uring --iodepth 4 --rw=rw|found stale"
	"checksum|buffered-rw --rw=rw|checksum [0-9a-f]* of the data, found [0-9a-f]*"
	"lost|buffered-rw|found zeros"
	"stale|mmap-punch --threads 2|found stale"
	"lost|mmap-punch|found zeros"
	"checksum|truncate-storm|checksum [0-9a-f]* of the data, found [0-9a-f]*"
	"stale|truncate-storm|found stale"
	"tag|readahead|found file [0-9]* page [0-9]*"
)
plan $(( ${#cases[@]} * 3 ))

trap 'rm -rf "$dir"' EXIT
j=$dir/r.json

for c in "${cases[@]}"; do
	IFS='|' read -r mode cmd pat <<<"$c"
	# shellcheck disable=SC2086
	run_split "$RLWORK" $cmd --file "$dir/w.dat" --size 8m --runtime 0.5 --ramp 0 \
		--verify --inject-corruption=$mode --json "$j"
	ok "$(( rc != 1 ))" "$cmd, $mode corruption: exit 1"
	grep -q "verify error: offset [0-9]* (page [0-9]*, .*): expected .*$pat" <<<"$err"
	ok $? "$cmd, $mode corruption: reported with offset, expected, found"
	[ "$rc" -eq 1 ] || echo "rc=$rc $err" | diag
	jq_ok "$cmd, $mode corruption: JSON status failed, first_error set" "$j" \
		'.status == "failed" and .verify.errors > 0 and
		 (.verify.first_error | test("^offset [0-9]+ .*expected .*found")) and
		 (.error | test("verification"))'
done

done_testing
