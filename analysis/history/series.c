// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the history back: the series of every (mode, variant, point,
 * metric) and their change points.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history/history.h"
static char *col(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? xstrdup((const char *)s) : NULL;
}

static double num(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN :
	       sqlite3_column_double(st, i);
}

int history_night_index(const struct history *h, const char *night)
{
	int i;

	for (i = 0; i < h->nn; i++)
		if (!strcmp(h->nights[i].night, night))
			return i;
	return -1;
}

static void load_nights(sqlite3 *db, struct history *h)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "SELECT night, dir, started, "
		"kernel_source, kernel_branch, kernel_commit, kernel_describe, "
		"suite_commit, host, matrix, modes, reference, verdict, "
		"failed_points FROM nights ORDER BY started, night", -1, &st,
		NULL) != SQLITE_OK)
		die_input("history: %s", sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct hnight *n;

		h->nights = realloc(h->nights, (h->nn + 1) * sizeof(*n));
		if (!h->nights)
			die_input("out of memory");
		n = &h->nights[h->nn++];
		n->night = col(st, 0);
		n->dir = col(st, 1);
		n->started = col(st, 2);
		n->ksource = col(st, 3);
		n->kbranch = col(st, 4);
		n->kcommit = col(st, 5);
		n->kdescribe = col(st, 6);
		n->scommit = col(st, 7);
		n->host = col(st, 8);
		n->matrix = col(st, 9);
		n->modes = col(st, 10);
		n->ref = col(st, 11);
		n->verdict = col(st, 12);
		n->failed = sqlite3_column_int(st, 13);
	}
	sqlite3_finalize(st);
}

/* "dio read insn/op", "dio read p99 ns", "dio short_reads count" */
static char *series_label(const struct hseries *s)
{
	const char *dot = strchr(s->metric, '.'), *pc = strrchr(s->metric, '.');
	int oplen = dot ? (int)(dot - s->metric) : (int)strlen(s->metric);

	if (!strncmp(s->metric, "counters.", 9))
		return xasprintf("%s %s %s", s->workload, s->metric + 9,
				 s->unit);
	if (strstr(s->metric, ".lat_ns.") && pc)
		return xasprintf("%s %.*s %s %s", s->workload, oplen,
				 s->metric, pc + 1, s->unit);
	return xasprintf("%s %.*s %s", s->workload, oplen, s->metric, s->unit);
}

static bool wanted(const char *metric, char **metrics, int nm)
{
	int i;

	if (!nm)
		return true;
	for (i = 0; i < nm; i++)
		if (!strcmp(metrics[i], metric))
			return true;
	return false;
}

struct history *history_load(sqlite3 *db, bool all, char **metrics, int nmetrics)
{
	struct history *h = xcalloc(1, sizeof(*h));
	struct hseries *s = NULL;
	sqlite3_stmt *st;

	load_nights(db, h);
	if (sqlite3_prepare_v2(db, "SELECT s.mode, s.variant, s.point_key, "
		"s.metric, s.point, s.workload, s.params, s.unit, "
		"s.higher_is_better, s.family, s.statistic, s.night, s.n, "
		"s.value, s.ci_lo, s.ci_hi, s.change_pct, s.change_lo, "
		"s.change_hi, s.gate FROM series s JOIN nights n USING (night) "
		"ORDER BY s.mode, s.point, s.point_key, s.metric, s.variant, "
		"n.started, n.night", -1, &st, NULL) != SQLITE_OK)
		die_input("history: %s", sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *mode = (const char *)sqlite3_column_text(st, 0);
		const char *var = (const char *)sqlite3_column_text(st, 1);
		const char *key = (const char *)sqlite3_column_text(st, 2);
		const char *met = (const char *)sqlite3_column_text(st, 3);
		const char *fam = (const char *)sqlite3_column_text(st, 9);
		struct hval *v;

		if (!wanted(met, metrics, nmetrics))
			continue;
		if (!all && !nmetrics && strcmp(fam, "primary") &&
		    strcmp(fam, "secondary"))
			continue;
		if (!s || strcmp(s->mode, mode) || strcmp(s->variant, var) ||
		    strcmp(s->pkey, key) || strcmp(s->metric, met)) {
			h->s = realloc(h->s, (h->ns + 1) * sizeof(*s));
			if (!h->s)
				die_input("out of memory");
			s = &h->s[h->ns++];
			memset(s, 0, sizeof(*s));
			s->mode = xstrdup(mode);
			s->variant = xstrdup(var);
			s->pkey = xstrdup(key);
			s->metric = xstrdup(met);
			s->point = col(st, 4);
			s->workload = col(st, 5);
			s->params = col(st, 6);
			s->unit = col(st, 7);
			s->hib = sqlite3_column_int(st, 8);
			s->family = col(st, 9);
			s->logscale = !strcmp((const char *)
					      sqlite3_column_text(st, 10),
					      "gmean");
			s->label = series_label(s);
		}
		s->v = realloc(s->v, (s->nv + 1) * sizeof(*s->v));
		if (!s->v)
			die_input("out of memory");
		v = &s->v[s->nv++];
		v->night = history_night_index(h, (const char *)
					    sqlite3_column_text(st, 11));
		v->n = sqlite3_column_int(st, 12);
		v->v = num(st, 13);
		v->lo = num(st, 14);
		v->hi = num(st, 15);
		v->chg = num(st, 16);
		v->chg_lo = num(st, 17);
		v->chg_hi = num(st, 18);
		v->verdict = col(st, 19);
	}
	sqlite3_finalize(st);
	return h;
}

/*
 * Change points of every series, on the scale the gate compares (logs
 * of geometric means). A significant split is reported only when its
 * shift reaches min_change and the median half-width of the nights' CI95
 * (the noise of one night: a shift inside it is not told from noise);
 * smaller ones are dropped one at a time, the smallest first, since each
 * drop widens its neighbours' segments.
 */
void history_changepoints(struct history *h, const struct cp_opts *o)
{
	int i, k;

	for (i = 0; i < h->ns; i++) {
		struct hseries *s = &h->s[i];
		double *x = xcalloc(s->nv + 1, sizeof(*x));
		double *hw = xcalloc(s->nv + 1, sizeof(*hw)), floor;
		bool ok = true;
		int nhw = 0;

		for (k = 0; k < s->nv; k++) {
			x[k] = s->logscale ? log(s->v[k].v) : s->v[k].v;
			ok &= isfinite(x[k]);
			if (isfinite(s->v[k].hi - s->v[k].lo) && s->v[k].v)
				hw[nhw++] = 50 * (s->v[k].hi - s->v[k].lo) /
					    fabs(s->v[k].v);
		}
		/* a shift within one night's own noise is not told from it */
		floor = nhw ? stat_median(hw, nhw) : 0;
		if (!(floor > o->min_change))
			floor = o->min_change;
		free(hw);
		s->cp = xcalloc(s->nv + 1, sizeof(*s->cp));
		s->ncp = ok ? cp_edivisive(x, s->nv, o, s->cp, s->nv) : 0;
		for (;;) {
			int small = -1;

			for (k = 0; k < s->ncp; k++) {
				struct cpoint *c = &s->cp[k];
				int lo = k ? s->cp[k - 1].at : 0;
				int hi = k + 1 < s->ncp ? s->cp[k + 1].at : s->nv;
				double a = 0, b = 0;
				int j;

				for (j = lo; j < c->at; j++)
					a += x[j];
				for (j = c->at; j < hi; j++)
					b += x[j];
				c->before = a / (c->at - lo);
				c->after = b / (hi - c->at);
				c->pct = s->logscale ? 100 * expm1(c->after -
								    c->before) :
					 c->before ? 100 * (c->after /
							    c->before - 1) : NAN;
				if (s->logscale) {
					c->before = exp(c->before);
					c->after = exp(c->after);
				}
				if (!(fabs(c->pct) >= floor) &&
				    (small < 0 || fabs(c->pct) <
				     fabs(s->cp[small].pct)))
					small = k;
			}
			if (small < 0)
				break;
			memmove(&s->cp[small], &s->cp[small + 1],
				(s->ncp - small - 1) * sizeof(*s->cp));
			s->ncp--;
		}
		free(x);
	}
}
