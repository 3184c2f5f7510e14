// SPDX-License-Identifier: GPL-2.0
/*
 * rlstat: turn an rlbench run directory into tables, charts and a
 * regression verdict.
 *
 * Exit status: 0 success, 1 measured failure (regression, failed point in
 * the candidate), 2 bad input or missing prerequisite.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rlstat.h"

static const char usage[] =
"usage: rlstat report <rundir> [--baseline VARIANT] [--alpha A] [--no-charts]\n"
"       rlstat summary <rundir>\n"
"       rlstat regress <runA> <runB> [--threshold PCT%] [--alpha A]\n"
"                      [--correction holm|none]\n"
"       rlstat validate <file.result.json>...\n"
"\n"
"report   writes report.txt, report.html and the charts (*.png, *.svg) into\n"
"         the run directory, replacing earlier report outputs only, and\n"
"         prints the path of report.txt. Baseline default: stock.\n"
"summary  prints ops/s and latency percentiles per point to stdout.\n"
"regress  exit 1 if a metric of runB moved in its worse direction by more\n"
"         than the threshold (default 2%) and significantly (Welch's t-test,\n"
"         alpha 0.05, Holm-corrected over all metrics), or a point failed;\n"
"         0 if none did; 2 on bad input or mismatched matrices.\n"
"validate checks result documents against rlbench-result/1.\n";

static void need_arg(int i, int argc, const char *opt)
{
	if (i + 1 >= argc)
		die_input("%s needs a value", opt);
}

static int pick_baseline(const struct run *r, const char *want, bool given)
{
	int b = run_variant_index(r, want);
	int i;

	if (b >= 0)
		return b;
	/* one variant: nothing to compare, any baseline will do */
	if (!given || r->nvariants == 1)
		return 0;
	fprintf(stderr, "rlstat: baseline \"%s\" is not in %s; its variants:",
		want, r->dir);
	for (i = 0; i < r->nvariants; i++)
		fprintf(stderr, " %s", r->variants[i]);
	fputc('\n', stderr);
	exit(EXIT_BADINPUT);
}

/* Write path via a temporary file and rename, so readers never see half. */
static void write_atomic(const char *path, int (*fn)(FILE *, void *),
			 void *arg)
{
	char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	FILE *f = fopen(tmp, "w");

	if (!f)
		die_input("%s: cannot write: %s", tmp, strerror(errno));
	if (fn(f, arg) || fflush(f) || fsync(fileno(f)) || fclose(f) ||
	    rename(tmp, path)) {
		unlink(tmp);
		die_input("%s: write failed: %s", path, strerror(errno));
	}
	free(tmp);
}

struct report_args {
	const struct run *r;
	int base;
	double alpha;
	struct chart *charts;
	int ncharts;
};

static int text_fn(FILE *f, void *p)
{
	struct report_args *a = p;

	return report_text(f, a->r, a->base, a->alpha);
}

static int html_fn(FILE *f, void *p)
{
	struct report_args *a = p;

	return report_html(f, a->r, a->base, a->alpha, a->charts, a->ncharts);
}

static int cmd_report(int argc, char **argv)
{
	const char *dir = NULL, *baseline = "stock";
	bool given = false, charts = true;
	struct report_args a = { .alpha = 0.05 };
	struct run *r;
	char *txt, *html;
	int i;

	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--baseline")) {
			need_arg(i, argc, argv[i]);
			baseline = argv[++i];
			given = true;
		} else if (!strcmp(argv[i], "--alpha")) {
			need_arg(i, argc, argv[i]);
			a.alpha = parse_alpha(argv[++i]);
		} else if (!strcmp(argv[i], "--no-charts")) {
			charts = false;
		} else if (argv[i][0] == '-' || dir) {
			die_input("report: unexpected argument \"%s\"\n%s",
				  argv[i], usage);
		} else {
			dir = argv[i];
		}
	}
	if (!dir)
		die_input("report: missing run directory\n%s", usage);
	r = run_load(dir, 1 - a.alpha);
	a.r = r;
	a.base = pick_baseline(r, baseline, given);
	txt = xasprintf("%s/report.txt", dir);
	html = xasprintf("%s/report.html", dir);
	if (!access(txt, F_OK))
		fprintf(stderr, "rlstat: replacing the report outputs in %s\n",
			dir);
	if (charts && report_charts(r, a.base, a.alpha, &a.charts,
				    &a.ncharts))
		return EXIT_BADINPUT;
	write_atomic(txt, text_fn, &a);
	write_atomic(html, html_fn, &a);
	printf("%s\n", txt);
	return 0;
}

static int cmd_summary(int argc, char **argv)
{
	struct run *r;

	if (argc != 3)
		die_input("summary: expected one run directory\n%s", usage);
	r = run_load(argv[2], 0.95);
	return report_summary(stdout, r) ? EXIT_BADINPUT : 0;
}

static int cmd_validate(int argc, char **argv)
{
	int i;

	if (argc < 3)
		die_input("validate: expected result files\n%s", usage);
	for (i = 2; i < argc; i++) {
		validate_file(argv[i]);
		printf("%s: ok\n", argv[i]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_BADINPUT : 0;
	}
	if (!strcmp(argv[1], "report"))
		return cmd_report(argc, argv);
	if (!strcmp(argv[1], "summary"))
		return cmd_summary(argc, argv);
	if (!strcmp(argv[1], "regress"))
		return regress_main(argc, argv);
	if (!strcmp(argv[1], "validate"))
		return cmd_validate(argc, argv);
	die_input("unknown command \"%s\"; accepted: report, summary, "
		  "regress, validate", argv[1]);
}
