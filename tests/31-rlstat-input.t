#!/bin/bash
# Malformed, truncated and schema-mismatched input: reported with the file
# name and the reason, exit 2, never skipped.
. "$(dirname "$0")/lib/tap.sh"
[ -x analysis/rlstat ] || make -s -C analysis >/dev/null || exit 2
plan 41

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
R=analysis/rlstat
good=tests/fixtures/run-small/stock/p000-dio-i1.result.json

run $R validate "$good"
is "$RC" 0 "validate accepts a fixture result"

# bad DESC JQ-FILTER REGEX: the mutated document must be refused, naming
# the file and the reason.
bad() {
	local f=$tmp/bad-$TAP_N.result.json
	jq -c "$2" "$good" >"$f" || { ok 1 "$1 (jq failed)"; return; }
	run $R validate "$f"
	[ "$RC" = 2 ] && [[ $OUT == *"$f"* ]] && [[ $OUT =~ $3 ]]
	_tap $? "$1" "rc=$RC out=$OUT"
}
bad "wrong schema" '.schema = "rlbench-result/2"' 'schema is not "rlbench-result/1"'
bad "missing status" 'del(.status)' 'status is not'
bad "failed without error" '.status = "failed"' 'error is not a string'
bad "iteration 0" '.iteration = 0' 'iteration is not an integer in 1\.\.2147483647'
bad "params with an object value" '.params.x = {}' 'params.x is not'
bad "kernel without release" 'del(.kernel.release)' 'kernel needs release'
bad "kernel.features not strings" '.kernel.features = [1]' 'kernel.features is not an array of strings or null'
jq -c '.kernel.features = ["shared-alloc-dio", "fault-retry"]' "$good" >"$tmp/feat.json"
run $R validate "$tmp/feat.json"
is "$RC" 0 "kernel.features, an array of words, validates"
bad "empty ops" '.ops = []' 'ops is not a non-empty array'
bad "negative ops_per_s" '.ops[0].ops_per_s = -1' 'ops_per_s is not a number >= 0'
bad "missing metrics" 'del(.metrics)' 'metrics is not a non-empty array'
bad "metric without direction" 'del(.metrics[0].higher_is_better)' 'higher_is_better is not a boolean'
bad "metric naming no op" '.metrics[0].name = "fsync.ops_per_s"' 'names no op'
bad "metric of an unknown field" '.metrics[0].name = "read.iops"' 'accepted are'
bad "histogram with other bits" '.ops[0].lat_ns.hist.bits = 5' 'hist.bits is not 6'
bad "histogram index out of range" '.ops[0].lat_ns.hist.counts["3776"] = 1' 'not a bucket index'
bad "negative histogram count" '.ops[0].lat_ns.hist.counts["70"] = -3' 'not a count'
bad "counter metric without counter" 'del(.counters.short_reads)' 'no such number in counters'

head -c 300 "$good" >"$tmp/trunc.result.json"
run $R validate "$tmp/trunc.result.json"
[ "$RC" = 2 ] && [[ $OUT == *trunc.result.json*"invalid JSON"* ]]
ok $? "truncated file: invalid JSON with file name and position"

printf '{"schema": "rlbench-result/1", "schema": "x"}' >"$tmp/dup.result.json"
run $R validate "$tmp/dup.result.json"
[ "$RC" = 2 ] && [[ $OUT == *dup.result.json*duplicate* ]]
ok $? "duplicate keys are refused"

# Inside a run directory one bad file stops the report; nothing is skipped.
mkrun() { rm -rf "$tmp/run"; cp -r tests/fixtures/run-small "$tmp/run"; }
mkrun
head -c 500 "$good" >"$tmp/run/imutex/p001-dio-i3.result.json"
run $R report "$tmp/run" --no-charts
[ "$RC" = 2 ] && [[ $OUT == *imutex/p001-dio-i3.result.json*invalid\ JSON* ]] &&
	[ ! -e "$tmp/run/report.txt" ]
ok $? "report: a truncated result among good ones exits 2 naming it, writes nothing"

mkrun
jq '.kernel.variant = "stock"' "$good" >"$tmp/run/imutex/p000-dio-i1.result.json"
run $R summary "$tmp/run"
[ "$RC" = 2 ] && [[ $OUT == *'kernel.variant "stock" does not match its directory "imutex"'* ]]
ok $? "a result in the wrong variant directory is refused"

mkrun
cp "$tmp/run/stock/p000-dio-i1.result.json" "$tmp/run/stock/p000-dio-i9.result.json"
run $R summary "$tmp/run"
[ "$RC" = 2 ] && [[ $OUT == *"p000-dio-i9.result.json: iteration 1, but the file name says i9"* ]]
ok $? "a file whose name and iteration disagree is refused"

# the same point and iteration under a second name
mkrun
cp "$tmp/run/stock/p000-dio-i1.result.json" "$tmp/run/stock/p000-dio-again-i1.result.json"
run $R summary "$tmp/run"
[ "$RC" = 2 ] && [[ $OUT == *"iteration 1 of stock/p000-dio"*"appears twice"* ]]
ok $? "the same iteration twice is refused"

mkrun
jq '(.metrics[] | select(.name == "counters.short_reads") | .unit) = "ios"' \
	"$tmp/run/stock/p000-dio-i2.result.json" >"$tmp/x" && mv "$tmp/x" "$tmp/run/stock/p000-dio-i2.result.json"
run $R summary "$tmp/run"
[ "$RC" = 2 ] && [[ $OUT == *p000-dio-i2.result.json*unit/direction* ]]
ok $? "a counter whose unit changes between iterations is refused"

bad "a rate metric in another unit" '(.metrics[] | select(.name == "read.ops_per_s") | .unit) = "MB/s"' \
	'metric "read.ops_per_s": unit "MB/s" is not "ops/s"'

mkrun
echo '{"schema": ' >"$tmp/run/meta.json"
run $R summary "$tmp/run"
[ "$RC" = 2 ] && [[ $OUT == *meta.json*invalid\ JSON* ]]
ok $? "malformed meta.json exits 2 naming it"

mkdir -p "$tmp/empty/stock"
cp tests/fixtures/run-small/meta.json "$tmp/empty/"
run $R report "$tmp/empty"
[ "$RC" = 2 ] && [[ $OUT == *"no <variant>/*.result.json"* ]]
ok $? "a directory without results exits 2"

run $R report "$tmp/nonexistent"
[ "$RC" = 2 ] && [[ $OUT == *nonexistent*"cannot open directory"* ]]
ok $? "a missing run directory exits 2"

mkrun
run $R report "$tmp/run" --baseline nosuch --no-charts
[ "$RC" = 2 ] && [[ $OUT == *'baseline "nosuch"'*"variants: stock imutex rangelock rwsem-range"* ]] &&
	[ ! -e "$tmp/run/report.txt" ]
ok $? "an unknown baseline lists the run's variants"

run $R report "$tmp/run" --alpha 2
[ "$RC" = 2 ] && [[ $OUT == *"--alpha 2: accepted is"* ]]
ok $? "--alpha out of range exits 2"

# The variants' order is kernels/variants' (its rows, stock first), found
# next to the binary or through RLBENCH_VARIANTS; unknown names follow the
# known ones alphabetically and host comes last, also with no file at all.
analysis/rlsynth "$tmp/ord" --variants zeta,host,rangelock,alpha,stock,imutex \
	--iterations 2 >/dev/null 2>&1
order() { "$@" report "$tmp/ord" --baseline nosuch --no-charts 2>&1 | sed -n 's/.*its variants: //p'; }
want=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' kernels/variants | awk '{print $1}' |
	grep -xE 'stock|imutex|rangelock' | xargs)
[ "$(order $R)" = "$want alpha zeta host" ]
ok $? "report order: kernels/variants' rows, then unknown names sorted, host last"
printf '%s\n' '# name marker race what' 'zeta z safe x' 'stock stock safe y' >"$tmp/variants"
[ "$(RLBENCH_VARIANTS=$tmp/variants order $R)" = "zeta stock alpha imutex rangelock host" ]
ok $? "RLBENCH_VARIANTS names another variants file"
[ "$(RLBENCH_VARIANTS=$tmp/none order $R)" = "stock alpha imutex rangelock zeta host" ]
ok $? "no variants file: stock first, the rest sorted, host last"
mkdir -p "$tmp/copy/analysis" "$tmp/copy/kernels"
cp "$R" "$tmp/copy/analysis/" && cp "$tmp/variants" "$tmp/copy/kernels/variants"
[ "$(order "$tmp/copy/analysis/rlstat")" = "zeta stock alpha imutex rangelock host" ]
ok $? "the file is found relative to the rlstat binary"

# A variant with features ranks with its row, right after it.
analysis/rlsynth "$tmp/ordf" --variants rangelock+fault-retry,imutex,stock+shared-alloc-dio,stock,rangelock \
	--iterations 2 >/dev/null 2>&1
[ "$("$R" report "$tmp/ordf" --baseline nosuch --no-charts 2>&1 | sed -n 's/.*its variants: //p')" = \
	"stock stock+shared-alloc-dio imutex rangelock rangelock+fault-retry" ]
ok $? "report order: a variant with features follows its row of kernels/variants"

# meta.json's variants[].strategy and .features (runners/run): checked
# when present, so a report never names features it misread.
meta_bad() {	# JQ-EDIT PATTERN NAME
	mkrun
	jq "$1" "$tmp/run/meta.json" >"$tmp/m" && mv "$tmp/m" "$tmp/run/meta.json"
	run $R report "$tmp/run" --no-charts
	[ "$RC" = 2 ] && [[ $OUT == *"$2"* ]]
	ok $? "$3"
}
meta_bad '.variants[1].features = "shared-alloc-dio"' "features is not an array of feature names" \
	"features that are not an array: exit 2"
meta_bad '.variants[1].features = ["a b"]' "features is not an array of feature names" \
	"a feature name with a blank: exit 2"
meta_bad '.variants[1].features = ["x", "x"]' "each once" "a feature listed twice: exit 2"
meta_bad '.variants[1].strategy = 7' "strategy is not a variant name" "a strategy that is not a name: exit 2"
done_testing
