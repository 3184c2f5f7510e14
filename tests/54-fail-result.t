#!/bin/bash
# runners/fail-result, the one writer of failed results (runners/collect,
# runners/qemu and runners/bare call it): a new failed document with the
# point's params and env, an ok result marked failed with the first reason
# kept, and bad input refused without touching anything.
. "$(dirname "$0")/lib/tap.sh"
plan 12

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s -C workloads >/dev/null 2>&1
args="dio --rw read --size 4m --threads 2 --runtime 1 --ramp 0 --variant stock --env runner=qemu --env accel=@ACCEL@ --env mode=cost --env point=p001-dio --env cpus=2"

run runners/fail-result --out "$tmp/r.json" --args "$args" --error "panic: boom" --iteration 3 \
	--variant stock --release 6.12.0-rl-stock --accel tcg --point p001-dio --log stock/console-boot1.log
is "$RC" 0 "a failed result is written"
is "$(jq -r '"\(.schema) \(.status) \(.error) \(.iteration) \(.workload)"' "$tmp/r.json")" \
	"rlbench-result/1 failed panic: boom 3 dio" "with schema, status, reason, iteration and workload"
is "$(jq -c '.params | {threads, rw}' "$tmp/r.json")" '{"threads":2,"rw":"read"}' "params come from rlwork's dry run"
is "$(jq -c '.env | {mode, accel, point, cpus}' "$tmp/r.json")" '{"mode":"cost","accel":"tcg","point":"p001-dio","cpus":2}' \
	"env holds the point's --env pairs (numbers as numbers), the accelerator that ran"
is "$(jq -r '.kernel.variant + " " + .log' "$tmp/r.json")" "stock stock/console-boot1.log" "and the variant and log"
ok "$(find "$tmp" -name '*.tmp.*' | grep -q .; [ $? = 1 ]; echo $?)" "no temporary file is left"

# An ok result is marked failed; a failed one keeps its first reason.
echo '{"status": "ok", "ops": [1]}' >"$tmp/ok.json"
printf 'e2fsck: bad\n' >"$tmp/fsck.txt"
run runners/fail-result --out "$tmp/ok.json" --error "fsck: exit 4" --log stock/fsck-boot1.txt --excerpt-file "$tmp/fsck.txt"
is "$(jq -c '{status, error, log, ops, log_excerpt}' "$tmp/ok.json")" \
	'{"status":"failed","error":"fsck: exit 4","log":"stock/fsck-boot1.txt","ops":[1],"log_excerpt":"e2fsck: bad"}' \
	"an ok result is marked failed, the rest of it kept"
run runners/fail-result --out "$tmp/ok.json" --error "second reason"
is "$(jq -r .error "$tmp/ok.json")" "fsck: exit 4" "a failed result keeps its first reason"

# Bad input: exit 2, one line, nothing written or changed.
echo 'not json' >"$tmp/bad.json"
sum=$(sha256sum "$tmp/bad.json")
run runners/fail-result --out "$tmp/bad.json" --error x
like "$RC:$OUT" "^2:fail-result: .*bad.json exists and is not a JSON document$" "a file that is not a result is refused"
is "$(sha256sum "$tmp/bad.json")" "$sum" "and left as it was"
run runners/fail-result --out "$tmp/n.json" --args "$args" --error x --iteration 0
like "$RC:$OUT" "^2:fail-result: --iteration '0' is not a positive whole number$" "a bad iteration is refused"
run runners/fail-result --out "$tmp/n.json" --error x --bogus 1
ok "$([ "$RC" = 2 ] && [ ! -e "$tmp/n.json" ]; echo $?)" "an unknown option is refused and nothing is written"
done_testing
