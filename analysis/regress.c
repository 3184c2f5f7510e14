// SPDX-License-Identifier: GPL-2.0
/*
 * The regression gate: run B (candidate) against run A (baseline), the
 * same variant and point on both sides. A metric regresses when it moved
 * in its worse direction by more than the threshold and the change is
 * significant. Significance is Welch's test, Holm-corrected over all
 * metrics compared, so that a run with no real change fails the gate with
 * probability at most alpha however many metrics the matrix has.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlstat.h"

int gate_eval(const struct gate *gt, const struct cmp *c, int m,
	      double *padj, bool *reg)
{
	double *p = xcalloc(m, sizeof(*p));
	int i, n = 0;

	for (i = 0; i < m; i++)
		p[i] = c[i].w.valid ? c[i].w.p : NAN;
	if (gt->holm)
		stat_holm_adjust(p, m, padj);
	else
		memcpy(padj, p, m * sizeof(*p));
	for (i = 0; i < m; i++) {
		reg[i] = c[i].w.valid && padj[i] <= gt->alpha && c[i].worse &&
			 fabs(c[i].pct) > gt->threshold_pct;
		n += reg[i];
	}
	free(p);
	return n;
}

static double parse_threshold(const char *s)
{
	char *end;
	double t;

	errno = 0;
	t = strtod(s, &end);
	if (*end == '%')
		end++;
	if (errno || end == s || *end || !(t >= 0 && t < 100))
		die_input("--threshold %s: accepted is a percentage in [0, 100), "
			  "e.g. 2%%", s);
	return t;
}

/* Every (variant, point) must be on both sides, with the same metrics. */
static int check_matrix(const struct run *a, const struct run *b)
{
	int bad = 0, side, v, p, pb, vb, k;

	for (side = 0; side < 2; side++) {
		const struct run *x = side ? b : a, *y = side ? a : b;

		for (v = 0; v < x->nvariants; v++)
			for (p = 0; p < x->npoints; p++) {
				if (!run_group(x, p, v))
					continue;
				vb = run_variant_index(y, x->variants[v]);
				pb = run_point_index(y, x->points[p]->key);
				if (vb >= 0 && pb >= 0 && run_group(y, pb, vb))
					continue;
				printf("only in %s: %s %s: %s %s\n", x->dir,
				       x->variants[v], x->points[p]->label,
				       x->points[p]->workload,
				       x->points[p]->params_str);
				bad++;
			}
	}
	for (p = 0; p < a->npoints; p++) {
		const struct point *pa = a->points[p], *pbp;

		pb = run_point_index(b, pa->key);
		if (pb < 0)
			continue;
		pbp = b->points[pb];
		for (k = 0; k < pa->ndefs && k < pbp->ndefs; k++)
			if (strcmp(pa->defs[k].name, pbp->defs[k].name))
				break;
		if (k == pa->ndefs && k == pbp->ndefs)
			continue;
		printf("metrics differ at %s %s: %d in %s, %d in %s\n",
		       pa->label, pa->params_str, pa->ndefs, a->dir,
		       pbp->ndefs, b->dir);
		bad++;
	}
	return bad;
}

struct item {
	const struct group *ga, *gb;
	int mi;
};

static void print_cmp(const struct cmp *c, const struct item *it,
		      double padj, const char *tag)
{
	const struct metric_def *d = c->a->def;
	const char *unit;
	double sc = metric_scale(d, &unit);

	printf("%s %s %s (%s %s): %s %.4g -> %.4g %s, %+.2f%%",
	       tag, it->gb->variant, it->gb->pt->label, it->gb->pt->workload,
	       it->gb->pt->params_str, d->name, c->a->value * sc,
	       c->b->value * sc, unit, c->pct);
	if (!c->w.valid) {
		printf(", not enough iterations (%d vs %d, need 3)\n",
		       c->a->nvals, c->b->nvals);
		return;
	}
	printf(", p=%.3g (Holm %.3g), CI95 of change [%+.2f%%, %+.2f%%], "
	       "MDE %.2f%%\n", c->w.p, padj, c->ci_pct_lo, c->ci_pct_hi,
	       c->mde_pct);
}

static int collect(const struct run *a, const struct run *b,
		   struct item **items, int *nfailed)
{
	int v, p, k, n = 0;
	const struct group *ga, *gb;

	*items = NULL;
	*nfailed = 0;
	for (v = 0; v < b->nvariants; v++)
		for (p = 0; p < b->npoints; p++) {
			gb = run_group(b, p, v);
			if (!gb)
				continue;
			ga = run_group(a, run_point_index(a, b->points[p]->key),
				       run_variant_index(a, b->variants[v]));
			if (gb->nfailed) {
				printf("REGRESSION %s %s (%s %s): %d of %d "
				       "iterations failed: %s\n", gb->variant,
				       gb->pt->label, gb->pt->workload,
				       gb->pt->params_str, gb->nfailed,
				       gb->niter, gb->first_error);
				(*nfailed)++;
				continue;
			}
			if (ga->nfailed) {
				printf("not compared: %s %s failed in the "
				       "baseline run: %s\n", ga->variant,
				       ga->pt->label, ga->first_error);
				continue;
			}
			*items = realloc(*items, (n + gb->nm) * sizeof(**items));
			for (k = 0; k < gb->nm; k++)
				(*items)[n++] = (struct item){ ga, gb, k };
		}
	return n;
}

static int dbl_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* A PASS from a run too noisy to see the threshold is worth a warning. */
static void blind_note(const struct cmp *c, int n, double thr)
{
	double *m = xcalloc(n, sizeof(*m));
	int i, k = 0, blind = 0;

	for (i = 0; i < n; i++) {
		if (!c[i].w.valid || isnan(c[i].mde_pct))
			continue;
		m[k++] = c[i].mde_pct;
		blind += c[i].mde_pct > thr;
	}
	if (blind) {
		qsort(m, k, sizeof(*m), dbl_cmp);
		printf("note: in %d of %d metrics the noise hides changes of "
		       "%g%% (MDE above the threshold; median MDE %.1f%%)\n",
		       blind, k, thr, m[k / 2]);
	}
	free(m);
}

int regress_main(int argc, char **argv)
{
	struct gate gt = { .alpha = 0.05, .threshold_pct = 2, .holm = true };
	const char *da = NULL, *db = NULL;
	bool verbose = false;
	struct run *a, *b;
	struct item *it;
	struct cmp *c;
	double *padj;
	bool *reg;
	int i, n, nreg, nfail, untested = 0;

	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--threshold") && i + 1 < argc)
			gt.threshold_pct = parse_threshold(argv[++i]);
		else if (!strcmp(argv[i], "--alpha") && i + 1 < argc)
			gt.alpha = parse_alpha(argv[++i]);
		else if (!strcmp(argv[i], "--correction") && i + 1 < argc) {
			i++;
			if (strcmp(argv[i], "holm") && strcmp(argv[i], "none"))
				die_input("--correction %s: accepted are holm, "
					  "none", argv[i]);
			gt.holm = !strcmp(argv[i], "holm");
		} else if (!strcmp(argv[i], "-v") ||
			   !strcmp(argv[i], "--verbose"))
			verbose = true;
		else if (argv[i][0] == '-' || (da && db))
			die_input("regress: unexpected argument \"%s\"; usage: "
				  "rlstat regress <runA> <runB> [--threshold "
				  "2%%] [--alpha 0.05] [--correction holm|none] "
				  "[-v]", argv[i]);
		else if (!da)
			da = argv[i];
		else
			db = argv[i];
	}
	if (!da || !db)
		die_input("regress: expected two run directories <runA> <runB>");
	a = run_load(da, 1 - gt.alpha);
	b = run_load(db, 1 - gt.alpha);
	if (check_matrix(a, b))
		die_input("regress: %s and %s do not hold the same matrix "
			  "(points listed above)", da, db);
	n = collect(a, b, &it, &nfail);
	c = xcalloc(n, sizeof(*c));
	padj = xcalloc(n, sizeof(*padj));
	reg = xcalloc(n, sizeof(*reg));
	for (i = 0; i < n; i++)
		cmp_compute(&c[i], &it[i].ga->m[it[i].mi],
			    &it[i].gb->m[it[i].mi], gt.alpha);
	nreg = gate_eval(&gt, c, n, padj, reg);
	for (i = 0; i < n; i++) {
		untested += !c[i].w.valid;
		if (reg[i])
			print_cmp(&c[i], &it[i], padj[i], "REGRESSION");
		else if (!c[i].w.valid || verbose)
			print_cmp(&c[i], &it[i], padj[i], "         ok");
	}
	blind_note(c, n, gt.threshold_pct);
	printf("rlstat regress: %d regressions, %d failed points in %d "
	       "metrics (threshold %g%%, Welch alpha %g%s)%s\n", nreg, nfail,
	       n, gt.threshold_pct, gt.alpha,
	       gt.holm ? ", Holm-corrected" : "",
	       nreg || nfail ? ": FAIL" : untested ? "" : ": PASS");
	if (nreg || nfail)
		return EXIT_MEASURED;
	if (untested) {
		fprintf(stderr, "rlstat: regress: %d metrics have fewer than 3 "
			"iterations on a side: not enough iterations for a "
			"verdict\n", untested);
		return EXIT_BADINPUT;
	}
	return 0;
}
