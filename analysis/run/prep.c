// SPDX-License-Identifier: GPL-2.0
/*
 * A loaded run as the analysis sees it: cost-mode rates become insn/op,
 * each (point, metric) row gets one scale for every variant (the log
 * unless a value <= 0 forbids it), and every cell its summary on that
 * scale. Also the quantisation floor of a metric's variance.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "hist.h"

/*
 * Cost mode: the guest clock counts instructions (1 ns = 1 instruction,
 * all vCPUs), so a point's op rate R gives 1e9 / R instructions per op.
 * Latency and bytes/s in virtual time say nothing more and are dropped.
 */
static void cost_point(struct run *r, int pt)
{
	struct point *p = r->points[pt];
	struct metric_def *nd = xcalloc(p->ndefs ? p->ndefs : 1, sizeof(*nd));
	int *keep = xcalloc(p->ndefs ? p->ndefs : 1, sizeof(*keep));
	int i, k, n = 0, v;

	for (i = 0; i < p->ndefs; i++) {
		struct metric_def *d = &p->defs[i];

		if (d->kind != METRIC_OPS && d->kind != METRIC_COUNTER)
			continue;
		keep[n] = i;
		nd[n] = *d;
		if (d->kind == METRIC_OPS) {
			nd[n].kind = METRIC_INSN;
			nd[n].name = xasprintf("%s.insn_per_op", d->op);
			nd[n].unit = xstrdup("insn/op");
			nd[n].higher_is_better = false;
		}
		n++;
	}
	for (v = 0; v < r->nvariants; v++) {
		struct cell *g = run_cell(r, pt, v);
		struct cell_metric *nm;

		if (!g)
			continue;
		nm = xcalloc(n ? n : 1, sizeof(*nm));
		for (k = 0; k < n; k++) {
			nm[k] = g->m[keep[k]];
			nm[k].def = &nd[k];
			if (nd[k].kind != METRIC_INSN)
				continue;
			for (i = 0; i < nm[k].nvals; i++)
				nm[k].vals[i] = nm[k].vals[i] > 0 ?
					1e9 / nm[k].vals[i] : INFINITY;
		}
		g->m = nm;
		g->nm = n;
	}
	p->defs = nd;
	p->ndefs = n;
	free(keep);
}

struct run *run_open(const char *dir, double conf)
{
	struct run *r = run_load(dir, conf);
	int pt, mi, v, i;

	for (pt = 0; pt < r->npoints; pt++)
		if (!strcmp(r->points[pt]->mode, "cost"))
			cost_point(r, pt);
	for (pt = 0; pt < r->npoints; pt++) {
		struct point *p = r->points[pt];

		for (mi = 0; mi < p->ndefs; mi++) {
			p->defs[mi].linear = p->defs[mi].kind == METRIC_COUNTER;
			for (v = 0; v < r->nvariants; v++) {
				struct cell *g = run_cell(r, pt, v);

				for (i = 0; g && mi < g->nm &&
				     i < g->m[mi].nvals; i++)
					if (!(g->m[mi].vals[i] > 0) ||
					    !isfinite(g->m[mi].vals[i]))
						p->defs[mi].linear = true;
			}
		}
		for (v = 0; v < r->nvariants; v++) {
			struct cell *g = run_cell(r, pt, v);

			for (mi = 0; g && mi < g->nm; mi++) {
				struct cell_metric *gm = &g->m[mi];

				stat_summary(gm->vals, gm->nvals,
					     !gm->def->linear, conf, &gm->s);
				gm->value = gm->s.mean;
			}
		}
	}
	return r;
}

/* Width of the histogram bucket holding v, over v. */
static double bucket_rel(double v)
{
	unsigned int i;

	if (!(v >= 1))
		return 1;
	i = hist_index((uint64_t)v);
	return (double)(hist_bucket_hi(i) - hist_bucket_lo(i) + 1) / v;
}

/*
 * Floor of one value's variance on the scale compared: a value known to
 * a step q (histogram bucket, integer count, 1 / count of a rate) has at
 * least the uniform rounding variance q^2 / 12 (Sheppard).
 */
double metric_floor(const struct cell_metric *gm, bool logscale)
{
	double q = 0, m = 0;
	int i;

	for (i = 0; i < gm->nvals; i++) {
		double v = fabs(gm->vals[i]);

		if (gm->def->kind == METRIC_LAT)
			q = fmax(q, bucket_rel(v) * (logscale ? 1 : v));
		m = fmax(m, v);
	}
	switch (gm->def->kind) {
	case METRIC_COUNTER:
		q = 1;
		break;
	case METRIC_OPS:
	case METRIC_BYTES:
	case METRIC_INSN:
		q = gm->quantum * (logscale ? 1 : m);
		break;
	case METRIC_LAT:
		break;
	}
	return q * q / 12;
}

/* Scale to the unit tables print: latency in us, bytes in MiB/s. */
double metric_scale(const struct metric_def *d, const char **unit)
{
	if (d->kind == METRIC_LAT && !strcmp(d->unit, "ns")) {
		*unit = "us";
		return 1e-3;
	}
	if (d->kind == METRIC_BYTES && (!strcmp(d->unit, "B/s") ||
				    !strcmp(d->unit, "bytes/s"))) {
		*unit = "MiB/s";
		return 1.0 / (1 << 20);
	}
	*unit = d->unit;
	return 1;
}

const char *metric_label(const struct metric_def *d, char *buf, size_t len)
{
	const char *unit, *avg = d->linear ? "Amean" : "Gmean";

	metric_scale(d, &unit);
	switch (d->kind) {
	case METRIC_OPS:
	case METRIC_BYTES:
	case METRIC_INSN:
		snprintf(buf, len, "%s %s %s", avg, d->op, unit);
		break;
	case METRIC_LAT:
		snprintf(buf, len, "p%s %s %s", d->pct, d->op, unit);
		break;
	case METRIC_COUNTER:
		snprintf(buf, len, "Mean %s", d->counter);
		break;
	}
	return buf;
}

/* The baseline variant; one variant alone compares with nothing. */
int run_pick_baseline(const struct run *r, const char *want, bool given)
{
	int b = run_variant_index(r, want);
	int i;

	if (b >= 0)
		return b;
	/* one variant: nothing to compare, any baseline will do */
	if (!given || r->nvariants == 1)
		return 0;
	fprintf(stderr, "rlstat: baseline \"%s\" is not in %s; its variants:",
		want, r->dir);
	for (i = 0; i < r->nvariants; i++)
		fprintf(stderr, " %s", r->variants[i]);
	fputc('\n', stderr);
	exit(EXIT_BADINPUT);
}
