#!/bin/bash
# Bad input to the nightly tools: one line naming the input and what is
# accepted, exit 2, nothing that existed changed and no temporary file
# left.  A history database that is not one (garbage, truncated) is refused
# by every command and replaced only by `history rebuild`, which keeps it
# aside; a KSRC that is not a git tree, a branch or revisions that do not
# exist, a point or metric that is not there.
. "$(dirname "$0")/lib/tap.sh"
[ -x analysis/rlstat ] && [ -x analysis/rlsynth ] || make -s -C analysis >/dev/null || exit 2
plan 23

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
R=$TOP/analysis/rlstat
one_line() { [ "$(printf '%s\n' "$1" | grep -c .)" = 1 ]; }

mkdir -p "$tmp/nights"
for k in 1 2 3; do
	analysis/rlsynth "$tmp/nights/2026110$k-c$k" --seed "$k" --mode cost >/dev/null
	jq -n --arg s "2026-11-0${k}T02:00:00Z" '{started: $s, kernel: {source: "git", commit: "c"}}' \
		>"$tmp/nights/2026110$k-c$k/night.json"
done

# garbage where the database should be
head -c 3000 /dev/urandom >"$tmp/h.sqlite"
sum=$(sha256sum <"$tmp/h.sqlite")
for cmd in "show" "import $tmp/nights/20261101-c1" "mail $tmp/nights/20261101-c1" "trend --out $tmp/nights"; do
	# shellcheck disable=SC2086  # the subcommand and its arguments
	run_split "$R" history $cmd --db "$tmp/h.sqlite"
	[ "$rc" = 2 ] && one_line "$err" && [[ $err == *"$tmp/h.sqlite: not a usable history database"*"history rebuild"* ]]
	ok $? "history ${cmd%% *} refuses a file that is not a history database: $err"
done
is "$(sha256sum <"$tmp/h.sqlite")" "$sum" "the refused file is unchanged"
is "$(find "$tmp" -maxdepth 2 -name '*.tmp.*' -o -maxdepth 2 -name '*-journal' | wc -l)" 0 "no temporary file left"
[ ! -e "$tmp/nights/trend" ] && [ ! -e "$tmp/nights/index.html" ]
ok $? "nothing was drawn from it"

# a real database cut short
"$R" history rebuild --db "$tmp/good.sqlite" --from "$tmp/nights" >/dev/null
head -c 6000 "$tmp/good.sqlite" >"$tmp/cut.sqlite"
run_split "$R" history show --db "$tmp/cut.sqlite"
[ "$rc" = 2 ] && one_line "$err" && [[ $err == *cut.sqlite* ]]
ok $? "a truncated database is refused: $err"

run_split "$R" history rebuild --db "$tmp/h.sqlite" --from "$tmp/nights"
[ "$rc" = 0 ] && [[ $err == *"kept as $tmp/h.sqlite.unusable"* ]]
ok $? "rebuild on request makes it again and says where the old file went"
is "$(sha256sum <"$tmp/h.sqlite.unusable")" "$sum" "the unusable file is kept, byte for byte"
run "$R" history show --db "$tmp/h.sqlite"
like "$OUT" "history $tmp/h.sqlite: 3 nights" "the rebuilt history holds the 3 nights"

run_split "$R" history import "$tmp/nosuch" --db "$tmp/h.sqlite"
[ "$rc" = 2 ] && one_line "$err" && [[ $err == *"$tmp/nosuch"* ]]
ok $? "import of a directory that does not exist: $err"
run_split "$R" history show --db "$tmp/absent.sqlite"
[ "$rc" = 2 ] && [ ! -e "$tmp/absent.sqlite" ] && [[ $err == *absent.sqlite* ]]
ok $? "show does not create a database: $err"
run_split "$R" history show --db "$tmp/h.sqlite" --significance 2
[ "$rc" = 2 ] && one_line "$err" && [[ $err == *"--significance 2: accepted"* ]]
ok $? "a significance level out of range: $err"

# The runners
mkdir -p "$tmp/notgit"
run_split runners/nightly --ksrc "$tmp/notgit" --out "$tmp/out"
[ "$rc" = 2 ] && one_line "$err" && [[ $err == *"KSRC='$tmp/notgit' is not a git tree (accepted:"* ]] && [ ! -e "$tmp/out" ]
ok $? "nightly: KSRC that is not a git tree, nothing created: $err"
git init -q "$tmp/git" && git -C "$tmp/git" -c user.email=t@t -c user.name=t commit -q --allow-empty -m one &&
	git -C "$tmp/git" -c user.email=t@t -c user.name=t commit -q --allow-empty -m two
run_split runners/nightly --ksrc "$tmp/git" --branch nosuch --out "$tmp/out"
[ "$rc" = 2 ] && one_line "$err" && [[ $err == *"BRANCH='nosuch' is not a branch"* ]]
ok $? "nightly: a branch that does not exist: $err"
run_split runners/nightly --matrix nosuch --out "$tmp/out"
[ "$rc" = 2 ] && one_line "$err" && [[ $err == *"MATRIX='nosuch'"* ]]
ok $? "nightly: a matrix that does not exist: $err"

b=(runners/bisect --point p001 --metric read.insn_per_op)
n0=$(find results/bisect -maxdepth 1 2>/dev/null | wc -l)
run_split "${b[@]}" --ksrc "$tmp/notgit" --good HEAD~1 --bad HEAD
[ "$rc" = 2 ] && one_line "$err" && [[ $err == *"KSRC='$tmp/notgit' is not a git tree"* ]]
ok $? "bisect: KSRC that is not a git tree: $err"
run_split "${b[@]}" --ksrc "$tmp/git" --good nosuch --bad HEAD
[ "$rc" = 2 ] && one_line "$err" && [[ $err == *"GOOD='nosuch' is not a commit of KSRC"* ]]
ok $? "bisect: GOOD that does not exist: $err"
run_split "${b[@]}" --ksrc "$tmp/git" --good HEAD~1 --bad v9.9
[ "$rc" = 2 ] && one_line "$err" && [[ $err == *"BAD='v9.9' is not a commit of KSRC"* ]]
ok $? "bisect: BAD that does not exist: $err"
run_split "${b[@]}" --ksrc "$tmp/git" --good HEAD --bad HEAD~1
[ "$rc" = 2 ] && one_line "$err" && [[ $err == *"is not an ancestor of BAD"* ]]
ok $? "bisect: GOOD after BAD: $err"
run_split runners/bisect --ksrc "$tmp/git" --good HEAD~1 --bad HEAD --point p999 --metric read.insn_per_op
[ "$rc" = 2 ] && one_line "$err" && [[ $err == *"POINT='p999' is not a point of"* ]]
ok $? "bisect: a point the matrix does not have: $err"
is "$(find results/bisect -maxdepth 1 2>/dev/null | wc -l)" "$n0" "bisect made no log directory for bad input"
done_testing
