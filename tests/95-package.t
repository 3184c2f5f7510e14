#!/bin/bash
# kernels/package: bad input is refused before anything is built, and the
# rangelock guest kernel becomes a Debian package that installs the
# variant's kernel under its own release name.
. "$(dirname "$0")/lib/tap.sh"
plan 9

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run kernels/package no-such-variant
like "$RC:$OUT" "^2:.*unknown KERNEL='no-such-variant'; valid: stock imutex rangelock rwsem-range bitmap adaptive listlock" "an unknown variant lists the valid ones"
run kernels/package rangelock --base-config "$tmp/missing"
like "$RC:$OUT" "^2:.*--base-config $tmp/missing: no such file" "a missing base config is named"
echo "hello" >"$tmp/notconfig"
run kernels/package rangelock --base-config "$tmp/notconfig"
like "$RC:$OUT" "^2:.*not a kernel config" "a file that is not a kernel config is refused"

run kernels/package rangelock --out "$tmp/deb"
is "$RC" 0 "bindeb-pkg of the rangelock guest kernel succeeds"
echo "$OUT" | tail -3 | sed 's/^/# /'
release=$(cat "${RLBENCH_CACHE:-$HOME/.cache/rlbench}/build/rangelock/include/config/kernel.release")
image=$(echo "$OUT" | grep "/linux-image-${release}_.*\.deb$" | tail -1)
ok "$([ -f "$image" ]; echo $?)" "it prints the image package's path ($(basename "${image:-none}"))"
is "$(dpkg-deb -f "$image" Package)" "linux-image-$release" "the package is named after the variant's release"
dpkg-deb -c "$image" | grep -q "\./boot/vmlinuz-$release\$"
ok $? "it installs /boot/vmlinuz-$release"
dpkg-deb -c "$image" | grep -q "\./boot/config-$release\$"
ok $? "and the kernel's config, where a lab machine's runner can see the strategy"
ok "$([ -z "$(ls "${RLBENCH_CACHE:-$HOME/.cache/rlbench}"/build/*.deb 2>/dev/null)" ]; echo $?)" "no package is left in the build directory"
done_testing
