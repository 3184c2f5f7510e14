#!/bin/bash
# A busy history is busy, not broken. A writer outside rlstat (sqlite3)
# holds the database exclusively for a few seconds; an import started
# meanwhile waits for it; a rebuild started meanwhile waits for the import
# and says who it waits for; nothing is moved aside as "unusable", every
# command exits 0 and the history ends with every night. An import that
# waits past its limit says the database is busy and who holds it, and
# does not advise a rebuild.
. "$(dirname "$0")/lib/tap.sh"
for c in sqlite3 jq; do
	command -v $c >/dev/null || { echo "1..0 # skip $c not installed"; exit 0; }
done
[ -x analysis/rlstat ] && [ -x analysis/rlsynth ] || make -s -C analysis >/dev/null || exit 2
plan 7

tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait; rm -rf "$tmp"' EXIT
R=$TOP/analysis/rlstat
db=$tmp/h.sqlite
mkdir "$tmp/n"
for k in 1 2 3; do
	analysis/rlsynth "$tmp/n/night$k" --seed "$k" --variants stock,rangelock --iterations 3 \
		--samples 200 >/dev/null || exit 2
	jq -n --arg s "2026-11-0${k}T02:00:00Z" '{schema: "rlbench-night/1", started: $s,
		kernel: {source: "git", commit: "0123456789abcdef0123"}}' >"$tmp/n/night$k/night.json"
done
"$R" history import "$tmp/n/night1" --db "$db" >/dev/null || exit 2
"$R" history import "$tmp/n/night2" --db "$db" >/dev/null || exit 2

# hold FILE SECONDS: sqlite3 holds the database exclusively, then commits
hold() { { echo "BEGIN EXCLUSIVE; UPDATE meta SET value = value WHERE key = 'schema';"
	   sleep "$2"; echo "COMMIT;"; } | sqlite3 "$1"; }

hold "$db" 4 &
holder=$!
sleep 0.5
"$R" history import "$tmp/n/night3" --db "$db" >"$tmp/imp.out" 2>"$tmp/imp.err" &
imp=$!
sleep 0.5
"$R" history rebuild --db "$db" --from "$tmp/n" >"$tmp/reb.out" 2>"$tmp/reb.err" &
reb=$!
wait $holder
wait $imp
rc_imp=$?
wait $reb
rc_reb=$?
is "$rc_imp" 0 "an import started while sqlite3 held the database waited and exited 0 ($(cat "$tmp/imp.err"))"
is "$rc_reb" 0 "a rebuild started meanwhile exited 0 ($(cat "$tmp/reb.err"))"
like "$(cat "$tmp/reb.err")" "in use by pid $imp \(.*history import" "the rebuild said it waited for the import, by pid"
[ -z "$(find "$tmp" -name '*.unusable' -o -name '*.tmp.*' -o -name '*.new.*')" ]
ok $? "nothing moved aside as unusable, no temporary left"
nights=$(sqlite3 "$db" "SELECT group_concat(night, ' ') FROM (SELECT night FROM nights ORDER BY night)")
is "$nights" "night1 night2 night3" "the history holds every night, the one imported during the rebuild too"

# a lock held past the import's limit (30 s): busy, who, no rebuild advice
hold "$db" 34 &
holder=$!
sleep 0.5
"$R" history import "$tmp/n/night3" --db "$db" >/dev/null 2>"$tmp/imp.err"
rc=$?
err=$(cat "$tmp/imp.err")
[ "$rc" = 2 ] && [[ $err == *busy* ]] && [[ $err == *"pid $holder"* || $err == *sqlite3* ]]
ok $? "an import that waited 30 s: exit 2, 'busy' and who holds it ($err)"
[[ $err != *rebuild* ]]
ok $? "and it does not advise a rebuild"
wait $holder
