// SPDX-License-Identifier: GPL-2.0
/*
 * What a run concluded, before any table or chart: every variant gated
 * against the baseline, the overall verdict with the failed points
 * counted in, and the mmtests-style summary, the geometric mean of the
 * ratios per variant.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "gate/gate.h"

void gated_run_open(struct gated_run *x, const char *dir,
		    const char *baseline, bool given)
{
	x->r = run_open(dir, 1 - x->gt.alpha);
	x->base = run_pick_baseline(x->r, baseline, given);
	x->gt.sequential = run_is_sequential(x->r, &x->gt.max_iter);
	x->it = gate_within(&x->gt, x->r, x->base, &x->nit);
}

void gated_failures(const struct gated_run *x, struct failed_cell *out,
		    int *cand, int *base)
{
	const struct run *r = x->r;
	int pt, v, k = 0;

	*cand = *base = 0;
	for (pt = 0; pt < r->npoints; pt++) {
		const struct cell *gb = run_cell(r, pt, x->base);

		for (v = 0; v < r->nvariants; v++) {
			const struct cell *g = run_cell(r, pt, v);
			bool mine = g && g->nfailed;

			if (v == x->base || !g ||
			    (!mine && gb && !gb->nfailed))
				continue;
			if (mine)
				(*cand)++;
			else
				(*base)++;
			if (out)
				out[k++] = (struct failed_cell){ g, !mine };
		}
	}
}

int gated_overall(const struct gated_run *x)
{
	int cand, base, v = gate_overall(x->it, x->nit, 0);

	gated_failures(x, NULL, &cand, &base);
	if (cand)
		return V_FAIL;
	if (v == V_PASS && base)
		return V_INCONC;
	return v;
}

/*
 * The geometric mean of the primary metric's ratios over the points of
 * one mode. Its CI takes the larger of two standard errors: the spread of
 * the log ratios across points, and the points' own errors combined (the
 * points share boots, so the former alone would understate it).
 */
bool matrix_gmean(const struct gated_run *x, int v, const char *mode,
		  struct gmean_row *g)
{
	double *d = xcalloc(x->nit + 1, sizeof(*d)), sw = 0, se, sb, df = 1e9;
	double m, tq;
	int i, n = 0;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < x->nit; i++) {
		const struct gated_metric *it = &x->it[i];

		if (it->fam != FAM_PRIMARY || !it->c.valid ||
		    !it->c.logscale || strcmp(it->gb->variant,
					      x->r->variants[v]) ||
		    strcmp(it->gb->pt->mode, mode))
			continue;
		d[n++] = it->c.w.diff;
		sw += it->c.w.se * it->c.w.se;
		df = fmin(df, it->c.w.df);
	}
	if (!n) {
		free(d);
		return false;
	}
	m = gsl_stats_mean(d, 1, n);
	se = sqrt(sw) / n;
	if (n >= 2) {
		sb = gsl_stats_sd_m(d, 1, n, m) / sqrt(n);
		if (sb > se) {
			se = sb;
			df = n - 1;
		}
	}
	tq = gsl_cdf_tdist_Pinv(0.975, df);
	g->npts = n;
	g->ratio = exp(m);
	g->lo = exp(m - tq * se);
	g->hi = exp(m + tq * se);
	free(d);
	return true;
}
