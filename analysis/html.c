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

#include "rlstat.h"

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

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
		esc(f, k);
		fputs("</th><td>", f);
		if (json_is_string(v) && strlen(json_string_value(v)) < 200 &&
		    !strchr(json_string_value(v), '\n')) {
			esc(f, json_string_value(v));
		} else {
			s = json_dumps(v, JSON_ENCODE_ANY | JSON_INDENT(2));
			fputs("<details><summary>show</summary><pre>", f);
			esc(f, json_is_string(v) ? json_string_value(v) : s);
			fputs("</pre></details>", f);
			free(s);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void stats_table(FILE *f, const struct run *r, int pt, int base,
			double alpha)
{
	const struct point *p = r->points[pt];
	const struct group *gb = run_group(r, pt, base);
	int *o = variant_order(r, base);
	struct cmp c;
	char lab[64];
	const char *unit;
	int mi, i;

	fputs("<table class=\"stats\"><tr><th>metric</th><th>variant</th>"
	      "<th>N</th><th>value</th><th>mean</th><th>median</th>"
	      "<th>stddev</th><th>CV</th><th>95% CI</th><th>min</th>"
	      "<th>max</th><th>change</th><th>p</th><th>MDE</th></tr>\n", f);
	for (mi = 0; mi < p->ndefs; mi++) {
		double sc = metric_scale(&p->defs[mi], &unit);

		metric_label(&p->defs[mi], lab, sizeof(lab));
		for (i = 0; i < r->nvariants; i++) {
			const struct group *g = run_group(r, pt, o[i]);
			const struct summary *s;

			if (!g)
				continue;
			fputs("<tr><td>", f);
			esc(f, lab);
			fprintf(f, "</td><td>%s</td>", r->variants[o[i]]);
			if (g->nfailed) {
				fprintf(f, "<td colspan=\"12\" class=\"fail\">"
					"FAILED %d/%d: ", g->nfailed,
					g->niter);
				esc(f, g->first_error);
				fputs("</td></tr>\n", f);
				continue;
			}
			s = &g->m[mi].s;
			fprintf(f, "<td>%d</td>", s->n);
			num(f, g->m[mi].value * sc);
			num(f, s->mean * sc);
			num(f, s->median * sc);
			num(f, s->stddev * sc);
			fprintf(f, "<td>%.2f%%</td><td>%.6g&ndash;%.6g</td>",
				s->cv * 100, s->ci_lo * sc, s->ci_hi * sc);
			num(f, s->min * sc);
			num(f, s->max * sc);
			if (o[i] == base || !gb || gb->nfailed) {
				fputs("<td></td><td></td><td></td></tr>\n", f);
				continue;
			}
			cmp_compute(&c, &gb->m[mi], &g->m[mi], alpha);
			fprintf(f, "<td%s>%+.2f%%</td>", c.sig ?
				" class=\"sig\"" : "", c.pct);
			if (c.w.valid && !isnan(c.mde_pct))
				fprintf(f, "<td>%.3g</td><td>%.2f%%</td></tr>\n",
					c.w.p, c.mde_pct);
			else if (c.w.valid)
				fprintf(f, "<td>%.3g</td><td>n/a</td></tr>\n",
					c.w.p);
			else
				fputs("<td colspan=\"2\">not enough iterations"
				      "</td></tr>\n", f);
		}
	}
	fputs("</table>\n", f);
	free(o);
}

static void figure(FILE *f, const struct chart *c)
{
	fprintf(f, "<figure><a href=\"%s.png\"><img src=\"%s.svg\" "
		"width=\"960\" height=\"540\" alt=\"", c->name, c->name);
	esc(f, c->caption);
	fputs("\"></a><figcaption>", f);
	esc(f, c->caption);
	fputs("</figcaption></figure>\n", f);
}

static void figures(FILE *f, const struct chart *c, int n, int kind,
		    const char *prefix)
{
	int i;

	for (i = 0; i < n; i++)
		if (c[i].kind == kind && (!prefix ||
		    !strncmp(c[i].caption, prefix, strlen(prefix))))
			figure(f, &c[i]);
}

int report_html(FILE *f, const struct run *r, int base, double alpha,
		const struct chart *charts, int ncharts)
{
	const char *name = strrchr(r->dir, '/');
	char *txt = NULL, *pre;
	size_t len = 0;
	FILE *m = open_memstream(&txt, &len);
	int pt;

	if (!m || report_text(m, r, base, alpha) || fclose(m))
		return -1;
	name = name && name[1] ? name + 1 : r->dir;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset="
	      "\"utf-8\">\n<title>rlbench report: ", f);
	esc(f, name);
	fputs("</title>\n<style>\nbody{font-family:sans-serif;margin:1em 2em;"
	      "color:#222}\npre{background:#f6f6f6;padding:.5em;"
	      "overflow-x:auto}\ntable{border-collapse:collapse;margin:.5em 0}"
	      "\ntd,th{border:1px solid #ccc;padding:2px 6px;text-align:right;"
	      "font-size:90%}\nth{background:#eee}\ntable.meta td{text-align:"
	      "left}\n.sig{font-weight:bold;background:#fde2c8}\n.fail{color:"
	      "#a00;text-align:left}\nfigure{display:inline-block;margin:.5em}"
	      "\nimg{max-width:100%;height:auto;border:1px solid #ddd}\n"
	      "</style></head><body>\n<h1>rlbench report: ", f);
	esc(f, name);
	fputs("</h1>\n", f);
	if (ncharts) {
		fputs("<h2>Throughput against threads</h2>\n", f);
		figures(f, charts, ncharts, CH_TPUT, NULL);
		fputs("<h2>Change against the baseline</h2>\n", f);
		figures(f, charts, ncharts, CH_REL, NULL);
	}
	fputs("<h2>Comparison (report.txt)</h2>\n<pre>", f);
	esc(f, txt);
	fputs("</pre>\n", f);
	for (pt = 0; pt < r->npoints; pt++) {
		const struct point *p = r->points[pt];

		pre = xasprintf("%s:", p->label);
		fprintf(f, "<h2 id=\"%s\">", p->label);
		esc(f, p->label);
		fputs(": ", f);
		esc(f, p->workload);
		fputc(' ', f);
		esc(f, p->params_str);
		fputs("</h2>\n", f);
		stats_table(f, r, pt, base, alpha);
		figures(f, charts, ncharts, CH_LAT, pre);
		figures(f, charts, ncharts, CH_CDF, pre);
		free(pre);
	}
	provenance(f, r);
	fputs("</body></html>\n", f);
	free(txt);
	return ferror(f) ? -1 : 0;
}
