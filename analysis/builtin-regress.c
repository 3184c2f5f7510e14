// SPDX-License-Identifier: GPL-2.0
/*
 * The regression gate: run B (candidate) against run A (reference), the
 * same variant and point on both sides, decided by gate.c: exit 0 PASS
 * (every gated metric's interval lies inside the threshold), 1 FAIL (one
 * lies entirely past it, an error counter is non-zero or a candidate
 * point failed), 3 INCONCLUSIVE (neither, or an unsuited cost cell), 2
 * bad input.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"

static const char usage[] =
"usage: rlstat regress <runA> <runB> [--threshold PCT%] [--alpha A]\n"
"                      [--cost-threshold PCT%] [--tail-threshold PCT%]\n"
"                      [--correction holm|none] [-v]\n"
"\n"
"runB against runA: exit 1 FAIL (a gated metric regressed past the\n"
"threshold, default 2%, 10% for p99 (--tail-threshold), 0.25% for cost\n"
"mode's insn/op, significantly: one-sided Welch tests on logs, Holm within\n"
"the primary and secondary families; an error counter or a failed point),\n"
"0 PASS (every gated metric's upper bound of the regression below the\n"
"threshold), 3 INCONCLUSIVE (neither), 2 bad input or mismatched\n"
"matrices. -v lists every metric, not only those that did not pass.\n";

/* Every (variant, point) must be on both sides, with the same metrics. */
static int check_matrix(const struct run *a, const struct run *b)
{
	int bad = 0, side, v, p, pb, vb, k;

	for (side = 0; side < 2; side++) {
		const struct run *x = side ? b : a, *y = side ? a : b;

		for (v = 0; v < x->nvariants; v++)
			for (p = 0; p < x->npoints; p++) {
				if (!run_cell(x, p, v))
					continue;
				vb = run_variant_index(y, x->variants[v]);
				pb = run_point_index(y, x->points[p]->key);
				if (vb >= 0 && pb >= 0 && run_cell(y, pb, vb))
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

static void print_item(const struct gated_metric *x)
{
	const struct comparison *c = &x->c;
	const struct metric_def *d = c->a->def;
	const struct cell *gb = x->gb;
	const char *unit, *tag;
	double sc = metric_scale(d, &unit);

	tag = x->suit ? "unsuited" : x->fam == FAM_OTHER ? "    info" :
	      verdict_name(x->v);
	printf("%s %s %s (%s %s): %s [%s] %.6g -> %.6g %s", tag, gb->variant,
	       gb->pt->label, gb->pt->workload, gb->pt->params_str, d->name,
	       family_name(x->fam), c->va * sc, c->vb * sc, unit);
	if (c->logscale)
		printf(", %+.2f%%", c->pct);
	else
	{
		printf(", %+.4g %s", c->abs * sc, unit);
		if (!isnan(c->pct))
			printf(" (%+.2f%%)", c->pct);
	}
	printf(", %s", c->vb == c->va ? "same" : c->worse ? "worse" :
	       "better");
	if (x->suit) {
		char why[64];

		printf(", %s, not gated\n", unsuited_why(x, why, sizeof(why)));
		return;
	}
	if (x->fam == FAM_ERROR) {
		printf(", error counter: %s\n", x->v == V_FAIL ?
		       "non-zero in the candidate" : "zero");
		return;
	}
	if (!c->valid) {
		printf(", not enough iterations (%d vs %d, need 3)\n",
		       c->a->nvals, c->b->nvals);
		return;
	}
	if (c->logscale)
		printf(", CI95 [%+.2f%%, %+.2f%%], bound %.2f%% worse",
		       c->ci_pct_lo, c->ci_pct_hi, c->ub);
	else
		printf(", CI95 [%+.4g, %+.4g], bound %.4g worse",
		       c->w.ci_lo * sc, c->w.ci_hi * sc, c->ub * sc);
	printf(", p=%.3g one-sided (%s %.3g)", c->p_worse,
	       x->fam == FAM_OTHER ? "uncorrected" : "corrected", x->padj);
	/* the lower bound of the regression; below zero it bounds a gain */
	if (c->logscale)
		printf(", at %s %.2f%% %s at level %.2g",
		       c->lb >= 0 ? "least" : "most", fabs(c->lb),
		       c->lb >= 0 ? "worse" : "better", x->level);
	else
		printf(", at %s %.4g %s at level %.2g",
		       c->lb >= 0 ? "least" : "most", fabs(c->lb) * sc,
		       c->lb >= 0 ? "worse" : "better", x->level);
	if (x->fam != FAM_OTHER && x->worse && x->v != V_FAIL)
		printf(x->v == V_PASS ? ", worse, within threshold" :
		       ", worse, not shown past the threshold");
	printf(", MDE %.2f%% at level %.2g\n", c->mde_pct, x->level);
}

static int collect(const struct run *a, const struct run *b,
		   struct gated_metric **items, int *nfailed)
{
	int v, p, k, n = 0;
	const struct cell *ga, *gb;

	*items = NULL;
	*nfailed = 0;
	for (v = 0; v < b->nvariants; v++)
		for (p = 0; p < b->npoints; p++) {
			gb = run_cell(b, p, v);
			if (!gb)
				continue;
			ga = run_cell(a, run_point_index(a, b->points[p]->key),
				       run_variant_index(a, b->variants[v]));
			if (gb->nfailed) {
				printf("FAIL %s %s (%s %s): %d of %d "
				       "iterations failed: %s\n", gb->variant,
				       gb->pt->label, gb->pt->workload,
				       gb->pt->params_str, gb->nfailed,
				       gb->niter, gb->first_error);
				(*nfailed)++;
				continue;
			}
			if (ga->nfailed) {
				printf("INCONCLUSIVE %s %s: not compared, it "
				       "failed in the reference run: %s\n",
				       ga->variant, ga->pt->label,
				       ga->first_error);
				continue;
			}
			*items = realloc(*items,
					 (n + gb->nm) * sizeof(**items));
			if (!*items)
				die_input("out of memory");
			for (k = 0; k < gb->nm; k++) {
				memset(&(*items)[n], 0, sizeof(**items));
				(*items)[n].ga = ga;
				(*items)[n].gb = gb;
				(*items)[n++].mi = k;
			}
		}
	return n;
}

/* A run too noisy to see the threshold cannot PASS; say how noisy. */
static void blind_note(const struct gated_metric *it, int n)
{
	int i, k = 0, blind = 0;

	for (i = 0; i < n; i++) {
		if (it[i].fam > FAM_SECONDARY || !it[i].c.valid ||
		    !it[i].c.logscale || isnan(it[i].c.mde_pct))
			continue;
		k++;
		blind += it[i].c.mde_pct > it[i].c.limit;
	}
	if (blind)
		printf("note: in %d of %d gated metrics the noise hides "
		       "changes of the threshold's size (MDE above it)\n",
		       blind, k);
}

int cmd_regress(int argc, char **argv)
{
	const char *run[2] = { NULL, NULL }, *da, *db;
	const char *correction = "holm";
	bool verbose = false, skipped = false;
	struct gate gt;
	struct run *a, *b;
	struct gated_metric *it;
	int i, n, nfail, v, cnt[3] = { 0 }, mb = 10;
	const struct cli_opt opts[] = {
		CLI("--threshold", CLI_PCT, &gt.threshold_pct),
		CLI("--cost-threshold", CLI_PCT, &gt.cost_threshold_pct),
		CLI("--tail-threshold", CLI_PCT, &gt.tail_threshold_pct),
		CLI("--alpha", CLI_ALPHA, &gt.alpha),
		CLI("--correction", CLI_STRING, &correction),
		CLI("--verbose", CLI_FLAG, &verbose, .alias = "-v"),
		CLI_END
	};

	gate_init(&gt);
	if (cli_parse(argc, argv, 2, opts, run, 2, "regress", usage) != 2)
		die_input("regress: expected two run directories <runA> "
			  "<runB>\n%s", usage);
	if (strcmp(correction, "holm") && strcmp(correction, "none"))
		die_input("--correction %s: accepted are holm, none",
			  correction);
	gt.holm = !strcmp(correction, "holm");
	da = run[0];
	db = run[1];
	a = run_open(da, 1 - gt.alpha);
	b = run_open(db, 1 - gt.alpha);
	if (check_matrix(a, b))
		die_input("regress: %s and %s do not hold the same matrix "
			  "(points listed above)", da, db);
	gt.sequential = run_is_sequential(a, &gt.max_iter) |
			run_is_sequential(b, &mb);
	if (mb > gt.max_iter)
		gt.max_iter = mb;
	n = collect(a, b, &it, &nfail);
	for (i = 0; i < b->npoints * b->nvariants; i++)
		if (b->cells[i] && !b->cells[i]->nfailed) {
			const struct cell *g = b->cells[i];
			const struct cell *ga = run_cell(a,
				run_point_index(a, g->pt->key),
				run_variant_index(a, g->variant));

			skipped |= ga->nfailed > 0;
		}
	gate_run(&gt, it, n);
	for (i = 0; i < n; i++) {
		if (it[i].fam != FAM_OTHER)
			cnt[it[i].v]++;
		if (verbose || it[i].suit ||
		    (it[i].fam != FAM_OTHER && (it[i].v != V_PASS ||
						it[i].worse)))
			print_item(&it[i]);
	}
	blind_note(it, n);
	v = gate_overall(it, n, nfail);
	if (v == V_PASS && skipped)
		v = V_INCONC;
	printf("rlstat regress: %s: %d FAIL, %d INCONCLUSIVE, %d PASS of %d "
	       "gated metrics, %d failed points (threshold %g%%, p99 %g%%, "
	       "cost mode %g%%; one-sided "
	       "tests, alpha %g split %g/%g between the primary and secondary "
	       "families%s%s)\n", verdict_name(v), cnt[V_FAIL], cnt[V_INCONC],
	       cnt[V_PASS], cnt[0] + cnt[1] + cnt[2], nfail,
	       gt.threshold_pct, gt.tail_threshold_pct,
	       gt.cost_threshold_pct, gt.alpha, gt.alpha * gt.primary_share,
	       gt.alpha * (1 - gt.primary_share),
	       gt.holm ? ", Holm within each" : ", uncorrected",
	       gt.sequential ? ", spent over sequential looks" : "");
	return v == V_FAIL ? EXIT_MEASURED : v == V_INCONC ?
	       EXIT_INCONCLUSIVE : 0;
}
