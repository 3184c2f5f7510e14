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

#include "report/report.h"

#define LABEL_W	TABLE_LABEL_W
#define CELL_W	TABLE_CELL_W
#define COLS	3		/* variants per table: 19 + 3 * 20 < 80 */
#define LINE_W	80

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

/*
 * Stars follow the gate: *value (change)* on a gated metric (primary,
 * secondary) that FAILs or moved the better way past the threshold,
 * family-corrected as the gate decides; +value (change)+ the same on an
 * ungated metric by an uncorrected test.
 */
static void cell(FILE *f, const struct cell *g, int mi,
		 const struct gated_metric *x)
{
	char v[32], p[32];
	const char *unit;
	double sc;
	char mark = ' ';

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
	fmt_pct(p, sizeof(p), x ? x->c.pct : 0);
	if (x && x->c.valid && (x->v == V_FAIL || x->better))
		mark = x->fam == FAM_OTHER ? '+' : '*';
	fprintf(f, "%c%s (%s)%c", mark, v, p, mark);
}

enum { ROW_CV, ROW_MDE, ROW_VERDICT };

static void row_extra(FILE *f, const struct gated_run *x, int pt, const int *o,
		      int n, int lw, int mi, int what)
{
	static const char *const lab[] = { "  CoeffVar", "  MDE",
					   "  Verdict" };
	const struct cell *g;
	const struct gated_metric *it;
	char buf[32];
	int i;

	fprintf(f, "%-*s", lw, lab[what]);
	for (i = 0; i < n; i++) {
		g = run_cell(x->r, pt, o[i]);
		it = g ? gate_find(x->it, x->nit, g, mi) : NULL;
		buf[0] = 0;
		if (!g || g->nfailed) {
			/* nothing to say */
		} else if (what == ROW_CV) {
			snprintf(buf, sizeof(buf), "%.2f%%  ",
				 g->m[mi].s.cv * 100);
		} else if (!it) {
			/* the baseline, or a baseline that failed */
		} else if (!it->c.valid) {
			snprintf(buf, sizeof(buf), "not enough iter. ");
		} else if (what == ROW_MDE) {
			if (isnan(it->c.mde_pct))
				snprintf(buf, sizeof(buf), "n/a  ");
			/* past 10x, the figure only says "nothing shows" */
			else if (it->c.mde_pct > 1000)
				snprintf(buf, sizeof(buf), ">1000%%  ");
			else
				snprintf(buf, sizeof(buf), "%.2f%%  ",
					 it->c.mde_pct);
		} else if (it->suit) {
			snprintf(buf, sizeof(buf), "unsuited  ");
		} else {
			snprintf(buf, sizeof(buf), "%s%s  ",
				 verdict_name(it->v),
				 it->better ? ", better" : "");
		}
		fprintf(f, "%*s", CELL_W, buf);
	}
	fputc('\n', f);
}

/*
 * The label column of a point's tables: as wide as its longest metric's
 * label ("p99.9 wide_truncate us"), never cut, and at least LABEL_W so
 * that most points' tables line up with the summary rows below them.
 */
static int label_width(const struct point *p)
{
	char lab[64];
	int mi, w = LABEL_W - 1;

	for (mi = 0; mi < p->ndefs; mi++) {
		int l = strlen(metric_label(&p->defs[mi], lab, sizeof(lab)));

		w = l > w ? l : w;
	}
	return w + 1;
}

/* Variants per table, the baseline's column included, under LINE_W. */
static int table_columns(int lw)
{
	int c = (LINE_W - 1 - lw) / CELL_W;

	return c < 2 ? 2 : c > COLS ? COLS : c;
}

static void table(FILE *f, const struct gated_run *x, int pt, const int *o,
		  int n)
{
	const struct run *r = x->r;
	const struct point *p = r->points[pt];
	const struct cell *g;
	int i, mi, fam, lw = label_width(p);
	char lab[64];

	fprintf(f, "%-*s", lw, "");
	for (i = 0; i < n; i++)
		fprintf(f, "%*s  ", CELL_W - 2, r->variants[o[i]]);
	fputc('\n', f);
	for (mi = 0; mi < p->ndefs; mi++) {
		metric_label(&p->defs[mi], lab, sizeof(lab));
		fprintf(f, "%-*s", lw, lab);
		for (i = 0; i < n; i++) {
			g = run_cell(r, pt, o[i]);
			cell(f, g, mi, g && o[i] != x->base ?
			     gate_find(x->it, x->nit, g, mi) : NULL);
		}
		fputc('\n', f);
		row_extra(f, x, pt, o, n, lw, mi, ROW_CV);
		if (r->nvariants < 2)
			continue;
		row_extra(f, x, pt, o, n, lw, mi, ROW_MDE);
		fam = metric_family(p, mi);
		if (fam != FAM_OTHER)
			row_extra(f, x, pt, o, n, lw, mi, ROW_VERDICT);
	}
	if (!strcmp(p->mode, "time"))
		report_waits_rows(f, x, pt, o, n, lw);
}

/* time-mode points where a primary metric is INCONCLUSIVE, each once */
static int time_undecided(const struct gated_run *x)
{
	const struct run *r = x->r;
	int i, pt, n = 0;

	for (pt = 0; pt < r->npoints; pt++) {
		if (strcmp(r->points[pt]->mode, "time"))
			continue;
		for (i = 0; i < x->nit; i++)
			if (x->it[i].gb->pt == r->points[pt] &&
			    x->it[i].fam == FAM_PRIMARY &&
			    x->it[i].v == V_INCONC)
				break;
		n += i < x->nit;
	}
	return n;
}

static void header(FILE *f, const struct gated_run *x)
{
	const struct run *r = x->r;
	const char *name = strrchr(r->dir, '/');
	int *o = variant_order(r, x->base);
	int i, k, lo = 1 << 30, hi = 0, nfail = 0, modes = 0;
	struct cell *g;
	char stop[160];

	name = name && name[1] ? name + 1 : r->dir;
	fprintf(f, "rlbench report: %s\n\n", name);
	for (i = 0; i < r->nvariants; i++) {
		const char *rel = NULL, *acc = NULL;

		for (k = 0; k < r->npoints; k++) {
			g = run_cell(r, k, o[i]);
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
	for (k = 0; k < r->npoints; k++)
		modes |= strcmp(r->points[k]->mode, "cost") ? 1 : 2;
	report_features(f, r, x->base);
	report_meta_lines(f, r);
	if (!report_auto_mode(f, r))
		fprintf(f, "Mode:        %s\n", modes == 3 ? "time and cost "
			"(separate sections, never compared)" : modes == 2 ?
			"cost (insn/op from QEMU icount)" : "time (wall clock)");
	if (lo == hi)
		fprintf(f, "Iterations:  %d boots per point and variant\n", lo);
	else
		fprintf(f, "Iterations:  %d to %d boots per point and "
			"variant\n", lo, hi);
	if (report_auto_stop(r, time_undecided(x), stop, sizeof(stop)))
		fprintf(f, "             (%s)\n", stop);
	fprintf(f, "Results:     %d files, %d points, %d variants, "
		"%d failed iterations\n", r->nfiles, r->npoints,
		r->nvariants, nfail);
	fprintf(f, "Baseline:    %s\n\n", r->variants[x->base]);
	if (r->nvariants > 1)
		report_verdict_text(f, x);
	fprintf(f,
"Each cell is value (change against %s). A boot is one replicate.\n"
"Rates, insn/op and latency percentiles are geometric means (Gmean) of\n"
"the per-boot values: p99 is the mean of each boot's p99 on the log\n"
"scale. Amean marks a row with a value <= 0, on the linear scale.\n"
"*value (change)*: the gate's decision on a gated metric (primary: the\n"
"main rate of the point; secondary: its p99; one-sided Welch tests on\n"
"the logs, Holm within each family, alpha %g split %g/%g; threshold\n"
"%g%%, %g%% on p99, %g%% in cost mode): FAIL, or better by more than the\n"
"threshold.\n"
"+value (change)+: the same on an ungated metric, uncorrected.\n"
"Verdict: FAIL when the interval of the regression (its lower end\n"
"corrected for the family) lies past the threshold, PASS when it lies\n"
"inside, INCONCLUSIVE otherwise. \"worse, within\": worse, within\n"
"threshold (shown real, allowed: a PASS); \"worse, unclear\": shown real,\n"
"neither inside nor past it. An unsuited cost cell is INCONCLUSIVE.\n"
"CoeffVar is stddev / mean over boots. MDE: the regression found with\n"
"80%% power at the level the gate uses for that metric (noncentral t);\n"
"\">1000%%\": not even an elevenfold rise would show.\n"
"\"not enough iter.\": fewer than 3 boots on a side (2 for insn/op), no\n"
"test made.\n"
"FAILED k/n: k of n iterations failed; the point is not compared.\n",
		r->variants[x->base], x->gt.alpha, x->gt.alpha *
		x->gt.primary_share, x->gt.alpha * (1 - x->gt.primary_share),
		x->gt.threshold_pct, x->gt.tail_threshold_pct,
		x->gt.cost_threshold_pct);
	if (modes & 2)
		fprintf(f,
"unsuited: a cost-mode cell the gate leaves out: its ops run in threads\n"
"of their own (roles sharing the vCPUs: each op is charged the others'\n"
"instructions and their waits) or its boots differ by more than %g%%;\n"
"either way not one op's instruction path.\n"
"Cost mode's gate moderates each cell's variance towards one fitted\n"
"over the run's cells (empirical Bayes, analysis/README.md).\n",
			COST_SUITED_CV * 100);
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

static void tables(FILE *f, const struct gated_run *x);

int report_text(FILE *out, const struct gated_run *x)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return -1;
	tables(f, x);
	report_where(f, x);
	if (fclose(f))
		return -1;
	rc = copy_trimmed(out, buf);
	free(buf);
	return rc;
}

/* mmtests' summary rows: geometric mean of the ratios per variant. */
static void gmean_rows(FILE *f, const struct gated_run *x, const char *mode,
		       const int *o)
{
	const struct run *r = x->r;
	struct gmean_row g;
	char buf[32];
	int c, i, k, sub[COLS];

	fprintf(f, "\nAcross the matrix (%s mode): geometric mean of the "
		"ratios of the\nprimary metric against %s, with its 95%% CI\n",
		mode, r->variants[x->base]);
	for (c = 1; c < r->nvariants; c += COLS) {
		int n = 0;

		for (k = c; k < r->nvariants && n < COLS; k++)
			sub[n++] = o[k];
		fprintf(f, "%-*s", LABEL_W, "");
		for (i = 0; i < n; i++)
			fprintf(f, "%*s  ", CELL_W - 2, r->variants[sub[i]]);
		fprintf(f, "\n%-*s", LABEL_W, "Gmean ratio");
		for (i = 0; i < n; i++) {
			buf[0] = 0;
			if (matrix_gmean(x, sub[i], mode, &g))
				snprintf(buf, sizeof(buf), "%.4f (n=%d)  ",
					 g.ratio, g.npts);
			fprintf(f, "%*s", CELL_W, buf);
		}
		fprintf(f, "\n%-*s", LABEL_W, "  CI95");
		for (i = 0; i < n; i++) {
			buf[0] = 0;
			if (matrix_gmean(x, sub[i], mode, &g) &&
			    isfinite(g.lo))
				snprintf(buf, sizeof(buf), "[%.4f, %.4f]  ",
					 g.lo, g.hi);
			fprintf(f, "%*s", CELL_W, buf);
		}
		fputc('\n', f);
	}
}

static void tables(FILE *f, const struct gated_run *x)
{
	static const char *const modes[] = { "time", "cost" };
	const struct run *r = x->r;
	int *o = variant_order(r, x->base);
	int pt, c, cols, md, seen;

	header(f, x);
	for (md = 0; md < 2; md++) {
		seen = 0;
		for (pt = 0; pt < r->npoints; pt++) {
			const struct point *p = r->points[pt];

			if (strcmp(p->mode, modes[md]))
				continue;
			if (!seen++ && !md && report_auto_tcg(r))
				fputs("\n== Time mode under TCG: the contention "
				      "points, wall clock ==\n"
"No KVM here: TCG's wall clock carries the emulator's speed and the\n"
"host's load. These figures are for structural effects (a lock that\n"
"makes one role wait for another), not for small differences.\n", f);
			else if (seen == 1)
				fprintf(f, "\n== %s ==\n", md ?
					"Cost mode: instructions per operation "
					"(insn/op, lower is better)" :
					"Time mode: wall-clock rates and "
					"latencies");
			fputc('\n', f);
			put_point_line(f, p);
			cols = table_columns(label_width(p));
			for (c = 1; c < r->nvariants || c == 1;
			     c += cols - 1) {
				int sub[COLS], n = 1, k;

				/* every table starts with the baseline */
				sub[0] = o[0];
				for (k = c; k < r->nvariants && n < cols; k++)
					sub[n++] = o[k];
				if (c > 1)
					fputc('\n', f);
				table(f, x, pt, sub, n);
				if (k >= r->nvariants)
					break;
			}
			report_wide_text(f, r, pt, o);
		}
		if (seen && r->nvariants > 1)
			gmean_rows(f, x, modes[md], o);
	}
	if (r->nvariants > 1)
		report_explain_text(f, x);
	free(o);
}
