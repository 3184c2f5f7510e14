// SPDX-License-Identifier: GPL-2.0
/*
 * The report's verdict block: the overall verdict, then each gated metric
 * that moved, stayed undecided or was left out of cost mode's gate, then
 * the ones that show no regression past the threshold.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

static void failed_lines(FILE *f, const struct gated_run *x)
{
	const struct run *r = x->r;
	struct failed_cell *fc = xcalloc(r->npoints * r->nvariants + 1,
					 sizeof(*fc));
	int i, cand, base;

	gated_failures(x, fc, &cand, &base);
	for (i = 0; i < cand + base; i++) {
		const struct cell *g = fc[i].c;

		if (!fc[i].baseline)
			fprintf(f, "  %-15s %-11s %-9s %d of %d boots "
				"failed\n", "FAILED (FAIL)", g->variant,
				g->pt->label, g->nfailed, g->niter);
		else
			fprintf(f, "  %-15s %-11s %-9s the baseline "
				"failed here\n", "not compared", g->variant,
				g->pt->label);
	}
	free(fc);
}

static const char *what(const struct gated_metric *it)
{
	int v = it->v;

	return it->suit ? "unsuited" : v == V_FAIL ? "moved (FAIL)" :
	       it->better ? "moved (better)" : gate_worse_within(it) ?
	       "worse, within" : it->worse ? "worse, unclear" :
	       v == V_PASS ? "no regression" : "undecided";
}

/*
 * One gated metric: what happened, the variant, the point, the metric and
 * the change with its interval. A line that would pass 79 columns (a
 * long point name such as p001-fairness, a long op name) carries its
 * figures on a continuation line, so mail and terminals never wrap it.
 */
static void item_line(FILE *f, const struct gated_metric *it)
{
	char lab[64], head[160], val[96];
	size_t n;

	metric_label(it->c.a->def, lab, sizeof(lab));
	snprintf(head, sizeof(head), "  %-15s %-11s %-9s %-18s",
		 what(it), it->gb->variant, it->gb->pt->label, lab);
	if (it->fam == FAM_ERROR)
		snprintf(val, sizeof(val), " error count");
	else if (!it->c.valid)
		snprintf(val, sizeof(val), " < %d boots", gate_min_boots(it));
	else if (it->c.logscale)
		snprintf(val, sizeof(val), " %+.1f%% [%+.1f, %+.1f]",
			 it->c.pct, it->c.ci_pct_lo, it->c.ci_pct_hi);
	else
		snprintf(val, sizeof(val), " %+.3g", it->c.abs);
	if (strlen(head) + strlen(val) <= 79) {
		fprintf(f, "%s%s\n", head, val);
		return;
	}
	for (n = strlen(head); n && head[n - 1] == ' '; n--)
		;
	fprintf(f, "%.*s\n  %-15s%s\n", (int)n, head, "", val);
}

/* Cost cells the gate left out, with what made them unsuited. */
static void unsuited_lines(FILE *f, const struct gated_run *x)
{
	char why[64];
	int i, n = 0;

	for (i = 0; i < x->nit; i++) {
		const struct gated_metric *it = &x->it[i];

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

void report_verdict_text(FILE *f, const struct gated_run *x)
{
	int i, pass = 0, gated = 0, cand, base, pass_line = 0;
	int v = gated_overall(x);

	gated_failures(x, NULL, &cand, &base);
	fprintf(f, "Verdict:     %s against %s (thresholds %g%%, p99 %g%%, "
		"cost %g%%)\n", verdict_name(v), x->r->variants[x->base],
		x->gt.threshold_pct, x->gt.tail_threshold_pct,
		x->gt.cost_threshold_pct);
	if (cand || base)
		failed_lines(f, x);
	for (i = 0; i < x->nit; i++) {
		const struct gated_metric *it = &x->it[i];

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
		const struct gated_metric *it = &x->it[i];

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
