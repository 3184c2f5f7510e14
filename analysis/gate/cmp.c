// SPDX-License-Identifier: GPL-2.0
/*
 * One metric compared between a reference cell and another: the test,
 * the threshold and the printed change all use one statistic (the mean
 * log, i.e. the ratio of geometric means, or for counters and values <= 0
 * the difference of arithmetic means); and the fixed-width number formats
 * the text tables use.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>

#include "gate/gate.h"

#define MDE_POWER 0.8

static bool all_positive(const struct cell_metric *g)
{
	int i;

	for (i = 0; i < g->nvals; i++)
		if (!(g->vals[i] > 0) || !isfinite(g->vals[i]))
			return false;
	return g->nvals > 0;
}

double *cmp_logs(const struct cell_metric *g)
{
	double *l = xcalloc(g->nvals ? g->nvals : 1, sizeof(*l));
	int i;

	for (i = 0; i < g->nvals; i++)
		l[i] = log(g->vals[i]);
	return l;
}

/* Log scale: percent change of exp(d), percent worse for a log shift. */
static double pct_of(double d)
{
	return (exp(d) - 1) * 100;
}

static double worse_pct(double r, bool hib)
{
	/* r > 0 is a regression of r in the log: lower rate, higher cost */
	return hib ? (1 - exp(-r)) * 100 : (exp(r) - 1) * 100;
}

static void log_compare(struct comparison *c, double alpha, double thr,
			double level, bool hib, const struct var_prior *prior)
{
	double *la = cmp_logs(c->a), *lb = cmp_logs(c->b), tq, r, ub;
	double fa = metric_floor(c->a, true), fb = metric_floor(c->b, true);
	struct summary sa, sb;

	stat_summary(c->a->vals, c->a->nvals, true, 1 - alpha, &sa);
	stat_summary(c->b->vals, c->b->nvals, true, 1 - alpha, &sb);
	c->va = sa.mean;
	c->vb = sb.mean;
	c->pct = (c->vb / c->va - 1) * 100;
	c->abs = c->vb - c->va;
	c->limit = thr;
	stat_welch_prior(la, c->a->nvals, lb, c->b->nvals, fa, fb, alpha,
			 prior, &c->w);
	free(la);
	free(lb);
	if (!c->w.valid)
		return;
	c->valid = true;
	c->pct = pct_of(c->w.diff);
	c->ci_pct_lo = pct_of(c->w.ci_lo);
	c->ci_pct_hi = pct_of(c->w.ci_hi);
	r = hib ? -c->w.diff : c->w.diff;
	c->p_worse = hib ? c->w.p_less : c->w.p_greater;
	c->p_better = hib ? c->w.p_greater : c->w.p_less;
	tq = gsl_cdf_tdist_Pinv(1 - alpha, c->w.df);
	ub = r + tq * c->w.se;
	c->reg = worse_pct(r, hib);
	c->ub = worse_pct(ub, hib);
	if (!isnan(level))
		c->mde_pct = worse_pct(stat_mde(c->w.se, c->w.df, level,
						MDE_POWER), hib);
}

/*
 * Linear scale: counters (quantum 1) and metrics with a zero somewhere.
 * The threshold is relative to the reference mean, but never below one
 * quantum, so a counter rising from 0 is judged by how far it rose.
 */
static void lin_compare(struct comparison *c, double alpha, double thr,
			double level, bool hib)
{
	double fa = metric_floor(c->a, false), fb = metric_floor(c->b, false);
	double q = c->a->def->kind == METRIC_COUNTER ? 1 : 0, base, tq, r;
	struct summary sa, sb;

	stat_summary(c->a->vals, c->a->nvals, false, 1 - alpha, &sa);
	stat_summary(c->b->vals, c->b->nvals, false, 1 - alpha, &sb);
	c->va = sa.mean;
	c->vb = sb.mean;
	base = fabs(c->va);
	c->abs = c->vb - c->va;
	c->pct = base > 0 ? c->abs / base * 100 : c->abs == 0 ? 0 : NAN;
	c->limit = fmax(thr / 100 * base, q);
	stat_welch_floor(c->a->vals, c->a->nvals, c->b->vals, c->b->nvals,
			 fa, fb, alpha, &c->w);
	if (!c->w.valid)
		return;
	c->valid = true;
	if (base > 0) {
		c->ci_pct_lo = c->w.ci_lo / base * 100;
		c->ci_pct_hi = c->w.ci_hi / base * 100;
		if (!isnan(level))
			c->mde_pct = stat_mde(c->w.se, c->w.df, level,
					      MDE_POWER) / base * 100;
	}
	r = hib ? -c->abs : c->abs;
	c->p_worse = hib ? c->w.p_less : c->w.p_greater;
	c->p_better = hib ? c->w.p_greater : c->w.p_less;
	tq = gsl_cdf_tdist_Pinv(1 - alpha, c->w.df);
	c->reg = r;
	c->ub = r + tq * c->w.se;
}

/*
 * alpha: the two-sided CI is 1 - alpha, the one-sided upper bound of the
 * regression 1 - alpha; thr_pct: the threshold; level: the one-sided
 * level the decision uses, for the MDE; prior: the variance prior of
 * the metric's log (NULL: each side's own variance).
 */
void cmp_compute(struct comparison *c, const struct cell_metric *a,
		 const struct cell_metric *b, double alpha, double thr_pct,
		 double level, const struct var_prior *prior)
{
	bool hib = a->def->higher_is_better;

	memset(c, 0, sizeof(*c));
	c->a = a;
	c->b = b;
	c->pct = c->ci_pct_lo = c->ci_pct_hi = c->mde_pct = NAN;
	c->reg = c->ub = c->lb = c->p_worse = c->p_better = NAN;
	c->logscale = a->def->kind != METRIC_COUNTER && !a->def->linear &&
		      !b->def->linear && all_positive(a) && all_positive(b);
	if (c->logscale)
		log_compare(c, alpha, thr_pct, level, hib, prior);
	else
		lin_compare(c, alpha, thr_pct, level, hib);
	c->worse = hib ? c->vb < c->va : c->vb > c->va;
	if (!c->valid)
		return;
	c->past = c->reg > c->limit;
	c->within = c->ub < c->limit;
}

/*
 * The one-sided 1 - alpha upper bound of the regression, and whether it
 * is below the limit; cmp_compute uses its own alpha, the sequential gate
 * the alpha it spends at the look.
 */
void cmp_bound(struct comparison *c, double alpha)
{
	bool hib = c->a->def->higher_is_better;
	double r, tq;

	if (!c->valid)
		return;
	r = hib ? -c->w.diff : c->w.diff;
	tq = c->w.se > 0 ? gsl_cdf_tdist_Pinv(1 - alpha, c->w.df) : 0;
	c->ub = r + tq * c->w.se;
	if (c->logscale)
		c->ub = worse_pct(c->ub, hib);
	c->within = c->ub < c->limit;
}

/*
 * The one-sided lower bound of the regression at @level, and whether it
 * lies past the limit: the test of "worse by more than the threshold",
 * not of "worse", so a real change the threshold allows never FAILs.
 */
void cmp_lower(struct comparison *c, double level)
{
	bool hib = c->a->def->higher_is_better;
	double r, tq;

	if (!c->valid)
		return;
	r = hib ? -c->w.diff : c->w.diff;
	tq = c->w.se > 0 ? gsl_cdf_tdist_Pinv(1 - level, c->w.df) : 0;
	c->lb = r - tq * c->w.se;
	if (c->logscale)
		c->lb = worse_pct(c->lb, hib);
	c->beyond = c->lb > c->limit;
}
