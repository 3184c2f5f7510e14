# shellcheck shell=bash
# Shared by the runner scripts; sourced, never run.

RLBENCH_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RLBENCH_CACHE=${RLBENCH_CACHE:-$HOME/.cache/rlbench}

die()  { echo "${0##*/}: $*" >&2; exit 2; }
fail() { echo "${0##*/}: $*" >&2; exit 1; }
log()  { echo "${0##*/}: $*" >&2; }

# Console lines that make a point (or a boot) a failure, with the reason
# recorded for each.  Lockdep reports start with "WARNING: possible ..." or
# "WARNING: inconsistent lock state", so they are caught as WARN too but
# named for what they are first.
FAILURE_PATTERNS=(
	'Kernel panic - not syncing|panic'
	'WARNING: (possible (circular|recursive) locking|inconsistent lock state|suspicious RCU usage|bad unlock balance|held lock freed)|lockdep'
	'BUG: (soft|hard)lockup|softlockup'
	'rcu: INFO: .*detected stall|rcu_stall'
	'INFO: task .* blocked for more than|hung_task'
	'BUG: |BUG'
	'Oops: |oops'
	'WARNING: |WARN'
	'general protection fault|gpf'
	'EXT4-fs error|ext4_error'
)

# classify_log FILE: print "reason<TAB>first matching line" for the most
# specific failure in FILE, nothing when it is clean.
classify_log() {
	local entry re reason line
	for entry in "${FAILURE_PATTERNS[@]}"; do
		re=${entry%|*}
		reason=${entry##*|}
		line=$(grep -a -m1 -E -- "$re" "$1" 2>/dev/null) || continue
		printf '%s\t%s\n' "$reason" "$line"
		return 0
	done
	return 0
}

# first_line PREFIX FILE: the rest of FILE's first line that starts with
# PREFIX.  Reads to the end, so no pipeline upstream ever gets SIGPIPE.
first_line() {
	awk -v p="$1" '!found && index($0, p) == 1 {print substr($0, length(p) + 1); found = 1}' "${2:--}"
}

variants_list() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$RLBENCH_TOP/kernels/variants" | awk '{print $1}'
}

# ISO 8601 UTC, the one time format of every document the suite writes.
now_utc() { date -u +%Y-%m-%dT%H:%M:%SZ; }

# atomic_write PATH: stdin to PATH through a temp file and rename, so a
# killed runner never leaves half a document behind.
atomic_write() {
	local tmp
	tmp=$(mktemp "$1.tmp.XXXXXX") || return 1
	cat >"$tmp" && mv -f "$tmp" "$1"
}

# params_of "RLWORK ARGS": the point's resolved parameters, from rlwork's
# own dry run, so a point that produced no result (its kernel died) groups
# with its passing iterations.  "{}" when rlwork cannot say.
params_of() {
	local p
	p=$(eval "\"$RLBENCH_TOP/workloads/rlwork\" $1 --dry-run --json -" 2>/dev/null |
		jq -c '.params // empty' 2>/dev/null) || true
	echo "${p:-{\}}"
}

# budget_seconds VALUE: the seconds of a time budget (BUDGET=, the
# matrix's `budget`): "none" (prints nothing), whole minutes ("8", "8m")
# or seconds ("90s"), from 1 s to 7 days.  Returns 1 on anything else,
# for which BUDGET_ACCEPTED is the message's tail.
# shellcheck disable=SC2034  # used by the scripts that source this file
BUDGET_ACCEPTED="(accepted: none, or minutes: 8, 8m, or seconds: 90s; from 1 s to 7 days)"
budget_seconds() {
	local n
	case $1 in
	none) return 0 ;;
	*s) n=${1%s} ;;
	*m) n=${1%m} ;;
	*) n=$1 ;;
	esac
	[[ $n =~ ^[1-9][0-9]{0,5}$ ]] || return 1
	[[ $1 == *s ]] || n=$((n * 60))
	[ "$n" -le 604800 ] || return 1
	echo "$n"
}

# cost_machine MEM_MB: QEMU's -machine for a cost-mode guest of MEM_MB for
# the points (the memory device comes on top).  Little RAM below 4 GiB, so
# nearly all of it is ZONE_NORMAL: the device's pages come from there and
# leave the points' memory free in the same zone.  With QEMU's default (3
# GiB below 4 GiB once a guest has 3.5 GiB) the device filled ZONE_NORMAL
# to its watermark, and whether an allocation was served there or fell
# back to ZONE_DMA32 changed as the free count moved: stock's cold
# buffered read cost 11705 to 11736 insn/op from boot to boot, 11644.0 in
# each boot with this, and readahead's 0.9% steps went too.
cost_machine() {
	echo "pc,max-ram-below-4g=$(($1 / 2 < 1024 ? $1 / 2 : 1024))M"
}

# window_tag NAME: the tag rlwork gives the window of the point whose
# result is NAME (FNV-1a, 32 bits, of the name; workloads/harness.c), in hex.
window_tag() {
	local s=$1 h=2166136261 i c
	for ((i = 0; i < ${#s}; i++)); do
		printf -v c '%d' "'${s:i:1}"
		h=$(( ((h ^ c) * 16777619) & 0xffffffff ))
	done
	printf '%08x' "$h"
}
