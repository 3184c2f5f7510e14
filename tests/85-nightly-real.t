#!/bin/bash
# The slow checks behind `make test-nightly` (not part of `make test`; they
# build kernels and boot them): two real nights of runners/nightly on the
# stock kernel from Debian's source with a one-point matrix, both in the
# history, the second compared with the first, with charts, page and mail;
# and a real bisection on a git tree made from the extracted 6.12 source
# with six commits on top: two notes, one that does not build, its fix,
# extra work in filemap_read (the planted regression) and a last note.  The
# bisection in cost mode must name the planted commit, and the profile of
# the planted commit against its parent must put the planted loop in
# filemap_read at the top.  The nights, the bisection log and the two
# profiled runs stay under results/ for inspection.
. "$(dirname "$0")/lib/tap.sh"
if [ -z "${RLBENCH_SLOW:-}" ]; then
	echo "1..0 # skip the real nights and bisection run in 'make test-nightly'"
	exit 0
fi
plan 11

cache=${RLBENCH_CACHE:-$HOME/.cache/rlbench}
stamp=$(date -u +%Y%m%d-%H%M%S)
keep=$TOP/results/test-nightly/$stamp
mkdir -p "$keep"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/tiny.matrix" <<'M'
# tiny: one buffered read point, briefly
iterations 3
runtime 3
ramp 1
mem_mb 1024
disk_mb 512
threads 1
variants stock
point buffered-rw --rw read --cache warm --size 16m
M

t0=$SECONDS
run_split runners/nightly --matrix "$tmp/tiny.matrix" --kernel stock --out "$keep/nightly" --db "$keep/history.sqlite"
t1=$SECONDS
printf '%s\n' "$err" | tail -n 5 | diag
[ "$rc" = 0 ] || [ "$rc" = 3 ]
ok $? "the first real night exits 0 or 3 (got $rc) in $((t1 - t0)) s"
run_split runners/nightly --matrix "$tmp/tiny.matrix" --kernel stock --out "$keep/nightly" --db "$keep/history.sqlite"
t2=$SECONDS
printf '%s\n' "$err" | tail -n 5 | diag
[ "$rc" = 0 ] || [ "$rc" = 3 ] || [ "$rc" = 1 ]
ok $? "the second real night ran (exit $rc) in $((t2 - t1)) s"
run "$TOP/analysis/rlstat" history show --db "$keep/history.sqlite"
printf '%s\n' "$OUT" | diag
like "$OUT" "2 nights" "both nights are in the history"
like "$OUT" "\.2 .* against " "the second night is compared with the first"
n=$(find "$keep/nightly" -name report-mail.txt | wc -l)
[ "$n" = 2 ] && [ -f "$keep/nightly/index.html" ] && [ -n "$(find "$keep/nightly/trend" -name '*.png')" ]
ok $? "two mails, the index page and the trend charts in $keep/nightly"
head -n 30 "$(find "$keep/nightly" -name report-mail.txt | sort | tail -n 1)" | diag

# The bisection tree: made once from the extracted source (hard links: the
# source tree's files are never written, git replaces files it changes).
src=$cache/src/linux-6.12-rl
tree=$cache/bisect-test/linux
if ! git -C "$tree" rev-parse -q --verify 'HEAD^{/a third note}' >/dev/null 2>&1; then
	rm -rf "$tree"
	mkdir -p "${tree%/*}"
	cp -al "$src" "$tree"
	git -C "$tree" init -q -b master
	# Debian's .gitignore ignores the whole top level
	sed -i '/^# Debian packaging/,$d' "$tree/.gitignore"
	g() { git -C "$tree" -c user.email=t@t -c user.name=rlbench "$@"; }
	g add -A >/dev/null && g commit -q -m "Linux 6.12 with the rlbench series"
	sed -i '1a\
a note for the bisection test.' "$tree/README" && g commit -q -am "README: a note"
	sed -i '1a\
a second note.' "$tree/README" && g commit -q -am "README: a second note"
	sed -i 's/^\tloff_t last_pos = ra->prev_pos;$/\tloff_t last_pos = ra->prev_pos\n\tthis does not build;/' "$tree/mm/filemap.c"
	g commit -q -am "mm/filemap: a change that does not build"
	sed -i '/^\tloff_t last_pos = ra->prev_pos$/{N;s/\n\tthis does not build;//;s/prev_pos$/prev_pos;/}' "$tree/mm/filemap.c"
	g commit -q -am "mm/filemap: fix the build"
	sed -i 's/^\tloff_t last_pos = ra->prev_pos;$/\tloff_t last_pos = ra->prev_pos;\n\tunsigned int rl_spin;\n\n\t\/* fixed extra work per read: what the bisection must find *\/\n\tfor (rl_spin = 0; rl_spin < 20000; rl_spin++)\n\t\tbarrier();/' "$tree/mm/filemap.c"
	g commit -q -am "mm/filemap: extra work in filemap_read (the planted regression)"
	sed -i '1a\
a third note.' "$tree/README" && g commit -q -am "README: a third note"
fi
planted=$(git -C "$tree" rev-parse 'HEAD^{/the planted regression}')
broken=$(git -C "$tree" rev-parse 'HEAD^{/does not build}')
[ -n "$planted" ] && [ "$(git -C "$tree" rev-list --count HEAD~6..HEAD)" = 6 ]
ok $? "the bisection tree: 6 commits on top of 6.12 in $tree"

sed -i 's/^iterations 3$//' "$tmp/tiny.matrix"
t3=$SECONDS
run_split runners/bisect --ksrc "$tree" --good HEAD~6 --bad HEAD --point p001 \
	--metric read.insn_per_op --variant stock --mode cost --matrix "$tmp/tiny.matrix"
t4=$SECONDS
printf '%s\n' "$out" | diag
printf '%s\n' "$err" | grep -E 'step|GOOD|midpoint' | diag
is "$rc" 0 "the bisection ends with a first bad commit in $((t4 - t3)) s"
like "$out" "first bad commit: $planted " "it is the planted commit"
steps=$(sed -n '/^steps/,/^first bad/p' <<<"$out")
if grep -q "^  $broken" <<<"$steps"; then
	like "$steps" "$broken +- +skip \(does not build\)" "the commit that does not build was skipped"
else
	ok 0 "the bisection did not need the commit that does not build"
fi
# Every measured step is on the side of the midpoint its decision says.
awk '/^steps/ {match($0, /midpoint [0-9.]+/); mid = substr($0, RSTART + 9, RLENGTH - 9) + 0; next}
	$2 ~ /^[0-9.]+$/ && / good / {n++; if ($2 + 0 >= mid) bad = 1}
	$2 ~ /^[0-9.]+$/ && / bad / {n++; if ($2 + 0 <= mid) bad = 1}
	END {exit !(mid > 0 && n >= 3 && !bad)}' <<<"$steps"
ok $? "each measured step lies on its decision's side of the midpoint"

# The profile names the planted work: PROFILE=insn cost runs of the
# planted commit's parent and of the planted commit, each built in the
# bisection's worktree (one run each: the System.map is the run's own).
# Where the difference goes: filemap_read first, by the planted loop's
# count, 20000 iterations of a loop of a few instructions.
ksrc=$(cd "$tree" && git rev-parse --show-toplevel)
kc=$cache/ksrc-$(printf '%s' "$ksrc" | sha256sum | cut -c1-12)
declare -A prun=()
for c in parent planted; do
	rev=$planted
	[ $c = parent ] && rev=$planted~1
	git -C "$kc/src/linux-6.12-rl" checkout -q -f --detach "$rev"
	run env KSRC="$kc/src/linux-6.12-rl" RLBENCH_CACHE="$kc" CCACHE_DIR="$cache/ccache" \
		runners/run bench --kernel stock --matrix "$tmp/tiny.matrix" --mode cost --profile insn \
		--baseline none --name "probe-$c"
	prun[$c]=$TOP/$(sed -n 's/^run: //p' <<<"$OUT" | tail -1)
	printf '%s\n' "$OUT" | tail -n 3 | diag
done
t5=$SECONDS
run_split analysis/rlstat profile "${prun[planted]}" --diff "${prun[parent]}" --top 5
printf '%s\n' "$out" | sed -n '/^where the difference goes/,/^  sum of rows/p' | diag
top=$(sed -n '/^where the difference goes/,/^  sum of rows/p' <<<"$out" | sed -n 4p)
read -r _ _ delta _ _ _ fn <<<"$top"
ok "$([ "$rc" = 0 ] && [ "$fn" = filemap_read ] &&
	awk -v d="$delta" 'BEGIN {k = d / 20000; exit !(k >= 2 && k <= 6 && k - int(k + 0.5) < 0.001 && int(k + 0.5) - k < 0.001)}' &&
	grep -q '^  sum of rows = total delta' <<<"$out"; echo $?)" \
	"the planted loop: filemap_read first in where the difference goes, $delta insn/op (20000 x a whole loop), rows summing to the total ($((t5 - t4)) s)"
mv "${prun[parent]}" "${prun[planted]}" "$keep/"
done_testing
