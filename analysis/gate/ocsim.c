// SPDX-License-Identifier: GPL-2.0
/*
 * Operating characteristics of the gate by simulation: a baseline and a
 * candidate variant over a matrix of points, per-boot values drawn by
 * rlsynth's model (a boot-level offset shared by every point of a boot
 * times a per-point noise), decided by gate.c exactly as `rlstat report`
 * and `rlstat next` decide, with or without the sequential rule. Time
 * mode gates a rate and its p99 per point; cost mode one insn/op, looked
 * at once.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "gate/gate.h"

void oc_init(struct oc_scenario *s)
{
	memset(s, 0, sizeof(*s));
	s->points = 5;
	s->cv = 0.03;
	s->boot_share = 0.5;
	s->p99_mult = 3;
	s->n0 = 3;
	s->nmax = 10;
	gate_init(&s->gt);
	s->gt.no_mde = true;
}

struct ocrun {
	struct point pt;
	struct metric_def defs[2];
	struct cell g[2];		/* baseline, candidate */
	struct cell_metric m[2][2];	/* [variant][rate, p99] */
	double vals[2][2][64];
	int n;
};

static void setup(struct ocrun *o, int npts, bool cost)
{
	int p, v, k;

	for (p = 0; p < npts; p++) {
		struct ocrun *x = &o[p];

		memset(x, 0, sizeof(*x));
		x->defs[0] = (struct metric_def){ .name = "read.ops_per_s",
			.unit = "ops/s", .higher_is_better = true,
			.kind = METRIC_OPS, .op = "read" };
		x->defs[1] = (struct metric_def){ .name = "read.lat_ns.p99",
			.unit = "ns", .kind = METRIC_LAT, .op = "read",
			.pct = "99" };
		if (cost)
			x->defs[0] = (struct metric_def){
				.name = "read.insn_per_op", .unit = "insn/op",
				.kind = METRIC_INSN, .op = "read" };
		x->pt = (struct point){ .label = "p",
			.mode = cost ? "cost" : "time", .defs = x->defs,
			.ndefs = cost ? 1 : 2 };
		for (v = 0; v < 2; v++) {
			x->g[v] = (struct cell){ .variant = v ? "b" : "a",
				.pt = &x->pt, .m = x->m[v], .nm = x->pt.ndefs };
			for (k = 0; k < 2; k++)
				x->m[v][k] = (struct cell_metric){
					.def = &x->defs[k],
					.vals = x->vals[v][k] };
		}
	}
}

/*
 * One boot's values at one point: rlsynth's rate * boot * (1 + noise),
 * and a p99 that moves against the rate with three times its noise; in
 * cost mode insn/op, which moves against the rate.
 */
static void draw(const struct oc_scenario *s, gsl_rng *rng, struct ocrun *x,
		 int p, int v, int i, double boot, bool planted)
{
	double scale = 1 + (v && planted ? s->effect : 0);
	double cv = s->cv, sw, rate;

	/* the boot's offset stays that of s->cv; the point's own grows */
	if (s->cv_last > s->cv && s->points > 1)
		cv *= pow(s->cv_last / s->cv, (double)p / (s->points - 1));
	sw = sqrt(cv * cv - s->boot_share * s->cv * s->cv);
	rate = 20000 * scale * boot * (1 + gsl_ran_gaussian(rng, sw));

	x->vals[v][0][i] = s->cost ? 1e9 / rate : rate;
	x->vals[v][1][i] = 1e5 / scale / boot *
		exp(gsl_ran_gaussian(rng, s->p99_mult * sw));
}

static void set_n(struct ocrun *x)
{
	int v, k;

	for (v = 0; v < 2; v++)
		for (k = 0; k < 2; k++)
			x->m[v][k].nvals = x->n;
}

void oc_run(const struct oc_scenario *s, unsigned long seed, int trials,
	    struct oc_result *res)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct ocrun *o = xcalloc(s->points, sizeof(*o));
	struct gated_metric *it = xcalloc(2 * s->points, sizeof(*it));
	int nm = s->cost ? 1 : 2;
	double sb = s->cv * sqrt(s->boot_share), boot[2][64];
	struct gate gt = s->gt;
	long iters = 0;
	int t, p, v, i, k, n, out[3] = { 0 };
	bool more;

	gsl_rng_set(rng, seed);
	gt.sequential = s->n0 < s->nmax && !s->naive;
	gt.max_iter = s->nmax;
	setup(o, s->points, s->cost);
	for (t = 0; t < trials; t++) {
		for (v = 0; v < 2; v++)
			for (i = 0; i < s->nmax; i++)
				boot[v][i] = exp(gsl_ran_gaussian(rng, sb));
		for (p = 0; p < s->points; p++) {
			o[p].n = 0;
			for (i = 0; i < s->nmax; i++)
				for (v = 0; v < 2; v++)
					draw(s, rng, &o[p], p, v, i, boot[v][i],
					     s->all_points || !p);
		}
		for (p = 0; p < s->points; p++)
			o[p].n = s->n0;
		do {
			for (p = 0, n = 0; p < s->points; p++) {
				set_n(&o[p]);
				for (k = 0; k < nm; k++) {
					memset(&it[n], 0, sizeof(*it));
					it[n].ga = &o[p].g[0];
					it[n].gb = &o[p].g[1];
					it[n++].mi = k;
				}
			}
			gate_run(&gt, it, n);
			more = false;
			if (s->n0 >= s->nmax)
				break;
			/* the undecided points get one more boot a side */
			for (p = 0; p < s->points; p++)
				for (k = 0; k < nm; k++)
					if (gate_undecided(&gt, &it[nm * p + k])) {
						o[p].n++;
						more = true;
						break;
					}
		} while (more);
		out[gate_overall(it, n, 0)]++;
		for (p = 0; p < s->points; p++)
			iters += o[p].n;
	}
	res->fail = (double)out[V_FAIL] / trials;
	res->pass = (double)out[V_PASS] / trials;
	res->inconc = (double)out[V_INCONC] / trials;
	res->iters = (double)iters / trials / s->points;
	free(o);
	free(it);
	gsl_rng_free(rng);
}
