#!/bin/bash
# Every command block of README.md and of the docs it links (docs/*.md) is
# run by a test, or marked in its file as slow (a make test-* target or a
# release run) or as needing a lab (what CI lacks). The table below says which; a README command that no row
# matches, or a row that matches no command, fails. The cheap commands run
# here, through make as a user types them.
. "$(dirname "$0")/lib/tap.sh"
plan 19

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# readme_commands FILE...: one line per command of the indented blocks
# (not of fenced ones), continuation lines joined, as "command<TAB>comment".
readme_commands() {
	awk '
	function flush() { if (cmd != "") print cmd "\t" com; cmd = ""; com = "" }
	# a fenced block is output shown (a report excerpt), not commands
	/^```/ { flush(); fenced = !fenced; next }
	fenced { next }
	/^    [^ ]/ || (/^        / && cont) {
		line = $0; sub(/^ +/, "", line)
		c = ""
		if (match(line, / +# /)) { c = substr(line, RSTART + RLENGTH); line = substr(line, 1, RSTART - 1) }
		if (c != "") com = c
		cmd = (cmd == "" ? line : cmd " " line)
		cont = (line ~ /[\\|]$/)
		if (!cont) flush()
		next
	}
	{ flush(); cont = 0 }
	END { flush() }' "$@"
}
# the files whose commands are checked: README.md and the docs it links
# for running things (formats.md and rlstat-input.md hold no commands)
DOCS=(docs/running.md docs/measuring.md docs/measurements.md docs/variables.md docs/parts.md)

# How each README command is covered: ERE on the command | kind | what.
#   here   this file runs it (below)
#   test   FILE|TEXT: FILE runs it, and contains TEXT
#   slow   FILE|TEXT or "release": run by a make test-* target or by hand;
#          the README comment must start with "slow"
#   lab    the README comment must start with "lab"
rows=(
	'^make bench KERNEL=rangelock$|test|tests/90-e2e-qemu.t|make --no-print-directory bench KERNEL=stock MATRIX=smoke'
	'^make bench KERNEL=rangelock\+shared-alloc-dio BASELINE=stock\+shared-alloc-dio$|test|tests/53-runner-plan.t|--kernel rangelock+shared-alloc-dio --baseline stock+shared-alloc-dio'
	'^make test$|test|.ci/run|make test'
	'^make bench KERNEL=all MATRIX=quick$|slow|release'
	'^make bench KERNEL=all MATRIX=fairness$|slow|release'
	'^workloads/rlwork fairness --threads 2 --wide-op truncate --runtime 2$|test|tests/65-rlwork-fairness.t|fairness --threads 2 --wide-op truncate --runtime 2'
	'^make bench KERNEL=rangelock MODE=both$|slow|release'
	'^make bench-noise$|slow|release'
	'^make bench KERNEL=host SCRATCH=|test|tests/51-bare-runner.t|make --no-print-directory bench KERNEL=host SCRATCH='
	'^make report RUN=results/<run> BASELINE=rangelock$|here'
	'^make mail RUN=results/<run>$|here'
	'^make regress BASELINE=results/<a> CANDIDATE=results/<b> THRESHOLD=2%$|here'
	'^make bench RESUME=results/<run>$|test|tests/90-e2e-qemu.t|make --no-print-directory bench RESUME='
	'^make rerun RUN=results/<run>$|test|tests/90-e2e-qemu.t|make --no-print-directory rerun RUN='
	'^make check-race$|slow|release'
	'^make bench KERNEL=rangelock DEBUG=1 MATRIX=debug-poll BASELINE=none$|test|tests/93-debug-rangelock.t|make --no-print-directory bench KERNEL=rangelock DEBUG=1 MATRIX=debug-poll BASELINE=none'
	'^make bench KERNEL=rangelock DEBUG=1 MATRIX=debug-mmlock BASELINE=none$|test|tests/93-debug-rangelock.t|make --no-print-directory bench KERNEL=rangelock DEBUG=1 MATRIX=debug-mmlock BASELINE=none'
	'^make bench KERNEL=listlock DEBUG=kcsan MATRIX=debug BASELINE=none$|slow|release'
	'^make bench KERNEL=rangelock MODE=cost PROFILE=insn$|slow|release'
	'^make bench-profile$|slow|release'
	'^analysis/rlstat profile results/<run> --diff stock$|test|tests/47-insn-profile.t|--diff stock --top 3'
	'^make bench-locks$|here'
	'^make bench-generator$|slow|release'
	'^make bench-matrix$|slow|release'
	'^make bench-analysis$|slow|release'
	'^make nightly$|slow|release'
	'^make nightly KSRC=.* BRANCH=|slow|tests/85-nightly-real.t|runners/nightly'
	'^analysis/rlstat history show --metric |test|tests/80-nightly-history.t|history show'
	'^analysis/rlstat history rebuild$|test|tests/82-nightly-bad-input.t|history rebuild'
	'sendmail -t$|lab'
	'^make bisect KSRC=|slow|tests/85-nightly-real.t|runners/bisect'
	'^make lava-jobs KERNEL=|test|tests/71-lava-jobs.t|runners/lava jobs'
	'^lavacli identities add |lab'
	'^make lava-submit JOBS=|test|tests/75-lava-submit.t|runners/lava submit'
	'^make lava-collect JOBS="[0-9 ]+" LAVA=|test|tests/75-lava-submit.t|make --no-print-directory lava-collect JOBS="101 102" LAVA=lab'
	'^runners/lava run-local |slow|tests/73-lava-run.t|runners/lava run-local'
	'^make lava-collect JOBS=/tmp/lava/|slow|tests/73-lava-run.t|runners/lava collect'
	'^make test-lava-server$|slow|tests/76-lava-server.t|make --no-print-directory lava-submit JOBS='
)

# check_readme README: prints one line per problem of README and the docs;
# nothing when every command has exactly one row that holds.
check_readme() {
	local cmd com re kind file text n i used=()
	while IFS=$'\t' read -r cmd com; do
		n=0
		for i in "${!rows[@]}"; do
			re=${rows[$i]%%|*}
			[[ $cmd =~ $re ]] || continue
			n=$((n + 1)) used[i]=1
			IFS='|' read -r _ kind file text <<<"${rows[$i]}"
			case $kind in
			test|slow)
				if [ "$file" != release ] && ! grep -qF -- "$text" "$file" 2>/dev/null; then
					echo "'$cmd': $file does not contain '$text'"
				fi ;;&
			slow) [[ $com == slow* ]] || echo "'$cmd': run outside make test, but its README comment does not start with 'slow'" ;;
			lab) [[ $com == lab* ]] || echo "'$cmd': needs a lab, but its README comment does not start with 'lab'" ;;
			esac
		done
		[ $n = 1 ] || echo "'$cmd': $n rows of tests/97-readme.t match it (one must: a test, or a slow/lab mark)"
	done < <(readme_commands "$1" "${DOCS[@]}")
	for i in "${!rows[@]}"; do
		[ -n "${used[i]:-}" ] || echo "row '${rows[$i]%%|*}' matches no README command (stale)"
	done
}

ncmd=$(readme_commands README.md "${DOCS[@]}" | wc -l)
ok "$([ "$ncmd" -ge 25 ]; echo $?)" "the README's command blocks are read ($ncmd commands)"
problems=$(check_readme README.md)
is "$problems" "" "every README command has a test or a slow/lab mark"

# The check catches a new command without a row, a lost mark and a test
# that no longer runs what its row says.
cp README.md "$tmp/r1.md"
printf '\n    make bench KERNEL=rangelock MATRIX=brand-new\n\n' >>"$tmp/r1.md"
like "$(check_readme "$tmp/r1.md")" "MATRIX=brand-new': 0 rows" "a README command without a row is caught"
sed 's/# slow: every variant/# every variant/' README.md >"$tmp/r2.md"
like "$(check_readme "$tmp/r2.md")" "KERNEL=all MATRIX=quick': run outside make test" "a slow command that lost its mark is caught"
rows[0]='^make bench KERNEL=rangelock$|test|tests/90-e2e-qemu.t|make bench KERNEL=nosuch'
like "$(check_readme README.md)" "does not contain 'make bench KERNEL=nosuch'" "a row whose test does not run the command is caught"
sed '/make bench-locks /d' README.md >"$tmp/r3.md"
like "$(check_readme "$tmp/r3.md")" "row '\\^make bench-locks\\$' matches no README command" "a stale row is caught"

# The slow targets the marks point to exist.
for t in test-kernels test-nightly test-lava test-lava-server; do
	ok "$(grep -q "^$t:" Makefile; echo $?)" "make $t exists"
done

# The cheap commands, as typed (results/<run> is a synthetic run here).
analysis/rlsynth "$tmp/a" --seed 1 --variants stock,rangelock --threads 1 --iterations 3 >/dev/null 2>&1
analysis/rlsynth "$tmp/b" --seed 2 --variants stock,rangelock --threads 1 --iterations 3 >/dev/null 2>&1
run make --no-print-directory report RUN="$tmp/a" BASELINE=rangelock
is "$RC" 0 "make report RUN=<run> BASELINE=rangelock"
ok "$([ -s "$tmp/a/report.txt" ] && grep -q rangelock "$tmp/a/report.txt"; echo $?)" "writes report.txt against rangelock"
run make --no-print-directory mail RUN="$tmp/a"
like "$RC:$OUT" "^0:.*"$'\n'"rlbench: .*"$'\n'"verdict: " "make mail RUN=<run> prints the thread's text"
run make --no-print-directory regress BASELINE="$tmp/a" CANDIDATE="$tmp/a" THRESHOLD=2%
ok "$([[ $OUT =~ rlstat\ regress:\ (PASS|INCONCLUSIVE) ]] && [[ $OUT != *"FAIL "* ]]; echo $?)" "make regress of a run against itself: PASS or INCONCLUSIVE, never FAIL"
analysis/rlsynth "$tmp/c" --seed 2 --variants stock,rangelock --threads 1 --iterations 3 \
	--effect stock=-30 --effect rangelock=-30 >/dev/null 2>&1
run make --no-print-directory regress BASELINE="$tmp/a" CANDIDATE="$tmp/c" THRESHOLD=2%
like "$RC:$OUT" "FAIL" "make regress names a 30% slowdown FAIL (make turns exit 1 into 2)"
run make --no-print-directory regress BASELINE="$tmp/a"
like "$RC:$OUT" "^2:.*set BASELINE=results/<a> CANDIDATE=results/<b>" "make regress without CANDIDATE says what it needs"
run make --no-print-directory bench-locks
is "$RC" 0 "make bench-locks"
like "$OUT" "range lock / rwlock write = [0-9.]+x" "prints its ratios"
rm -f bench-locks.json

# bench-generator as the README writes it takes minutes; its shortest run.
run workloads/bench-generator --runtime 1 --reps 1 --threads 1 --size 16m
like "$RC:$OUT" "^0:.*dio 4k randread .* [0-9.]+$" "bench-generator's shortest run prints rlwork/fio ratios"

done_testing
