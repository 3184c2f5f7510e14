#!/bin/bash
# One place for each thing: in a scratch copy of the tracked tree, add a
# workload (its .c, its doc line, its test), a kernel variant (its row of
# kernels/variants, its config fragment, its patch), a feature (its row of
# kernels/features, its config fragment, its row of kernels/README.md's
# table), a kind of chart (its function and row in chart.c, its doc
# line), an rlstat subcommand (its builtin file, its row of the command
# table, its synopsis line) and a report section (its file, called and
# declared in its layer, analysis/report/); the builds and every listing
# pick them up, and git says nothing else had to change.
# No kernel is built and no guest boots.
. "$(dirname "$0")/lib/tap.sh"
for c in git gcc gnuplot jq; do
	command -v $c >/dev/null || { echo "1..0 # skip $c not installed"; exit 0; }
done
plan 22

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t=$tmp/tree
mkdir "$t"
# the tracked files as they are in the work tree, committed as the base
git ls-files -z | tar --null -T - -cf - | tar -C "$t" -xf -
g() { git -C "$t" -c user.name=t -c user.email=t@example.org "$@"; }
g init -q && g add -A && g commit -qm base

# The guest's scratch filesystem and kernel command line, the same for a
# local boot (runners/boot) and a LAVA job (runners/lava): written once.
twice=$(grep -rlE 'mkfs\.(ext4|xfs) .*(-U|uuid=)|console=ttyS0' runners | grep -vx runners/lib.sh | xargs)
is "$twice" "" "the scratch mkfs and the guest command line live in runners/lib.sh alone"

# --- a workload: workloads/nop.c, a row of workloads/README.md, a test ---
cat >"$t/workloads/nop.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
/* nop: an op that does nothing, timed (tests/59 adds it) */
#include <stddef.h>

#include "rlwork.h"

struct nop_opts {
	uint64_t spins;
};

#define O(f) offsetof(struct nop_opts, f)
static const struct opt_def nop_opts[] = {
	{ .name = "spins", .type = OPT_INT, .off = O(spins), .def = "3",
	  .min = 1, .max = 100, .help = "nothing, this many times per op" },
	OPT_END
};

static const struct op_decl nop_ops[] = { { "nop", false }, { NULL, false } };
static const struct counter_decl nop_counters[] = { { NULL, NULL, 0 } };

static void nop_thread(struct worker *w)
{
	uint64_t t0;

	while (rl_running(w)) {
		t0 = rl_now();
		rl_op_done(w, 0, t0, 0);
	}
}

WORKLOAD(wl_nop) = {
	.name = "nop",
	.summary = "a timed op that does nothing",
	.help = "Each thread times an empty op.",
	.opts = nop_opts,
	.opts_size = sizeof(struct nop_opts),
	.defaults = "size=64k",
	.ops = nop_ops,
	.counters = nop_counters,
	.thread = nop_thread,
};
EOF
row=$(cat <<'EOF'
| `nop`            | timed empty ops                           | nop                                   |
EOF
)
sed -i "/^| \`readahead\` /a $row" "$t/workloads/README.md"
cat >"$t/tests/69-rlwork-nop.t" <<'EOF'
#!/bin/bash
. "$(dirname "$0")/lib/tap.sh"
need_rlwork
plan 1
run "$RLWORK" nop --dry-run
ok "$RC" "nop resolves"
done_testing
EOF
chmod +x "$t/tests/69-rlwork-nop.t"

# --- a variant: its row, its fragment, its own patch after the series ---
printf 'toy\t\ttoy\t\tsafe\t-\t\ta throwaway variant of tests/59\n' >>"$t/kernels/variants"
printf 'CONFIG_MAPPING_LOCK_RWSEM=y\n' >"$t/kernels/configs/toy.config"
cat >"$t/kernels/patches/variant-toy.patch" <<'EOF'
From: tests/59 <t@example.org>
Subject: [PATCH] toy: nothing

---
EOF

# --- a feature: its row, its fragment, its row of kernels/README.md ---
printf 'toyf\t\ttoyf\t\tall\t\t\ta throwaway feature of tests/59\n' >>"$t/kernels/features"
printf 'CONFIG_TOYF=y\n' >"$t/kernels/configs/feature-toyf.config"
# shellcheck disable=SC2016  # backquotes of Markdown, not of the shell
sed -i '/^| `fault-retry` |/a | `toyf` | `TOYF` | nothing (tests/59) | all |' "$t/kernels/README.md"

# --- a chart kind: its function and its row in chart.c, its doc line ---
sed -i 's|^const struct chart_kind chart_kinds\[\] = {|static void toy_charts(struct charts *c)\
{\
	chart_begin(c, xasprintf("toy-%s", c->r->variants[c->base]), "toy",\
		    xasprintf("toy: nothing against %s", c->r->variants[c->base]));\
	chart_render_empty(c, "nothing");\
}\
\
&|; s|^\t{ .name = NULL },|\t{ .name = "toy", .make = toy_charts, .what = "nothing",\
	  .heading = "Toy" },\
&|' "$t/analysis/report/chart.c"
cat >>"$t/analysis/README.md" <<'EOF'

`toy-<baseline>`: an empty chart (tests/59).
EOF

# --- an rlstat subcommand: its builtin, its row, its synopsis line ---
cat >"$t/analysis/builtin-toy.c" <<'EOF2'
// SPDX-License-Identifier: GPL-2.0
/* rlstat toy: the labels of a run's points (tests/59 adds it) */
#include <stdio.h>

#include "builtin.h"

static const char usage[] = "usage: rlstat toy <rundir>\n";

int cmd_toy(int argc, char **argv)
{
	const char *dir = NULL;
	const struct cli_opt opts[] = { CLI_END };
	struct run *r;
	int i;

	if (!cli_parse(argc, argv, 2, opts, &dir, 1, "toy", usage))
		die_input("toy: expected a run directory\n%s", usage);
	r = run_open(dir, 0.95);
	for (i = 0; i < r->npoints; i++)
		printf("toy %s\n", r->points[i]->label);
	return 0;
}
EOF2
sed -i 's|^int cmd_history(int argc, char \*\*argv);|&\nint cmd_toy(int argc, char **argv);|; s|^\t{ NULL, NULL, NULL }|\t{ "toy", cmd_toy, "the labels of the points" },\n&|' \
	"$t/analysis/rlstat.c"
sed -i 's|^    analysis/rlstat validate .*|&\n    analysis/rlstat toy <run>|' "$t/analysis/README.md"

# --- a report section: its file, declared and called in report/ ---
cat >"$t/analysis/report/toy.c" <<'EOF2'
// SPDX-License-Identifier: GPL-2.0
/* The toy section of report.txt (tests/59 adds it) */
#include "report/report.h"

void report_toy(FILE *f, const struct gated_run *x)
{
	fprintf(f, "\nToy:         %d points gated\n", x->r->npoints);
}
EOF2
sed -i 's|^int report_text(FILE \*f, const struct gated_run \*x);|&\nvoid report_toy(FILE *f, const struct gated_run *x);|' \
	"$t/analysis/report/report.h"
sed -i 's|^\ttables(f, x);|&\n\treport_toy(f, x);|' "$t/analysis/report/report.c"

run nice -n 10 make -s -C "$t/workloads"
ok "$RC" "workloads build with the new workload" || echo "$OUT" | tail -5 | diag
run nice -n 10 make -s -C "$t/analysis"
ok "$RC" "analysis builds with the new chart kind, subcommand and report section" || echo "$OUT" | tail -5 | diag

# the workload
R=$t/workloads/rlwork
grep -qx nop <<<"$("$R" --list)" && grep -q '^  nop  ' <<<"$("$R" --help)"
ok $? "rlwork --list and --help name the new workload"
run_split "$R" nop --dry-run --json -
[ "$rc" = 0 ] && [ "$(jq -c '[.workload, .params.spins]' <<<"$out")" = '["nop",3]' ]
ok $? "its options resolve into the point's params"
run_split "$R" nop --file "$tmp/nop.dat" --runtime 0.2 --ramp 0 --json "$tmp/nop.json"
[ "$rc" = 0 ] && jq -e '.status == "ok" and .ops[0].name == "nop" and .ops[0].count > 0' \
	"$tmp/nop.json" >/dev/null
ok $? "it runs and reports its op"
printf 'point nop --spins 2\n' >"$tmp/nop.matrix"
run "$t/runners/matrix" "$tmp/nop.matrix"
like "$OUT" "point p001-nop nop --spins 2" "a matrix may name it"

# the variant
like "$(make -s -C "$t" help 2>&1)" "variant: [^"$'\n'"]* toy, all, host" \
	"make help lists the new variant"
is "$("$t/kernels/prepare-src" --list | tail -1)" "variant-toy.patch" \
	"its patch applies after the series"
"$t/analysis/rlsynth" "$tmp/run" --variants zeta,toy,stock,host,rangelock \
	--iterations 2 >/dev/null 2>&1
run "$t/analysis/rlstat" report "$tmp/run" --baseline nosuch --no-charts
like "$OUT" "its variants: stock rangelock toy zeta host" \
	"the report orders it as kernels/variants does"

# the feature
run "$t/kernels/build" --resolve toy+toyf
[ "$RC" = 0 ] && grep -qx 'name toy+toyf' <<<"$OUT" && grep -qx 'fragment configs/feature-toyf.config' <<<"$OUT"
ok $? "KERNEL=<variant>+<new feature> resolves to its name and fragment" || diag <<<"$OUT"
run "$t/kernels/build" --resolve stock+fault-retry+toyf
like "$RC:$OUT" "^0:name stock\+fault-retry\+toyf"$'\n' "it takes its place in the order of kernels/features"
documented() {	# TREE: every feature has its fragment and its row of the table
	local f _
	while read -r f _; do
		[ -f "$1/kernels/configs/feature-$f.config" ] && grep -qF "| \`$f\` |" "$1/kernels/README.md" || return 1
	done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1/kernels/features")
}
mkdir -p "$tmp/undoc/kernels/configs"
cp "$t/kernels/features" "$t/kernels/README.md" "$tmp/undoc/kernels/"
cp "$t"/kernels/configs/feature-*.config "$tmp/undoc/kernels/configs/"
sed -i "/^| \`toyf\` |/d" "$tmp/undoc/kernels/README.md"
ok "$(documented "$t" && ! documented "$tmp/undoc"; echo $?)" \
	"every feature has its fragment and its row of kernels/README.md's table (one without fails)"
run "$t/kernels/build" --resolve stock+toyz
like "$RC:$OUT" "^2:.*accepted: shared-alloc-dio fault-retry toyf" "and bad spellings name it among the accepted ones"

# the chart kind
grep -q "^toy	nothing$" <<<"$("$t/analysis/rlstat" charts --kinds)"
ok $? "rlstat charts --kinds lists the new kind"
grep -q "^toy-stock	toy	" <<<"$("$t/analysis/rlstat" charts "$tmp/run")"
ok $? "rlstat charts lists its chart for a run"
run "$t/analysis/rlstat" report "$tmp/run"
[ "$RC" = 0 ] && [ -s "$tmp/run/toy-stock.svg" ] &&
	grep -q '<h2>Toy</h2>' "$tmp/run/report.html" &&
	grep -q 'src="./toy-stock.svg"' "$tmp/run/report.html"
ok $? "the report draws it and report.html shows it under its heading"

# the subcommand and the report section
grep -q "^  toy  *the labels of the points$" <<<"$("$t/analysis/rlstat" --help)" &&
	[ "$("$t/analysis/rlstat" toy "$tmp/run" | head -1)" = "toy p000-dio" ]
ok $? "rlstat --help lists the new subcommand and it runs" || "$t/analysis/rlstat" toy "$tmp/run" 2>&1 | head -3 | diag
run "$t/analysis/check-layers"
is "$RC:$OUT" "0:" "the layers still hold"
grep -q "^Toy:  *[0-9]* points gated$" "$tmp/run/report.txt"
ok $? "report.txt carries the new section"

# nothing else was touched: <= 3 files a workload, <= 3 a variant, <= 3 a
# feature, <= 2 a chart, 3 a subcommand, 3 in report/ a report section
changed=$(g status --porcelain --untracked-files=all | sed 's/^...//' | sort | xargs)
is "$changed" "analysis/README.md analysis/builtin-toy.c analysis/report/chart.c analysis/report/report.c analysis/report/report.h analysis/report/toy.c analysis/rlstat.c kernels/README.md kernels/configs/feature-toyf.config kernels/configs/toy.config kernels/features kernels/patches/variant-toy.patch kernels/variants tests/69-rlwork-nop.t workloads/README.md workloads/nop.c" \
	"only the new things' own files changed (3 + 3 + 3 + 2 + 3 + 3)"
run bash "$t/tests/69-rlwork-nop.t"
ok "$RC" "the new workload's test passes"

done_testing
