// SPDX-License-Identifier: GPL-2.0
/*
 * rlstat next RUN: the time-mode points whose verdict against the
 * baseline is still undecided by the sequential rule (gate.c) and that
 * have fewer than the maximum iterations, one label a line; nothing when
 * every point is decided. The runner adds interleaved boots running only
 * these points until nothing is printed.
 *
 * --mode cost: the cost-mode points where some variant's two boots differ
 * by more than the cost threshold in an op's insn/op. Counts of one kernel
 * agree to 0.01%, so two boots (one measures, one confirms) decide a
 * suited point; a third runs only where they do not agree. Points whose
 * threads play roles are left out: their spread is unsuited, not noise.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"

static const char usage[] =
"usage: rlstat next <rundir> [--baseline VARIANT] [--threshold PCT%]\n"
"                   [--max-iterations N] [--mode time|cost]\n"
"\n"
"Prints the time-mode points still undecided against the baseline by the\n"
"sequential rule, one label a line (runners/run's ITERATIONS=auto);\n"
"--mode cost: the cost-mode points whose two boots of a variant differ\n"
"by more than the cost threshold (a third boot confirms them).\n";

/* a variant's two boots of a suited cost point differ past thr (%)? */
static bool cost_differ(const struct run *r, int pt, double thr)
{
	const struct cell *g;
	int v, k;

	for (v = 0; v < r->nvariants; v++) {
		g = run_cell(r, pt, v);
		if (!g || g->nfailed || g->roles)
			continue;
		for (k = 0; k < g->nm; k++) {
			const struct cell_metric *m = &g->m[k];

			if (m->def->kind == METRIC_INSN && m->nvals == 2 &&
			    fabs(m->vals[1] / m->vals[0] - 1) * 100 > thr)
				return true;
		}
	}
	return false;
}

/* A point is undecided when any variant's comparison there is. */
static bool point_undecided(const struct gated_run *x, int pt)
{
	const struct run *r = x->r;
	const struct cell *ga = run_cell(r, pt, x->base), *gb;
	int v, i;

	for (v = 0; v < r->nvariants; v++) {
		gb = run_cell(r, pt, v);
		if (v == x->base || !ga || !gb || ga->nfailed || gb->nfailed)
			continue;
		for (i = 0; i < x->nit; i++)
			if (x->it[i].gb == gb &&
			    gate_undecided(&x->gt, &x->it[i]))
				return true;
	}
	return false;
}

int cmd_next(int argc, char **argv)
{
	const char *dir = NULL, *baseline = "stock", *mode = "time";
	bool given = false, max_given = false;
	int i, k, max = 0, pt;
	struct gated_run x = { 0 };
	char **printed;
	const struct cli_opt opts[] = {
		CLI("--baseline", CLI_STRING, &baseline, .given = &given),
		CLI("--threshold", CLI_PCT, &x.gt.threshold_pct),
		CLI("--max-iterations", CLI_INT, &max, .min = 3, .max = 1000,
		    .given = &max_given),
		CLI("--mode", CLI_STRING, &mode),
		CLI_END
	};

	gate_init(&x.gt);
	if (!cli_parse(argc, argv, 2, opts, &dir, 1, "next", usage))
		die_input("next: expected a run directory\n%s", usage);
	if (strcmp(mode, "time") && strcmp(mode, "cost"))
		die_input("next: --mode '%s' is not one of time, cost", mode);
	x.r = run_open(dir, 1 - x.gt.alpha);
	if (!strcmp(mode, "cost")) {
		for (pt = 0; pt < x.r->npoints; pt++)
			if (!strcmp(x.r->points[pt]->mode, "cost") &&
			    cost_differ(x.r, pt, x.gt.cost_threshold_pct))
				printf("%s\n", x.r->points[pt]->label);
		return 0;
	}
	x.base = run_pick_baseline(x.r, baseline, given);
	run_is_sequential(x.r, &x.gt.max_iter);
	if (max_given)
		x.gt.max_iter = max;
	/* the decision is made with alpha spent over the looks */
	x.gt.sequential = true;
	x.it = gate_within(&x.gt, x.r, x.base, &x.nit);
	printed = xcalloc(x.r->npoints + 1, sizeof(*printed));
	for (pt = 0, k = 0; pt < x.r->npoints; pt++) {
		const char *l = x.r->points[pt]->label;

		if (strcmp(x.r->points[pt]->mode, "time") ||
		    !point_undecided(&x, pt))
			continue;
		for (i = 0; i < k; i++)
			if (!strcmp(printed[i], l))
				break;
		if (i < k)
			continue;
		printed[k++] = (char *)l;
		printf("%s\n", l);
	}
	free(printed);
	return 0;
}
