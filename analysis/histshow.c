// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the history back: the series of every (mode, variant, point,
 * metric), their change points, `rlstat history show`, and the dispatch
 * of the `history` subcommands.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rlstat.h"
#include "history.h"

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

int hist_night_index(const struct hist *h, const char *night)
{
	int i;

	for (i = 0; i < h->nn; i++)
		if (!strcmp(h->nights[i].night, night))
			return i;
	return -1;
}

/* Seven characters of a git commit; anything else as it is. */
const char *hist_short(const char *c)
{
	static char buf[4][16];
	static int k;
	size_t n = strspn(c, "0123456789abcdef");

	if (n < 12 || c[n])
		return c;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%.7s", c);
	return buf[k];
}

static void load_nights(sqlite3 *db, struct hist *h)
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

struct hist *hist_load(sqlite3 *db, bool all, char **metrics, int nmetrics)
{
	struct hist *h = xcalloc(1, sizeof(*h));
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
		v->night = hist_night_index(h, (const char *)
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
void hist_changepoints(struct hist *h, const struct cp_opts *o)
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

static void show_series(const struct hist *h, const struct hseries *s)
{
	int k, c = 0;

	printf("%s %s %s (%s %s) %s [%s] %s\n", s->mode, s->variant, s->point,
	       s->workload, s->params, s->metric, s->family, s->unit);
	printf("  %-24s %-12s %12s  %-25s %3s %9s  %s\n", "night", "kernel",
	       "value", "CI95", "n", "change", "gate");
	for (k = 0; k < s->nv; k++) {
		const struct hnight *n = &h->nights[s->v[k].night];
		char ci[64] = "", chg[16] = "";

		if (c < s->ncp && s->cp[c].at == k) {
			printf("  ---- change point: %+.2f%% (%.6g -> %.6g), "
			       "p=%.3g, commits %s..%s\n", s->cp[c].pct,
			       s->cp[c].before, s->cp[c].after, s->cp[c].p,
			       hist_short(h->nights[s->v[k - 1].night].kcommit),
			       hist_short(n->kcommit));
			c++;
		}
		if (isfinite(s->v[k].lo))
			snprintf(ci, sizeof(ci), "[%.6g, %.6g]", s->v[k].lo,
				 s->v[k].hi);
		if (isfinite(s->v[k].chg))
			snprintf(chg, sizeof(chg), "%+.2f%%", s->v[k].chg);
		printf("  %-24s %-12s %12.6g  %-25s %3d %9s  %s\n", n->night,
		       hist_short(n->kcommit), s->v[k].v, ci, s->v[k].n, chg,
		       s->v[k].verdict ? s->v[k].verdict : "");
	}
}

static int cmd_show(const char *db, bool all, char **metrics, int nm,
		    const struct cp_opts *o)
{
	sqlite3 *h = hdb_open(db, false);
	struct hist *x = hist_load(h, all, metrics, nm);
	int i, ncp = 0;

	FILE *out = stdout;

	hdb_close(h);
	hist_changepoints(x, o);
	/* night names and the rest shown safely, whatever prints them */
	fflush(out);
	stdout = text_safe(out);
	printf("history %s: %d nights, %d series\n", db, x->nn, x->ns);
	for (i = 0; i < x->nn; i++)
		printf("  %s  %s  kernel %s  %s%s%s\n", x->nights[i].night,
		       x->nights[i].started, hist_short(x->nights[i].kcommit),
		       x->nights[i].verdict, x->nights[i].ref ? " against " :
		       "", x->nights[i].ref ? x->nights[i].ref : "");
	for (i = 0; i < x->ns; i++) {
		putchar('\n');
		show_series(x, &x->s[i]);
		ncp += x->s[i].ncp;
	}
	printf("\n%d change point(s) (E-Divisive means, significance %g, "
	       "%d permutations, seed %lu, at least %d nights a side and "
	       "%g%%)\n", ncp, o->sig, o->perms, o->seed, o->min_size,
	       o->min_change);
	i = fclose(stdout);
	stdout = out;
	return i ? EXIT_BADINPUT : 0;
}

struct mail_args {
	const struct hist *h;
	int ni;
	double thr;
	const char *db;
	const struct cp_opts *o;
};

/* a mail is read in a terminal: names in it are shown safely */
static int mail_fn(FILE *f, void *p)
{
	const struct mail_args *a = p;
	FILE *t = text_safe(f);
	int rc = mail_write(t, a->h, a->ni, a->thr, a->db, a->o);

	return fclose(t) || rc ? -1 : 0;
}

static int cmd_mail(const char *db, const char *run, const struct cp_opts *o,
		    double thr)
{
	sqlite3 *h = hdb_open(db, false);
	struct hist *x = hist_load(h, false, NULL, 0);
	char *night = xstrdup(run), *p;
	struct mail_args a;
	struct stage *st;
	int ni;

	hdb_close(h);
	while ((p = strrchr(night, '/')) && !p[1])
		*p = 0;
	ni = hist_night_index(x, (p = strrchr(night, '/')) ? p + 1 : night);
	if (ni < 0)
		die_input("%s: not in the history %s; import it first "
			  "(`rlstat history import %s --db %s`)", run, db, run,
			  db);
	hist_changepoints(x, o);
	a = (struct mail_args){ x, ni, thr, db, o };
	st = stage_new(x->nights[ni].dir);
	stage_write(st, "report-mail.txt", mail_fn, &a);
	stage_commit(st);
	printf("%s/report-mail.txt\n", x->nights[ni].dir);
	return mail_outcome(x, ni);
}

/*
 * The value of one metric of one variant, pooled over the boots of the
 * runs given (a bisection step may boot more than once): the statistic
 * the gate uses and its CI95, "value lo hi n" on one line.
 */
static int cmd_value(char **runs, int nr, char **metrics, int nm,
		     const char *variant)
{
	double *vals = NULL;
	char *key = NULL;
	bool logscale = true;
	struct summary s;
	int i, p, v, k, n = 0;

	if (!nr || nm != 1 || !variant)
		die_input("history value: expected RUN... --metric NAME "
			  "--variant V");
	for (i = 0; i < nr; i++) {
		struct run *r = run_open(runs[i], 0.95);
		bool found = false;

		v = run_variant_index(r, variant);
		for (p = 0; v >= 0 && p < r->npoints && !found; p++) {
			const struct group *g = run_group(r, p, v);

			if (!g || (key && strcmp(key, r->points[p]->key)))
				continue;
			for (k = 0; k < g->nm && !found; k++) {
				if (strcmp(g->m[k].def->name, metrics[0]))
					continue;
				found = true;
				key = key ? key : xstrdup(r->points[p]->key);
				logscale &= !g->m[k].def->linear;
				vals = realloc(vals, (n + g->m[k].nvals + 1) *
					       sizeof(*vals));
				if (!vals)
					die_input("out of memory");
				memcpy(vals + n, g->m[k].vals,
				       g->m[k].nvals * sizeof(*vals));
				n += g->m[k].nvals;
			}
		}
		if (!found)
			die_input("%s: no %s values of variant %s%s", runs[i],
				  metrics[0], variant, key ? " at the point "
				  "of the first run" : "");
	}
	if (!n)
		die_input("%s: every iteration of %s failed", runs[0], variant);
	stat_summary(vals, n, logscale, 0.95, &s);
	printf("%.10g %.10g %.10g %d\n", s.mean, n > 1 ? s.ci_lo : s.mean,
	       n > 1 ? s.ci_hi : s.mean, n);
	return 0;
}

static const char husage[] =
"usage: rlstat history import RUN [--db FILE]\n"
"       rlstat history show [--db FILE] [--metric NAME]... [--all]\n"
"       rlstat history rebuild [--db FILE] [--from DIR]\n"
"       rlstat history mail RUN [--db FILE]\n"
"       rlstat history trend [--db FILE] [--out DIR]\n"
"       rlstat history value RUN... --metric NAME --variant V\n"
"FILE defaults to " HISTORY_DB ", DIR to results/nightly.\n"
"Change points: [--significance P] [--permutations N] [--min-change PCT]\n"
"[--seed N]; the gate: [--threshold PCT%].\n";

static double num_arg(const char *opt, const char *v, double lo, double hi)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (*end == '%')
		end++;
	if (errno || end == v || *end || !(x >= lo && x <= hi))
		die_input("%s %s: accepted is a number from %g to %g", opt, v,
			  lo, hi);
	return x;
}

int history_main(int argc, char **argv)
{
	const char *db = HISTORY_DB, *from = "results/nightly", *cmd;
	const char *variant = NULL;
	char **rest = xcalloc(argc + 1, sizeof(*rest)), **metrics;
	struct cp_opts o;
	double thr = 2;
	bool all = false;
	int i, nr = 0, nm = 0;

	cp_defaults(&o);
	metrics = xcalloc(argc + 1, sizeof(*metrics));
	if (argc < 3)
		die_input("history: expected a subcommand\n%s", husage);
	cmd = argv[2];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		fputs(husage, stdout);
		return 0;
	}
	for (i = 3; i < argc; i++) {
		const char *a = argv[i];
		bool val = !strcmp(a, "--db") || !strcmp(a, "--from") ||
			   !strcmp(a, "--out") || !strcmp(a, "--metric") ||
			   !strcmp(a, "--significance") ||
			   !strcmp(a, "--permutations") ||
			   !strcmp(a, "--min-change") || !strcmp(a, "--seed") ||
			   !strcmp(a, "--threshold") || !strcmp(a, "--variant");

		if (val && i + 1 >= argc)
			die_input("history %s: %s needs a value", cmd, a);
		if (!strcmp(a, "--db"))
			db = argv[++i];
		else if (!strcmp(a, "--from") || !strcmp(a, "--out"))
			from = argv[++i];
		else if (!strcmp(a, "--metric"))
			metrics[nm++] = argv[++i];
		else if (!strcmp(a, "--significance"))
			o.sig = num_arg(a, argv[++i], 1e-6, 0.5);
		else if (!strcmp(a, "--permutations"))
			o.perms = num_arg(a, argv[++i], 19, 1e6);
		else if (!strcmp(a, "--min-change"))
			o.min_change = num_arg(a, argv[++i], 0, 100);
		else if (!strcmp(a, "--seed"))
			o.seed = num_arg(a, argv[++i], 0, 4e9);
		else if (!strcmp(a, "--threshold"))
			thr = parse_threshold(&argv[i++]);
		else if (!strcmp(a, "--variant"))
			variant = argv[++i];
		else if (!strcmp(a, "--all"))
			all = true;
		else if (a[0] == '-')
			die_input("history %s: unknown option \"%s\"\n%s", cmd,
				  a, husage);
		else
			rest[nr++] = argv[i];
	}
	if (!strcmp(cmd, "import"))
		return history_import(nr, rest, db, thr);
	if (!strcmp(cmd, "value"))
		return cmd_value(rest, nr, metrics, nm, variant);
	if (!strcmp(cmd, "rebuild"))
		return history_rebuild(nr, rest, db, from, thr);
	if (nr > (strcmp(cmd, "mail") ? 0 : 1) ||
	    (!strcmp(cmd, "mail") && nr != 1))
		die_input("history %s: unexpected arguments\n%s", cmd, husage);
	if (!strcmp(cmd, "show"))
		return cmd_show(db, all, metrics, nm, &o);
	if (!strcmp(cmd, "mail"))
		return cmd_mail(db, rest[0], &o, thr);
	if (!strcmp(cmd, "trend")) {
		sqlite3 *h = hdb_open(db, false);
		struct hist *x = hist_load(h, false, metrics, nm);

		hdb_close(h);
		hist_changepoints(x, &o);
		return trend_write(x, from, thr);
	}
	die_input("history: unknown subcommand \"%s\"; accepted: import, show, "
		  "rebuild, mail, trend, value", cmd);
}
