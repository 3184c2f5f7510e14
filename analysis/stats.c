// SPDX-License-Identifier: GPL-2.0
/*
 * Descriptive statistics, Welch's t-test, minimum detectable effect and
 * Holm's step-down correction. Distributions come from GSL.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "rlstat.h"

double stat_median(const double *x, int n)
{
	double *c;
	double m;

	if (n <= 0)
		return NAN;
	c = xcalloc(n, sizeof(*c));
	memcpy(c, x, n * sizeof(*c));
	gsl_sort(c, 1, n);
	m = gsl_stats_median_from_sorted_data(c, 1, n);
	free(c);
	return m;
}

static double tquant(double q, double df)
{
	return gsl_cdf_tdist_Pinv(q, df);
}

/*
 * The harmonic mean is the right average for rates measured over equal
 * amounts of work; its confidence interval is the t interval of the mean
 * of the reciprocals, mapped back (1/x is monotone, so coverage holds).
 */
static void rate_mean(const double *x, int n, double conf, struct summary *s)
{
	double *r = xcalloc(n, sizeof(*r));
	double mr, sr, half;
	int i;

	for (i = 0; i < n; i++)
		r[i] = 1.0 / x[i];
	mr = gsl_stats_mean(r, 1, n);
	s->mean = 1.0 / mr;
	if (n >= 2) {
		sr = gsl_stats_sd_m(r, 1, n, mr);
		half = tquant(1 - (1 - conf) / 2, n - 1) * sr / sqrt(n);
		s->ci_lo = 1.0 / (mr + half);
		s->ci_hi = mr - half > 0 ? 1.0 / (mr - half) : INFINITY;
	}
	free(r);
}

int stat_summary(const double *x, int n, bool rate, double conf,
		 struct summary *s)
{
	bool positive = true;
	double half;
	int i;

	memset(s, 0, sizeof(*s));
	s->n = n;
	s->ci_lo = s->ci_hi = NAN;
	if (n <= 0) {
		s->mean = s->amean = s->median = s->stddev = s->cv = NAN;
		s->min = s->max = NAN;
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!(x[i] > 0))
			positive = false;
	s->amean = gsl_stats_mean(x, 1, n);
	s->stddev = n >= 2 ? gsl_stats_sd_m(x, 1, n, s->amean) : 0;
	s->cv = s->amean != 0 ? s->stddev / fabs(s->amean) : 0;
	gsl_stats_minmax(&s->min, &s->max, x, 1, n);
	s->median = stat_median(x, n);
	if (rate && positive) {
		rate_mean(x, n, conf, s);
		return 0;
	}
	s->mean = s->amean;
	if (n >= 2) {
		half = tquant(1 - (1 - conf) / 2, n - 1) * s->stddev / sqrt(n);
		s->ci_lo = s->mean - half;
		s->ci_hi = s->mean + half;
	}
	return 0;
}

/* Welch's unequal-variance t-test, two-sided; b - a. */
int stat_welch(const double *a, int na, const double *b, int nb,
	       double alpha, struct welch *w)
{
	double ma, mb, va, vb, qa, qb, tq;

	memset(w, 0, sizeof(*w));
	w->p = NAN;
	if (na < 3 || nb < 3)
		return -1;
	ma = gsl_stats_mean(a, 1, na);
	mb = gsl_stats_mean(b, 1, nb);
	va = gsl_stats_variance_m(a, 1, na, ma);
	vb = gsl_stats_variance_m(b, 1, nb, mb);
	qa = va / na;
	qb = vb / nb;
	w->valid = true;
	w->diff = mb - ma;
	w->se = sqrt(qa + qb);
	if (w->se == 0) {
		/* No noise at all: any difference is certain. */
		w->df = na + nb - 2;
		w->t = w->diff == 0 ? 0 : copysign(INFINITY, w->diff);
		w->p = w->diff == 0 ? 1 : 0;
		w->ci_lo = w->ci_hi = w->diff;
		return 0;
	}
	w->df = (qa + qb) * (qa + qb) /
		(qa * qa / (na - 1) + qb * qb / (nb - 1));
	w->t = w->diff / w->se;
	w->p = 2 * gsl_cdf_tdist_Q(fabs(w->t), w->df);
	if (w->p > 1)
		w->p = 1;
	tq = tquant(1 - alpha / 2, w->df);
	w->ci_lo = w->diff - tq * w->se;
	w->ci_hi = w->diff + tq * w->se;
	return 0;
}

/*
 * Smallest true difference the two-sided test at alpha detects with the
 * given power, for standard error se and df degrees of freedom
 * (normal-approximation formula with t quantiles).
 */
double stat_mde(double se, double df, double alpha, double power)
{
	return (tquant(1 - alpha / 2, df) + tquant(power, df)) * se;
}

/* Approximate power of the same test against a true difference effect. */
double stat_power(double effect, double se, double df, double alpha)
{
	double tc = tquant(1 - alpha / 2, df);
	double d = fabs(effect) / se;

	return gsl_cdf_tdist_Q(tc - d, df) + gsl_cdf_tdist_P(-tc - d, df);
}

struct pidx {
	double p;
	int i;
};

static int pidx_cmp(const void *x, const void *y)
{
	const struct pidx *a = x, *b = y;

	return a->p < b->p ? -1 : a->p > b->p ? 1 : a->i - b->i;
}

/*
 * Holm's step-down procedure: controls the family-wise error rate at
 * alpha over m tests; NaN p-values (no test) are never rejected.
 */
void stat_holm(const double *p, int m, double alpha, bool *reject)
{
	struct pidx *v = xcalloc(m > 0 ? m : 1, sizeof(*v));
	int i, k = 0;

	for (i = 0; i < m; i++) {
		reject[i] = false;
		if (!isnan(p[i])) {
			v[k].p = p[i];
			v[k].i = i;
			k++;
		}
	}
	qsort(v, k, sizeof(*v), pidx_cmp);
	for (i = 0; i < k; i++) {
		if (v[i].p > alpha / (k - i))
			break;
		reject[v[i].i] = true;
	}
	free(v);
}

/* Holm-adjusted p-values (NaN stays NaN): reject where padj <= alpha. */
void stat_holm_adjust(const double *p, int m, double *padj)
{
	struct pidx *v = xcalloc(m > 0 ? m : 1, sizeof(*v));
	double run = 0, q;
	int i, k = 0;

	for (i = 0; i < m; i++) {
		padj[i] = NAN;
		if (!isnan(p[i])) {
			v[k].p = p[i];
			v[k].i = i;
			k++;
		}
	}
	qsort(v, k, sizeof(*v), pidx_cmp);
	for (i = 0; i < k; i++) {
		q = (k - i) * v[i].p;
		if (q > 1)
			q = 1;
		if (q > run)
			run = q;
		padj[v[i].i] = run;
	}
	free(v);
}
