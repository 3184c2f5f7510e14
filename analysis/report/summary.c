// SPDX-License-Identifier: GPL-2.0
/*
 * The short summary: per point, variant and op, the throughput (geometric
 * mean over boots and its 95% CI half-width) and latency percentiles of
 * the histogram merged over threads and boots; cost-mode points as insn/op.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"

static const struct cell_metric *ops_metric(const struct cell *g,
					     const char *op)
{
	int i;

	for (i = 0; i < g->nm; i++)
		if (g->m[i].def->kind == METRIC_OPS && !strcmp(g->m[i].def->op, op))
			return &g->m[i];
	return NULL;
}

static void op_line(FILE *f, const struct cell *g, int k)
{
	const struct cell_metric *m = ops_metric(g, g->opname[k]);
	const struct lathist *h = g->ophist[k];
	char ci[16] = "", v[16];

	fprintf(f, "  %-12s %-12s", g->variant, g->opname[k]);
	if (m && m->s.n >= 2 && isfinite(m->s.ci_hi) && m->value > 0) {
		snprintf(ci, sizeof(ci), "%.1f%%", (m->s.ci_hi - m->s.ci_lo) /
			 2 / m->value * 100);
	}
	fmt_value(v, sizeof(v), m ? m->value : NAN);
	fprintf(f, " %s %6s", v, ci);
	if (lathist_total(h))
		fprintf(f, " %9.1f %9.1f %9.1f",
			lathist_percentile(h, 50) / 1e3,
			lathist_percentile(h, 99) / 1e3,
			lathist_percentile(h, 99.9) / 1e3);
	else
		fprintf(f, " %9s %9s %9s", "-", "-", "-");
	fprintf(f, " %2d\n", g->niter - g->nfailed);
}

/* Cost mode: insn/op per op, never a rate or a latency. */
static void cost_lines(FILE *f, const struct run *r, int pt)
{
	const struct cell_metric *m;
	char v[16], ci[16];
	int i, k;

	fprintf(f, "  (cost mode)  %-12s %8s %6s\n", "op", "insn/op", "+-CI95");
	for (i = 0; i < r->nvariants; i++) {
		const struct cell *g = run_cell(r, pt, i);

		if (!g)
			continue;
		if (g->nfailed)
			fprintf(f, "  %-12s FAILED %d/%d: %s\n", g->variant,
				g->nfailed, g->niter, g->first_error);
		if (g->nfailed == g->niter)
			continue;
		for (k = 0; k < g->nm; k++) {
			m = &g->m[k];
			if (m->def->kind != METRIC_INSN)
				continue;
			ci[0] = 0;
			if (isfinite(m->s.ci_hi) && m->value > 0)
				snprintf(ci, sizeof(ci), "%.2f%%", (m->s.ci_hi -
					 m->s.ci_lo) / 2 / m->value * 100);
			fmt_value(v, sizeof(v), m->value);
			fprintf(f, "  %-12s %-12s %s %6s %2d\n", g->variant,
				m->def->op, v, ci, g->niter - g->nfailed);
		}
	}
}

int report_summary(FILE *f, const struct run *r)
{
	int pt, v, k;

	fprintf(f, "%-14s %-12s %8s %6s %9s %9s %9s %2s\n", "  variant", "op",
		"ops/s", "+-CI95", "p50 us", "p99 us", "p99.9 us", "n");
	for (pt = 0; pt < r->npoints; pt++) {
		const struct point *p = r->points[pt];

		put_point_line(f, p);
		if (!strcmp(p->mode, "cost")) {
			cost_lines(f, r, pt);
			continue;
		}
		for (v = 0; v < r->nvariants; v++) {
			const struct cell *g = run_cell(r, pt, v);

			if (!g)
				continue;
			if (g->nfailed)
				fprintf(f, "  %-12s FAILED %d/%d: %s\n",
					g->variant, g->nfailed, g->niter,
					g->first_error);
			if (g->nfailed == g->niter)
				continue;
			for (k = 0; k < g->nops; k++)
				op_line(f, g, k);
			if (!g->nops)
				for (k = 0; k < g->nm; k++)
					if (g->m[k].def->kind == METRIC_OPS)
						fprintf(f, "  %-12s %-12s "
							"%.1f\n", g->variant,
							g->m[k].def->op,
							g->m[k].value);
		}
	}
	return ferror(f) ? -1 : 0;
}
