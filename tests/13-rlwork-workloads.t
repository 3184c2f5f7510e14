#!/bin/bash
# Every workload runs about a second on the host with --verify and the
# oracle finds no error; the JSON says verification was on.
. "$(dirname "$0")/lib/tap.sh"
need_rlwork
command -v jq >/dev/null || { echo "1..0 # skip jq not installed"; exit 0; }
scratch_dir

# ops that must have run | the command
cases=(
	"read,write|dio --rw=rw --layout=shared --threads 2"
	"read,write|dio --engine=io_uring --iodepth 8 --rw=rw --threads 2"
	"write,fault,buffered_read|dio --rw=write --fault-threads 1 --buffered-threads 1"
	"fault,punch,refill|mmap-punch --overlap=identical --threads 2"
	"fault,punch,refill|mmap-punch --overlap=interleaved --punch-len 16k"
	"fault,punch,refill|mmap-punch --overlap=disjoint --refill-threads 2"
	"fault|mmap-punch --punch-threads 0 --threads 2"
	"punch,refill|mmap-punch --fault-threads 0 --punch-threads 2"
	"truncate,extend,read,write,fault,dio_read|truncate-storm --threads 1"
	"truncate,fault,dio_read|truncate-storm --roles fault,dio --truncate-threads 2 --min-size 8m"
	"truncate,fault,read,dio_write|truncate-storm --roles diowrite,fault,read"
	"write,fault,buffered_read|dio --sparse --rw=write --layout=disjoint --threads 2 --fault-threads 1 --buffered-threads 1"
	"read,write|buffered-rw --rw=rw --cache=cold --threads 2 --layout=disjoint"
	"read|readahead --threads 2"
	"read,willneed|readahead --mode=willneed --window 256k"
)
# a workload no case names runs with its defaults: one added later is
# checked here without an edit (its own ops belong in its own test)
for w in $("$RLWORK" --list); do
	printf '%s\n' "${cases[@]}" | grep -qE "^[^|]*[|]$w( |$)" || cases+=("|$w")
done
plan $(( ${#cases[@]} * 2 + 6 ))

trap 'rm -rf "$dir"' EXIT
j=$dir/r.json

n=0
for oc in "${cases[@]}"; do
	ops=${oc%%|*} c=${oc#*|}
	w=${c%% *}
	# shellcheck disable=SC2086
	run_split "$RLWORK" $c --file "$dir/w.dat" --size 16m --runtime 1 --ramp 0.2 \
		--verify --json "$j"
	ok $rc "$c: exit 0"
	[ "$rc" -eq 0 ] || echo "$err" | diag
	jq_ok "$c: verify on, pages checked, 0 errors, $ops ran" "$j" \
		".workload == \"$w\" and .status == \"ok\" and .verify.enabled and
		 .verify.errors == 0 and .verify.checked > 0 and
		 (\"$ops\" | split(\",\")) - [.ops[] | select(.count > 0) | .name] == []"
	cp "$j" "$dir/$w-$((n += 1)).result.json"
done

run_split "$RLWORK" truncate-storm --file "$dir/w.dat" --size 16m --runtime 1 \
	--ramp 0.2 --verify --roles fault --min-size 0 --json "$j"
jq_ok "truncate-storm: SIGBUS past EOF is caught and counted, not fatal" "$j" \
	'.status == "ok" and .counters.sigbus > 0 and
	 ([.ops[] | select(.name == "truncate")][0].count > 0)'
run_split "$RLWORK" mmap-punch --file "$dir/w.dat" --size 16m --runtime 1 \
	--ramp 0.2 --verify --json "$j"
jq_ok "mmap-punch: fault, punch and refill each have their own histogram" "$j" \
	'[.ops[] | select(.count > 0) | .name] == ["fault", "punch", "refill"] and
	 ([.ops[] | .lat_ns.hist.counts | length > 0] | all) and
	 .counters.read_faults > 0 and .counters.write_faults > 0'
# Without fault threads only the punch threads' read-back of each punched
# chunk (16 pages of 64k) reads during the run: checked pages beyond the
# final pass (4096 pages of 16m) are those reads, through the oracle.
run_split "$RLWORK" mmap-punch --file "$dir/w.dat" --size 16m --runtime 0.5 \
	--ramp 0 --verify --fault-threads 0 --json "$j"
# shellcheck disable=SC2016  # $p is a jq variable
jq_ok "mmap-punch --verify: each punched chunk is read back and checked" "$j" \
	'.status == "ok" and .verify.errors == 0 and
	 ([.ops[] | select(.name == "punch")][0].count) as $p |
	 $p > 0 and .verify.checked >= 4096 + 16 * $p'

# --cache cold with random offsets: a read that happened to follow the
# block before it started readahead, whose pages the block-sized DONTNEED
# left cached (3018 of 4096 after a second here), so later "cold" reads
# hit them.  Each read must bring in its block only.
if command -v fincore >/dev/null; then
	rm -f "$dir/c.dat"
	run_split "$RLWORK" buffered-rw --rw read --cache cold --size 16m \
		--runtime 1 --ramp 0.2 --keep --file "$dir/c.dat"
	cached=$(fincore --noheadings --output PAGES "$dir/c.dat" 2>&1)
	[ "$rc" -eq 0 ] && [ "${cached// /}" = 0 ]
	ok $? "buffered-rw --cache cold (random): none of the file cached after the run (fincore: ${cached// /} pages)"
	rm -f "$dir/c.dat"
else
	skip "fincore (util-linux) not installed"
fi

# --keep-index: the last page of every 64 stays cached (the run never
# reads the blocks that hold one), and nothing else does.  The host may
# reclaim a few kept pages during the run; it never caches others.
run_split "$RLWORK" buffered-rw --rw read --cache cold --keep-index --size 16m \
	--runtime 1 --ramp 0.2 --keep --file "$dir/k.dat"
cached=$(python3 -c '
import ctypes, mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
size = os.fstat(fd).st_size
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]
addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
vec = (ctypes.c_ubyte * (size // 4096))()
if libc.mincore(ctypes.c_void_p(addr), ctypes.c_size_t(size), vec):
    sys.exit("mincore: " + os.strerror(ctypes.get_errno()))
print(" ".join(str(i) for i, v in enumerate(vec) if v & 1))
' "$dir/k.dat" 2>&1)
odd=$(tr ' ' '\n' <<<"$cached" | awk 'NF && ($1 !~ /^[0-9]+$/ || $1 % 64 != 63)' | head -c 200)
n=$(wc -w <<<"$cached")
[ "$rc" -eq 0 ] && [ -z "$odd" ] && [ "$n" -ge 48 ] && [ "$n" -le 64 ]
ok $? "buffered-rw --cache cold --keep-index: only kept pages cached ($n of 64${odd:+; not kept: $odd})"
rm -f "$dir/k.dat"

# the analysis side's schema check, when it is built
if [ -x analysis/rlstat ]; then
	run_split analysis/rlstat validate "$dir"/*.result.json
	ok $rc "every result validates against rlbench-result/1 (rlstat validate)"
	[ "$rc" -eq 0 ] || echo "$out $err" | diag
else
	skip "analysis/rlstat not built"
fi

done_testing
