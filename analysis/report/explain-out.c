// SPDX-License-Identifier: GPL-2.0
/*
 * The explanation section of report.txt and report.html (explain.c does
 * the arithmetic): one block per time-mode point and variant the gate
 * finds different from the baseline. Left out when none of those points
 * has work-mix counts or waits (results from before rlwork counted them),
 * so older runs read as they always did.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

struct explained {
	int pt, v;
	const char *metric;	/* the gated metric that moved */
	int verdict;		/* explain_differs(): 0 FAIL .. 4 */
	struct cell_mix *mb, *mv;
	struct role_split *role;
	int nroles;
	struct cell_waits *wb, *wv;	/* the lock waits (stats boot) */
};

static bool cell_kinded(const struct cell_mix *m)
{
	int i;

	for (i = 0; i < m->nops; i++)
		if (m->op[i].nkinds)
			return true;
	return false;
}

/* the differing cells, and whether any has something to say */
static struct explained *explain_all(const struct gated_run *x, int *n,
				     bool *any)
{
	const struct run *r = x->r;
	struct explained *e = NULL;
	const struct op_mix *ov;
	const char *what;
	struct cell *gb, *gv;
	int pt, v, i, verdict;
	bool kinded;

	*n = 0;
	*any = false;
	for (pt = 0; pt < r->npoints; pt++) {
		if (strcmp(r->points[pt]->mode, "time"))
			continue;
		gb = run_cell(r, pt, x->base);
		for (v = 0; gb && !gb->nfailed && v < r->nvariants; v++) {
			gv = run_cell(r, pt, v);
			if (v == x->base || !gv || gv->nfailed ||
			    !explain_differs(x, gv, &what, &verdict))
				continue;
			e = realloc(e, (*n + 1) * sizeof(*e));
			if (!e)
				die_input("out of memory");
			e[*n] = (struct explained){ pt, v, what, verdict,
				cell_mix_load(r, gb), cell_mix_load(r, gv),
				NULL, 0, cell_waits_load(r, gb),
				cell_waits_load(r, gv) };
			kinded = cell_kinded(e[*n].mb) &&
				 cell_kinded(e[*n].mv);
			e[*n].role = xcalloc(e[*n].mb->nops + 1,
					     sizeof(*e[*n].role));
			for (i = 0; i < e[*n].mb->nops; i++) {
				ov = cell_mix_op(e[*n].mv, e[*n].mb->op[i].op);
				if (!ov)
					continue;
				explain_split(&e[*n].mb->op[i],
					      e[*n].mb->nboots, ov,
					      e[*n].mv->nboots, kinded,
					      &e[*n].role[e[*n].nroles++]);
			}
			*any |= kinded || (e[*n].wb->source &&
					   e[*n].wv->source);
			(*n)++;
		}
	}
	return e;
}

static void explained_free(struct explained *e, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		cell_mix_free(e[i].mb);
		cell_mix_free(e[i].mv);
		cell_waits_free(e[i].wb);
		cell_waits_free(e[i].wv);
		free(e[i].role);
	}
	free(e);
}

/* a log ratio as a percent change */
static double pct(double l)
{
	return (exp(l) - 1) * 100;
}

static void put_change(FILE *f, double l, double hw)
{
	fprintf(f, "%+.1f%% [%+.1f%%, %+.1f%%]", pct(l), pct(l - hw),
		pct(l + hw));
}

static const char *const verdict_word[] = { "FAIL", "better", "worse",
	"worse (uncorrected)", "better (uncorrected)" };

/* us of one op of a kind; "-" for a kind a side never ran */
static const char *us(char *buf, size_t len, double ns)
{
	if (isnan(ns))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f", ns / 1e3);
	return buf;
}

/* both sides counted the lock, and where the counters came from */
static bool waits_both(const struct explained *e)
{
	return e->wb->source && e->wv->source;
}

static const char *waits_source(const struct explained *e, char *buf,
				size_t len)
{
	if (!strcmp(e->wb->source, e->wv->source))
		return e->wb->source;
	snprintf(buf, len, "%s -> %s", e->wb->source, e->wv->source);
	return buf;
}

/* the waits' figures, baseline -> variant, under 80 columns */
static void waits_figures(FILE *f, const struct explained *e,
			  const char *ind)
{
	char mb[32], mv[32], xb[32], xv[32];

	waits_fmt(mb, sizeof(mb), cell_waits_mean_us(e->wb), 1);
	waits_fmt(mv, sizeof(mv), cell_waits_mean_us(e->wv), 1);
	waits_fmt(xb, sizeof(xb), e->wb->max_ns / 1e3, 1);
	waits_fmt(xv, sizeof(xv), e->wv->max_ns / 1e3, 1);
	fprintf(f, "%scontended %.0f -> %.0f, waited %.2f -> %.2f ms\n"
		"%smean wait %s -> %s us, max %s -> %s us\n", ind,
		e->wb->contended, e->wv->contended, e->wb->wait_ns / 1e6,
		e->wv->wait_ns / 1e6, ind, mb, mv, xb, xv);
}

/* the counters are the role's own: the point has this one op */
static bool waits_of_role(const struct explained *e, const char *op)
{
	return waits_both(e) && e->wb->role && e->wv->role &&
	       !strcmp(e->wb->role, op) && !strcmp(e->wv->role, op);
}

static void role_waits_text(FILE *f, const struct explained *e,
			    const struct role_split *s)
{
	char buf[64];

	if (!waits_both(e))
		return;
	if (!waits_of_role(e, s->op)) {
		fputs("            waits     not separable by role (the "
		      "point's, below)\n", f);
		return;
	}
	fprintf(f, "            waits     %s's, per boot (%s):\n", s->op,
		waits_source(e, buf, sizeof(buf)));
	waits_figures(f, e, "                      ");
}

static void waits_text(FILE *f, const struct explained *e)
{
	char buf[64];
	const char *failed = e->wb->stats_failed ? e->wb->source ? NULL :
			     "baseline's" : e->wv->stats_failed &&
			     !e->wv->source ? "variant's" : NULL;

	if (!waits_both(e)) {
		fputs("  waits     not measured (needs a stats boot)\n", f);
		if (failed)
			fprintf(f, "            (the %s stats boot failed)\n",
				failed);
		return;
	}
	if (e->wb->role && waits_of_role(e, e->wb->role)) {
		fprintf(f, "  waits     all %s's (the point's one op), above\n",
			e->wb->role);
		return;
	}
	fprintf(f, "  waits     mapping_lock, the whole point's, per boot "
		"(%s):\n", waits_source(e, buf, sizeof(buf)));
	waits_figures(f, e, "            ");
}

static void role_text(FILE *f, const struct explained *e,
		      const struct role_split *s)
{
	char b[32], v[32];
	int k;

	fprintf(f, "  %-9.9s rate      ", s->op);
	if (s->cause == CAUSE_UNDECIDED && !s->hw_total) {
		fprintf(f, "not compared: %s\n            cause     "
			"undecided\n", s->why);
		role_waits_text(f, e, s);
		return;
	}
	put_change(f, s->total, s->hw_total);
	fputc('\n', f);
	if (s->cause == CAUSE_UNCOUNTED) {
		fprintf(f, "            mix       not counted: %s\n"
			"            cause     undecided\n", s->why);
		role_waits_text(f, e, s);
		return;
	}
	for (k = 0; k < s->nkinds; k++)
		fprintf(f, "  %-9s %-11.11s %.1f%% -> %.1f%% of ops, "
			"%s -> %s us each\n", "", s->kind[k],
			s->share_b[k] * 100, s->share_v[k] * 100,
			us(b, sizeof(b), s->cost_b[k]),
			us(v, sizeof(v), s->cost_v[k]));
	if (!s->nkinds)
		fprintf(f, "            (one kind)\n");
	fputs("            mix part  ", f);
	put_change(f, s->mix, s->hw_mix);
	fputs("\n            per kind  ", f);
	put_change(f, s->res, s->hw_res);
	fprintf(f, "\n            cause     %s%s%s\n", explain_cause(s),
		s->why ? ": " : "", s->why ? s->why : "");
	role_waits_text(f, e, s);
}

void report_explain_text(FILE *f, const struct gated_run *x)
{
	const struct run *r = x->r;
	const char *base = r->variants[x->base];
	struct explained *e;
	int n, i, k;
	bool any;

	e = explain_all(x, &n, &any);
	if (any) {
		fprintf(f, "\n== What each difference is made of ==\n\n"
"For each time-mode point different from %s (a metric the gate finds\n"
"moved, or else a role's rate past the threshold, uncorrected), per role\n"
"(op): its rate change, its work mix (the share of its ops of each kind\n"
"and the timed us of one, rlwork's ops[].kinds), and the rate change\n"
"split in two (shift-share, on the log scale, so they add up): \"mix\n"
"part\" is what the variant's mix alone does at %s's cost per kind,\n"
"\"per kind\" the rest (each kind waiting longer or doing more). The\n"
"cause is the part at least twice the other, each taken at the end of\n"
"its 95%% interval least in its favour; else undecided. Waits: the\n"
"invalidation lock's contended acquisitions and time waited per boot,\n"
"from the variant's stats boot (booted with the counters on, its rates\n"
"never used), or from timed boots that counted; a role's own\n"
"only where the point has one op: the counters do not tell roles apart.\n",
			base, base);
	}
	for (i = 0; any && i < n; i++) {
		fputc('\n', f);
		put_point_line(f, r->points[e[i].pt]);
		fprintf(f, "  %s against %s: %s %s\n", r->variants[e[i].v],
			base, e[i].metric, verdict_word[e[i].verdict]);
		for (k = 0; k < e[i].nroles; k++)
			role_text(f, &e[i], &e[i].role[k]);
		waits_text(f, &e[i]);
	}
	explained_free(e, n);
}

static void td_change(FILE *f, double l, double hw)
{
	fputs("<td>", f);
	put_change(f, l, hw);
	fputs("</td>", f);
}

static void role_html(FILE *f, const struct role_split *s)
{
	char b[32], v[32];
	int k;

	fputs("<tr><th>", f);
	html_esc(f, s->op);
	fputs("</th>", f);
	if (s->cause == CAUSE_UNDECIDED && !s->hw_total) {
		fputs("<td colspan=\"5\" style=\"text-align:left\">not compared: ", f);
		html_esc(f, s->why);
		fputs("</td><td style=\"text-align:left\">undecided</td></tr>\n", f);
		return;
	}
	td_change(f, s->total, s->hw_total);
	if (s->cause == CAUSE_UNCOUNTED) {
		fputs("<td colspan=\"4\" style=\"text-align:left\">not counted: ", f);
		html_esc(f, s->why);
		fputs("</td><td style=\"text-align:left\">undecided</td></tr>\n", f);
		return;
	}
	fputs("<td style=\"text-align:left\">", f);
	for (k = 0; k < s->nkinds; k++) {
		html_esc(f, s->kind[k]);
		fprintf(f, " %.1f%% &rarr; %.1f%%%s", s->share_b[k] * 100,
			s->share_v[k] * 100, k + 1 < s->nkinds ? "<br>" : "");
	}
	fputs(s->nkinds ? "</td><td style=\"text-align:left\">" :
			  "one kind</td><td>", f);
	for (k = 0; k < s->nkinds; k++) {
		html_esc(f, s->kind[k]);
		fprintf(f, " %s &rarr; %s%s", us(b, sizeof(b), s->cost_b[k]),
			us(v, sizeof(v), s->cost_v[k]),
			k + 1 < s->nkinds ? "<br>" : "");
	}
	fputs("</td>", f);
	td_change(f, s->mix, s->hw_mix);
	td_change(f, s->res, s->hw_res);
	fprintf(f, "<td style=\"text-align:left\">%s%s", s->cause == CAUSE_MIX ||
		s->cause == CAUSE_COST ? "<b>" : "", explain_cause(s));
	if (s->why) {
		fputs(": ", f);
		html_esc(f, s->why);
	}
	fprintf(f, "%s</td></tr>\n", s->cause == CAUSE_MIX ||
		s->cause == CAUSE_COST ? "</b>" : "");
}

/* the waits paragraph: the role's, or the point's (not separable) */
static void waits_html(FILE *f, const struct explained *e)
{
	char buf[64], mb[32], mv[32], xb[32], xv[32];

	if (!waits_both(e)) {
		fputs("not measured (needs a stats boot)</p>\n", f);
		return;
	}
	if (e->wb->role && waits_of_role(e, e->wb->role)) {
		fputs("the ", f);
		html_esc(f, e->wb->role);
		fputs(" role's own (the point's one op)", f);
	} else {
		fputs("the whole point's, not separable by role", f);
	}
	waits_fmt(mb, sizeof(mb), cell_waits_mean_us(e->wb), 1);
	waits_fmt(mv, sizeof(mv), cell_waits_mean_us(e->wv), 1);
	waits_fmt(xb, sizeof(xb), e->wb->max_ns / 1e3, 1);
	waits_fmt(xv, sizeof(xv), e->wv->max_ns / 1e3, 1);
	fprintf(f, ", per boot (%s): contended %.0f &rarr; %.0f, waited "
		"%.2f &rarr; %.2f ms, mean wait %s &rarr; %s &micro;s, max "
		"%s &rarr; %s &micro;s</p>\n",
		waits_source(e, buf, sizeof(buf)), e->wb->contended,
		e->wv->contended, e->wb->wait_ns / 1e6, e->wv->wait_ns / 1e6,
		mb, mv, xb, xv);
}

void report_explain_html(FILE *f, const struct gated_run *x)
{
	const struct run *r = x->r;
	const char *base = r->variants[x->base];
	struct explained *e;
	int n, i, k;
	bool any;

	e = explain_all(x, &n, &any);
	if (any) {
		fputs("<h2 id=\"explain\">What each difference is made of</h2>\n"
		      "<p>Per role of each point the gate finds different "
		      "from ", f);
		html_esc(f, base);
		fputs(" (a metric the gate finds moved, or else a role's rate "
		      "past the threshold, uncorrected)", f);
		fputs(": the rate change, the work mix (share of ops of each "
		      "kind and the timed &micro;s of one), and the rate "
		      "change split into the mix part (the variant's mix at "
		      "the baseline's cost per kind) and the per-kind part "
		      "(the rest: waiting, or doing each kind slower). The "
		      "cause is the part at least twice the other at the "
		      "ends of their 95% intervals; else undecided.</p>\n", f);
	}
	for (i = 0; any && i < n; i++) {
		const struct point *p = r->points[e[i].pt];

		fputs("<h3>", f);
		html_esc(f, p->label);
		fputs(": ", f);
		html_esc(f, r->variants[e[i].v]);
		fputs(" against ", f);
		html_esc(f, base);
		fputs(" (", f);
		html_esc(f, e[i].metric);
		fprintf(f, " %s)</h3>\n<table>\n<tr><th>role</th><th>rate</th>"
			"<th>mix: share of ops</th><th>&micro;s per op</th>"
			"<th>mix part</th><th>per kind</th><th>cause</th>"
			"</tr>\n", verdict_word[e[i].verdict]);
		for (k = 0; k < e[i].nroles; k++)
			role_html(f, &e[i].role[k]);
		fputs("</table>\n<p>Waits: ", f);
		waits_html(f, &e[i]);
	}
	explained_free(e, n);
}
