#!/bin/bash
# runners/matrix: every refusal is exit 2 with one line "FILE:LINE: reason
# (what is accepted)", prints no plan and changes nothing; include, mode and
# iterations settings; points are never glob-expanded; the matrix list of
# `make help` and README comes from the files.
. "$(dirname "$0")/lib/tap.sh"
M=$TOP/runners/matrix

# Each case: name, where the message must point, a regex for the reason and
# what is accepted, the matrix (printf %b), and extra files NAME=CONTENT.
cases=(
	# duplicate points, compared after the thread sweep and as rlwork resolves them
	"dup-line|m.matrix:2|point 'dio --rw read --threads 1' runs the same parameters as m\.matrix:1 .*accepted: each point once|point dio --rw read\npoint dio --rw read\n"
	"dup-spelling|m.matrix:3|point .* runs the same parameters as m\.matrix:1 \('dio --rw=read --threads 1'\).*accepted: each point once|point dio --rw=read\n\npoint dio --bs 4k --rw read\n"
	"dup-sweep-then-explicit|m.matrix:3|point 'dio --rw read --threads 2' runs the same parameters as m\.matrix:2 .*\(the 'threads 1 2' sweep of m\.matrix:1\).*accepted: each point once|threads 1 2\npoint dio --rw read\npoint dio --rw read --threads 2\n"
	"dup-explicit-then-sweep|m.matrix:3|point 'dio --rw read --threads 2' \(the 'threads 1 2' sweep of m\.matrix:1\) runs the same parameters as m\.matrix:2 .*accepted: each point once|threads 1 2\npoint dio --rw read --threads=2\npoint dio --rw read\n"
	"dup-sweep-cpus|m.matrix:4|point 'dio --threads 2' runs the same parameters as m\.matrix:3 .*accepted: each point once|threads 1 cpus\ncpus 2\npoint dio\npoint dio --threads 2\n"
	"dup-through-include|m.matrix:2|point 'dio --rw write --threads 1' runs the same parameters as inc\.matrix:1 .*accepted: each point once|include inc.matrix\npoint dio --rw write\n|inc.matrix=point dio --rw write\n"
	# options that make rlwork do something else than run the point
	"help|m.matrix:2|'--help' would make rlwork print its help or only check, not run \(accepted: the workload options|runtime 1\npoint dio --help\n"
	"help-as-workload|m.matrix:1|'--help' would make rlwork print its help.*accepted: the workload options|point --help\n"
	"help-value|m.matrix:1|'--help=yes' would make rlwork.*accepted:|point dio --help=yes\n"
	"h-as-value|m.matrix:1|'-h' would make rlwork print its help.*accepted:|point dio --rw -h\n"
	"dry-run|m.matrix:1|'--dry-run' would make rlwork.*only check, not run.*accepted:|point dio --dry-run\n"
	"dry-run-no|m.matrix:1|'--dry-run=no' would make rlwork.*accepted:|point dio --dry-run=no\n"
	"test-only|m.matrix:1|'--inject-corruption' is a test-only option of rlwork \(accepted: the options 'rlwork dio --help' lists\)|point dio --verify --inject-corruption stale\n"
	"test-only-eq|m.matrix:1|'--inject-corruption=tag' is a test-only option of rlwork \(accepted: the options 'rlwork mmap-punch --help' lists\)|point mmap-punch --verify --inject-corruption=tag\n"
	"runner-force|m.matrix:1|'--force' is set by the runner, not by a point \(accepted:|point dio --force\n"
	"runner-keep|m.matrix:1|'--keep=yes' is set by the runner.*accepted:|point dio --keep=yes\n"
	# variants
	"variants-empty|m.matrix:1|variants needs at least one variant \(accepted: .*stock|variants\npoint dio\n"
	"variants-comment|m.matrix:1|variants needs at least one variant \(accepted: .*stock|variants   # later\npoint dio\n"
	"variants-twice|m.matrix:1|variant 'stock' is listed twice \(accepted: each of .* at most once\)|variants stock rangelock stock\npoint dio\n"
	"variants-unknown|m.matrix:1|unknown variant 'nosuch' \(accepted: .*stock|variants nosuch\npoint dio\n"
	"variants-feature-unknown|m.matrix:1|variant 'stock\+bogus' refused: .*unknown feature 'bogus'; accepted: shared-alloc-dio|variants stock+bogus\npoint dio\n"
	"variants-feature-strategy|m.matrix:1|variant 'imutex\+fault-retry' refused: .*does not apply to imutex|variants imutex+fault-retry\npoint dio\n"
	"variants-feature-twice|m.matrix:1|variant 'stock\+shared-alloc-dio\+fault-retry' is listed twice|variants stock+fault-retry+shared-alloc-dio stock+shared-alloc-dio+fault-retry\npoint dio\n"
	# numbers with a leading zero
	"zero-runtime|m.matrix:1|runtime '010' has a leading zero.*accepted: 1\.\.3600, written without leading zeros|runtime 010\npoint dio\n"
	"cost-runtime-zero|m.matrix:1|cost_runtime 0 is outside 1\.\.3600 \(accepted: 1\.\.3600\)|cost_runtime 0\npoint dio\n"
	"cost-cpus-zero|m.matrix:1|cost_cpus 0 is outside 1\.\.256 \(accepted: 1\.\.256\)|cost_cpus 0\npoint dio\n"
	"cost-ramp-word|m.matrix:1|cost_ramp needs a whole number, got 'x' \(accepted: 0\.\.600\)|cost_ramp x\npoint dio\n"
	"zero-iterations|m.matrix:1|iterations '08' has a leading zero.*accepted: 1\.\.100 or auto|iterations 08\npoint dio\n"
	"zero-max-iterations|m.matrix:1|max_iterations '03' has a leading zero.*accepted: 3\.\.100|max_iterations 03\npoint dio\n"
	"budget-word|m.matrix:1|budget 'soon' is not a time \(accepted: none, or minutes: 8, 8m, or seconds: 90s; from 1 s to 7 days\)|budget soon\npoint dio\n"
	"budget-zero|m.matrix:1|budget '0m' is not a time \(accepted: none|budget 0m\npoint dio\n"
	"budget-long|m.matrix:1|budget '10081' is not a time \(accepted:.*to 7 days|budget 10081\npoint dio\n"
	"budget-hours|m.matrix:1|budget '2h' is not a time|budget 2h\npoint dio\n"
	"zero-threads|m.matrix:1|threads value '08' has a leading zero.*accepted: whole numbers from 1 without leading zeros|threads 1 08\npoint dio\n"
	"zero-point-threads|m.matrix:1|'02' has a leading zero \(accepted: numbers written without leading zeros\)|point dio --threads 02\n"
	"zero-point-size|m.matrix:1|'--size=064m' has a leading zero \(accepted:|point dio --size=064m\n"
	"zero-debugfs|m.matrix:1|debugfs value '02000' has a leading zero, which the kernel reads as octal \(accepted:|debugfs mapping_lock/punch_delay_us 02000\npoint dio\n"
	"zero-sysfs|m.matrix:1|sysfs value '010' has a leading zero.*accepted:|sysfs /sys/module/ext4/parameters/x 010\npoint dio\n"
	# knob paths that leave /sys or debugfs
	"sysfs-dotdot-end|m.matrix:1|sysfs takes a path under /sys .*no '\.\.'.*got '/sys/\.\. 1'|sysfs /sys/.. 1\npoint dio\n"
	"sysfs-dotdot|m.matrix:1|sysfs takes a path under /sys|sysfs /sys/../proc/sys/vm/drop_caches 3\npoint dio\n"
	"sysfs-deep-dotdot|m.matrix:1|sysfs takes a path under /sys|sysfs /sys/module/../../etc/x 1\npoint dio\n"
	"sysfs-outside|m.matrix:1|sysfs takes a path under /sys|sysfs /proc/sys/vm/drop_caches 3\npoint dio\n"
	"sysfs-prefix|m.matrix:1|sysfs takes a path under /sys|sysfs /sysroot/etc/x 1\npoint dio\n"
	"sysfs-dot|m.matrix:1|sysfs takes a path under /sys|sysfs /sys/./kernel/x 1\npoint dio\n"
	"sysfs-hidden|m.matrix:1|sysfs takes a path under /sys|sysfs /sys/kernel/.x 1\npoint dio\n"
	"sysfs-double-slash|m.matrix:1|sysfs takes a path under /sys|sysfs /sys//kernel/x 1\npoint dio\n"
	"sysfs-trailing-slash|m.matrix:1|sysfs takes a path under /sys|sysfs /sys/kernel/x/ 1\npoint dio\n"
	"sysfs-relative|m.matrix:1|sysfs takes a path under /sys|sysfs sys/kernel/x 1\npoint dio\n"
	"debugfs-dotdot|m.matrix:1|debugfs takes a path under /sys/kernel/debug, relative to it and without '\.\.'|debugfs ../../../etc/passwd 1\npoint dio\n"
	"debugfs-absolute|m.matrix:1|debugfs takes a path under /sys/kernel/debug, relative to it|debugfs /etc/passwd 1\npoint dio\n"
	"debugfs-dotdot-inner|m.matrix:1|debugfs takes a path under /sys/kernel/debug|debugfs mapping_lock/../../x 1\npoint dio\n"
	# bytes that are not lines of text
	"nul|m.matrix:2|holds a NUL byte \(accepted: a text file|runtime 1\npoint dio\0 --rw read\n"
	"nul-first|m.matrix:1|holds a NUL byte \(accepted:|\0point dio\n"
	"crlf|m.matrix:1|ends in a carriage return: CRLF \(DOS\) line endings \(accepted: LF line endings|runtime 1\r\npoint dio\r\n"
	"crlf-one-line|m.matrix:3|ends in a carriage return: CRLF \(DOS\) line endings \(accepted: LF|runtime 1\nramp 0\npoint dio\r\n"
	"crlf-last-no-newline|m.matrix:2|ends in a carriage return: CRLF \(DOS\) line endings \(accepted: LF|runtime 1\npoint dio\r"
	"control-char|m.matrix:2|holds the control character 0x1b \(accepted: printable text, spaces and tabs\)|runtime 1\npoint dio \033[1m\n"
	# threads values, blamed on the threads line
	"threads-zero|m.matrix:1|threads value '0' is not a thread count \(accepted: whole numbers from 1 and 'cpus'|threads 0\npoint dio\n"
	"threads-too-many|m.matrix:2|threads value '5000' is refused by rlwork.*out of range \(1\.\.[0-9]+\)|runtime 1\nthreads 1 5000\npoint dio --rw read\n"
	"threads-word|m.matrix:1|threads value 'two' is not a thread count \(accepted:|threads two\npoint dio\n"
	"threads-negative|m.matrix:1|threads value '-1' is not a thread count \(accepted:|threads -1\npoint dio\n"
	"threads-none|m.matrix:1|threads needs at least one value \(accepted:|threads\npoint dio\n"
	"threads-glob|m.matrix:1|threads value '\*' is not a thread count \(accepted:|threads *\npoint dio\n"
	# the guest runs points through a shell: no quoting or expansion
	"point-semicolon|m.matrix:1|point holds ';' \(accepted: words of letters, digits and|point dio --rw read;reboot\n"
	"point-dollar|m.matrix:1|point holds '\\$' \(accepted: words of|point dio --size \$(reboot)\n"
	"point-quote|m.matrix:1|point holds '\"' \(accepted: words of|point dio --rw \"read\"\n"
	"point-backtick|m.matrix:1|point holds '\`' \(accepted: words of|point dio --size \`x\`\n"
	# the new settings
	"mode|m.matrix:1|mode 'fast' is not supported \(accepted: auto, cost, time, both\)|mode fast\npoint dio\n"
	"iterations-word|m.matrix:1|iterations needs a whole number, got 'sometimes' \(accepted: 1\.\.100 or auto\)|iterations sometimes\npoint dio\n"
	"max-iterations-low|m.matrix:1|max_iterations 2 is outside 3\.\.100 \(accepted: 3\.\.100\)|max_iterations 2\npoint dio\n"
	"huge-number|m.matrix:1|runtime 99999999999999999999 is outside 1\.\.3600 \(accepted: 1\.\.3600\)|runtime 99999999999999999999\npoint dio\n"
	# include
	"include-missing|m.matrix:1|include 'nope\.matrix': nope\.matrix is not a file \(accepted: a matrix file, relative to this file's directory\)|include nope.matrix\npoint dio\n"
	"include-dir|m.matrix:1|include 'sub': sub is not a file \(accepted:|include sub\npoint dio\n|sub/x.matrix=point dio\n"
	"include-self|m.matrix:2|include 'm\.matrix' loops: m\.matrix is already being read \(accepted: a file that does not include itself|point dio\ninclude m.matrix\n"
	"include-loop|sub/b.matrix:2|include '\.\./m\.matrix' loops: m\.matrix is already being read \(accepted: .*\) \(included from m\.matrix:1\)$|include sub/b.matrix\npoint dio\n|sub/b.matrix=point dio --rw write\ninclude ../m.matrix\n"
	"include-two-names|m.matrix:1|include takes one matrix file, relative to this file's directory|include a.matrix b.matrix\npoint dio\n"
	"include-empty|m.matrix:1|include takes one matrix file|include\npoint dio\n"
	"include-bad-line|sub/inc.matrix:2|runtime needs a whole number, got 'x' \(accepted: 1\.\.3600\) \(included from m\.matrix:2\)$|point dio\ninclude sub/inc.matrix\n|sub/inc.matrix=ramp 0\nruntime x\n"
	# and the old classes, still refused with their line
	"no-points|m.matrix:2|no 'point' lines \(accepted: at least one|runtime 1\nramp 0\n"
	"unknown-setting|m.matrix:2|unknown setting 'bogus' \(accepted: .*include point\)|point dio\nbogus 1\n"
	"xfs-small|m.matrix:2|fs xfs needs disk_mb 300 or more.*accepted: disk_mb 300|fs xfs\ndisk_mb 200\npoint dio\n"
)
plan $(( ${#cases[@]} * 3 + 55 ))

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s -C workloads >/dev/null 2>&1

# snapshot DIR: every path and every file's hash under DIR.
snapshot() { (cd "$1" && find . | sort && find . -type f -exec sha256sum {} + | sort); }

# refuse CASE: run runners/matrix on the case's m.matrix in its own
# directory, with TMPDIR pointing at an empty directory of its own.
refuse() {
	local -a c
	local d f before after
	IFS='|' read -r -a c <<<"$1"
	d=$tmp/${c[0]}
	mkdir -p "$d/tmp"
	printf '%b' "${c[3]}" >"$d/m.matrix"
	for f in "${c[@]:4}"; do
		mkdir -p "$d/$(dirname "${f%%=*}")"
		printf '%b' "${f#*=}" >"$d/${f%%=*}"
	done
	before=$(snapshot "$d")
	(cd "$d" && TMPDIR=$d/tmp "$M" m.matrix >"$tmp/out" 2>"$tmp/err")
	is "$?" 2 "${c[0]}: exit 2"
	like "$(cat "$tmp/err")" "^${c[1]}: ${c[2]}" "${c[0]}: one line names ${c[1]}, the reason and what is accepted"
	after=$(snapshot "$d")
	[ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] && [ "$before" = "$after" ] &&
		[ -z "$(ls -A "$d/tmp")" ]
	ok $? "${c[0]}: one line on stderr, nothing on stdout, no file changed, no temp file"
}
for c in "${cases[@]}"; do
	refuse "$c"
done

# Usage errors: exit 2 with the usage line, never the shell's exit 1.
for args in "" "--cpus" "configs/smoke.matrix --cpus" "configs/smoke.matrix --cpus 04" \
	"configs/smoke.matrix extra" "--list a b" "--flatten" "--bogus"; do
	# shellcheck disable=SC2086  # the arguments are words on purpose
	run "$M" $args
	like "$RC:$OUT" "^2:matrix: .*usage: runners/matrix FILE \[--cpus N\]" "'runners/matrix $args' is exit 2 with usage"
done
run "$M" --help
like "$RC:$OUT" "^0:usage: runners/matrix FILE" "--help prints the usage and exits 0"
long=--$(printf 'x%.0s' {1..120000})  # exec takes one argument up to 128 KiB
run "$M" "$long"
like "$RC:$OUT" "^2:matrix: unknown option '--x{58}\.\.\. \(120002 bytes\)'; usage" "a 120 KB argument is shown as its first 60 bytes and its length"
printf 'point dio\n' >"$tmp/e"$'\e'"[2Jx.matrix"
printf 'include e\033[2Jx.matrix\nbogus\n' >"$tmp/esc.matrix"
run "$M" "$tmp/no"$'\e'"[2Jsuch.matrix"
like "$RC:$OUT" "^2:matrix: matrix '.*no\\\\x1b\[2Jsuch.matrix' not found" "a name's terminal escape is printed as \\x1b"
[[ $OUT != *$'\e'* ]]
ok $? "... and no escape character reaches the terminal"
# shellcheck disable=SC2016 # a literal hash, as in /etc/shadow
printf 'root:$y$j9T$secrethash:19000:0:99999:7:::\nbin:*:19000:0:99999:7:::\n' >"$tmp/shadow"
printf 'include shadow\n' >"$tmp/sh.matrix"
run "$M" "$tmp/sh.matrix"
like "$RC:$OUT" "^2:.*shadow:1: unknown setting '<not a setting name; the line is not shown>'" "include of a file that is no matrix (a shadow file): refused by name"
[[ $OUT != *secrethash* && $OUT != *root* ]]
ok $? "... and none of its content is echoed"
run "$M" "$tmp/no-such.matrix"
like "$RC:$OUT" "^2:matrix: matrix '.*no-such.matrix' not found or not a regular file \(available: .*smoke" "a missing matrix names the available ones"

# Settings: defaults, the new ones, and include semantics.
printf 'point dio\n' >"$tmp/d.matrix"
out=$("$M" "$tmp/d.matrix" --cpus 3)
like "$out" $'set mode auto\n' "mode defaults to auto"
like "$out" $'set max_iterations 10\n' "max_iterations defaults to 10"
like "$out" $'set budget none\n' "budget defaults to none"
like "$out" $'set iterations 3\n' "iterations defaults to 3"
like "$out" $'set cpus 3\n' "--cpus sets the default cpus"
like "$out" $'set cost_runtime 1\nset cost_ramp 1' "cost mode runs 1 s after 1 s of ramp by default"
like "$out" $'set cost_cpus 1\n' "a cost guest has 1 vCPU by default, whatever cpus says"
printf 'runtime 1\nramp 0\ncost_cpus 2\npoint dio\n' >"$tmp/short.matrix"
is "$("$M" "$tmp/short.matrix" | grep -E '^set cost_' | xargs)" \
	"set cost_runtime 1 set cost_ramp 1 set cost_cpus 2" "whatever the matrix's runtime and ramp; cost_cpus sets its vCPUs"
printf 'mode cost\niterations 5\nmax_iterations 4\npoint dio\n' >"$tmp/s.matrix"
is "$("$M" "$tmp/s.matrix" | grep -E '^set (mode|iterations|max_iterations) ' | sort | xargs)" \
	"set iterations 5 set max_iterations 4 set mode cost" "mode, iterations and max_iterations are passed on"
for b in 8 8m 90s 10080; do
	printf 'budget %s\npoint dio\n' "$b" >"$tmp/s.matrix"
	is "$("$M" "$tmp/s.matrix" | grep '^set budget')" "set budget $b" "budget $b is accepted and passed on"
done
printf 'mode both\niterations auto\npoint dio\n' >"$tmp/s.matrix"
is "$("$M" "$tmp/s.matrix" | grep -E '^set (mode|iterations) ' | sort | xargs)" \
	"set iterations auto set mode both" "iterations auto with mode both"
printf 'mode cost\niterations auto\npoint dio\n' >"$tmp/s.matrix"
is "$("$M" "$tmp/s.matrix" 2>&1 | grep -E '^set (mode|iterations) ' | sort | xargs)" \
	"set iterations auto set mode cost" "iterations auto with mode cost (two boots, a third where they differ)"
mkdir -p "$tmp/inc/sub"
printf '# base: b\nruntime 3\nthreads 1 2\nsysfs /sys/module/ext4/parameters/x 1\npoint dio --rw read\n' >"$tmp/inc/sub/base.matrix"
printf '# top: t\nruntime 7\nramp 0\ninclude sub/base.matrix\nramp 1\nsysfs /sys/module/ext4/parameters/x 0\npoint dio --rw write\n' >"$tmp/inc/top.matrix"
out=$(cd / && "$M" "$tmp/inc/top.matrix")
like "$out" $'set runtime 3\n' "an include's setting overrides the one before the include"
like "$out" $'set ramp 1\n' "a setting after the include overrides it"
like "$out" $'set knobs /sys/module/ext4/parameters/x:0\n' "a knob set again is set once, to the later value"
is "$(grep '^point' <<<"$out" | cut -d' ' -f3- | xargs -d '\n' -n1 printf '%s|')" \
	"dio --rw read --threads 1|dio --rw read --threads 2|dio --rw write --threads 1|dio --rw write --threads 2|" \
	"an include's points come where the include is, with the including file's sweep"
printf 'threads 1 2\npoint mmap-punch --fault-threads 0\n' >"$tmp/s.matrix"
is "$("$M" "$tmp/s.matrix" | grep -c '^point')" 1 \
	"a point with --fault-threads sets its own thread count and is not swept"
flat=$("$M" --flatten "$tmp/inc/top.matrix")
printf '%s\n' "$flat" >"$tmp/flat.matrix"
is "$(grep -c '^include' "$tmp/flat.matrix")" 0 "--flatten writes out every include"
is "$("$M" "$tmp/flat.matrix")" "$out" "--flatten gives the same settings and points"

# dio-serial takes dio's points and settings, on its variants and knob.
serial=$("$M" configs/dio-serial.matrix) dio=$("$M" configs/dio.matrix)
is "$(grep -v '^set \(variants\|knobs\) ' <<<"$serial")" "$(grep -v '^set \(variants\|knobs\) ' <<<"$dio")" \
	"dio-serial runs dio.matrix's points with its settings"
like "$serial" $'set variants stock\\+shared-alloc-dio rangelock\\+shared-alloc-dio rwsem-range\\+shared-alloc-dio\nset monitors mapping_lock\nset knobs /sys/module/ext4/parameters/dio_write_shared:0' \
	"dio-serial keeps its variants and dio_write_shared=0"
is "$(grep -c '^point ' <<<"$serial")" 8 "dio-serial has dio's 4 points at 1 and 2 threads"

# Points are never glob-expanded, in the check or in the output.  With a
# file named "read" in the working directory, an expanded '*' would pass.
mkdir -p "$tmp/glob"
touch "$tmp/glob/read" "$tmp/glob/2" "$tmp/glob/a1"
printf 'point dio --rw *\n' >"$tmp/g1.matrix"
run bash -c "cd '$tmp/glob' && '$M' '$tmp/g1.matrix'"
like "$RC:$OUT" "^2:.*g1.matrix:1: point 'dio --rw \* --threads 1': rlwork dio: --rw: '\*' is not one of" "a point's '*' reaches rlwork's check as '*'"
printf 'threads ?\npoint dio\n' >"$tmp/g2.matrix"
run bash -c "cd '$tmp/glob' && '$M' '$tmp/g2.matrix'"
like "$RC:$OUT" "^2:.*g2.matrix:1: threads value '\?' is not a thread count" "a threads '?' is not expanded to the file '2'"
printf 'point @hang a? *\n' >"$tmp/g3.matrix"
is "$(cd "$tmp/glob" && RLBENCH_TEST_HOOKS=1 "$M" "$tmp/g3.matrix" | grep '^point')" \
	"point p001-@hang @hang a? * --threads 1" "a point's '*' and '?' are printed verbatim"

# The list of matrices comes from their first lines.
list=$("$M" --list)
names=$(cd configs && for f in *.matrix; do echo "${f%.matrix}"; done | sort)
is "$(cut -d' ' -f1 <<<"$list")" "$names" "--list names every configs/*.matrix"
for n in $names; do
	want=$(head -1 "configs/$n.matrix")
	grep -qxF -- "$n — ${want#"# $n: "}" <<<"$list" || break
done
ok $? "--list shows each matrix's first line"
help=$(make -s help)
missing=$(while IFS= read -r l; do grep -qF -- "$l" <<<"$help" || echo "$l"; done <<<"$list")
is "$missing" "" "make help shows the --list lines"
mkdir -p "$tmp/list"
cp configs/dio.matrix "$tmp/list/copy.matrix"
run "$M" --list "$tmp/list"
like "$RC:$OUT" "^2:.*list/copy.matrix:1: the first line must be '# copy: <what it runs>'" "--list refuses a matrix whose first line names another"
printf 'runtime 1\npoint dio\n' >"$tmp/list/copy.matrix"
run "$M" --list "$tmp/list"
like "$RC:$OUT" "^2:.*copy.matrix:1: the first line must be" "--list refuses a matrix without the comment line"
printf '# copy: a copy\npoint dio\n' >"$tmp/list/copy.matrix"
run "$M" --list "$tmp/list"
is "$RC:$OUT" "0:copy — a copy" "--list prints 'name — description'"

# README keeps no list of its own: it points to the generated one, and
# every matrix it names in a command exists.
# shellcheck disable=SC2016  # the backquotes are README's markdown
bullet=$(sed -n '/^- `MATRIX=/,/^- `[A-Z]/p' docs/variables.md)
like "$bullet" "make help.*lists them" "docs/variables.md's MATRIX bullet points to make help"
like "$bullet" "runners/matrix --list" "... and to runners/matrix --list"
[[ ! $bullet =~ MATRIX=[a-z-]+\| ]]
ok $? "README's MATRIX bullet holds no hand-kept list of names"
bad=$(cat README.md docs/*.md | grep -o 'MATRIX=[a-z][a-z0-9-]*' | cut -d= -f2 | sort -u |
	while read -r n; do [ -f "configs/$n.matrix" ] || echo "$n"; done)
is "$bad" "" "every MATRIX=<name> in README.md and docs/ is a configs/*.matrix"

# Every committed matrix parses, and shellcheck is clean on the parser.
run bash -c 'for m in configs/*.matrix; do runners/matrix "$m" >/dev/null || exit 1; done'
is "$RC:$OUT" "0:" "every committed matrix parses"
if command -v shellcheck >/dev/null; then
	run shellcheck runners/matrix
	is "$RC:$OUT" "0:" "shellcheck is clean on runners/matrix"
else
	ok 1 "shellcheck is installed"
fi

done_testing
