# shellcheck shell=bash
# Shared by kernels/build, kernels/package and kernels/check-stock (sourced,
# not run): the variants, the patch series, the cache, the ccache
# environment and the config merge with its check for dropped values.
# The sourcing script sets `set -euo pipefail` and defines die().

KL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KL_CACHE=${RLBENCH_CACHE:-$HOME/.cache/rlbench}

# kl_rows FILE: the rows of kernels/FILE (variants, features), comments
# and blank lines dropped.
kl_rows() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$KL_DIR/$1"
}

# kl_variants: the variant names of kernels/variants, one a line.
kl_variants() {
	kl_rows variants | awk '{print $1}'
}

# kl_features: the feature names of kernels/features, one a line.
kl_features() {
	kl_rows features | awk '{print $1}'
}

# kl_resolve NAME [WHAT]: read a kernel name, <variant>[+<feature>...],
# into KL_VARIANT (the row of kernels/variants), KL_FEATURES (every
# feature it carries, the row's and the added ones, in the order of
# kernels/features) and KL_NAME (its one spelling: the variant, then '+'
# and each added feature in that order, so that stock+b+a and stock+a+b
# are one build).  Exit 2 (die) on a name that is not one, saying what
# is accepted; WHAT names the input in the message (default KERNEL).
# Sets globals rather than printing, as die() must end the caller, not
# a $(...) subshell.
kl_resolve() {
	local name=$1 what=${2:-KERNEL} f row strat feats frows carried=+ all=+ n=0
	local -a parts
	frows=$(kl_rows features)	# read once: a run resolves every boot's name
	feats=$(awk '{print $1}' <<<"$frows" | xargs)
	IFS=+ read -r -a parts <<<"$name"
	[[ $name != *+ ]] || parts+=('')	# read drops an empty last field
	KL_VARIANT=${parts[0]:-}
	{ grep -qxF -- "$KL_VARIANT" <<<"$(kl_variants)" && [[ $name =~ ^[A-Za-z0-9_.+-]+$ ]]; } ||
		die "unknown $what='$name'; valid: $(kl_variants | xargs), each optionally +<feature> ($feats)"
	row=$(kl_rows variants | awk -v v="$KL_VARIANT" '$1 == v {print $4}')
	[ "${row:--}" = - ] || carried+=$row+
	# The row's features, then (after a % no name has) the added ones.
	for f in ${carried//+/ } % "${parts[@]:1}"; do
		[ "$f" = % ] && { n=1; continue; }
		if [ $n = 0 ]; then
			[[ " $feats " == *" $f "* ]] ||
				die "kernels/variants: $KL_VARIANT carries '$f', which is not a feature of kernels/features ($feats)"
		else
			[ -n "$f" ] || die "$what='$name': an empty feature after '+'; accepted: <variant>[+<feature>...], features: $feats"
			[[ " $feats " == *" $f "* ]] ||
				die "$what='$name': unknown feature '$f'; accepted: $feats"
			[[ $carried != *"+$f+"* ]] ||
				die "$what='$name': $KL_VARIANT carries '$f' already (kernels/variants); accepted: $feats not among its own"
			[[ $all != *"+$f+"* ]] ||
				die "$what='$name': feature '$f' named twice; accepted: each of $feats at most once"
		fi
		strat=$(awk -v f="$f" '$1 == f {print $3}' <<<"$frows")
		[ "$strat" = all ] || [[ ",$strat," == *",$KL_VARIANT,"* ]] ||
			die "$what='$name': feature '$f' does not apply to $KL_VARIANT; accepted on: ${strat//,/ }"
		all+=$f+
	done
	KL_FEATURES=() KL_NAME=$KL_VARIANT
	for f in $feats; do
		[[ $all == *"+$f+"* ]] || continue
		KL_FEATURES+=("$f")
		[[ $carried == *"+$f+"* ]] || KL_NAME+=+$f
	done
	return 0
}

# kl_markers: what the guest of KL_NAME must find, "<strategy> <features>":
# the marker of /sys/kernel/mapping_lock/strategy (kernels/variants'
# second column; empty for "none") and those of .../features
# (kernels/features' second column), comma-separated in that order, as
# one word (the kernel prints them space-separated; a space would split
# the kernel's command line that carries them).
kl_markers() {
	local f s marks=''
	s=$(kl_rows variants | awk -v v="$KL_VARIANT" '$1 == v {print ($2 == "none" ? "" : $2)}')
	for f in ${KL_FEATURES[@]+"${KL_FEATURES[@]}"}; do
		marks+=${marks:+,}$(kl_rows features | awk -v f="$f" '$1 == f {print $2}')
	done
	echo "$s $marks"
}

# kl_allows NAME LIST: does an entry of LIST (a matrix's `variants`)
# have NAME's strategy and no feature NAME lacks?  A matrix names the
# features its knobs need; a kernel with more of them runs it too.
kl_allows() {
	local e f ok
	for e in $2; do
		[ "${e%%+*}" = "${1%%+*}" ] || continue
		ok=1
		for f in $(tr + ' ' <<<"${e#"${e%%+*}"}"); do
			[[ "$1+" == *"+$f+"* ]] || ok=0
		done
		[ $ok = 1 ] && return 0
	done
	return 1
}

# kl_names LIST [WHAT]: set KL_NAMES to the names of a comma-separated
# KERNEL= list, each in its one spelling, each once; exit 2 (die) on a
# bad one.  `all` is the rows of kernels/variants (no added features).
kl_names() {
	local n
	local -a list
	KL_NAMES=()
	case $1 in
	all) mapfile -t KL_NAMES < <(kl_variants); return 0 ;;
	'') die "${2:-KERNEL}= is empty; valid: $(kl_variants | xargs) (each optionally +<feature>), all" ;;
	esac
	IFS=, read -r -a list <<<"$1"	# not word-split: a '*' stays a '*'
	for n in "${list[@]}"; do
		kl_resolve "$n" "${2:-KERNEL}"
		[[ " ${KL_NAMES[*]} " == *" $KL_NAME "* ]] || KL_NAMES+=("$KL_NAME")
	done
}

# kl_fragments: the config fragments of KL_VARIANT and KL_FEATURES, in
# the order they are merged (a feature's after its variant's), one a line,
# then the lock counters for a variant with a lock: off unless the kernel
# is booted with mapping_lock.stats=1, they cost a never-taken static
# branch per acquisition and release, alike on every variant, so one
# build serves the timed boots and the stats boot.  The no-lock variant
# has none.
kl_fragments() {
	local f
	echo "$KL_DIR/configs/$KL_VARIANT.config"
	for f in ${KL_FEATURES[@]+"${KL_FEATURES[@]}"}; do
		echo "$KL_DIR/configs/feature-$f.config"
	done
	grep -q '^CONFIG_MAPPING_LOCK_NONE=y' "$KL_DIR/configs/$KL_VARIANT.config" ||
		echo "$KL_DIR/configs/stats.config"
}

# kl_series DIR: set KL_SERIES to the patches to apply, in order: those
# DIR/series lists (comments and blank lines dropped), then each variant's
# own DIR/variant-<name>.patch where one exists, in the order of
# kernels/variants, so that a new variant adds its patch without editing
# the series.  Exit 2 (die) when a listed patch does not exist.
kl_series() {
	local dir=$1 p v
	[ -f "$dir/series" ] || die "$dir/series not found (accepted: a directory with a series file and its patches)"
	mapfile -t KL_SERIES < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$dir/series")
	for p in ${KL_SERIES[@]+"${KL_SERIES[@]}"}; do
		[ -f "$dir/$p" ] || die "$dir/series names $p, which does not exist"
	done
	for v in $(kl_variants); do
		[ -f "$dir/variant-$v.patch" ] && KL_SERIES+=("variant-$v.patch")
	done
	return 0
}

# kl_ccache_env: one ccache for every build, paths inside the cache hashed
# the same from any location.
kl_ccache_env() {
	export CCACHE_DIR=${CCACHE_DIR:-$KL_CACHE/ccache}
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
	export CCACHE_BASEDIR=$KL_CACHE
	export CCACHE_NOHASHDIR=1
}

# kl_kmake_args SRC OUT LOCALVERSION JOBS: the make command line of an
# out-of-tree build, one word a line (read it with mapfile).
kl_kmake_args() {
	printf '%s\n' make -C "$1" O="$2" ARCH=x86_64 LOCALVERSION="$3" \
		"CC=ccache gcc" "HOSTCC=ccache gcc" -j"$4" \
		KBUILD_BUILD_USER=rlbench KBUILD_BUILD_HOST=rlbench
}

# kl_merge SRC OUT FRAGMENT...: merge the fragments onto OUT/.config with
# the kernel's merge_config.sh (log in OUT/merge.log); return 1 with the
# log on stderr when that fails.  The caller runs olddefconfig after it.
kl_merge() {
	local src=$1 out=$2; shift 2
	(cd "$out" && KCONFIG_CONFIG=.config "$src/scripts/kconfig/merge_config.sh" -m -O "$out" .config "$@" >"$out/merge.log" 2>&1) ||
		{ cat "$out/merge.log" >&2; return 1; }
}

# kl_dropped CONFIG FRAGMENT...: print, one a line, each value the
# fragments set that CONFIG does not hold, with its final value; a later
# fragment overrides an earlier one, as in merge_config.sh.  A `# CONFIG_X
# is not set` line is a value too: something that selects X turns it back
# on.  Kconfig only warns when it drops a value; a dropped value here
# means a kernel that is not the one asked for, so callers treat any
# output as an error.
kl_dropped() {
	local config=$1 want key; shift
	cat "$@" | awk '
		/^CONFIG_[A-Z0-9_]*=/ { k = $0; sub(/=.*/, "", k); v[k] = $0; next }
		/^# CONFIG_[A-Z0-9_]* is not set/ { v[$2] = $0 }
		END { for (k in v) print v[k] }' | sort |
		while IFS= read -r want; do
			if [[ $want == '# '* ]]; then
				key=${want#\# } key=${key%% *}
				grep -q "^$key=" "$config" || continue
			else
				key=${want%%=*}
				! grep -qxF -- "$want" "$config" || continue
			fi
			echo "  $want (final: $(grep -E "^$key=" "$config" || grep -E "^# $key " "$config" || echo unset))"
		done
}
