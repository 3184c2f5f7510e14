#!/bin/bash
# runners/nightly end to end without building or booting: the kernel build
# and the guest runner are stand-ins (RLBENCH_KBUILD, RLBENCH_QEMU) that
# hand out synthetic results (rlsynth).  A KSRC git tree's branch is
# followed in a worktree of the cache; two nights of one commit are two
# nights (never one overwritten), the second compared with the first; a new
# commit that slows the point exits 1 with a mail that names it; a night
# killed half way is finished by the next invocation, booting only what is
# missing; a remote that does not answer is skipped; one night at a time.
. "$(dirname "$0")/lib/tap.sh"
[ -x analysis/rlstat ] && [ -x analysis/rlsynth ] || make -s -C analysis >/dev/null || exit 2
make -s -C workloads >/dev/null 2>&1 || exit 2
plan 18

tmp=$(mktemp -d)
# shellcheck disable=SC2317  # run from the EXIT trap
cleanup() {
	local c
	for c in ${commits[@]+"${commits[@]}"}; do rm -rf "$TOP"/results/*-nightly-*-"${c:0:12}"*; done
	rm -rf "$tmp"
}
commits=()
trap cleanup EXIT
export STUB=$tmp/stub
mkdir -p "$STUB"
cat >"$STUB/kbuild" <<'S'
#!/bin/bash
# kernels/build stand-in: a build directory with what the runner reads.
d=$STUB/build/$1
mkdir -p "$d/include/config" "$d/arch/x86/boot"
echo "6.12.0-rl-$1" >"$d/include/config/kernel.release"
echo "CONFIG_STUB=y" >"$d/.config"
: >"$d/arch/x86/boot/bzImage"
echo "$1 KSRC=$KSRC" >>"$STUB/kbuild.log"
echo "$d"
S
cat >"$STUB/qemu" <<'S'
#!/bin/bash
# runners/qemu stand-in: the results of $STUB/synth (rlsynth) for each plan
# line; STUB_DIE_AFTER=N: boot N+1 dies like a killed runner.
while [ $# -gt 0 ]; do
	case $1 in --plan) plan=$2 ;; --out) out=$2 ;; --variant) v=$2 ;; --mode) m=$2 ;; esac
	shift 2
done
n=$(cat "$STUB/boots" 2>/dev/null || echo 0)
[ -n "${STUB_DIE_AFTER:-}" ] && [ "$n" -ge "$STUB_DIE_AFTER" ] && exit 130
echo $((n + 1)) >"$STUB/boots"
echo "$v $m $(awk 'NR == 1 {print $2}' "$plan")" >>"$STUB/boots.log"
mkdir -p "$out"
while read -r key iter _; do
	src=p000-dio-i$iter
	[ "$m" = cost ] && src=p000-dio-cost-i$iter
	cp "$(cat "$STUB/synth")/$v/$src.result.json" "$out/$key-i$iter.result.json"
done <"$plan"
S
cat >"$STUB/rlstat" <<'S'
#!/bin/bash
# rlstat stand-in for runners/run (its report and next are not tested here)
exit 0
S
chmod +x "$STUB"/kbuild "$STUB"/qemu "$STUB"/rlstat
export RLBENCH_KBUILD=$STUB/kbuild RLBENCH_QEMU=$STUB/qemu RLBENCH_RLSTAT=$STUB/rlstat
export RLBENCH_CACHE=$tmp/cache
cat >"$tmp/tiny.matrix" <<'M'
# tiny: one point, three boots
iterations 3
runtime 1
ramp 0
threads 1
variants stock
point dio --rw read --layout disjoint --size 16m
M
for s in 1 2 3; do
	analysis/rlsynth "$tmp/synth$s" --seed "$s" --variants stock --threads 1 --mode both --noise 0.01 >/dev/null
done
analysis/rlsynth "$tmp/slow" --seed 4 --variants stock --threads 1 --mode both --noise 0.01 --effect stock=-8 >/dev/null

git init -q -b main "$tmp/linux"
gitc() { git -C "$tmp/linux" -c user.email=t@t -c user.name=t commit -q --allow-empty -m "$1"; }
gitc "6.12"
commits+=("$(git -C "$tmp/linux" rev-parse HEAD)")
nout=$tmp/nightly db=$tmp/history.sqlite
# shellcheck disable=SC2317  # called through run_split
night() { runners/nightly --ksrc "$tmp/linux" --matrix "$tmp/tiny.matrix" --kernel stock --out "$nout" --db "$db" "$@"; }

echo "$tmp/synth1" >"$STUB/synth"
run_split night
c1=${commits[0]:0:12}
n1=$(date -u +%Y%m%d)-$c1
is "$rc" 0 "the first night exits 0 (nothing to compare with)"
[ -f "$nout/$n1/night.json" ] && [ -f "$nout/$n1/report-mail.txt" ] && [ -f "$nout/index.html" ] && [ "$(readlink "$nout/latest")" = "$n1" ]
ok $? "the night is $nout/$n1 with night.json, report-mail.txt, the index page and latest"
jq_ok "night.json names the tree, branch and commit it built" "$nout/$n1/night.json" \
	".kernel.source == \"git\" and .kernel.branch == \"main\" and .kernel.commit == \"${commits[0]}\""
like "$(tail -1 "$STUB/kbuild.log")" "KSRC=$RLBENCH_CACHE/ksrc-[0-9a-f]+/src/linux-6.12-rl" \
	"the kernel is built from a worktree in the cache, not the tree itself"
is "$(git -C "$tmp/linux" status --porcelain | wc -l) $(git -C "$tmp/linux" rev-parse --abbrev-ref HEAD)" "0 main" \
	"the tree itself is untouched (still on main, clean)"

echo "$tmp/synth2" >"$STUB/synth"
run_split night
[ "$rc" = 0 ] || [ "$rc" = 3 ]
ok $? "the second night of the same commit exits 0 or 3 (got $rc)"
[ -d "$nout/$n1" ] && [ -d "$nout/$n1.2" ] && [ "$(jq -r .night "$nout/$n1/night.json")" = "$n1" ]
ok $? "it is a night of its own ($n1.2); the first is not overwritten"
run "$TOP/analysis/rlstat" history show --db "$db"
like "$OUT" "2 nights" "both nights are in the history"
like "$OUT" "$n1\.2 .* against $n1" "the second night is compared with the first"

# a new commit that slows the point
gitc "mm: slower"
commits+=("$(git -C "$tmp/linux" rev-parse HEAD)")
c2=${commits[1]:0:12}
echo "$tmp/slow" >"$STUB/synth"
run_split night
is "$rc" 1 "a night whose commit is 8% slower exits 1"
like "$(head -1 "$nout/$(date -u +%Y%m%d)-$c2/report-mail.txt")" "^Subject: \[rlbench\] (-[0-9.]+% dio read ops/s|\+[0-9.]+% dio read insn/op) on stock \(commit ${c2:0:7}\)$" \
	"its mail's subject names the change and the commit"

is "$(find "$nout" -name report-mail.txt -exec cat {} + | awk 'length > 79' | wc -l)" 0 \
	"every mail line is under 80 columns, long night names included"

# killed half way, finished by the next invocation
gitc "fs: a third commit"
commits+=("$(git -C "$tmp/linux" rev-parse HEAD)")
n3=$(date -u +%Y%m%d)-${commits[2]:0:12}
echo "$tmp/synth3" >"$STUB/synth"
echo 0 >"$STUB/boots"
: >"$STUB/boots.log"
STUB_DIE_AFTER=2 run_split night
[ "$rc" = 2 ] && [ -f "$nout/.pending" ] && [ ! -e "$nout/$n3" ] && [[ $err == *"the next invocation resumes"* ]]
ok $? "a night killed after 2 boots exits 2 and stays to be resumed"
gitc "fs: a fourth commit that must wait"
commits+=("$(git -C "$tmp/linux" rev-parse HEAD)")
run_split night
[ "$rc" != 2 ] && [ -d "$nout/$n3" ] && [ ! -e "$nout/.pending" ]
ok $? "the next invocation finishes that night ($n3, exit $rc) before a new one"
is "$(wc -l <"$STUB/boots.log")" 6 "the resumed night booted only the 4 missing boots (6 in all)"
jq_ok "the resumed night keeps its own commit" "$nout/$n3/night.json" ".kernel.commit == \"${commits[2]}\""

# a remote that does not answer; one night at a time
git -C "$tmp/linux" remote add origin "$tmp/no-such-remote"
git -C "$tmp/linux" config branch.main.remote origin
run_split night --fetch-timeout 5
[ "$rc" != 2 ] && [[ $err == *"remote 'origin' of KSRC did not answer"* ]]
ok $? "a remote that does not answer is skipped and the night goes on (exit $rc)"
flock "$nout/.lock" sleep 30 &
sleep 1
run_split night
kill %1 2>/dev/null
[ "$rc" = 2 ] && [[ $err == *"another night is running"* ]]
ok $? "a second night while one runs is refused: $err"
done_testing
