// SPDX-License-Identifier: GPL-2.0
/*
 * E-Divisive means (Matteson and James, "A Nonparametric Approach for
 * Multiple Change Point Analysis of Multivariate Data", JASA 2014), as
 * MongoDB's and Apache Otava's performance CI use it on nightly series:
 *
 * - the divergence of a split of x[s..e) at t is the energy statistic
 *   with exponent 1, Q = |A||B|/(|A|+|B|) * (2 mean|a - b| - mean|a - a'|
 *   - mean|b - b'|), A = x[s..t), B = x[t..e);
 * - hierarchical: of all current segments, the split with the largest Q
 *   is tested by permutation (the segment's values shuffled, the largest
 *   Q recomputed, p = (k + 1) / (perms + 1) with k the permutations that
 *   reach it) and accepted when p <= sig; the first rejection stops.
 *
 * The statistic looks at the shape of the whole series rather than at one
 * night against the one before, so a drift of 1% a night, which no
 * night-to-night comparison sees, splits the series, while a one-night
 * outlier does not: the divergence of a split with the outlier on one side
 * and normal values with it is about zero (its distance to the other side
 * is matched by its distance within its own), and a change needs
 * min_size nights on each side. The permutations come from a fixed seed,
 * so the same series always gives the same answer.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "history/history.h"

void cp_defaults(struct cp_opts *o)
{
	o->sig = 0.05;
	o->perms = 999;
	o->min_size = 2;
	o->min_change = 1;
	o->seed = 12345;
}

/*
 * The best split of y[0..m) (t in [k, m - k]): returns its Q and sets *at.
 * O(m^2) with running sums of the distances within the prefix and suffix.
 */
static double best_split(const double *y, int m, int k, int *at,
			 double *before, double *after)
{
	double total = 0, wl = 0, wr, best = -1;
	int i, t;

	/* before[t] = sum_{i<t} |y_i - y_t|, after[t] = sum_{j>t} |y_t - y_j| */
	for (t = 0; t < m; t++) {
		before[t] = after[t] = 0;
		for (i = 0; i < t; i++)
			before[t] += fabs(y[i] - y[t]);
	}
	for (t = 0; t < m; t++)
		for (i = t + 1; i < m; i++)
			after[t] += fabs(y[t] - y[i]);
	for (t = 0; t < m; t++)
		total += after[t];
	wr = total;
	*at = -1;
	for (t = 0; t < m; t++) {
		double nl = t, nr = m - t, btw, e, q;

		if (t >= k && m - t >= k) {
			btw = total - wl - wr;
			e = 2 * btw / (nl * nr) -
			    (nl > 1 ? wl / (nl * (nl - 1) / 2) : 0) -
			    (nr > 1 ? wr / (nr * (nr - 1) / 2) : 0);
			q = nl * nr / m * e;
			if (q > best) {
				best = q;
				*at = t;
			}
		}
		/* move y[t] from the suffix to the prefix */
		wl += before[t];
		wr -= after[t];
	}
	return best;
}

struct seg {
	int s, e;		/* [s, e) */
	int at;			/* its best split, absolute; -1: none */
	double q;
	bool done;		/* tested and rejected, or too short */
};

static void seg_eval(struct seg *g, const double *x, int k, double *b1,
		     double *b2)
{
	int at;

	g->at = -1;
	g->q = -1;
	if (g->e - g->s < 2 * k) {
		g->done = true;
		return;
	}
	g->q = best_split(x + g->s, g->e - g->s, k, &at, b1, b2);
	g->at = at < 0 ? -1 : g->s + at;
	g->done = at < 0;
}

static double perm_p(const double *x, const struct seg *g, int k, int perms,
		     gsl_rng *rng, double *tmp, double *b1, double *b2)
{
	int m = g->e - g->s, r, cnt = 0, at;

	memcpy(tmp, x + g->s, m * sizeof(*tmp));
	for (r = 0; r < perms; r++) {
		gsl_ran_shuffle(rng, tmp, m, sizeof(*tmp));
		/* ties count: a permutation as good as the data is as good */
		if (best_split(tmp, m, k, &at, b1, b2) >= g->q * (1 - 1e-9))
			cnt++;
	}
	return (cnt + 1.0) / (perms + 1.0);
}

static int cmp_cp(const void *a, const void *b)
{
	return ((const struct cpoint *)a)->at - ((const struct cpoint *)b)->at;
}

int cp_edivisive(const double *x, int n, const struct cp_opts *o,
		 struct cpoint *out, int max)
{
	struct seg *sg;
	double *tmp, *b1, *b2;
	gsl_rng *rng;
	int nseg = 1, ncp = 0, i, bi;

	if (n < 2 * o->min_size || max < 1)
		return 0;
	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return 0;
	sg = xcalloc(n + 1, sizeof(*sg));
	tmp = xcalloc(n, sizeof(*tmp));
	b1 = xcalloc(n, sizeof(*b1));
	b2 = xcalloc(n, sizeof(*b2));
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, o->seed);
	sg[0].s = 0;
	sg[0].e = n;
	seg_eval(&sg[0], x, o->min_size, b1, b2);
	while (ncp < max) {
		double p;

		bi = -1;
		for (i = 0; i < nseg; i++)
			if (!sg[i].done && (bi < 0 || sg[i].q > sg[bi].q))
				bi = i;
		/* nothing to split, or every split is flat */
		if (bi < 0 || !(sg[bi].q > 0))
			break;
		p = perm_p(x, &sg[bi], o->min_size, o->perms, rng, tmp, b1,
			   b2);
		if (p > o->sig)
			break;
		out[ncp].at = sg[bi].at;
		out[ncp].p = p;
		ncp++;
		sg[nseg].s = sg[bi].at;
		sg[nseg].e = sg[bi].e;
		sg[bi].e = sg[bi].at;
		seg_eval(&sg[bi], x, o->min_size, b1, b2);
		seg_eval(&sg[nseg], x, o->min_size, b1, b2);
		nseg++;
	}
	qsort(out, ncp, sizeof(*out), cmp_cp);
	/* the means either side: from the previous change to the next one */
	for (i = 0; i < ncp; i++) {
		int s = i ? out[i - 1].at : 0, e = i + 1 < ncp ?
			out[i + 1].at : n, j;
		double a = 0, b = 0;

		for (j = s; j < out[i].at; j++)
			a += x[j];
		for (j = out[i].at; j < e; j++)
			b += x[j];
		out[i].before = a / (out[i].at - s);
		out[i].after = b / (e - out[i].at);
	}
	gsl_rng_free(rng);
	free(sg);
	free(tmp);
	free(b1);
	free(b2);
	return ncp;
}
