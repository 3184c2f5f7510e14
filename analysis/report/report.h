/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a gated run looks like to a reader: report.txt (report.c, its
 * header in header.c, its verdict block in verdict.c, where the
 * difference goes by function in where.c, what each difference is made
 * of in explain.c), the text for a mailing-list thread (thread.c), the
 * summary table (summary.c), the charts (chart.c), report.html (html.c)
 * and a wide request's waits (wide.c).
 */
#ifndef RLSTAT_REPORT_H
#define RLSTAT_REPORT_H

#include "gate/gate.h"
#include "profile/profile.h"

/* ---- report.c ---- */

/* report.txt's tables: a row's label, then one cell per variant */
#define TABLE_LABEL_W	19
#define TABLE_CELL_W	20

int report_text(FILE *f, const struct gated_run *x);
void put_point_line(FILE *f, const struct point *p);

/* ---- wide.c: a wide request's waits (ops[].wait_ns), per variant ---- */

/* under time-mode point pt's tables; o: the variants, baseline first */
void report_wide_text(FILE *f, const struct run *r, int pt, const int *o);

/* ---- waits.c: the lock waits beside the rates, per point ---- */

/* lw: the label column's width, that of the point's other rows */
void report_waits_rows(FILE *f, const struct gated_run *x, int pt,
		       const int *o, int n, int lw);
/* the same, as report.html's table in the point's section */
void report_waits_html(FILE *f, const struct gated_run *x, int pt);
/* v with prec decimals, "-" for NAN */
void waits_fmt(char *buf, size_t len, double v, int prec);

/* ---- where.c: where the difference goes (instruction profiles) ---- */

void report_where(FILE *f, const struct gated_run *x);
/* the run's profiles, read once; NULL: none, or *why they cannot be read */
const struct prof_run *report_profiles(const struct run *r, const char **why);
/* one pair at one point: the rows that moved most, the rest, the check */
void report_where_table(FILE *f, const struct prof_point *b,
			const struct prof_point *c, int top, bool moved_only);
/* the mail's lines of variant v: the functions that moved most */
void report_where_mail(FILE *f, const struct gated_run *x, int v);
/* report.html's section: the same tables as HTML tables */
void report_where_html(FILE *f, const struct gated_run *x);

/* ---- header.c ---- */

void report_meta_lines(FILE *f, const struct run *r);
void report_features(FILE *f, const struct run *r, int base);
const char *report_auto_stop(const struct run *r, int undecided, char *buf,
			     size_t len);
/* MODE=auto's "Mode:" line; false (nothing printed) for another mode */
bool report_auto_mode(FILE *f, const struct run *r);
/* MODE=auto without KVM: its time points ran under TCG */
bool report_auto_tcg(const struct run *r);

/* ---- verdict.c ---- */

void report_verdict_text(FILE *f, const struct gated_run *x);

/* ---- thread.c: the text for the mailing-list thread ---- */

int report_mail(FILE *f, const struct gated_run *x);

/* ---- summary.c ---- */

int report_summary(FILE *f, const struct run *r);

/* ---- chart.c ---- */

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

int report_charts(const struct gated_run *x, struct chart **charts,
		  int *ncharts, struct stage *draw);

/* what each kind of chart draws with (chart.c), for the kinds' files */
struct charts {
	FILE *gp;
	const struct chart_kind *kind;	/* of the charts being made */
	const struct gated_run *x;
	const struct run *r;
	int base;
	struct chart *v;
	int n;
	int width;		/* of the chart begun, pixels; height 540 */
};

/* `set xtics (...)` naming the rows of a data block, from collect(). */
struct chart_tics {
	char *buf;
	size_t len;
	FILE *f;
	int n;
};

/* a missing or infinite bound is NaN: gnuplot then draws no error bar */
double chart_bound(double v);
/* a round axis limit at or above x: 1, 2 or 5 times a power of ten */
double chart_nice_up(double x);
void chart_begin(struct charts *c, char *name, const char *title,
		 char *caption);
void chart_render(struct charts *c, const char *plot);
/* gnuplot refuses a plot without one valid point: say why it is empty */
void chart_render_empty(struct charts *c, const char *why);
char *chart_plot_append(char *plot, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void chart_tic_add(struct chart_tics *t, const char *a, const char *b);
void chart_tics_put(FILE *gp, struct chart_tics *t);
/* chart-rel.c: every variant against the baseline across the matrix */
void chart_relative(struct charts *c);
/* chart-waits.c: the lock waits against threads, beside throughput */
void chart_waits(struct charts *c);
/* chart-prof.c: insn/op by function per profiled point and variant */
void chart_profile(struct charts *c);

/* ---- explain.c: what each difference is made of ---- */

enum cause { CAUSE_NONE, CAUSE_MIX, CAUSE_COST, CAUSE_UNDECIDED,
	     CAUSE_UNCOUNTED };

struct role_split {		/* one op, variant against baseline */
	const char *op;
	int nkinds;		/* 0: one kind, or none counted */
	const char *kind[MIX_KINDS];
	double share_b[MIX_KINDS], share_v[MIX_KINDS];	/* of the ops */
	double cost_b[MIX_KINDS], cost_v[MIX_KINDS];	/* ns each, NaN: none */
	/* logs of rate ratios: total = mix + res; hw_*: 95% half widths */
	double total, mix, res, hw_total, hw_mix, hw_res;
	int cause;		/* enum cause */
	const char *why;	/* of an undecided or uncounted one */
};

void explain_split(const struct op_mix *b, int nb, const struct op_mix *v,
		   int nv, bool kinded, struct role_split *s);
bool explain_differs(const struct gated_run *x, const struct cell *g,
		     const char **what, int *verdict);
const char *explain_cause(const struct role_split *s);

/* ---- explain-out.c: its section of report.txt and report.html ---- */

void report_explain_text(FILE *f, const struct gated_run *x);
void report_explain_html(FILE *f, const struct gated_run *x);

/* ---- html.c ---- */

int report_html(FILE *f, const struct gated_run *x, const struct chart *charts,
		int ncharts);

#endif
