/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bottom layer of rlstat: exits that name their input, allocation,
 * temporaries that never outlive the process, outputs replaced as a whole
 * (stage.c), names made safe for gnuplot, HTML and terminals (escape.c),
 * and the statistics (stats.c, prior.c, lathist.c), which do no I/O.
 * Nothing here knows what a run, a gate or a report is.
 */
#ifndef RLSTAT_BASE_H
#define RLSTAT_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <jansson.h>

#include "rlexit.h"	/* workloads/: one set of exit codes */

/* ---- util.c: exits, allocation, temporaries, listing, formatting ---- */

void die_input(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						    noreturn));
/* The input being read, named by errors raised below it (GSL's). */
extern const char *rl_input;
void rl_gsl_handler_install(void);
/* Temporaries are removed on any exit until untracked (renamed). */
void tmp_track(const char *path, bool isdir);
void tmp_untrack(const char *path);
/* a child process writing into the temporaries, killed before cleanup */
void tmp_child(pid_t pid);
/* a temporary directory and everything in it */
void remove_tree(const char *dir);
/* sorted entry names of dir: subdirectories, or names ending in suffix */
char **list_dir(const char *dir, bool dirs_only, const char *suffix, int *n);
void *xcalloc(size_t n, size_t sz);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fmt_value(char *buf, size_t len, double v);
void fmt_pct(char *buf, size_t len, double pct);
/* a git commit id as people quote it: its first 12 characters */
const char *git_short(const char *commit);
/* a program's stdout, run without a shell; *ok: it exited 0 */
char *cmd_output(const char *const argv[], bool *ok);

/* ---- options.c: every subcommand's options from one table ---- */

enum cli_type {
	CLI_FLAG,	/* bool, no value */
	CLI_STRING,	/* const char * */
	CLI_STRINGS,	/* const char *[], repeated; *count entries */
	CLI_ALPHA,	/* double, a level in (0, 0.5) */
	CLI_PCT,	/* double, a threshold "2%" or a bare percent >= 1 */
	CLI_NUM,	/* double in [min, max], "%" allowed after it */
	CLI_INT,	/* int in [min, max] */
};

struct cli_opt {
	const char *name;	/* "--threshold" */
	const char *alias;	/* "-v", or NULL */
	enum cli_type type;
	void *dst;
	double min, max;	/* CLI_NUM, CLI_INT */
	int *count;		/* CLI_STRINGS */
	bool *given;		/* set when the option is on the command line */
};
/* one row of a table: CLI("--alpha", CLI_ALPHA, &alpha), more by name */
#define CLI(n, t, d, ...) { .name = (n), .type = (t), .dst = (d), __VA_ARGS__ }
#define CLI_END { .name = NULL }

/*
 * Parse argv[first..argc) against opts; the other arguments are the
 * positional ones, stored in pos[0..maxpos). Anything not accepted exits 2
 * naming the argument (after "cmd: " unless cmd is NULL) and printing
 * usage; --help prints usage and exits 0.
 * Returns the positionals seen.
 */
int cli_parse(int argc, char **argv, int first, const struct cli_opt *opts,
	      const char **pos, int maxpos, const char *cmd,
	      const char *usage);
double parse_alpha(const char *s);
double parse_threshold(const char *opt, const char *val);

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

#endif
