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

#include "report/report.h"

#include "tap.h"

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
	ok(near(s.mean, 2, 1e-12) && s.logscale, "geometric mean of 1,2,4 "
	   "is 2 (%.9f)", s.mean);
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
	/* geometric-mean CI: the t interval of the mean log, mapped back */
	stat_summary(h, 3, true, 0.95, &s);
	{
		double half = gsl_cdf_tdist_Pinv(0.975, 2) * log(2) / sqrt(3);

		/* logs 0, ln 2, 2 ln 2: mean ln 2, sd ln 2 */
		ok(near(s.ci_lo, 2 * exp(-half), 1e-12) &&
		   near(s.ci_hi, 2 * exp(half), 1e-12),
		   "geometric mean CI from the logs [%.4f, %.4f]", s.ci_lo,
		   s.ci_hi);
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
	int i;
	struct welch w;

	ok(stat_welch(a, 3, b, 2, 0.05, &w) < 0 && !w.valid,
	   "Welch refuses fewer than 3 values on a side");
	stat_welch(c, 3, d, 3, 0.05, &w);
	ok(w.valid && w.p == 1, "no noise, no difference: p = 1");
	stat_welch(c, 3, e, 3, 0.05, &w);
	ok(w.valid && w.p == 0, "no noise, a difference: p = 0");
	/* Holm (1979): sorted .005 .01 .03 .04 vs .05/4 .05/3 .05/2 .05 */
	stat_holm_adjust(p, 4, adj);
	for (i = 0; i < 4; i++)
		rej[i] = adj[i] <= 0.05;
	ok(rej[0] && !rej[1] && !rej[2] && rej[3], "Holm rejects .005, .01 "
	   "and stops at .03");
	ok(near(adj[0], 0.03, 1e-12) && near(adj[1], 0.06, 1e-12) &&
	   near(adj[2], 0.06, 1e-12) && near(adj[3], 0.02, 1e-12),
	   "Holm-adjusted p: .03 .06 .06 .02");
	stat_holm_adjust(p2, 2, adj);
	ok(isnan(adj[0]) && adj[1] == 0.001, "untested metrics are not "
	   "counted in the family");
}

/*
 * Power and MDE of the one-sided test, checked against things that do
 * not use stat_power's formula: the central t (ncp 0), the normal limit,
 * a Monte Carlo draw of the noncentral t, and the rejection rate of the
 * pooled t-test itself at the MDE (exactly noncentral t distributed).
 */
static void test_power(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	const int T = 200000, S = 40000;
	double a[3], b[3], sd = 0.03, se, lvl = 0.05 / 17, mde, old, sp, t;
	int i, k, hit, hit_old;
	double tq;

	gsl_rng_set(rng, 42);
	ok(near(stat_nct_sf(1.5, 7, 0), gsl_cdf_tdist_Q(1.5, 7), 1e-12),
	   "noncentral t with ncp 0 is Student's t");
	ok(near(stat_nct_sf(2.0, 1e6, 1.0), gsl_cdf_ugaussian_Q(1.0), 1e-4),
	   "noncentral t, df -> inf: P(Z + 1 > 2) = %.5f",
	   stat_nct_sf(2.0, 1e6, 1.0));
	for (i = hit = 0; i < T; i++) {
		double z = gsl_ran_gaussian(rng, 1) + 2.5;
		double v = gsl_ran_chisq(rng, 4);

		hit += z / sqrt(v / 4) > 2.132;
	}
	ok(near(stat_nct_sf(2.132, 4, 2.5), (double)hit / T,
		3 * sqrt(0.25 / T)), "noncentral t (df 4, ncp 2.5) upper tail "
	   "%.4f, Monte Carlo %.4f", stat_nct_sf(2.132, 4, 2.5),
	   (double)hit / T);
	/* N = 3 a side, one-sided at the level of Holm's first step of 17 */
	se = sd * sqrt(2.0 / 3);
	mde = stat_mde(se, 4, lvl, 0.8);
	ok(near(stat_power(mde, se, 4, lvl), 0.8, 1e-6),
	   "stat_mde inverts stat_power");
	/* the previous formula: two-sided quantiles, normal approximation */
	old = (gsl_cdf_tdist_Pinv(1 - lvl / 2, 4) +
	       gsl_cdf_tdist_Pinv(0.8, 4)) * se;
	tq = gsl_cdf_tdist_Pinv(1 - lvl, 4);
	for (i = hit = hit_old = 0; i < S; i++) {
		for (k = 0; k < 2; k++) {
			double shift = k ? mde : old;

			a[0] = gsl_ran_gaussian(rng, sd);
			a[1] = gsl_ran_gaussian(rng, sd);
			a[2] = gsl_ran_gaussian(rng, sd);
			b[0] = shift + gsl_ran_gaussian(rng, sd);
			b[1] = shift + gsl_ran_gaussian(rng, sd);
			b[2] = shift + gsl_ran_gaussian(rng, sd);
			sp = sqrt((gsl_stats_variance(a, 1, 3) +
				   gsl_stats_variance(b, 1, 3)) / 2);
			t = (gsl_stats_mean(b, 1, 3) - gsl_stats_mean(a, 1, 3)) /
			    (sp * sqrt(2.0 / 3));
			if (k)
				hit += t > tq;
			else
				hit_old += t > tq;
		}
	}
	ok(near((double)hit / S, 0.8, 3 * sqrt(0.16 / S)), "N=3, level "
	   "%.4f: the test detects the MDE (%.2f%%) in %.4f of runs (0.8)",
	   lvl, mde * 100, (double)hit / S);
	ok(!near((double)hit_old / S, 0.8, 0.05), "the former MDE formula "
	   "(%.2f%%) gets %.3f, not 0.8, at the level the gate uses",
	   old * 100, (double)hit_old / S);
	gsl_rng_free(rng);
}

/* Quantised values: a floor on the variance, never p = 0. */
static void test_floor(void)
{
	double a[] = { 10047, 10047, 10047 }, b[] = { 10367, 10367, 10367 };
	double la[3], lb[3], q = 1.0 / 64;
	struct welch w;
	int i;

	for (i = 0; i < 3; i++) {
		la[i] = log(a[i]);
		lb[i] = log(b[i]);
	}
	stat_welch_floor(la, 3, lb, 3, q * q / 12, q * q / 12, 0.05, &w);
	ok(w.valid && w.p > 0 && w.ci_hi > w.ci_lo && isfinite(w.t),
	   "one bucket a side, two buckets apart: p = %.3g, CI [%.4f, %.4f]",
	   w.p, w.ci_lo, w.ci_hi);
	ok(near(w.se, sqrt(2 * q * q / 12 / 3), 1e-12), "the floor is the "
	   "rounding variance q^2/12 of each value");
}

/*
 * The variance prior (Smyth 2004) recovers what drew the variances: one
 * variance for all (d0 infinite or large, s0^2 the variance), or
 * variances themselves drawn from a scaled inverse chi-square with d0 = 4;
 * a moderated variance lies between its own and the prior's, with df
 * capped at the pool's.
 */
static void test_prior(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	enum { N = 4000 };
	static double s2[N], df[N];
	struct var_prior p;
	double v, d;
	int i;

	gsl_rng_set(rng, 7);
	for (i = 0; i < N; i++) {
		df[i] = 2;
		s2[i] = 3.0 * gsl_ran_chisq(rng, 2) / 2;
	}
	stat_var_prior(s2, df, N, &p);
	ok(near(p.s02, 3.0, 0.2) && p.d0 > 100 && p.dfmax == 2 * N,
	   "one variance for all: s0^2 %.3f (3), d0 %g (large or inf)",
	   p.s02, p.d0);
	for (i = 0; i < N; i++) {
		double sigma2 = 4 * 3.0 / gsl_ran_chisq(rng, 4);

		s2[i] = sigma2 * gsl_ran_chisq(rng, 2) / 2;
	}
	stat_var_prior(s2, df, N, &p);
	ok(p.d0 > 3 && p.d0 < 5.5 && near(p.s02, 3.0, 0.3),
	   "variances drawn from s0^2 3, d0 4: s0^2 %.3f, d0 %.2f",
	   p.s02, p.d0);
	d = 2;
	v = stat_var_moderate(&p, 30, &d);
	ok(v > p.s02 && v < 30 && near(d, p.d0 + 2, 1e-12),
	   "a variance 10x the prior's is moderated to %.2f, df %.2f", v, d);
	p.d0 = INFINITY;
	p.dfmax = 12;
	d = 2;
	v = stat_var_moderate(&p, 30, &d);
	ok(v == p.s02 && d == 12, "d0 infinite: the prior's variance, df "
	   "capped at the pool's (%g)", d);
	ok(stat_var_prior(s2, df, 2, &p) < 0 && p.d0 == 0 &&
	   stat_var_moderate(&p, 30, &d) == 30,
	   "two variances: no prior, each keeps its own");
	gsl_rng_free(rng);
}

int main(void)
{
	test_descriptive();
	test_references();
	test_edges();
	test_power();
	test_floor();
	test_prior();
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}
