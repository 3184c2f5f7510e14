#!/bin/bash
# runners/bisect without building or booting: a small git tree whose file
# `cost` is the instructions per read the stand-in kernel (RLBENCH_KBUILD,
# RLBENCH_QEMU) measures, one commit that does not build (BROKEN) and one
# that raises the cost.  The bisection measures GOOD and BAD, finds the
# commit that raised it, skips the one that does not build (never calls it
# good or bad), prints every step and keeps its log; GOOD and BAD that
# measure the same are refused with the reason.
. "$(dirname "$0")/lib/tap.sh"
[ -x analysis/rlstat ] && [ -x analysis/rlsynth ] || make -s -C analysis >/dev/null || exit 2
make -s -C workloads >/dev/null 2>&1 || exit 2
plan 13

tmp=$(mktemp -d)
mkdir -p results/bisect
before=$(find results/bisect -mindepth 1 -maxdepth 1 | sort)
# shellcheck disable=SC2317  # run from the EXIT trap
cleanup() {
	comm -13 <(printf '%s\n' "$before") <(find results/bisect -mindepth 1 -maxdepth 1 | sort) |
		while read -r d; do rm -rf "$d"; done
	rm -rf "$tmp"
}
trap cleanup EXIT
export STUB=$tmp/stub
mkdir -p "$STUB"
analysis/rlsynth "$STUB/synth" --variants stock --threads 1 --mode cost >/dev/null
cat >"$STUB/kbuild" <<'S'
#!/bin/bash
# kernels/build stand-in: the tree's `cost` goes into the kernel; BROKEN fails.
d=$STUB/build/$1
[ -e "$KSRC/BROKEN" ] && { echo "error: BROKEN" >&2; exit 1; }
mkdir -p "$d/include/config" "$d/arch/x86/boot"
echo "6.12.0-rl-$1" >"$d/include/config/kernel.release"
echo "CONFIG_STUB=y" >"$d/.config"
cp "$KSRC/cost" "$d/cost"
: >"$d/arch/x86/boot/bzImage"
echo "$d"
S
cat >"$STUB/qemu" <<'S'
#!/bin/bash
# runners/qemu stand-in: read's insn/op is the kernel's cost (1e9 / ops_per_s).
while [ $# -gt 0 ]; do
	case $1 in --plan) plan=$2 ;; --out) out=$2 ;; --kernel) k=$2 ;; esac
	shift 2
done
cost=$(cat "${k%/arch/x86/boot/bzImage}/cost")
# Who holds the bisection's worktree lock while it runs (fd links to it).
for f in /proc/[0-9]*/fd/*; do
	[ "$(readlink "$f" 2>/dev/null)" = "$RLBENCH_CACHE/.lock" ] || continue
	p=${f#/proc/} p=${p%%/*}
	cat "/proc/$p/comm" 2>/dev/null
done >>"$STUB/lock-holders"
v=${k%/arch/x86/boot/bzImage} v=${v##*/}	# the build's name, the variant's
echo "$cost" >>"$STUB/boots.log"
mkdir -p "$out"
while read -r key iter _; do
	jq --argjson c "$cost" --argjson i "$iter" --arg v "$v" \
		'.iteration = $i | .kernel.variant = $v | .runtime_s as $t | .ops |= map(if .name == "read"
		 then .count = (1e9 / $c * $t | floor) | .ops_per_s = (.count / $t) else . end)' \
		"$STUB/synth/stock/p000-dio-cost-i1.result.json" >"$out/$key-i$iter.result.json"
done <"$plan"
S
printf '#!/bin/bash\nexit 0\n' >"$STUB/rlstat"
chmod +x "$STUB"/kbuild "$STUB"/qemu "$STUB"/rlstat
export RLBENCH_KBUILD=$STUB/kbuild RLBENCH_QEMU=$STUB/qemu RLBENCH_RLSTAT=$STUB/rlstat
export RLBENCH_CACHE=$tmp/cache
cat >"$tmp/one.matrix" <<'M'
# one: a dio read point
runtime 1
ramp 0
threads 1
point dio --rw read --layout disjoint --size 16m
M

g=$tmp/linux
git init -q -b main "$g"
c() {	# commit COST [BROKEN] MESSAGE
	echo "$1" >"$g/cost"
	if [ "$2" = broken ]; then touch "$g/BROKEN"; shift; else rm -f "$g/BROKEN"; fi
	git -C "$g" add -A && git -C "$g" -c user.email=t@t -c user.name=t commit -q --allow-empty -m "$2"
	git -C "$g" rev-parse HEAD
}
c0=$(c 50000 "6.12")
c 50000 "docs: a note" >/dev/null
c 50000 "docs: another note" >/dev/null
c3=$(c 50000 broken "mm: does not build")
c 50000 "mm: fix the build" >/dev/null
c5=$(c 55000 "mm: extra work in filemap_read")
c6=$(c 55000 "docs: a last note")

b=(runners/bisect --ksrc "$g" --point p001 --metric read.insn_per_op --matrix "$tmp/one.matrix")
run_split "${b[@]}" --good "$c0" --bad "$c6"
is "$rc" 0 "the bisection ends with a first bad commit"
like "$out" "first bad commit: $c5 mm: extra work in filemap_read" "it is the commit that raised the cost"
like "$out" "$c3 +- +skip \(does not build\)" "the commit that does not build is skipped, not called good or bad"
like "$out" "$c0 +50000 .* +good \(GOOD\)" "the steps show GOOD's measurement"
like "$out" "$c6 +55000[.0-9]* .* +bad \(BAD\)" "and BAD's"
steps=$(awk 'NR > 3 && / (good|bad) \(/' <<<"$(sed -n '/^steps/,/^first bad/p' <<<"$out")" | wc -l)
[ "$steps" -ge 2 ]
ok $? "every step is printed with its measurement and decision ($steps steps)"
log=$(sed -n 's/.*log: \(results\/bisect\/[^ ]*\)$/\1/p' <<<"$out" | tail -1)
[ -f "$log/bisect.log" ] && [ -f "$log/steps.tsv" ] && [ -f "$log/git-bisect.log" ] && [ -d "$log/runs/good" ]
ok $? "the log, the step table, git's bisect log and every run are kept in $log"
is "$(git -C "$g" status --porcelain | wc -l) $(git -C "$g" rev-parse --abbrev-ref HEAD)" "0 main" \
	"the tree itself is untouched"
# Its log's tees outlive it by a moment: holding the lock, they would
# refuse a bisection started just as this one ends.
[ -s "$STUB/lock-holders" ] && ! grep -qx tee "$STUB/lock-holders"
ok $? "the worktree lock is held by the bisection, not by its log's tees: $(sort -u "$STUB/lock-holders" | xargs)"

run_split "${b[@]}" --good "$c0" --bad "$c3~1"
[ "$rc" = 2 ] && [[ $err == *"GOOD and BAD do not differ in read.insn_per_op by the gate (GOOD 50000, BAD 50000; PASS"* ]]
ok $? "GOOD and BAD that measure the same: refused with the reason: $(tail -1 <<<"$err")"
nsteps=$(grep -Ec '(good|bad) \(1 boots\)$' "$log/steps.tsv")
[ "$nsteps" -ge 2 ] && [ "$(grep -Ec '(good|bad) \([0-9]+ boots\)$' "$log/steps.tsv")" = "$nsteps" ] &&
	[ "$(wc -l <"$STUB/boots.log")" = $((6 + nsteps + 6)) ]
ok $? "cost mode: one boot a step, three for GOOD and for BAD ($(wc -l <"$STUB/boots.log") boots for both bisections)"
# A variant with a feature, in either spelling: built, booted and read
# back under its one name.
run_split "${b[@]}" --good "$c0" --bad "$c6" --variant stock+shared-alloc-dio
[ "$rc" = 0 ] && [[ $out == *"first bad commit: $c5 "* ]] && [ -d "$STUB/build/stock+shared-alloc-dio" ]
ok $? "VARIANT=stock+shared-alloc-dio: the same first bad commit, on that kernel"
run_split "${b[@]}" --good "$c0" --bad "$c6" --variant stock+nosuch
[ "$rc" = 2 ] && [[ $err == *"VARIANT='stock+nosuch': unknown feature 'nosuch'"* ]]
ok $? "an unknown feature: exit 2, named"
done_testing
