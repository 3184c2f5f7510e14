// SPDX-License-Identifier: GPL-2.0
/*
 * Moderated variances (Smyth 2004, "Linear models and empirical Bayes
 * methods for assessing differential expression", the method behind
 * limma's moderated t): when many metrics are each measured on only a
 * few boots, their sample variances are fitted to a scaled inverse
 * chi-square prior (s0^2 with d0 degrees of freedom), and each metric's
 * variance is shrunk towards it:
 *
 *     s~^2 = (d0 s0^2 + d s^2) / (d0 + d),  with d0 + d degrees of freedom.
 *
 * When the metrics share one variance (cost mode: every point counts the
 * same kind of noise, a few instructions per boot), d0 grows and three
 * boots a side test with the pool's degrees of freedom instead of four;
 * when they do not, d0 is small and each metric keeps its own variance.
 * The moderated degrees of freedom never exceed the pool's total, so the
 * test never claims more information than the run holds.
 */
#include <math.h>
#include <stdlib.h>
#include <gsl/gsl_sf_psi.h>

#include "base/base.h"

/* The inverse of the trigamma function, by Newton's method (limma's). */
static double trigamma_inverse(double x)
{
	double y;
	int i;

	if (x > 1e7)
		return 1 / sqrt(x);
	if (x < 1e-6)
		return 1 / x;
	y = 0.5 + 1 / x;
	for (i = 0; i < 50; i++) {
		double tri = gsl_sf_psi_1(y);
		double dif = tri * (1 - tri / x) / gsl_sf_psi_n(2, y);

		y += dif;
		if (-dif / y < 1e-8)
			break;
	}
	return y;
}

/**
 * stat_var_prior - fit the prior of a set of sample variances
 * @s2: the sample variances, @df: their degrees of freedom, @n: how many
 * @p: the prior; p->d0 is INFINITY when the variances spread no more
 *     than sampling alone makes them
 *
 * Variances of zero carry no information about the scale and are left
 * out. Return: 0, or -1 (p->d0 = 0: no moderation) when fewer than three
 * variances remain.
 */
int stat_var_prior(const double *s2, const double *df, int n,
		   struct var_prior *p)
{
	double *e = xcalloc(n ? n : 1, sizeof(*e));
	double esum = 0, ess = 0, tri = 0, emean, evar;
	int i, k = 0;

	p->d0 = 0;
	p->s02 = NAN;
	p->dfmax = 0;
	/* log s^2 less its bias under chi-square sampling: E = log sigma^2 */
	for (i = 0; i < n; i++) {
		if (!(s2[i] > 0) || !(df[i] > 0))
			continue;
		e[k] = log(s2[i]) - gsl_sf_psi(df[i] / 2) + log(df[i] / 2);
		esum += e[k++];
		tri += gsl_sf_psi_1(df[i] / 2);
		p->dfmax += df[i];
	}
	if (k < 3) {
		free(e);
		p->dfmax = 0;
		return -1;
	}
	emean = esum / k;
	for (i = 0; i < k; i++)
		ess += (e[i] - emean) * (e[i] - emean);
	free(e);
	/* what the spread has beyond sampling's own is the prior's */
	evar = ess / (k - 1) - tri / k;
	if (evar > 0) {
		p->d0 = 2 * trigamma_inverse(evar);
		p->s02 = exp(emean + gsl_sf_psi(p->d0 / 2) - log(p->d0 / 2));
	} else {
		p->d0 = INFINITY;
		p->s02 = exp(emean);
	}
	return 0;
}

/**
 * stat_var_moderate - one metric's variance shrunk towards the prior
 * @p: the prior (NULL or d0 = 0: none), @s2: the sample variance,
 * @df: its degrees of freedom, updated to the moderated ones
 *
 * Return: the moderated variance.
 */
double stat_var_moderate(const struct var_prior *p, double s2, double *df)
{
	double v;

	if (!p || !(p->d0 > 0))
		return s2;
	if (isinf(p->d0))
		v = p->s02;
	else
		v = (p->d0 * p->s02 + *df * s2) / (p->d0 + *df);
	*df = fmin(p->d0 + *df, p->dfmax);
	return v;
}
