#!/bin/bash
# runners/lava submit and collect through lavacli, with a stand-in lavacli
# on PATH that answers as a LAVA server would (job ids, `jobs logs --raw`
# in YAML, `jobs show --yaml`, `devices show --yaml`): the server and token
# are never passed (lavacli's own configuration holds them, selected by
# --identity), every job is waited for, and the collected run names the
# job ids, the device and its worker.
. "$(dirname "$0")/lib/tap.sh"
make -s -C workloads >/dev/null || bail_out "rlwork does not build"
plan 11

tmp=$(mktemp -d)
rd=
# shellcheck disable=SC2317  # run from the EXIT trap
cleanup() { rm -rf "$tmp" ${rd:+"$rd"}; }
trap cleanup EXIT
mkdir -p "$tmp/k/stock/arch/x86/boot" "$tmp/k/stock/include/config" "$tmp/bin" "$tmp/srv"
echo bz >"$tmp/k/stock/arch/x86/boot/bzImage"
echo "6.12.0-rl-stock" >"$tmp/k/stock/include/config/kernel.release"
echo "CONFIG_X=y" >"$tmp/k/stock/.config"
# shellcheck disable=SC2016  # $1 is the stand-in script's argument
printf '#!/bin/sh\necho "%s/k/$1"\n' "$tmp" >"$tmp/kbuild"
chmod +x "$tmp/kbuild"
printf 'iterations 2\nruntime 1\nramp 0\npoint dio --size 1m\n' >"$tmp/t.matrix"
RLBENCH_KBUILD=$tmp/kbuild run runners/lava jobs --kernel stock --baseline none --matrix "$tmp/t.matrix" --out "$tmp/jobs"
is "$RC" 0 "two jobs"

# the server's answer for a job: its guest ran the point and printed the result
read -r _ _ _ args < <(sed -n 's/^# rlbench-plan: //p' "$tmp/jobs/01-stock-time-i1.yaml")
eval "workloads/rlwork $args --file $tmp/w.dat --json $tmp/res.json --iteration 1" >/dev/null 2>&1 || bail_out "rlwork failed"
cat >"$tmp/bin/lavacli" <<EOF
#!/bin/bash
# stand-in lavacli: records its arguments, serves jobs from $tmp/srv
echo "\$*" >>"$tmp/argv"
[ "\$1" = -i ] && shift 2
srv=$tmp/srv
case "\$1 \$2" in
"jobs submit") n=\$(( \$(find "\$srv" -name '*.yaml' | wc -l) + 101 )); cp "\$3" "\$srv/\$n.yaml"; echo "\$n" ;;
"jobs wait") echo "\$3" >>"\$srv/waited" ;;
"jobs definition") cat "\$srv/\$3.yaml" ;;
"jobs show") printf 'id: %s\ndevice: qemu-07\ndevice-type: qemu\nhealth: Complete\nstate: Finished\n' "\$4" ;;
"devices show") printf 'hostname: qemu-07\nworker: lab-worker-3\nhealth: Good\n' ;;
"jobs logs")
	it=\$(sed -n 's/^  rlbench.iteration: "\(.*\)"/\1/p' "\$srv/\$4.yaml")
	t() { printf -- '- {dt: 2026-01-01T00:00:00.000000, lvl: target, msg: %s}\n' "\$(jq -nc --arg m "\$1" '\$m')"; }
	t "rlbench: guest up release=6.12.0-rl-stock strategy=stock cpus=2"
	t "rlbench: start p001-dio \$it"
	jq -c ".iteration = \$it" $tmp/res.json >"\$srv/p001-dio-i\$it.result.json"
	f=\$srv/p001-dio-i\$it.result.json
	gzip -c "\$f" | base64 | while read -r l; do t "rlbench: data p001-dio-i\$it.result.json \$l"; done
	t "rlbench: file p001-dio-i\$it.result.json \$(wc -c <"\$f") \$(sha256sum <"\$f" | cut -c1-64)"
	t "rlbench: end p001-dio \$it rc=0"
	t "rlbench: done"
	printf -- '- {dt: 2026-01-01T00:00:01.000000, lvl: results, msg: {case: job, definition: lava, result: pass}}\n' ;;
*) echo "lavacli stand-in: unexpected \$*" >&2; exit 1 ;;
esac
EOF
chmod +x "$tmp/bin/lavacli"

PATH=$tmp/bin:$PATH run runners/lava submit --identity lab "$tmp/jobs"
rd=$(echo "$OUT" | sed -n 's/^run: //p' | tail -1)
is "$RC" 0 "submit, wait and collect: every point passed"
like "$(grep -c '^-i lab jobs submit ' "$tmp/argv")" "^2$" "both jobs submitted with the identity"
ok "$(! grep -qE -- '--uri|--token|token|RPC2' "$tmp/argv"; echo $?)" "no server or token on lavacli's command line"
is "$(sort "$tmp/srv/waited" | xargs)" "101 102" "every job was waited for"
is "$(jq -r '.status' "$rd"/stock/p001-dio-i*.result.json | xargs)" "ok ok" "one result per job, from the YAML job logs"
jq_ok "meta.json names the server's job ids, the device and its worker" "$rd/meta.json" \
	'[.lava.jobs[] | .id] == ["101", "102"] and all(.lava.jobs[]; .device == "qemu-07" and .worker == "lab-worker-3" and .health == "Complete")'
# Jobs submitted some other way, collected by id as the README writes it.
rd2=
PATH=$tmp/bin:$PATH run make --no-print-directory lava-collect JOBS="101 102" LAVA=lab
rd2=$(echo "$OUT" | sed -n 's/^run: //p' | tail -1)
is "$RC" 0 "make lava-collect JOBS=\"101 102\" LAVA=lab collects by id"
is "$(jq -r '.status' "$rd2"/stock/p001-dio-i*.result.json 2>/dev/null | xargs)" "ok ok" "into a run of its own with both results"
[ -n "$rd2" ] && [ "$rd2" != "$rd" ] && rm -rf "$rd2"
# lavacli 1.2 answers a job the server's schema refuses with a message and exit 0.
mkdir -p "$tmp/bin2"
# shellcheck disable=SC2016  # $4 is the stand-in script's argument
printf '#!/bin/sh\necho "Unable to submit $4: <Fault 400: \\"Problem with submitted job data: extra keys not allowed\\">"\n' >"$tmp/bin2/lavacli"
chmod +x "$tmp/bin2/lavacli"
PATH=$tmp/bin2:$PATH run runners/lava submit --identity lab "$tmp/jobs/01-stock-time-i1.yaml"
like "$RC:$OUT" "^1:.*the server refused .*01-stock-time-i1.yaml: Unable to submit .*Fault 400" "a job the server refuses exits 1 with the server's reason, no job waited for"
run runners/lava submit --identity lab "$tmp/res.json"
like "$RC:$OUT" "^2:.*is not an rlbench job" "a file that is not an rlbench job is refused before anything is submitted"
done_testing
