#!/bin/bash
# Build some objects of a kernel tree, out of tree, with W=1:
#   tests/lib/build-objs.sh SRC OUT FRAGMENT... -- OBJECT...
# The config is tinyconfig with the fragments merged (what kernels/build
# does), then olddefconfig; the build's messages go to stdout, so that a
# caller can look for warnings.  Exit: make's.
set -euo pipefail
src=$1 out=$2
shift 2
cfgs=()
while [ "$1" != -- ]; do cfgs+=("$1"); shift; done
shift
make -s -C "$src" O="$out" ARCH=x86_64 tinyconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${cfgs[@]}" >/dev/null
make -s -C "$src" O="$out" ARCH=x86_64 olddefconfig >/dev/null
make -s -C "$src" O="$out" ARCH=x86_64 -j"$(nproc)" W=1 "$@" 2>&1
