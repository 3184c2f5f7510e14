#!/bin/bash
# A full disk loses nothing: on a small tmpfs filled to a few sizes of free
# space, `rlstat report`, `history trend`, a first `history import` and
# `history rebuild` each either replace their outputs as a whole or leave
# the old ones byte for byte, exit 2 with an error that says "No space
# left on device" (or SQLite's "database or disk is full"), and leave no
# staging directory or temporary file; once space is back, the next run
# works (no empty database refused for ever).
. "$(dirname "$0")/lib/tap.sh"
for c in gnuplot jq; do
	command -v $c >/dev/null || { echo "1..0 # skip $c not installed"; exit 0; }
done
[ -x analysis/rlstat ] && [ -x analysis/rlsynth ] || make -s -C analysis >/dev/null || exit 2

tmp=$(mktemp -d)
m=$tmp/m
mkdir "$m"
if ! mount -t tmpfs -o size=3m tmpfs "$m" 2>/dev/null; then
	rm -rf "$tmp"
	echo "1..0 # skip cannot mount a tmpfs here (needs root): the full disk is a small tmpfs"
	exit 0
fi
trap 'umount "$m"; rm -rf "$tmp"' EXIT
R=$TOP/analysis/rlstat
frees="0 8 60 200 450"
plan 13

# fill FREE_KB: leave that much space on the tmpfs
fill() {
	rm -f "$m/fill"
	local avail
	avail=$(df -k --output=avail "$m" | tail -1)
	[ "$avail" -gt "$1" ] || return 0
	dd if=/dev/zero of="$m/fill" bs=1k count=$((avail - $1)) 2>/dev/null || true
}
sums() { (cd "$1" && find . -path ./fill -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum); }
leftovers() { find "$m" -name '.rlstat-*' -o -name '*.tmp.*' -o -name '*.new.*' -o -name '*-journal' -o -name '*.unusable'; }
full_msg='No space left on device|database or disk is full'

# check DESC DIR CMD...: on each fill level, exit 0 or 2 with the cause and
# DIR as it was (all or nothing); at least one level refused
check() {
	local desc=$1 dir=$2 free s0 rc out bad='' refused=0
	shift 2
	for free in $frees; do
		s0=$(sums "$dir")
		fill "$free"
		out=$("$@" 2>&1 >/dev/null)
		rc=$?
		rm -f "$m/fill"
		if [ "$rc" = 2 ]; then
			refused=$((refused + 1))
			[[ $out =~ $full_msg ]] && [ "$(wc -l <<<"$out")" -le 2 ] ||
				bad="$bad [$free KB: message '$out']"
			[ "$(sums "$dir")" = "$s0" ] || bad="$bad [$free KB: outputs changed]"
		elif [ "$rc" != 0 ]; then
			bad="$bad [$free KB: exit $rc: $out]"
		fi
		[ -z "$(leftovers)" ] || bad="$bad [$free KB: left $(leftovers | xargs)]"
	done
	[ "$refused" -gt 0 ] || bad="$bad [no fill level made it fail]"
	is "$bad" "" "$desc: all or nothing, the cause named, nothing left behind"
}

# --- report: report.txt, report.html and ~20 charts ---
analysis/rlsynth "$m/run" --variants stock,imutex --threads 1,2 --iterations 3 --samples 300 >/dev/null || exit 2
"$R" report "$m/run" >/dev/null 2>&1
ok $? "a first report with space"
fill 60
"$R" report "$m/run" >/dev/null 2>"$tmp/err"
is "$?" 2 "report on a full disk: exit 2"
like "$(cat "$tmp/err")" "$full_msg" "report on a full disk: the error says the disk is full"
check "report" "$m/run" "$R" report "$m/run"

# --- trend: trend/ and index.html ---
mkdir "$m/n"
for k in 1 2 3; do
	analysis/rlsynth "$m/n/night$k" --seed "$k" --variants stock,rangelock --iterations 3 \
		--samples 200 >/dev/null || exit 2
	"$R" history import "$m/n/night$k" --db "$tmp/h.sqlite" >/dev/null 2>&1 || exit 2
done
"$R" history trend --db "$tmp/h.sqlite" --out "$m/n" >/dev/null 2>&1
ok $? "a first trend page with space"
fill 20
"$R" history trend --db "$tmp/h.sqlite" --out "$m/n" >/dev/null 2>"$tmp/err"
rc=$?
[ "$rc" = 2 ] && [ -s "$m/n/index.html" ] && [ "$(find "$m/n/trend" -name '*.png' -size +0 | wc -l)" -ge 4 ]
ok $? "trend on a full disk: exit 2 ($rc), the old trend/ and index.html still there"
check "trend" "$m/n" "$R" history trend --db "$tmp/h.sqlite" --out "$m/n"

# --- a first import: no database, or a whole one ---
for free in 0 4; do
	rm -f "$m/h.sqlite" "$m/h.sqlite.lock"
	fill "$free"
	"$R" history import "$m/n/night1" --db "$m/h.sqlite" >/dev/null 2>"$tmp/err"
	rc=$?
	rm -f "$m/fill"
	[ "$rc" = 2 ] && [ ! -e "$m/h.sqlite" ] && [[ $(cat "$tmp/err") =~ $full_msg ]]
	ok $? "first import with $free KB free: exit 2 ($rc), no database file left, the cause named"
done
"$R" history import "$m/n/night1" --db "$m/h.sqlite" >/dev/null 2>&1
ok $? "with space back the next import makes the database"
check "import" "$m" "$R" history import "$m/n/night2" --db "$m/h.sqlite"

# --- rebuild: the old database stays until the new one is whole ---
check "rebuild" "$m" "$R" history rebuild --db "$m/h.sqlite" --from "$m/n"
"$R" history show --db "$m/h.sqlite" >/dev/null 2>&1
ok $? "after it all the history is usable"
