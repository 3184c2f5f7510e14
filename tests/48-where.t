#!/bin/bash
# "Where the difference goes" (docs/profile.md): a synthetic run of both
# modes with instruction profiles of its cost points and a System.map per
# variant (no kernel, no guest): report.txt's section lists per point
# whose insn/op moved the functions that moved most, the rest in one row,
# the rows summing exactly to the total delta, beside what cost mode does
# not measure and apart from time mode's figures; report.html carries it;
# a bar chart per point and variant names the functions as data (a
# System.map name with quotes, markup and a backquoted command); the
# mail's path-length rows and the functions where they moved; a missing
# System.map leaves the report whole.
. "$(dirname "$0")/lib/tap.sh"
for c in jq gnuplot; do
	command -v $c >/dev/null || { echo "1..0 # skip $c not installed"; exit 0; }
done
make -s -C analysis rlstat rlsynth >&2 || bail_out "rlstat does not build"
plan 27
R=$TOP/analysis/rlstat
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
[ -z "${KEEP:-}" ] || echo "# kept: $tmp" >&2
run_dir=$tmp/run cache=$tmp/cache
export RLBENCH_CACHE=$cache

# Two variants, three points (threads 1, 2 and 4), both modes, two boots each.
analysis/rlsynth "$run_dir" --variants stock,rangelock --threads 1,2,4 --iterations 2 --mode both >/dev/null 2>&1
jq '.variants[0].build = "b1" | .variants[1].build = "b2"' "$run_dir/meta.json" >"$tmp/m" &&
	mv "$tmp/m" "$run_dir/meta.json"

# System.maps: rangelock's addresses 0x10000 above stock's and one more
# function; a name no report may run as code or markup.
evil="q'uote<b>&amp;\`touch${tmp}/PWNED\`"
symmap() {	# SHIFT [EXTRA]: the lines of a System.map
	local s=$1 k
	printf 'ffffffff81000000 T _text\n'
	printf '%x T filemap_read\n%x t filemap_get_pages\n%x t %s\n' \
		$((0xffffffff81100000 + s)) $((0xffffffff81100200 + s)) $((0xffffffff81100400 + s)) "$evil"
	for k in $(seq 1 14); do printf '%x t f%02d\n' $((0xffffffff81101000 + k * 0x100 + s)) "$k"; done
	[ -z "${2:-}" ] || printf '%x t range_lock\n' $((0xffffffff81100600 + s))
	printf 'ffffffff81300000 T _etext\n'
}
mkdir -p "$cache/build/b1" "$cache/build/b2"
symmap 0 >"$cache/build/b1/System.map"
symmap $((0x10000)) range_lock >"$cache/build/b2/System.map"

# profile VARIANT POINT SHIFT: a window per cost result of the point,
# from "address insn/op atomics/op" lines on stdin, times the result's
# ops; the result's runtime made to agree with it (the cross-check).
profile() {
	local f
	local spec a i t
	# the addresses shifted here: awk's numbers are doubles
	spec=$(while read -r a i t; do
		[ "$a" = 401000 ] || a=$(printf '%x' $((0x$a + $3)))
		printf '%016x %s %s\n' "0x$a" "$i" "$t"
	done)
	for f in "$run_dir/$1/$2"-cost-i*.result.json; do
		local count
		count=$(jq '.ops[0].count' "$f")
		awk -v n="$count" -v tag=00000000 -v p="${f%.result.json}.profile" -v r="$f.rate" '
			{ a[NR] = $1; i[NR] = int($2 * n + 0.5); t[NR] = int($3 * n + 0.5)
			  si += i[NR]; st += t[NR] }
			END {
				printf "# rlbench insn-profile 1\ntag\t%s\nwindow\t1\nend\tmarker\ninsns\t%d\natomics\t%d\nblocks\t%d\nvaddr\tinsns\tatomics\n",
					tag, si, st, NR > p
				for (k = 1; k <= NR; k++) printf "%s\t%d\t%d\n", a[k], i[k], t[k] > p
				printf "%.12g\n", si / 1e9 > r
			}' <<<"$spec"
		# the guest clock's seconds: as many instructions as the window
		jq --argjson t "$(cat "$f.rate")" '.runtime_s = $t |
			.ops |= map(.ops_per_s = .count / $t | .bytes_per_s = .ops_per_s * 4096)' "$f" >"$tmp/r" && mv "$tmp/r" "$f"
		rm -f "$f.rate"
	done
}
fns() {	# BUMP: f01..f14 at k + 1/3 insn/op, plus k * BUMP / 7
	local k
	for k in $(seq 1 14); do
		printf '%x %s 0\n' $((0xffffffff81101000 + k * 0x100)) "$(awk -v k="$k" -v b="$1" 'BEGIN { printf "%.9f", k + 1 / 3 + k * b / 7 }')"
	done
}
{
	printf 'ffffffff81100010 800 0\nffffffff81100210 100 1\nffffffff81100400 5 0\n401000 90 0\n'
	fns 0
} >"$tmp/stock.spec"
profile stock p000-dio 0 <"$tmp/stock.spec"
{
	printf 'ffffffff81100010 850 0\nffffffff81100210 60 1\nffffffff81100400 7 0\n'
	printf 'ffffffff81100610 150 2\n401000 90 0\n'
	fns 1
} | profile rangelock p000-dio $((0x10000))
# p001: one function more, the others the same; p002: 0.05 insn/op more
# (0.005% of its 1105: within what two boots agree to, not a move)
profile stock p001-dio 0 <"$tmp/stock.spec"
{ cat "$tmp/stock.spec"; printf 'ffffffff81100610 150 2\n'; } | profile rangelock p001-dio $((0x10000))
profile stock p002-dio 0 <"$tmp/stock.spec"
{ cat "$tmp/stock.spec"; printf 'ffffffff81100610 0.05 0\n'; } | profile rangelock p002-dio $((0x10000))

run "$R" report "$run_dir"
is "$RC" 0 "rlstat report of a run with profiles exits 0"
txt=$(cat "$run_dir/report.txt")
sec=$(sed -n '/^== Cost mode: where the difference goes/,$p' <<<"$txt")
tab=$(sed -n '/^where the difference goes: p000-dio-cost, rangelock against stock/,/^  sum of rows/p' <<<"$sec")
ok "$([ -n "$tab" ]; echo $?)" "report.txt has the section, and p000-dio's table of rangelock against stock"
like "$sec" "Cost mode measures path length only: no cache misses, no"$'\n'"coherence traffic, no parallel speed-up" \
	"the section says what cost mode does not measure"
# after the time tables and cost mode's, with no time figure in it
t=$(grep -n '^== Time mode' <<<"$txt" | cut -d: -f1) c=$(grep -n '^== Cost mode: instructions' <<<"$txt" | cut -d: -f1)
w=$(grep -n '^== Cost mode: where' <<<"$txt" | cut -d: -f1)
ok "$([ "$t" -lt "$c" ] && [ "$c" -lt "$w" ] && ! grep -qE 'ops/s|latency|MiB/s' <<<"$sec"; echo $?)" \
	"its own section after cost mode's tables, no time-mode figure in it"

# the rows: six numbers, then the function
rows=$(sed -n '4,$p' <<<"$tab" | grep -vE '^  sum of rows')
row() { awk -v f="$1" '{ n = $0; sub(/^ +/, "", n); for (k = 0; k < 6; k++) sub(/^[-+0-9.]+ +/, "", n); if (n == f) print $1, $2, $3, $4, $5, $6 }' <<<"$rows"; }
is "$(head -1 <<<"$rows" | awk '{ print $NF }'):$(row range_lock)" "range_lock:0.00 150.00 +150.00 0.00 2.00 +2.00" \
	"the function that moved most first, both sides and the delta of insn/op and atomics/op"
is "$(row filemap_read)|$(row filemap_get_pages)" "800.00 850.00 +50.00 0.00 0.00 +0.00|100.00 60.00 -40.00 1.00 1.00 +0.00" \
	"the others that moved, by name across two System.maps"
# cents, exactly: every column of the rows above the total sums to it
sums=$(awk '/^ +[-+0-9.]+ / && $NF != "total" { for (k = 1; k <= 6; k++) { v = $k; sub(/\./, "", v); s[k] += v } }
	$NF == "total" { for (k = 1; k <= 6; k++) { v = $k; sub(/\./, "", v); t[k] = v + 0 } }
	END { for (k = 1; k <= 6; k++) printf "%s%d=%d", (k > 1 ? " " : ""), s[k], t[k] }' <<<"$rows")
ok "$(awk 'NF != 6 { exit 1 } { for (k = 1; k <= NF; k++) { split($k, a, "="); if (a[1] != a[2]) exit 1 } }' <<<"$sums"; echo $?)" \
	"the rows sum exactly to the total in every column, the delta too ($sums)"
total=$(row total | awk '{ print $3 }')
like "$tab" "  sum of rows = total delta: \\$total insn/op, \\+2.00 atomics/op" \
	"the check line says the sum of the rows is the total delta ($total)"
# 19 functions moved (range_lock, filemap_read, filemap_get_pages, the
# quoted one, f01..f14, user 0: not moved): 10 shown, 9 more and the
# unmoved user row in the remainder
like "$rows" $'\n''  +[0-9.]+ +[0-9.]+ +[-+][0-9.]+ +[0-9.]+ +[0-9.]+ +[-+][0-9.]+  \(the other 9 functions\)'$'\n' \
	"the functions below the top 10 in one remainder row, counted"
t1=$(sed -n '/^where the difference goes: p001-dio-cost,/,/^  sum of rows/p' <<<"$sec" | sed -n '4,$p')
like "$t1" "^ +0.00 +150.00 +\+150.00 +0.00 +2.00 +\+2.00  range_lock"$'\n'" +[0-9.]+ +[0-9.]+ +\+0.00 +[0-9.]+ +[0-9.]+ +\+0.00  \(the other 18 functions\)"$'\n'" +[0-9.]+ +[0-9.]+ +\+150.00 .*total"$'\n'"  sum of rows = total delta" \
	"only the functions that moved have rows: p001-dio's one"
like "$sec" "Not moved \(insn/op within 0.01%, atomics/op within 0.01\): p002-dio \(rangelock\)" \
	"a point whose insn/op moved less than boots agree to is named, without a table"
ok "$([ ! -e "$tmp/PWNED" ]; echo $?)" "no name ran as a command"

# report.html: the section in its comparison text, escaped
html=$(cat "$run_dir/report.html")
ok "$([[ $html == *"where the difference goes: p000-dio-cost, rangelock against stock"* ]] &&
	[[ $html != *"<b>&amp;"* ]]; echo $?)" "report.html carries the section, the names escaped"
# ... and as HTML tables: a row per function, the figures then the name
hw=$(sed -n '/^<h2>Cost mode: where the difference goes/,/^<h2>/p' <<<"$html")
like "$hw" "<h3>p000-dio-cost: rangelock against stock \\(per op; 2 and 2 boots\\)</h3>"$'\n'"<table class=\"stats where\">" \
	"report.html: a table per moved pair under the section's heading"
like "$hw" "<tr><td>0.00</td><td>150.00</td><td>\\+150.00</td><td>0.00</td><td>2.00</td><td>\\+2.00</td><td class=\"fn\">range_lock</td></tr>" \
	"... the function that moved, both sides and the deltas, as in report.txt"
like "$hw" "<tr class=\"total\"><td>[0-9.]+</td><td>[0-9.]+</td><td>\\+177.00</td>.*"$'\n'"</table>"$'\n'"<p>sum of rows = total delta: \\+177.00 insn/op, \\+2.00 atomics/op</p>" \
	"... the total row and the check line"
ok "$(grep -qF "<td class=\"fn\">q&#39;uote&lt;b&gt;&amp;amp;" <<<"$hw" && ! grep -qF '<b>' <<<"$hw"; echo $?)" \
	"... the quoted name escaped in its cell"
like "$hw" "<p>1 point whose path length did not move" "... and the unmoved points counted"

# the charts: one per profiled point and variant, names as data
is "$("$R" charts "$run_dir" | awk -F'\t' '$2 == "prof" { print $1 }' | xargs)" \
	"$(printf 'prof-p00%d-dio-stock prof-p00%d-dio-rangelock ' 0 0 1 1 2 2 | xargs)" \
	"rlstat charts lists a profile chart per cost point and variant"
svg=$run_dir/prof-p000-dio-rangelock.svg
ok "$([ -s "$svg" ] && [ -s "${svg%.svg}.png" ] && grep -q '>range_lock<' "$svg" &&
	grep -qF "q'uote&lt;b>&amp;amp;\`touch" "$svg" && ! grep -qF '<b>' "$svg" && [ ! -e "$tmp/PWNED" ]; echo $?)" \
	"the chart is drawn, the quoted name escaped in the SVG and run nowhere"
ok "$(for c in $("$R" charts "$run_dir" | awk -F'\t' '$2 == "prof" { print $1 }'); do
	[[ $html == *"src=\"./$c.svg\""* ]] || exit 1; done
	[[ $html == *"<h2>Where the instructions go (cost mode, instruction profile)</h2>"* ]]; echo $?)" \
	"report.html shows them under their heading"
run tests/lib/svg-fits "$run_dir"/prof-*.svg
is "$RC:$OUT" "0:" "every text of the profile charts is on its canvas"
like "$html" "No call stacks: one level, a bar per function, not a flame graph\\. Cost mode: path length only" \
	"its caption says it is one level and what cost mode does not measure"

# the mail: cost mode's path-length row per point
run "$R" mail "$run_dir"
like "$OUT" $'\n'"path-length, cost mode \\(QEMU icount\\)[^"$'\n'"]*"$'\n'"[^"$'\n'"]*"$'\n'"[^"$'\n'"]*speed-up; lower is better\\."$'\n'"(.*"$'\n'")?p000-dio read +[0-9.]+ +[0-9.]+% +[0-9.]+ +[0-9.]+% +[-+][0-9.]+% " \
	"the mail has p000-dio's path-length row: baseline, variant, change"
like "$OUT" $'\n'"where the path length goes[^"$'\n'"]*"$'\n'"[^"$'\n'"]*"$'\n'"p000-dio +stock rangelock +delta atom/op"$'\n'"  range_lock +0.00 +150.00 +\+150.00 +\+2.00"$'\n'"(  [^"$'\n'"]*"$'\n'"){3}  total +1[0-9.]+ +1[0-9.]+ +\+177.00 +\+2.00"$'\n' \
	"... and under it, where it moved: the functions that moved most, the rest, the total"
ok "$(LC_ALL=C awk 'length($0) > 72 || /[^ -~]/ { bad = 1 } END { exit bad }' <<<"$OUT"; echo $?)" \
	"the mail stays ASCII within 72 columns"

# a missing System.map: the report is whole and says why
mv "$cache/build/b1" "$cache/build/gone"
run "$R" report "$run_dir" --no-charts
ok "$([ "$RC" = 0 ] && grep -q "^Not available: variant stock: cannot read its System.map, $cache/build/b1/System.map" "$run_dir/report.txt" &&
	grep -q '^== Cost mode: instructions per operation' "$run_dir/report.txt"; echo $?)" \
	"a missing System.map: the report is written, the section says why"
done_testing
