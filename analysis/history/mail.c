// SPDX-License-Identifier: GPL-2.0
/*
 * report-mail.txt: what one night has to say, ready for a mailing list
 * (lines under 80 columns, a Subject: line first). It names the metrics
 * the gate found worse than the previous good night, the change points
 * first seen tonight, and the commands that reproduce both; a night with
 * nothing to say gets one all-clear paragraph.
 *
 * A change point is "new tonight" when the detector finds it in the
 * series up to tonight and not in the series up to the night before, so
 * each one is mailed once even though the detector reruns every night.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "history/history.h"

#define COLS 79

struct mitem {
	const struct hseries *s;
	const struct hval *v;		/* tonight's value */
	const struct cpoint *cp;	/* a new change point, or NULL */
	int before;			/* cp: index of the night before */
	double pct;
	bool worse;
};

/* The value of series s at night ni, or NULL; *k its index. */
static const struct hval *at_night(const struct hseries *s, int ni, int *k)
{
	int i;

	for (i = 0; i < s->nv; i++)
		if (s->v[i].night == ni) {
			*k = i;
			return &s->v[i];
		}
	return NULL;
}

/*
 * Text wrapped at spaces to COLS: the first line indented by lead, the
 * others by indent, each broken line ending in cont (" \\" for commands).
 */
static void wrap_at(FILE *f, int lead, int indent, const char *cont,
		    const char *text)
{
	const char *p = text;
	int col = lead, first = 1;

	fprintf(f, "%*s", lead, "");

	while (*p) {
		int w = strcspn(p, " ");

		if (!first && col + 1 + w + (int)strlen(cont) > COLS) {
			fprintf(f, "%s\n%*s", cont, indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", w, p);
		col += w;
		first = 0;
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

static void wrap(FILE *f, int indent, const char *cont, const char *text)
{
	wrap_at(f, 0, indent, cont, text);
}

/* A path as the reader types it: relative to the directory we run in. */
static const char *rel(const char *path)
{
	static char cwd[4096];
	size_t n;

	if (!getcwd(cwd, sizeof(cwd)))
		return path;
	n = strlen(cwd);
	if (!strncmp(path, cwd, n) && path[n] == '/')
		return path + n + 1;
	return path;
}

static bool worse(const struct hseries *s, double pct)
{
	return s->hib ? pct < 0 : pct > 0;
}

static int item_cmp(const void *a, const void *b)
{
	const struct mitem *x = a, *y = b;

	if (x->worse != y->worse)
		return x->worse ? -1 : 1;
	return fabs(y->pct) > fabs(x->pct) ? 1 : fabs(y->pct) <
	       fabs(x->pct) ? -1 : 0;
}

/* Change points of s found up to night index k (inclusive) but not before. */
static int new_cps(const struct hseries *s, int k, const struct cp_opts *o,
		   struct cpoint *out)
{
	struct hseries t = *s;
	struct history h1 = { .s = &t, .ns = 1 };
	int i, j, n = 0;
	struct cpoint *now;

	t.nv = k + 1;
	history_changepoints(&h1, o);
	now = t.cp;
	n = t.ncp;
	if (k > 0) {
		struct hseries u = *s;
		struct history h2 = { .s = &u, .ns = 1 };

		u.nv = k;
		history_changepoints(&h2, o);
		for (i = 0; i < n; i++)
			for (j = 0; j < u.ncp; j++)
				if (now[i].at == u.cp[j].at) {
					memmove(&now[i], &now[i + 1],
						(n - i - 1) * sizeof(*now));
					n--;
					i--;
					break;
				}
		free(u.cp);
	}
	memcpy(out, now, n * sizeof(*out));
	free(now);
	return n;
}

static struct mitem *collect(const struct history *h, int ni,
			     const struct cp_opts *o, int *nfail, int *ncp,
			     int *ninc)
{
	struct mitem *it = NULL;
	int i, k, c, n = 0;

	*nfail = *ncp = *ninc = 0;
	for (i = 0; i < h->ns; i++) {
		const struct hseries *s = &h->s[i];
		const struct hval *v = at_night(s, ni, &k);
		struct cpoint *cp;
		int m;

		if (!v)
			continue;
		if (v->verdict && !strncmp(v->verdict, "INCONCLUSIVE", 12))
			(*ninc)++;
		cp = xcalloc(k + 2, sizeof(*cp));
		m = new_cps(s, k, o, cp);
		it = realloc(it, (n + m + 1) * sizeof(*it));
		if (!it)
			die_input("out of memory");
		if (v->verdict && !strcmp(v->verdict, "FAIL")) {
			it[n++] = (struct mitem){ .s = s, .v = v,
				.pct = v->chg, .worse = true };
			(*nfail)++;
		}
		for (c = 0; c < m; c++) {
			it[n++] = (struct mitem){ .s = s, .v = v, .cp = &cp[c],
				.before = s->v[cp[c].at - 1].night,
				.pct = cp[c].pct, .worse = worse(s, cp[c].pct) };
			(*ncp)++;
		}
	}
	qsort(it, n, sizeof(*it), item_cmp);
	return it ? it : xcalloc(1, sizeof(*it));
}

static int outcome(const struct history *h, int ni, const struct mitem *it,
		   int n, int ninc)
{
	const struct hnight *nt = &h->nights[ni];
	int i;

	if (nt->failed || !strcmp(nt->verdict, "FAIL"))
		return EXIT_MEASURED;
	for (i = 0; i < n; i++)
		if (it[i].worse && strcmp(it[i].s->family, "other"))
			return EXIT_MEASURED;
	return ninc || !strcmp(nt->verdict, "INCONCLUSIVE") ?
	       EXIT_INCONCLUSIVE : 0;
}

static int last_outcome = -1;

int mail_outcome(const struct history *h, int night)
{
	(void)h;
	(void)night;
	return last_outcome < 0 ? EXIT_BADINPUT : last_outcome;
}

static void kernel_line(FILE *f, const struct hnight *n)
{
	char *t;

	if (!strcmp(n->ksource, "debian"))
		t = xasprintf("kernel:  Debian linux-source %s", n->kcommit);
	else
		t = xasprintf("kernel:  %s%s%s, commit %s%s%s%s", n->ksource,
			      n->kbranch ? " branch " : "",
			      n->kbranch ? n->kbranch : "", n->kcommit,
			      n->kdescribe ? " (" : "",
			      n->kdescribe ? n->kdescribe : "",
			      n->kdescribe ? ")" : "");
	wrap(f, 9, "", t);
	free(t);
}

static void item_text(FILE *f, const struct history *h, const struct mitem *x)
{
	const struct hseries *s = x->s;
	const struct hval *v = x->v;
	char *t;

	t = xasprintf("%s %s %s [%s, %s]: %s", s->variant, s->point,
		      s->params, s->mode, s->family, s->label);
	wrap_at(f, 2, 6, "", t);
	free(t);
	if (!x->cp) {
		t = xasprintf("%.6g -> %.6g %s, %+.2f%% (CI95 %+.2f%% .. "
			      "%+.2f%%), n=%d: %s", v->v / (1 + v->chg / 100),
			      v->v, s->unit, v->chg, v->chg_lo, v->chg_hi, v->n,
			      !strcmp(v->verdict, "FAIL") ? "gate FAIL (its "
			      "interval lies past the threshold)" :
			      !strncmp(v->verdict, "PASS", 4) ? "worse, within "
			      "threshold (gate PASS)" : "worse, not shown "
			      "past the threshold (gate INCONCLUSIVE)");
	} else {
		const struct hnight *b = &h->nights[x->before];
		const struct hnight *a = &h->nights[s->v[x->cp->at].night];

		t = xasprintf("change point: %.6g -> %.6g %s, %+.2f%% (%s), "
			      "first night after it %s, commits %s..%s, "
			      "p=%.3g", x->cp->before, x->cp->after, s->unit,
			      x->pct, x->worse ? "worse" : "better", a->night,
			      git_short(b->kcommit), git_short(a->kcommit),
			      x->cp->p);
	}
	wrap_at(f, 4, 6, "", t);
	free(t);
}

/*
 * Gated metrics shown worse but not past the threshold: real, allowed,
 * listed so that they are seen, and no part of the exit code.
 */
static int count_worse(const struct history *h, int ni)
{
	int i, k, n = 0;

	for (i = 0; i < h->ns; i++) {
		const struct hval *v = at_night(&h->s[i], ni, &k);

		n += v && v->verdict && strstr(v->verdict, ", worse");
	}
	return n;
}

static void worse_within(FILE *f, const struct history *h, int ni)
{
	int i, k, n = 0;

	for (i = 0; i < h->ns; i++) {
		const struct hval *v = at_night(&h->s[i], ni, &k);
		struct mitem x = { .s = &h->s[i], .v = v };

		if (!v || !v->verdict || !strstr(v->verdict, ", worse"))
			continue;
		if (!n++)
			fputs("\nWorse, within threshold or not shown past it "
			      "(a real change the\nthreshold allows; the exit "
			      "code does not change):\n", f);
		item_text(f, h, &x);
	}
}

int mail_write(FILE *f, const struct history *h, int ni, double thr,
	       const char *db, const struct cp_opts *o)
{
	const struct hnight *n = &h->nights[ni];
	int nfail, ncp, ninc, nitems, i, r, nworse = count_worse(h, ni);
	struct mitem *it = collect(h, ni, o, &nfail, &ncp, &ninc);
	const char *ref = NULL;
	char *t;

	nitems = nfail + ncp;
	for (i = 0; i < h->nn; i++)
		if (n->ref && !strcmp(h->nights[i].night, n->ref))
			ref = h->nights[i].dir;
	if (nitems)
		t = xasprintf("Subject: [rlbench] %+.1f%% %s on %s (commit %s)",
			      it[0].pct, it[0].s->label, it[0].s->variant,
			      git_short(n->kcommit));
	else if (n->failed)
		t = xasprintf("Subject: [rlbench] %d failed point(s) (commit "
			      "%s)", n->failed, git_short(n->kcommit));
	else if (nworse)
		t = xasprintf("Subject: [rlbench] %s, %d metric(s) worse "
			      "within threshold (commit %s)", n->verdict,
			      nworse, git_short(n->kcommit));
	else
		t = xasprintf("Subject: [rlbench] %s, no change (commit %s)",
			      n->verdict, git_short(n->kcommit));
	wrap(f, 4, "", t);
	free(t);
	fputc('\n', f);
	r = outcome(h, ni, it, nitems, ninc);
	last_outcome = r;
	if (!nitems && !n->failed && r == 0) {
		t = xasprintf("%s: night %s (kernel %s %s, %s mode on "
			      "%s) %s%s%s, no point failed, and the history "
			      "of %d night(s) shows no new change point "
			      "(E-Divisive means, significance %g, shifts of "
			      "%g%% and more).", nworse ? "No regression past "
			      "the threshold" : "All clear", n->night,
			      n->ksource,
			      git_short(n->kcommit), n->modes,
			      n->host ? n->host : "this machine",
			      n->ref ? "is within the gate's " : "is the first "
			      "night, with nothing to compare against", n->ref ?
			      "threshold of the previous good night " : "",
			      n->ref ? n->ref : "", ni + 1, o->sig,
			      o->min_change);
		wrap(f, 0, "", t);
		free(t);
		worse_within(f, h, ni);
		return ferror(f);
	}
	t = xasprintf("rlbench nightly %s: %s%s%s", n->night, n->verdict,
		      n->ref ? " against " : "", n->ref ? n->ref : "");
	wrap(f, 4, "", t);
	free(t);
	fputc('\n', f);
	kernel_line(f, n);
	t = xasprintf("machine: %s", n->host ? n->host : "unknown");
	wrap(f, 9, "", t);
	free(t);
	fprintf(f, "mode:    %s\nsuite:   %s\n", n->modes,
		git_short(n->scommit));
	if (n->failed)
		fprintf(f, "failed:  %d point(s); their results say why\n",
			n->failed);
	if (nfail) {
		t = xasprintf("Changed metrics (the gate against %s; the "
			      "regress command below shows each metric's "
			      "threshold):", n->ref);
		fputc('\n', f);
		wrap(f, 0, "", t);
		free(t);
		for (i = 0; i < nitems; i++)
			if (!it[i].cp)
				item_text(f, h, &it[i]);
	}
	worse_within(f, h, ni);
	if (ninc)
		fprintf(f, "\n%d gated metric(s) INCONCLUSIVE: neither shown past "
			"the threshold\nnor shown to be within it.\n", ninc);
	if (ncp) {
		fprintf(f, "\nChange points first seen tonight (E-Divisive "
			"means, significance %g):\n", o->sig);
		for (i = 0; i < nitems; i++)
			if (it[i].cp)
				item_text(f, h, &it[i]);
	}
	fputs("\nTo reproduce:\n", f);
	if (ref) {
		t = xasprintf("analysis/rlstat regress %s %s --threshold %g%%",
			      rel(ref), rel(n->dir), thr);
		wrap_at(f, 2, 4, " \\", t);
		free(t);
	}
	for (i = 0; i < nitems; i++) {
		bool dup = false;
		int j;

		for (j = 0; j < i; j++)
			dup |= !strcmp(it[j].s->metric, it[i].s->metric);
		if (dup)
			continue;
		t = xasprintf("analysis/rlstat history show --db %s --metric %s",
			      rel(db), it[i].s->metric);
		wrap_at(f, 2, 4, " \\", t);
		free(t);
	}
	for (i = 0; i < nitems; i++)
		if (it[i].cp && strcmp(n->ksource, "debian")) {
			const struct hnight *b = &h->nights[it[i].before];
			const struct hnight *a =
				&h->nights[it[i].s->v[it[i].cp->at].night];

			t = xasprintf("git log --oneline %s..%s",
				      git_short(b->kcommit),
				      git_short(a->kcommit));
			wrap_at(f, 2, 4, " \\", t);
			free(t);
			break;
		}
	return ferror(f);
}
