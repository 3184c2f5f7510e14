// SPDX-License-Identifier: GPL-2.0
/*
 * Trend charts and the nightly index page. One chart per point, mode and
 * gated metric, the variants on it together: the value of each night with
 * its CI as a band, and each change point as a dashed vertical line at the
 * first night after it. PNG (pngcairo) and SVG from one gnuplot script,
 * rendered into a temporary directory that replaces <out>/trend when every
 * file is there; index.html lists the nights, newest first, with the
 * gate's verdict and links to each night's report and mail. Nothing on
 * the page loads from the network.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rlstat.h"
#include "history.h"

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

static void html_esc(FILE *f, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
}

static void chart_script(FILE *g, const struct hist *h, const struct tchart *c,
			 const char *dir)
{
	int i, k, j;
	char *plot = NULL, *t;

	fprintf(g, "reset\nset encoding utf8\nset title '%s'\n"
		"set key outside right top vertical\nset grid ytics\n"
		"set border 3\nset tics nomirror\nset xlabel 'night'\n"
		"set ylabel '%s (CI95 band)'\nset xtics rotate by -45 "
		"font ',8'\nset xrange [-0.5:%d.5]\n", c->title,
		h->s[c->first].unit, h->nn - 1);
	fputs("set xtics (", g);
	for (i = 0; i < h->nn; i++)
		fprintf(g, "%s'%s' %d", i ? ", " : "", h->nights[i].night, i);
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
		for (j = 0; j < s->ncp; j++)
			fprintf(g, "set arrow from %d, graph 0 to %d, graph 1 "
				"nohead dt 2 lw 2 lc rgb '%s'\n"
				"set label '%s %+.1f%%' at %d, graph %.2f left "
				"offset 0.3,0 tc rgb '%s'\n",
				s->v[s->cp[j].at].night,
				s->v[s->cp[j].at].night, colours[k % 6],
				s->variant, s->cp[j].pct,
				s->v[s->cp[j].at].night, 0.97 - 0.05 * k,
				colours[k % 6]);
		t = xasprintf("%s%s$d%d using 1:3:4 with filledcurves "
			      "fc rgb '%s' fs transparent solid 0.2 noborder "
			      "notitle, $d%d using 1:2 with linespoints lw 2 "
			      "pt 7 lc rgb '%s' title '%s'", plot ? plot :
			      "plot ", plot ? ", \\\n  " : "", k,
			      colours[k % 6], k, colours[k % 6], s->variant);
		free(plot);
		plot = t;
	}
	fprintf(g, "set terminal pngcairo size 960,540 noenhanced "
		"font 'sans,10'\nset output '%s/%s.png'\n%s\n", dir, c->name,
		plot);
	fprintf(g, "set terminal svg size 960,540 noenhanced font 'sans,10' "
		"background '#ffffff'\nset output '%s/%s.svg'\nreplot\n"
		"set output\n", dir, c->name);
	free(plot);
}

static int run_gnuplot(const char *script)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (!pid) {
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

static void page(FILE *f, const struct hist *h, const struct tchart *c,
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
		html_esc(f, hist_short(n->kcommit));
		fputs("</td><td>", f);
		html_esc(f, n->modes);
		fprintf(f, "</td><td class=\"%s\">%s</td><td>", n->verdict,
			n->verdict);
		html_esc(f, n->ref ? n->ref : "");
		fprintf(f, "</td><td>%d</td><td>", n->failed);
		if (here) {
			fputs("<a href=\"", f);
			html_esc(f, base);
			fputs("/report.html\">report</a> <a href=\"", f);
			html_esc(f, base);
			fputs("/report-mail.txt\">mail</a>", f);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n<h2>Trends</h2>\n", f);
	if (!nc)
		fputs("<p>No series yet.</p>\n", f);
	for (i = 0; i < nc; i++) {
		fputs("<figure><a href=\"trend/", f);
		html_esc(f, c[i].name);
		fputs(".svg\"><img src=\"trend/", f);
		html_esc(f, c[i].name);
		fputs(".png\" alt=\"", f);
		html_esc(f, c[i].caption);
		fputs("\"></a><figcaption>", f);
		html_esc(f, c[i].caption);
		fputs("</figcaption></figure>\n", f);
	}
	fputs("</body></html>\n", f);
}

/* Replace <out>/trend with tmp; the old one goes only once tmp is whole. */
static void swap_dir(const char *tmp, const char *dst)
{
	char *old = xasprintf("%s.old.%d", dst, (int)getpid()), *cmd;

	if (!access(dst, F_OK) && rename(dst, old))
		die_input("%s: cannot replace: %s", dst, strerror(errno));
	if (rename(tmp, dst))
		die_input("%s: cannot write: %s", dst, strerror(errno));
	tmp_untrack(tmp);
	if (!access(old, F_OK)) {
		cmd = xasprintf("rm -rf '%s'", old);
		if (system(cmd))
			fprintf(stderr, "rlstat: could not remove %s\n", old);
		free(cmd);
	}
	free(old);
}

int trend_write(const struct hist *h, const char *out, double thr)
{
	char *tmp = xasprintf("%s/trend.tmp.%d", out, (int)getpid());
	char *script, *dst = xasprintf("%s/trend", out), *ix, *ixt;
	struct tchart *c = xcalloc(h->ns + 1, sizeof(*c));
	char *absout = realpath(out, NULL);
	int nc = 0, i;
	FILE *g, *f;

	(void)thr;
	if (!absout)
		die_input("%s: no such directory of nights", out);
	if (mkdir(tmp, 0777))
		die_input("%s: cannot create: %s", tmp, strerror(errno));
	tmp_track(tmp, true);
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
	script = xasprintf("%s/trend.gp", tmp);
	g = fopen(script, "w");
	if (!g)
		die_input("%s: cannot write: %s", script, strerror(errno));
	for (i = 0; i < nc; i++)
		chart_script(g, h, &c[i], tmp);
	if (fclose(g))
		die_input("%s: write failed", script);
	if (nc && run_gnuplot(script))
		die_input("%s: gnuplot failed (is gnuplot-nox installed? "
			  "`make setup`)", script);
	unlink(script);
	swap_dir(tmp, dst);
	ix = xasprintf("%s/index.html", out);
	ixt = xasprintf("%s.tmp.%d", ix, (int)getpid());
	f = fopen(ixt, "wx");
	if (!f)
		die_input("%s: cannot write: %s", ixt, strerror(errno));
	tmp_track(ixt, false);
	page(f, h, c, nc, absout);
	if (fflush(f) || fclose(f) || rename(ixt, ix))
		die_input("%s: write failed: %s", ix, strerror(errno));
	tmp_untrack(ixt);
	printf("%s\n", ix);
	return 0;
}
