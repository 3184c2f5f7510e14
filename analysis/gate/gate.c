// SPDX-License-Identifier: GPL-2.0
/*
 * The gate's decision, shared by regress, report and next.
 *
 * Families: per point, the main rate (the first op's ops/s, or insn/op in
 * cost mode) is the primary family, the p99 latency of that op the
 * secondary; alpha is split between them and Holm-corrected within each.
 * Other metrics are reported with uncorrected tests and never gated;
 * error counters (counters.*error*) fail whenever the candidate has one.
 *
 * Per metric, one interval of the regression: its lower end at the
 * family's Bonferroni level (alpha_f / k, the first Holm level: a FAIL
 * names one metric among k), its upper end at alpha (a run PASSes only
 * when every metric does, an intersection-union test, which needs no
 * correction). FAIL when the interval lies entirely past the threshold,
 * PASS when it lies inside it, INCONCLUSIVE otherwise: a test against
 * the threshold, not against zero, so a real change the threshold allows
 * never FAILs; it is reported as worse (Holm on the test against zero)
 * within or not shown past the threshold. The run FAILs on any FAIL,
 * PASSes when every gated metric PASSes, and is INCONCLUSIVE otherwise,
 * also when a cost-mode cell is unsuited.
 *
 * Sequential runs (iterations added while points are undecided) spend
 * alpha over the looks n = 3..max: a p-value seen at n counts as p / w(n)
 * with sum w(n) = 1, a valid p-value whatever the stopping rule was
 * (P(min_n p_n / w(n) <= c) <= sum c w(n) = c), so Holm over them keeps
 * the family-wise false-alarm rate at alpha over the whole sequence. The
 * PASS bound at n is likewise the 1 - alpha w(n) bound, so a PASS found
 * at some look is wrong with probability at most alpha, and the FAIL
 * bound the alpha_f w(n) / k one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "gate/gate.h"

#define LOOK_EPS 0.02		/* weight of each interim look */

void gate_init(struct gate *gt)
{
	memset(gt, 0, sizeof(*gt));
	gt->alpha = 0.05;
	gt->threshold_pct = 2;
	gt->cost_threshold_pct = 0.25;
	gt->tail_threshold_pct = 10;
	gt->primary_share = 0.8;
	gt->holm = true;
	gt->max_iter = 10;
	gt->futility = 0.2;
}

static int main_rate(const struct point *p)
{
	int k;

	for (k = 0; k < p->ndefs; k++)
		if (p->defs[k].kind == METRIC_OPS || p->defs[k].kind == METRIC_INSN)
			return k;
	return -1;
}

int metric_family(const struct point *p, int mi)
{
	const struct metric_def *d = &p->defs[mi];
	int k = main_rate(p);

	if (d->kind == METRIC_COUNTER && strstr(d->counter, "error"))
		return FAM_ERROR;
	if (mi == k)
		return FAM_PRIMARY;
	if (k >= 0 && d->kind == METRIC_LAT && !strcmp(d->pct, "99") &&
	    !strcmp(d->op, p->defs[k].op))
		return FAM_SECONDARY;
	return FAM_OTHER;
}

const char *family_name(int fam)
{
	static const char *const n[] = { "primary", "secondary",
					 "not gated", "error counter" };

	return n[fam];
}

const char *verdict_name(int v)
{
	static const char *const n[] = { "PASS", "INCONCLUSIVE", "FAIL" };

	return n[v];
}

/* Share of alpha spent at a look with n iterations, when there are looks. */
static double look_weight(const struct gate *gt, int n)
{
	int interim = gt->max_iter - 3;
	double eps = LOOK_EPS;

	if (interim <= 0)
		return 1;
	if (interim * eps > 0.5)
		eps = 0.5 / interim;
	return n < gt->max_iter ? eps : 1 - interim * eps;
}

double gate_weight(const struct gate *gt, int n)
{
	return gt->sequential ? look_weight(gt, n) : 1;
}

/*
 * The threshold of a metric: cost mode's insn/op is near exact, so a
 * small one; a p99 moves several times as much as its rate from boot to
 * boot, and a 2% bound on it would take hundreds of boots to show.
 */
double gate_threshold(const struct gate *gt, const struct point *p, int fam)
{
	if (!strcmp(p->mode, "cost"))
		return gt->cost_threshold_pct;
	return fam == FAM_SECONDARY ? gt->tail_threshold_pct :
	       gt->threshold_pct;
}

static bool is_cost(const struct gated_metric *x)
{
	return !strcmp(x->gb->pt->mode, "cost");
}

static int nmin(const struct gated_metric *x);

/*
 * Was this item looked at more than once? Only time mode adds boots while
 * undecided; a cost-mode cell is looked at once, with the whole alpha. A
 * point run_is_sequential marked is sequential on its own, the others not.
 */
static bool item_seq(const struct gate *gt, const struct gated_metric *x)
{
	return !is_cost(x) && (gt->sequential || x->ga->pt->seq ||
			       x->gb->pt->seq);
}

/* The share of alpha at this item's look. */
static double item_weight(const struct gate *gt, const struct gated_metric *x)
{
	return item_seq(gt, x) ? look_weight(gt, nmin(x)) : 1;
}

/* Kinds of op the point's results count: one rate each. */
static int point_ops(const struct point *p)
{
	int k, n = 0;

	for (k = 0; k < p->ndefs; k++)
		n += p->defs[k].kind == METRIC_OPS || p->defs[k].kind == METRIC_INSN;
	return n;
}

static int suitability(const struct gated_metric *x)
{
	if (!is_cost(x) || (x->fam != FAM_PRIMARY && x->fam != FAM_SECONDARY))
		return SUITED;
	if (x->ga->roles || x->gb->roles)
		return UNSUITED_ROLES;
	if (x->ga->m[x->mi].s.cv > COST_SUITED_CV ||
	    x->gb->m[x->mi].s.cv > COST_SUITED_CV)
		return UNSUITED_SPREAD;
	return SUITED;
}

/**
 * unsuited_why - why a cost-mode cell is not gated, for the report
 * @x: the item, @buf and @len: where the text goes
 *
 * Return: @buf, or NULL when @x is gated as usual.
 */
const char *unsuited_why(const struct gated_metric *x, char *buf, size_t len)
{
	if (x->suit == SUITED)
		return NULL;
	if (x->suit == UNSUITED_ROLES)
		snprintf(buf, len, "its %d ops run in different threads",
			 point_ops(x->gb->pt));
	else
		snprintf(buf, len, "boots differ by more than %g%%",
			 COST_SUITED_CV * 100);
	return buf;
}

static double family_alpha(const struct gate *gt, int fam)
{
	if (fam == FAM_PRIMARY)
		return gt->alpha * gt->primary_share;
	if (fam == FAM_SECONDARY)
		return gt->alpha * (1 - gt->primary_share);
	return gt->alpha;
}

static int nmin(const struct gated_metric *x)
{
	int a = x->ga->m[x->mi].nvals, b = x->gb->m[x->mi].nvals;

	return a < b ? a : b;
}

/* Holm within one family over weighted p-values (NaN: not tested). */
static void correct(const struct gate *gt, struct gated_metric *it, int m, int fam,
		    bool better)
{
	double *p = xcalloc(m ? m : 1, sizeof(*p));
	double *adj = xcalloc(m ? m : 1, sizeof(*adj));
	int i;

	for (i = 0; i < m; i++) {
		double raw = better ? it[i].c.p_better : it[i].c.p_worse;

		p[i] = NAN;
		if (it[i].fam == fam && it[i].c.valid)
			p[i] = fmin(1, raw / item_weight(gt, &it[i]));
	}
	if (gt->holm && fam != FAM_OTHER)
		stat_holm_adjust(p, m, adj);
	else
		memcpy(adj, p, m * sizeof(*p));
	for (i = 0; i < m; i++)
		if (it[i].fam == fam) {
			if (better)
				it[i].padj_better = adj[i];
			else
				it[i].padj = adj[i];
		}
	free(p);
	free(adj);
}

static void decide(struct gated_metric *x, double af)
{
	const struct cell_metric *b = &x->gb->m[x->mi];
	int i;

	if (x->fam == FAM_ERROR) {
		x->v = V_PASS;
		for (i = 0; i < b->nvals; i++)
			if (b->vals[i] != 0)
				x->v = V_FAIL;
		return;
	}
	if (!x->c.valid) {
		x->v = V_INCONC;
		return;
	}
	if (x->c.beyond)
		x->v = V_FAIL;
	else if (x->c.within)
		x->v = V_PASS;
	else
		x->v = V_INCONC;
	x->worse = x->padj <= af;
	x->better = x->padj_better <= af && -x->c.reg > x->c.limit;
}

/*
 * A change shown real the worse way whose interval lies inside the
 * threshold: reported as such, never as FAIL, and PASS for the exit code.
 */
bool gate_worse_within(const struct gated_metric *x)
{
	return x->worse && x->v == V_PASS && !x->suit;
}

/* The gate column of the history: the verdict, and "worse" when shown. */
const char *gate_label(const struct gated_metric *x)
{
	if (x->fam == FAM_OTHER)
		return "info";
	if (x->worse && x->v != V_FAIL)
		return x->v == V_PASS ? "PASS, worse within threshold" :
		       "INCONCLUSIVE, worse";
	return verdict_name(x->v);
}

/* The sample variance of a side's logs, or NaN when a value is not > 0. */
static double log_variance(const struct cell_metric *g)
{
	double *l, v;
	int i;

	if (g->nvals < 2)
		return NAN;
	for (i = 0; i < g->nvals; i++)
		if (!(g->vals[i] > 0))
			return NAN;
	l = cmp_logs(g);
	v = gsl_stats_variance(l, 1, g->nvals);
	free(l);
	return v;
}

/*
 * Cost mode's cells count one kind of noise (a few instructions a boot
 * spends on timer ticks and the like), so their variances are moderated
 * towards one prior fitted over every gated cell, both sides: three
 * boots a side then test with the run's degrees of freedom, not four
 * (prior.c). A cell noisier than the rest keeps most of its own.
 */
static void cost_prior(const struct gated_metric *it, int m, struct var_prior *p)
{
	double *s2 = xcalloc(2 * m + 1, sizeof(*s2));
	double *df = xcalloc(2 * m + 1, sizeof(*df));
	int i, n = 0;

	for (i = 0; i < m; i++) {
		const struct cell_metric *side[2] = {
			&it[i].ga->m[it[i].mi], &it[i].gb->m[it[i].mi] };
		int k;

		if (!is_cost(&it[i]) || it[i].fam != FAM_PRIMARY)
			continue;
		for (k = 0; k < 2; k++) {
			s2[n] = log_variance(side[k]);
			df[n] = side[k]->nvals - 1;
			n += !isnan(s2[n]);
		}
	}
	stat_var_prior(s2, df, n, p);
	free(s2);
	free(df);
}

/*
 * Boots a side for a test: cost mode's insn/op is moderated by the prior
 * fitted over the run's cells (cost_prior), so two boots a side test;
 * everything else needs three.
 */
int gate_min_boots(const struct gated_metric *x)
{
	return is_cost(x) && x->fam == FAM_PRIMARY ? 2 : 3;
}

/* it[].ga, gb, mi set by the caller; fills in everything else. */
void gate_run(const struct gate *gt, struct gated_metric *it, int m)
{
	int i, k, fam, size[4] = { 0 };
	struct var_prior prior;

	for (i = 0; i < m; i++) {
		it[i].fam = metric_family(it[i].gb->pt, it[i].mi);
		it[i].suit = suitability(&it[i]);
		if (it[i].suit)
			it[i].fam = FAM_OTHER;
		if (it[i].ga->m[it[i].mi].nvals >= gate_min_boots(&it[i]) &&
		    it[i].gb->m[it[i].mi].nvals >= gate_min_boots(&it[i]))
			size[it[i].fam]++;
	}
	cost_prior(it, m, &prior);
	for (i = 0; i < m; i++) {
		struct gated_metric *x = &it[i];
		double af = family_alpha(gt, x->fam), w = item_weight(gt, x);

		x->level = af;
		k = gt->holm && size[x->fam] ? size[x->fam] : 1;
		if (x->fam == FAM_PRIMARY || x->fam == FAM_SECONDARY)
			x->level = af * w / k;
		cmp_compute(&x->c, &x->ga->m[x->mi], &x->gb->m[x->mi],
			    gt->alpha, gate_threshold(gt, x->gb->pt, x->fam),
			    gt->no_mde ? NAN : x->level,
			    is_cost(x) && x->fam == FAM_PRIMARY ? &prior : NULL);
		/* a PASS seen at one of several looks: its bound spent too */
		if (item_seq(gt, x))
			cmp_bound(&x->c, gt->alpha * w);
		cmp_lower(&x->c, x->level);
	}
	for (fam = 0; fam < 4; fam++) {
		correct(gt, it, m, fam, false);
		correct(gt, it, m, fam, true);
	}
	for (i = 0; i < m; i++)
		decide(&it[i], family_alpha(gt, it[i].fam));
}

int gate_overall(const struct gated_metric *it, int m, int nfailed)
{
	int i, gated = 0, pass = 0;

	if (nfailed)
		return V_FAIL;
	for (i = 0; i < m; i++) {
		/* a cell too noisy to gate is a finding, never a PASS */
		if (it[i].suit)
			gated++;
		if (it[i].fam == FAM_OTHER)
			continue;
		if (it[i].v == V_FAIL)
			return V_FAIL;
		gated++;
		pass += it[i].v == V_PASS;
	}
	return gated && pass == gated ? V_PASS : V_INCONC;
}

/*
 * Could the max boots still show equivalence? The upper bound at the last
 * look if the estimate stayed and the standard error shrank as 1 / sqrt(n).
 */
static bool pass_reachable(const struct gate *gt, const struct gated_metric *x)
{
	const struct comparison *c = &x->c;
	bool hib = c->a->def->higher_is_better;
	double r, ub, t;

	if (!c->logscale)
		return false;
	r = hib ? -c->w.diff : c->w.diff;
	t = gsl_cdf_tdist_Pinv(1 - gt->alpha * gate_weight(gt, gt->max_iter),
			       c->w.df * gt->max_iter / nmin(x));
	ub = r + t * c->w.se * sqrt((double)nmin(x) / gt->max_iter);
	ub = hib ? (1 - exp(-ub)) * 100 : (exp(ub) - 1) * 100;
	return ub < c->limit;
}

/*
 * The sequential rule: a gated metric still wants boots when it is
 * neither FAIL nor PASS, n < max, and either the data lean towards a
 * regression (one-sided p of "worse" below the futility bound) or the
 * remaining boots could still show it equivalent; otherwise more boots
 * would most likely end where it is (futility).
 */
bool gate_undecided(const struct gate *gt, const struct gated_metric *x)
{
	if (x->fam != FAM_PRIMARY && x->fam != FAM_SECONDARY)
		return false;
	if (nmin(x) >= gt->max_iter)
		return false;
	if (!x->c.valid)
		return true;
	return x->v == V_INCONC && (x->c.p_worse < gt->futility ||
				    pass_reachable(gt, x));
}

/**
 * gate_add_pair - append one item per metric of @gb, compared with @ga
 * @it: the items so far (realloc'ed), @n: their number, updated
 *
 * Return: the items; exits through die_input() when memory runs out.
 */
struct gated_metric *gate_add_pair(struct gated_metric *it, int *n, const struct cell *ga,
			    const struct cell *gb)
{
	int k;

	it = realloc(it, (*n + gb->nm) * sizeof(*it));
	if (!it)
		die_input("out of memory");
	for (k = 0; k < gb->nm; k++) {
		memset(&it[*n], 0, sizeof(*it));
		it[*n].ga = ga;
		it[*n].gb = gb;
		it[(*n)++].mi = k;
	}
	return it;
}

/* Every variant against the baseline, at every point both ran cleanly. */
struct gated_metric *gate_within(const struct gate *gt, const struct run *r,
			  int base, int *m)
{
	struct gated_metric *it = NULL;
	int pt, v, n = 0;

	for (pt = 0; pt < r->npoints; pt++) {
		const struct cell *ga = run_cell(r, pt, base), *gb;

		for (v = 0; v < r->nvariants; v++) {
			gb = run_cell(r, pt, v);
			if (v == base || !ga || !gb || ga->nfailed ||
			    gb->nfailed)
				continue;
			it = gate_add_pair(it, &n, ga, gb);
		}
	}
	gate_run(gt, it, n);
	*m = n;
	return it;
}

const struct gated_metric *gate_find(const struct gated_metric *it, int m,
			      const struct cell *gb, int mi)
{
	int i;

	for (i = 0; i < m; i++)
		if (it[i].gb == gb && it[i].mi == mi)
			return &it[i];
	return NULL;
}
