// SPDX-License-Identifier: GPL-2.0
/*
 * What a difference is made of: for each time-mode point where the gate
 * finds a variant different from the baseline, per role (op), its rate
 * change split into the change of its work mix and the change of each
 * kind's cost (a shift-share decomposition), from rlwork's ops[].kinds,
 * and the point's lock waits when the lock counters recorded them. A rate
 * per role alone cannot tell "each fault waited longer" from "more faults
 * landed on holes, which cost more" (issue #35); this computes which.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>

#include "report/report.h"

/* the part that explains a change must be this many times the other */
#define DOMINANCE	2.0

/* one boot's ns per op of kind k, or the pooled one when it has none */
static double kind_cost(const struct op_mix *m, int b, int k, double pooled)
{
	double n = m->count[b * m->nkinds + k];

	return n > 0 ? m->ns[b * m->nkinds + k] / n : pooled;
}

/* pooled over boots: share of ops and ns per op of each kind */
static void pool(const struct op_mix *m, int nb, double *share,
		 double *cost)
{
	double ops = 0, n, ns;
	int b, k;

	for (b = 0; b < nb; b++)
		ops += m->ops[b];
	for (k = 0; k < m->nkinds; k++) {
		for (b = 0, n = ns = 0; b < nb; b++) {
			n += m->count[b * m->nkinds + k];
			ns += m->ns[b * m->nkinds + k];
		}
		share[k] = ops > 0 ? n / ops : 0;
		cost[k] = n > 0 ? ns / n : NAN;
	}
}

/*
 * The log of the rate a cycle T (ns per op and thread) of the baseline
 * would become with the mix share[] at the costs cost[]: the untimed
 * part of T (T - its timed mean) kept, the timed part re-weighted.
 */
static double mix_effect(double T, const double *bshare, const double *cost,
			 const double *share, int nk)
{
	double timed = 0, mixed = 0, rest;
	int k;

	for (k = 0; k < nk; k++) {
		timed += bshare[k] * cost[k];
		mixed += share[k] * cost[k];
	}
	rest = T - timed > 0 ? T - timed : 0;
	return rest + mixed > 0 ? log(T / (rest + mixed)) : 0;
}

static double var(const double *x, int n)
{
	double m = 0, s = 0;
	int i;

	for (i = 0; i < n; i++)
		m += x[i] / n;
	for (i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	return n > 1 ? s / (n - 1) : NAN;
}

static bool same_kinds(const struct op_mix *a, const struct op_mix *b)
{
	int k;

	if (a->nkinds != b->nkinds)
		return false;
	for (k = 0; k < a->nkinds; k++)
		if (strcmp(a->kind[k], b->kind[k]))
			return false;
	return true;
}

static void decide(struct role_split *s)
{
	double lo_m = fmax(0, fabs(s->mix) - s->hw_mix);
	double lo_r = fmax(0, fabs(s->res) - s->hw_res);
	double hi_m = fabs(s->mix) + s->hw_mix, hi_r = fabs(s->res) + s->hw_res;

	if (fabs(s->total) <= s->hw_total) {
		s->cause = CAUSE_NONE;
	} else if (lo_m >= DOMINANCE * hi_r) {
		s->cause = CAUSE_MIX;
	} else if (lo_r >= DOMINANCE * hi_m) {
		s->cause = CAUSE_COST;
	} else {
		s->cause = CAUSE_UNDECIDED;
		s->why = fabs(s->mix) >= DOMINANCE * fabs(s->res) ?
			"intervals too wide (the mix part looks larger)" :
			fabs(s->res) >= DOMINANCE * fabs(s->mix) ?
			"intervals too wide (per kind looks larger)" :
			"neither part is twice the other";
	}
}

/*
 * b, v: the op in the baseline's and the variant's cell; kinded: the
 * cells count kinds at all, so an op without them has one kind (its mix
 * cannot change) rather than uncounted ones.
 */
void explain_split(const struct op_mix *b, int nb, const struct op_mix *v,
		   int nv, bool kinded, struct role_split *s)
{
	double *lb = xcalloc(nb + 1, sizeof(double));
	double *lv = xcalloc(nv + 1, sizeof(double));
	double *mb = xcalloc(nb + 1, sizeof(double));
	double *mv = xcalloc(nv + 1, sizeof(double));
	double sv[MIX_KINDS], cv[MIX_KINDS], cb_j[MIX_KINDS], sb_j[MIX_KINDS];
	double tb = 0, tv = 0, t;
	int i, k, n_b = 0, n_v = 0;

	memset(s, 0, sizeof(*s));
	s->op = b->op;
	for (i = 0; i < nb; i++)
		if (b->cycle_ns[i] > 0)
			lb[n_b++] = log(b->cycle_ns[i]);
	for (i = 0; i < nv; i++)
		if (v->cycle_ns[i] > 0)
			lv[n_v++] = log(v->cycle_ns[i]);
	if (n_b < 2 || n_v < 2 || n_b < nb || n_v < nv) {
		s->cause = CAUSE_UNDECIDED;
		s->why = n_b < nb || n_v < nv ? "a boot without this op" :
			 "fewer than 2 boots on a side";
		goto out;
	}
	for (i = 0; i < n_b; i++)
		tb += lb[i] / n_b;
	for (i = 0; i < n_v; i++)
		tv += lv[i] / n_v;
	s->total = tb - tv;	/* log of the variant's rate over the baseline's */
	t = gsl_cdf_tdist_Pinv(0.975, n_b + n_v - 2);
	s->hw_total = t * sqrt(var(lb, n_b) / n_b + var(lv, n_v) / n_v);
	if (b->nkinds && same_kinds(b, v)) {
		s->nkinds = b->nkinds;
		for (k = 0; k < b->nkinds; k++)
			s->kind[k] = b->kind[k];
		pool(b, n_b, s->share_b, s->cost_b);
		pool(v, n_v, s->share_v, s->cost_v);
		/* a kind the baseline never ran: at the variant's cost */
		for (k = 0; k < s->nkinds; k++)
			cv[k] = isnan(s->cost_b[k]) ? (isnan(s->cost_v[k]) ? 0 :
					s->cost_v[k]) : s->cost_b[k];
		s->mix = mix_effect(exp(tb), s->share_b, cv, s->share_v,
				    s->nkinds);
		/* the spread: each variant boot's mix, each baseline boot's cost */
		for (i = 0; i < n_v; i++) {
			for (k = 0; k < s->nkinds; k++)
				sv[k] = v->count[i * s->nkinds + k] / v->ops[i];
			mv[i] = mix_effect(exp(tb), s->share_b, cv, sv,
					   s->nkinds);
		}
		for (i = 0; i < n_b; i++) {
			for (k = 0; k < s->nkinds; k++) {
				sb_j[k] = b->count[i * s->nkinds + k] /
					  b->ops[i];
				cb_j[k] = kind_cost(b, i, k, cv[k]);
			}
			mb[i] = mix_effect(b->cycle_ns[i], sb_j, cb_j,
					   s->share_v, s->nkinds);
		}
		s->hw_mix = t * sqrt(var(mv, n_v) / n_v + var(mb, n_b) / n_b);
	} else if (b->nkinds || v->nkinds || !kinded) {
		s->cause = CAUSE_UNCOUNTED;
		s->why = b->nkinds || v->nkinds ? "the two sides count "
			 "different kinds" : "no work-mix counts (ops[].kinds)";
		goto out;
	}
	/* the rest; an op of one kind has no mix part, so this is all */
	s->res = s->total - s->mix;
	s->hw_res = sqrt(s->hw_total * s->hw_total + s->hw_mix * s->hw_mix);
	decide(s);
out:
	free(lb);
	free(lv);
	free(mb);
	free(mv);
}

/*
 * Any gated metric of g the gate finds moved (FAIL, better, worse); else
 * any role's rate moved past the threshold by its own uncorrected test:
 * a multi-role point gates one role, and a lock that frees another
 * (punches that no longer wait) moves that one most; and a gated rate
 * the family's correction keeps from "better" still differs. Verdicts 3
 * and 4 say the test is uncorrected.
 */
bool explain_differs(const struct gated_run *x, const struct cell *g,
		     const char **what, int *verdict)
{
	double best = x->gt.alpha;
	int i;

	*verdict = -1;
	for (i = 0; i < x->nit; i++) {
		const struct gated_metric *m = &x->it[i];

		if (m->gb != g || !m->c.valid || m->suit ||
		    (m->fam != FAM_PRIMARY && m->fam != FAM_SECONDARY))
			continue;
		if (m->v == V_FAIL || m->better || m->worse) {
			*what = m->c.a->def->name;
			*verdict = m->v == V_FAIL ? 0 : m->better ? 1 : 2;
			return true;
		}
	}
	/* the rate shown most clearly moved names the point's line */
	for (i = 0; i < x->nit; i++) {
		const struct gated_metric *m = &x->it[i];
		bool down;
		double p;

		if (m->gb != g || !m->c.valid || m->suit ||
		    m->c.a->def->kind != METRIC_OPS)
			continue;
		down = m->c.reg > 0;
		p = down ? m->c.p_worse : m->c.p_better;
		if (p > best || (p == best && *verdict >= 3) ||
		    fabs(m->c.reg) <= m->c.limit)
			continue;
		best = p;
		*what = m->c.a->def->name;
		*verdict = down ? 3 : 4;
	}
	return *verdict >= 3;
}

const char *explain_cause(const struct role_split *s)
{
	switch (s->cause) {
	case CAUSE_MIX:
		return "the work mix";
	case CAUSE_COST:
		return s->nkinds ? "the cost per kind" :
				   "the cost per op (one kind)";
	case CAUSE_NONE:
		return "none: no rate change shown";
	}
	return "undecided";
}
