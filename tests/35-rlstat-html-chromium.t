#!/bin/bash
# report.html opened in headless Chromium shows the charts: the screenshot
# is a valid PNG with chart colours in it, and the same page without its
# images is grey (so the colours are the charts, not the page).
. "$(dirname "$0")/lib/tap.sh"
[ -x analysis/rlstat ] && [ -x analysis/pngstat ] || make -s -C analysis >/dev/null || exit 2
plan 6

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v chromium >/dev/null; then
	ok 1 "chromium is installed (make setup installs Debian's chromium)"
	done_testing
fi
_tap 0 "chromium is installed"

cp -r tests/fixtures/run-small "$tmp/run"
analysis/rlstat report "$tmp/run" >/dev/null 2>&1
sed 's/<img [^>]*>//g' "$tmp/run/report.html" >"$tmp/run/noimg.html"

shot() {	# page png
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$tmp/profile" --screenshot="$2" \
		--window-size=1280,2000 "file://$tmp/run/$1" >"$tmp/chromium.log" 2>&1
}
shot report.html "$tmp/shot.png"
[ -s "$tmp/shot.png" ]
ok $? "screenshot of report.html written"
read -r w h distinct colourful < <(analysis/pngstat "$tmp/shot.png")
[ "$w" = 1280 ] && [ "$h" = 2000 ]
ok $? "screenshot is a valid 1280x2000 PNG"
echo "# $distinct distinct colours, $colourful colourful pixels"
[ "${distinct:-0}" -ge 64 ] && [ "${colourful:-0}" -ge 10000 ]
ok $? "screenshot is not blank: $distinct colours, $colourful colourful pixels"

shot noimg.html "$tmp/noimg.png"
read -r _ _ _ grey < <(analysis/pngstat "$tmp/noimg.png")
[ -n "$grey" ] && [ $((grey * 10)) -lt "${colourful:-0}" ]
ok $? "the colour is the charts: the page without images has $grey colourful pixels"
head -c 5000 "$tmp/shot.png" >"$tmp/trunc.png"
run analysis/pngstat "$tmp/trunc.png"
[ "$RC" = 2 ] && [[ $OUT == *trunc.png* ]]
ok $? "the PNG check refuses a truncated screenshot"
done_testing
