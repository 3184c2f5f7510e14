#!/bin/bash
# Broken run directories: rlstat exits 2 with one line that names the input
# and what is accepted, changes no file of the run, and leaves no temporary
# file in the run directory or $TMPDIR. GSL errors end the same way instead
# of abort(). Valid runs whose variants fail everywhere are reported, with
# their charts.
. "$(dirname "$0")/lib/tap.sh"
[ -x analysis/rlstat ] && [ -x analysis/rlsynth ] || make -s -C analysis >/dev/null || exit 2

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
R=$TOP/analysis/rlstat
mkdir "$tmp/tmpdir"
analysis/rlsynth "$tmp/base" --variants stock,imutex --threads 1 --iterations 3 \
	--samples 300 >/dev/null || exit 2

mkrun() { rm -rf "$tmp/run"; cp -a "$tmp/base" "$tmp/run"; }
# edit FILE JQ: rewrite one document of the run (before the check)
edit() { jq -c "$2" "$1" >"$tmp/edit" && mv "$tmp/edit" "$1"; }
listing() { (cd "$1" && find . -printf '%y %m %s %p -> %l\n' | LC_ALL=C sort); }
sums() { (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum); }

# refused DESC INPUT REASON-REGEX [rlstat args, default: report run]
# Run from $tmp, so messages name run/...; INPUT is matched literally.
refused() {
	local desc=$1 input=$2 re=$3 l0 s0 t0
	shift 3
	[ $# -gt 0 ] || set -- report run
	l0=$(listing "$tmp/run") s0=$(sums "$tmp/run") t0=$(listing "$tmp/tmpdir")
	OUT=$(cd "$tmp" && TMPDIR=$tmp/tmpdir timeout 60 "$R" "$@" 2>&1 >/dev/null)
	RC=$?
	[ "$RC" = 2 ] && [ "$(wc -l <<<"$OUT")" = 1 ] &&
		[[ $OUT == "rlstat: $input"* ]] && [[ $OUT =~ $re ]]
	_tap $? "$desc: exit 2, one line naming $input" "rc=$RC out=$OUT"
	[ "$(sums "$tmp/run")" = "$s0" ]
	_tap $? "$desc: no file of the run changed"
	[ "$(listing "$tmp/run")" = "$l0" ] && [ "$(listing "$tmp/tmpdir")" = "$t0" ]
	_tap $? "$desc: no temporary left in the run or \$TMPDIR" \
		"$(diff <(echo "$l0") <(listing "$tmp/run"))"
}

f1=run/imutex/p000-dio-i1.result.json
f2=run/imutex/p000-dio-i2.result.json
accept_reg='accepted is a regular file'

# --- the entries of a variant directory ---
mkrun; mkdir "$tmp/run/imutex/p000-dio-i4.result.json"
refused "a result that is a directory" run/imutex/p000-dio-i4.result.json "a directory; $accept_reg"
mkrun; ln -s nowhere "$tmp/run/imutex/p000-dio-i4.result.json"
refused "a result that is a dangling symlink" run/imutex/p000-dio-i4.result.json "a symbolic link to nothing; $accept_reg"
mkrun; mkfifo "$tmp/run/imutex/p000-dio-i4.result.json"
refused "a result that is a FIFO (would block a read)" run/imutex/p000-dio-i4.result.json "a special file; $accept_reg"
mkrun; ln -s . "$tmp/run/imutex/p000-dio-i4.result.json"
refused "a result that is a link to a directory" run/imutex/p000-dio-i4.result.json "a directory; $accept_reg"
mkrun; cp "$tmp/$f1" "$tmp/run/imutex/p000 dio-i1.result.json"
refused "a result file name with a blank" "run/imutex/p000 dio-i1.result.json" 'file name is not <point>-i<N>.result.json with <point> of \[A-Za-z0-9_.-\]'
mkrun; mv "$tmp/$f1" "$tmp/run/imutex/.p000-dio-i1.result.json"
refused "a hidden result (skipped, n dropped without a word)" run/imutex/.p000-dio-i1.result.json 'starting with a letter or digit'
for e in '.env.cpus = -3|env.cpus is not an integer in 1' '.env.mem_mb = "lots"|env.mem_mb is not an integer in 1' \
	'del(.env.fs)|env.fs is not a filesystem type' '.env.fs = "a b"|env.fs is not a filesystem type'; do
	mkrun; edit "$tmp/$f1" "${e%%|*}"
	refused "a result with ${e%%|*}" $f1 "${e#*|}"
	mkrun; edit "$tmp/$f1" "${e%%|*}"
	refused "validate: a result with ${e%%|*}" $f1 "${e#*|}" validate $f1
done
mkrun; mv "$tmp/$f1" "$tmp/run/imutex/p000-dio.result.json"
refused "a result file name without -i<N>" run/imutex/p000-dio.result.json 'file name is not <point>-i<N>'
mkrun; mv "$tmp/$f1" "$tmp/run/imutex/p000-dio-i01.result.json"
refused "a result file name with i01" run/imutex/p000-dio-i01.result.json 'file name is not <point>-i<N>'

# --- variants: meta.json and the directories agree ---
mkrun; rm "$tmp"/run/imutex/*.result.json
refused "a listed variant's directory without results" run/imutex 'no \*\.result\.json of variant "imutex", which meta.json lists; accepted is a run with results of every variant it lists'
mkrun; rm -r "$tmp/run/imutex"
refused "a listed variant without a directory" run/imutex 'no \*\.result\.json of variant "imutex", which meta.json lists'
mkrun; edit "$tmp/run/meta.json" '.variants |= map(select(.name != "imutex"))'
refused "results of a variant meta.json does not list" run/imutex 'results of variant "imutex", which run/meta.json does not list in variants'
mkrun; mkdir "$tmp/run/x'y"; sed "s/\"variant\":\"imutex\"/\"variant\":\"x'y\"/" "$tmp/$f1" >"$tmp/run/x'y/p000-dio-i1.result.json"
refused "a variant directory name with a quote (gnuplot, HTML)" "run/x'y" 'a variant directory name is 1-64 of \[A-Za-z0-9_.\+-\]'

# --- meta.json ---
mkrun; rm "$tmp/run/meta.json"
refused "meta.json missing" run/meta.json 'missing; accepted is meta.json \(rlbench-meta/1\) as runners/run and runners/bare write it'
mkrun; rm "$tmp/run/meta.json"; mkdir "$tmp/run/meta.json"
refused "meta.json a directory" run/meta.json 'not a regular file; accepted is meta.json'
for m in 'del(.host)|host is not' 'del(.host.cpus)|host is not' '.host.mem_mb = "24G"|host is not' \
	 'del(.suite.commit)|suite is not' 'del(.suite)|suite is not' 'del(.matrix)|name, matrix or started' \
	 'del(.started)|name, matrix or started' 'del(.name)|name, matrix or started' 'del(.ended)|ended is not' \
	 '.schema = "rlbench-meta/2"|schema is not' '.variants = []|variants is not a non-empty array' \
	 '.variants[1].name = "stock"|listed twice' 'del(.variants[0].release)|no release string' \
	 '.skipped = {}|skipped is not an array' '[.]|not a JSON object'; do
	mkrun; edit "$tmp/run/meta.json" "${m%%|*}"
	refused "meta.json: ${m%%|*}" run/meta.json "${m#*|}.*accepted is meta.json"
done
mkrun; printf '{"schema": "rlbench-meta/1", "schema": "x"}' >"$tmp/run/meta.json"
refused "meta.json with a duplicate key" run/meta.json 'invalid JSON.*duplicate object key'

# --- verify ---
for v in '"2"' -1 1.5 null '"many"'; do
	mkrun; edit "$tmp/$f2" ".verify.errors = $v"
	refused "verify.errors = $v" $f2 'verify\.errors is not an integer >= 0'
done
mkrun; edit "$tmp/$f2" 'del(.verify.errors)'
refused "verify.errors missing" $f2 'verify\.errors is not an integer >= 0'
mkrun; edit "$tmp/$f2" '.verify.checked = -5'
refused "verify.checked negative" $f2 'verify\.checked is not an integer >= 0'
mkrun; edit "$tmp/$f2" '.verify.racy = 5000'
refused "verify.racy above checked" $f2 'verify\.racy is more than verify\.checked'

# --- latencies and percentiles ---
# JQ-ASSIGNMENT|REASON-REGEX
for l in 'min = -1|lat_ns\.min is not an integer number of ns >= 0' \
	 'max = -1|lat_ns\.max is not an integer' \
	 'mean = -3.5|lat_ns\.mean is not a number of ns >= 0' \
	 'stddev = -1|lat_ns\.stddev is not a number' \
	 'percentiles."99" = -3|lat_ns\.percentiles\."99" is not an integer number of ns >= 0' \
	 'percentiles."50" = 1.5|lat_ns\.percentiles\."50" is not an integer' \
	 'percentiles."95" = 100|lat_ns\.percentiles has "95"; accepted are "50", "90", "99", "99\.9", "99\.99"' \
	 'percentiles."p99" = 100|lat_ns\.percentiles has "p99"' \
	 'percentiles."99.99" = 1|lat_ns\.percentiles\."99\.99" is below a lower percentile' \
	 'min = 999999999999|lat_ns\.min is above lat_ns\.max'; do
	mkrun; edit "$tmp/$f2" ".ops[0].lat_ns.${l%%|*}"
	refused "lat_ns.${l%%|*}" $f2 "op \"read\": ${l#*|}"
done

# --- metric names outside the schema ---
for n in read.lat_ns.p42 read.lat_ns.p99x read.ops_per_sec read.lat_ns read.count 'read.lat_ns.p99.9.x'; do
	mkrun; edit "$tmp/$f2" "(.metrics[] | select(.name == \"read.lat_ns.p99\") | .name) = \"$n\""
	refused "metric $n" $f2 "metric \"$n\": accepted are <op>.ops_per_s, <op>.bytes_per_s, <op>.lat_ns.p50\|p90\|p99\|p99.9\|p99.99, counters.<name>"
done
mkrun; edit "$tmp/$f2" '(.metrics[] | select(.name == "read.lat_ns.p99") | .higher_is_better) = true'
refused "a latency metric with higher_is_better" $f2 'metric "read.lat_ns.p99": higher_is_better is not false'
mkrun; edit "$tmp/$f2" '.metrics += [.metrics[0]]'
refused "a metric listed twice" $f2 'metric "read.ops_per_s" appears twice in metrics'
mkrun; edit "$tmp/$f2" '.ops += [.ops[0]]'
refused "an op listed twice" $f2 'op "read" appears twice in ops'

# --- histograms ---
mkrun; edit "$tmp/$f2" '.ops[0].lat_ns.hist.counts = {"70": 4611686018427387904, "71": 4611686018427387904}'
refused "histogram counts that overflow in one document" $f2 'hist\.counts add up to more than 2\^63 - 1'
mkrun
for i in 1 2 3; do edit "$tmp/run/imutex/p000-dio-i$i.result.json" '.ops[0].lat_ns.hist.counts = {"70": 4611686018427387904}'; done
refused "histogram counts that overflow merged over iterations" $f2 'histogram counts over the iterations add up to more than 2\^63 - 1'
for k in 07 +7 ' 7' 7.0 '' 0x7 -0 '7 ' 00; do
	mkrun; edit "$tmp/$f2" ".ops[0].lat_ns.hist.counts = {\"$k\": 1}"
	refused "bucket key \"$k\"" $f2 'hist\.counts key is not a bucket index 0\.\.3775 written as a plain decimal'
done

# --- the same metrics in every iteration of a point ---
mkrun; edit "$tmp/$f2" 'del(.metrics[] | select(.name == "read.lat_ns.p99"))'
refused "a metric missing from one iteration" $f2 'metric "read\.lat_ns\.p99" missing; run/imutex/p000-dio-i1\.result\.json, another passing iteration of this point, has it \(accepted: every iteration has the same metrics\)'
mkrun; edit "$tmp/$f1" 'del(.metrics[] | select(.name == "write.ops_per_s"))'
refused "a metric missing from the first iteration" $f2 'metric "write\.ops_per_s" extra; run/imutex/p000-dio-i1\.result\.json, another passing iteration of this point, lacks it'
mkrun; edit "$tmp/run/stock/p000-dio-i3.result.json" 'del(.metrics[] | select(.name == "counters.short_reads"))'
refused "a metric missing in another variant" run/stock/p000-dio-i3.result.json 'metric "counters\.short_reads" missing; run/imutex/p000-dio-i1\.result\.json'
mkrun; edit "$tmp/$f2" 'del(.ops[] | select(.name == "write")) | del(.metrics[] | select(.name | startswith("write.")))'
refused "an op missing from one iteration" $f2 'op "write" missing; run/imutex/p000-dio-i1\.result\.json, another passing iteration of this point, has it'

mkrun; edit "$tmp/$f2" '.params.bs = 8192'
refused "params that differ within a point (would split it in two)" $f2 'workload or params differ from run/imutex/p000-dio-i1\.result\.json, another result of point p000-dio \(accepted: every result of a point has the same workload and params\)'

# --- numbers rlwork cannot write ---
mkrun; edit "$tmp/$f2" '.ops[0].ops_per_s = 1e80'
refused "a huge rate (1e80)" $f2 'op "read": ops_per_s 1e\+80 is not count / runtime_s'
mkrun; edit "$tmp/$f2" '.runtime_s = 1e-9'
refused "runtime_s of a nanosecond" $f2 'runtime_s is not a number of seconds in \[0\.001, 1e6\]'
mkrun; edit "$tmp/$f2" '.ops[0].bytes_per_s = 1e30'
refused "bytes_per_s beyond 2^64 bytes" $f2 'bytes_per_s 1e\+30 over runtime_s 10 s is more than 2\^64 bytes'
mkrun; edit "$tmp/$f2" '.counters.short_reads = -1'
refused "a negative counter" $f2 'counters\.short_reads is not an integer >= 0'
mkrun; edit "$tmp/$f2" '.iteration = 4294967298'
refused "iteration beyond int" $f2 'iteration is not an integer in 1\.\.2147483647'
mkrun; edit "$tmp/$f2" '.params.threads = -1'
refused "threads -1" $f2 'params\.threads is not an integer in 0\.\.2147483647'
mkrun; edit "$tmp/$f2" '.env.mode = "fast"'
refused "env.mode fast" $f2 'env\.mode is not "cost" or "time"'

# --- names that end up in chart file names, gnuplot and HTML ---
mkrun; edit "$tmp/$f2" '.ops[0].name = "../../x" | .metrics |= map(.name |= sub("^read[.]"; "../../x."))'
refused "an op named ../../x" $f2 'op name "\.\./\.\./x" is not 1-64 of \[A-Za-z0-9_\]'
mkrun; edit "$tmp/$f2" ".ops[0].name = \"r'd\" | .metrics |= map(.name |= sub(\"^read[.]\"; \"r'd.\"))"
refused "an op name with a quote" $f2 'is not 1-64 of \[A-Za-z0-9_\]'
mkrun; edit "$tmp/$f2" '.params.layout = "a\nb"'
refused "a param value with a newline" $f2 'params\.layout is not a one-line string'
mkrun; edit "$tmp/$f2" '.workload = "dio;rm"'
refused "a workload name with ;" $f2 'workload is not 1-64 of \[A-Za-z0-9_-\]'

# --- JSON that is not JSON, or not one document ---
j() { mkrun; printf '%b' "$1" >"$tmp/$f2"; refused "$2" $f2 "$3"; }
j '' "an empty file" 'invalid JSON at line'
j '{"schema": NaN}' "NaN spelled in JSON" 'invalid JSON at line 1'
j '{"x": Infinity}' "Infinity spelled in JSON" 'invalid JSON at line 1'
j '{"x": -Infinity}' "-Infinity spelled in JSON" 'invalid JSON at line 1'
j '{"x": 1e400}' "a real beyond double" 'invalid JSON.*real number overflow'
j '{"x": 99999999999999999999}' "an integer beyond 64 bits" 'invalid JSON.*too big integer'
j '{"x": "\xff\xfe"}' "non-UTF-8 bytes" 'invalid JSON.*(UTF-8|decode)'
j '\xef\xbb\xbf{}' "a UTF-8 byte order mark" 'invalid JSON at line 1'
j '{"x": "a\\u0000b"}' "a NUL escaped in a string" 'invalid JSON.*u0000'
j '{} {}' "two documents in one file" 'invalid JSON.*end of file expected'
j '{"schema": "rlbench-result/1", "schema": "rlbench-result/1"}' "a duplicate key" 'invalid JSON.*duplicate object key'
mkrun; head -c 100000 /dev/zero | tr '\0' '[' >"$tmp/$f2"
refused "nesting 100000 deep" $f2 'invalid JSON.*maximum parsing depth'
mkrun; printf '[]' >"$tmp/$f2"
refused "an array, not an object" $f2 'top level is not a JSON object'

# --- the run directory itself ---
mkrun; printf x >"$tmp/runfile"
refused "a run directory that is a file" runfile 'cannot open directory: Not a directory \(expected a run directory results/<run>\)' report runfile
refused "a run directory that does not exist" nothere 'cannot open directory: No such file or directory' report nothere
mkrun; edit "$tmp/$f2" '.ops[0].ops_per_s = 1e80'
refused "summary refuses the same" $f2 'is not count / runtime_s' summary run
cp -a "$tmp/base" "$tmp/good"
refused "regress names the bad run" $f2 'is not count / runtime_s' regress good run

# --- GSL errors: exit 2 naming the input, temporaries removed ---
# No value the loader accepts makes GSL fail, so the handler is exercised
# directly: GSL's own overflow error with a tracked temporary file.
cat >"$tmp/gslerr.c" <<'EOF'
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <gsl/gsl_sf_gamma.h>
#include "base/base.h"

int main(int argc, char **argv)
{
	FILE *f = fopen(argv[2], "w");

	(void)argc;
	fclose(f);
	tmp_track(argv[2], false);
	rl_gsl_handler_install();
	rl_input = "some/run/stock/p000-dio-i1.result.json";
	if (!strcmp(argv[1], "gsl"))
		printf("%g\n", gsl_sf_gamma(1000));
	else
		raise(SIGTERM);
	return 0;
}
EOF
if cc -Wall -Werror -I analysis -I workloads -o "$tmp/gslerr" "$tmp/gslerr.c" analysis/base/util.o \
	-ljansson -lgsl -lgslcblas -lm 2>"$tmp/cc.log"; then
	run "$tmp/gslerr" gsl "$tmp/t1.tmp"
	[ "$RC" = 2 ] && [[ $OUT == "gslerr: some/run/stock/p000-dio-i1.result.json: the statistics cannot be computed"*"GSL"*overflow* ]] &&
		[ ! -e "$tmp/t1.tmp" ]
	ok $? "a GSL error exits 2 naming the input, its temporary removed"
	run "$tmp/gslerr" term "$tmp/t2.tmp"
	[ "$RC" = 143 ] && [ ! -e "$tmp/t2.tmp" ]
	ok $? "SIGTERM removes the temporaries and still ends by the signal (rc=$RC)"
else
	ok 1 "the GSL handler test helper builds: $(head -3 "$tmp/cc.log")"
fi

# SIGTERM while gnuplot writes the charts: a stand-in gnuplot that waits
# shows the chart directory goes, and its writer with it.
mkdir -p "$tmp/bin"
# shellcheck disable=SC2016  # the stand-in script expands them, not this shell
printf '#!/bin/sh\necho $$ >"$GP_PIDFILE"\nexec sleep 60\n' >"$tmp/bin/gnuplot"
chmod +x "$tmp/bin/gnuplot"
mkrun
l0=$(listing "$tmp/run")
(cd "$tmp" && GP_PIDFILE=$tmp/gp.pid PATH=$tmp/bin:$PATH exec "$R" report run >/dev/null 2>&1) &
rl=$!
for _ in $(seq 300); do [ -s "$tmp/gp.pid" ] && break; sleep 0.1; done
kill -TERM "$rl"
wait "$rl"
RC=$?
[ "$RC" = 143 ] && [ -s "$tmp/gp.pid" ] && ! kill -0 "$(cat "$tmp/gp.pid")" 2>/dev/null &&
	[ "$(listing "$tmp/run")" = "$l0" ]
_tap $? "SIGTERM during gnuplot: exit by the signal, gnuplot gone, no temporary left" \
	"rc=$RC $(diff <(echo "$l0") <(listing "$tmp/run"))"

# --- valid runs are reported, charts and all ---
# accepted DESC: rlstat report run exits 0, every chart it lists exists,
# and nothing but report outputs appears.
accepted() {
	local s0
	s0=$(sums "$tmp/run")
	OUT=$(cd "$tmp" && TMPDIR=$tmp/tmpdir "$R" report run 2>&1)
	RC=$?
	[ "$RC" = 0 ] && [ -s "$tmp/run/report.txt" ] && [ -s "$tmp/run/relative-throughput.png" ] &&
		[ -s "$tmp/run/relative-throughput.svg" ] && [ -z "$(ls -A "$tmp/tmpdir")" ] &&
		[ -z "$(find "$tmp/run" -maxdepth 1 -name '.*' ! -name .)" ] &&
		[ "$(sums "$tmp/run" | grep -Ev ' \./(report\.(txt|html)|[^/]*\.(png|svg))$')" = "$s0" ]
	_tap $? "$1: report with charts exits 0" "rc=$RC out=$OUT"
}
rm -rf "$tmp/run"
analysis/rlsynth "$tmp/run" --variants stock,imutex --threads 1 --iterations 3 --fail imutex:0:1 >/dev/null
accepted "a variant with a failed iteration at every point (make check-race)"
like "$(cat "$tmp/run/report.txt")" 'FAILED 1/3' "  its report shows the failure"
rm -rf "$tmp/run"
analysis/rlsynth "$tmp/run" --variants stock,imutex,rangelock --threads 1,2 --iterations 3 >/dev/null
for f in "$tmp"/run/imutex/*.result.json; do edit "$f" '.status = "failed" | .error = "boom"'; done
accepted "one of three variants failing every iteration"
mkrun
for f in "$tmp"/run/*/*.result.json; do edit "$f" '.status = "failed" | .error = "boom"'; done
accepted "every iteration of every variant failed"
mkrun
edit "$tmp/$f2" '{schema, workload, params, iteration, kernel, env: (.env + {args: "dio"}),
	runtime_s: 0, ops: [], counters: {}, metrics: [],
	verify: {enabled: false, checked: 0, errors: 0, first_error: null},
	status: "failed", error: "boot: no result", log: null, log_excerpt: ""}'
accepted "a failed result as runners/fail-result writes it"
mkrun; edit "$tmp/run/meta.json" '.ended = null'
accepted "a run that has not ended (meta.json ended null)"
like "$(cat "$tmp/run/report.txt")" 'Matrix: +synthetic\.matrix, 2026-12-03T08:00:00Z, not ended' "  its report says so"

# The run directory's path never enters the gnuplot script: a quote could
# end a string there and gnuplot's system() run the rest.
odd="$tmp/it's"$'\n'"x'.system('touch pwned').'"
analysis/rlsynth "$odd" --variants stock,imutex --threads 1 --iterations 3 >/dev/null
run "$R" report "$odd"
[ "$RC" = 0 ] && [ -s "$odd/relative-throughput.png" ] && [ -z "$(find "$tmp" "$TOP" -maxdepth 3 -name pwned)" ]
ok $? "a run directory named with a quote, a newline and system(): charts made, nothing run"

# The count depends on the case lists above: the plan comes last.
echo "1..$TAP_N"
done_testing
