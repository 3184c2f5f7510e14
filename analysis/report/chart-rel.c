// SPDX-License-Identifier: GPL-2.0
/*
 * The relative charts: each variant's change against the baseline across
 * the matrix (throughput and p99 in time mode, insn/op in cost mode).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

struct rel_cell {
	double pct, lo, hi;	/* NaN: not compared */
};

/*
 * The symmetric axis limit of a relative chart: the gate's threshold thr,
 * every bar and interval,
 * unless an interval reaches past three times the largest bar (a point
 * with two noisy boots can reach +13000% and flatten every other bar);
 * those are clipped at the axis and marked with their true end.
 */
static double rel_limit(const struct rel_cell *rc, int n, double thr)
{
	double bar = thr, ci = thr;
	int i;

	for (i = 0; i < n; i++) {
		if (!isfinite(rc[i].pct))
			continue;
		bar = fmax(bar, fabs(rc[i].pct));
		if (isfinite(rc[i].lo))
			ci = fmax(ci, fabs(rc[i].lo));
		if (isfinite(rc[i].hi))
			ci = fmax(ci, fabs(rc[i].hi));
	}
	return chart_nice_up(fmin(fmax(bar, ci), 3 * bar) * 1.1);
}

/*
 * A change on the chart's axis: percent, or past +-100% the log of the
 * ratio, on which -50% and +100% lie equally far from 0 and a change can
 * never reach below -100%.
 */
static double axis_y(double pct, bool logr)
{
	if (!logr || !isfinite(pct))
		return pct;
	return log2(fmax(1 + pct / 100, 1e-3));
}

/* the log-ratio axis's tics, in percent (%% in a tic label: it is a format) */
static void log_tics(FILE *gp, double ylim)
{
	int k, n = ceil(ylim);

	fputs("set ytics (", gp);
	for (k = -n; k <= n; k++)
		if (k)
			fprintf(gp, "%s'%+.0f%%%%' %d", k > -n ? ", " : "",
				(exp2(k) - 1) * 100, k);
		else
			fprintf(gp, ", '0%%%%' 0");
	fputs(")\n", gp);
}

/* the clipped end of an interval, written where it leaves the axis */
static void clip_label(FILE *gp, double x, double lim, double end)
{
	char *t = xasprintf("to %+.0f%%", end);

	fprintf(gp, "set label ");
	gp_str(gp, t);
	fprintf(gp, " at %.3f, %g left offset 0.5,%g font ',8' tc "
		"rgb '#b00000'\n", x, end > 0 ? lim : -lim,
		end > 0 ? -0.6 : 0.6);
	free(t);
}

/*
 * Change against the baseline across the matrix: the bar is the ratio of
 * geometric means (as percent), the error bar that ratio's 95% CI, on a
 * symmetric axis (of the log-ratio once it passes +-100%); intervals past
 * it are clipped and their end written.
 * The chart widens with its rows, so that tic labels never overlap.
 */
static void rel_chart(struct charts *c, enum metric_kind kind, const char *pct,
		      const char *what, const char *title)
{
	const struct run *r = c->r;
	const struct cell *g;
	const struct gated_metric *it;
	char *plot = NULL, *t;
	struct chart_tics tics = { 0 };
	bool *have = xcalloc(r->nvariants, sizeof(*have));
	int ncand = r->nvariants - 1, pt, mi, v, j, col = 2, rows = 0, k;
	struct rel_cell *rc = NULL;
	char *labels = NULL;
	size_t nlabels = 0;
	FILE *lf;
	double lim, ylim, x, thr, worse;
	bool logr;

	t = xasprintf("%s: change against %s", title, r->variants[c->base]);
	chart_begin(c, xasprintf("relative-%s", what), t,
	      xasprintf("%s: change against %s (ratio of geometric means), "
			"95%% CI; no bar: not compared; an interval past the "
			"axis is cut there, its end written", what,
			r->variants[c->base]));
	free(t);
	for (pt = 0; pt < r->npoints; pt++) {
		const struct point *p = r->points[pt];

		for (mi = 0; mi < p->ndefs; mi++) {
			if (p->defs[mi].kind != kind || (pct &&
			    strcmp(p->defs[mi].pct, pct)))
				continue;
			rc = realloc(rc, (rows + 1) * ncand * sizeof(*rc));
			if (!rc)
				die_input("out of memory");
			chart_tic_add(&tics, p->label, p->defs[mi].op);
			for (v = 0, j = 0; v < r->nvariants; v++) {
				struct rel_cell *e = &rc[rows * ncand + j];

				if (v == c->base)
					continue;
				j++;
				g = run_cell(r, pt, v);
				it = g ? gate_find(c->x->it, c->x->nit, g, mi) :
					 NULL;
				*e = (struct rel_cell){ NAN, NAN, NAN };
				if (!it || !isfinite(it->c.pct))
					continue;
				*e = (struct rel_cell){ it->c.pct,
					chart_bound(it->c.ci_pct_lo),
					chart_bound(it->c.ci_pct_hi) };
				have[v] = true;
			}
			rows++;
		}
	}
	/* the gate's threshold, drawn on the side that is worse */
	thr = kind == METRIC_INSN ? c->x->gt.cost_threshold_pct :
	      kind == METRIC_LAT ? c->x->gt.tail_threshold_pct :
	      c->x->gt.threshold_pct;
	worse = kind == METRIC_OPS ? -thr : thr;
	lim = rel_limit(rc, rows * ncand, thr);
	logr = lim > 100;
	ylim = logr ? log2(1 + lim / 100) : lim;
	/* 24 px a row at least, 14 a bar: -45 degree labels never touch */
	c->width = 240 + rows * (ncand * 14 + 12 > 24 ? ncand * 14 + 12 : 24);
	c->width = c->width < 960 ? 960 : c->width > 4000 ? 4000 : c->width;
	t = xasprintf("change against %s (%%%s)", r->variants[c->base],
		      logr ? ", log-ratio axis" : "");
	fputs("set ylabel ", c->gp);
	gp_str(c->gp, t);
	free(t);
	fprintf(c->gp, "\nset xlabel 'point/op'\nset style data histogram\n"
		"set style histogram errorbars gap 1 lw 1\nset style fill "
		"solid 0.85 border -1\nset xtics rotate by -45\n"
		"set xzeroaxis lt -1\nset yrange [%g:%g]\nset offsets 0, 0, "
		"0.08, 0.08\nset arrow from graph 0, first %g to graph 1, "
		"first %g nohead dt 2 lc rgb '#b00000'\nset label 'threshold "
		"%g%%' at graph 0, first %g left offset 0.5,%d font ',8' "
		"tc rgb '#b00000'\n", -ylim, ylim, axis_y(worse, logr),
		axis_y(worse, logr), thr, axis_y(worse, logr),
		worse > 0 ? 1 : -1);
	if (logr)
		log_tics(c->gp, ylim);
	fputs("$r << EOD\n", c->gp);
	/* the labels of clipped ends follow the data block, never in it */
	lf = open_memstream(&labels, &nlabels);
	if (!lf)
		die_input("out of memory");
	for (k = 0; k < rows; k++) {
		fprintf(c->gp, "%d", k);
		for (j = 0; j < ncand; j++) {
			struct rel_cell *e = &rc[k * ncand + j];

			/* gnuplot's clustered bars: gap 1, ncand a row */
			x = k + (j - (ncand - 1) / 2.0) / (ncand + 1);
			double lo = axis_y(e->lo, logr), hi = axis_y(e->hi, logr);

			if (isfinite(lo) && lo < -ylim) {
				clip_label(lf, x, ylim, e->lo);
				lo = -ylim;
			}
			if (isfinite(hi) && hi > ylim) {
				clip_label(lf, x, ylim, e->hi);
				hi = ylim;
			}
			fprintf(c->gp, " %.4g %.4g %.4g", axis_y(e->pct, logr),
				lo, hi);
		}
		fputc('\n', c->gp);
	}
	fprintf(c->gp, "EOD\n");
	if (fclose(lf))
		die_input("out of memory");
	fputs(labels, c->gp);
	free(labels);
	free(rc);
	chart_tics_put(c->gp, &tics);
	for (v = 0; v < r->nvariants; v++) {
		if (v == c->base)
			continue;
		t = gp_quote(r->variants[v]);
		if (have[v])
			plot = chart_plot_append(plot, "$r using %d:%d:%d lc %d "
					   "title %s", col, col + 1, col + 2,
					   v + 1, t);
		free(t);
		col += 3;
	}
	free(have);
	if (!rows || !plot) {
		chart_render_empty(c, "nothing compared");
		return;
	}
	chart_render(c, plot);
	free(plot);
}

static bool has_mode(const struct run *r, const char *mode)
{
	int pt;

	for (pt = 0; pt < r->npoints; pt++)
		if (!strcmp(r->points[pt]->mode, mode))
			return true;
	return false;
}

void chart_relative(struct charts *c)
{
	if (c->r->nvariants < 2)
		return;
	if (has_mode(c->r, "time")) {
		rel_chart(c, METRIC_OPS, NULL, "throughput", "ops/s");
		rel_chart(c, METRIC_LAT, "99", "p99-latency", "p99 latency");
	}
	if (has_mode(c->r, "cost"))
		rel_chart(c, METRIC_INSN, NULL, "insn-per-op",
			  "instructions per op (cost mode)");
}
