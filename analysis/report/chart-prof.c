// SPDX-License-Identifier: GPL-2.0
/*
 * Where a point's instructions go, per variant (runs with instruction
 * profiles): a bar per function of its self insn/op, the costliest first,
 * the rest in one bar, the baseline's value of each function marked. The
 * profile has self counts and no call stacks, so this is a single level
 * (an icicle one row deep, drawn as bars so that every name is legible),
 * not a flame graph; the caption says so. Function names come from
 * System.map and rlwork.map: they reach gnuplot as tic labels through
 * gp_str, the data blocks hold numbers only.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

#define PROF_BARS	20	/* functions drawn, then one bar of the rest */
#define PROF_NAME_MAX	44	/* a tic label's characters; longer ones cut */

static int fn_cost_cmp(const void *a, const void *b)
{
	const struct prof_fn *x = a, *y = b;

	if (x->insns != y->insns)
		return x->insns < y->insns ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* insn/op of name at point b (sorted by name), 0 when it did not run */
static double base_value(const struct prof_point *b, const char *name)
{
	size_t lo = 0, hi = b->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(b->fns[mid].name, name);

		if (!c)
			return b->fns[mid].insns / b->ops;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static void prof_chart(struct charts *c, const struct point *q,
		       const struct prof_point *pp, const struct prof_point *b)
{
	struct prof_fn *f = xcalloc(pp->n + 1, sizeof(*f));
	size_t i, n = pp->n < PROF_BARS ? pp->n : PROF_BARS, longest = 8;
	size_t rows = n + (pp->n > n);	/* and a bar of the rest, if any */
	double rest = 0, brest = 0, bsum = 0, xmax = 0;
	char *t, *cap, *bq;

	memcpy(f, pp->fns, pp->n * sizeof(*f));
	qsort(f, pp->n, sizeof(*f), fn_cost_cmp);
	t = xasprintf("%s %s: insn/op by function (self)", q->label,
		      pp->variant);
	cap = xasprintf("%s: %s %s - %s: self instructions per op by "
			"function, the %zu costliest and the other %zu in one "
			"bar, %d boot%s summed%s%s%s (instruction profile). No "
			"call stacks: one level, a bar per function, not a "
			"flame graph. Cost mode: path length only, no cache "
			"misses, no coherence traffic, no parallel speed-up.",
			q->label, q->workload, q->params_str, pp->variant, n,
			pp->n - n, pp->boots, pp->boots == 1 ? "" : "s",
			b ? "; a ring: " : "", b ? b->variant : "",
			b ? "'s value of the function" : "");
	chart_begin(c, xasprintf("prof-%s-%s", q->label, pp->variant), t, cap);
	free(t);
	for (i = 0; i < n; i++)
		if (strlen(f[i].name) > longest)
			longest = strlen(f[i].name);
	longest = longest > PROF_NAME_MAX ? PROF_NAME_MAX : longest;
	fprintf(c->gp, "unset key\nset grid xtics\nset border 3\n"
		"set xlabel 'instructions per op (self)'\n"
		"set yrange [%zu.6:-0.6]\nset lmargin %zu\n"
		"set style fill solid 0.8 border -1\nset ytics font ',8' (",
		rows - 1, longest * 3 / 4 + 3);
	for (i = 0; i < rows; i++) {
		char *name = i == n ? xasprintf("(the other %zu functions)",
						pp->n - n) :
			     strlen(f[i].name) > PROF_NAME_MAX ?
			     xasprintf("%.*s...", PROF_NAME_MAX - 3, f[i].name) :
			     xstrdup(f[i].name);

		fputs(i ? ", " : "", c->gp);
		gp_str(c->gp, name);
		fprintf(c->gp, " %zu", i);
		free(name);
	}
	fputs(")\n$p << EOD\n", c->gp);
	for (i = 0; i < pp->n; i++) {
		double bv = b ? base_value(b, f[i].name) : 0;

		if (i < n) {
			fprintf(c->gp, "%zu %.6g %.6g\n", i, f[i].insns / pp->ops,
				b ? bv : NAN);
			xmax = fmax(xmax, fmax(f[i].insns / pp->ops, bv));
		} else {
			rest += f[i].insns / pp->ops;
			brest += bv;
		}
		bsum += bv;
	}
	/* the baseline's rest: everything of it not drawn above */
	if (b)
		brest += b->insns / b->ops - bsum;
	if (rows > n) {
		fprintf(c->gp, "%zu %.6g %.6g\n", n, rest, b ? brest : NAN);
		xmax = fmax(xmax, fmax(rest, brest));
	}
	/* room right of the longest bar for its value */
	fprintf(c->gp, "EOD\nset xrange [0:%g]\n", xmax > 0 ? xmax * 1.12 : 1);
	bq = gp_quote(b ? b->variant : "");
	if (b)
		fputs("set key inside right bottom\n", c->gp);
	t = xasprintf("plot $p using 2:1:(0):2:($1-0.4):($1+0.4) with "
		      "boxxyerror lc 1 notitle, $p using (valid(3) && $3 > $2 ? $3 : "
		      "$2):1:(sprintf('%%.2f', $2)) with labels left offset 1,0 "
		      "font ',8' notitle%s%s",
		      b ? ", $p using 3:1 with points pt 6 ps 1.2 lc rgb "
		      "'#000000' title " : "", b ? bq : "");
	chart_render(c, t);
	free(t);
	free(bq);
	free(f);
}

void chart_profile(struct charts *c)
{
	const struct run *r = c->r;
	const char *why;
	const struct prof_run *p = report_profiles(r, &why);
	int *o, pt, i;

	if (!p)
		return;
	o = variant_order(r, c->base);
	for (pt = 0; pt < r->npoints; pt++) {
		const struct point *q = r->points[pt];
		const struct prof_point *b;
		char *label;

		if (strcmp(q->mode, "cost"))
			continue;
		label = xasprintf("%s-cost", q->label);
		b = prof_point_find(p, r->variants[c->base], label);
		for (i = 0; i < r->nvariants; i++) {
			const struct prof_point *pp =
				prof_point_find(p, r->variants[o[i]], label);

			if (pp)
				prof_chart(c, q, pp, pp == b ? NULL : b);
		}
		free(label);
	}
	free(o);
}
