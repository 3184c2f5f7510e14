// SPDX-License-Identifier: GPL-2.0
/*
 * A loaded run as the analysis sees it: cost-mode rates become insn/op,
 * each (point, metric) row gets one scale for every variant (the log
 * unless a value <= 0 forbids it), and every group its summary on that
 * scale. Also the quantisation floor of a metric's variance.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rlstat.h"
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

		if (d->kind != MK_OPS && d->kind != MK_COUNTER)
			continue;
		keep[n] = i;
		nd[n] = *d;
		if (d->kind == MK_OPS) {
			nd[n].kind = MK_INSN;
			nd[n].name = xasprintf("%s.insn_per_op", d->op);
			nd[n].unit = xstrdup("insn/op");
			nd[n].higher_is_better = false;
		}
		n++;
	}
	for (v = 0; v < r->nvariants; v++) {
		struct group *g = run_group(r, pt, v);
		struct group_metric *nm;

		if (!g)
			continue;
		nm = xcalloc(n ? n : 1, sizeof(*nm));
		for (k = 0; k < n; k++) {
			nm[k] = g->m[keep[k]];
			nm[k].def = &nd[k];
			if (nd[k].kind != MK_INSN)
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
			p->defs[mi].linear = p->defs[mi].kind == MK_COUNTER;
			for (v = 0; v < r->nvariants; v++) {
				struct group *g = run_group(r, pt, v);

				for (i = 0; g && mi < g->nm &&
				     i < g->m[mi].nvals; i++)
					if (!(g->m[mi].vals[i] > 0) ||
					    !isfinite(g->m[mi].vals[i]))
						p->defs[mi].linear = true;
			}
		}
		for (v = 0; v < r->nvariants; v++) {
			struct group *g = run_group(r, pt, v);

			for (mi = 0; g && mi < g->nm; mi++) {
				struct group_metric *gm = &g->m[mi];

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
double metric_floor(const struct group_metric *gm, bool logscale)
{
	double q = 0, m = 0;
	int i;

	for (i = 0; i < gm->nvals; i++) {
		double v = fabs(gm->vals[i]);

		if (gm->def->kind == MK_LAT)
			q = fmax(q, bucket_rel(v) * (logscale ? 1 : v));
		m = fmax(m, v);
	}
	switch (gm->def->kind) {
	case MK_COUNTER:
		q = 1;
		break;
	case MK_OPS:
	case MK_BYTES:
	case MK_INSN:
		q = gm->quantum * (logscale ? 1 : m);
		break;
	case MK_LAT:
		break;
	}
	return q * q / 12;
}
