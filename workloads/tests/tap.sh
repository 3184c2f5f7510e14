# SPDX-License-Identifier: GPL-2.0
# Small TAP helpers for the rlwork tests (sourced by tests/1*.t).

cd "$(dirname "$0")/.." || exit 1
RLWORK=$PWD/workloads/rlwork
tap_n=0
tap_failed=0

plan() { echo "1..$1"; }

ok() {	# ok COND-STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}

skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # skip $1"
}

diag() { sed 's/^/# /' >&2; }

# run CMD...: sets $rc, $out (stdout) and $err (stderr)
run() {
	local o e
	o=$(mktemp) e=$(mktemp)
	"$@" >"$o" 2>"$e"
	rc=$?
	out=$(cat "$o")
	err=$(cat "$e")
	rm -f "$o" "$e"
}

# expect_bad DESCRIPTION PATTERN CMD...: exit 2, one line naming the input
expect_bad() {
	local desc=$1 pat=$2
	shift 2
	run "$@"
	if [ "$rc" -eq 2 ] && grep -q -- "$pat" <<<"$err"; then
		ok 0 "$desc"
	else
		ok 1 "$desc"
		echo "rc=$rc stderr: $err" | diag
	fi
}

# jq_ok DESCRIPTION FILE FILTER: FILTER must print true
jq_ok() {
	local v
	v=$(jq -e "$3" "$2" 2>&1)
	ok $? "$1"
	[ "$v" = true ] || echo "$3 -> $v" | diag
}

need_rlwork() {
	make -s -C workloads >&2 || { echo "1..0 # skip rlwork does not build"; exit 1; }
}

done_testing() { [ "$tap_failed" -eq 0 ]; exit $?; }

# Sets $dir to a new directory on a disk filesystem (O_DIRECT, hole
# punching) for test files: under $RLWORK_TEST_DIR, else /var/tmp or /tmp
# when they are not tmpfs. Skips the whole test when there is none.
scratch_dir() {
	local d
	for d in ${RLWORK_TEST_DIR:-} /var/tmp /tmp; do
		[ -d "$d" ] && [ -w "$d" ] || continue
		case $(stat -f -c %T "$d") in
		tmpfs|ramfs) continue ;;
		esac
		dir=$(mktemp -d "$d/rlwork-test.XXXXXX") && return
	done
	echo "1..0 # skip no disk filesystem for test files (set RLWORK_TEST_DIR)"
	exit 0
}
