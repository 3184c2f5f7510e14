# shellcheck shell=dash
# The guest's check that it runs the kernel the host asked for, before
# any point: sourced by runners/guest-init (as /guest-check.sh in the
# initramfs), and by tests/57 with a stand-in command line and sysfs.

# kernel_mismatch CMDLINE DIR: print why the kernel is not the one that
# CMDLINE (a /proc/cmdline) asks for and return 0; return 1, printing
# nothing, when it is.  DIR is /sys/kernel/mapping_lock: its `strategy`
# names the lock (no file: "none"), its `features` holds the markers of
# the features built in, space-separated on one line (no file: a kernel
# from before features, which has none).  rlbench.strategy= asks for a
# strategy (empty: any); rlbench.features= for exactly these markers,
# comma-separated (empty: none); without it the features are not asked
# about.
kernel_mismatch() {
	local want have
	want=$(tr ' ' '\n' <"$1" | sed -n 's/^rlbench\.strategy=//p')
	have=$(cat "$2/strategy" 2>/dev/null || echo none)
	if [ -n "$want" ] && [ "$want" != "$have" ]; then
		echo "strategy mismatch: asked for $want, kernel reports $have"
		return 0
	fi
	tr ' ' '\n' <"$1" | grep -q '^rlbench\.features=' || return 1
	want=$(tr ' ' '\n' <"$1" | sed -n 's/^rlbench\.features=//p' | tr , ' ')
	# one line of words; blanks at its ends or between them do not count
	have=$(tr -s ' \t\n' '   ' 2>/dev/null <"$2/features" | sed 's/^ //; s/ $//')
	[ "$want" != "$have" ] || return 1
	echo "features mismatch: asked for '${want:-none}', kernel reports '${have:-none}'"
	return 0
}
