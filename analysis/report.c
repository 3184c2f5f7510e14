// SPDX-License-Identifier: GPL-2.0
/*
 * report.txt: fixed-width tables under 80 columns for mailing lists, in
 * the manner of mmtests' compare-kernels; and the short summary.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlstat.h"

#define LABEL_W	19
#define CELL_W	20
#define COLS	3		/* variants per table: 19 + 3 * 20 < 80 */

/* "label: workload params" folded under 80 columns at blanks. */
void put_point_line(FILE *f, const struct point *p)
{
	char *s = xasprintf("%s: %s %s", p->label, p->workload, p->params_str);
	char *w = s, *sp;
	int col = 0, ind = 0;

	while (*w) {
		size_t l = strcspn(w, " ");

		if (col > ind && col + 1 + (int)l > 79) {
			fputs("\n    ", f);
			col = ind = 4;
		} else if (col > ind) {
			fputc(' ', f);
			col++;
		}
		fwrite(w, 1, l, f);
		col += l;
		w += l;
		sp = w;
		while (*sp == ' ')
			sp++;
		w = sp;
	}
	fputc('\n', f);
	free(s);
}

/* Variant indices with the baseline first. */
int *variant_order(const struct run *r, int base)
{
	int *o = xcalloc(r->nvariants, sizeof(int));
	int i, k = 0;

	o[k++] = base;
	for (i = 0; i < r->nvariants; i++)
		if (i != base)
			o[k++] = i;
	return o;
}

static void cell(FILE *f, const struct group *g, int mi, const struct cmp *c)
{
	char v[32], p[32];
	const char *unit;
	double sc;

	if (!g) {
		fprintf(f, "%*s", CELL_W, "-  ");
		return;
	}
	if (g->nfailed) {
		snprintf(v, sizeof(v), "FAILED %d/%d ", g->nfailed, g->niter);
		fprintf(f, "%*s", CELL_W, v);
		return;
	}
	sc = metric_scale(g->m[mi].def, &unit);
	fmt_value(v, sizeof(v), g->m[mi].value * sc);
	fmt_pct(p, sizeof(p), c ? c->pct : 0);
	if (c && c->sig)
		fprintf(f, "*%s (%s)*", v, p);
	else
		fprintf(f, " %s (%s) ", v, p);
}

static void row_extra(FILE *f, const struct run *r, int pt, const int *o,
		      int n, int mi, int base, double alpha, bool mde)
{
	const struct group *gb = run_group(r, pt, base), *g;
	char buf[32];
	struct cmp c;
	int i;

	fprintf(f, "%-*s", LABEL_W, mde ? "  MDE" : "  CoeffVar");
	for (i = 0; i < n; i++) {
		g = run_group(r, pt, o[i]);
		buf[0] = 0;
		if (!g || g->nfailed) {
			/* nothing to say */
		} else if (!mde) {
			snprintf(buf, sizeof(buf), "%.2f%%  ",
				 g->m[mi].s.cv * 100);
		} else if (o[i] != base && gb && !gb->nfailed) {
			cmp_compute(&c, &gb->m[mi], &g->m[mi], alpha);
			if (!c.w.valid)
				snprintf(buf, sizeof(buf), "not enough iter. ");
			else if (isnan(c.mde_pct))
				snprintf(buf, sizeof(buf), "n/a  ");
			else
				snprintf(buf, sizeof(buf), "%.2f%%  ",
					 c.mde_pct);
		}
		fprintf(f, "%*s", CELL_W, buf);
	}
	fputc('\n', f);
}

static void table(FILE *f, const struct run *r, int pt, const int *o, int n,
		  int base, double alpha)
{
	const struct point *p = r->points[pt];
	const struct group *gb = run_group(r, pt, base), *g;
	char lab[64];
	struct cmp c;
	int i, mi;

	fprintf(f, "%-*s", LABEL_W, "");
	for (i = 0; i < n; i++)
		fprintf(f, "%*s  ", CELL_W - 2, r->variants[o[i]]);
	fputc('\n', f);
	for (mi = 0; mi < p->ndefs; mi++) {
		metric_label(&p->defs[mi], lab, sizeof(lab));
		lab[LABEL_W - 1] = 0;
		fprintf(f, "%-*s", LABEL_W, lab);
		for (i = 0; i < n; i++) {
			g = run_group(r, pt, o[i]);
			if (o[i] == base || !gb || gb->nfailed || !g ||
			    g->nfailed) {
				cell(f, g, mi, NULL);
				continue;
			}
			cmp_compute(&c, &gb->m[mi], &g->m[mi], alpha);
			cell(f, g, mi, &c);
		}
		fputc('\n', f);
		row_extra(f, r, pt, o, n, mi, base, alpha, false);
		if (r->nvariants > 1)
			row_extra(f, r, pt, o, n, mi, base, alpha, true);
	}
}

static void header(FILE *f, const struct run *r, int base, double alpha)
{
	const char *name = strrchr(r->dir, '/');
	int *o = variant_order(r, base);
	int i, k, lo = 1 << 30, hi = 0, nfail = 0;
	struct group *g;

	name = name && name[1] ? name + 1 : r->dir;
	fprintf(f, "rlbench report: %s\n\n", name);
	for (i = 0; i < r->nvariants; i++) {
		const char *rel = NULL, *acc = NULL;

		for (k = 0; k < r->npoints; k++) {
			g = run_group(r, k, o[i]);
			if (!g)
				continue;
			rel = rel ? rel : g->release;
			acc = acc ? acc : g->accel;
			lo = g->niter < lo ? g->niter : lo;
			hi = g->niter > hi ? g->niter : hi;
			nfail += g->nfailed;
		}
		fprintf(f, "%-13s%-12s %s%s%s\n", i ? "" : "Kernels:",
			r->variants[o[i]], rel ? rel : "?",
			acc ? ", accel " : "", acc ? acc : "");
	}
	free(o);
	report_meta_lines(f, r);
	if (lo == hi)
		fprintf(f, "Iterations:  %d per point and variant\n", lo);
	else
		fprintf(f, "Iterations:  %d to %d per point and variant\n",
			lo, hi);
	fprintf(f, "Results:     %d files, %d points, %d variants, "
		"%d failed iterations\n", r->nfiles, r->npoints,
		r->nvariants, nfail);
	fprintf(f, "Baseline:    %s\n\n", r->variants[base]);
	fprintf(f,
"Each cell is value (change against %s). Rates are harmonic means over\n"
"iterations; latencies are percentiles of the histogram merged over all\n"
"threads and iterations. *value (change)* marks a significant difference:\n"
"Welch's two-sided t-test on the per-iteration values, alpha %g.\n"
"CoeffVar is stddev / mean over iterations. MDE is the minimum detectable\n"
"effect: the change this N and noise detect with 80%% power at alpha %g.\n"
"\"not enough iter.\": fewer than 3 iterations on a side, no test made.\n"
"FAILED k/n: k of n iterations failed; the point is not compared.\n",
		r->variants[base], alpha, alpha);
}

/* Mail clients and diff both dislike trailing blanks. */
static int copy_trimmed(FILE *out, const char *s)
{
	const char *nl;
	size_t l;

	for (; *s; s = nl + 1) {
		nl = strchr(s, '\n');
		if (!nl)
			nl = s + strlen(s) - 1;
		l = nl - s + (*nl != '\n');
		while (l && s[l - 1] == ' ')
			l--;
		fwrite(s, 1, l, out);
		if (*nl == '\n')
			fputc('\n', out);
		else
			break;
	}
	return ferror(out) ? -1 : 0;
}

static void tables(FILE *f, const struct run *r, int base, double alpha);

int report_text(FILE *out, const struct run *r, int base, double alpha)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return -1;
	tables(f, r, base, alpha);
	if (fclose(f))
		return -1;
	rc = copy_trimmed(out, buf);
	free(buf);
	return rc;
}

static void tables(FILE *f, const struct run *r, int base, double alpha)
{
	int *o = variant_order(r, base);
	int pt, c;

	header(f, r, base, alpha);
	for (pt = 0; pt < r->npoints; pt++) {
		const struct point *p = r->points[pt];

		fputc('\n', f);
		put_point_line(f, p);
		for (c = 1; c < r->nvariants || c == 1; c += COLS - 1) {
			int sub[COLS], n = 1, k;

			/* every table starts with the baseline */
			sub[0] = o[0];
			for (k = c; k < r->nvariants && n < COLS; k++)
				sub[n++] = o[k];
			if (c > 1)
				fputc('\n', f);
			table(f, r, pt, sub, n, base, alpha);
			if (k >= r->nvariants)
				break;
		}
	}
	free(o);
}
