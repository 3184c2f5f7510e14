// SPDX-License-Identifier: GPL-2.0
/*
 * rlstat history: import, rebuild, show, mail, trend and value over the
 * nightly history database (history/).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "history/history.h"

static void show_series(const struct history *h, const struct hseries *s)
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
			       git_short(h->nights[s->v[k - 1].night].kcommit),
			       git_short(n->kcommit));
			c++;
		}
		if (isfinite(s->v[k].lo))
			snprintf(ci, sizeof(ci), "[%.6g, %.6g]", s->v[k].lo,
				 s->v[k].hi);
		if (isfinite(s->v[k].chg))
			snprintf(chg, sizeof(chg), "%+.2f%%", s->v[k].chg);
		printf("  %-24s %-12s %12.6g  %-25s %3d %9s  %s\n", n->night,
		       git_short(n->kcommit), s->v[k].v, ci, s->v[k].n, chg,
		       s->v[k].verdict ? s->v[k].verdict : "");
	}
}

static int cmd_show(const char *db, bool all, char **metrics, int nm,
		    const struct cp_opts *o)
{
	sqlite3 *h = hdb_open(db, false);
	struct history *x = history_load(h, all, metrics, nm);
	int i, ncp = 0;

	FILE *out = stdout;

	hdb_close(h);
	history_changepoints(x, o);
	/* night names and the rest shown safely, whatever prints them */
	fflush(out);
	stdout = text_safe(out);
	printf("history %s: %d nights, %d series\n", db, x->nn, x->ns);
	for (i = 0; i < x->nn; i++)
		printf("  %s  %s  kernel %s  %s%s%s\n", x->nights[i].night,
		       x->nights[i].started, git_short(x->nights[i].kcommit),
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
	const struct history *h;
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
	struct history *x = history_load(h, false, NULL, 0);
	char *night = xstrdup(run), *p;
	struct mail_args a;
	struct stage *st;
	int ni;

	hdb_close(h);
	while ((p = strrchr(night, '/')) && !p[1])
		*p = 0;
	ni = history_night_index(x, (p = strrchr(night, '/')) ? p + 1 : night);
	if (ni < 0)
		die_input("%s: not in the history %s; import it first "
			  "(`rlstat history import %s --db %s`)", run, db, run,
			  db);
	history_changepoints(x, o);
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
			const struct cell *g = run_cell(r, p, v);

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

static const char usage[] =
"usage: rlstat history import RUN [--db FILE]\n"
"       rlstat history show [--db FILE] [--metric NAME]... [--all]\n"
"       rlstat history rebuild [--db FILE] [--from DIR]\n"
"       rlstat history mail RUN [--db FILE]\n"
"       rlstat history trend [--db FILE] [--out DIR]\n"
"       rlstat history value RUN... --metric NAME --variant V\n"
"FILE defaults to " HISTORY_DB ", DIR to results/nightly.\n"
"Change points: [--significance P] [--permutations N] [--min-change PCT]\n"
"[--seed N]; the gate: [--threshold PCT%].\n";

int cmd_history(int argc, char **argv)
{
	const char *db = HISTORY_DB, *from = "results/nightly", *cmd;
	const char *variant = NULL;
	char **rest = xcalloc(argc + 1, sizeof(*rest));
	char **metrics = xcalloc(argc + 1, sizeof(*metrics));
	struct cp_opts o;
	double thr = 2, perms, seed;
	bool all = false;
	int nr, nm = 0;
	const struct cli_opt opts[] = {
		CLI("--db", CLI_STRING, &db),
		CLI("--from", CLI_STRING, &from),
		CLI("--out", CLI_STRING, &from),
		CLI("--metric", CLI_STRINGS, metrics, .count = &nm),
		CLI("--significance", CLI_NUM, &o.sig, .min = 1e-6, .max = 0.5),
		CLI("--permutations", CLI_NUM, &perms, .min = 19, .max = 1e6),
		CLI("--min-change", CLI_NUM, &o.min_change, .min = 0, .max = 100),
		CLI("--seed", CLI_NUM, &seed, .min = 0, .max = 4e9),
		CLI("--threshold", CLI_PCT, &thr),
		CLI("--variant", CLI_STRING, &variant),
		CLI("--all", CLI_FLAG, &all),
		CLI_END
	};

	cp_defaults(&o);
	perms = o.perms;
	seed = o.seed;
	if (argc < 3)
		die_input("history: expected a subcommand\n%s", usage);
	cmd = argv[2];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		fputs(usage, stdout);
		return 0;
	}
	nr = cli_parse(argc, argv, 3, opts, (const char **)rest, argc,
		       "history", usage);
	o.perms = perms;
	o.seed = seed;
	if (!strcmp(cmd, "import"))
		return history_import(nr, rest, db, thr);
	if (!strcmp(cmd, "value"))
		return cmd_value(rest, nr, metrics, nm, variant);
	if (!strcmp(cmd, "rebuild"))
		return history_rebuild(nr, rest, db, from, thr);
	if (nr > (strcmp(cmd, "mail") ? 0 : 1) ||
	    (!strcmp(cmd, "mail") && nr != 1))
		die_input("history %s: unexpected arguments\n%s", cmd, usage);
	if (!strcmp(cmd, "show"))
		return cmd_show(db, all, metrics, nm, &o);
	if (!strcmp(cmd, "mail"))
		return cmd_mail(db, rest[0], &o, thr);
	if (!strcmp(cmd, "trend")) {
		sqlite3 *h = hdb_open(db, false);
		struct history *x = history_load(h, false, metrics, nm);

		hdb_close(h);
		history_changepoints(x, &o);
		return trend_write(x, from, thr);
	}
	die_input("history: unknown subcommand \"%s\"; accepted: import, show, "
		  "rebuild, mail, trend, value", cmd);
}
