# shellcheck shell=bash
# Kernel knobs a matrix sets on the machine it runs on (runners/bare),
# restored when the run ends; sourced, never run.
#
#   knobs_set "path:value,path:value"   relative paths are under debugfs
#   knobs_restore                       every knob back, even if one fails
#
# Values may hold colons (the path ends at the first one).  A knob that
# shows its choices as "a [b] c" is restored to the bracketed choice, the
# only form it accepts back.  knobs_restore runs from EXIT traps, so it
# never fails: a knob it cannot restore is named on stderr and counted in
# KNOBS_UNRESTORED, and the caller's cleanup still runs after it.

KNOB_PATHS=()
KNOB_OLD=()
KNOBS_UNRESTORED=0

knobs_set() {
	local kv f val old
	local IFS=,
	for kv in $1; do
		f=${kv%%:*} val=${kv#*:}
		case $f in /*) ;; *) f=/sys/kernel/debug/$f ;; esac
		old=$(cat "$f" 2>/dev/null) ||
			die "the matrix sets the knob $f, which this kernel does not have"
		[[ $old =~ \[([^]]*)\] ]] && old=${BASH_REMATCH[1]}
		# Recorded before the write: a knob that takes the new value
		# partially is still put back.
		KNOB_PATHS+=("$f") KNOB_OLD+=("$old")
		printf '%s\n' "$val" 2>/dev/null >"$f" ||
			die "the matrix sets the knob $f to '$val', which it does not accept (or it is not writable)"
	done
}

knobs_restore() {
	local i
	for i in "${!KNOB_PATHS[@]}"; do
		printf '%s\n' "${KNOB_OLD[$i]}" 2>/dev/null >"${KNOB_PATHS[$i]}" && continue
		echo "${0##*/}: could not restore ${KNOB_PATHS[$i]} to '${KNOB_OLD[$i]}'; set it by hand" >&2
		KNOBS_UNRESTORED=$((KNOBS_UNRESTORED + 1))
	done
	KNOB_PATHS=() KNOB_OLD=()
	return 0
}
