#!/bin/bash
# rlstat mail: the text a patch author pastes under a cover letter: every
# line within 72 columns, ASCII only, the verdict the report gives, time
# mode's rows apart from cost mode's path-length rows (with what cost mode
# does not measure), and the command that reproduces the run.
. "$(dirname "$0")/lib/tap.sh"
plan 9
[ -x analysis/rlstat ] || make -s -C analysis >/dev/null || exit 2
R=analysis/rlstat
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fits LIMIT: stdin's lines are ASCII within LIMIT columns
fits() { LC_ALL=C awk -v w="$1" 'length($0) > w || /[^ -~]/ { bad = 1 } END { exit bad }'; }
ok "$(printf '%73s\n' x | fits 72; [ $? = 1 ]; echo $?)" "(the check fails a 73-column line)"
ok "$(printf 'caf\303\251\n' | fits 72; [ $? = 1 ]; echo $?)" "(and a non-ASCII one)"

long=rangelock+shared-alloc-dio+fault-retry
analysis/rlsynth "$tmp/r" --variants stock,$long --iterations 3 --mode both --effect $long=-3 >/dev/null 2>&1
jq --arg k $long '.requested = {kernel: $k, baseline: "stock", mode: "both", iterations: 3, budget: null}' \
	"$tmp/r/meta.json" >"$tmp/m" && mv "$tmp/m" "$tmp/r/meta.json"
run $R mail "$tmp/r"
mail=$OUT
is "$RC" 0 "rlstat mail runs"
ok "$(fits 72 <<<"$mail"; echo $?)" "every line is ASCII within 72 columns, with a 38-character variant name"
$R report "$tmp/r" --no-charts >/dev/null
v=$(awk '/^Verdict: / { print $2; exit }' "$tmp/r/report.txt")
like "$mail" $'\n'"verdict: $v: " "the verdict is the report's ($v)"
cost=$(sed -n '/^path-length, cost mode/,/^$/p' <<<"$mail")
like "$cost" "no cache misses, no coherence traffic, no parallel"$'\n'"speed-up" \
	"the path-length rows say what cost mode does not measure"
is "$(grep -c '^p00[01]-dio read ' <<<"$cost"):$(grep -c '^p00[01]-dio read ' <<<"$mail"):$(grep -c '^p00[01]-dio read ops/s ' <<<"$mail")" "2:4:2" \
	"one path-length row per point, named by its op, apart from the time rows"
like "$mail" "reproduce:"$'\n'"  make bench KERNEL=${long//+/\\+} \\\\"$'\n'"    BASELINE=stock MATRIX=synthetic MODE=both ITERATIONS=3" \
	"the command that reproduces it, broken to fit"
run $R mail "$tmp/nosuch"
like "$RC:$OUT" "^2:" "a directory that is not a run: exit 2"
done_testing
