// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of rlstat's statistics and of the regression gate itself,
 * printing TAP. Reference values come from published worked examples,
 * cited at each test; the gate's error rates are checked by simulation
 * with a fixed seed, against tolerances from the binomial distribution.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>

#include "rlstat.h"

static int ntest, nfail;

static void ok(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	nfail += !cond;
}

static bool near(double x, double want, double tol)
{
	return fabs(x - want) <= tol;
}

/* Rescale x in place to exactly the given sample mean and sd. */
static void shape(double *x, int n, double mean, double sd)
{
	double m = gsl_stats_mean(x, 1, n), s = gsl_stats_sd(x, 1, n);
	int i;

	for (i = 0; i < n; i++)
		x[i] = mean + (x[i] - m) / s * sd;
}

static void test_descriptive(void)
{
	double h[] = { 1, 2, 4 };
	double d[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 };
	struct summary s;

	stat_summary(h, 3, true, 0.95, &s);
	ok(near(s.mean, 3 / 1.75, 1e-12), "harmonic mean of 1,2,4 is 12/7 "
	   "(%.9f)", s.mean);
	ok(near(s.amean, 7 / 3.0, 1e-12), "arithmetic mean of 1,2,4 is 7/3");
	ok(s.min == 1 && s.max == 4 && s.n == 3, "min, max, n");
	/* sample (n - 1) standard deviation: sqrt(32 / 7) */
	stat_summary(d, 8, false, 0.95, &s);
	ok(near(s.stddev, sqrt(32 / 7.0), 1e-12), "sample stddev %.6f",
	   s.stddev);
	ok(near(s.cv, sqrt(32 / 7.0) / 5, 1e-12), "CV is stddev / mean");
	ok(stat_median(odd, 3) == 2 && stat_median(even, 4) == 2.5,
	   "median of odd and even counts");
	stat_summary(h, 1, true, 0.95, &s);
	ok(s.n == 1 && isnan(s.ci_lo) && s.stddev == 0,
	   "one value: no CI, stddev 0");
	/* harmonic-mean CI: the t interval of 1/x, inverted */
	stat_summary(h, 3, true, 0.95, &s);
	{
		double r[] = { 1, 0.5, 0.25 };
		double mr = 1.75 / 3, sr = gsl_stats_sd(r, 1, 3);
		double half = gsl_cdf_tdist_Pinv(0.975, 2) * sr / sqrt(3);

		ok(near(s.ci_lo, 1 / (mr + half), 1e-12) &&
		   (isinf(s.ci_hi) || near(s.ci_hi, 1 / (mr - half), 1e-9)),
		   "harmonic mean CI from reciprocals [%.4f, %.4f]",
		   s.ci_lo, s.ci_hi);
	}
}

static void test_references(void)
{
	/*
	 * Student's sleep data (Cushny & Peebles 1905, "Student" 1908), as
	 * in R's example(t.test): Welch Two Sample t-test, extra by group:
	 * t = -1.8608, df = 17.776, p-value = 0.07939, 95 percent CI
	 * -3.3654832 0.2054832 (group 1 minus group 2).
	 */
	double g1[] = { 0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0 };
	double g2[] = { 1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4 };
	double x1[249], x2[79];
	struct summary s;
	struct welch w;
	double z[195];
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int i;

	stat_welch(g2, 10, g1, 10, 0.05, &w);
	ok(w.valid && near(w.t, -1.8608, 5e-5), "sleep data: t = %.4f "
	   "(R: -1.8608)", w.t);
	ok(near(w.df, 17.776, 5e-4), "sleep data: df = %.3f (R: 17.776)",
	   w.df);
	ok(near(w.p, 0.07939, 5e-6), "sleep data: p = %.5f (R: 0.07939)",
	   w.p);
	ok(near(w.ci_lo, -3.3654832, 1e-6) && near(w.ci_hi, 0.2054832, 1e-6),
	   "sleep data: 95%% CI of the difference [%.7f, %.7f]", w.ci_lo,
	   w.ci_hi);
	/*
	 * NIST/SEMATECH e-Handbook of Statistical Methods, 1.3.5.3
	 * (two-sample t-test, AUTO83B.DAT): N 249 and 79, means 20.14458
	 * and 30.48101, SDs 6.41470 and 6.10771; unequal variances give
	 * T = -12.94627 with 136.8750 degrees of freedom. The test needs
	 * only n, mean and sd, so any data with those moments reproduce it.
	 */
	for (i = 0; i < 249; i++)
		x1[i] = gsl_ran_gaussian(rng, 1);
	for (i = 0; i < 79; i++)
		x2[i] = gsl_ran_gaussian(rng, 1);
	shape(x1, 249, 20.14458, 6.41470);
	shape(x2, 79, 30.48101, 6.10771);
	stat_welch(x2, 79, x1, 249, 0.05, &w);
	ok(near(w.t, -12.94627, 5e-5) && near(w.df, 136.8750, 5e-4),
	   "NIST 1.3.5.3: T = %.5f, df = %.4f", w.t, w.df);
	/*
	 * NIST e-Handbook 1.3.5.2 (confidence limits for the mean,
	 * ZARR13.DAT): N = 195, mean 9.261460, sd 0.022789; 95% interval
	 * 9.258242 to 9.264679 (t = 1.972).
	 */
	for (i = 0; i < 195; i++)
		z[i] = gsl_ran_gaussian(rng, 1);
	shape(z, 195, 9.261460, 0.022789);
	stat_summary(z, 195, false, 0.95, &s);
	ok(near(s.ci_lo, 9.258242, 2e-6) && near(s.ci_hi, 9.264679, 2e-6),
	   "NIST 1.3.5.2: 95%% CI [%.6f, %.6f]", s.ci_lo, s.ci_hi);
	/* NIST e-Handbook 1.3.6.7.2, upper critical values of t */
	ok(near(gsl_cdf_tdist_Pinv(0.975, 10), 2.228, 5e-4) &&
	   near(gsl_cdf_tdist_Pinv(0.95, 5), 2.015, 5e-4),
	   "t table: t(.975,10) = 2.228, t(.95,5) = 2.015");
	gsl_rng_free(rng);
}

static void test_edges(void)
{
	double a[] = { 1, 2, 3 }, b[] = { 1, 2 }, c[] = { 5, 5, 5 };
	double d[] = { 5, 5, 5 }, e[] = { 6, 6, 6 };
	double p[] = { 0.01, 0.04, 0.03, 0.005 }, adj[4];
	double p2[] = { NAN, 0.001 };
	bool rej[4];
	struct welch w;
	double mde;

	ok(stat_welch(a, 3, b, 2, 0.05, &w) < 0 && !w.valid,
	   "Welch refuses fewer than 3 values on a side");
	stat_welch(c, 3, d, 3, 0.05, &w);
	ok(w.valid && w.p == 1, "no noise, no difference: p = 1");
	stat_welch(c, 3, e, 3, 0.05, &w);
	ok(w.valid && w.p == 0, "no noise, a difference: p = 0");
	/* Holm (1979): sorted .005 .01 .03 .04 vs .05/4 .05/3 .05/2 .05 */
	stat_holm(p, 4, 0.05, rej);
	ok(rej[0] && !rej[1] && !rej[2] && rej[3], "Holm rejects .005, .01 "
	   "and stops at .03");
	stat_holm_adjust(p, 4, adj);
	ok(near(adj[0], 0.03, 1e-12) && near(adj[1], 0.06, 1e-12) &&
	   near(adj[2], 0.06, 1e-12) && near(adj[3], 0.02, 1e-12),
	   "Holm-adjusted p: .03 .06 .06 .02");
	stat_holm_adjust(p2, 2, adj);
	ok(isnan(adj[0]) && adj[1] == 0.001, "untested metrics are not "
	   "counted in the family");
	mde = stat_mde(1.0, 8, 0.05, 0.8);
	ok(near(stat_power(mde, 1.0, 8, 0.05), 0.8, 0.01),
	   "power at the MDE is 80%% (%.3f)", stat_power(mde, 1.0, 8, 0.05));
}

/* One synthetic metric pair: throughput with multiplicative noise. */
struct sim {
	struct metric_def def;
	struct group_metric a, b;
	double va[64], vb[64];
};

static void sim_draw(struct sim *s, gsl_rng *rng, int n, double cv,
		     double effect, double cv_b)
{
	int i;

	s->def = (struct metric_def){ .name = "x.ops_per_s", .unit = "ops/s",
				      .higher_is_better = true,
				      .kind = MK_OPS };
	for (i = 0; i < n; i++) {
		s->va[i] = 1000 * (1 + gsl_ran_gaussian(rng, cv));
		s->vb[i] = 1000 * (1 + effect) *
			   (1 + gsl_ran_gaussian(rng, cv_b));
	}
	s->a = (struct group_metric){ .def = &s->def, .vals = s->va,
				      .nvals = n };
	s->b = (struct group_metric){ .def = &s->def, .vals = s->vb,
				      .nvals = n };
	stat_summary(s->va, n, true, 0.95, &s->a.s);
	stat_summary(s->vb, n, true, 0.95, &s->b.s);
	s->a.value = s->a.s.mean;
	s->b.value = s->b.s.mean;
}

/* Fraction of trials in which the gate fails a run of m metrics. */
static double gate_rate(gsl_rng *rng, int trials, int m, int n, double cv,
			double effect, bool holm)
{
	struct gate gt = { .alpha = 0.05, .threshold_pct = 2, .holm = holm };
	struct sim *s = xcalloc(m, sizeof(*s));
	struct cmp *c = xcalloc(m, sizeof(*c));
	double *padj = xcalloc(m, sizeof(double));
	bool *reg = xcalloc(m, sizeof(bool));
	int t, k, fails = 0;

	for (t = 0; t < trials; t++) {
		for (k = 0; k < m; k++) {
			/* the effect is planted in the first metric only */
			sim_draw(&s[k], rng, n, cv, k ? 0 : effect, cv);
			cmp_compute(&c[k], &s[k].a, &s[k].b, gt.alpha);
		}
		fails += gate_eval(&gt, c, m, padj, reg) > 0;
	}
	free(s);
	free(c);
	free(padj);
	free(reg);
	return (double)fails / trials;
}

/* Three binomial standard deviations at rate p over n trials. */
static double tol3(double p, int n)
{
	return 3 * sqrt(p * (1 - p) / n);
}

static void test_simulation(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	const int T = 20000;
	struct sim s;
	struct welch w;
	double rate, pred, se, mde;
	int t, rej;

	gsl_rng_set(rng, 20261203);
	/* A/A, equal noise: Welch rejects at rate alpha */
	for (t = rej = 0; t < T; t++) {
		sim_draw(&s, rng, 5, 0.03, 0, 0.03);
		stat_welch(s.va, 5, s.vb, 5, 0.05, &w);
		rej += w.p < 0.05;
	}
	rate = (double)rej / T;
	/* Welch is slightly conservative for small, equal samples */
	ok(rate <= 0.05 + tol3(0.05, T) && rate >= 0.035, "A/A, N=5: Welch "
	   "false-alarm rate %.4f in [0.035, 0.05 + %.4f]", rate,
	   tol3(0.05, T));
	/* A/A, unequal noise (1% vs 6%), where Student's test is wrong */
	for (t = rej = 0; t < T; t++) {
		sim_draw(&s, rng, 6, 0.01, 0, 0.06);
		stat_welch(s.va, 6, s.vb, 6, 0.05, &w);
		rej += w.p < 0.05;
	}
	rate = (double)rej / T;
	ok(rate <= 0.05 + tol3(0.05, T), "A/A, unequal variances: Welch "
	   "false-alarm rate %.4f <= 0.05 + %.4f", rate, tol3(0.05, T));
	/* the whole gate over a 24-metric matrix, many seeds */
	rate = gate_rate(rng, 4000, 24, 5, 0.03, 0, true);
	ok(rate <= 0.05 + tol3(0.05, 4000), "A/A, 24 metrics: gate "
	   "false-alarm rate %.4f <= alpha", rate);
	/* without the correction it would not be: the check can fail */
	rate = gate_rate(rng, 2000, 24, 5, 0.03, 0, false);
	ok(rate > 0.05 + tol3(0.05, 2000), "A/A, 24 metrics, uncorrected: "
	   "false-alarm rate %.4f > alpha (why the gate corrects)", rate);
	/*
	 * Planted 5% regression, noise CV 2.5%, N = 5: the MDE at this N
	 * and noise is about 5%, so the gate should catch it about as often
	 * as the power formula predicts (80% at the MDE).
	 */
	se = 0.025 * sqrt(2.0 / 5);
	mde = stat_mde(se, 8, 0.05, 0.8);
	pred = stat_power(0.05, se, 8, 0.05);
	rate = gate_rate(rng, 4000, 1, 5, 0.025, -0.05, true);
	ok(near(rate, pred, 0.05 + tol3(pred, 4000)), "planted -5%%, CV "
	   "2.5%%, N=5: detected %.3f, predicted %.3f (MDE %.2f%%)", rate,
	   pred, mde * 100);
	/* among 8 metrics Holm's first step works at alpha / 8 */
	pred = stat_power(0.05, se, 8, 0.05 / 8);
	rate = gate_rate(rng, 4000, 8, 5, 0.025, -0.05, true);
	ok(near(rate, pred, 0.05 + tol3(pred, 4000)), "planted -5%% among "
	   "8 metrics: detected %.3f, predicted %.3f", rate, pred);
	/* an improvement is never a regression */
	rate = gate_rate(rng, 2000, 1, 5, 0.025, 0.10, true);
	ok(rate <= tol3(0.01, 2000), "planted +10%% improvement: gate "
	   "fails %.4f of runs", rate);
	gsl_rng_free(rng);
}

int main(void)
{
	test_descriptive();
	test_references();
	test_edges();
	test_simulation();
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}
