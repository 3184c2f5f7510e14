// SPDX-License-Identifier: GPL-2.0
/*
 * Trend charts and the nightly index page. One chart per point, mode and
 * gated metric, the variants on it together: the value of each night with
 * its CI as a band, and each change point as a dashed vertical line at the
 * first night after it. PNG (pngcairo) and SVG from one gnuplot script,
 * rendered into a staging directory (stage.c): <out>/trend and
 * <out>/index.html are replaced together when every file is there and
 * complete, or not at all. index.html lists the nights, newest first, with
 * the gate's verdict and links to each night's report and mail. Nothing
 * on the page loads from the network.
 *
 * Night names (night.json or a directory's name), variants and units reach
 * the script only through gp_str and the page only through html_esc and
 * html_href; the data blocks hold numbers only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "history/history.h"

static const char *const colours[] = { "#1f77b4", "#d62728", "#2ca02c",
				       "#9467bd", "#ff7f0e", "#8c564b" };

struct tchart {
	char *name, *caption, *title;	/* title: short, in the chart */
	int first;		/* first series of the chart in h->s */
	int n;			/* series in it (consecutive) */
};

static bool same_chart(const struct hseries *a, const struct hseries *b)
{
	return !strcmp(a->mode, b->mode) && !strcmp(a->pkey, b->pkey) &&
	       !strcmp(a->metric, b->metric);
}

/* File names from what the user reads: letters, digits, '-', '.', '_'. */
static char *fname(const struct hseries *s)
{
	char *n = xasprintf("%s-%s-%s", s->mode, s->point, s->metric), *p;

	for (p = n; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-._", *p))
			*p = '_';
	return n;
}

static void chart_script(FILE *g, const struct history *h, const struct tchart *c)
{
	int i, k, j;
	char *plot = NULL, *t, *q;

	fputs("reset\nset encoding utf8\nset title ", g);
	gp_str(g, c->title);
	fputs("\nset key outside right top vertical\nset grid ytics\n"
	      "set border 3\nset tics nomirror\nset xlabel 'night'\n"
	      "set ylabel ", g);
	t = xasprintf("%s (CI95 band)", h->s[c->first].unit);
	gp_str(g, t);
	free(t);
	fprintf(g, "\nset xtics rotate by -45 font ',8'\nset xrange "
		"[-0.5:%d.5]\nset xtics (", h->nn - 1);
	for (i = 0; i < h->nn; i++) {
		fputs(i ? ", " : "", g);
		gp_str(g, h->nights[i].night);
		fprintf(g, " %d", i);
	}
	fputs(")\n", g);
	for (k = 0; k < c->n; k++) {
		const struct hseries *s = &h->s[c->first + k];

		fprintf(g, "$d%d << EOD\n", k);
		for (i = 0; i < s->nv; i++) {
			const struct hval *v = &s->v[i];

			fprintf(g, "%d %.9g %.9g %.9g\n", v->night, v->v,
				isfinite(v->lo) ? v->lo : v->v,
				isfinite(v->hi) ? v->hi : v->v);
		}
		fputs("EOD\n", g);
		for (j = 0; j < s->ncp; j++) {
			fprintf(g, "set arrow from %d, graph 0 to %d, graph 1 "
				"nohead dt 2 lw 2 lc rgb '%s'\nset label ",
				s->v[s->cp[j].at].night,
				s->v[s->cp[j].at].night, colours[k % 6]);
			t = xasprintf("%s %+.1f%%", s->variant, s->cp[j].pct);
			gp_str(g, t);
			free(t);
			fprintf(g, " at %d, graph %.2f left offset 0.3,0 tc rgb "
				"'%s'\n", s->v[s->cp[j].at].night,
				0.97 - 0.05 * k, colours[k % 6]);
		}
		q = gp_quote(s->variant);
		t = xasprintf("%s%s$d%d using 1:3:4 with filledcurves "
			      "fc rgb '%s' fs transparent solid 0.2 noborder "
			      "notitle, $d%d using 1:2 with linespoints lw 2 "
			      "pt 7 lc rgb '%s' title %s", plot ? plot :
			      "plot ", plot ? ", \\\n  " : "", k,
			      colours[k % 6], k, colours[k % 6], q);
		free(q);
		free(plot);
		plot = t;
	}
	fputs("set terminal pngcairo size 960,540 noenhanced font 'sans,10'\n"
	      "set output ", g);
	t = xasprintf("%s.png", c->name);
	gp_str(g, t);
	fprintf(g, "\n%s\nset terminal svg size 960,540 noenhanced font "
		"'sans,10' background '#ffffff'\nset output ", plot);
	free(t);
	t = xasprintf("%s.svg", c->name);
	gp_str(g, t);
	fputs("\nreplot\nset output\n", g);
	free(t);
	free(plot);
}

static void page(FILE *f, const struct history *h, const struct tchart *c,
		 int nc, const char *out)
{
	int i;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<title>rlbench nightly</title>\n<style>body{font-family:sans-"
	      "serif;margin:1.5em;color:#222}table{border-collapse:collapse}"
	      "td,th{border:1px solid #bbb;padding:.25em .6em;text-align:left}"
	      ".PASS,.FIRST{background:#d8f0d8}.FAIL{background:#f6c9c9}"
	      ".INCONCLUSIVE{background:#f8ecc0}img{max-width:100%;border:1px "
	      "solid #ddd}figure{margin:1em 0}</style></head><body>\n"
	      "<h1>rlbench nightly</h1>\n", f);
	fprintf(f, "<p>%d nights; each is compared by the gate with the "
		"previous good night; the charts mark the change points "
		"found over the whole history.</p>\n<h2>Nights</h2>\n<table>"
		"<tr><th>night</th><th>started</th><th>kernel</th><th>mode"
		"</th><th>verdict</th><th>against</th><th>failed points</th>"
		"<th>files</th></tr>\n", h->nn);
	for (i = h->nn - 1; i >= 0; i--) {
		const struct hnight *n = &h->nights[i];
		const char *base = strrchr(n->dir, '/');
		bool here = base && !strncmp(n->dir, out, strlen(out));

		base = base ? base + 1 : n->dir;
		fputs("<tr><td>", f);
		html_esc(f, n->night);
		fputs("</td><td>", f);
		html_esc(f, n->started);
		fputs("</td><td>", f);
		html_esc(f, git_short(n->kcommit));
		fputs("</td><td>", f);
		html_esc(f, n->modes);
		fputs("</td><td class=\"", f);
		html_esc(f, n->verdict);
		fputs("\">", f);
		html_esc(f, n->verdict);
		fputs("</td><td>", f);
		html_esc(f, n->ref ? n->ref : "");
		fprintf(f, "</td><td>%d</td><td>", n->failed);
		if (here) {
			char *rep = xasprintf("%s/report.html", base);
			char *mail = xasprintf("%s/report-mail.txt", base);

			fputs("<a href=\"", f);
			html_href(f, rep);
			fputs("\">report</a> <a href=\"", f);
			html_href(f, mail);
			fputs("\">mail</a>", f);
			free(rep);
			free(mail);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n<h2>Trends</h2>\n", f);
	if (!nc)
		fputs("<p>No series yet.</p>\n", f);
	for (i = 0; i < nc; i++) {
		char *svg = xasprintf("trend/%s.svg", c[i].name);
		char *png = xasprintf("trend/%s.png", c[i].name);

		fputs("<figure><a href=\"", f);
		html_href(f, svg);
		fputs("\"><img src=\"", f);
		html_href(f, png);
		fputs("\" alt=\"", f);
		free(svg);
		free(png);
		html_esc(f, c[i].caption);
		fputs("\"></a><figcaption>", f);
		html_esc(f, c[i].caption);
		fputs("</figcaption></figure>\n", f);
	}
	fputs("</body></html>\n", f);
}

struct page_args {
	const struct history *h;
	const struct tchart *c;
	int nc;
	const char *out;
};

static int page_fn(FILE *f, void *p)
{
	const struct page_args *a = p;

	page(f, a->h, a->c, a->nc, a->out);
	return ferror(f) ? -1 : 0;
}

int trend_write(const struct history *h, const char *out, double thr)
{
	struct tchart *c = xcalloc(h->ns + 1, sizeof(*c));
	char *absout = realpath(out, NULL), *tdir, *script;
	struct page_args pa = { h, c, 0, absout };
	struct stage *st;
	int nc = 0, i;
	FILE *g;

	(void)thr;
	if (!absout)
		die_input("%s: no such directory of nights", out);
	for (i = 0; i < h->ns; i++) {
		if (nc && same_chart(&h->s[c[nc - 1].first], &h->s[i])) {
			c[nc - 1].n++;
			continue;
		}
		c[nc].first = i;
		c[nc].n = 1;
		c[nc].name = fname(&h->s[i]);
		c[nc].title = xasprintf("%s: %s, %s mode", h->s[i].point,
					h->s[i].label, h->s[i].mode);
		c[nc].caption = xasprintf("%s %s (%s): %s, %s mode",
					  h->s[i].point, h->s[i].workload,
					  h->s[i].params, h->s[i].label,
					  h->s[i].mode);
		nc++;
	}
	/* trend/ and index.html: both of them, or neither */
	st = stage_new(out);
	tdir = xasprintf("%s/trend", stage_dir(st));
	if (mkdir(tdir, 0777))
		die_input("%s/trend: cannot write: %s", out, strerror(errno));
	script = xasprintf("%s/trend.gp", tdir);
	g = fopen(script, "wx");
	if (!g)
		die_input("%s/trend: cannot write: %s", out, strerror(errno));
	for (i = 0; i < nc; i++)
		chart_script(g, h, &c[i]);
	if (fclose(g))
		die_input("%s/trend: cannot write: %s", out, strerror(errno));
	if (nc)
		gp_run(tdir, "trend.gp");
	for (i = 0; i < 2 * nc; i++) {
		char *f = xasprintf("%s.%s", c[i / 2].name, i % 2 ? "svg" :
				    "png");

		gp_check(tdir, f);
		free(f);
	}
	/* only the charts go in: not the script, nor gnuplot's log */
	unlink(script);
	free(script);
	script = xasprintf("%s/gnuplot.log", tdir);
	unlink(script);
	free(script);
	stage_add(st, "trend");
	pa.nc = nc;
	stage_write(st, "index.html", page_fn, &pa);
	stage_commit(st);
	printf("%s/index.html\n", out);
	return 0;
}
