#!/bin/bash
# The rangelock variant builds (ccache keeps it cheap), boots, reports its
# strategy, and runs the smoke matrix; a kernel whose marker is not the one
# asked for is refused.
. "$(dirname "$0")/lib/tap.sh"
plan 9

run runners/run bench --kernel rangelock --matrix smoke --baseline none --name variant-rangelock
echo "$OUT" | tail -5 | sed 's/^/# /'
rd=$(echo "$OUT" | sed -n 's/^run: //p' | tail -1)
is "$RC" 0 "every smoke point passed on rangelock"
res=("$rd"/rangelock/*.result.json)
is "$(jq -r .kernel.strategy "${res[0]}")" rangelock "the guest reports the rangelock strategy"
is "$(jq -c .kernel.features "${res[0]}")" "[]" "and no features: the default variants carry none"
like "$(jq -r .kernel.release "${res[0]}")" "^6\.12\.[0-9]+-rl-rangelock$" "its release names the variant"
is "$(jq -s 'map(.verify.errors) | add' "${res[@]}")" 0 "the oracle found no data errors"
grep -q '^rlbench: guest up .* strategy=rangelock ' "$rd"/rangelock/console-boot*.log
ok $? "the console shows the marker"

# Boot the same kernel asking for another strategy: the guest refuses.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "p001-dio 1 60 dio --threads 1 --size 4m --runtime 1 --ramp 0" >"$tmp/plan"
run runners/qemu --variant rangelock --kernel "${RLBENCH_CACHE:-$HOME/.cache/rlbench}/build/rangelock/arch/x86/boot/bzImage" \
	--plan "$tmp/plan" --out "$tmp/out" --accel tcg --mem 512 --disk-mb 128 --strategy stock
is "$(jq -r .status "$tmp/out/p001-dio-i1.result.json")" failed "a marker mismatch fails the point"
like "$(jq -r .error "$tmp/out/p001-dio-i1.result.json")" "strategy mismatch: asked for stock, kernel reports rangelock" "and says why"
ok "$(! grep -q '^rlbench: start ' "$tmp/out"/console-boot*.log; echo $?)" "no workload ran on the wrong kernel"
done_testing
