#!/bin/bash
# rlwork option parsing: help, suffixes, ranges, unknown names, bad input.
# Everything runs with --dry-run: no file is touched.
. "$(dirname "$0")/lib/tap.sh"
need_rlwork
plan 34

# Every workload is a workloads/*.c file with a WORKLOAD(): the sources
# say which must be listed, independently of the registration.
workloads=$(awk '/^WORKLOAD\(/{f=1} f && /\.name *=/{gsub(/[",]/, "", $3); print $3; f=0}' workloads/*.c | xargs)
nwl=$(wc -w <<<"$workloads")
nofile=/tmp/rlwork-options-test.$$.dat

run_split "$RLWORK" --help
n=0
for w in $workloads; do grep -q "^  $w  " <<<"$out" && n=$((n + 1)); done
ok "$(( rc != 0 || n != nwl || nwl < 5 ))" "rlwork --help lists all $nwl workloads of workloads/*.c, one line each"
[ "$("$RLWORK" --list | xargs)" = "$(tr ' ' '\n' <<<"$workloads" | sort | xargs)" ]
ok $? "rlwork --list prints the same names, sorted, one a line"

bad=""
for w in $workloads; do
	run_split "$RLWORK" "$w" --help
	[ "$rc" -eq 0 ] && grep -q -- "--threads=N" <<<"$out" &&
		grep -q "default" <<<"$out" || bad+=" $w"
done
ok "$([ -z "$bad" ]; echo $?)" "every workload's --help shows its paragraph and options${bad:+ (failed:$bad)}"

run_split "$RLWORK" dio --help
grep -q -- "--layout=disjoint|shared|random" <<<"$out" &&
	grep -q "range 512..64m" <<<"$out"
ok $? "dio --help shows choices, defaults and ranges"
! grep -q "inject-corruption" <<<"$out"
ok $? "test-only options are hidden from --help"

expect_bad "unknown workload: exit 2, named, valid ones listed" \
	"unknown workload 'fio-like' (valid: buffered-rw, .*dio, .*mmap-punch, .*readahead" \
	"$RLWORK" fio-like
expect_bad "no workload: usage, exit 2" "usage: rlwork" "$RLWORK"
expect_bad "unknown option: exit 2, named" "unknown option '--bogus'" \
	"$RLWORK" dio --bogus=1 --dry-run
expect_bad "another workload's option is unknown" "unknown option '--punch-len'" \
	"$RLWORK" dio --punch-len=64k --dry-run
expect_bad "stray argument: exit 2" "unexpected argument 'extra'" \
	"$RLWORK" dio extra --dry-run

run_split "$RLWORK" dio --size 1g --bs=64KiB --runtime 0.5 --dry-run --file "$nofile"
grep -q "^  size  *1g$" <<<"$out" && grep -q "^  bs  *64k$" <<<"$out" &&
	grep -q "^  runtime  *0.5$" <<<"$out"
ok "$(( rc != 0 || $? != 0 ))" "size suffixes: 1g and 64KiB resolve (and print) as 1g and 64k"
run_split "$RLWORK" dio --size=1048576 --bs 8192 --dry-run --file "$nofile"
grep -q "^  size  *1m$" <<<"$out" && grep -q "^  bs  *8k$" <<<"$out"
ok "$(( rc != 0 || $? != 0 ))" "plain byte counts are accepted"
run_split "$RLWORK" dio --dry-run --file "$nofile"
for o in threads runtime ramp file size bs verify seed json variant iteration env rw rwmix layout pattern engine iodepth fault-threads buffered-threads; do
	grep -q "^  $o " <<<"$out" || { echo "missing $o" | diag; false; }
done
ok $? "every resolved option is printed, in one block"
[ ! -e "$nofile" ]
ok $? "--dry-run creates no file"

expect_bad "size with a bad suffix" "--size: '12q' is not a size" \
	"$RLWORK" dio --size 12q --dry-run
expect_bad "size below the minimum" "--size: 4k is out of range (64k..1t)" \
	"$RLWORK" dio --size 4k --dry-run
expect_bad "zero threads" "--threads: 0 is out of range (1..1024)" \
	"$RLWORK" dio --threads 0 --dry-run
expect_bad "too many threads" "--threads: 5000 is out of range (1..1024)" \
	"$RLWORK" mmap-punch --threads 5000 --dry-run
# the resolved options show the fault threads that run, however given
out=$("$RLWORK" mmap-punch --threads 2 --size 8m --file "$nofile" --dry-run 2>&1)
like "$out" "fault-threads +2"$'\n' "--threads 2: the printed fault-threads is 2, not an unset 0"
expect_bad "no fault and no punch threads" "nothing would run" \
	"$RLWORK" mmap-punch --punch-threads 0 --fault-threads 0 --dry-run
expect_bad "negative runtime" "--runtime: '-1' is out of range\|--runtime: -1 is out of range" \
	"$RLWORK" dio --runtime -1 --dry-run
expect_bad "bad enum value lists the choices" \
	"--layout: 'diagonal' is not one of disjoint|shared|random" \
	"$RLWORK" dio --layout diagonal --dry-run
expect_bad "bad boolean" "--verify: 'maybe' is not a boolean" \
	"$RLWORK" dio --verify=maybe --dry-run
expect_bad "missing value" "--threads needs a value" "$RLWORK" dio --threads
expect_bad "bs not a multiple of 512" "--bs: 1000 is not a multiple of 512" \
	"$RLWORK" dio --bs 1000 --dry-run
expect_bad "--verify needs 4k blocks" "--bs: 2048 is not a multiple of 4096 (needed by --verify)" \
	"$RLWORK" dio --bs 2048 --verify --dry-run
expect_bad "file too small for disjoint slices" "file too small: --size 65536 holds 16 blocks" \
	"$RLWORK" dio --size 64k --threads 32 --layout disjoint --dry-run
expect_bad "file too small for punch chunks" "file too small: --size 65536 holds 1 chunks of --punch-len 65536" \
	"$RLWORK" mmap-punch --size 64k --punch-len 64k --dry-run
expect_bad "bad role list" "--roles: 'read,swim'" \
	"$RLWORK" truncate-storm --roles read,swim --dry-run
expect_bad "--iodepth needs the io_uring engine" "--iodepth 4 needs --engine=io_uring" \
	"$RLWORK" dio --iodepth 4 --dry-run
expect_bad "json into a missing directory" "--json: directory of '/nonexistent/x.json' does not exist" \
	"$RLWORK" dio --json /nonexistent/x.json --dry-run

run_split "$RLWORK" readahead --dry-run --file "$nofile"
grep -q "^  bs  *128k$" <<<"$out"
ok "$(( rc != 0 || $? != 0 ))" "a workload's own default (readahead bs=128k) applies"
run_split "$RLWORK" readahead --bs 64k --dry-run --file "$nofile"
grep -q "^  bs  *64k$" <<<"$out"
ok "$(( rc != 0 || $? != 0 ))" "the command line wins over a workload's default"
run_split "$RLWORK" dio --env runner=qemu --env accel=tcg --env runner=host --dry-run --file "$nofile"
grep -q "^  env  *runner=host,accel=tcg$" <<<"$out"
ok "$(( rc != 0 || $? != 0 ))" "--env is repeatable, a later key replaces an earlier one"

done_testing
