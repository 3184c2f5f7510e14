#!/bin/bash
# A real LAVA server (make test-lava-server): runners/lava-server brings up
# lava-server, its scheduler and a worker on loopback; the smoke matrix on
# stock goes through `make lava-jobs` and `make lava-submit` as a user
# types them, with the throwaway lavacli identity (LAVA=, XDG_CONFIG_HOME
# in the lab's directory: ~/.config/lavacli.yaml is never read), and the
# run it collects is read by `make report`.  Everything started is stopped
# on exit.  Boots a kernel and needs root, so `make test` runs only the
# bad-input checks unless RLBENCH_LAVA_SERVER=1.  RLBENCH_KEEP_RUN=1 keeps
# the run and the job set (for a closing note).
. "$(dirname "$0")/lib/tap.sh"
plan 16

tmp=$(mktemp -d)
run runners/lava-server start
like "$RC:$OUT" "^2:lava-server: usage: runners/lava-server start\|stop DIR" "no DIR: exit 2 with the usage"
run runners/lava-server restart "$tmp"
like "$RC:$OUT" "^2:lava-server: unknown command 'restart'" "an unknown command exits 2 naming it"
run runners/lava-server stop "$tmp/nosuch"
like "$RC:$OUT" "^2:lava-server: DIR '$tmp/nosuch' is not a directory" "stop of a directory that is not there exits 2 naming it"
if [ "${RLBENCH_LAVA_SERVER:-0}" != 1 ]; then
	for _ in $(seq 13); do skip "brings up a LAVA server and boots a kernel: make test-lava-server"; done
	rm -rf "$tmp"
	done_testing
fi
[ "$(id -u)" = 0 ] || bail_out "needs root (runners/lava-server start)"
command -v lava-server >/dev/null || bail_out "lava-server not installed (scripts/setup lava-server)"

lab=$tmp/lab
rd=
# shellcheck disable=SC2317  # run from the traps
cleanup() {
	if [ -d "$lab" ]; then
		runners/lava-server stop "$lab" >/dev/null 2>&1 || echo "# runners/lava-server stop failed" >&2
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
t0=$(date +%s)
stamp() { diag <<<"$(($(date +%s) - t0)) s: $*"; }

run runners/lava-server start "$lab"
stamp "runners/lava-server start: $(tr '\n' ' ' <<<"$OUT")"
is "$RC" 0 "runners/lava-server start: PostgreSQL, lava-server, lava-scheduler and lava-worker up"
[ "$RC" = 0 ] || { tail -n 20 "$lab"/log/* 2>/dev/null | diag; bail_out "the LAVA lab did not come up"; }
cfg=$(sed -n 's/^XDG_CONFIG_HOME=//p' <<<"$OUT") ident=$(sed -n 's/^LAVA=//p' <<<"$OUT")
url=$(sed -n 's/^LAVA_URL=//p' <<<"$OUT")
like "$url" '^http://127\.0\.0\.1:[0-9]+$' "the server listens on loopback"
# The sockets its processes listen on (its recorded ids, the cluster's postmaster).
pids=$( { awk '{print $2}' "$lab/pids"; head -n 1 "$(cat "$lab/pgdir")/data/postmaster.pid"; } 2>/dev/null | xargs)
# (a line names every process sharing the socket: gunicorn's workers too)
addrs=$(for p in $pids; do ss -Hltnp | awk -v p="pid=$p," 'index($0, p) {print $4}'; done | sort -u | xargs -r printf '%s ')
like "$addrs" '^127\.0\.0\.1:[0-9]+ (127\.0\.0\.1:[0-9]+ )+$' "the server and the database listen on 127.0.0.1 only"
export XDG_CONFIG_HOME=$cfg
run lavacli -i "$ident" devices show rlbench-qemu-x86_64 --yaml
like "$OUT" "device_type: qemu" "the qemu device is registered with its dictionary, on the lab's worker"

# The job set: the smoke matrix on stock.
run make --no-print-directory lava-jobs KERNEL=stock MATRIX=smoke
stamp "make lava-jobs: $(tail -1 <<<"$OUT")"
is "$RC" 0 "make lava-jobs KERNEL=stock MATRIX=smoke (validated against the server's strict job schema too)"
jobdir=$(dirname "$(tail -1 <<<"$OUT")")
njobs=$(find "$jobdir" -maxdepth 1 -name '[0-9]*.yaml' | wc -l)

# A job the lab never runs fails here instead of waiting for ever.
run timeout 3600 make --no-print-directory lava-submit JOBS="$jobdir" LAVA="$ident"
echo "$OUT" | tail -n 5 | diag
stamp "make lava-submit"
rd=$(sed -n 's/^run: //p' <<<"$OUT" | tail -1)
like "$rd" "^results/[0-9]{8}-[0-9]{6}-smoke-stock-lava$" "make lava-submit prints the run directory"
is "$RC" 0 "every job ran and every smoke point passed"
jq_ok "meta.json names the server's job ids, every one Complete on the lab's device and worker" "$rd/meta.json" \
	"(.lava.jobs | length) == $njobs"' and all(.lava.jobs[]; (.id | test("^[0-9]+$")) and .health == "Complete" and .state == "Finished" and .device == "rlbench-qemu-x86_64" and .worker == "rlbench-worker")'
ids=$(jq -r '.lava.jobs[].id' "$rd/meta.json" 2>/dev/null | xargs)
states=$(for id in $ids; do lavacli -i "$ident" jobs show "$id" --yaml | sed -n 's/^health: //p'; done | sort -u | xargs)
is "$states" Complete "the server itself says every job ($ids) is Complete"

npoints=$(runners/matrix configs/smoke.matrix | grep -c '^point ')
results=("$rd"/stock/*.result.json)
is "${#results[@]}" "$npoints" "one result per smoke point ($npoints)"
bad=$(jq -r 'select(.schema != "rlbench-result/1" or .status != "ok") | input_filename' "${results[@]}")
is "$bad" "" "every result is an ok rlbench-result/1 document"
# The server's qemu template, not configs/lava/qemu-x86_64.yaml, made
# this guest: the job's context must have reached it.
cpus=$(runners/matrix configs/smoke.matrix | awk '$2 == "cpus" {print $3}')
mem=$(runners/matrix configs/smoke.matrix | awk '$2 == "mem_mb" {print $3}')
ok "$(jq -se --argjson c "$cpus" --argjson m "$mem" 'all(.[]; .env.cpus == $c and .env.mem_mb <= $m and .env.mem_mb > $m * 0.8)' "${results[@]}" >/dev/null; echo $?)" \
	"the guest had the matrix's $cpus CPUs and $mem MiB (the device dictionary renders the job's context)"

run make --no-print-directory report RUN="$rd"
head -n 8 "$rd/report.txt" 2>/dev/null | diag
ok "$([ "$RC" = 0 ] && [ -s "$rd/report.txt" ]; echo $?)" "make report reads the run: report.txt written"
stamp "make report"
[ -n "${RLBENCH_KEEP_RUN:-}" ] || rm -rf "$rd" "$jobdir"
done_testing
