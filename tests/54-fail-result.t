#!/bin/bash
# rlwork --fail-result (runners/fail-result execs it), the one writer of
# failed results for every runner, and rlwork --set-monitors: a new failed
# document through the writer of a run's own result (its top-level keys,
# the dry run's params), an ok result marked failed with the first reason
# kept, monitors set with the rest unchanged, runners/collect moving a
# result out of a guest's share, and bad input refused without touching
# anything or leaving a temporary behind.
. "$(dirname "$0")/lib/tap.sh"
plan 31

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s -C workloads >/dev/null 2>&1
make -s -C analysis >/dev/null 2>&1
args="dio --rw read --size 4m --threads 2 --runtime 1 --ramp 0 --variant stock --env runner=qemu --env accel=@ACCEL@ --env mode=cost --env point=p001-dio --env cpus=2"
temps() { find "$tmp" -name '.rlwork-*' -o -name '*.tmp.*'; }
sorted() { jq -S "${2:-.}" "$1"; }

run runners/fail-result --out "$tmp/r.json" --args "$args" --error "panic: boom" --iteration 3 \
	--variant stock --release 6.12.0-rl-stock --accel tcg --point p001-dio --log stock/console-boot1.log
is "$RC" 0 "a failed result is written"
is "$(jq -r '"\(.schema) \(.status) \(.error) \(.iteration) \(.workload)"' "$tmp/r.json")" \
	"rlbench-result/1 failed panic: boom 3 dio" "with schema, status, reason, iteration and workload"
is "$(jq -c '.params | {threads, rw}' "$tmp/r.json")" '{"threads":2,"rw":"read"}' "params come from rlwork's dry run"
is "$(jq -S .params "$tmp/r.json")" "$(eval "$RLWORK ${args//@ACCEL@/tcg} --dry-run --json -" 2>/dev/null | jq -S .params)" \
	"  and equal the dry run's params, every one"
is "$(jq -c '.env | {mode, accel, point, cpus, runner}' "$tmp/r.json")" '{"mode":"cost","accel":"tcg","point":"p001-dio","cpus":2,"runner":"qemu"}' \
	"env holds the point's --env pairs (numbers as numbers), the accelerator that ran"
is "$(jq -r '.kernel.variant + " " + .kernel.release + " " + .log' "$tmp/r.json")" "stock 6.12.0-rl-stock stock/console-boot1.log" \
	"and the variant, release and log"
is "$(jq -c '[.ops, .metrics, .counters, .runtime_s, .workers]' "$tmp/r.json")" '[[],[],{},0,0]' \
	"nothing measured: no ops, metrics or counters, 0 s, 0 workers"
like "$(analysis/rlstat validate "$tmp/r.json" 2>&1)" ': ok$' "rlstat takes the failed document"

# An ok result from a real run: its top-level keys are a failed one's too.
"$RLWORK" calib --runtime 0.05 --ramp 0 --file "$tmp/data" --json "$tmp/ok.json" --variant stock >/dev/null 2>&1
is "$(jq -c --slurpfile f "$tmp/r.json" 'keys - ($f[0] | keys)' "$tmp/ok.json")" "[]" \
	"a failed document has every top-level key of an ok one"
ok "$(temps | grep -q .; [ $? = 1 ]; echo $?)" "no temporary file is left"

# An ok result is marked failed; a failed one keeps its first reason.
cp "$tmp/ok.json" "$tmp/was.json"
printf 'e2fsck: bad\n' >"$tmp/fsck.txt"
run runners/fail-result --out "$tmp/ok.json" --error "fsck: exit 4" --log stock/fsck-boot1.txt --excerpt-file "$tmp/fsck.txt"
is "$(jq -c '{status, error, log, log_excerpt}' "$tmp/ok.json")" \
	'{"status":"failed","error":"fsck: exit 4","log":"stock/fsck-boot1.txt","log_excerpt":"e2fsck: bad"}' \
	"an ok result is marked failed"
is "$(sorted "$tmp/ok.json" 'del(.status, .error, .log, .log_excerpt)')" "$(sorted "$tmp/was.json" 'del(.status)')" \
	"  the rest of it kept"
sum=$(sha256sum <"$tmp/ok.json")
run runners/fail-result --out "$tmp/ok.json" --error "second reason" --log other.txt
is "$RC:$(jq -r .error "$tmp/ok.json")" "0:fsck: exit 4" "a failed result keeps its first reason"
is "$(sha256sum <"$tmp/ok.json")" "$sum" "  and is not rewritten"

# A console tail holds any byte: the excerpt is valid UTF-8, NULs dropped.
cp "$tmp/was.json" "$tmp/odd.json"
printf 'a\0b\xff\xc3(\xe2\x82\xac\n\n' >"$tmp/odd.txt"
run "$RLWORK" --fail-result --out "$tmp/odd.json" --error $'bad byte \xfe' --excerpt-file "$tmp/odd.txt"
is "$RC:$(jq -r '.log_excerpt + "|" + .error' "$tmp/odd.json")" $'0:ab\xef\xbf\xbd\xef\xbf\xbd(\xe2\x82\xac|bad byte \xef\xbf\xbd' \
	"bytes that are not UTF-8 become U+FFFD, trailing newlines go"

# --set-monitors: the monitors object, nothing else.
cp "$tmp/was.json" "$tmp/m.json"
run "$RLWORK" --set-monitors --out "$tmp/m.json" vmstat=stock/p-i1.vmstat.json perf=stock/p-i1.perf.csv
is "$RC:$(jq -c .monitors "$tmp/m.json")" '0:{"perf":"stock/p-i1.perf.csv","vmstat":"stock/p-i1.vmstat.json"}' \
	"--set-monitors sets the monitors object"
is "$(sorted "$tmp/m.json" 'del(.monitors)')" "$(sorted "$tmp/was.json")" "  the rest of the document unchanged"

# Bad input: exit 2, one line, nothing written or changed.
echo 'not json' >"$tmp/bad.json"
echo '{"schema": "rlbench-point/1", "params": {}}' >"$tmp/point.json"
sums=$(sha256sum "$tmp/bad.json" "$tmp/point.json" "$tmp/m.json")
run runners/fail-result --out "$tmp/bad.json" --error x
like "$RC:$OUT" "^2:rlwork --fail-result: --out: '.*bad.json' is not a JSON document \(.*\); accepted: a result document" \
	"--fail-result refuses a file that is not a result"
run "$RLWORK" --set-monitors --out "$tmp/point.json" vmstat=stock/v.json
like "$RC:$OUT" "^2:rlwork --set-monitors: --out: '.*point.json' is not an rlbench-result/1 document; accepted: " \
	"--set-monitors refuses a JSON document that is not a result"
run "$RLWORK" --set-monitors --out "$tmp/m.json" vmstat=/abs/path
like "$RC:$OUT" "^2:rlwork --set-monitors: 'vmstat=/abs/path' is not NAME=PATH; accepted: " "  and a pair that is not NAME=PATH"
is "$(sha256sum "$tmp/bad.json" "$tmp/point.json" "$tmp/m.json")" "$sums" "  each file left as it was"
run runners/fail-result --out "$tmp/n.json" --args "$args" --error x --iteration 0
like "$RC:$OUT" "^2:rlwork --fail-result: --iteration: 0 is out of range \(1\.\.1000000\)" "a bad iteration is refused"
run runners/fail-result --out "$tmp/n.json" --args "nosuch --threads 2" --error x
like "$RC:$OUT" "^2:rlwork --fail-result: --args 'nosuch --threads 2': rlwork: unknown workload 'nosuch'" \
	"arguments the dry run refuses are refused"
run runners/fail-result --out "$tmp/n.json" --error x --runner kvm
like "$RC:$OUT" "^2:rlwork --fail-result: --runner: 'kvm' is not one of qemu\|bare\|lava" "an unknown runner is refused"
run runners/fail-result --out "$tmp/nodir/n.json" --args "$args" --error x
like "$RC:$OUT" "^2:rlwork --fail-result: --out: the directory of '.*nodir/n.json' does not exist" "a missing directory is refused"
run runners/fail-result --out "$tmp/n.json" --error x --bogus 1
ok "$([ "$RC" = 2 ] && [ ! -e "$tmp/n.json" ] && [ ! -e "$tmp/nodir" ]; echo $?)" "an unknown option is refused and nothing is written"
ok "$(temps | grep -q .; [ $? = 1 ]; echo $?)" "no temporary file is left after the refusals"

# runners/collect moves a guest's result out of its share with its
# monitors; what is not a result there fails the point.
mkdir -p "$tmp/run/stock/.share/results"
sh=$tmp/run/stock/.share
printf 'p001-calib 1 60 calib --loops 1000\np002-calib 1 60 calib --loops 2000\n' >"$sh/plan"
printf 'rlbench: start p001-calib 1\nrlbench: end p001-calib 1 rc=0\nrlbench: start p002-calib 1\nrlbench: end p002-calib 1 rc=0\n' >"$tmp/run/stock/console-boot1.log"
cp "$tmp/was.json" "$sh/results/p001-calib-i1.result.json"
printf 'nr_dirtied 5\n' >"$sh/results/p001-calib-i1.vmstat.before"
printf 'nr_dirtied 9\n' >"$sh/results/p001-calib-i1.vmstat.after"
head -c 100 "$tmp/was.json" >"$sh/results/p002-calib-i1.result.json"
for p in p001 p002; do
	runners/collect --console "$tmp/run/stock/console-boot1.log" --share "$sh" --out "$tmp/run/stock" \
		--plan "$sh/plan" --key $p-calib --iteration 1 --variant stock --monitors vmstat
done
c=$tmp/run/stock/p001-calib-i1.result.json
is "$(jq -c .monitors "$c"):$(jq -c . "$tmp/run/stock/p001-calib-i1.vmstat.json")" \
	'{"vmstat":"stock/p001-calib-i1.vmstat.json"}:{"nr_dirtied":4}' "runners/collect: the result comes with its monitors"
is "$(sorted "$c" 'del(.monitors)'):$([ -e "$sh/results/p001-calib-i1.result.json" ]; echo $?)" "$(sorted "$tmp/was.json"):1" \
	"  the rest as the guest wrote it, moved out of the share"
is "$(jq -r '"\(.status) \(.error) \(.params.loops)"' "$tmp/run/stock/p002-calib-i1.result.json")" \
	"failed rlwork exit 0 without a result 2000" "  a garbled result fails the point"
# A test hook's point (@panic) is no workload of rlwork's: its failed
# document still has one's shape, its name and no params.
run workloads/rlwork --fail-result --out "$tmp/hook.result.json" --args "@panic" \
	--error "panic: Kernel panic" --iteration 1 --variant stock
is "$RC:$(jq -c '[.workload, .params, .status, .error]' "$tmp/hook.result.json" 2>/dev/null)" \
	'0:["@panic",{},"failed","panic: Kernel panic"]' "a test hook's failed point gets its document"
done_testing
