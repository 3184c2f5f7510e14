// SPDX-License-Identifier: GPL-2.0
/* rlstat report: report.txt, report.html and the charts of a run. */
#include <stdio.h>
#include <unistd.h>

#include "builtin.h"

static const char usage[] =
"usage: rlstat report <rundir> [--baseline VARIANT] [--alpha A]\n"
"                     [--threshold PCT%] [--cost-threshold PCT%]\n"
"                     [--tail-threshold PCT%] [--no-charts]\n"
"\n"
"Writes report.txt, report.html and the charts (*.png, *.svg) into the run\n"
"directory, replacing earlier report outputs only, and prints the path of\n"
"report.txt. Baseline default: stock.\n";

/* report.txt is for terminals and mail: names in it are shown safely */
static int text_fn(FILE *f, void *p)
{
	FILE *t = text_safe(f);
	int rc = report_text(t, p);

	return fclose(t) || rc ? -1 : 0;
}

struct html_args {
	const struct gated_run *x;
	struct chart *charts;
	int ncharts;
};

static int html_fn(FILE *f, void *p)
{
	struct html_args *a = p;

	return report_html(f, a->x, a->charts, a->ncharts);
}

int cmd_report(int argc, char **argv)
{
	const char *dir = NULL, *baseline = "stock";
	bool given = false, no_charts = false;
	struct html_args h = { 0 };
	struct gated_run x = { 0 };
	struct stage *st;
	char *txt;
	const struct cli_opt opts[] = {
		CLI("--baseline", CLI_STRING, &baseline, .given = &given),
		CLI("--alpha", CLI_ALPHA, &x.gt.alpha),
		CLI("--threshold", CLI_PCT, &x.gt.threshold_pct),
		CLI("--cost-threshold", CLI_PCT, &x.gt.cost_threshold_pct),
		CLI("--tail-threshold", CLI_PCT, &x.gt.tail_threshold_pct),
		CLI("--no-charts", CLI_FLAG, &no_charts),
		CLI_END
	};

	gate_init(&x.gt);
	if (!cli_parse(argc, argv, 2, opts, &dir, 1, "report", usage))
		die_input("report: missing run directory\n%s", usage);
	gated_run_open(&x, dir, baseline, given);
	h.x = &x;
	txt = xasprintf("%s/report.txt", dir);
	if (!access(txt, F_OK))
		fprintf(stderr, "rlstat: replacing the report outputs in %s\n",
			dir);
	/* the charts, report.txt and report.html: all of them, or none */
	st = stage_new(dir);
	if (!no_charts)
		report_charts(&x, &h.charts, &h.ncharts, st);
	stage_write(st, "report.txt", text_fn, &x);
	stage_write(st, "report.html", html_fn, &h);
	stage_commit(st);
	printf("%s\n", txt);
	return 0;
}
