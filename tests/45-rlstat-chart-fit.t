#!/bin/bash
# Charts a reviewer would attach: every text of every chart on its canvas
# (tests/lib/svg-fits, from the SVG's text positions and font size), the
# titles short (the parameters go to report.html's captions), rotated tic
# labels apart however many rows, and an interval far past the bars cut at
# the axis with its end written instead of flattening every other bar.
# The checker is shown to fail on charts drawn the old way.
. "$(dirname "$0")/lib/tap.sh"
command -v gnuplot >/dev/null || { echo "1..0 # skip gnuplot not installed"; exit 0; }
[ -x analysis/rlstat ] || make -s -C analysis >/dev/null || exit 2
plan 10
FITS=tests/lib/svg-fits
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The checker fails a title longer than the canvas and 30 rotated labels
# crowded onto 960 pixels, as gnuplot draws them.
long='mmap-punch fault: throughput vs threads (bs=4096 overlap=disjoint punch-len=65536 fault-bytes=4096 mmap-threads=2 punch-threads=1 geometry=random-sparse layout=interleaved), geometric mean, 95% CI'
gnuplot -e "set terminal svg size 960,540 noenhanced font 'sans,10'; set output '$tmp/title.svg'; set title '$long'; set key outside right; plot x title 'rangelock+shared-alloc-dio'" 2>/dev/null
run $FITS "$tmp/title.svg"
like "$RC:$OUT" "^1:.*runs off the 960x540 canvas" "the checker fails a title that runs off the canvas"
tics=$(for i in $(seq 0 29); do printf "'p%03d-mmap-punch/fault' %d," "$i" "$i"; done)
gnuplot -e "set terminal svg size 960,540 noenhanced font 'sans,10'; set output '$tmp/tics.svg'; set xtics (${tics%,}) rotate by -30; set key outside right; plot [0:29] x title 'rangelock'" 2>/dev/null
run $FITS "$tmp/tics.svg"
like "$RC:$OUT" "^1:.*rotated labels .* overlap" "and 30 crowded rotated labels"

# A run of three variants, 15 points, two ops each (30 rows), parameters
# as long as mmap-punch's, and one boot of rangelock at p001 reading 3.4x
# faster: its interval reaches far past every bar.
analysis/rlsynth "$tmp/run" --variants stock,rangelock,rwsem-range --iterations 3 \
	--threads 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 >/dev/null 2>&1
for f in "$tmp"/run/*/*.result.json; do
	jq '.params += {punch_len: 65536, fault_bytes: 4096, mmap_threads: 2, punch_threads: 1,
		layout: "interleaved-overlapping", geometry: "random-sparse"}' "$f" >"$f.n" && mv "$f.n" "$f"
done
f=$tmp/run/rangelock/p001-dio-i1.result.json
jq '(.ops[] | select(.name == "read") | .count) |= (. * 3.4 | floor) |
    (.ops[] | select(.name == "read") | .ops_per_s) = ((.ops[] | select(.name == "read") | .count) / 10)' \
	"$f" >"$f.n" && mv "$f.n" "$f"
run analysis/rlstat report "$tmp/run"
is "$RC" 0 "the report draws its charts"
run $FITS "$tmp"/run/*.svg
is "$RC:$OUT" "0:" "every text of every chart lies on its canvas, no rotated labels overlap"
grep -q 'geometry=random-sparse' "$tmp/run/report.html" &&
	! grep -q 'geometry=random-sparse' "$tmp"/run/tput-*.svg
ok $? "the parameters are in report.html's captions, not in the chart titles"

rel=$tmp/run/relative-throughput
read -r w h _ < <(analysis/pngstat "$rel.png")
ok "$([ "$w" -gt 960 ] && [ "$h" = 540 ]; echo $?)" "the relative chart widens with its 30 rows (${w}x$h)"
# the y tics, in percent ("+300%" on a log-ratio axis, "50" on a linear one)
ytics=$(awk '/text-anchor="end"/ { getline; gsub(/<[^>]*>|[ \t+%]/, ""); if ($0 ~ /^-?[0-9]+$/) print ($0 < 0 ? -$0 : $0) }' "$rel.svg" | sort -n | tail -1)
hi=$(analysis/rlstat report "$tmp/run" --no-charts >/dev/null 2>&1 && awk '/rangelock +p001-dio +Gmean read ops/ { gsub(/[^0-9.+-]/, " ", $NF); print $NF; exit }' "$tmp/run/report.txt" | tr -d '+ ]')
ok "$([ -n "$ytics" ] && [ "$ytics" -le 300 ]; echo $?)" "its axis is set by the bars (up to $ytics%), not the interval (to +$hi%)"
grep -q 'log-ratio axis' "$rel.svg"
ok $? "past +-100% it is a log-ratio axis, labelled in percent"
like "$(grep -o 'to +[0-9]*%' "$rel.svg")" "^to \+[0-9]{3,}%$" "the cut interval's end is written at the axis"
read -r w h _ < <(analysis/pngstat "$tmp/run/tput-01-dio-read.png")
ok "$([ "$w" = 960 ] && [ "$h" = 540 ] && grep -q 'rangelock: to [0-9]' "$tmp/run/tput-01-dio-read.svg"; echo $?)" \
	"the throughput chart (960x540) cuts that interval too, naming its variant"
done_testing
