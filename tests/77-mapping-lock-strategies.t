#!/bin/bash
# The strategies of the invalidate lock (kernels/patches/0018, 0019):
# every choice of mm/Kconfig is a variant whose fragment selects it and
# whose marker is the name the kernel reports for it; every range
# strategy maps the helpers onto its lock in <linux/mapping_lock.h>; the
# header is included by every file that uses the lock and not by
# <linux/fs.h> (what lets a second range strategy reuse the first one's
# ccache entries); both patches are checkpatch --strict and kernel-doc
# clean; the users of the lock compile with W=1 under each newer
# strategy.  The variants' kernels boot in `make bench KERNEL=all`.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/lib/tap.sh"

ksrc=$(kernels/prepare-src 2>/dev/null)
if [ -z "$ksrc" ] || [ ! -f "$ksrc/include/linux/mapping_lock_types.h" ]; then
	bail_out "kernels/prepare-src gives no tree with include/linux/mapping_lock_types.h"
fi
patches=$(grep -l -e '^+++ b/include/linux/mapping_lock_types\.h' \
	-e '^Subject: .*users of the invalidate lock include' kernels/patches/*.patch)
[ "$(wc -w <<<"$patches")" = 2 ] || bail_out "expected the two patches of the newer strategies, got: $patches"
newer="bitmap adaptive listlock"
plan 13

# Kconfig's strategies: MAPPING_LOCK_<X> entries of the choice.
choices=$(sed -n '/^choice$/,/^endchoice$/p' "$ksrc/mm/Kconfig" |
	sed -n 's/^config \(MAPPING_LOCK_[A-Z]*\)$/\1/p' | xargs)
# The name mm/mapping_lock.c reports for each (the last, #else, is NONE's).
strategy_names() {	# mapping_lock.c
	awk '/^#(if|elif) defined\(CONFIG_MAPPING_LOCK_[A-Z]+\)$/ {
			c = $2; sub(/^defined\(CONFIG_/, "", c); sub(/\)$/, "", c); next }
		/^#else$/ { c = "MAPPING_LOCK_NONE"; next }
		/^#define MAPPING_LOCK_STRATEGY\t"/ && c != "" {
			n = $0; sub(/^[^"]*"/, "", n); sub(/".*/, "", n); print c, n; c = "" }' "$1"
}
names=$(strategy_names "$ksrc/mm/mapping_lock.c")
is "$(awk '{print $1}' <<<"$names" | xargs)" "$choices" \
	"mm/mapping_lock.c names every strategy of the choice ($choices)"

# Each strategy: a variant whose fragment sets it and whose marker is its name.
variant_rows=$(sed -e 's/#.*//' -e '/^\s*$/d' kernels/variants | awk '{print $1, $2}')
check_variants() {	# names-file-text variants-text
	while read -r choice name; do
		row=$(awk -v m="$name" '$2 == m' <<<"$2")
		[ -n "$row" ] || { echo "$choice: no variant with marker '$name'"; continue; }
		v=${row%% *}
		grep -qx "CONFIG_$choice=y" "kernels/configs/$v.config" 2>/dev/null ||
			echo "$choice: kernels/configs/$v.config does not set CONFIG_$choice=y"
	done <<<"$1"
}
is "$(check_variants "$names" "$variant_rows")" "" \
	"every strategy is a variant: its fragment sets it, its marker is the kernel's name for it"
like "$(check_variants "$names" "$(grep -v '^listlock ' <<<"$variant_rows")")" \
	"MAPPING_LOCK_LIST: no variant with marker 'listlock'" "... a strategy without a variant is named"

# Every range strategy maps the helpers onto its lock.
h=$ksrc/include/linux/mapping_lock.h
missing=$(for c in RANGE RWRANGE BITMAP ADAPTIVE LIST; do
	grep -q "defined(CONFIG_MAPPING_LOCK_$c)" "$h" || echo "$c"
done)
is "$missing" "" "<linux/mapping_lock.h> has a section for each range strategy"
n=$(grep -c '^static inline void __mapping_range_init(' "$h")
is "$n" 4 "... four lock types (the tree serves two strategies), each initialised its own way"

# The users of the lock include its header; fs.h does not.
ok "$(! grep -q 'include <linux/mapping_lock\.h>' "$ksrc/include/linux/fs.h"; echo $?)" \
	"<linux/fs.h> does not include <linux/mapping_lock.h>"
# Files that call a helper or name the request and do not include the
# header (directly, or through ext4.h or xfs_linux.h, which do).
users_without_header() {	# tree
	(cd "$1" && grep -rlE --include='*.c' --include='*.h' \
		'filemap_invalidate_[a-z_]+\(|struct mapping_range\b' \
		block fs mm virt kernel drivers include lib 2>/dev/null |
	while read -r f; do
		case $f in include/linux/mapping_lock*.h|lib/range_lock*) continue ;; esac
		grep -q '^#include <linux/mapping_lock\.h>' "$f" && continue
		case $f in
		fs/ext4/*) grep -q '^#include <linux/mapping_lock\.h>' fs/ext4/ext4.h && continue ;;
		fs/xfs/*) grep -q '^#include <linux/mapping_lock\.h>' fs/xfs/xfs_linux.h && continue ;;
		esac
		echo "$f"
	done)
}
# What pagemap.h declares under similar names is not the lock's.
out=$(users_without_header "$ksrc" | grep -vx 'include/linux/pagemap\.h')
is "$out" "" "every user of the lock includes <linux/mapping_lock.h>"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/t/mm" "$tmp/t/fs/ext4" "$tmp/t/include/linux"
printf '#include <linux/fs.h>\nvoid f(struct address_space *m)\n{\n\tfilemap_invalidate_lock_shared(m);\n}\n' >"$tmp/t/mm/x.c"
printf 'struct x;\n' >"$tmp/t/fs/ext4/ext4.h"
printf '#include "ext4.h"\nint g(struct mapping_range *r);\n' >"$tmp/t/fs/ext4/y.c"
is "$(users_without_header "$tmp/t" | sort | xargs)" "fs/ext4/y.c mm/x.c" \
	"... the check names a user that does not include it"

for p in $patches; do
	out=$(cd "$ksrc" && perl scripts/checkpatch.pl --strict "$TOP/$p" 2>&1 |
		grep -E '^(ERROR|WARNING|CHECK)')
	is "$out" "" "checkpatch --strict clean: $(basename "$p")"
done
out=$(cd "$ksrc" && perl scripts/kernel-doc -none -Wall include/linux/mapping_lock.h \
	include/linux/mapping_lock_types.h 2>&1)
is "$out" "" "kernel-doc -Wall has no complaint on the two headers"

# W=1 under each newer strategy: the objects that instantiate every helper.
objs=(mm/mapping_lock.o fs/inode.o mm/filemap.o mm/readahead.o fs/ext4/inode.o)
bad=()
for v in $newer; do
	mapfile -t frags < <(kernels/build --resolve "$v" | sed -n 's/^fragment /kernels\//p')
	run tests/lib/build-objs.sh "$ksrc" "$tmp/$v" "${frags[@]}" -- "${objs[@]}"
	n=$(for o in "${objs[@]}"; do [ -s "$tmp/$v/$o" ] && echo "$o"; done | wc -l)
	if [ "$RC" != 0 ] || grep -qE "warning|error" <<<"$OUT" || [ "$n" != "${#objs[@]}" ]; then
		bad+=("$v")
		printf '%s\n' "$OUT" | tail -20 | diag
	fi
done
is "${bad[*]}" "" "the lock's users compile with W=1, without a warning, under $newer"

# Kconfig's select ignores "depends on": a symbol that selects a file
# system only the whole-file lock serves (xfs, btrfs and ntfs3 depend on
# MAPPING_LOCK_RWSEM, 0006) would build it under any strategy, against a
# struct address_space without the rw_semaphore.  With both such
# selectors on, no variant without the rwsem may warn of an unmet
# dependency or end with one of those file systems.
printf 'CONFIG_%s\n' MODULES=y BLOCK=y NET=y INET=y NETDEVICES=y NET_CORE=y \
	RUNTIME_TESTING_MENU=y TEST_KMOD=m NTFS_FS=m >"$tmp/selectors.config"
bad=()
while read -r v; do
	mapfile -t frags < <(kernels/build --resolve "$v" | sed -n 's/^fragment /kernels\//p')
	grep -qx CONFIG_MAPPING_LOCK_RWSEM=y "${frags[@]}" && continue
	o=$tmp/kconfig-$v
	make -s -C "$ksrc" O="$o" ARCH=x86_64 tinyconfig >/dev/null 2>&1
	"$ksrc/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" "${frags[@]}" \
		"$tmp/selectors.config" >/dev/null 2>&1
	out=$(make -s -C "$ksrc" O="$o" ARCH=x86_64 olddefconfig 2>&1 | grep -A1 'unmet direct dependencies'
	      grep -E '^CONFIG_(XFS|BTRFS|NTFS3)_FS=' "$o/.config")
	[ -z "$out" ] || { bad+=("$v"); printf '%s: %s\n' "$v" "$out" | diag; }
done < <(sed -e 's/#.*//' -e '/^\s*$/d' kernels/variants | awk '{print $1}')
is "${bad[*]}" "" "TEST_KMOD and NTFS_FS select no file system that needs the whole-file lock"
done_testing
