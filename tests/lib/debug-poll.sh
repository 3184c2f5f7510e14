# shellcheck shell=bash
# The checks of a configs/debug-poll.matrix run on a DEBUG=1 kernel,
# shared by tests/93 (rangelock) and tests/slow/98 (the other safe
# variants): call after `run make ... MATRIX=debug-poll ...` with the
# variant; four tests.
debug_poll_checks() {
	local v=$1 rd failed split res
	echo "$OUT" | tail -3 | sed 's/^/# /'
	rd=$(echo "$OUT" | sed -n 's/^run: //p' | tail -1)
	res=("$rd/$v"/*.result.json)
	failed=$(jq -r 'select(.status != "ok") | .env.point + ": " + .error' "${res[@]}")
	is "$RC:${#res[@]}:$failed" "0:$(runners/matrix configs/debug-poll.matrix | grep -c '^point '):" \
		"polled direct IO: every point passed (no hang, splat or IO error)"
	is "$(jq -s 'map(.verify.errors) | add' "${res[@]}")" 0 "... and the oracle found no data errors"
	grep -q '^rlbench: null_blk: 1 poll queue(s), io_poll 1' "$rd/$v"/console-boot*.log
	ok $? "... on a null_blk disk with a poll queue"
	# --split-pages prints "<n>-byte blocks, <before> extents before,
	# <after> after": moving one block inside each IO's first page adds
	# two extents per IO (at least 1.5 counted, in case one merged back).
	local splits=()
	for r in "${res[@]}"; do
		jq -e '.params["split-pages"]' "$r" >/dev/null && splits+=("$r")
	done
	split=$(for r in "${splits[@]}"; do
		sed -n 's/^rlwork dio: --split-pages: 1024-byte blocks, \([0-9]*\) extents before, \([0-9]*\) after$/\1 \2/p' "${r%.result.json}.out" |
			tr '\n' ' '
		jq -r '.params.size / .params.bs' "$r"; done)
	is "$(awk 'NF == 3 && $2 - $1 >= 1.5 * $3 { n++ } END { print n + 0 }' <<<"$split")" "${#splits[@]}" \
		"... each --split-pages point's file on 1 KiB blocks, split inside every IO's first page (extents before, after, IOs: ${split//$'\n'/; })"
}
