#!/bin/bash
# The nightly history on synthetic nights (rlsynth): ten nights with a step
# of -8% in rangelock's read rate at night 6 and a drift of 1% a night in
# stock's from night 4 on.  The history holds every night and series,
# import is idempotent, each night is compared with the previous good one
# by the gate, E-Divisive finds the step at night 6 and the drift inside
# the drift, and nothing in an A/A sequence with a one-night outlier; the
# mail names the changes, stays under 80 columns and reproduces the gate.
. "$(dirname "$0")/lib/tap.sh"
[ -x analysis/rlstat ] && [ -x analysis/rlsynth ] || make -s -C analysis >/dev/null || exit 2
plan 25

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
R=$TOP/analysis/rlstat

# nights OUT MODE STEP DRIFT OUTLIER: ten nights, one a day, commit c<k>
nights() {
	local out=$1 mode=$2 step=$3 drift=$4 outl=$5 k d c eff
	mkdir -p "$out"
	for k in $(seq 1 10); do
		d=$out/202611$(printf %02d "$k")-c$k eff=()
		[ "$step" = 1 ] && [ "$k" -ge 6 ] && eff+=(--effect rangelock=-8)
		[ "$drift" = 1 ] && [ "$k" -ge 4 ] && eff+=(--effect stock=-$((k - 3)))
		[ "$outl" = 1 ] && [ "$k" = 5 ] && eff+=(--effect rangelock=-10)
		analysis/rlsynth "$d" --seed "$k" --mode "$mode" --noise 0.01 \
			--effect-point 0 ${eff[@]+"${eff[@]}"} >/dev/null || return 1
		c=$(printf 'c%s' "$k" | sha1sum | cut -c1-40)
		jq -n --arg n "${d##*/}" --arg s "2026-11-$(printf %02d "$k")T02:00:00Z" --arg c "$c" \
			'{schema: "rlbench-night/1", night: $n, started: $s,
			  kernel: {source: "git", tree: "/src/linux", branch: "main", commit: $c}}' >"$d/night.json"
		"$R" history import "$d" --db "$out.sqlite" >>"$out.log" 2>&1 || return 1
	done
}
short() { printf 'c%s' "$1" | sha1sum | cut -c1-7; }
# cps SHOW-OUTPUT MODE VARIANT METRIC: the first night after each change point
cps() {
	awk -v h="$2 $3 p000-dio" -v m="$4" '
		/^(cost|time) / { on = index($0, h " ") == 1 && index($0, ") " m " [") > 0; next }
		on && /change point/ { want = 1; next }
		on && want { print $1; want = 0 }' <<<"$1" | xargs
}

nights "$tmp/n" both 1 1 0
ok $? "ten synthetic nights imported"
run "$R" history show --db "$tmp/n.sqlite" --all
show=$OUT
like "$(sed -n 1p <<<"$show")" "10 nights, 36 series" "the history holds 10 nights and 36 series"
bad=$(awk '/^(cost|time) /{if (n && n != 10) b++; n = 0; next} /^  2026/{n++} END {if (n != 10) b++; print b + 0}' <<<"$show")
is "$bad" 0 "every series has a row for every night"

"$R" history import "$tmp/n/20261105-c5" --db "$tmp/n.sqlite" >/dev/null 2>&1
run "$R" history show --db "$tmp/n.sqlite" --all
is "$OUT" "$show" "importing a night again changes nothing (idempotent)"

# each night's reference is the latest earlier night that did not FAIL
want=$(awk '/^  2026[0-9]+-c[0-9]+  2026-/ { if (prev) print $1, prev; if ($5 != "FAIL") prev = $1 }' <<<"$show")
got=$(awk '/^  2026[0-9]+-c[0-9]+  2026-/ && / against / {print $1, $NF}' <<<"$show")
[ -n "$got" ] && [ "$got" = "$want" ] && [[ $got == *"20261107-c7 20261103-c3"* || $got == *"20261107-c7 20261105-c5"* ]]
ok $? "every night is compared with the previous good night (after the FAILs, night 7 with $(awk '$1 == "20261107-c7" {print $2}' <<<"$got"))"

run "$R" history show --db "$tmp/n.sqlite"
gated=$OUT
is "$(cps "$gated" cost rangelock read.insn_per_op)" 20261106-c6 "the step: one change point in cost-mode insn/op, first night after it 6"
is "$(cps "$gated" time rangelock read.ops_per_s)" 20261106-c6 "the step: one change point in time-mode ops/s, first night after it 6"
like "$(grep -A0 'change point: +8' <<<"$gated" | head -1)" "commits $(short 5)\.\.$(short 6)" \
	"the step's change point names the commits either side ($(short 5)..$(short 6))"
drift=$(cps "$gated" cost stock read.insn_per_op)
[ -n "$drift" ] && ! tr ' ' '\n' <<<"$drift" | grep -qE '2026110[1-3]-'
ok $? "the drift: a change point inside the drift (nights 4-10): $drift"
drift_t=$(cps "$gated" time stock read.ops_per_s)
[ -n "$drift_t" ] && ! tr ' ' '\n' <<<"$drift_t" | grep -qE '2026110[1-3]-'
ok $? "the drift in time mode too: $drift_t"
dline=$(awk '/^cost stock p000-dio .* read.insn_per_op /{on = 1; next} /^(cost|time) /{on = 0} on && /change point/' <<<"$gated")
like "$dline" "change point: \+[0-9.]+% \(" \
	"the drift's change point says how far insn/op rose"
run "$R" history show --db "$tmp/n.sqlite"
is "$OUT" "$gated" "the detector is deterministic (fixed seed)"

nights "$tmp/a" both 0 0 1
run "$R" history show --db "$tmp/a.sqlite" --all
like "$(tail -n 1 <<<"$OUT")" "^0 change point" "A/A with a one-night outlier: no change point in any of 36 series"
like "$(grep '^  20261105-c5 ' <<<"$OUT" | head -1)" "FAIL against" \
	"the outlier night itself is a gate FAIL (the gate sees the night, the detector no change)"

# The mails
run "$R" history mail "$tmp/n/20261108-c8" --db "$tmp/n.sqlite"
is "$RC" 1 "the mail of night 8 exits 1 (regression)"
m=$(cat "$tmp/n/20261108-c8/report-mail.txt")
like "$(head -1 <<<"$m")" '^Subject: \[rlbench\] \+8\.7% dio read insn/op on rangelock \(commit '"$(short 8)"'\)$' \
	"the subject names the change, the metric, the variant and the commit"
like "$m" "rangelock p000-dio [^
]*
[^
]*
    change point: [^
]*first night after
      it 20261106-c6, commits $(short 5)\.\.$(short 6)" "the mail names the step's change point and its commits"
like "$m" "stock p000-dio [^
]*\[cost, primary\][^
]*
[^
]*
    change point: [^
]*\(worse\)" "the mail names the drift's change point"
cmd=$(sed -n '/^To reproduce:/,$p' <<<"$m" | sed -e ':a' -e '/\\$/N; s/ \\\n */ /; ta' |
	sed -n 's/^  \(analysis\/rlstat regress .*\)$/\1/p')
(cd "$TOP" && eval "$cmd") >/dev/null 2>&1
is "$?" 1 "the mail's regress command reproduces the FAIL: $cmd"
for k in 1 2 3 4 5 6 7 9 10; do "$R" history mail "$tmp"/n/202611*-c$k --db "$tmp/n.sqlite" >/dev/null 2>&1; done
is "$(cat "$tmp"/n/*/report-mail.txt | awk 'length > 79' | wc -l)" 0 "every mail line is under 80 columns"

nights "$tmp/c" cost 0 0 0
run "$R" history mail "$tmp/c/20261110-c10" --db "$tmp/c.sqlite"
m=$(cat "$tmp/c/20261110-c10/report-mail.txt")
[ "$RC" = 0 ] && [ "$(sed -n 3p <<<"$m" | cut -c1-10)" = "All clear:" ] && [ "$(sed -n '3,$p' <<<"$m" | grep -c '^$')" = 0 ]
ok $? "a night with nothing to say: exit 0 and one all-clear paragraph"
like "$(head -1 <<<"$m")" '^Subject: \[rlbench\] PASS, no change' "the all-clear subject"

# A real change the threshold allows (insn/op up 0.1%, threshold 0.25%)
# is mailed as worse, within threshold, and the night still exits 0.
for k in 1 2; do
	d=$tmp/w/2026110$k-c$k eff=()
	[ $k = 2 ] && eff=(--effect rangelock=-0.1)
	mkdir -p "$tmp/w"
	analysis/rlsynth "$d" --seed "$k" --mode cost --noise 0.01 \
		${eff[@]+"${eff[@]}"} >/dev/null
	jq -n --arg n "${d##*/}" --arg s "2026-11-0${k}T02:00:00Z" --arg c "$(short $k)" \
		'{schema: "rlbench-night/1", night: $n, started: $s,
		  kernel: {source: "git", tree: "/src/linux", branch: "main", commit: $c}}' >"$d/night.json"
	"$R" history import "$d" --db "$tmp/w.sqlite" >/dev/null 2>&1
done
run "$R" history mail "$tmp/w/20261102-c2" --db "$tmp/w.sqlite"
m=$(cat "$tmp/w/20261102-c2/report-mail.txt")
[ "$RC" = 0 ] && [[ $m == *"rangelock p000-dio"*"+0.1"*"%"*"worse,"*"within threshold (gate PASS)"* ]]
ok $? "a 0.1% insn/op rise: the mail says worse, within threshold; exit $RC"
like "$(head -1 <<<"$m")" '^Subject: \[rlbench\] PASS, [0-9]+ metric\(s\) worse within threshold' \
	"its subject says so, not \"no change\""
like "$(sed -n 3p <<<"$m")" '^No regression past the threshold: night ' \
	"and its first line is not \"All clear\""
done_testing
