# shellcheck shell=bash
# The one TAP producer of the shell tests (tests/*.t); sourced.  The
# caller's working directory becomes the top of the tree ($TOP).
#
#   plan N                 the number of tests this file runs
#   ok STATUS "name"       STATUS 0 passes (e.g. ok "$(cmd; echo $?)" ...)
#   is GOT WANT "name"     string equality, with both shown on failure
#                          (a failure's name and values go to stderr, which
#                          prove shows without -v, the first 40 lines each)
#   like GOT REGEX "name"  bash regex match
#   skip "why"             one test counted as passed, with the reason
#   todo STATUS "name" "bug"  a known, unfixed bug: reported, not failed
#   diag                   stdin as TAP comments, on stderr
#   run CMD...             sets OUT (stdout and stderr, in order) and RC
#   run_split CMD...       sets out (stdout), err (stderr) and rc
#   expect_bad "name" PATTERN CMD...  CMD exits 2 with PATTERN on stderr
#   jq_ok "name" FILE FILTER          FILTER on FILE prints true
#   need_rlwork, scratch_dir          prerequisites of the rlwork tests
#   bail_out "why"         "Bail out!": prove stops the whole run (a broken
#                          prerequisite that every later test needs)
#   done_testing           ends the file
#
# Exit status (what prove judges besides the ok lines): done_testing exits
# 0 when every test passed and as many ran as `plan` announced, 1 when a
# test failed or the count differs from the plan (a file that dies half
# way is caught this way even when prove would only warn); bail_out exits
# 255.  A file that skips itself entirely prints "1..0 # skip ..." and
# exits 0.

TAP_N=0
TAP_FAIL=0
TAP_PLAN=
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
# shellcheck disable=SC2034  # TOP and RLWORK are read by the test files
TOP=$PWD RLWORK=$PWD/workloads/rlwork

plan() { TAP_PLAN=$1; echo "1..$1"; }
_tap() {	# status name [diag]
	TAP_N=$((TAP_N + 1))
	if [ "$1" = 0 ]; then echo "ok $TAP_N - $2"
	else
		echo "not ok $TAP_N - $2"
		TAP_FAIL=$((TAP_FAIL + 1))
		# on stderr, which prove shows without -v: a CI log then says
		# what failed and with what, not only its number
		{ echo "#   Failed test $TAP_N - $2 (${0##*/})"
		  [ -z "${3:-}" ] || printf '%s\n' "$3" | awk 'NR <= 40 { print "#   " $0 }'; } >&2
	fi
	return 0
}
ok() { local rc=$1; shift; _tap "$rc" "$1"; }
is() { [ "$1" = "$2" ]; _tap $? "$3" "got: '$1'"$'\n'"want: '$2'"; }
like() { [[ $1 =~ $2 ]]; _tap $? "$3" "got: '$1'"$'\n'"want match: '$2'"; }
skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N # skip $1"; }
# todo STATUS "name" "known bug": a test of a known, unfixed bug; prove
# reports it (and says when it starts passing) without failing the file.
todo() {
	TAP_N=$((TAP_N + 1))
	if [ "$1" = 0 ]; then echo "ok $TAP_N - $2 # TODO $3"
	else echo "not ok $TAP_N - $2 # TODO $3"; fi
}
diag() { sed 's/^/# /' >&2; }
bail_out() { echo "Bail out! $*"; exit 255; }

# The variables run and run_split set are read by the test files.
# shellcheck disable=SC2034
run() { OUT=$("$@" 2>&1); RC=$?; }
# shellcheck disable=SC2034
run_split() {
	local o e
	o=$(mktemp) e=$(mktemp)
	"$@" >"$o" 2>"$e"
	rc=$?
	out=$(cat "$o") err=$(cat "$e")
	rm -f "$o" "$e"
}

expect_bad() {
	local desc=$1 pat=$2
	shift 2
	run_split "$@"
	if [ "$rc" -eq 2 ] && grep -q -- "$pat" <<<"$err"; then
		ok 0 "$desc"
	else
		ok 1 "$desc"
		echo "rc=$rc stderr: $err" | diag
	fi
}

jq_ok() {
	local v rc
	v=$(jq -e "$3" "$2" 2>&1)
	rc=$?
	ok $rc "$1"
	[ "$v" = true ] || echo "$3 -> $v" | diag
}

# jq: `mid` maps a latency bucket index of a result's hist to the middle
# of the bucket, in ns (docs/formats.md); prepend it to a jq program.
# shellcheck disable=SC2016,SC2034  # jq variables; read by the test files
JQ_BUCKET_MID='def mid: if . < 64 then . else (((. / 64) | floor) - 1) as $s |
	((64 + . % 64) * pow(2; $s)) as $lo |
	($lo + (((pow(2; $s) - 1) / 2) | floor)) end;'

need_rlwork() {
	make -s -C workloads >&2 || { echo "1..0 # skip rlwork does not build"; exit 1; }
}

# Sets $dir to a new directory on a disk filesystem (O_DIRECT, hole
# punching) for test files: under $RLWORK_TEST_DIR, else /var/tmp or /tmp
# when they are not tmpfs.  Skips the whole file when there is none.
# shellcheck disable=SC2034  # dir is read by the test files
scratch_dir() {
	local d
	for d in ${RLWORK_TEST_DIR:-} /var/tmp /tmp; do
		{ [ -d "$d" ] && [ -w "$d" ]; } || continue
		case $(stat -f -c %T "$d") in
		tmpfs|ramfs) continue ;;
		esac
		dir=$(mktemp -d "$d/rlwork-test.XXXXXX") && return
	done
	echo "1..0 # skip no disk filesystem for test files (set RLWORK_TEST_DIR)"
	exit 0
}

done_testing() {
	[ "$TAP_N" -gt 0 ] || echo "1..0"
	if [ -n "$TAP_PLAN" ] && [ "$TAP_N" != "$TAP_PLAN" ]; then
		echo "# planned $TAP_PLAN tests but ran $TAP_N"
		exit 1
	fi
	[ $TAP_FAIL -eq 0 ]
	exit $?
}
