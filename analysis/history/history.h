/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The nightly history: an SQLite index of night run directories
 * (history.c, hdb.c), the series read back from it (series.c), change
 * points over each (changepoint.c),
 * trend charts and the index page (trend.c) and the night's mail
 * (mail.c). The schema is in docs/formats.md.
 */
#ifndef RLSTAT_HISTORY_H
#define RLSTAT_HISTORY_H

#include <stdbool.h>
#include <stdio.h>
#include <sqlite3.h>

#include "report/report.h"

#define HISTORY_DB "results/history.sqlite"
#define HISTORY_SCHEMA "rlbench-history/1"

/* ---- changepoint.c: E-Divisive means ---- */

struct cp_opts {
	double sig;		/* significance level of the permutation test */
	int perms;		/* permutations per test */
	int min_size;		/* fewest nights on either side of a change */
	double min_change;	/* percent; smaller shifts are not reported */
	unsigned long seed;	/* fixed: the same series, the same answer */
};

struct cpoint {
	int at;			/* index of the first value after the change */
	double p;		/* permutation p-value when it was accepted */
	double before, after;	/* means of the segments either side */
	double pct;		/* after against before, percent */
};

void cp_defaults(struct cp_opts *o);
/* Change points of x[0..n), sorted by position; returns how many. */
int cp_edivisive(const double *x, int n, const struct cp_opts *o,
		 struct cpoint *out, int max);

/* ---- history.c: the database and the series in it ---- */

struct hnight {
	char *night, *dir, *started;
	char *ksource, *kbranch, *kcommit, *kdescribe;
	char *scommit, *host, *matrix, *modes;
	char *ref;		/* the night compared with, NULL for the first */
	char *verdict;		/* PASS, FAIL, INCONCLUSIVE, FIRST */
	int failed;		/* failed points */
};

struct hval {
	int night;		/* index into history.nights */
	int n;
	double v, lo, hi;	/* the gate's statistic and its CI */
	double chg, chg_lo, chg_hi;	/* against the reference night, % */
	char *verdict;		/* the gate's, NULL when not compared */
};

struct hseries {
	char *variant, *point, *pkey, *workload, *params, *mode;
	char *metric, *unit, *family, *label;
	bool hib, logscale;
	struct hval *v;
	int nv;
	struct cpoint *cp;
	int ncp;
};

struct history {		/* the nights and every series over them */
	struct hnight *nights;
	int nn;
	struct hseries *s;
	int ns;
};

/* hdb.c: opening it, its lock, and failures told apart */
#define HDB_WAIT_MS 30000	/* for a lock SQLite holds, at most */
extern const char *hdb_path;	/* the database errors name */
extern const char hdb_schema[];
sqlite3 *hdb_open(const char *path, bool create);
void hdb_close(sqlite3 *db);
sqlite3 *hdb_new(const char *path);
int hdb_lock(const char *path);
const char *hdb_holders(const char *path);
void hdb_fail(sqlite3 *db, int rc, const char *what) __attribute__((noreturn));
void hdb_exec(sqlite3 *db, const char *sql);
/* ---- series.c: the series of gated metrics (all: of every metric) ---- */

struct history *history_load(sqlite3 *db, bool all, char **metrics, int nmetrics);
void history_changepoints(struct history *h, const struct cp_opts *o);
int history_night_index(const struct history *h, const char *night);
int history_import(int argc, char **argv, const char *db, double thr);
int history_rebuild(int argc, char **argv, const char *db, const char *from,
		    double thr);

/* ---- trend.c, mail.c ---- */

int trend_write(const struct history *h, const char *outdir, double thr);
int mail_write(FILE *f, const struct history *h, int night, double thr,
	       const char *db, const struct cp_opts *o);
int mail_outcome(const struct history *h, int night);

#endif
