// SPDX-License-Identifier: GPL-2.0
/*
 * Descriptive statistics (geometric means on the log scale), Welch's
 * t-test with a variance floor, power and minimum detectable effect from
 * the noncentral t, and Holm's step-down correction. Distributions come
 * from GSL.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "base/base.h"

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
 * Rates and latencies are summarised on the log scale: the centre is the
 * geometric mean of the per-boot values and its interval the t interval
 * of the mean log, mapped back. Effects on them are multiplicative (a lock
 * that costs 5% costs 5% at any speed), the log makes the per-boot spread
 * about the same size at every level, and the ratio of two geometric means
 * is what the gate tests and prints. A value <= 0 has no logarithm: such a
 * sample is summarised on the linear scale (s->logscale false) and says so.
 */
int stat_summary(const double *x, int n, bool logscale, double conf,
		 struct summary *s)
{
	double *l, ml, sl, half;
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
		if (!(x[i] > 0) || !isfinite(x[i]))
			logscale = false;
	s->amean = gsl_stats_mean(x, 1, n);
	s->stddev = n >= 2 ? gsl_stats_sd_m(x, 1, n, s->amean) : 0;
	s->cv = s->amean != 0 ? s->stddev / fabs(s->amean) : 0;
	gsl_stats_minmax(&s->min, &s->max, x, 1, n);
	s->median = stat_median(x, n);
	s->logscale = logscale;
	if (!logscale) {
		s->mean = s->amean;
		if (n >= 2) {
			half = tquant(1 - (1 - conf) / 2, n - 1) * s->stddev /
			       sqrt(n);
			s->ci_lo = s->mean - half;
			s->ci_hi = s->mean + half;
		}
		return 0;
	}
	l = xcalloc(n, sizeof(*l));
	for (i = 0; i < n; i++)
		l[i] = log(x[i]);
	ml = gsl_stats_mean(l, 1, n);
	s->mean = exp(ml);
	if (n >= 2) {
		sl = gsl_stats_sd_m(l, 1, n, ml);
		half = tquant(1 - (1 - conf) / 2, n - 1) * sl / sqrt(n);
		s->ci_lo = exp(ml - half);
		s->ci_hi = exp(ml + half);
	}
	free(l);
	return 0;
}

/*
 * Welch's unequal-variance t-test of b - a. Each side's variance is at
 * least its floor: values that are quantised (histogram buckets, integer
 * counts) carry at least the uniform quantisation variance q^2 / 12 even
 * when every iteration lands on the same step, so identical values never
 * make a difference "certain". With zero floors and zero variance the
 * test degenerates (p 0 or 1), as the arithmetic says.
 */
int stat_welch_floor(const double *a, int na, const double *b, int nb,
		     double floor_a, double floor_b, double alpha,
		     struct welch *w)
{
	return stat_welch_prior(a, na, b, nb, floor_a, floor_b, alpha, NULL,
				w);
}

/*
 * The same with each side's sample variance moderated by @prior (NULL:
 * none, see prior.c) before its floor applies; the Welch-Satterthwaite
 * degrees of freedom then use each side's moderated ones. With a prior
 * two values a side test (cost mode's two boots): the prior carries the
 * degrees of freedom one difference lacks, and without moderation
 * (d0 = 0) the test keeps its own single one, and says so in its width.
 */
int stat_welch_prior(const double *a, int na, const double *b, int nb,
		     double floor_a, double floor_b, double alpha,
		     const struct var_prior *prior, struct welch *w)
{
	double ma, mb, va, vb, qa, qb, tq, da = na - 1, db = nb - 1;

	memset(w, 0, sizeof(*w));
	w->p = w->p_less = w->p_greater = NAN;
	if (na < (prior ? 2 : 3) || nb < (prior ? 2 : 3))
		return -1;
	ma = gsl_stats_mean(a, 1, na);
	mb = gsl_stats_mean(b, 1, nb);
	va = stat_var_moderate(prior, gsl_stats_variance_m(a, 1, na, ma), &da);
	vb = stat_var_moderate(prior, gsl_stats_variance_m(b, 1, nb, mb), &db);
	va = fmax(va, floor_a);
	vb = fmax(vb, floor_b);
	qa = va / na;
	qb = vb / nb;
	w->valid = true;
	w->diff = mb - ma;
	w->se = sqrt(qa + qb);
	if (w->se == 0) {
		w->df = na + nb - 2;
		w->t = w->diff == 0 ? 0 : copysign(INFINITY, w->diff);
		w->p = w->diff == 0 ? 1 : 0;
		w->p_greater = w->diff > 0 ? 0 : 1;
		w->p_less = w->diff < 0 ? 0 : 1;
		w->ci_lo = w->ci_hi = w->diff;
		return 0;
	}
	w->df = (qa + qb) * (qa + qb) / (qa * qa / da + qb * qb / db);
	w->t = w->diff / w->se;
	w->p = 2 * gsl_cdf_tdist_Q(fabs(w->t), w->df);
	if (w->p > 1)
		w->p = 1;
	w->p_greater = gsl_cdf_tdist_Q(w->t, w->df);
	w->p_less = gsl_cdf_tdist_P(w->t, w->df);
	tq = tquant(1 - alpha / 2, w->df);
	w->ci_lo = w->diff - tq * w->se;
	w->ci_hi = w->diff + tq * w->se;
	return 0;
}

int stat_welch(const double *a, int na, const double *b, int nb,
	       double alpha, struct welch *w)
{
	return stat_welch_floor(a, na, b, nb, 0, 0, alpha, w);
}

struct nct {
	double t, df, ncp;
};

/* integrand: P(Z <= t sqrt(u / df) - ncp) times the chi-square density */
static double nct_integrand(double u, void *p)
{
	const struct nct *q = p;

	return gsl_cdf_ugaussian_P(q->t * sqrt(u / q->df) - q->ncp) *
	       gsl_ran_chisq_pdf(u, q->df);
}

/*
 * Upper tail of the noncentral t distribution, P(T > t) for T = (Z + ncp)
 * / sqrt(V / df), V chi-square with df degrees of freedom: conditional on
 * V the event is Gaussian, so integrate over the chi-square density.
 */
double stat_nct_sf(double t, double df, double ncp)
{
	gsl_integration_workspace *ws = gsl_integration_workspace_alloc(256);
	gsl_error_handler_t *eh = gsl_set_error_handler_off();
	struct nct q = { t, df, ncp };
	gsl_function f = { nct_integrand, &q };
	double lo = df - 12 * sqrt(2 * df), hi = df + 12 * sqrt(2 * df) + 50;
	double r = NAN, err = INFINITY;
	int rc;

	/* with many df the density is a narrow spike: integrate around it */
	if (ncp == 0) {
		r = gsl_cdf_tdist_Q(t, df);
	} else {
		rc = df > 50 ? gsl_integration_qags(&f, lo > 0 ? lo : 0, hi, 0,
						    1e-10, 256, ws, &r, &err) :
			       gsl_integration_qagiu(&f, 0, 0, 1e-10, 256, ws,
						     &r, &err);
		/* not converged: the normal approximation (Johnson & Kotz) */
		if (rc && !(err < 1e-6))
			r = 1 - gsl_cdf_ugaussian_Q((t * (1 - 1 / (4 * df)) -
				ncp) / sqrt(1 + t * t / (2 * df)));
		r = 1 - r;
	}
	gsl_set_error_handler(eh);
	gsl_integration_workspace_free(ws);
	return r < 0 ? 0 : r > 1 ? 1 : r;
}

/*
 * Power of the one-sided t test at level `level` against a true shift of
 * `effect` in the tested direction, standard error se, df degrees of
 * freedom: the noncentral t with ncp = effect / se past the critical t.
 */
double stat_power(double effect, double se, double df, double level)
{
	return stat_nct_sf(tquant(1 - level, df), df, effect / se);
}

/* The effect stat_power detects with the given power (bisection). */
double stat_mde(double se, double df, double level, double power)
{
	double lo = 0, hi = se, mid;
	int i;

	if (!(se > 0) || !(df > 0))
		return se == 0 ? 0 : NAN;
	while (stat_power(hi, se, df, level) < power && hi < 1e6 * se)
		hi *= 2;
	for (i = 0; i < 60; i++) {
		mid = (lo + hi) / 2;
		if (stat_power(mid, se, df, level) < power)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
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
 * Holm's step-down procedure as adjusted p-values (NaN stays NaN: no test,
 * never rejected): rejecting where padj <= alpha controls the family-wise
 * error rate at alpha over the tests made.
 */
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
