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

static void put_row(FILE *f, const struct prof_row *r)
{
	char b[32], c[32], d[32], ab[32], ac[32], ad[32];

	prof_fmt(b, sizeof(b), r->base, 2, false);
	prof_fmt(c, sizeof(c), r->cand, 2, false);
	prof_fmt(d, sizeof(d), r->cand - r->base, 2, true);
	prof_fmt(ab, sizeof(ab), r->abase, 2, false);
	prof_fmt(ac, sizeof(ac), r->acand, 2, false);
	prof_fmt(ad, sizeof(ad), r->acand - r->abase, 2, true);
	fprintf(f, "  %9s %9s %9s  %7s %7s %7s  %s\n", b, c, d, ab, ac, ad,
		r->name);
}

/* the table of one pair at one point, and its check line */
static void put_diff(FILE *f, const struct prof_point *b,
		     const struct prof_point *c, const struct prof_diff *d)
{
	int64_t sum = 0, asum = 0;
	char s[32], t[32], as[32], at[32];
	size_t i;

	fprintf(f, "where the difference goes: %s, %s against %s (per op; %d and %d boots)\n",
		b->label, c->variant, b->variant, c->boots, b->boots);
	fprintf(f, "  %-29s  %-23s\n  %9.9s %9.9s %9s  %7.7s %7.7s %7s  %s\n",
		"---------- insn/op ----------", "----- atomics/op ------",
		b->variant, c->variant, "delta", b->variant, c->variant,
		"delta", "function");
	for (i = 0; i < d->n; i++) {
		put_row(f, &d->rows[i]);
		sum += d->rows[i].cand - d->rows[i].base;
		asum += d->rows[i].acand - d->rows[i].abase;
	}
	if (d->nrest || d->rest.base || d->rest.cand || d->rest.abase ||
	    d->rest.acand) {
		struct prof_row rest = d->rest;
		char *name = d->nrest ? xasprintf("(the other %zu functions)",
						  d->nrest) : NULL;

		if (name)
			rest.name = name;
		put_row(f, &rest);
		free(name);
		sum += rest.cand - rest.base;
		asum += rest.acand - rest.abase;
	}
	put_row(f, &d->total);
	prof_fmt(s, sizeof(s), sum, 2, true);
	prof_fmt(t, sizeof(t), d->total.cand - d->total.base, 2, true);
	prof_fmt(as, sizeof(as), asum, 2, true);
	prof_fmt(at, sizeof(at), d->total.acand - d->total.abase, 2, true);
	if (sum == d->total.cand - d->total.base &&
	    asum == d->total.acand - d->total.abase)
		fprintf(f, "  sum of rows = total delta: %s insn/op, %s atomics/op\n",
			s, as);
	else
		fprintf(f, "  MISMATCH: the rows sum to %s insn/op and %s atomics/op, the total delta is %s and %s\n",
			s, as, t, at);
}

void report_where_table(FILE *f, const struct prof_point *b,
			const struct prof_point *c, int top, bool moved_only)
{
	struct prof_diff d;

	prof_diff(b, c, top, moved_only, &d);
	put_diff(f, b, c, &d);
	prof_diff_free(&d);
}

void report_where(FILE *f, const struct gated_run *x)
{
	const struct run *r = x->r;
	const char *why;
	const struct prof_run *p = report_profiles(r, &why);
	int *o, i, pt, nsame = 0, col;
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
	o = variant_order(r, x->base);
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
			if (where_unmoved(&d.total)) {
				same = realloc(same, (nsame + 1) * sizeof(*same));
				if (!same)
					die_input("out of memory");
				same[nsame++] = xasprintf("%s (%s)", q->label,
							  c->variant);
			} else {
				fputc('\n', f);
				put_diff(f, b, c, &d);
			}
			prof_diff_free(&d);
		}
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
	free(o);
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
