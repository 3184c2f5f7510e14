# shellcheck shell=bash
# Shared by kernels/build, kernels/package and kernels/check-stock (sourced,
# not run): the variants, the patch series, the cache, the ccache
# environment and the config merge with its check for dropped values.
# The sourcing script sets `set -euo pipefail` and defines die().

KL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KL_CACHE=${RLBENCH_CACHE:-$HOME/.cache/rlbench}

# kl_variants: the variant names of kernels/variants, one a line.
kl_variants() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$KL_DIR/variants" | awk '{print $1}'
}

# kl_check_variant NAME: exit 2 (die) unless NAME is a variant.
kl_check_variant() {
	grep -qx -- "$1" <<<"$(kl_variants)" ||
		die "unknown KERNEL='$1'; valid: $(kl_variants | xargs) (and 'all')"
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
