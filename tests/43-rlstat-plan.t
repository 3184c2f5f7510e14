#!/bin/bash
# rlstat plan: meta.json's boot_order (seeded, balanced, ABBA) and the
# ITERATIONS=auto decision to add a round (max_iterations, every point
# decided, the budget), on a synthetic run; bad input leaves meta.json as
# it was. tests/53 drives it through runners/run.
. "$(dirname "$0")/lib/tap.sh"
plan 21
[ -x analysis/rlstat ] || make -s -C analysis >/dev/null || exit 2
R=analysis/rlstat
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkrun() {	# DIR SEED: a run of stock and rangelock, no boots planned yet
	analysis/rlsynth "$1" --variants stock,rangelock --iterations 3 >/dev/null 2>&1
	jq --argjson s "$2" '.seed = $s | .iterations = "auto" | .max_iterations = 5 | .budget_s = null' \
		"$1/meta.json" >"$1/m" && mv "$1/m" "$1/meta.json"
}
order() { jq -r '[.boot_order[] | "\(.iteration):\(.variant):\(.mode)"] | join(" ")' "$1/meta.json"; }

mkrun "$tmp/a" 7
run $R plan first "$tmp/a" --rounds 4 stock:time rangelock:time stock:cost rangelock:cost
o=$(order "$tmp/a")
is "$RC:$(wc -w <<<"$o")" "0:16" "four rounds of four units"
balanced=$(for r in 1 2 3 4; do tr ' ' '\n' <<<"$o" | grep -c "^$r:"; done | sort -u | xargs)
r1=$(tr ' ' '\n' <<<"$o" | sed -n 's/^1://p' | xargs) r2=$(tr ' ' '\n' <<<"$o" | sed -n 's/^2://p' | xargs)
is "$balanced:$r2" "4:$(xargs -n1 <<<"$r1" | tac | xargs)" "each round has every unit once; round 2 is round 1 backwards (ABBA)"
mkrun "$tmp/b" 7
$R plan first "$tmp/b" --rounds 4 stock:time rangelock:time stock:cost rangelock:cost
is "$(order "$tmp/b")" "$o" "the same seed, the same order"
diff=0
for s in 1 2 3 4 5 6; do
	mkrun "$tmp/s$s" "$s"
	$R plan first "$tmp/s$s" --rounds 4 stock:time rangelock:time stock:cost rangelock:cost
	[ "$(order "$tmp/s$s")" = "$o" ] || diff=$((diff + 1))
done
ok "$([ $diff -ge 5 ]; echo $?)" "other seeds, other orders ($diff of 6 differ)"
# plan order: a LAVA job set's boots, the order a run of that seed has
lo=$($R plan order --seed 7 --rounds 4 stock:time rangelock:time stock:cost rangelock:cost |
	awk '{printf "%s%s:%s:%s", (NR > 1 ? " " : ""), $3, $2, $1}')
is "$lo" "$o" "plan order prints the order plan first writes for the same seed"
run $R plan order --rounds 2 stock:time
is "$RC" 2 "plan order without --seed is refused"
run $R plan order --seed 1 --rounds 2 stock:time rangelock
is "$RC:$(grep -c 'unit "rangelock" is not VARIANT:time' <<<"$OUT")" "2:1" "plan order names a unit without its mode"
sum=$(sha256sum <"$tmp/a/meta.json")
run $R plan first "$tmp/a" --rounds 2 stock:time rangelock:time
is "$RC:$(sha256sum <"$tmp/a/meta.json")" "0:$sum" "a run with boots planned keeps them (RESUME)"

# the added rounds: plan files give each point's own seconds (runtime 1)
mkrun "$tmp/c" 3
$R plan first "$tmp/c" --rounds 3 stock:time rangelock:time
for v in stock rangelock; do
	printf 'p000-dio 1 60 dio --runtime 1 --ramp 0\np001-dio 1 60 dio --runtime 1 --ramp 0\n' >"$tmp/c/$v/plan-time-i1"
	cp "$tmp/c/$v/plan-time-i1" "$tmp/c/$v/plan-time-i3"
done
# each boot took 4 s: 2 s of points, 2 s besides them
jq '.boot_order |= map(.seconds = 4)' "$tmp/c/meta.json" >"$tmp/m" && mv "$tmp/m" "$tmp/c/meta.json"
run $R plan next "$tmp/c" p001-dio
is "$RC:$OUT:$(jq -c '[.boot_order[] | select(.iteration == 4) | .points]' "$tmp/c/meta.json")" \
	'0:iteration 4: 1 undecided point(s): p001-dio:[["p001-dio"],["p001-dio"]]' \
	"an undecided point: round 4 runs it on both variants"
last3=$(jq -r '[.boot_order[] | select(.iteration == 3) | .variant] | join(" ")' "$tmp/c/meta.json")
is "$(jq -r '[.boot_order[] | select(.iteration == 4) | .variant] | join(" ")' "$tmp/c/meta.json")" \
	"$(xargs -n1 <<<"$last3" | tac | xargs)" "round 4 runs round 3 backwards"
ran() {	# ROUND SECONDS: the runner ran round ROUND of p001-dio, each boot SECONDS
	local v
	for v in stock rangelock; do
		sed -n 2p "$tmp/c/$v/plan-time-i1" >"$tmp/c/$v/plan-time-i$1"
	done
	jq --argjson s "$2" '.boot_order |= map(.seconds //= $s)' "$tmp/c/meta.json" >"$tmp/m" && mv "$tmp/m" "$tmp/c/meta.json"
}
ran 4 3
# spent: 6 x 4 + 2 x 3 = 30 s; a round of one point: 2 x (2 + 1) = 6 s
jq '.budget_s = 35' "$tmp/c/meta.json" >"$tmp/m" && mv "$tmp/m" "$tmp/c/meta.json"
run $R plan next "$tmp/c" p001-dio
is "$RC:$OUT" "1:budget 35 s: round 5 (1 points, about 6 s) would take the time boots from 30 s past it; stopping with 1 point(s) undecided" \
	"a round past the budget is not added, and the line says why"
is "$(jq -c .auto_stop "$tmp/c/meta.json"):$(jq '.boot_order | length' "$tmp/c/meta.json")" \
	'{"rule":"budget","rounds":4,"undecided":["p001-dio"]}:8' "meta.json's auto_stop: the budget, with the point"
jq '.budget_s = 36' "$tmp/c/meta.json" >"$tmp/m" && mv "$tmp/m" "$tmp/c/meta.json"
run $R plan next "$tmp/c" p001-dio
is "$RC:$(jq '.boot_order | length' "$tmp/c/meta.json")" "0:10" "one that fits is added"
ran 5 3
run $R plan next "$tmp/c" p000-dio
is "$RC:$OUT:$(jq -c .auto_stop.rule "$tmp/c/meta.json")" '1:max_iterations 5 reached:"max_iterations"' "max_iterations stops it"
jq '.max_iterations = 10' "$tmp/c/meta.json" >"$tmp/m" && mv "$tmp/m" "$tmp/c/meta.json"
run $R plan next "$tmp/c"
is "$RC:$OUT:$(jq -c .auto_stop "$tmp/c/meta.json")" '1:every point decided after 5 iterations:{"rule":"decided","rounds":5,"undecided":[]}' \
	"nothing undecided: no round"

# list and record: what runners/run executes and what it ran
is "$($R plan list "$tmp/c" | sed -n '1p;7p' | xargs)" \
	"$(jq -r '.boot_order[0] | "time \(.variant) 1 -"' "$tmp/c/meta.json") $(jq -r '.boot_order[6] | "time \(.variant) 4 p001-dio"' "$tmp/c/meta.json")" \
	"plan list: mode, variant, iteration, points (- for all), in order"
$R plan record "$tmp/c" stock time 2 --seconds 12.34 --accel kvm
$R plan record "$tmp/c" rangelock cost 1 --accel tcg 2>/dev/null	# no cost boots: refused below
jq '.variants |= map(.accel = null)' "$tmp/c/meta.json" >"$tmp/m" && mv "$tmp/m" "$tmp/c/meta.json"
$R plan record "$tmp/c" stock time 2 --accel kvm
is "$(jq -c '[(.boot_order[] | select(.variant == "stock" and .iteration == 2) | .seconds), (.variants[] | .accel)]' "$tmp/c/meta.json")" \
	'[12.3,"kvm",null]' "plan record: a boot's seconds and its variant's accelerator"
jq '.variants |= map(.accel = (if .name == "stock" then "kvm" else null end))' "$tmp/a/meta.json" >"$tmp/m" && mv "$tmp/m" "$tmp/a/meta.json"
$R plan record "$tmp/a" stock cost 1 --accel tcg && $R plan record "$tmp/a" rangelock cost 1 --accel tcg
is "$(jq -c '[.variants[].accel]' "$tmp/a/meta.json")" '["kvm","tcg"]' \
	"a cost boot names its variant's accelerator only where its time boots have not"
run $R plan record "$tmp/c" rangelock cost 1 --accel tcg
like "$RC:$OUT" "^2:.*has no boot rangelock cost 1$" "a boot the plan does not have: exit 2"

# bad input: exit 2, meta.json as it was, nothing left behind
sum=$(sha256sum <"$tmp/c/meta.json")
run $R plan next "$tmp/c" p009-nosuch
like "$RC:$OUT:$(sha256sum <"$tmp/c/meta.json")" "^2:.*\"p009-nosuch\" is not a point of this run.*:$sum$" \
	"a point the run does not have: exit 2 naming it, meta.json unchanged"
mkrun "$tmp/d" 1
sum=$(sha256sum <"$tmp/d/meta.json")
run $R plan first "$tmp/d" --rounds 3 stock:time rangelock:warm
like "$RC:$OUT:$(sha256sum <"$tmp/d/meta.json"):$(find "$tmp" -name '.rlstat-stage-*' | wc -l)" \
	"^2:.*unit \"rangelock:warm\" is not VARIANT:time or VARIANT:cost:$sum:0$" \
	"a unit in no mode: exit 2 naming it, meta.json unchanged, no temporary left"
done_testing
