#!/bin/bash
# rlwork on bad targets: exit 2 with a message naming the input and what
# is accepted, and never damage a file rlwork did not create.
. "$(dirname "$0")/lib/tap.sh"
need_rlwork
scratch_dir
plan 37

mnt=""
# shellcheck disable=SC2317  # run from the EXIT trap
cleanup() {
	if [ -n "$mnt" ]; then umount "$mnt" 2>/dev/null || true; fi
	rm -rf "$dir"
}
trap cleanup EXIT
short=(--runtime 0.2 --ramp 0 --size 1m)

if [ -d /dev/shm ] && [ "$(stat -f -c %T /dev/shm)" = tmpfs ]; then
	f=/dev/shm/rlwork-bad-test.$$
	expect_bad "O_DIRECT on tmpfs: exit 2, says so" \
		"/dev/shm/rlwork-bad-test.$$: O_DIRECT is not supported on tmpfs" \
		"$RLWORK" dio --file "$f" "${short[@]}"
	[ ! -e "$f" ]
	ok $? "... and no file is left behind"
	expect_bad "truncate-storm needs O_DIRECT too" "O_DIRECT is not supported on tmpfs" \
		"$RLWORK" truncate-storm --file "$f" "${short[@]}"
else
	skip "no tmpfs at /dev/shm"; skip "no tmpfs"; skip "no tmpfs"
fi

# ramfs has neither O_DIRECT nor hole punching; mounting it needs root
if [ "$(id -u)" = 0 ] && mkdir "$dir/ramfs" &&
   mount -t ramfs rlwork-test "$dir/ramfs" 2>/dev/null; then
	mnt=$dir/ramfs
	expect_bad "punch hole unsupported: exit 2, says so" \
		"hole punching (fallocate PUNCH_HOLE) is not supported on ramfs" \
		"$RLWORK" mmap-punch --file "$mnt/f" "${short[@]}"
	[ -z "$(ls -A "$mnt")" ]
	ok $? "... and the file it created is removed"
	run_split "$RLWORK" buffered-rw --file "$mnt/f" "${short[@]}"
	ok $rc "a workload needing neither runs there"
else
	skip "not root: cannot mount ramfs"; skip "not root"; skip "not root"
fi

# a file rlwork did not create
f=$dir/precious
head -c 1048576 /dev/urandom >"$f"
sum=$(sha256sum <"$f")
for w in dio mmap-punch truncate-storm; do
	expect_bad "$w refuses to overwrite a file it did not create" \
		"precious: exists and was not created by rlwork: refusing to overwrite it (use --force)" \
		"$RLWORK" $w --file "$f" "${short[@]}"
done
[ "$sum" = "$(sha256sum <"$f")" ]
ok $? "... and the file is unchanged"
run_split "$RLWORK" dio --file "$f" "${short[@]}" --force
[ "$rc" -eq 0 ] && [ -f "$f" ]
ok $? "--force overwrites it, and does not delete it"

expect_bad "a directory as --file" "not a regular file" \
	"$RLWORK" dio --file "$dir" "${short[@]}"
expect_bad "--file in a missing directory" "cannot create\|directory not usable" \
	"$RLWORK" buffered-rw --file "$dir/none/f" "${short[@]}"
expect_bad "O_DIRECT check on a missing directory" "directory not usable" \
	"$RLWORK" dio --file "$dir/none/f" "${short[@]}"
expect_bad "--iopoll without io_uring" "--iopoll needs --engine=io_uring" \
	"$RLWORK" dio --iopoll --file "$dir/f" "${short[@]}"
expect_bad "--force-async without io_uring" "--force-async needs --engine=io_uring" \
	"$RLWORK" dio --force-async --file "$dir/f" "${short[@]}"
expect_bad "--mprotect-threads without fault threads" \
	"--mprotect-threads acts on the fault threads' mapping: it needs --fault-threads 1 or more" \
	"$RLWORK" dio --mprotect-threads 1 --file "$dir/f" "${short[@]}"
expect_bad "--fault-random without fault threads" "--fault-random acts on the fault threads' mapping" \
	"$RLWORK" dio --fault-random --file "$dir/f" "${short[@]}"
expect_bad "--fault-write without fault threads" "--fault-write acts on the fault threads' mapping" \
	"$RLWORK" dio --fault-write --file "$dir/f" "${short[@]}"
expect_bad "--fault-write with --verify: says why it cannot be verified" \
	"--fault-write cannot be verified (a page stored to through a mapping and written directly at once holds either's data): drop --verify" \
	"$RLWORK" dio --fault-threads 1 --fault-write --verify --file "$dir/f" "${short[@]}"
expect_bad "--touch-inflight with sync IO" "--touch-inflight needs --engine=io_uring" \
	"$RLWORK" dio --touch-inflight --file "$dir/f" "${short[@]}"
expect_bad "--split-pages with --sparse" "--split-pages moves data blocks and --sparse leaves holes" \
	"$RLWORK" dio --split-pages --sparse --file "$dir/f" "${short[@]}"
if [ "$(stat -f -c %S "$dir")" -ge 4096 ]; then
	expect_bad "--split-pages on page-sized blocks" \
		"--split-pages needs filesystem blocks smaller than a page; $dir/f has [0-9]*-byte blocks" \
		"$RLWORK" dio --split-pages --file "$dir/f" "${short[@]}"
	[ ! -e "$dir/f" ]
	ok $? "... and the file it created is removed"
else
	skip "$dir has blocks smaller than 4 KiB"; skip "small blocks"
fi
expect_bad "readahead: file too small for the threads" "file too small" \
	"$RLWORK" readahead --threads 16 --bs 128k --size 1m --dry-run
expect_bad "buffered-rw --keep-index needs --cache cold" \
	"--keep-index is for --cache=cold" \
	"$RLWORK" buffered-rw --keep-index --size 1m --dry-run
expect_bad "buffered-rw --keep-index refuses blocks over half a leaf" \
	"--keep-index: --bs 262144 would put a kept page in most blocks (accepted: --bs up to 131072)" \
	"$RLWORK" buffered-rw --cache cold --keep-index --bs 256k --size 1m --dry-run
expect_bad "buffered-rw --keep-index refuses slices smaller than a leaf" \
	"--keep-index: each thread reads 131072 bytes of the file, less than the 262144" \
	"$RLWORK" buffered-rw --cache cold --keep-index --layout disjoint --threads 8 --size 1m --dry-run

# --- the cause a user can act on, on one line ------------------------------
# bad_cause "name" PATTERN WRONG CMD...: exit 2, one line on stderr that
# matches PATTERN and not WRONG (the cause it used to blame), no file left
bad_cause() {
	local desc=$1 pat=$2 wrong=$3
	shift 3
	run_split "$@"
	if [ "$rc" = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
	   grep -q -- "$pat" <<<"$err" && ! grep -q -- "$wrong" <<<"$err" &&
	   [ -z "$(ls -A "$dir/c")" ]; then
		ok 0 "$desc"
	else
		ok 1 "$desc"
		{ echo "rc=$rc stderr: $err"; ls -A "$dir/c"; } | diag
	fi
	rm -rf "$dir/c" && mkdir "$dir/c"
}
mkdir "$dir/c"
# shellcheck disable=SC2317 # called through bad_cause
limited() { local l=$1; shift; bash -c "ulimit $l && exec \"\$@\"" sh "$@"; }
bad_cause "ulimit -n 4: the open-file limit is named, not O_DIRECT" \
	"c/f: cannot open it with O_DIRECT: Too many open files (the open-file limit, ulimit -n, is 4); accepted: a higher limit" \
	"not supported" limited "-n 4" "$RLWORK" dio --file "$dir/c/f" "${short[@]}"
bad_cause "ulimit -n 8 with 8 threads: one line naming the thread, the limit and what is accepted" \
	"c/f: thread [0-9]*: opening it.*: Too many open files (the open-file limit, ulimit -n, is 8); the run did not start (accepted: a higher limit, or fewer --threads)$" \
	"^rlwork: thread" limited "-n 8" "$RLWORK" dio --threads 8 --file "$dir/c/f" "${short[@]}"
bad_cause "ulimit -f: --size over the file-size limit is refused before the fill (no SIGXFSZ)" \
	"c/f: --size 1048576: File too large (the file-size limit, ulimit -f, is 524288 bytes); accepted: a --size up to the limit" \
	"interrupted" limited "-f 512" "$RLWORK" buffered-rw --file "$dir/c/f" "${short[@]}"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 777 "$dir/c" && chmod 755 "$dir"
	bad_cause "ulimit -l 0 (not root): io_uring's ring names the locked-memory limit, not CONFIG_IO_URING" \
		"io_uring is not available here: Cannot allocate memory (the locked-memory limit, ulimit -l, is 0 bytes); accepted: a higher limit" \
		"CONFIG_IO_URING" setpriv --reuid=nobody --regid=nogroup --clear-groups \
		bash -c 'ulimit -l 0 && exec "$@"' sh "$RLWORK" dio --engine io_uring --file "$dir/c/f" "${short[@]}"
	chmod 700 "$dir"
else
	skip "not root or no setpriv: memlock is no limit for root"
fi
bad_cause "--file /dev/null: not a regular file, not tmpfs' fault" \
	"/dev/null: not a regular file" "tmpfs" "$RLWORK" dio --file /dev/null "${short[@]}"
bad_cause "--file /proc/self/status --force: a kernel interface, exit 2 before any write" \
	"/proc/self/status: is on proc, a kernel interface without storage; accepted: a file on a disk filesystem" \
	"initial data" "$RLWORK" buffered-rw --file /proc/self/status --force "${short[@]}"
(cd "$dir/c" && exec "$RLWORK" dio --json --dry-run >/dev/null 2>"$dir/err"); rc=$?
ok "$([ "$rc" = 2 ] && grep -q -- "--json needs a value, got the option '--dry-run' (accepted: --json VALUE, or --json=VALUE" "$dir/err" &&
      [ -z "$(ls -A "$dir/c")" ]; echo $?)" "--json --dry-run: the option is not taken as the path (no file './--dry-run')"
rm -f "$dir/err"
bad_cause "--seed just above its range (1e18 + 1) is refused, not rounded onto the bound" \
	"--seed: 1000000000000000001 is out of range (0..1000000000000000000)" "^$" \
	"$RLWORK" dio --seed 1000000000000000001 --dry-run
bad_cause "--seed in hex is refused" "--seed: '0x10' is not a number" "^$" \
	"$RLWORK" dio --seed 0x10 --dry-run

done_testing
