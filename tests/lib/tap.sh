# Minimal TAP producer for the shell tests; sourced.
#   plan N | ok COND-EXIT "name" | is GOT WANT "name" | like GOT REGEX "name"
#   done_testing  (exit status: number of failures, capped)
TAP_N=0
TAP_FAIL=0
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
TOP=$PWD

plan() { echo "1..$1"; }
_tap() {	# status name [diag]
	TAP_N=$((TAP_N + 1))
	if [ "$1" = 0 ]; then echo "ok $TAP_N - $2"
	else
		echo "not ok $TAP_N - $2"
		TAP_FAIL=$((TAP_FAIL + 1))
		[ -n "${3:-}" ] && printf '%s\n' "$3" | sed 's/^/# /'
	fi
	return 0
}
ok() { local rc=$1; shift; _tap "$rc" "$1"; }
is() { [ "$1" = "$2" ]; _tap $? "$3" "got: '$1'"$'\n'"want: '$2'"; }
like() { [[ $1 =~ $2 ]]; _tap $? "$3" "got: '$1'"$'\n'"want match: '$2'"; }
# run CMD...: sets OUT (stdout+stderr) and RC.
run() { OUT=$("$@" 2>&1); RC=$?; }
done_testing() { [ "$TAP_N" -gt 0 ] || echo "1..0"; [ $TAP_FAIL -eq 0 ]; exit $?; }
