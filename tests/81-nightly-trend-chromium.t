#!/bin/bash
# The nightly trend page: `rlstat history trend` draws one chart per point,
# mode and gated metric (PNG and SVG) and results/nightly/index.html lists
# every night with its verdict and links them; the page loads nothing from
# the network and headless Chromium renders it with the charts in it (the
# same page without its images is grey).
. "$(dirname "$0")/lib/tap.sh"
[ -x analysis/rlstat ] && [ -x analysis/rlsynth ] && [ -x analysis/pngstat ] || make -s -C analysis >/dev/null || exit 2
plan 10

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
R=$TOP/analysis/rlstat
out=$tmp/nightly
mkdir -p "$out"
for k in 1 2 3 4 5 6 7 8; do
	d=$out/202611$(printf %02d "$k")-c$k eff=()
	[ "$k" -ge 5 ] && eff=(--effect rangelock=-8)
	analysis/rlsynth "$d" --seed "$k" --mode both --noise 0.01 --effect-point 0 ${eff[@]+"${eff[@]}"} >/dev/null
	jq -n --arg n "${d##*/}" --arg s "2026-11-0${k}T02:00:00Z" --arg c "$(printf 'c%s' "$k" | sha1sum | cut -c1-40)" \
		'{night: $n, started: $s, kernel: {source: "git", branch: "main", commit: $c}}' >"$d/night.json"
	"$R" history import "$d" --db "$tmp/h.sqlite" >/dev/null
	"$R" history mail "$d" --db "$tmp/h.sqlite" >/dev/null 2>&1
done
run "$R" history trend --db "$tmp/h.sqlite" --out "$out"
is "$RC" 0 "history trend exits 0"
is "$(find "$out/trend" -name '*.png' | wc -l) $(find "$out/trend" -name '*.svg' | wc -l)" "6 6" \
	"one PNG and one SVG per point, mode and gated metric (2 points: insn/op, ops/s, p99)"
grep -Eq "rangelock \+[0-9.]+%" "$out/trend/cost-p000-dio-read.insn_per_op.svg" &&
	grep -Eq "rangelock -[0-9.]+%" "$out/trend/time-p000-dio-read.ops_per_s.svg" &&
	! grep -Eq "rangelock [-+][0-9.]+%" "$out/trend/time-p001-dio-read.ops_per_s.svg"
ok $? "the step's change point is marked (variant and shift) where it is, and only there"
html=$(cat "$out/index.html")
is "$(grep -o '<tr><td>202611' <<<"$html" | wc -l)" 8 "index.html lists the 8 nights"
like "$html" '<td>20261105-c5</td>.*<td class="FAIL">FAIL</td><td>20261104-c4</td>' \
	"the night of the step shows FAIL against the previous night"
like "$html" 'href="./20261108-c8/report-mail.txt"' "the nights link their mail (./ relative)"
! grep -Eq '(src|href)="(https?:)?//' "$out/index.html"
ok $? "nothing on the page comes from the network"
[ -z "$(find "$out" -maxdepth 1 \( -name '*.tmp.*' -o -name '*.old.*' \))" ]
ok $? "no temporary file or directory is left in $out"

if ! command -v chromium >/dev/null; then
	ok 1 "chromium is installed (make setup installs Debian's chromium)"
	ok 1 "chromium renders the page"
	done_testing
fi
sed 's/<img [^>]*>//g' "$out/index.html" >"$out/noimg.html"
shot() {	# page png
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$tmp/profile" --screenshot="$2" \
		--window-size=1280,3000 "file://$out/$1" >"$tmp/chromium.log" 2>&1
}
shot index.html "$tmp/shot.png"
read -r w h distinct colourful < <(analysis/pngstat "$tmp/shot.png")
echo "# $w x $h, $distinct distinct colours, $colourful colourful pixels"
[ "$w" = 1280 ] && [ "${distinct:-0}" -ge 64 ] && [ "${colourful:-0}" -ge 10000 ]
ok $? "the screenshot of index.html is a PNG full of chart colours"
shot noimg.html "$tmp/noimg.png"
read -r _ _ _ grey < <(analysis/pngstat "$tmp/noimg.png")
[ -n "$grey" ] && [ $((grey * 5)) -lt "${colourful:-0}" ]
ok $? "the colour is the charts: without images $grey colourful pixels"
done_testing
