/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rlstat: statistics, reports, charts and the regression gate for rlbench
 * run directories. See docs/formats.md for the input contracts and
 * analysis/README.md for what the outputs mean.
 */
#ifndef RLSTAT_H
#define RLSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "rlexit.h"	/* workloads/: one set of exit codes */

/* ---- stats.c: pure statistics, no I/O ---- */

struct summary {
	int n;
	bool logscale;		/* mean is geometric, CI from the logs */
	double mean;		/* geometric (logscale) or arithmetic */
	double amean;		/* arithmetic mean, always */
	double median, stddev, cv, min, max;
	double ci_lo, ci_hi;	/* confidence interval of mean */
};

struct welch {
	bool valid;		/* false: fewer than 3 values on a side */
	double t, df;
	double p;		/* two-sided */
	double p_greater;	/* one-sided, for mean(b) > mean(a) */
	double p_less;		/* one-sided, for mean(b) < mean(a) */
	double diff;		/* mean(b) - mean(a) */
	double ci_lo, ci_hi;	/* two-sided CI of diff at 1 - alpha */
	double se;
};

int stat_summary(const double *x, int n, bool logscale, double conf,
		 struct summary *s);
double stat_median(const double *x, int n);
int stat_welch(const double *a, int na, const double *b, int nb,
	       double alpha, struct welch *w);
int stat_welch_floor(const double *a, int na, const double *b, int nb,
		     double floor_a, double floor_b, double alpha,
		     struct welch *w);
/*
 * A prior of many metrics' variances and the moderated variance of one
 * (prior.c): d0 = 0 means none, INFINITY one variance shared by all.
 */
struct var_prior {
	double d0, s02;
	double dfmax;		/* the moderated df never exceed the pool's */
};
int stat_var_prior(const double *s2, const double *df, int n,
		   struct var_prior *p);
double stat_var_moderate(const struct var_prior *p, double s2, double *df);
int stat_welch_prior(const double *a, int na, const double *b, int nb,
		     double floor_a, double floor_b, double alpha,
		     const struct var_prior *prior, struct welch *w);
double stat_nct_sf(double t, double df, double ncp);
double stat_power(double effect, double se, double df, double level);
double stat_mde(double se, double df, double level, double power);
void stat_holm_adjust(const double *p, int m, double *padj);

/* ---- lathist.c: wrapper over workloads/hist.h ---- */

struct lathist;
struct lathist *lathist_new(void);
void lathist_free(struct lathist *h);
int lathist_add_json(struct lathist *h, json_t *hist, const char **why);
void lathist_merge(struct lathist *dst, const struct lathist *src);
uint64_t lathist_total(const struct lathist *h);
double lathist_percentile(const struct lathist *h, double p);
/* Iterate non-empty buckets in order; returns false at the end. */
bool lathist_next(const struct lathist *h, int *idx, double *upper_ns,
		  uint64_t *count);

/* ---- load.c: run directory -> groups ---- */

/* MK_INSN: cost mode's insn/op, 1e9 / ops_per_s (run_open) */
enum mkind { MK_OPS, MK_BYTES, MK_LAT, MK_COUNTER, MK_INSN };

struct metric_def {
	char *name;		/* e.g. "read.ops_per_s" */
	char *unit;
	bool higher_is_better;
	enum mkind kind;
	char *op;		/* op name, NULL for counters */
	char *pct;		/* "99.9" for latency metrics */
	char *counter;		/* counter name */
	bool linear;		/* a value <= 0 somewhere: no log scale */
};

struct iter_val {
	int iteration;
	double v;
};

struct group_metric {
	struct metric_def *def;
	double *vals;		/* one per ok iteration */
	int nvals;
	/* latency: merged over iterations, the group's ophist of the op */
	const struct lathist *hist;
	uint64_t htotal;	/* its count so far, while loading */
	double quantum;		/* rates: largest 1/count, relative */
	struct summary s;
	double value;		/* what tables show: hmean, merged pct, mean */
};

struct group {			/* one variant at one workload point */
	char *variant;
	struct point *pt;
	int niter, nfailed;
	char *first_error;
	struct group_metric *m;
	int nm;
	struct lathist **ophist;	/* merged per op, for CDFs */
	char **opname;
	int nops;
	json_t *opix;		/* op name -> index in ophist */
	char *release, *accel;
	bool roles;		/* threads of different ops (has_roles) */
};

struct point {
	char *key;		/* workload + canonical params */
	char *label;		/* "p001-dio" or synthesized */
	char *mode;		/* env.mode: "cost" or "time" */
	char *workload;
	json_t *params;
	char *params_str;	/* "threads=2 layout=disjoint bs=4096" */
	char *params_nothreads;
	int threads;		/* -1 when the point has no threads param */
	struct metric_def *defs;
	int ndefs;
	bool seq;		/* alpha spent over looks here (run_is_sequential) */
	json_t *defix;		/* metric name -> index in defs */
};

struct run {
	char *dir;
	json_t *meta;		/* NULL if absent */
	/* env of the first result, and of the first of the other mode */
	json_t *env, *env_other;
	char **variants;
	int nvariants;
	struct point **points;
	int npoints;
	struct group **groups;	/* [point * nvariants + variant], may be NULL */
	int nfiles;
};

struct run *run_load(const char *dir, double conf);
/* order.c: qsort comparator of variant names, kernels/variants' order */
int variant_cmp(const void *a, const void *b);
struct group *run_group(const struct run *r, int point, int variant);
int run_variant_index(const struct run *r, const char *name);
int run_point_index(const struct run *r, const char *key);
int validate_file(const char *path);
const char *validate_doc(json_t *doc);
json_t *load_result(const char *path);
json_t *metric_op(json_t *doc, const char *metric, const char **rest);
/* ops[] or metrics[] of a result by name, for lookups in O(1) */
json_t *doc_index(json_t *doc, const char *arr);
void die_input(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						    noreturn));
/* The input being read, named by errors raised below it (GSL's). */
extern const char *rl_input;
void rl_gsl_handler_install(void);
/* Temporaries are removed on any exit until untracked (renamed). */
void tmp_track(const char *path, bool isdir);
void tmp_untrack(const char *path);
void meta_check(const char *path, json_t *meta);
void *xcalloc(size_t n, size_t sz);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- escape.c: names as data in gnuplot, HTML and terminals ---- */

void gp_str(FILE *f, const char *s);
char *gp_quote(const char *s);
void html_esc(FILE *f, const char *s);
void html_href(FILE *f, const char *path);
FILE *text_safe(FILE *under);

/* ---- stage.c: outputs replaced as a whole or not at all ---- */

struct stage;
struct stage *stage_new(const char *dst);
const char *stage_dir(const struct stage *s);
void stage_add(struct stage *s, const char *name);
void stage_write(struct stage *s, const char *name,
		 int (*fn)(FILE *, void *), void *arg);
void stage_commit(struct stage *s);
const char *stage_why(const char *dir, int err);
void gp_run(const char *dir, const char *script);
void gp_check(const char *dir, const char *file);
/* util.c: a temporary directory and everything in it */
void remove_tree(const char *dir);

/* ---- prep.c: a loaded run as the analysis sees it ---- */

struct run *run_open(const char *dir, double conf);
double metric_floor(const struct group_metric *gm, bool logscale);

/* ---- cmp.c: comparisons shared by report and regress ---- */

/*
 * One metric, b against a. Rates, insn/op and latencies are compared on
 * the log scale (ratio of geometric means); counters, and any metric with
 * a value <= 0, on the linear scale (difference of arithmetic means).
 * "reg" is how much worse b is: percent on the log scale, the metric's
 * own unit on the linear scale; "limit" is the threshold on that scale.
 */
struct cmp {
	const struct group_metric *a, *b;
	struct welch w;
	bool valid;		/* a test was made: >= 3 values a side */
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

void cmp_compute(struct cmp *c, const struct group_metric *a,
		 const struct group_metric *b, double alpha, double thr_pct,
		 double level, const struct var_prior *prior);
void cmp_bound(struct cmp *c, double alpha);
void cmp_lower(struct cmp *c, double level);
double metric_scale(const struct metric_def *d, const char **unit);
const char *metric_label(const struct metric_def *d, char *buf, size_t len);
void fmt_value(char *buf, size_t len, double v);
void fmt_pct(char *buf, size_t len, double pct);

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

struct gitem {
	const struct group *ga, *gb;	/* a: reference side */
	int mi, fam;
	struct cmp c;
	double padj;		/* family-corrected one-sided p of "worse" */
	double padj_better;
	double level;		/* the family's first Holm level at this n */
	int v;			/* enum verdict */
	bool better;		/* moved the better way, family-corrected */
	bool worse;		/* shown to move the worse way, family-corrected */
	int unsuited;		/* enum unsuited: a cost cell left ungated */
};

/*
 * A cost-mode cell measures one op's instruction path only when one kind
 * of op ran (roles sharing the vCPU charge each other's instructions, and
 * a fault that waits lets a punch's accrue) and the boots agree as counts
 * do; otherwise the gate leaves it ungated and the report says why.
 */
enum unsuited { SUITED, UNSUITED_ROLES, UNSUITED_SPREAD };
#define COST_SUITED_CV	0.01	/* CoeffVar over boots, either side */
const char *unsuited_why(const struct gitem *x, char *buf, size_t len);

void gate_init(struct gate *gt);
int metric_family(const struct point *p, int mi);
const char *family_name(int fam);
const char *verdict_name(int v);
double gate_weight(const struct gate *gt, int n);
double gate_threshold(const struct gate *gt, const struct point *p, int fam);
void gate_run(const struct gate *gt, struct gitem *it, int m);
struct gitem *gate_add_pair(struct gitem *it, int *n, const struct group *ga,
			    const struct group *gb);
int gate_overall(const struct gitem *it, int m, int nfailed);
bool gate_worse_within(const struct gitem *x);
const char *gate_label(const struct gitem *x);
bool gate_undecided(const struct gate *gt, const struct gitem *it);
bool run_is_sequential(const struct run *r, int *max_iter);
struct gitem *gate_within(const struct gate *gt, const struct run *r,
			  int base, int *m);
const struct gitem *gate_find(const struct gitem *it, int m,
			      const struct group *gb, int mi);

/* ---- outputs ---- */

void put_point_line(FILE *f, const struct point *p);
int *variant_order(const struct run *r, int base);
void report_meta_lines(FILE *f, const struct run *r);
void report_features(FILE *f, const struct run *r, int base);
const char *report_auto_stop(const struct run *r, char *buf, size_t len);
/* What report.txt, report.html and the charts are made from. */
struct rctx {
	const struct run *r;
	int base;		/* baseline variant */
	struct gate gt;
	struct gitem *it;	/* every variant against the baseline */
	int nit;
};

int report_text(FILE *f, const struct rctx *x);
int report_summary(FILE *f, const struct run *r);
struct charts;
struct chart_kind {
	const char *name;
	void (*make)(struct charts *c);	/* begins each chart it draws */
	const char *what;		/* for rlstat charts --kinds */
	const char *heading;		/* its report.html section, or NULL:
					 * in each point's section */
};
extern const struct chart_kind chart_kinds[];	/* NULL name ends it */

struct chart {
	char *name;		/* file name without .png/.svg */
	char *caption;
	const struct chart_kind *kind;
};

int report_charts(const struct rctx *x, struct chart **charts, int *ncharts,
		  struct stage *draw);
int report_html(FILE *f, const struct rctx *x, const struct chart *charts,
		int ncharts);
void report_verdict_text(FILE *f, const struct rctx *x);
int report_overall(const struct rctx *x);
struct gmrow {			/* mmtests-style summary of one variant */
	int npts;
	double ratio, lo, hi;	/* geometric mean of ratios, CI */
};
bool matrix_gmean(const struct rctx *x, int v, const char *mode,
		  struct gmrow *g);
int next_main(int argc, char **argv);

/* ---- ocsim.c: the gate's operating characteristics by simulation ---- */

struct ocsim {
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

struct ocres {
	double fail, pass, inconc;	/* fractions of runs */
	double iters;			/* mean iterations per point and side */
};

void oc_init(struct ocsim *s);
void oc_run(const struct ocsim *s, unsigned long seed, int trials,
	    struct ocres *res);
int regress_main(int argc, char **argv);
double parse_alpha(const char *s);
double parse_threshold(char *const *arg);
int pick_baseline(const struct run *r, const char *want, bool given);

#endif
