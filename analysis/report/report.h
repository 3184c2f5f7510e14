/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a gated run looks like to a reader: report.txt (report.c, its
 * header in header.c, its verdict block in verdict.c), the text for a
 * mailing-list thread (thread.c), the summary table (summary.c), the charts (chart.c) and report.html (html.c).
 */
#ifndef RLSTAT_REPORT_H
#define RLSTAT_REPORT_H

#include "gate/gate.h"

/* ---- report.c ---- */

int report_text(FILE *f, const struct gated_run *x);
void put_point_line(FILE *f, const struct point *p);

/* ---- header.c ---- */

void report_meta_lines(FILE *f, const struct run *r);
void report_features(FILE *f, const struct run *r, int base);
const char *report_auto_stop(const struct run *r, char *buf, size_t len);

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

/* ---- html.c ---- */

int report_html(FILE *f, const struct gated_run *x, const struct chart *charts,
		int ncharts);

#endif
