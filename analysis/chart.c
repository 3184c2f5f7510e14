// SPDX-License-Identifier: GPL-2.0
/*
 * Charts: one gnuplot script with inline data blocks, rendered once as
 * PNG (pngcairo) and once as SVG, into a temporary directory inside the
 * run directory and renamed into place when every file is there.
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

#include "rlstat.h"

struct charts {
	FILE *gp;
	const struct run *r;
	const char *tmp;
	int base;
	double alpha;
	struct chart *v;
	int n;
};

/* gnuplot single-quoted string: only ' needs escaping, as ''. */
static void gq(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

static void begin(struct charts *c, int kind, char *name, char *caption)
{
	c->v = realloc(c->v, (c->n + 1) * sizeof(*c->v));
	if (!c->v)
		die_input("out of memory");
	c->v[c->n++] = (struct chart){ name, caption, kind };
	fprintf(c->gp, "\nreset\nset encoding utf8\nset title ");
	gq(c->gp, caption);
	fprintf(c->gp, "\nset key outside right top vertical\n"
		"set grid ytics\nset border 3\nset tics nomirror\n");
}

/* Both terminals from one plot command. */
static void render(struct charts *c, const char *plot)
{
	const char *name = c->v[c->n - 1].name;

	fprintf(c->gp, "set terminal pngcairo size 960,540 noenhanced "
		"font 'sans,10'\nset output '%s/%s.png'\n%s\n", c->tmp, name,
		plot);
	fprintf(c->gp, "set terminal svg size 960,540 noenhanced "
		"font 'sans,10' background '#ffffff'\nset output "
		"'%s/%s.svg'\nreplot\nset output\n", c->tmp, name);
}

static char *plot_append(char *plot, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static char *plot_append(char *plot, const char *fmt, ...)
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

/* Throughput against threads, one line per variant, CI error bars. */
static void tput_chart(struct charts *c, int first, int mi, int seq)
{
	const struct run *r = c->r;
	const struct point *p0 = r->points[first];
	const struct metric_def *d = &p0->defs[mi];
	char *plot = NULL, *name, *cap;
	const char *unit;
	double sc = metric_scale(d, &unit);
	int v, pt, k;

	name = xasprintf("tput-%02d-%s-%s", seq, p0->workload, d->op);
	cap = xasprintf("%s %s: throughput vs threads (%s)", p0->workload,
			d->op, p0->params_nothreads);
	begin(c, CH_TPUT, name, cap);
	fprintf(c->gp, "set xlabel 'threads'\nset ylabel ");
	gq(c->gp, unit);
	fprintf(c->gp, "\nset yrange [0:*]\nset offsets 0.3, 0.3, 0, 0\n"
		"set xtics (");
	for (pt = 0, k = 0; pt < r->npoints; pt++)
		if (!strcmp(r->points[pt]->workload, p0->workload) &&
		    !strcmp(r->points[pt]->params_nothreads,
			    p0->params_nothreads))
			fprintf(c->gp, "%s%d", k++ ? ", " : "",
				r->points[pt]->threads);
	fprintf(c->gp, ")\n");
	for (v = 0; v < r->nvariants; v++) {
		fprintf(c->gp, "$t%d << EOD\n", v);
		for (pt = 0; pt < r->npoints; pt++) {
			const struct point *p = r->points[pt];
			const struct group *g = run_group(r, pt, v);
			const struct group_metric *m;

			if (!g || g->nfailed == g->niter || strcmp(p->workload,
			    p0->workload) || strcmp(p->params_nothreads,
			    p0->params_nothreads))
				continue;
			for (k = 0; k < g->nm; k++)
				if (!strcmp(g->m[k].def->name, d->name))
					break;
			if (k == g->nm)
				continue;
			m = &g->m[k];
			fprintf(c->gp, "%d %.6g %.6g %.6g\n", p->threads,
				m->value * sc,
				(isfinite(m->s.ci_lo) ? m->s.ci_lo : m->value) * sc,
				(isfinite(m->s.ci_hi) ? m->s.ci_hi : m->value) * sc);
		}
		fprintf(c->gp, "EOD\n");
		plot = plot_append(plot, "$t%d using 1:2:3:4 with yerrorlines "
				   "lw 2 pt 7 lc %d title '%s'", v, v + 1,
				   r->variants[v]);
	}
	render(c, plot);
	free(plot);
}

static void tput_charts(struct charts *c)
{
	const struct run *r = c->r;
	int pt, q, mi, seq = 0;

	for (pt = 0; pt < r->npoints; pt++) {
		const struct point *p = r->points[pt];

		if (p->threads < 0)
			continue;
		/* first point of its (workload, other params) series only */
		for (q = 0; q < pt; q++)
			if (r->points[q]->threads >= 0 &&
			    !strcmp(r->points[q]->workload, p->workload) &&
			    !strcmp(r->points[q]->params_nothreads,
				    p->params_nothreads))
				break;
		if (q < pt)
			continue;
		seq++;
		for (mi = 0; mi < p->ndefs; mi++)
			if (p->defs[mi].kind == MK_OPS)
				tput_chart(c, pt, mi, seq);
	}
}

static const double lat_pcts[] = { 50, 99, 99.9 };

/* p50/p99/p99.9 of one op at one point, clustered by variant. */
static void lat_chart(struct charts *c, int pt, const char *op)
{
	const struct run *r = c->r;
	const struct point *p = r->points[pt];
	int v, k, i;

	begin(c, CH_LAT, xasprintf("lat-%s-%s", p->label, op),
	      xasprintf("%s: %s %s - %s latency percentiles", p->label,
			p->workload, p->params_str, op));
	fprintf(c->gp, "set ylabel 'latency (us), log scale'\n"
		"set xlabel 'variant'\nset logscale y\nset style data "
		"histogram\nset style histogram clustered gap 1\n"
		"set style fill solid 0.85 border -1\nset boxwidth 0.9\n"
		"$d << EOD\n");
	for (v = 0; v < r->nvariants; v++) {
		const struct group *g = run_group(r, pt, v);

		if (!g)
			continue;
		for (k = 0; k < g->nops; k++)
			if (!strcmp(g->opname[k], op))
				break;
		if (k == g->nops || !lathist_total(g->ophist[k]))
			continue;
		fprintf(c->gp, "%s", r->variants[v]);
		for (i = 0; i < 3; i++)
			fprintf(c->gp, " %.6g", lathist_percentile(
				g->ophist[k], lat_pcts[i]) / 1e3);
		fputc('\n', c->gp);
	}
	fprintf(c->gp, "EOD\n");
	render(c, "plot $d using 2:xtic(1) title 'p50', '' using 3 title "
	       "'p99', '' using 4 title 'p99.9'");
}

/* CDF of every op and variant at one point, from merged histograms. */
static void cdf_chart(struct charts *c, int pt)
{
	const struct run *r = c->r;
	const struct point *p = r->points[pt];
	char *plot = NULL;
	int v, k, idx, ds = 0;
	double up, cum;
	uint64_t cnt, tot;

	begin(c, CH_CDF, xasprintf("cdf-%s", p->label),
	      xasprintf("%s: %s %s - latency CDF", p->label, p->workload,
			p->params_str));
	fprintf(c->gp, "set xlabel 'latency (us), log scale'\nset ylabel "
		"'fraction of operations <= x'\nset logscale x\n"
		"set yrange [0:1.02]\nset grid xtics ytics\n");
	for (v = 0; v < r->nvariants; v++) {
		const struct group *g = run_group(r, pt, v);

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
			plot = plot_append(plot, "$c%d using 1:2 with steps "
					   "lw 2 lc %d dt %d title '%s %s'", ds,
					   v + 1, k + 1, r->variants[v],
					   g->opname[k]);
			ds++;
		}
	}
	if (!plot)
		plot = xstrdup("plot NaN notitle");
	render(c, plot);
	free(plot);
}

/* An op that no variant ran at this point (reads of a write-only run). */
static bool op_ran(const struct run *r, int pt, const char *op)
{
	int v, k;

	for (v = 0; v < r->nvariants; v++) {
		const struct group *g = run_group(r, pt, v);

		for (k = 0; g && k < g->nops; k++)
			if (!strcmp(g->opname[k], op) &&
			    lathist_total(g->ophist[k]))
				return true;
	}
	return false;
}

static void point_charts(struct charts *c)
{
	const struct run *r = c->r;
	int pt, v, k, q;

	for (pt = 0; pt < r->npoints; pt++) {
		const struct group *g = NULL;

		for (v = 0; v < r->nvariants && !g; v++)
			g = run_group(r, pt, v);
		cdf_chart(c, pt);
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


/* Change against the baseline across the matrix, CI of the change. */
static void rel_chart(struct charts *c, enum mkind kind, const char *pct,
		      const char *what)
{
	const struct run *r = c->r;
	const struct group *gb, *g;
	char *plot = NULL;
	struct cmp cm;
	int pt, mi, v, col = 2, rows = 0;

	begin(c, CH_REL, xasprintf("relative-%s", what),
	      xasprintf("%s: change against %s, with 95%% CI", what,
			r->variants[c->base]));
	fprintf(c->gp, "set ylabel 'change against %s (%%)'\nset xlabel "
		"'point/op'\nset style data histogram\nset style histogram "
		"errorbars gap 1 lw 1\nset style fill solid 0.85 border -1\n"
		"set xtics rotate by -30\nset xzeroaxis lt -1\n$r << EOD\n",
		r->variants[c->base]);
	for (pt = 0; pt < r->npoints; pt++) {
		const struct point *p = r->points[pt];

		gb = run_group(r, pt, c->base);
		for (mi = 0; mi < p->ndefs; mi++) {
			if (p->defs[mi].kind != kind || (pct &&
			    strcmp(p->defs[mi].pct, pct)))
				continue;
			fprintf(c->gp, "%s/%s", p->label, p->defs[mi].op);
			rows++;
			for (v = 0; v < r->nvariants; v++) {
				if (v == c->base)
					continue;
				g = run_group(r, pt, v);
				if (!gb || !g || gb->nfailed || g->nfailed) {
					fprintf(c->gp, " NaN NaN NaN");
					continue;
				}
				cmp_compute(&cm, &gb->m[mi], &g->m[mi],
					    c->alpha);
				double h = (cm.ci_pct_hi - cm.ci_pct_lo) / 2;

				if (!isfinite(h))
					h = 0;
				fprintf(c->gp, " %.4g %.4g %.4g", cm.pct,
					cm.pct - h, cm.pct + h);
			}
			fputc('\n', c->gp);
		}
	}
	fprintf(c->gp, "EOD\n");
	for (v = 0; v < r->nvariants; v++) {
		if (v == c->base)
			continue;
		plot = plot_append(plot, "$r using %d:%d:%d%s lc %d title '%s'",
				   col, col + 1, col + 2,
				   col == 2 ? ":xtic(1)" : "", v + 1,
				   r->variants[v]);
		col += 3;
	}
	if (!rows)
		plot = plot_append(plot, "NaN notitle");
	render(c, plot);
	free(plot);
}

static int run_gnuplot(const char *script, const char *log)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		if (!freopen(log, "w", stdout) || !freopen(log, "a", stderr))
			_exit(127);
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void install(struct charts *c, const char *dir)
{
	static const char *const ext[] = { "png", "svg" };
	struct stat st;
	char *from, *to;
	int i, e;

	for (i = 0; i < c->n; i++)
		for (e = 0; e < 2; e++) {
			from = xasprintf("%s/%s.%s", c->tmp, c->v[i].name,
					 ext[e]);
			to = xasprintf("%s/%s.%s", dir, c->v[i].name, ext[e]);
			if (stat(from, &st) || !st.st_size)
				die_input("gnuplot did not produce %s (script "
					  "and log kept in %s)", from, c->tmp);
			if (rename(from, to))
				die_input("%s: %s", to, strerror(errno));
			free(from);
			free(to);
		}
}

int report_charts(const struct run *r, int base, double alpha,
		  struct chart **charts, int *ncharts)
{
	struct charts c = { .r = r, .base = base, .alpha = alpha };
	char *tmp = xasprintf("%s/.rlstat-charts-XXXXXX", r->dir);
	char *script, *log;
	int rc;

	if (!mkdtemp(tmp))
		die_input("%s: cannot create: %s", tmp, strerror(errno));
	c.tmp = tmp;
	script = xasprintf("%s/charts.gp", tmp);
	log = xasprintf("%s/gnuplot.log", tmp);
	c.gp = fopen(script, "w");
	if (!c.gp)
		die_input("%s: %s", script, strerror(errno));
	tput_charts(&c);
	if (r->nvariants > 1) {
		rel_chart(&c, MK_OPS, NULL, "throughput");
		rel_chart(&c, MK_LAT, "99", "p99-latency");
	}
	point_charts(&c);
	if (fclose(c.gp))
		die_input("%s: %s", script, strerror(errno));
	rc = run_gnuplot(script, log);
	if (rc == 127)
		die_input("gnuplot not found: install gnuplot-nox (make setup)");
	if (rc)
		die_input("gnuplot failed (exit %d); script and log kept in %s",
			  rc, tmp);
	install(&c, r->dir);
	unlink(script);
	unlink(log);
	rmdir(tmp);
	*charts = c.v;
	*ncharts = c.n;
	return 0;
}
