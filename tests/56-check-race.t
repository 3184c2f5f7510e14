#!/bin/bash
# runners/check-race's verdict, with runners/run replaced by a stub in a
# copy of the scripts: the variants kernels/variants marks "loses" must
# lose data on every hole-punch point and on no truncate point (i_size, not
# the lock, protects truncate), and the "safe" ones nowhere; a run that ends
# before it names its directory is a failure (1), not bad input (2); bad
# arguments are 2.
. "$(dirname "$0")/lib/tap.sh"
plan 13

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/runners" "$tmp/kernels"
cp runners/check-race runners/lib.sh "$tmp/runners/"
printf '%s\n' '# name marker race what' 'stock stock safe x' 'imutex imutex loses y' >"$tmp/kernels/variants"
# The stub writes one result per variant and point with the data errors
# that STUB_ERRORS says ("stock=0 imutex=5", or "imutex=5:0" for two
# points, p000 (mmap-punch) and p001 (truncate-storm), as in
# configs/race.matrix; STUB_FAILED=imutex:p001 makes that one a hang), or
# fails before a run exists.
cat >"$tmp/runners/run" <<'S'
#!/bin/bash
top=$(cd "$(dirname "$0")/.." && pwd)
[ -n "${STUB_EXIT:-}" ] && { echo "run: kernel build of imutex failed" >&2; exit "$STUB_EXIT"; }
rd=results/race; rm -rf "${top:?}/$rd"; mkdir -p "$top/$rd"
for kv in $STUB_ERRORS; do
	mkdir -p "$top/$rd/${kv%=*}"
	i=0 es=${kv#*=} w=(mmap-punch truncate-storm)
	for e in ${es//:/ }; do
		st='"ok"' err=null
		[ "${STUB_FAILED:-}" = "${kv%=*}:p00$i" ] && st='"failed"' err='"hang: point ran 19s"'
		echo "{\"status\":$st,\"error\":$err,\"workload\":\"${w[i]}\",\"verify\":{\"errors\":$e},\"env\":{\"point\":\"p00$i\"}}" >"$top/$rd/${kv%=*}/p00$i-i1.result.json"
		i=$((i + 1))
	done
done
echo "run: $rd"
S
chmod +x "$tmp/runners/run"
cr=$tmp/runners/check-race

STUB_ERRORS="stock=0 imutex=7" run "$cr"
is "$RC" 0 "imutex loses data, stock none: pass"
like "$OUT" "imutex: 7 data errors, as expected" "the verdict names what each variant did"
STUB_ERRORS="stock=0 imutex=0" run "$cr"
like "$RC:$OUT" "^1:.*imutex: no data errors on p000 \(mmap-punch\): the race was not caught" "a loses variant that lost nothing fails"
STUB_ERRORS="stock=0:0 imutex=7:0" run "$cr"
like "$RC:$OUT" "^0:.*imutex: 7 data errors, as expected without the lock, on every mmap-punch point; none elsewhere" \
	"a loses variant that lost data on the punch point and none on the truncate point passes"
STUB_ERRORS="stock=0:0 imutex=7:4" run "$cr"
like "$RC:$OUT" "^1:.*imutex: data errors where i_size, not the lock, protects: 4 on p001 \(truncate-storm\)" \
	"a loses variant that lost data on the truncate point fails"
STUB_ERRORS="stock=0:0 imutex=0:4" run "$cr"
like "$RC:$OUT" "^1:.*imutex: no data errors on p000 \(mmap-punch\): the race was not caught" \
	"a loses variant that lost data on the truncate point only fails for the punch point"
STUB_ERRORS="stock=0:0 imutex=7:0" STUB_FAILED=imutex:p001 run "$cr"
like "$RC:$OUT" "^1:.*imutex: failed: p001: hang" "a loses variant whose truncate point hung fails"
STUB_ERRORS="stock=0:2 imutex=7:0" run "$cr"
like "$RC:$OUT" "^1:.*stock: 2 data errors" "a safe variant that lost data on the truncate point fails"
STUB_ERRORS="stock=3 imutex=7" run "$cr"
like "$RC:$OUT" "^1:.*stock: 3 data errors" "a safe variant that lost data fails"
STUB_ERRORS="imutex=7" run "$cr"
like "$RC:$OUT" "^1:.*stock: no results" "a variant without results fails"
STUB_EXIT=1 run "$cr"
like "$RC:$OUT" "^1:.*failed \(exit 1\) before it produced a run directory" "a run that ends before its run line is a failure, exit 1"
run "$cr" --acel tcg
like "$RC:$OUT" "^2:.*unknown argument '--acel' \(accepted: --accel auto\|kvm\|tcg\)" "an unknown argument: exit 2"
run "$cr" --accel xen
like "$RC:$OUT" "^2:.*'xen' is not one of auto, kvm, tcg" "a bad accelerator: exit 2"
done_testing
