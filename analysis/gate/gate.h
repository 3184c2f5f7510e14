/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The regression gate: one metric of a candidate cell against the same
 * metric of the baseline's (cmp.c), the families, thresholds, corrections
 * and the sequential rule that turn those comparisons into verdicts
 * (gate.c), a whole run gated against its baseline (verdict.c), and the
 * gate's operating characteristics by simulation (ocsim.c). Nothing here
 * prints a report.
 */
#ifndef RLSTAT_GATE_H
#define RLSTAT_GATE_H

#include "run/run.h"

/* ---- cmp.c: comparisons shared by report and regress ---- */

/*
 * One metric, b against a. Rates, insn/op and latencies are compared on
 * the log scale (ratio of geometric means); counters, and any metric with
 * a value <= 0, on the linear scale (difference of arithmetic means).
 * "reg" is how much worse b is: percent on the log scale, the metric's
 * own unit on the linear scale; "limit" is the threshold on that scale.
 */
struct comparison {
	const struct cell_metric *a, *b;
	struct welch w;
	bool valid;		/* a test was made: >= 3 values a side (2 in
				 * cost mode, gate_min_boots) */
	bool logscale;
	double va, vb;		/* geometric or arithmetic means */
	double pct;		/* change of vb against va, %; NaN if va = 0 */
	double ci_pct_lo, ci_pct_hi;	/* two-sided 1 - alpha CI of pct */
	double abs;		/* vb - va */
	double reg, ub, limit;	/* regression, its one-sided upper bound */
	double lb;		/* its lower bound at the gate's level (cmp_lower) */
	double p_worse, p_better;	/* one-sided p-values, uncorrected */
	bool worse;		/* the estimate moved the worse way */
	bool past;		/* reg beyond the limit */
	bool within;		/* ub below the limit: equivalent */
	bool beyond;		/* lb past the limit: shown past it */
	double mde_pct;		/* one-sided, 80% power, at the level given */
};

void cmp_compute(struct comparison *c, const struct cell_metric *a,
		 const struct cell_metric *b, double alpha, double thr_pct,
		 double level, const struct var_prior *prior);
void cmp_bound(struct comparison *c, double alpha);
void cmp_lower(struct comparison *c, double level);
/* the logs of a metric's values, one per boot (the caller frees them) */
double *cmp_logs(const struct cell_metric *cm);

/* ---- gate.c: families, verdicts, the sequential rule ---- */

enum family { FAM_PRIMARY, FAM_SECONDARY, FAM_OTHER, FAM_ERROR };
enum verdict { V_PASS, V_INCONC, V_FAIL };

struct gate {
	double alpha, threshold_pct;
	double cost_threshold_pct;	/* cost mode: insn/op is near exact */
	double tail_threshold_pct;	/* the secondary family: p99 */
	double primary_share;	/* of alpha; the secondary family has the rest */
	bool holm;		/* false: --correction none */
	bool sequential;	/* alpha spent over looks n = 3..max_iter */
	int max_iter;
	double futility;	/* sequential: stop a point when p_worse >= */
	bool no_mde;		/* simulations: skip the MDE (slow) */
};

/*
 * A cost-mode cell measures one op's instruction path only when one kind
 * of op ran (roles sharing the vCPU charge each other's instructions, and
 * a fault that waits lets a punch's accrue) and the boots agree as counts
 * do; otherwise the gate leaves it ungated and the report says why.
 */
enum suitability { SUITED, UNSUITED_ROLES, UNSUITED_SPREAD };
#define COST_SUITED_CV	0.01	/* CoeffVar over boots, either side */

struct gated_metric {		/* one metric of a candidate's cell, gated */
	const struct cell *ga, *gb;	/* a: reference side */
	int mi, fam;
	struct comparison c;
	double padj;		/* family-corrected one-sided p of "worse" */
	double padj_better;
	double level;		/* the family's first Holm level at this n */
	int v;			/* enum verdict */
	bool better;		/* moved the better way, family-corrected */
	bool worse;		/* shown to move the worse way, family-corrected */
	int suit;		/* enum suitability: a cost cell left ungated */
};

const char *unsuited_why(const struct gated_metric *x, char *buf, size_t len);
/* boots a side the test of x needs: 2 for cost mode's insn/op, else 3 */
int gate_min_boots(const struct gated_metric *x);
void gate_init(struct gate *gt);
int metric_family(const struct point *p, int mi);
const char *family_name(int fam);
const char *verdict_name(int v);
double gate_weight(const struct gate *gt, int n);
double gate_threshold(const struct gate *gt, const struct point *p, int fam);
void gate_run(const struct gate *gt, struct gated_metric *it, int m);
struct gated_metric *gate_add_pair(struct gated_metric *it, int *n,
				   const struct cell *ga,
				   const struct cell *gb);
int gate_overall(const struct gated_metric *it, int m, int nfailed);
bool gate_worse_within(const struct gated_metric *x);
const char *gate_label(const struct gated_metric *x);
bool gate_undecided(const struct gate *gt, const struct gated_metric *it);
struct gated_metric *gate_within(const struct gate *gt, const struct run *r,
				 int base, int *m);
const struct gated_metric *gate_find(const struct gated_metric *it, int m,
				     const struct cell *gb, int mi);

/* ---- verdict.c: a run gated against its baseline ---- */

/* What report.txt, report.html and the charts are made from. */
struct gated_run {
	const struct run *r;
	int base;		/* baseline variant */
	struct gate gt;
	struct gated_metric *it;	/* every variant against the baseline */
	int nit;
};

/*
 * Open dir and gate every variant against baseline (given: named on the
 * command line, so a run without it is refused); x->gt as set up by the
 * caller, its sequential rule as the run asks.
 */
void gated_run_open(struct gated_run *x, const char *dir,
		    const char *baseline, bool given);
struct failed_cell {
	const struct cell *c;	/* a candidate's */
	bool baseline;		/* false: it failed; true: the baseline did */
};
/*
 * Candidate cells that failed (*cand), and those whose baseline failed
 * (*base); each also into out[], if given, npoints * nvariants long.
 */
void gated_failures(const struct gated_run *x, struct failed_cell *out,
		    int *cand, int *base);
int gated_overall(const struct gated_run *x);
struct gmean_row {		/* mmtests-style summary of one variant */
	int npts;
	double ratio, lo, hi;	/* geometric mean of ratios, CI */
};
bool matrix_gmean(const struct gated_run *x, int v, const char *mode,
		  struct gmean_row *g);

/* ---- ocsim.c: the gate's operating characteristics by simulation ---- */

struct oc_scenario {
	int points;		/* points in the matrix, one candidate variant */
	double cv;		/* per-boot CV of the main rate, all sources */
	double cv_last;		/* > cv: the points' own noise spreads
				 * geometrically up to this CV at the last */
	double boot_share;	/* of its variance: the boot's shared offset */
	double p99_mult;	/* per-boot CV of p99 over that of the rate */
	double effect;		/* candidate's rate change, e.g. -0.05 */
	bool all_points;	/* the effect at every point, else at one */
	int n0, nmax;		/* fixed: n0 == nmax; sequential: n0..nmax */
	bool naive;		/* sequential looks without spending alpha */
	bool cost;		/* cost mode: one insn/op a point, no p99 */
	struct gate gt;
};

struct oc_result {
	double fail, pass, inconc;	/* fractions of runs */
	double iters;			/* mean iterations per point and side */
};

void oc_init(struct oc_scenario *s);
void oc_run(const struct oc_scenario *s, unsigned long seed, int trials,
	    struct oc_result *res);

#endif
