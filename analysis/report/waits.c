// SPDX-License-Identifier: GPL-2.0
/*
 * The lock waits beside the timed rates in report.txt's per-point tables:
 * per variant, contended acquisitions and ns waited for the invalidation
 * lock per boot, the mean wait and the longest, from the variant's stats
 * boot (run/waits.c). The rows name the role they are exact for, or say
 * that the point's roles cannot be told apart; a point without counters
 * on any variant has no rows, so runs without stats boots read as before.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

void waits_fmt(char *buf, size_t len, double v, int prec)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", prec, v);
}

/* the counters' source word for a column: stats boot, or why none */
static const char *source_word(const struct cell *g,
			       const struct cell_waits *w)
{
	if (!g)
		return "-";
	if (w->source)
		return w->source;
	return w->stats_failed ? "stats boot failed" : "not counted";
}

enum { W_COUNT, W_TOTAL, W_MEAN, W_MAX };

static double waits_value(const struct cell_waits *w, int what)
{
	if (!w->source)
		return NAN;
	switch (what) {
	case W_COUNT:
		return w->contended;
	case W_TOTAL:
		return w->wait_ns / 1e6;
	case W_MEAN:
		return cell_waits_mean_us(w);
	}
	return w->max_ns / 1e3;
}

void report_waits_rows(FILE *f, const struct gated_run *x, int pt,
		       const int *o, int n, int lw)
{
	static const char *const lab[] = { "  contended/boot",
		"  waited ms/boot", "  mean wait us", "  max wait us" };
	static const int prec[] = { 0, 2, 1, 1 };
	const struct run *r = x->r;
	struct cell_waits **w = xcalloc(n, sizeof(*w));
	const char *role = NULL;
	char buf[32], head[64];
	bool any = false, several = false;
	int i, k;

	for (i = 0; i < n; i++) {
		w[i] = cell_waits_load(r, run_cell(r, pt, o[i]));
		any |= w[i]->source != NULL;
		if (w[i]->source && w[i]->role)
			role = role ? role : w[i]->role;
		several |= w[i]->source && !w[i]->role;
	}
	if (any) {
		/* one op on every side that counted: the waits are its own */
		snprintf(head, sizeof(head), "Waits %s", role && !several ?
			 role : "all roles");
		head[lw - 1] = 0;
		fprintf(f, "%-*s", lw, head);
		for (i = 0; i < n; i++)
			fprintf(f, "%*s  ", TABLE_CELL_W - 2,
				source_word(run_cell(r, pt, o[i]), w[i]));
		fputc('\n', f);
		for (k = W_COUNT; k <= W_MAX; k++) {
			fprintf(f, "%-*s", lw, lab[k]);
			for (i = 0; i < n; i++) {
				waits_fmt(buf, sizeof(buf),
					  waits_value(w[i], k), prec[k]);
				fprintf(f, "%*s  ", TABLE_CELL_W - 2, buf);
			}
			fputc('\n', f);
		}
		if (!role || several)
			fputs("  (per role: not separable; the counters "
			      "count every op of the point)\n", f);
	}
	for (i = 0; i < n; i++)
		cell_waits_free(w[i]);
	free(w);
}

void report_waits_html(FILE *f, const struct gated_run *x, int pt)
{
	static const int prec[] = { 0, 2, 1, 1 };
	const struct run *r = x->r;
	int *o = variant_order(r, x->base);
	struct cell_waits **w = xcalloc(r->nvariants, sizeof(*w));
	const char *role = NULL;
	bool any = false, several = false;
	char buf[32];
	int i, k;

	for (i = 0; i < r->nvariants; i++) {
		w[i] = cell_waits_load(r, run_cell(r, pt, o[i]));
		any |= w[i]->source != NULL;
		if (w[i]->source && w[i]->role)
			role = role ? role : w[i]->role;
		several |= w[i]->source && !w[i]->role;
	}
	if (any) {
		fputs("<p>Invalidation lock waits of ", f);
		if (role && !several) {
			fputs("the ", f);
			html_esc(f, role);
			fputs(" role (the point's one op)", f);
		} else {
			fputs("all roles (not separable by role: the counters "
			      "count every op of the point)", f);
		}
		fputs(", per boot:</p>\n<table class=\"stats\"><tr><th>variant"
		      "</th><th>from</th><th>contended</th><th>waited ms</th>"
		      "<th>mean wait &micro;s</th><th>max wait &micro;s</th>"
		      "</tr>\n", f);
		for (i = 0; i < r->nvariants; i++) {
			fputs("<tr><td>", f);
			html_esc(f, r->variants[o[i]]);
			fputs("</td><td>", f);
			html_esc(f, source_word(run_cell(r, pt, o[i]), w[i]));
			fputs("</td>", f);
			for (k = W_COUNT; k <= W_MAX; k++) {
				waits_fmt(buf, sizeof(buf),
					  waits_value(w[i], k), prec[k]);
				fprintf(f, "<td>%s</td>", buf);
			}
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
	}
	for (i = 0; i < r->nvariants; i++)
		cell_waits_free(w[i]);
	free(w);
	free(o);
}
