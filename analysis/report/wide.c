// SPDX-License-Identifier: GPL-2.0
/*
 * The wide request waits of a point whose results carry ops[].wait_ns
 * (the fairness workload): one row per variant under the point's tables
 * in report.txt, and so in report.html's copy of it. A FIFO lock bounds
 * the wide request's wait and a barging one may not, which a rate or a
 * p99 over all the point's ops would hide: the few wide requests are
 * drowned by the narrow ones. Time mode only: in cost mode a point with
 * roles charges each op the others' instructions, and its "ns" are
 * instructions, not a wait.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

struct wide_row {
	int boots;
	double count, mean, p99, max, unfinished;
};

/*
 * Over the cell's passing boots: the requests and their mean, the p99 of
 * the histogram merged over the boots (percentiles are never averaged)
 * capped at the largest max, else the largest boot's p99.
 */
static void wide_row(const struct cell *c, const struct op_mix *om,
		     int nboots, struct wide_row *w)
{
	json_t *ix = c->opix ? json_object_get(c->opix, om->op) : NULL;
	double sum = 0;
	int b;

	memset(w, 0, sizeof(*w));
	w->boots = nboots;
	for (b = 0; b < nboots; b++) {
		const struct wide_wait *ww = &om->wait[b];

		w->count += ww->count;
		sum += ww->count * ww->mean;
		w->max = fmax(w->max, ww->max);
		w->p99 = fmax(w->p99, ww->p99);
		w->unfinished = fmax(w->unfinished, ww->unfinished);
	}
	w->mean = w->count > 0 ? sum / w->count : 0;
	if (ix && w->count > 0)
		w->p99 = fmin(lathist_percentile(c->ophist[
			json_integer_value(ix)], 99), w->max);
}

/* the lock counters' counts of the whole point, where every boot has them */
static void stats_line(FILE *f, const char *variant, const struct cell_mix *m)
{
	double cont = 0, ns = 0;
	int b;

	if (!m->waits)
		return;
	for (b = 0; b < m->nboots; b++) {
		cont += m->contended[b];
		ns += m->wait_ns[b];
	}
	fprintf(f, "  %s: counted lock waits, all roles: %.0f contended, "
		"mean %.1f us\n", variant, cont, cont > 0 ? ns / cont / 1e3 :
		0.0);
}

static void op_table(FILE *f, const struct run *r, int pt, const int *o,
		     struct cell_mix **mix, const char *op)
{
	const struct op_mix *om;
	struct wide_row w;
	int i;

	fprintf(f, "\nWide request waits (%s, call to return, us; all "
		"boots):\n", op);
	fprintf(f, "  %-16s %5s %9s %10s %10s %10s %10s\n", "variant",
		"boots", "count", "mean", "p99", "max", "unfinished");
	for (i = 0; i < r->nvariants; i++) {
		const struct cell *c = run_cell(r, pt, o[i]);

		om = mix[i] ? cell_mix_op(mix[i], op) : NULL;
		if (!om || !om->wide || !mix[i]->nboots) {
			fprintf(f, "  %-16.16s %5s\n", r->variants[o[i]], "-");
			continue;
		}
		wide_row(c, om, mix[i]->nboots, &w);
		fprintf(f, "  %-16.16s %5d %9.0f %10.1f %10.1f %10.1f %10.1f\n",
			r->variants[o[i]], w.boots, w.count, w.mean / 1e3,
			w.p99 / 1e3, w.max / 1e3, w.unfinished / 1e3);
	}
	for (i = 0; i < r->nvariants; i++)
		if (mix[i])
			stats_line(f, r->variants[o[i]], mix[i]);
}

void report_wide_text(FILE *f, const struct run *r, int pt, const int *o)
{
	struct cell_mix **mix;
	const char *op = NULL;
	int i, k, shown = 0;

	if (strcmp(r->points[pt]->mode, "time"))
		return;
	for (i = 0; i < r->nvariants; i++) {
		const struct cell *c = run_cell(r, pt, o[i]);

		if (c && c->wide)
			break;
	}
	if (i == r->nvariants)
		return;
	mix = xcalloc(r->nvariants, sizeof(*mix));
	for (i = 0; i < r->nvariants; i++) {
		const struct cell *c = run_cell(r, pt, o[i]);

		mix[i] = c && c->wide ? cell_mix_load(r, c) : NULL;
	}
	/* every wide op of the first variant that has one, in its order */
	for (i = 0; i < r->nvariants && !shown; i++)
		for (k = 0; mix[i] && k < mix[i]->nops; k++) {
			if (!mix[i]->op[k].wide)
				continue;
			op = mix[i]->op[k].op;
			op_table(f, r, pt, o, mix, op);
			shown++;
		}
	if (shown)
		fputs("  unfinished: the longest request in flight when the "
		      "window closed (0: none).\n", f);
	for (i = 0; i < r->nvariants; i++)
		cell_mix_free(mix[i]);
	free(mix);
}
