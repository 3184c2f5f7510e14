// SPDX-License-Identifier: GPL-2.0
/*
 * report.html: one static page, no scripts and no network fetches. The
 * charts are the SVG files next to it (relative links), the provenance
 * is meta.json as recorded.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

static void num(FILE *f, double v)
{
	char b[32];

	fmt_value(b, sizeof(b), v);
	fprintf(f, "<td>%s</td>", b + strspn(b, " "));
}

static void provenance(FILE *f, const struct run *r)
{
	const char *k;
	json_t *v;
	char *s;

	fputs("<h2>Provenance (meta.json)</h2>\n", f);
	if (!r->meta) {
		fputs("<p>This run directory has no meta.json.</p>\n", f);
		return;
	}
	fputs("<table class=\"meta\">\n", f);
	json_object_foreach(r->meta, k, v) {
		fputs("<tr><th>", f);
		html_esc(f, k);
		fputs("</th><td>", f);
		if (json_is_string(v) && strlen(json_string_value(v)) < 200 &&
		    !strchr(json_string_value(v), '\n')) {
			html_esc(f, json_string_value(v));
		} else {
			s = json_dumps(v, JSON_ENCODE_ANY | JSON_INDENT(2));
			fputs("<details><summary>show</summary><pre>", f);
			html_esc(f, json_is_string(v) ? json_string_value(v) : s);
			fputs("</pre></details>", f);
			free(s);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void stats_table(FILE *f, const struct gated_run *x, int pt)
{
	const struct run *r = x->r;
	const struct point *p = r->points[pt];
	int *o = variant_order(r, x->base);
	const struct gated_metric *it;
	char lab[64];
	const char *unit;
	int mi, i;

	fputs("<table class=\"stats\"><tr><th>metric</th><th>variant</th>"
	      "<th>N</th><th>value</th><th>amean</th><th>median</th>"
	      "<th>stddev</th><th>CV</th><th>95% CI</th><th>min</th>"
	      "<th>max</th><th>change</th><th>p (one-sided)</th><th>MDE</th>"
	      "<th>verdict</th></tr>\n", f);
	for (mi = 0; mi < p->ndefs; mi++) {
		double sc = metric_scale(&p->defs[mi], &unit);

		metric_label(&p->defs[mi], lab, sizeof(lab));
		for (i = 0; i < r->nvariants; i++) {
			const struct cell *g = run_cell(r, pt, o[i]);
			const struct summary *s;

			if (!g)
				continue;
			fputs("<tr><td>", f);
			html_esc(f, lab);
			fputs("</td><td>", f);
			html_esc(f, r->variants[o[i]]);
			fputs("</td>", f);
			if (g->nfailed) {
				fprintf(f, "<td colspan=\"13\" class=\"fail\">"
					"FAILED %d/%d: ", g->nfailed,
					g->niter);
				html_esc(f, g->first_error);
				fputs("</td></tr>\n", f);
				continue;
			}
			s = &g->m[mi].s;
			fprintf(f, "<td>%d</td>", s->n);
			num(f, g->m[mi].value * sc);
			num(f, s->amean * sc);
			num(f, s->median * sc);
			num(f, s->stddev * sc);
			fprintf(f, "<td>%.2f%%</td>", s->cv * 100);
			if (isfinite(s->ci_lo) && isfinite(s->ci_hi))
				fprintf(f, "<td>%.6g&ndash;%.6g</td>",
					s->ci_lo * sc, s->ci_hi * sc);
			else
				fputs("<td>n/a</td>", f);
			num(f, s->min * sc);
			num(f, s->max * sc);
			it = o[i] == x->base ? NULL :
			     gate_find(x->it, x->nit, g, mi);
			if (!it) {
				fputs("<td></td><td></td><td></td><td></td>"
				      "</tr>\n", f);
				continue;
			}
			fprintf(f, "<td%s>%+.2f%%</td>", it->v == V_FAIL ||
				it->better ? " class=\"sig\"" : "", it->c.pct);
			if (it->c.valid)
				fprintf(f, "<td>%.3g</td><td>%.2f%%</td>",
					it->c.p_worse, it->c.mde_pct);
			else
				fputs("<td colspan=\"2\">not enough iterations"
				      "</td>", f);
			fprintf(f, "<td>%s%s%s</td></tr>\n",
				verdict_name(it->v), it->better ? ", better" :
				"", it->suit ? " (not gated: unsuited to "
				"cost mode)" : it->fam == FAM_OTHER ?
				" (not gated, uncorrected)" : "");
		}
	}
	fputs("</table>\n", f);
	free(o);
}

static void verdict_html(FILE *f, const struct gated_run *x)
{
	static const char *const modes[] = { "time", "cost" };
	char *txt = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&txt, &len);
	struct gmean_row g;
	int v, md;

	fprintf(f, "<h2>Verdict: %s</h2>\n", verdict_name(gated_overall(x)));
	if (m) {
		report_verdict_text(m, x);
		fclose(m);
		fputs("<pre class=\"verdict\">", f);
		html_esc(f, txt);
		fputs("</pre>\n", f);
		free(txt);
	}
	fputs("<table class=\"stats\"><tr><th>mode</th><th>variant</th>"
	      "<th>points</th><th>geometric mean of the ratios against ", f);
	html_esc(f, x->r->variants[x->base]);
	fputs("</th><th>95% CI</th></tr>\n", f);
	for (md = 0; md < 2; md++)
		for (v = 0; v < x->r->nvariants; v++) {
			if (v == x->base || !matrix_gmean(x, v, modes[md], &g))
				continue;
			fprintf(f, "<tr><td>%s</td><td>", modes[md]);
			html_esc(f, x->r->variants[v]);
			fprintf(f, "</td><td>%d</td><td>%.4f</td><td>%.4f&ndash;"
				"%.4f</td></tr>\n", g.npts, g.ratio, g.lo, g.hi);
		}
	fputs("</table>\n", f);
}

static void figure(FILE *f, const struct chart *c)
{
	char *png = xasprintf("%s.png", c->name);
	char *svg = xasprintf("%s.svg", c->name);

	fputs("<figure><a href=\"", f);
	html_href(f, png);
	fputs("\"><img src=\"", f);
	html_href(f, svg);
	fputs("\" width=\"960\" height=\"540\" alt=\"", f);
	free(png);
	free(svg);
	html_esc(f, c->caption);
	fputs("\"></a><figcaption>", f);
	html_esc(f, c->caption);
	fputs("</figcaption></figure>\n", f);
}

static void figures(FILE *f, const struct chart *c, int n,
		    const struct chart_kind *kind, const char *prefix)
{
	int i;

	for (i = 0; i < n; i++)
		if (c[i].kind == kind && (!prefix ||
		    !strncmp(c[i].caption, prefix, strlen(prefix))))
			figure(f, &c[i]);
}

int report_html(FILE *f, const struct gated_run *x, const struct chart *charts,
		int ncharts)
{
	const struct run *r = x->r;
	const char *name = strrchr(r->dir, '/');
	char *txt = NULL, *pre;
	size_t len = 0;
	FILE *m = open_memstream(&txt, &len);
	const struct chart_kind *k;
	int pt;

	if (!m || report_text(m, x) || fclose(m))
		return -1;
	name = name && name[1] ? name + 1 : r->dir;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset="
	      "\"utf-8\">\n<title>rlbench report: ", f);
	html_esc(f, name);
	fputs("</title>\n<style>\nbody{font-family:sans-serif;margin:1em 2em;"
	      "color:#222}\npre{background:#f6f6f6;padding:.5em;"
	      "overflow-x:auto}\ntable{border-collapse:collapse;margin:.5em 0}"
	      "\ntd,th{border:1px solid #ccc;padding:2px 6px;text-align:right;"
	      "font-size:90%}\nth{background:#eee}\ntable.meta td{text-align:"
	      "left}\ntable.where td.fn{text-align:left;font-family:monospace}\n"
	      "tr.total td{font-weight:bold}\n.sig{font-weight:bold;background:#fde2c8}\n.fail{color:"
	      "#a00;text-align:left}\nfigure{display:inline-block;margin:.5em}"
	      "\nimg{max-width:100%;height:auto;border:1px solid #ddd}\n"
	      "</style></head><body>\n<h1>rlbench report: ", f);
	html_esc(f, name);
	fputs("</h1>\n", f);
	if (r->nvariants > 1)
		verdict_html(f, x);
	for (k = chart_kinds; ncharts && k->name; k++) {
		int i;

		/* a kind with nothing to draw here (no profiles) gets no heading */
		for (i = 0; i < ncharts && charts[i].kind != k; i++)
			;
		if (!k->heading || i == ncharts)
			continue;
		fputs("<h2>", f);
		html_esc(f, k->heading);
		fputs("</h2>\n", f);
		figures(f, charts, ncharts, k, NULL);
	}
	fputs("<h2>Comparison (report.txt)</h2>\n<pre>", f);
	html_esc(f, txt);
	fputs("</pre>\n", f);
	if (r->nvariants > 1) {
		report_explain_html(f, x);
		report_where_html(f, x);
	}
	for (pt = 0; pt < r->npoints; pt++) {
		const struct point *p = r->points[pt];
		bool cost = !strcmp(p->mode, "cost");

		pre = xasprintf("%s:", p->label);
		fputs("<h2 id=\"", f);
		html_esc(f, p->label);
		fprintf(f, "%s\">", cost ? "-cost" : "");
		html_esc(f, p->label);
		fputs(": ", f);
		html_esc(f, p->workload);
		fputc(' ', f);
		html_esc(f, p->params_str);
		fputs(cost ? " (cost mode, insn/op)" : " (time mode)", f);
		fputs("</h2>\n", f);
		stats_table(f, x, pt);
		if (!cost)
			report_waits_html(f, x, pt);
		for (k = chart_kinds; !cost && k->name; k++)
			if (!k->heading)
				figures(f, charts, ncharts, k, pre);
		free(pre);
	}
	provenance(f, r);
	fputs("</body></html>\n", f);
	free(txt);
	return ferror(f) ? -1 : 0;
}
