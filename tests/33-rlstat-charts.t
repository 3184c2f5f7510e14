#!/bin/bash
# Every chart is produced as a non-empty PNG and SVG, report.html links
# them and fetches nothing from the network.
. "$(dirname "$0")/lib/tap.sh"
[ -x analysis/rlstat ] || make -s -C analysis >/dev/null || exit 2
plan 16

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r tests/fixtures/run-small "$tmp/run"
run analysis/rlstat report "$tmp/run"
is "$RC" 0 "report with charts exits 0"

# The charts rlstat says the run gets (rlstat charts), of every kind it
# lists (rlstat charts --kinds): a new kind needs no edit here. A kind
# drawn only from instruction profiles (its line says PROFILE=insn; the
# fixture has none) is tests/48's, one drawn only from stats boots (its
# line says stats boot) tests/64's.
want=$(analysis/rlstat charts "$tmp/run" | cut -f1)
nwant=$(wc -w <<<"$want")
kinds=$(analysis/rlstat charts --kinds | grep -vE 'PROFILE=insn|stats boot' | cut -f1 | sort | xargs)
[ "$(analysis/rlstat charts "$tmp/run" | cut -f2 | sort -u | xargs)" = "$kinds" ] &&
	[ "$(wc -w <<<"$kinds")" -ge 4 ]
ok $? "rlstat charts lists charts of every kind ($kinds)"
# 2 points x 2 ops: throughput vs threads per op, relative charts for
# throughput and p99, a CDF per point, percentile bars per point and op
grep -qx "tput-01-dio-read" <<<"$want" && grep -qx "relative-p99-latency" <<<"$want" &&
	grep -qx "lat-p001-dio-write" <<<"$want" && grep -qx "cdf-p000-dio" <<<"$want"
ok $? "... among them the throughput, relative, percentile and CDF charts"
missing=
for c in $want; do
	for e in png svg; do
		[ -s "$tmp/run/$c.$e" ] || missing="$missing $c.$e"
	done
done
is "$missing" "" "all $((nwant * 2)) chart files exist and are non-empty"
n=$(find "$tmp/run" -maxdepth 1 \( -name '*.png' -o -name '*.svg' \) | wc -l)
is "$n" "$((nwant * 2))" "no other chart files"
bad=
for f in "$tmp/run"/*.png; do
	[ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || bad="$bad $f"
done
is "$bad" "" "every .png is a PNG"
bad=
for f in "$tmp/run"/*.svg; do grep -q '<svg' "$f" && grep -q '</svg>' "$f" || bad="$bad $f"; done
is "$bad" "" "every .svg is a complete SVG document"
grep -q "threads" "$tmp/run/tput-01-dio-read.svg" && grep -q "ops/s" "$tmp/run/tput-01-dio-read.svg" &&
	grep -q "rangelock" "$tmp/run/tput-01-dio-read.svg"
ok $? "throughput chart: axis labels with units and a legend naming variants"
grep -q "latency (us), log scale" "$tmp/run/cdf-p000-dio.svg" && grep -q "p000-dio: latency CDF" "$tmp/run/cdf-p000-dio.svg" &&
	grep -q "p000-dio: dio threads=1" "$tmp/run/report.html"
ok $? "CDF chart: log latency axis, its title names the point, its caption the parameters"

html=$(cat "$tmp/run/report.html")
miss=
for c in $want; do [[ $html == *"src=\"./$c.svg\""* ]] || miss="$miss $c"; done
is "$miss" "" "report.html shows every chart"
! grep -q '<h2>Where the instructions go' "$tmp/run/report.html"
ok $? "a kind with no chart in the run (no profiles) gets no heading"
! grep -Eq '(src|href)="(https?:)?//' "$tmp/run/report.html" && ! grep -qi '<script' "$tmp/run/report.html"
ok $? "report.html: no network references, no scripts"
[[ $html == *"Synthetic CPU @ 2.0GHz"* ]] && [[ $html == *"0123456789abcdef"* ]] && [[ $html == *"Welch"* ]]
ok $? "report.html has provenance from meta.json and the tables"
v=$(grep -bo '<h2>Verdict: ' "$tmp/run/report.html" | head -1 | cut -d: -f1)
i=$(grep -bo '<img ' "$tmp/run/report.html" | head -1 | cut -d: -f1)
[ -n "$v" ] && [ -n "$i" ] && [ "$v" -lt "$i" ] &&
	grep -q 'moved (FAIL) *rangelock *p000-dio' "$tmp/run/report.html"
ok $? "report.html opens with the verdict (what moved, what is undecided) before any chart"
grep -q -- "- read latency percentiles (geometric mean of per-boot values, 95% CI)" "$tmp/run/report.html" &&
	grep -q "change against stock (ratio of geometric means)" "$tmp/run/report.html"
ok $? "lat-* and relative-* charts' captions say which statistic and CI they draw"
[ -z "$(find "$tmp/run" -maxdepth 1 -name '.rlstat-*')" ]
ok $? "no temporary chart directory left behind"
done_testing
