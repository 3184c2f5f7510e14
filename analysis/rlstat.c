// SPDX-License-Identifier: GPL-2.0
/*
 * rlstat: turn an rlbench run directory into tables, charts and a
 * regression verdict.
 *
 * Exit status: 0 success, 1 measured failure (regression, failed point in
 * the candidate), 2 bad input or missing prerequisite, 3 (regress) no
 * verdict either way.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rlstat.h"
#include "history.h"

static const char usage[] =
"usage: rlstat report <rundir> [--baseline VARIANT] [--alpha A]\n"
"                     [--threshold PCT%] [--cost-threshold PCT%]\n"
"                     [--tail-threshold PCT%] [--no-charts]\n"
"       rlstat summary <rundir>\n"
"       rlstat regress <runA> <runB> [--threshold PCT%] [--alpha A]\n"
"                      [--cost-threshold PCT%] [--tail-threshold PCT%]\n"
"                      [--correction holm|none] [-v]\n"
"       rlstat next <rundir> [--baseline VARIANT] [--threshold PCT%]\n"
"                   [--max-iterations N]\n"
"       rlstat charts <rundir> [--baseline VARIANT] | --kinds\n"
"       rlstat validate <file.result.json>...\n"
"       rlstat history import|show|rebuild|mail|trend ... (rlstat history\n"
"                      --help)\n"
"\n"
"report   writes report.txt, report.html and the charts (*.png, *.svg) into\n"
"         the run directory, replacing earlier report outputs only, and\n"
"         prints the path of report.txt. Baseline default: stock.\n"
"summary  prints ops/s and latency percentiles per point to stdout.\n"
"regress  runB against runA: exit 1 FAIL (a gated metric regressed past\n"
"         the threshold, default 2%, 10% for p99 (--tail-threshold),\n"
"         0.25% for cost mode's insn/op,\n"
"         significantly: one-sided Welch tests\n"
"         on logs, Holm within the primary and secondary families; an\n"
"         error counter or a failed point), 0 PASS (every gated metric's\n"
"         95% upper bound of the regression below the threshold),\n"
"         3 INCONCLUSIVE (neither), 2 bad input or mismatched matrices.\n"
"next     prints the time-mode points still undecided against the\n"
"         baseline by the sequential rule, one label a line.\n"
"charts   prints the charts report would draw for the run, one a line\n"
"         (file name without .png/.svg, kind, caption), and writes nothing;\n"
"         --kinds: every kind of chart and what it shows.\n"
"validate checks result documents against rlbench-result/1.\n"
"history  the nightly history database, change points, trend charts, mail.\n";

static void need_arg(int i, int argc, const char *opt)
{
	if (i + 1 >= argc)
		die_input("%s needs a value", opt);
}

/* report.txt is for terminals and mail: names in it are shown safely */
static int text_fn(FILE *f, void *p)
{
	FILE *t = text_safe(f);
	int rc = report_text(t, p);

	return fclose(t) || rc ? -1 : 0;
}

struct html_args {
	const struct rctx *x;
	struct chart *charts;
	int ncharts;
};

static int html_fn(FILE *f, void *p)
{
	struct html_args *a = p;

	return report_html(f, a->x, a->charts, a->ncharts);
}

static int cmd_report(int argc, char **argv)
{
	const char *dir = NULL, *baseline = "stock";
	bool given = false, charts = true;
	struct html_args h = { 0 };
	struct rctx x = { 0 };
	struct run *r;
	struct stage *st;
	char *txt;
	int i;

	gate_init(&x.gt);
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--baseline")) {
			need_arg(i, argc, argv[i]);
			baseline = argv[++i];
			given = true;
		} else if (!strcmp(argv[i], "--alpha")) {
			need_arg(i, argc, argv[i]);
			x.gt.alpha = parse_alpha(argv[++i]);
		} else if (!strcmp(argv[i], "--threshold")) {
			need_arg(i, argc, argv[i]);
			x.gt.threshold_pct = parse_threshold(&argv[i++]);
		} else if (!strcmp(argv[i], "--cost-threshold")) {
			need_arg(i, argc, argv[i]);
			x.gt.cost_threshold_pct = parse_threshold(&argv[i++]);
		} else if (!strcmp(argv[i], "--tail-threshold")) {
			need_arg(i, argc, argv[i]);
			x.gt.tail_threshold_pct = parse_threshold(&argv[i++]);
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
	r = run_open(dir, 1 - x.gt.alpha);
	x.r = r;
	x.base = pick_baseline(r, baseline, given);
	x.gt.sequential = run_is_sequential(r, &x.gt.max_iter);
	x.it = gate_within(&x.gt, r, x.base, &x.nit);
	h.x = &x;
	txt = xasprintf("%s/report.txt", dir);
	if (!access(txt, F_OK))
		fprintf(stderr, "rlstat: replacing the report outputs in %s\n",
			dir);
	/* the charts, report.txt and report.html: all of them, or none */
	st = stage_new(dir);
	if (charts)
		report_charts(&x, &h.charts, &h.ncharts, st);
	stage_write(st, "report.txt", text_fn, &x);
	stage_write(st, "report.html", html_fn, &h);
	stage_commit(st);
	printf("%s\n", txt);
	return 0;
}

static int cmd_charts(int argc, char **argv)
{
	const char *dir = NULL, *baseline = "stock";
	const struct chart_kind *k;
	struct chart *c;
	struct rctx x = { 0 };
	bool given = false;
	int i, n;

	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--kinds")) {
			for (k = chart_kinds; k->name; k++)
				printf("%s\t%s\n", k->name, k->what);
			return 0;
		} else if (!strcmp(argv[i], "--baseline")) {
			need_arg(i, argc, argv[i]);
			baseline = argv[++i];
			given = true;
		} else if (argv[i][0] == '-' || dir) {
			die_input("charts: unexpected argument \"%s\"\n%s",
				  argv[i], usage);
		} else {
			dir = argv[i];
		}
	}
	if (!dir)
		die_input("charts: missing run directory\n%s", usage);
	gate_init(&x.gt);
	x.r = run_open(dir, 1 - x.gt.alpha);
	x.base = pick_baseline(x.r, baseline, given);
	x.gt.sequential = run_is_sequential(x.r, &x.gt.max_iter);
	x.it = gate_within(&x.gt, x.r, x.base, &x.nit);
	report_charts(&x, &c, &n, NULL);
	for (i = 0; i < n; i++)
		printf("%s\t%s\t%s\n", c[i].name, c[i].kind->name,
		       c[i].caption);
	return 0;
}

static int cmd_summary(int argc, char **argv)
{
	struct run *r;
	FILE *out;
	int rc;

	if (argc != 3)
		die_input("summary: expected one run directory\n%s", usage);
	r = run_open(argv[2], 0.95);
	out = text_safe(stdout);
	rc = report_summary(out, r);
	return fclose(out) || rc ? EXIT_BADINPUT : 0;
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
	rl_gsl_handler_install();
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
	if (!strcmp(argv[1], "history"))
		return history_main(argc, argv);
	if (!strcmp(argv[1], "next"))
		return next_main(argc, argv);
	if (!strcmp(argv[1], "charts"))
		return cmd_charts(argc, argv);
	if (!strcmp(argv[1], "validate"))
		return cmd_validate(argc, argv);
	die_input("unknown command \"%s\"; accepted: report, summary, "
		  "regress, next, validate, history", argv[1]);
}
