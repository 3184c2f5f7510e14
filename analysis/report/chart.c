// SPDX-License-Identifier: GPL-2.0
/*
 * Charts: one gnuplot script with inline data blocks, rendered once as
 * PNG (pngcairo) and once as SVG, into the report's staging directory
 * (stage.c), installed with the report when every file is there.
 *
 * Names (variants, points, ops, units) reach the script only through
 * gp_str, as single-quoted strings; a data block holds numbers only (a
 * category's name is its row's tic label, `set xtics ('name' row)`), so
 * no name can start a line with the block's end marker and end the block.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report/report.h"

/* A missing or infinite bound is NaN: gnuplot then draws no error bar. */
double chart_bound(double v)
{
	return isfinite(v) ? v : NAN;
}

/*
 * A chart named name (its files), its title on the image short enough to
 * fit (the point and the question), its caption in report.html the whole
 * story (every parameter, the statistics).
 */
void chart_begin(struct charts *c, char *name, const char *title,
		 char *caption)
{
	c->v = realloc(c->v, (c->n + 1) * sizeof(*c->v));
	if (!c->v)
		die_input("out of memory");
	c->v[c->n++] = (struct chart){ name, caption, c->kind };
	c->width = 960;
	fprintf(c->gp, "\nreset\nset encoding utf8\nset title ");
	gp_str(c->gp, title);
	fprintf(c->gp, "\nset key outside right top vertical\n"
		"set grid ytics\nset border 3\nset tics nomirror\n");
}

/*
 * Both terminals from one plot command. gnuplot runs in the chart
 * directory: the run directory's path, whatever it holds (a quote, a
 * newline), never enters the script.
 */
void chart_render(struct charts *c, const char *plot)
{
	const char *name = c->v[c->n - 1].name;
	char *png = xasprintf("%s.png", name), *svg = xasprintf("%s.svg", name);

	fprintf(c->gp, "set terminal pngcairo size %d,540 noenhanced "
		"font 'sans,10'\nset output ", c->width);
	gp_str(c->gp, png);
	fprintf(c->gp, "\n%s\nset terminal svg size %d,540 noenhanced "
		"font 'sans,10' background '#ffffff'\nset output ", plot,
		c->width);
	gp_str(c->gp, svg);
	fprintf(c->gp, "\nreplot\nset output\n");
	free(png);
	free(svg);
}


void chart_tic_add(struct chart_tics *t, const char *a, const char *b)
{
	char *s = xasprintf("%s%s%s", a, b ? "/" : "", b ? b : "");

	if (!t->f && !(t->f = open_memstream(&t->buf, &t->len)))
		die_input("out of memory");
	fputs(t->n ? ", " : "set xtics (", t->f);
	gp_str(t->f, s);
	fprintf(t->f, " %d", t->n++);
	free(s);
}

void chart_tics_put(FILE *gp, struct chart_tics *t)
{
	if (!t->f)
		return;
	fclose(t->f);
	fprintf(gp, "%s)\n", t->buf);
	free(t->buf);
}

/* gnuplot refuses a plot without one valid point: say why it is empty. */
void chart_render_empty(struct charts *c, const char *why)
{
	fprintf(c->gp, "set label 1 ");
	gp_str(c->gp, why);
	fprintf(c->gp, " at graph 0.5, 0.6 center\nunset xtics\n"
		"unset ytics\nunset logscale\n");
	chart_render(c, "plot [0:1] [-1:1] 0 with lines lt 0 notitle");
}

/* plot, with one more plot element after a comma */
char *chart_plot_append(char *plot, const char *fmt, ...)
{
	va_list ap;
	char *s, *t;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die_input("out of memory");
	va_end(ap);
	t = xasprintf("%s%s%s", plot ? plot : "plot ",
		      plot ? ", \\\n     " : "", s);
	free(plot);
	free(s);
	return t;
}

static bool same_series(const struct point *p, const struct point *q)
{
	return q->threads >= 0 && !strcmp(p->workload, q->workload) &&
	       !strcmp(p->mode, q->mode) &&
	       !strcmp(p->params_nothreads, q->params_nothreads);
}

/* a round axis limit at or above x: 1, 2 or 5 times a power of ten */
double chart_nice_up(double x)
{
	double p = pow(10, floor(log10(x))), m[] = { 1, 2, 5, 10 };
	int i;

	for (i = 0; i < 4; i++)
		if (m[i] * p >= x * (1 - 1e-9))
			return m[i] * p;
	return 10 * p;
}

/* metric d of variant v at point pt of p0's series, NULL if none ran */
static const struct cell_metric *series_metric(const struct run *r,
					       const struct point *p0, int pt,
					       int v, const struct metric_def *d)
{
	const struct cell *g = run_cell(r, pt, v);
	int k;

	if (!g || g->nfailed || !same_series(p0, r->points[pt]))
		return NULL;
	for (k = 0; k < g->nm; k++)
		if (!strcmp(g->m[k].def->name, d->name))
			return &g->m[k];
	return NULL;
}

/*
 * Throughput (insn/op in cost mode) against threads, one line per
 * variant, with the CI of the geometric mean as error bars; a point
 * without a CI has no bar rather than a zero-width one. An interval
 * reaching past twice the highest mean is cut at the axis, its end
 * written, so that it does not flatten the lines.
 */
static void tput_chart(struct charts *c, int first, int mi, int seq)
{
	const struct run *r = c->r;
	const struct point *p0 = r->points[first];
	const struct metric_def *d = &p0->defs[mi];
	const struct cell_metric *m;
	bool cost = d->kind == METRIC_INSN;
	char *plot = NULL, *name, *cap, *t;
	const char *unit;
	double sc = metric_scale(d, &unit), top = 0, reach = 0, ymax = 0, hi;
	int v, pt, k, rows;

	name = xasprintf("%s-%02d-%s-%s", cost ? "cost" : "tput", seq,
			 p0->workload, d->op);
	cap = xasprintf("%s %s: %s vs threads (%s), geometric mean, 95%% CI",
			p0->workload, d->op, cost ? "insn/op (cost mode)" :
			"throughput", p0->params_nothreads);
	t = xasprintf("%s %s: %s against threads", p0->workload, d->op,
		      cost ? "instructions per op (cost mode)" : "ops/s");
	chart_begin(c, name, t, cap);
	free(t);
	for (v = 0; v < r->nvariants; v++)
		for (pt = 0; pt < r->npoints; pt++)
			if ((m = series_metric(r, p0, pt, v, d))) {
				top = fmax(top, m->value * sc);
				if (isfinite(m->s.ci_hi))
					reach = fmax(reach, m->s.ci_hi * sc);
			}
	if (reach > 2 * top && top > 0)
		ymax = chart_nice_up(2 * top);
	fprintf(c->gp, "set xlabel 'threads'\nset ylabel ");
	gp_str(c->gp, unit);
	if (ymax > 0)
		fprintf(c->gp, "\nset yrange [0:%g]", ymax);
	else
		fprintf(c->gp, "\nset yrange [0:*]");
	fprintf(c->gp, "\nset offsets 0.3, 0.3, 0, 0\nset xtics (");
	for (pt = 0, k = 0; pt < r->npoints; pt++)
		if (same_series(p0, r->points[pt]))
			fprintf(c->gp, "%s%d", k++ ? ", " : "",
				r->points[pt]->threads);
	fprintf(c->gp, ")\n");
	for (v = 0; v < r->nvariants; v++) {
		rows = 0;
		fprintf(c->gp, "$t%d << EOD\n", v);
		for (pt = 0; pt < r->npoints; pt++) {
			if (!(m = series_metric(r, p0, pt, v, d)))
				continue;
			rows++;
			hi = chart_bound(m->s.ci_hi) * sc;
			fprintf(c->gp, "%d %.6g %.6g %.6g\n",
				r->points[pt]->threads, m->value * sc,
				chart_bound(m->s.ci_lo) * sc,
				ymax > 0 && hi > ymax ? ymax : hi);
		}
		fprintf(c->gp, "EOD\n");
		if (!rows)
			continue;
		t = gp_quote(r->variants[v]);
		plot = chart_plot_append(plot, "$t%d using 1:2 with linespoints "
				   "lw 2 pt 7 lc %d title %s, $t%d using "
				   "1:2:3:4 with yerrorbars lc %d pt 7 "
				   "notitle", v, v + 1, t, v, v + 1);
		free(t);
	}
	for (v = 0; ymax > 0 && v < r->nvariants; v++)
		for (pt = 0; pt < r->npoints; pt++)
			if ((m = series_metric(r, p0, pt, v, d)) &&
			    isfinite(m->s.ci_hi) && m->s.ci_hi * sc > ymax) {
				t = xasprintf("%s: to %.6g", r->variants[v],
					      m->s.ci_hi * sc);
				fprintf(c->gp, "set label ");
				gp_str(c->gp, t);
				fprintf(c->gp, " at %d, %g left offset 0.5,-0.6 "
					"font ',8' tc rgb '#b00000'\n",
					r->points[pt]->threads, ymax);
				free(t);
			}
	if (!plot) {
		chart_render_empty(c, "no variant ran this series cleanly");
		return;
	}
	chart_render(c, plot);
	free(plot);
}

static void tput_charts(struct charts *c)
{
	const struct run *r = c->r;
	int pt, q, mi, seq[2] = { 0, 0 }, cost;

	for (pt = 0; pt < r->npoints; pt++) {
		const struct point *p = r->points[pt];

		if (p->threads < 0)
			continue;
		cost = !strcmp(p->mode, "cost");
		/* first point of its (workload, mode, other params) series */
		for (q = 0; q < pt; q++)
			if (same_series(p, r->points[q]))
				break;
		if (q < pt)
			continue;
		seq[cost]++;
		for (mi = 0; mi < p->ndefs; mi++)
			if (p->defs[mi].kind == METRIC_OPS ||
			    p->defs[mi].kind == METRIC_INSN)
				tput_chart(c, pt, mi, seq[cost]);
	}
}

static const char *const lat_pcts[] = { "50", "99", "99.9" };

/*
 * p50/p99/p99.9 of one op at one point, clustered by variant: the
 * geometric mean of the per-boot percentiles with its 95% CI, the same
 * statistic the tables show; a percentile the results do not list as a
 * metric is left out.
 */
static void lat_chart(struct charts *c, int pt, const char *op)
{
	const struct run *r = c->r;
	const struct point *p = r->points[pt];
	char *plot = NULL, *t;
	struct chart_tics tics = { 0 };
	bool have[3] = { false, false, false };
	int v, k, i;

	t = xasprintf("%s %s: latency percentiles by variant", p->label, op);
	chart_begin(c, xasprintf("lat-%s-%s", p->label, op), t,
	      xasprintf("%s: %s %s - %s latency percentiles (geometric mean "
			"of per-boot values, 95%% CI)", p->label, p->workload,
			p->params_str, op));
	free(t);
	fprintf(c->gp, "set ylabel 'latency (us), log scale'\n"
		"set xlabel 'variant'\nset logscale y\nset style data "
		"histogram\nset style histogram errorbars gap 1 lw 1\n"
		"set style fill solid 0.85 border -1\nset boxwidth 0.9\n"
		"$d << EOD\n");
	for (v = 0; v < r->nvariants; v++) {
		const struct cell *g = run_cell(r, pt, v);

		if (!g || g->nfailed)
			continue;
		fprintf(c->gp, "%d", tics.n);
		chart_tic_add(&tics, r->variants[v], NULL);
		for (i = 0; i < 3; i++) {
			const struct cell_metric *m = NULL;

			for (k = 0; k < g->nm; k++)
				if (g->m[k].def->kind == METRIC_LAT &&
				    !strcmp(g->m[k].def->op, op) &&
				    !strcmp(g->m[k].def->pct, lat_pcts[i]))
					m = &g->m[k];
			if (!m || !(m->value > 0)) {
				fprintf(c->gp, " NaN NaN NaN");
				continue;
			}
			have[i] = true;
			fprintf(c->gp, " %.6g %.6g %.6g",
					m->value / 1e3,
					chart_bound(m->s.ci_lo) / 1e3,
					chart_bound(m->s.ci_hi) / 1e3);
		}
		fputc('\n', c->gp);
	}
	fprintf(c->gp, "EOD\n");
	chart_tics_put(c->gp, &tics);
	for (i = 0; i < 3; i++)
		if (have[i])
			plot = chart_plot_append(plot, "$d using %d:%d:%d title "
					   "'p%s'", 2 + 3 * i, 3 + 3 * i,
					   4 + 3 * i, lat_pcts[i]);
	if (!plot) {
		chart_render_empty(c, "no latency percentile metrics");
		return;
	}
	chart_render(c, plot);
	free(plot);
}

/* CDF of every op and variant at one point, from merged histograms. */
static void cdf_chart(struct charts *c, int pt)
{
	const struct run *r = c->r;
	const struct point *p = r->points[pt];
	char *plot = NULL, *t, *q;
	int v, k, idx, ds = 0;
	double up, cum;
	uint64_t cnt, tot;

	t = xasprintf("%s: latency CDF by variant and op", p->label);
	chart_begin(c, xasprintf("cdf-%s", p->label), t,
	      xasprintf("%s: %s %s - latency CDF", p->label, p->workload,
			p->params_str));
	free(t);
	fprintf(c->gp, "set xlabel 'latency (us), log scale'\nset ylabel "
		"'fraction of operations <= x'\nset logscale x\n"
		"set yrange [0:1.02]\nset grid xtics ytics\n");
	for (v = 0; v < r->nvariants; v++) {
		const struct cell *g = run_cell(r, pt, v);

		for (k = 0; g && k < g->nops; k++) {
			tot = lathist_total(g->ophist[k]);
			if (!tot)
				continue;
			fprintf(c->gp, "$c%d << EOD\n", ds);
			idx = -1;
			cum = 0;
			while (lathist_next(g->ophist[k], &idx, &up, &cnt)) {
				cum += cnt;
				fprintf(c->gp, "%.6g %.6g\n", (up + 1) / 1e3,
					cum / tot);
			}
			fprintf(c->gp, "EOD\n");
			t = xasprintf("%s %s", r->variants[v], g->opname[k]);
			q = gp_quote(t);
			plot = chart_plot_append(plot, "$c%d using 1:2 with steps "
					   "lw 2 lc %d dt %d title %s", ds,
					   v + 1, k + 1, q);
			free(t);
			free(q);
			ds++;
		}
	}
	if (plot)
		chart_render(c, plot);
	else
		chart_render_empty(c, "no variant has latencies at this point");
	free(plot);
}

/* An op that no variant ran at this point (reads of a write-only run). */
static bool op_ran(const struct run *r, int pt, const char *op)
{
	int v, k;

	for (v = 0; v < r->nvariants; v++) {
		const struct cell *g = run_cell(r, pt, v);

		for (k = 0; g && k < g->nops; k++)
			if (!strcmp(g->opname[k], op) &&
			    lathist_total(g->ophist[k]))
				return true;
	}
	return false;
}

static void cdf_charts(struct charts *c)
{
	int pt;

	/* cost mode has no latency: virtual time is instructions */
	for (pt = 0; pt < c->r->npoints; pt++)
		if (strcmp(c->r->points[pt]->mode, "cost"))
			cdf_chart(c, pt);
}

static void lat_charts(struct charts *c)
{
	const struct run *r = c->r;
	int pt, v, k, q;

	for (pt = 0; pt < r->npoints; pt++) {
		const struct cell *g = NULL;

		if (!strcmp(r->points[pt]->mode, "cost"))
			continue;
		for (v = 0; v < r->nvariants && !g; v++)
			g = run_cell(r, pt, v);
		/* ops in the order of the first variant that ran the point */
		for (k = 0; g && k < g->nops; k++) {
			for (q = 0; q < k; q++)
				if (!strcmp(g->opname[q], g->opname[k]))
					break;
			if (q == k && op_ran(r, pt, g->opname[k]))
				lat_chart(c, pt, g->opname[k]);
		}
	}
}

/*
 * Every kind of chart, in the order report.html shows them: a kind with a
 * heading gets a section of its own before the tables, one without shows
 * its charts in the section of each point whose label starts the caption.
 * A new kind is a function and a row here.
 */
const struct chart_kind chart_kinds[] = {
	{ .name = "tput", .make = tput_charts,
	  .what = "rate (time mode) or insn/op (cost mode) against threads, per op",
	  .heading = "Throughput (time mode) and insn/op (cost mode) against threads" },
	{ .name = "waits", .make = chart_waits,
	  .what = "lock waits against threads, per variant and role (runs with a stats boot)",
	  .heading = "Lock waits against threads (time mode, stats boot)" },
	{ .name = "relative", .make = chart_relative,
	  .what = "change against the baseline across the matrix",
	  .heading = "Change against the baseline" },
	{ .name = "lat", .make = lat_charts,
	  .what = "p50/p99/p99.9 per point and op, by variant" },
	{ .name = "cdf", .make = cdf_charts,
	  .what = "latency CDF per point, by variant" },
	{ .name = "prof", .make = chart_profile,
	  .what = "insn/op by function per cost point and variant (runs with PROFILE=insn)",
	  .heading = "Where the instructions go (cost mode, instruction profile)" },
	{ .name = NULL },
};

/*
 * The charts of a run into the staging directory draw (stage.c), checked
 * complete and added to its outputs; with draw NULL only their names and
 * captions, for `rlstat charts`, and no file is written.
 */
int report_charts(const struct gated_run *x, struct chart **charts, int *ncharts,
		  struct stage *draw)
{
	static const char *const ext[] = { "png", "svg" };
	const struct run *r = x->r;
	struct charts c = { .x = x, .r = r, .base = x->base };
	char *script, *file;
	int i, e;

	script = draw ? xasprintf("%s/charts.gp", stage_dir(draw)) :
		 xstrdup("/dev/null");
	c.gp = fopen(script, draw ? "wx" : "w");
	if (!c.gp)
		die_input("%s: cannot write the charts: %s", r->dir,
			  strerror(errno));
	for (c.kind = chart_kinds; c.kind->name; c.kind++)
		c.kind->make(&c);
	if (fclose(c.gp))
		die_input("%s: cannot write the charts: %s", r->dir,
			  strerror(errno));
	free(script);
	*charts = c.v;
	*ncharts = c.n;
	if (!draw)
		return 0;
	gp_run(stage_dir(draw), "charts.gp");
	for (i = 0; i < c.n; i++)
		for (e = 0; e < 2; e++) {
			file = xasprintf("%s.%s", c.v[i].name, ext[e]);
			gp_check(stage_dir(draw), file);
			stage_add(draw, file);
			free(file);
		}
	return 0;
}
