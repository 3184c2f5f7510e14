// SPDX-License-Identifier: GPL-2.0
/*
 * "Where the difference goes": for a run with instruction profiles
 * (PROFILE=insn, docs/profile.md), per variant against the baseline and
 * per cost point whose insn/op moved, the functions whose self insn/op
 * moved most, both sides and the delta, with atomics/op; the other
 * functions in one row, so that the rows sum to the point's total delta,
 * which a check line says. Its own section after cost mode's tables:
 * path length, never beside a time.
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

/* rows of the report's section (rlstat profile --diff says --top), the mail's */
#define WHERE_TOP	10
#define WHERE_MAIL_TOP	3
#define MAIL_NAME	26

/*
 * A point's path length has not moved when its total is within what two
 * boots of one kernel agree to (0.01%, docs/measuring.md) and its atomics
 * the same as printed: a table of hundredths there would show rounding
 * and timer ticks, not a change.
 */
#define WHERE_SAME_PCT	0.01

static bool where_unmoved(const struct prof_row *total)
{
	int64_t d = total->cand - total->base;

	if (d < 0)
		d = -d;
	return d * 100 <= total->base * WHERE_SAME_PCT &&
	       total->acand == total->abase;
}

/*
 * The run's profiles, read once: NULL with *why NULL when it has none,
 * NULL with *why when they cannot be read (a missing System.map).
 */
const struct prof_run *report_profiles(const struct run *r, const char **why)
{
	static const struct run *seen;
	static struct prof_run *p;
	static char *err;

	if (seen != r) {
		seen = r;
		err = NULL;
		p = r->meta ? prof_run_load(r->dir, r->meta, NULL, &err) : NULL;
	}
	*why = err;
	return p && p->nfiles ? p : NULL;
}

/* a row's six figures as printed: insn/op base, cand, delta; atomics/op */
static void row_figures(const struct prof_row *r, char v[6][32])
{
	prof_fmt(v[0], sizeof(v[0]), r->base, 2, false);
	prof_fmt(v[1], sizeof(v[1]), r->cand, 2, false);
	prof_fmt(v[2], sizeof(v[2]), r->cand - r->base, 2, true);
	prof_fmt(v[3], sizeof(v[3]), r->abase, 2, false);
	prof_fmt(v[4], sizeof(v[4]), r->acand, 2, false);
	prof_fmt(v[5], sizeof(v[5]), r->acand - r->abase, 2, true);
}

static void put_row(FILE *f, const struct prof_row *r)
{
	char v[6][32];

	row_figures(r, v);
	fprintf(f, "  %9s %9s %9s  %7s %7s %7s  %s\n", v[0], v[1], v[2],
		v[3], v[4], v[5], r->name);
}

/* the remainder row is printed when it holds functions or rounding */
static bool rest_shown(const struct prof_diff *d)
{
	return d->nrest || d->rest.base || d->rest.cand || d->rest.abase ||
	       d->rest.acand;
}

/* its name, when it holds functions (else NULL: the row's own) */
static char *rest_name(const struct prof_diff *d)
{
	return d->nrest ? xasprintf("(the other %zu functions)", d->nrest) :
			  NULL;
}

/* what the printed rows and the remainder add up to, per op */
static void diff_sums(const struct prof_diff *d, int64_t *sum, int64_t *asum)
{
	size_t i;

	*sum = d->rest.cand - d->rest.base;
	*asum = d->rest.acand - d->rest.abase;
	for (i = 0; i < d->n; i++) {
		*sum += d->rows[i].cand - d->rows[i].base;
		*asum += d->rows[i].acand - d->rows[i].abase;
	}
}

/* the check line under a table, text or HTML */
static void put_check(FILE *f, const struct prof_diff *d)
{
	int64_t sum, asum;
	char s[32], t[32], as[32], at[32];

	diff_sums(d, &sum, &asum);
	prof_fmt(s, sizeof(s), sum, 2, true);
	prof_fmt(t, sizeof(t), d->total.cand - d->total.base, 2, true);
	prof_fmt(as, sizeof(as), asum, 2, true);
	prof_fmt(at, sizeof(at), d->total.acand - d->total.abase, 2, true);
	if (sum == d->total.cand - d->total.base &&
	    asum == d->total.acand - d->total.abase)
		fprintf(f, "sum of rows = total delta: %s insn/op, %s atomics/op",
			s, as);
	else
		fprintf(f, "MISMATCH: the rows sum to %s insn/op and %s atomics/op, the total delta is %s and %s",
			s, as, t, at);
}

/* the table of one pair at one point, and its check line */
static void put_diff(FILE *f, const struct prof_point *b,
		     const struct prof_point *c, const struct prof_diff *d)
{
	size_t i;

	fprintf(f, "where the difference goes: %s, %s against %s (per op; %d and %d boots)\n",
		b->label, c->variant, b->variant, c->boots, b->boots);
	fprintf(f, "  %-29s  %-23s\n  %9.9s %9.9s %9s  %7.7s %7.7s %7s  %s\n",
		"---------- insn/op ----------", "----- atomics/op ------",
		b->variant, c->variant, "delta", b->variant, c->variant,
		"delta", "function");
	for (i = 0; i < d->n; i++)
		put_row(f, &d->rows[i]);
	if (rest_shown(d)) {
		struct prof_row rest = d->rest;
		char *name = rest_name(d);

		if (name)
			rest.name = name;
		put_row(f, &rest);
		free(name);
	}
	put_row(f, &d->total);
	fputs("  ", f);
	put_check(f, d);
	fputc('\n', f);
}

/* one row of the HTML table: the six figures, then the function */
static void html_row(FILE *f, const struct prof_row *r, const char *cls)
{
	char v[6][32];
	int k;

	row_figures(r, v);
	fprintf(f, "<tr%s%s%s>", cls ? " class=\"" : "", cls ?: "",
		cls ? "\"" : "");
	for (k = 0; k < 6; k++)
		fprintf(f, "<td>%s</td>", v[k]);
	fputs("<td class=\"fn\">", f);
	html_esc(f, r->name);
	fputs("</td></tr>\n", f);
}

/* the HTML table of one pair at one point, and its check line */
static void put_diff_html(FILE *f, const struct prof_point *b,
			  const struct prof_point *c, const struct prof_diff *d)
{
	size_t i;

	fputs("<h3>", f);
	html_esc(f, b->label);
	fputs(": ", f);
	html_esc(f, c->variant);
	fputs(" against ", f);
	html_esc(f, b->variant);
	fprintf(f, " (per op; %d and %d boots)</h3>\n", c->boots, b->boots);
	fputs("<table class=\"stats where\"><tr><th colspan=\"3\">insn/op</th>"
	      "<th colspan=\"3\">atomics/op</th><th rowspan=\"2\">function</th>"
	      "</tr>\n<tr>", f);
	for (i = 0; i < 2; i++) {
		fputs("<th>", f);
		html_esc(f, b->variant);
		fputs("</th><th>", f);
		html_esc(f, c->variant);
		fputs("</th><th>delta</th>", f);
	}
	fputs("</tr>\n", f);
	for (i = 0; i < d->n; i++)
		html_row(f, &d->rows[i], NULL);
	if (rest_shown(d)) {
		struct prof_row rest = d->rest;
		char *name = rest_name(d);

		if (name)
			rest.name = name;
		html_row(f, &rest, "rest");
		free(name);
	}
	html_row(f, &d->total, "total");
	fputs("</table>\n<p>", f);
	put_check(f, d);
	fputs("</p>\n", f);
}

void report_where_table(FILE *f, const struct prof_point *b,
			const struct prof_point *c, int top, bool moved_only)
{
	struct prof_diff d;

	prof_diff(b, c, top, moved_only, &d);
	put_diff(f, b, c, &d);
	prof_diff_free(&d);
}

typedef void where_put(FILE *f, const struct prof_point *b,
		       const struct prof_point *c, const struct prof_diff *d);

static void put_diff_text(FILE *f, const struct prof_point *b,
			  const struct prof_point *c, const struct prof_diff *d)
{
	fputc('\n', f);
	put_diff(f, b, c, d);
}

/*
 * Each cost point of each variant against the baseline, diffed to the
 * section's rows: a pair whose path length moved to put, one that did
 * not named "point (variant)" in *same (when same is not NULL). Returns
 * how many did not move.
 */
static int where_each(FILE *f, const struct gated_run *x,
		      const struct prof_run *p, where_put *put, char ***same)
{
	const struct run *r = x->r;
	int *o = variant_order(r, x->base), i, pt, nsame = 0;

	for (i = 1; i < r->nvariants; i++)
		for (pt = 0; pt < r->npoints; pt++) {
			const struct point *q = r->points[pt];
			const struct prof_point *b, *c;
			char *label;
			struct prof_diff d;

			if (strcmp(q->mode, "cost"))
				continue;
			label = xasprintf("%s-cost", q->label);
			b = prof_point_find(p, r->variants[x->base], label);
			c = prof_point_find(p, r->variants[o[i]], label);
			free(label);
			if (!b || !c)
				continue;
			prof_diff(b, c, WHERE_TOP, true, &d);
			if (!where_unmoved(&d.total)) {
				put(f, b, c, &d);
			} else if (same) {
				*same = realloc(*same, (nsame + 1) * sizeof(**same));
				if (!*same)
					die_input("out of memory");
				(*same)[nsame] = xasprintf("%s (%s)", q->label,
							   c->variant);
				nsame++;
			} else {
				nsame++;
			}
			prof_diff_free(&d);
		}
	free(o);
	return nsame;
}

void report_where(FILE *f, const struct gated_run *x)
{
	const struct run *r = x->r;
	const char *why;
	const struct prof_run *p = report_profiles(r, &why);
	int i, nsame, col;
	char **same = NULL;

	if (!p && !why)
		return;
	fputs("\n== Cost mode: where the difference goes (instruction profile) ==\n\n"
	      "Self instructions and atomics per op by function (PROFILE=insn: each\n"
	      "instruction counted, exact under icount; docs/profile.md), per variant\n"
	      "against the baseline and per point whose insn/op moved: the functions\n"
	      "that moved most, the others in one row, so that the rows sum to the\n"
	      "point's total delta (the profile's window, within 0.5% of the tables'\n"
	      "insn/op). Cost mode measures path length only: no cache misses, no\n"
	      "coherence traffic, no parallel speed-up. These are instruction counts,\n"
	      "not times, and are never compared with time mode's figures.\n", f);
	if (!p) {
		fprintf(f, "\nNot available: %s\n", why);
		return;
	}
	nsame = where_each(f, x, p, put_diff_text, &same);
	/* the points that did not move, wrapped under 80 columns */
	col = nsame ? fprintf(f, "\nNot moved (insn/op within %g%%, atomics/op "
			      "within 0.01):", WHERE_SAME_PCT) - 1 : 0;
	for (i = 0; i < nsame; i++) {
		int l = strlen(same[i]) + (i < nsame - 1);

		if (col + 1 + l > 79) {
			fputs("\n ", f);
			col = 1;
		}
		col += fprintf(f, " %s%s", same[i], i < nsame - 1 ? "," : "");
		free(same[i]);
	}
	if (nsame)
		fputc('\n', f);
	if (p->nbad)
		fprintf(f, "\n%d of %zu profiles disagree with the guest clock by more than 0.5%%\n"
			"(rlstat profile RUN names them).\n", p->nbad, p->nfiles);
	free(same);
}

/*
 * report.html's section: the tables of report_where() as HTML tables,
 * the names escaped; report.txt's copy stays in the page as text.
 */
void report_where_html(FILE *f, const struct gated_run *x)
{
	const char *why;
	const struct prof_run *p = report_profiles(x->r, &why);
	int nsame;

	if (!p)
		return;
	fputs("<h2>Cost mode: where the difference goes (instruction profile)</h2>\n"
	      "<p>Self instructions and atomics per op by function, per variant "
	      "against the baseline and per cost point whose insn/op moved; the "
	      "rows sum to the point's total delta. Cost mode measures path length "
	      "only: no cache misses, no coherence traffic, no parallel speed-up. "
	      "These are instruction counts, never compared with time mode's "
	      "figures.</p>\n", f);
	nsame = where_each(f, x, p, put_diff_html, NULL);
	if (nsame)
		fprintf(f, "<p>%d point%s whose path length did not move (insn/op "
			"within %g%%, atomics/op within 0.01): report.txt names "
			"them.</p>\n", nsame, nsame > 1 ? "s" : "", WHERE_SAME_PCT);
}

/* one row of the mail's: 72 columns, the name cut to fit */
static void mail_row(FILE *f, const struct prof_row *r, const char *name)
{
	char b[32], c[32], d[32], ad[32];

	prof_fmt(b, sizeof(b), r->base, 2, false);
	prof_fmt(c, sizeof(c), r->cand, 2, false);
	prof_fmt(d, sizeof(d), r->cand - r->base, 2, true);
	prof_fmt(ad, sizeof(ad), r->acand - r->abase, 2, true);
	fprintf(f, "  %-*.*s %9s %9s %9s %7s\n", MAIL_NAME, MAIL_NAME,
		name ? name : r->name, b, c, d, ad);
}

/*
 * The mail's lines under cost mode's path-length rows of variant v: per
 * point whose path length moved, the functions that moved most, the rest
 * and the total, in rows that sum to it; nothing without profiles.
 */
void report_where_mail(FILE *f, const struct gated_run *x, int v)
{
	const struct run *r = x->r;
	const char *why;
	const struct prof_run *p = report_profiles(r, &why);
	int pt, n = 0;
	size_t i;

	for (pt = 0; p && pt < r->npoints; pt++) {
		const struct point *q = r->points[pt];
		const struct prof_point *b, *c;
		struct prof_diff d;
		char *label;

		if (strcmp(q->mode, "cost"))
			continue;
		label = xasprintf("%s-cost", q->label);
		b = prof_point_find(p, r->variants[x->base], label);
		c = prof_point_find(p, r->variants[v], label);
		free(label);
		if (!b || !c)
			continue;
		prof_diff(b, c, WHERE_MAIL_TOP, true, &d);
		if (!where_unmoved(&d.total)) {
			if (!n++)
				fputs("\nwhere the path length goes (instruction "
				      "profile: self insn/op by\nfunction; the "
				      "rows sum to the total):\n", f);
			fprintf(f, "%-*.*s %9.9s %9.9s %9s %7s\n", MAIL_NAME + 2,
				MAIL_NAME + 2, q->label, b->variant,
				c->variant, "delta", "atom/op");
			for (i = 0; i < d.n; i++)
				mail_row(f, &d.rows[i], NULL);
			if (d.nrest) {
				char *o = xasprintf("(the other %zu)", d.nrest);

				mail_row(f, &d.rest, o);
				free(o);
			} else if (d.rest.base || d.rest.cand ||
				   d.rest.abase || d.rest.acand) {
				mail_row(f, &d.rest, NULL);
			}
			mail_row(f, &d.total, NULL);
		}
		prof_diff_free(&d);
	}
}
