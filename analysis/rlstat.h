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

#define EXIT_MEASURED	1	/* regression, failed point */
#define EXIT_BADINPUT	2	/* malformed input, missing prerequisite */

/* ---- stats.c: pure statistics, no I/O ---- */

struct summary {
	int n;
	double mean;		/* harmonic for rates, arithmetic otherwise */
	double amean;		/* arithmetic mean, always */
	double median, stddev, cv, min, max;
	double ci_lo, ci_hi;	/* confidence interval of mean */
};

struct welch {
	bool valid;		/* false: fewer than 3 values on a side */
	double t, df, p;
	double diff;		/* mean(b) - mean(a), arithmetic */
	double ci_lo, ci_hi;	/* CI of diff at 1 - alpha */
	double se;
};

int stat_summary(const double *x, int n, bool rate, double conf,
		 struct summary *s);
double stat_median(const double *x, int n);
int stat_welch(const double *a, int na, const double *b, int nb,
	       double alpha, struct welch *w);
double stat_mde(double se, double df, double alpha, double power);
double stat_power(double effect, double se, double df, double alpha);
void stat_holm(const double *p, int m, double alpha, bool *reject);
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

enum mkind { MK_OPS, MK_BYTES, MK_LAT, MK_COUNTER };

struct metric_def {
	char *name;		/* e.g. "read.ops_per_s" */
	char *unit;
	bool higher_is_better;
	enum mkind kind;
	char *op;		/* op name, NULL for counters */
	char *pct;		/* "99.9" for latency metrics */
	char *counter;		/* counter name */
};

struct iter_val {
	int iteration;
	double v;
};

struct group_metric {
	struct metric_def *def;
	double *vals;		/* one per ok iteration */
	int nvals;
	struct lathist *hist;	/* latency: merged over iterations */
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
	char *release, *accel;
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
};

struct run {
	char *dir;
	json_t *meta;		/* NULL if absent */
	json_t *env;		/* env of the first result, for the header */
	char **variants;
	int nvariants;
	struct point **points;
	int npoints;
	struct group **groups;	/* [point * nvariants + variant], may be NULL */
	int nfiles;
};

struct run *run_load(const char *dir, double conf);
struct group *run_group(const struct run *r, int point, int variant);
int run_variant_index(const struct run *r, const char *name);
int run_point_index(const struct run *r, const char *key);
int validate_file(const char *path);
const char *validate_doc(json_t *doc);
json_t *load_result(const char *path);
json_t *metric_op(json_t *doc, const char *metric, const char **rest);
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

/* ---- cmp.c: comparisons shared by report and regress ---- */

struct cmp {
	const struct group_metric *a, *b;	/* a: baseline side */
	struct welch w;
	double pct;		/* change of table value, percent of a */
	double ci_pct_lo, ci_pct_hi;
	double mde_pct;		/* at the alpha used, 80% power */
	bool sig;		/* p < alpha */
	bool worse;		/* moved in the worse direction */
};

void cmp_compute(struct cmp *c, const struct group_metric *a,
		 const struct group_metric *b, double alpha);
double metric_scale(const struct metric_def *d, const char **unit);
const char *metric_label(const struct metric_def *d, char *buf, size_t len);
void fmt_value(char *buf, size_t len, double v);
void fmt_pct(char *buf, size_t len, double pct);

/* ---- outputs ---- */

void put_point_line(FILE *f, const struct point *p);
int *variant_order(const struct run *r, int base);
void report_meta_lines(FILE *f, const struct run *r);
int report_text(FILE *f, const struct run *r, int base, double alpha);
int report_summary(FILE *f, const struct run *r);
struct chart {
	char *name;		/* file name without .png/.svg */
	char *caption;
	int kind;		/* CH_* */
};
enum { CH_TPUT, CH_REL, CH_LAT, CH_CDF };

int report_charts(const struct run *r, int base, double alpha,
		  struct chart **charts, int *ncharts);
int report_html(FILE *f, const struct run *r, int base, double alpha,
		const struct chart *charts, int ncharts);
int regress_main(int argc, char **argv);
double parse_alpha(const char *s);

/* The gate's decision over m comparisons; regressions marked in reg[]. */
struct gate {
	double alpha, threshold_pct;
	bool holm;
};
int gate_eval(const struct gate *gt, const struct cmp *c, int m,
	      double *padj, bool *reg);

#endif
