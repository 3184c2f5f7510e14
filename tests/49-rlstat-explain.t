#!/bin/bash
# The report's explanation of a difference (analysis/report/explain.c) on
# synthetic runs whose rates change by the same -32.7% either only through
# the work mix or only through the cost per kind (rlsynth --mix): the
# cause line names the right one for each role and variant, the two parts
# multiply to the rate change, waits show when the results carry them and
# say why not otherwise, noisy boots leave it undecided, and a run without
# work-mix counts reads as before (no section).
. "$(dirname "$0")/lib/tap.sh"
for c in gnuplot jq; do
	command -v $c >/dev/null || { echo "1..0 # skip $c not installed"; exit 0; }
done
make -s -C analysis rlstat rlsynth >&2 || { echo "1..0 # skip rlstat does not build"; exit 0; }
plan 15

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
RLSTAT=analysis/rlstat RLSYNTH=analysis/rlsynth

# report RUN RLSYNTH-ARGS...: a synthetic run and its report.txt
report() {
	local d=$tmp/$1
	shift
	"$RLSYNTH" "$d" --iterations 5 --noise 0.01 "$@" >/dev/null &&
		"$RLSTAT" report "$d" --no-charts >/dev/null 2>&1
}
# causes RUN VARIANT: the cause lines of VARIANT's blocks, one a line
causes() {
	awk -v v="  $2 against " '
		/^== What each difference is made of ==/ {on = 1}
		on && index($0, v) == 1 {mine = 1; next}
		on && /^  [^ ]+ against / {mine = 0}
		on && mine && $1 == "cause" {sub(/^ *cause +/, ""); print}' \
		"$tmp/$1/report.txt"
}

# stock, rangelock slower through the mix, rwsem-range through each kind's
# cost: 2 points x 2 roles (read, write) each
report both --variants stock,rangelock,rwsem-range --mix rangelock=mix \
	--mix rwsem-range=cost --waits
ok $? "rlsynth --mix and rlstat report: exit 0"
is "$(causes both rangelock | sort | uniq -c | xargs)" "4 the work mix" \
	"a variant slower only through its mix: every role's cause is the work mix"
is "$(causes both rwsem-range | sort | uniq -c | xargs)" "4 the cost per kind" \
	"a variant slower only per kind: every role's cause is the cost per kind"

# the model's mix alone makes 37 us a cycle 55 (tools/rlsynth.c): -32.7%
mixparts() {
	awk -v v="  $2 against " '
		/^== What each difference is made of ==/ {on = 1}
		on && index($0, v) == 1 {mine = 1; next}
		on && /^  [^ ]+ against / {mine = 0}
		on && mine && $1 == "mix" && $2 == "part" {print $3}' \
		"$tmp/$1/report.txt"
}
is "$(mixparts both rangelock | sort | uniq -c | xargs) / $(mixparts both rwsem-range | tr -d +- | sort | uniq -c | xargs)" \
	"4 -32.7% / 4 0.0%" "the mix part is the model's -32.7% through the mix, 0 through the cost"

# the shift-share parts multiply to the rate change (logs add up)
split=$(awk '/^== What each/ {on = 1} on && $2 == "rate" {r = $3}
	on && $1 == "mix" && $2 == "part" {m = $3}
	on && $1 == "per" && $2 == "kind" {k = $3
		d = (1 + r / 100) - (1 + m / 100) * (1 + k / 100)
		if (d < 0) d = -d
		if (d > 0.0015) bad = bad " " r "/" m "/" k; n++}
	END {print n + 0, (bad == "" ? "ok" : bad)}' "$tmp/both/report.txt")
is "$split" "8 ok" "each role's mix part and per-kind part multiply to its rate change"

section=$(sed -n '/^== What each difference/,$p' "$tmp/both/report.txt")
like "$section" $'\n''            hole +20.0% -> 50.0% of ops' \
	"the mix line gives each kind's share, baseline -> variant"
like "$section" $'rwsem-range against stock: [^\n]*\n(  [^\n]*\n)*  waits     mapping_lock[^\n]*\n +contended 1000 -> 8000, waited 10.00 -> 200.00 ms' \
	"the waits of a stats kernel's runs: contended and waited per boot"
is "$(awk 'length > 79' <<<"$section" | head -3)" "" "the section fits 79 columns"
jq -n --rawfile h "$tmp/both/report.html" \
	'$h | test("id=\"explain\"") and ([scan("<b>the work mix</b>")] | length) == 4 and
	 ([scan("<b>the cost per kind</b>")] | length) == 4' >/dev/null
ok $? "report.html has the section, its causes as in report.txt"
run "$RLSTAT" report "$tmp/both" --no-charts --baseline rangelock
is "$(causes both stock | sort | uniq -c | xargs)" "4 the work mix" \
	"against the variant as baseline, the mix still explains it (the other way)"

# without waits in the results
report nowaits --mix rangelock=cost
is "$(causes nowaits rangelock | sort | uniq -c | xargs)" "4 the cost per kind" \
	"rangelock slower per kind alone: the cost per kind"
like "$(cat "$tmp/nowaits/report.txt")" "waits     not measured \\(needs a stats boot\\)" \
	"no mapping_lock monitor: waits not measured, and why"

# noisy boots (CV 8%, 3 a side): the gate sees the change, the split is
# too uncertain to name a cause
"$RLSYNTH" "$tmp/noisy" --seed 1 --iterations 3 --noise 0.08 --mix rangelock=mix >/dev/null &&
	"$RLSTAT" report "$tmp/noisy" --no-charts >/dev/null 2>&1
is "$(causes noisy rangelock | sort | uniq -c | xargs)" \
	"4 undecided: intervals too wide (the mix part looks larger)" \
	"intervals too wide: undecided, saying which part looks larger"

# results without kinds or waits: no section, the report as before
"$RLSYNTH" "$tmp/old" --effect rangelock=-30 --iterations 5 --noise 0.01 >/dev/null &&
	"$RLSTAT" report "$tmp/old" --no-charts >/dev/null 2>&1
ok $? "a run without work-mix counts: report exit 0"
ok "$(grep -qE 'What each difference|id="explain"' "$tmp/old/report.txt" "$tmp/old/report.html"; echo $((!$?)))" \
	"a run without work-mix counts or waits has no explanation section"
done_testing
