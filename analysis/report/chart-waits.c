// SPDX-License-Identifier: GPL-2.0
/*
 * The companion of the throughput charts: for each time-mode series of
 * points that differ only in threads, how long each variant waited for
 * the invalidation lock per second of the point, and how often, against
 * threads, from its stats boot (run/waits.c). A line names the role the
 * waits are exact for (a point of one op) or "all roles" (several ops:
 * the counters do not tell them apart). One stats boot has no spread,
 * so no line has error bars. Drawn only for a series some variant
 * counted, so a run without stats boots has no such chart.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

static bool time_series(const struct point *p, const struct point *q)
{
	return q->threads >= 0 && !strcmp(q->mode, "time") &&
	       !strcmp(p->workload, q->workload) &&
	       !strcmp(p->params_nothreads, q->params_nothreads);
}

/* the cells' waits of one series: w[pt * nvariants + v] */
static struct cell_waits **series_waits(const struct run *r,
					const struct point *p0, bool *any)
{
	struct cell_waits **w = xcalloc(r->npoints * r->nvariants + 1,
					sizeof(*w));
	int pt, v;

	*any = false;
	for (pt = 0; pt < r->npoints; pt++)
		for (v = 0; v < r->nvariants; v++) {
			if (!time_series(p0, r->points[pt]))
				continue;
			w[pt * r->nvariants + v] =
				cell_waits_load(r, run_cell(r, pt, v));
			*any |= w[pt * r->nvariants + v]->source != NULL;
		}
	return w;
}

static void waits_chart(struct charts *c, int first, int seq,
			struct cell_waits **w)
{
	const struct run *r = c->r;
	const struct point *p0 = r->points[first];
	const struct cell_waits *cw;
	const char *role;
	char *plot = NULL, *t, *q;
	int v, pt, k, rows;

	t = xasprintf("%s: lock waits against threads", p0->workload);
	chart_begin(c, xasprintf("waits-%02d-%s", seq, p0->workload), t,
		    xasprintf("%s (%s): invalidation lock waits vs threads, "
			      "ms waited per second of the point (solid, "
			      "left) and contended acquisitions per second "
			      "(dashed, right), from each variant's stats "
			      "boot (one boot: no interval); per role where "
			      "the point has one op, else all roles",
			      p0->workload, p0->params_nothreads));
	free(t);
	fprintf(c->gp, "set xlabel 'threads'\nset ylabel 'ms waited per s'\n"
		"set y2label 'contended per s'\nset ytics nomirror\n"
		"set y2tics\nset yrange [0:*]\nset y2range [0:*]\n"
		"set offsets 0.3, 0.3, 0, 0\nset xtics (");
	for (pt = 0, k = 0; pt < r->npoints; pt++)
		if (time_series(p0, r->points[pt]))
			fprintf(c->gp, "%s%d", k++ ? ", " : "",
				r->points[pt]->threads);
	fprintf(c->gp, ")\n");
	for (v = 0; v < r->nvariants; v++) {
		rows = 0;
		role = NULL;
		fprintf(c->gp, "$w%d << EOD\n", v);
		for (pt = 0; pt < r->npoints; pt++) {
			cw = w[pt * r->nvariants + v];
			if (!cw || !cw->source || !(cw->runtime_s > 0))
				continue;
			/* one op at every thread count, or all roles */
			role = !rows || (role && cw->role &&
					 !strcmp(role, cw->role)) ?
			       cw->role : NULL;
			rows++;
			fprintf(c->gp, "%d %.6g %.6g\n",
				r->points[pt]->threads,
				cw->wait_ns / 1e6 / cw->runtime_s,
				cw->contended / cw->runtime_s);
		}
		fprintf(c->gp, "EOD\n");
		if (!rows)
			continue;
		t = xasprintf("%s %s", r->variants[v], role ? role :
			      "all roles");
		q = gp_quote(t);
		plot = chart_plot_append(plot, "$w%d using 1:2 axes x1y1 with "
				   "linespoints lw 2 pt 7 lc %d title %s, "
				   "$w%d using 1:3 axes x1y2 with linespoints "
				   "lw 1 dt 2 pt 6 lc %d notitle", v, v + 1, q,
				   v, v + 1);
		free(t);
		free(q);
	}
	if (!plot) {
		chart_render_empty(c, "no variant counted the lock here");
		return;
	}
	plot = chart_plot_append(plot, "NaN with lines lw 1 dt 2 lc rgb "
				 "'#000000' title 'dashed: contended per s'");
	chart_render(c, plot);
	free(plot);
}

void chart_waits(struct charts *c)
{
	const struct run *r = c->r;
	struct cell_waits **w;
	int pt, q, i, seq = 0;
	bool any;

	for (pt = 0; pt < r->npoints; pt++) {
		const struct point *p = r->points[pt];

		if (p->threads < 0 || strcmp(p->mode, "time"))
			continue;
		for (q = 0; q < pt; q++)
			if (time_series(p, r->points[q]))
				break;
		if (q < pt)
			continue;
		/* numbered as the throughput charts of the same series */
		seq++;
		w = series_waits(r, p, &any);
		if (any)
			waits_chart(c, pt, seq, w);
		for (i = 0; i < r->npoints * r->nvariants; i++)
			cell_waits_free(w[i]);
		free(w);
	}
}
