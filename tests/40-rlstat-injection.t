#!/bin/bash
# Data never becomes code: every string from a run or a history that
# reaches a gnuplot script, an HTML page or a terminal carries a marker
# command (gnuplot's system() and `shell`, a data block's end marker, a
# javascript: URL, terminal escapes), and none of them runs or lands raw.
# The names are ones rlstat accepts: variants "EOD" and "shell" (valid
# variant names) make a data row that ended the block early and a command
# that started /bin/sh on rlstat's standard input; night names come from
# night.json (any string) and directory names; the paths hold apostrophes.
. "$(dirname "$0")/lib/tap.sh"
for c in gnuplot jq; do
	command -v $c >/dev/null || { echo "1..0 # skip $c not installed"; exit 0; }
done
[ -x analysis/rlstat ] && [ -x analysis/rlsynth ] || make -s -C analysis >/dev/null || exit 2
plan 16

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
R=$TOP/analysis/rlstat
pwned=$tmp/PWNED
# what a shell would run if one were started on rlstat's standard input
echo "touch '$pwned.stdin'" >"$tmp/stdin"
# a string that is a command wherever a quote is left unescaped
q="x' . system('touch $pwned.sq') . '"
esc=$'\e]0;PWNED\a\e[31mred\e[0m\xc2\x9b2J'

# --- a report: variants EOD and shell, a params value and a path with quotes ---
run_dir="$tmp/it's a run"
analysis/rlsynth "$run_dir" --variants stock,EOD,shell --threads 1,2 --iterations 3 \
	--samples 300 --fail stock:1:1 >/dev/null || exit 2
for f in "$run_dir"/*/p001-*.result.json; do
	jq --arg q "$q" --arg e "$esc" '.params.layout = $q |
		if .status == "failed" then .error = $e else . end' "$f" >"$tmp/x" && mv "$tmp/x" "$f"
done
jq --arg e "$esc" '.host.cpu_model = ("cpu " + $e) | .matrix = "<script>alert(1)</script>"' \
	"$run_dir/meta.json" >"$tmp/x" && mv "$tmp/x" "$run_dir/meta.json"
(cd "$tmp" && "$R" report "$run_dir" <"$tmp/stdin" >"$tmp/out" 2>&1)
rc=$?
is "$rc" 0 "report of a run with variants EOD and shell, quotes in a param and the path: exit 0"
[ "$rc" = 0 ] || diag <"$tmp/out"
pwned() { compgen -G "$pwned*" >/dev/null; }
! pwned
ok $? "report: no marker command ran (gnuplot system(), shell on stdin)"
n=$(find "$run_dir" -maxdepth 1 -name '*.svg' | wc -l)
[ "$n" -ge 10 ] && grep -q '>EOD<' "$run_dir"/lat-p000-dio-read.svg &&
	grep -q '>shell<' "$run_dir"/lat-p000-dio-read.svg
ok $? "report: every chart drawn ($n SVGs), variants EOD and shell named in them"
[ -z "$(find "$run_dir" -maxdepth 1 -name '.rlstat*')" ]
ok $? "report: no staging directory left"
! LC_ALL=C grep -q $'[\x1b\x07]\|\xc2\x9b' "$run_dir/report.txt" && grep -q 'cpu \\x1b\]0;PWNED\\x07' "$run_dir/report.txt"
ok $? "report.txt: meta.json's terminal escapes shown as \\xNN, never raw"
"$R" summary "$run_dir" >"$tmp/summary" 2>&1
! LC_ALL=C grep -q $'[\x1b\x07]\|\xc2\x9b' "$tmp/summary" && grep -q 'FAILED.*\\x1b' "$tmp/summary"
ok $? "summary: a failed result's error shown as \\xNN, never raw"
! grep -qi '<script' "$run_dir/report.html" && grep -q '&lt;script&gt;' "$run_dir/report.html"
ok $? "report.html: meta.json's markup escaped"
hrefs=$(grep -o '\(href\|src\)="[^"]*"' "$run_dir/report.html")
bad=$(grep -v '="\./[A-Za-z0-9._~/%-]*"' <<<"$hrefs")
[ -n "$hrefs" ] && [ -z "$bad" ]
ok $? "report.html: every link a ./ relative path, percent-encoded ($bad)"

# --- a trend page: night names from night.json and directories, --out with a quote ---
out="$tmp/night's results"
mkdir -p "$out"
names=("$q" "EOD" "shell" "javascript:alert(1)" "x\`touch $pwned.bq\`y" "@ARG0$esc")
for k in 1 2 3 4 5 6; do
	d=$out/n$k
	[ "$k" = 4 ] && d=$out/${names[3]}
	analysis/rlsynth "$d" --seed "$k" --variants stock,rangelock --iterations 3 \
		--samples 200 >/dev/null || exit 2
	jq -n --arg n "${names[k - 1]}" --arg s "2026-11-0${k}T02:00:00Z" \
		'{schema: "rlbench-night/1", night: $n, started: $s,
		  kernel: {source: "git", branch: "main", commit: "0123456789abcdef0123"}}' >"$d/night.json"
	[ "$k" = 4 ] && rm "$d/night.json"	# named after its directory
	"$R" history import "$d" --db "$out/h.sqlite" >>"$tmp/imp" 2>&1 || { diag <"$tmp/imp"; exit 2; }
done
(cd "$tmp" && "$R" history trend --db "$out/h.sqlite" --out "$out" <"$tmp/stdin" >"$tmp/out" 2>&1)
rc=$?
is "$rc" 0 "trend of nights named with quotes, EOD, shell, backquotes, a macro and javascript:"
[ "$rc" = 0 ] || diag <"$tmp/out"
! pwned
ok $? "trend: no marker command ran"
! grep -q 'gnuplot-nox' "$tmp/out"
ok $? "trend: no wrong hint about gnuplot-nox"
n=$(find "$out/trend" -name '*.svg' 2>/dev/null | wc -l)
[ "$n" -ge 1 ] && grep -q 'EOD' "$out"/trend/*.svg && grep -qF '@ARG0' "$out"/trend/*.svg
ok $? "trend: charts drawn ($n SVGs), the night names on their axis as text"
hrefs=$(grep -o '\(href\|src\)="[^"]*"' "$out/index.html")
bad=$(grep -v '="\./[A-Za-z0-9._~/%-]*"' <<<"$hrefs")
[ -n "$hrefs" ] && [ -z "$bad" ]
ok $? "index.html: every link a ./ relative path, percent-encoded ($bad)"
grep -qF 'href="./javascript%3Aalert%281%29/report.html"' "$out/index.html"
ok $? "index.html: the night javascript:alert(1) linked as ./javascript%3Aalert%281%29/"
"$R" history show --db "$out/h.sqlite" >"$tmp/show" 2>&1
! LC_ALL=C grep -q $'[\x1b\x07]\\|\xc2\x9b' "$tmp/show" && grep -qF '@ARG0\x1b]0;PWNED' "$tmp/show"
ok $? "history show: a night name's terminal escapes shown as \\xNN, never raw"
"$R" history mail "${names[5]}" --db "$out/h.sqlite" >/dev/null 2>&1	# by its name
! LC_ALL=C grep -q $'[\x1b\x07]\\|\xc2\x9b' "$out/n6/report-mail.txt" && grep -qF '@ARG0\x1b]0;PWNED' "$out/n6/report-mail.txt"
ok $? "history mail: the same in report-mail.txt"
