// SPDX-License-Identifier: GPL-2.0
/*
 * The text a patch author pastes under a cover letter: 72 columns, ASCII,
 * the verdict first, then per candidate the comparison table in the
 * mmtests/lkp style (baseline and candidate means, their CoeffVar, the
 * change, the gate's word), time mode's rates and p99 apart from cost
 * mode's path-length rows (instructions per operation, as lkp's report
 * mails carry them) with, for a run with instruction profiles, the
 * functions where it moved most (where.c), and the command that
 * reproduces the run.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

#define WIDTH 72
#define LABEL 24

/*
 * lead then text, text broken every so many characters to stay within
 * WIDTH (names run to 64 characters, releases longer), continued under it.
 */
static void put_wrapped(FILE *f, const char *lead, const char *text)
{
	int room = WIDTH - (int)strlen(lead), n = strlen(text);

	fputs(lead, f);
	while (n > room) {
		fprintf(f, "%.*s\n%*s", room, text, (int)strlen(lead), "");
		text += room;
		n -= room;
	}
	fprintf(f, "%s\n", text);
}

/* "Gmean read ops/s" without its mean's name: the table says which */
static const char *short_metric(const struct metric_def *d, char *buf,
				size_t len)
{
	const char *l = metric_label(d, buf, len), *sp = strchr(l, ' ');

	if (sp && (!strncmp(l, "Gmean ", 6) || !strncmp(l, "Amean ", 6) ||
		   !strncmp(l, "Mean ", 5)))
		return sp + 1;
	return l;
}

static const char *word(const struct gated_metric *it)
{
	if (it->suit)
		return "unfit";
	if (it->v == V_FAIL)
		return "FAIL";
	if (it->better)
		return "better";
	if (it->v == V_PASS)
		return "ok";
	return "?";
}

/* one row: label, two means with their CoeffVar, the change, the word */
static void row(FILE *f, const struct gated_metric *it)
{
	const struct cell_metric *a = &it->ga->m[it->mi];
	const struct cell_metric *b = &it->gb->m[it->mi];
	const char *unit;
	char lab[96], m[64], va[32], vb[32], pct[32] = "n/a";
	double sc = metric_scale(a->def, &unit);
	bool cost = !strcmp(it->gb->pt->mode, "cost");

	/* a path-length row is insn/op: the op names it */
	snprintf(lab, sizeof(lab), "%s %s", it->gb->pt->label,
		 cost && a->def->op ? a->def->op :
		 short_metric(a->def, m, sizeof(m)));
	fmt_value(va, sizeof(va), a->value * sc);
	fmt_value(vb, sizeof(vb), b->value * sc);
	if (it->c.pct == it->c.pct)	/* NaN when the baseline's is 0 */
		snprintf(pct, sizeof(pct), "%+.2f%%", it->c.pct);
	fprintf(f, "%-*.*s %8s %5.*f%% %8s %5.*f%% %7s %s\n", LABEL, LABEL,
		lab, va, cost ? 2 : 1, a->s.cv * 100, vb, cost ? 2 : 1,
		b->s.cv * 100, pct, word(it));
}

static void head(FILE *f, const char *base, const char *cand)
{
	fprintf(f, "%-*s %15.15s %15.15s\n", LABEL, "", base, cand);
	fprintf(f, "%-*s %8s %6s %8s %6s %7s\n", LABEL, "", "mean",
		"cv", "mean", "cv", "change");
}

/* rows of one candidate in one mode; false when it has none */
static bool section(FILE *f, const struct gated_run *x, int v,
		    const char *mode)
{
	const char *accel = "?";
	int i, n = 0;

	for (i = 0; i < x->nit; i++) {
		const struct gated_metric *it = &x->it[i];

		if (it->fam == FAM_OTHER || it->fam == FAM_ERROR ||
		    strcmp(it->gb->variant, x->r->variants[v]) ||
		    strcmp(it->gb->pt->mode, mode))
			continue;
		if (it->gb->accel)
			accel = it->gb->accel;
		if (!n++) {
			if (!strcmp(mode, "cost"))
				fputs("path-length, cost mode (QEMU icount): "
				      "instructions per operation,\nthe path "
				      "only: no cache misses, no coherence "
				      "traffic, no parallel\nspeed-up; lower "
				      "is better.\n", f);
			else
				fputs("time mode: wall-clock rates (higher is "
				      "better) and p99 latencies.\n", f);
			head(f, x->r->variants[x->base], x->r->variants[v]);
		}
		row(f, it);
	}
	if (n && !strcmp(mode, "cost"))
		report_where_mail(f, x, v);
	if (n && !strcmp(mode, "time") && !strcmp(accel, "tcg"))
		fputs("(under TCG: wall clock carries emulation speed and host "
		      "load; read it\nfor structural effects, not small "
		      "differences)\n", f);
	if (n)
		fputc('\n', f);
	return n;
}

/* one word of a shell command, a backslash line break before it if due */
static void word_at(FILE *f, int *col, const char *w)
{
	int n = strlen(w);

	if (*col + 1 + n > WIDTH - 2) {
		fputs(" \\\n   ", f);
		*col = 3;
	}
	fprintf(f, " %s", w);
	*col += 1 + n;
}

static void reproduce(FILE *f, const struct gated_run *x, int v)
{
	json_t *m = x->r->meta, *rq = json_object_get(m, "requested");
	const char *mx = json_string_value(json_object_get(m, "matrix"));
	const char *mode = json_string_value(json_object_get(rq, "mode"));
	json_t *it = json_object_get(rq, "iterations");
	char w[256];
	int col = 12;

	fputs("reproduce:\n  make bench", f);
	snprintf(w, sizeof(w), "KERNEL=%s", x->r->variants[v]);
	word_at(f, &col, w);
	snprintf(w, sizeof(w), "BASELINE=%s", x->r->variants[x->base]);
	word_at(f, &col, w);
	if (mx) {	/* configs/<name>.matrix is MATRIX=<name> */
		int n = strlen(mx);

		if (n > 7 && !strcmp(mx + n - 7, ".matrix"))
			n -= 7;
		snprintf(w, sizeof(w), "MATRIX=%.*s", n, mx);
		word_at(f, &col, w);
	}
	if (mode) {
		snprintf(w, sizeof(w), "MODE=%s", mode);
		word_at(f, &col, w);
	}
	if (json_is_string(it) || json_is_integer(it)) {
		if (json_is_string(it))
			snprintf(w, sizeof(w), "ITERATIONS=%s",
				 json_string_value(it));
		else
			snprintf(w, sizeof(w), "ITERATIONS=%lld",
				 json_integer_value(it));
		word_at(f, &col, w);
	}
	fputc('\n', f);
}

int report_mail(FILE *f, const struct gated_run *x)
{
	const struct run *r = x->r;
	int v, i, n[3] = { 0 }, cand, base, boots = 0;
	char line[256];

	gated_failures(x, NULL, &cand, &base);
	for (i = 0; i < x->nit; i++)
		if (x->it[i].fam == FAM_PRIMARY || x->it[i].fam == FAM_SECONDARY)
			n[x->it[i].v]++;
	for (i = 0; i < r->npoints * r->nvariants; i++)
		if (r->cells[i] && r->cells[i]->niter > boots)
			boots = r->cells[i]->niter;
	snprintf(line, sizeof(line), "%d point%s, %d variant%s, up to %d "
		 "boots each", r->npoints, r->npoints == 1 ? "" : "s",
		 r->nvariants, r->nvariants == 1 ? "" : "s", boots);
	put_wrapped(f, "rlbench: ", line);
	put_wrapped(f, "run:     ", json_string_value(json_object_get(r->meta,
						"name")) ?: r->dir);
	snprintf(line, sizeof(line), "%s: %d FAIL, %d undecided, %d PASS of %d "
		 "gated metrics", verdict_name(gated_overall(x)), n[V_FAIL],
		 n[V_INCONC], n[V_PASS], n[0] + n[1] + n[2]);
	put_wrapped(f, "verdict: ", line);
	fprintf(f, "(thresholds %g%% time, %g%% p99, %g%% cost; %d failed "
		"point%s)\n\n", x->gt.threshold_pct, x->gt.tail_threshold_pct,
		x->gt.cost_threshold_pct, cand, cand == 1 ? "" : "s");
	for (v = 0; v < r->nvariants; v++) {
		const struct cell *c = NULL;

		if (v == x->base)
			continue;
		for (i = 0; i < r->npoints && !c; i++)
			c = run_cell(r, i, v);
		put_wrapped(f, "== candidate: ", r->variants[v]);
		put_wrapped(f, "   baseline:  ", r->variants[x->base]);
		if (c && c->release)
			put_wrapped(f, "   kernel:    ", c->release);
		fputc('\n', f);
		section(f, x, v, "time");
		section(f, x, v, "cost");
		reproduce(f, x, v);
		fputc('\n', f);
	}
	fputs("cv: CoeffVar over boots. change: of the candidate's mean. The "
	      "last word\nis the gate's: FAIL (past the threshold), ok (inside "
	      "it), ? (undecided),\nbetter, unfit (a cost cell the gate "
	      "leaves out).\n", f);
	return ferror(f) ? -1 : 0;
}
