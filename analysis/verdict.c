// SPDX-License-Identifier: GPL-2.0
/*
 * What a run concluded, before any table or chart: which gated metrics
 * moved (FAIL, or better past the threshold), which show no regression
 * past the threshold (PASS) and which are undecided (INCONCLUSIVE); and the
 * mmtests-style summary, the geometric mean of the ratios per variant.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "rlstat.h"

/* The baseline variant; one variant alone compares with nothing. */
int pick_baseline(const struct run *r, const char *want, bool given)
{
	int b = run_variant_index(r, want);
	int i;

	if (b >= 0)
		return b;
	/* one variant: nothing to compare, any baseline will do */
	if (!given || r->nvariants == 1)
		return 0;
	fprintf(stderr, "rlstat: baseline \"%s\" is not in %s; its variants:",
		want, r->dir);
	for (i = 0; i < r->nvariants; i++)
		fprintf(stderr, " %s", r->variants[i]);
	fputc('\n', stderr);
	exit(EXIT_BADINPUT);
}

/* Candidate points that failed, and points the baseline failed. */
static void failures(const struct rctx *x, int *cand, int *base)
{
	const struct run *r = x->r;
	int pt, v;

	*cand = *base = 0;
	for (pt = 0; pt < r->npoints; pt++) {
		const struct group *gb = run_group(r, pt, x->base);

		for (v = 0; v < r->nvariants; v++) {
			const struct group *g = run_group(r, pt, v);

			if (v == x->base || !g)
				continue;
			if (g->nfailed)
				(*cand)++;
			else if (!gb || gb->nfailed)
				(*base)++;
		}
	}
}

static void failed_lines(FILE *f, const struct rctx *x)
{
	const struct run *r = x->r;
	int pt, v;

	for (pt = 0; pt < r->npoints; pt++) {
		const struct group *gb = run_group(r, pt, x->base);

		for (v = 0; v < r->nvariants; v++) {
			const struct group *g = run_group(r, pt, v);

			if (v == x->base || !g)
				continue;
			if (g->nfailed)
				fprintf(f, "  %-15s %-11s %-9s %d of %d boots "
					"failed\n", "FAILED (FAIL)", g->variant,
					g->pt->label, g->nfailed, g->niter);
			else if (!gb || gb->nfailed)
				fprintf(f, "  %-15s %-11s %-9s the baseline "
					"failed here\n", "not compared",
					g->variant, g->pt->label);
		}
	}
}

int report_overall(const struct rctx *x)
{
	int cand, base, v = gate_overall(x->it, x->nit, 0);

	failures(x, &cand, &base);
	if (cand)
		return V_FAIL;
	if (v == V_PASS && base)
		return V_INCONC;
	return v;
}

static const char *what(const struct gitem *it)
{
	int v = it->v;

	return it->unsuited ? "unsuited" : v == V_FAIL ? "moved (FAIL)" :
	       it->better ? "moved (better)" : gate_worse_within(it) ?
	       "worse, within" : it->worse ? "worse, unclear" :
	       v == V_PASS ? "no regression" : "undecided";
}

static void item_line(FILE *f, const struct gitem *it)
{
	char lab[64];

	metric_label(it->c.a->def, lab, sizeof(lab));
	fprintf(f, "  %-15s %-11s %-9s %-18s",
		what(it), it->gb->variant,
		it->gb->pt->label, lab);
	if (it->fam == FAM_ERROR)
		fprintf(f, " error count\n");
	else if (!it->c.valid)
		fprintf(f, " < 3 boots\n");
	else if (it->c.logscale)
		fprintf(f, " %+.1f%% [%+.1f, %+.1f]\n", it->c.pct,
			it->c.ci_pct_lo, it->c.ci_pct_hi);
	else
		fprintf(f, " %+.3g\n", it->c.abs);
}

/* Cost cells the gate left out, with what made them unsuited. */
static void unsuited_lines(FILE *f, const struct rctx *x)
{
	char why[64];
	int i, n = 0;

	for (i = 0; i < x->nit; i++) {
		const struct gitem *it = &x->it[i];

		if (!unsuited_why(it, why, sizeof(why)))
			continue;
		if (!n++)
			fprintf(f, "  unsuited to cost mode, not gated (CoeffVar "
				"%s / candidate):\n", x->r->variants[x->base]);
		item_line(f, it);
		fprintf(f, "  %-15s %s; CoeffVar %.2f%% / %.2f%%\n", "", why,
			it->ga->m[it->mi].s.cv * 100,
			it->gb->m[it->mi].s.cv * 100);
	}
}

void report_verdict_text(FILE *f, const struct rctx *x)
{
	int i, pass = 0, gated = 0, cand, base, pass_line = 0;
	int v = report_overall(x);

	failures(x, &cand, &base);
	fprintf(f, "Verdict:     %s against %s (thresholds %g%%, p99 %g%%, "
		"cost %g%%)\n", verdict_name(v), x->r->variants[x->base],
		x->gt.threshold_pct, x->gt.tail_threshold_pct,
		x->gt.cost_threshold_pct);
	if (cand || base)
		failed_lines(f, x);
	for (i = 0; i < x->nit; i++) {
		const struct gitem *it = &x->it[i];

		if (it->fam == FAM_OTHER)
			continue;
		gated++;
		if (it->v == V_PASS && !it->better && !it->worse) {
			pass++;
			continue;
		}
		item_line(f, it);
	}
	unsuited_lines(f, x);
	for (i = 0; i < x->nit && pass; i++) {
		const struct gitem *it = &x->it[i];

		if (it->fam == FAM_OTHER || it->v != V_PASS || it->better ||
		    it->worse)
			continue;
		if (!pass_line++)
			fprintf(f, "  no regression past the threshold "
				"(PASS): %d of %d gated metrics:\n", pass,
				gated);
		item_line(f, it);
	}
	fputc('\n', f);
}

/*
 * The geometric mean of the primary metric's ratios over the points of
 * one mode. Its CI takes the larger of two standard errors: the spread of
 * the log ratios across points, and the points' own errors combined (the
 * points share boots, so the former alone would understate it).
 */
bool matrix_gmean(const struct rctx *x, int v, const char *mode,
		  struct gmrow *g)
{
	double *d = xcalloc(x->nit + 1, sizeof(*d)), sw = 0, se, sb, df = 1e9;
	double m, tq;
	int i, n = 0;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < x->nit; i++) {
		const struct gitem *it = &x->it[i];

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
