#!/bin/bash
# rlwork never replaces what it did not create.  --json and --file take a
# new path or a file rlwork wrote (the user.rlwork xattr bound to the
# inode and to the size and mtime rlwork left, workloads/README.md), never
# a copy of one nor one rewritten since, and say so before the run; a run that fails or is interrupted before its threads run removes
# the file it created; a fill that cannot fit is refused.  Every refusal:
# exit 2, one line on stderr naming the input and what is accepted, and the
# whole scratch directory unchanged (names, types, inode numbers, link
# targets, device numbers, sha256 of every file; no temporary file).
. "$(dirname "$0")/lib/tap.sh"
need_rlwork
scratch_dir
plan 36

mounts=()
immutable=""
# shellcheck disable=SC2317  # run from the EXIT trap
cleanup() {
	local m
	for m in "${mounts[@]}"; do umount "$m" 2>/dev/null || true; done
	if [ -n "$immutable" ]; then chattr -i "$immutable" 2>/dev/null || true; fi
	rm -rf "$dir"
}
trap cleanup EXIT
short=(--runtime 0.2 --ramp 0 --size 1m)
root=$([ "$(id -u)" = 0 ]; echo $?)

# snap: every entry under $dir, dot files included
snap() {
	local f
	find "$dir" -mindepth 1 | LC_ALL=C sort | while IFS= read -r f; do
		if [ -L "$f" ]; then
			echo "$f link $(readlink "$f") $(stat -c %i "$f")"
		elif [ -f "$f" ]; then
			echo "$f file $(stat -c %i "$f") $(sha256sum <"$f")"
		else
			echo "$f $(stat -c '%F %t:%T %i' "$f")"
		fi
	done
}

# refuse "name" PATTERN CMD...: exit 2, exactly one line on stderr that
# matches PATTERN (a grep regex), and nothing under $dir changed
refuse() {
	local desc=$1 pat=$2 before after why=""
	shift 2
	before=$(snap)
	run_split "$@"
	after=$(snap)
	[ "$rc" = 2 ] || why+=" exit $rc, not 2;"
	[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [ -n "$err" ] ||
		why+=" stderr is not one line;"
	grep -q -- "$pat" <<<"$err" || why+=" stderr does not match '$pat';"
	[ "$before" = "$after" ] || why+=" files changed;"
	ok "$([ -z "$why" ]; echo $?)" "$desc"
	if [ -n "$why" ]; then
		{
			echo "$why"
			echo "stderr: $err"
			diff <(echo "$before") <(echo "$after")
		} | diag
	fi
}

# alive PID: running, not a zombie; ntasks PID: its threads
alive() {
	local s=""
	read -r _ _ s _ 2>/dev/null <"/proc/$1/stat"
	[ -n "$s" ] && [ "$s" != Z ]
}
ntasks() {
	local t=("/proc/$1/task/"*)
	echo "${#t[@]}"
}

acc="accepted: a new file in a writable directory, a result rlwork wrote, or - for stdout"

# --- --json over what rlwork did not write -------------------------------
u=$dir/user.json
echo '{"mine": true}' >"$u"
refuse "--json over a user's file: refused before the run, file and target untouched" \
	"--json: '$u' exists and was not written by rlwork: refusing to replace it; $acc (or --force)" \
	"$RLWORK" dio --file "$dir/d" --keep "${short[@]}" --json "$u"
refuse "--dry-run --json over a user's file: not truncated" \
	"--json: '$u' exists and was not written by rlwork" \
	"$RLWORK" dio --dry-run --json "$u"
ln -s user.json "$dir/link.json"
refuse "--json over a symbolic link: link and target untouched" \
	"--json: '$dir/link.json' is a symbolic link, which rlwork never replaces; $acc" \
	"$RLWORK" dio --file "$dir/d" "${short[@]}" --json "$dir/link.json"
refuse "... also with --force, also --dry-run" \
	"--json: '$dir/link.json' is a symbolic link" \
	"$RLWORK" dio --dry-run --force --json "$dir/link.json"
if [ "$root" = 0 ] && mknod "$dir/nul" c 1 3; then
	refuse "--json over a device node (a null device made in the scratch directory)" \
		"--json: '$dir/nul' is a character device, which rlwork never replaces; $acc" \
		"$RLWORK" dio --file "$dir/d" "${short[@]}" --force --json "$dir/nul"
else
	skip "not root: cannot mknod"
fi
mkdir "$dir/adir"
refuse "--json naming a directory" \
	"--json: '$dir/adir' is a directory, which rlwork never replaces; $acc" \
	"$RLWORK" dio --dry-run --json "$dir/adir"
refuse "--json naming a directory with a trailing slash" \
	"--json: '$dir/adir/' names a directory; $acc" \
	"$RLWORK" dio --dry-run --json "$dir/adir/"

# --- --json equal to --file -----------------------------------------------
refuse "--json equal to --file" \
	"--json: '$dir/same' is the target file (--file $dir/same); accepted: any other path" \
	"$RLWORK" buffered-rw --file "$dir/same" "${short[@]}" --json "$dir/same"
ln -s . "$dir/here"
refuse "--json equal to --file through another name (a symlinked directory, ..)" \
	"is the target file" \
	"$RLWORK" buffered-rw --file "$dir/adir/../same" "${short[@]}" --json "$dir/here/same"
run_split "$RLWORK" buffered-rw --file "$dir/k" --keep "${short[@]}"
ok "$([ "$rc" = 0 ] && [ -f "$dir/k" ]; echo $?)" "a kept data file for the next checks"
ln "$dir/k" "$dir/k-hardlink.json"
refuse "--json a hard link of --file (same inode), even with --force" \
	"--json: '$dir/k-hardlink.json' is the target file" \
	"$RLWORK" buffered-rw --file "$dir/k" "${short[@]}" --force --json "$dir/k-hardlink.json"
refuse "--json over rlwork's kept data file (not a result)" \
	"--json: '$dir/k' exists and was not written by rlwork (its user.rlwork mark was made for another file" \
	"$RLWORK" dio --dry-run --json "$dir/k"
rm "$dir/k-hardlink.json"

# --- --json where it cannot be written: before the run, not after ---------
if [ "$root" = 0 ] && mkdir "$dir/ro" && mount --bind "$dir/ro" "$dir/ro" &&
   mounts+=("$dir/ro") && mount -o remount,ro,bind "$dir/ro"; then
	refuse "--json in a read-only directory (ro bind mount): exit 2 before the run (no data file kept)" \
		"--json: directory of '$dir/ro/r.json' is not writable (Read-only file system); $acc" \
		"$RLWORK" dio --file "$dir/d" --keep "${short[@]}" --json "$dir/ro/r.json"
else
	skip "not root: no read-only bind mount"
fi
if [ "$root" = 0 ] && mkdir "$dir/imm" && chattr +i "$dir/imm" 2>/dev/null; then
	immutable=$dir/imm
	refuse "--json in an immutable directory (chattr +i, denies root too)" \
		"--json: directory of '$dir/imm/r.json' is not writable (Operation not permitted)" \
		"$RLWORK" dio --file "$dir/d" --keep "${short[@]}" --json "$dir/imm/r.json"
	chattr -i "$dir/imm"
	immutable=""
else
	skip "chattr +i not available here"
fi
if [ "$root" = 0 ] && command -v setpriv >/dev/null; then
	mkdir -m 755 "$dir/rootonly"
	chmod 755 "$dir"
	refuse "--json in a directory the user may not write (run as nobody)" \
		"--json: directory of '$dir/rootonly/r.json' is not writable (Permission denied)" \
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$RLWORK" dio --dry-run --json "$dir/rootonly/r.json"
	chmod 700 "$dir"
else
	skip "not root or no setpriv: cannot run as nobody"
fi
long=$dir/$(printf 'n%.0s' {1..300}).json
refuse "--json name longer than NAME_MAX: exit 2 before the run (no data file kept)" \
	"--json: the file name of '.*' is 305 bytes long; accepted: names up to 255 bytes" \
	"$RLWORK" dio --file "$dir/d" --keep "${short[@]}" --json "$long"
long=$dir/$(printf 'd%.0s/' {1..2100})r.json
refuse "--json path longer than PATH_MAX" \
	"--json: '.*\.\.\.' is [0-9]* bytes long; accepted: paths up to 4080 bytes" \
	"$RLWORK" dio --dry-run --json "$long"

# --- what --json may replace ---------------------------------------------
j=$dir/r.json
run_split "$RLWORK" buffered-rw --file "$dir/d" "${short[@]}" --json "$j"
ino=$(stat -c %i "$j")
run_split "$RLWORK" buffered-rw --file "$dir/d" "${short[@]}" --json "$j"
ok "$([ "$rc" = 0 ] && [ "$(stat -c %i "$j")" != "$ino" ] &&
      jq -e '.schema == "rlbench-result/1"' "$j" >/dev/null; echo $?)" \
	"a result rlwork wrote is replaced by the next run's (rename: a new inode)"
run_split "$RLWORK" dio --dry-run --json "$j"
ok "$([ "$rc" = 0 ] && jq -e '.schema == "rlbench-point/1"' "$j" >/dev/null; echo $?)" \
	"... and by a dry run's point document"
# The mark records the size and mtime rlwork left: a user's rewrite in
# place keeps the inode and the xattr, and is the user's from then on.
# (The sleep: mtimes are only as fine as the filesystem's clock tick.)
sleep 0.05
echo '{"mine": "rewritten in place"}' >"$j"
refuse "--json over a result the user rewrote in place (same inode, mark kept): refused" \
	"--json: '$j' exists and was not written by rlwork (written since rlwork did: its size or modification time is not what its user.rlwork mark recorded): refusing to replace it; $acc (or --force)" \
	"$RLWORK" dio --dry-run --json "$j"
run_split "$RLWORK" dio --dry-run --force --json "$u"
ok "$([ "$rc" = 0 ] && jq -e '.schema == "rlbench-point/1"' "$u" >/dev/null; echo $?)" \
	"--force replaces a user's regular file"
ok "$([ -z "$(find "$dir" -name '.rlwork-*')" ] && [ ! -e "$dir/d" ]; echo $?)" \
	"no temporary file and no data file left by these runs"

# --- --file: a copy of rlwork's file is not rlwork's ---------------------
run_split "$RLWORK" buffered-rw --file "$dir/k" --keep "${short[@]}"
ok "$rc" "the kept data file itself is reused"
sleep 0.05
printf 'mine' | dd of="$dir/k" bs=4 seek=100 conv=notrunc status=none
refuse "--file: a kept data file the user rewrote in place (same size, same inode) is refused" \
	"$dir/k: exists and was not created by rlwork (written since rlwork did: its size or modification time is not what its user.rlwork mark recorded): refusing to overwrite it (use --force)" \
	"$RLWORK" buffered-rw --file "$dir/k" "${short[@]}"
cp "$dir/k" "$dir/copy"
refuse "--file: a cp of a kept data file is refused" \
	"$dir/copy: exists and was not created by rlwork: refusing to overwrite it (use --force)" \
	"$RLWORK" buffered-rw --file "$dir/copy" "${short[@]}"
cp -a "$dir/k" "$dir/copy-a"
refuse "--file: a cp -a (xattrs kept, another inode) is refused" \
	"$dir/copy-a: exists and was not created by rlwork (its user.rlwork mark was made for another file" \
	"$RLWORK" buffered-rw --file "$dir/copy-a" "${short[@]}"
head -c 1048576 /dev/urandom >"$dir/block"
dd if="$dir/k" of="$dir/block" bs=4k count=1 conv=notrunc status=none
refuse "--file: a file whose first block was copied from one is refused" \
	"$dir/block: exists and was not created by rlwork: refusing to overwrite it (use --force)" \
	"$RLWORK" dio --file "$dir/block" "${short[@]}"
refuse "--file: a result rlwork wrote is not a data file" \
	"$j: exists and was not created by rlwork (its user.rlwork mark was made for another file" \
	"$RLWORK" buffered-rw --file "$j" "${short[@]}"
rm -f "$dir/k" "$dir/copy" "$dir/copy-a" "$dir/block"

# --- a run that fails before its threads run removes its file ------------
run_split bash -c 'ulimit -n 12 && exec "$@"' sh \
	"$RLWORK" dio --threads 16 --file "$dir/o" "${short[@]}" --keep
ok "$([ "$rc" = 2 ] && [ "$(wc -l <<<"$err")" = 1 ] &&
      grep -q "$dir/o: thread [0-9]*: opening it.*: Too many open files (the open-file limit, ulimit -n, is 12); the run did not start" <<<"$err" &&
      [ ! -e "$dir/o" ]; echo $?)" \
	"an open that fails (ulimit -n): exit 2, one line naming the limit, the created file is removed (even with --keep)"
[ "$rc" = 2 ] || echo "rc=$rc $err" | diag
# 1 GB thread stacks in 3 GB of address space: the third thread fails
run_split bash -c 'ulimit -s 1000000 && ulimit -v 3000000 && exec "$@"' sh \
	"$RLWORK" buffered-rw --threads 8 --file "$dir/t" "${short[@]}"
ok "$([ "$rc" = 2 ] && [ "$(wc -l <<<"$err")" = 1 ] &&
      grep -q "$dir/t: starting thread [0-9]*: .*the address-space limit, ulimit -v, is 3072000000 bytes); the run did not start" <<<"$err" &&
      [ ! -e "$dir/t" ]; echo $?)" \
	"a thread that cannot start (ulimit -v): exit 2, one line naming the limit, the created file is removed"
[ "$rc" = 2 ] || echo "rc=$rc $err" | diag

# SIGINT and SIGTERM during the fill of a 2 GiB file
if [ "$(df -Pk "$dir" | awk 'NR == 2 {print $4}')" -gt $((4 << 20)) ]; then
	for sig in INT TERM; do
		"$RLWORK" buffered-rw --file "$dir/big" --size 2g --runtime 5 --ramp 0 \
			>"$dir/out" 2>"$dir/err" &
		pid=$!
		for _ in $(seq 600); do
			[ "$(stat -c %b "$dir/big" 2>/dev/null || echo 0)" -gt 0 ] && break
			sleep 0.05
		done
		kill -s "$sig" "$pid"
		wait "$pid"
		rc=$?
		ok "$([ "$rc" = 1 ] && [ ! -e "$dir/big" ] &&
		      grep -q "big: writing the initial data: interrupted by a signal" "$dir/err"; echo $?)" \
			"SIG$sig during the fill: exit 1, says so, the created file is removed"
		[ "$rc" = 1 ] || { echo "rc=$rc"; cat "$dir/err"; } | diag
		rm -f "$dir/out" "$dir/err" "$dir/big"
	done
	# after the threads are joined, in the final verification pass: the
	# process has its worker threads for the 2 s run, then only one again
	"$RLWORK" buffered-rw --threads 2 --verify --file "$dir/big" --size 1g \
		--runtime 2 --ramp 0 --json "$dir/int.json" >"$dir/out" 2>"$dir/err" &
	pid=$!
	end=$((SECONDS + 120))
	while alive "$pid" && [ "$(ntasks "$pid")" -le 1 ] && [ $SECONDS -lt $end ]; do
		sleep 0.01
	done
	while alive "$pid" && [ "$(ntasks "$pid")" -gt 1 ] && [ $SECONDS -lt $end ]; do
		sleep 0.01
	done
	kill -s INT "$pid"
	wait "$pid"
	rc=$?
	ok "$([ "$rc" = 1 ] && [ ! -e "$dir/big" ] &&
	      jq -e '.status == "failed" and .error == "interrupted by a signal"' "$dir/int.json" >/dev/null; echo $?)" \
		"SIGINT in the final verification: exit 1, a failed result, the file removed"
	[ "$rc" = 1 ] || { echo "rc=$rc"; cat "$dir/err"; } | diag
	rm -f "$dir/out" "$dir/err" "$dir/int.json"
else
	skip "less than 4 GiB free for the 2 GiB fill"; skip "no room"; skip "no room"
fi

# --- a fill that cannot fit ----------------------------------------------
if [ "$root" = 0 ] && mkdir "$dir/small" &&
   mount -t tmpfs -o size=4m rlwork-test "$dir/small" && mounts+=("$dir/small"); then
	refuse "a fill larger than the free space (4 MiB tmpfs): exit 2 naming file, size and free space" \
		"$dir/small/f: --size 8388608 (8.0 MiB) does not fit: 4194304 bytes (4.0 MiB) free on its filesystem; accepted: a --size up to the free space" \
		"$RLWORK" buffered-rw --file "$dir/small/f" --size 8m --runtime 0.1 --ramp 0
	run_split "$RLWORK" buffered-rw --file "$dir/small/f" --size 3m --runtime 0.1 --ramp 0 --keep
	ok "$rc" "a fill that fits is run"
	run_split "$RLWORK" buffered-rw --file "$dir/small/f" --size 3m --runtime 0.1 --ramp 0
	ok "$rc" "refilling a kept 3 MiB file with 1 MiB free: its own blocks count as free"
else
	skip "not root: cannot mount tmpfs"; skip "not root"; skip "not root"
fi
done_testing
