// SPDX-License-Identifier: GPL-2.0
/*
 * rlstat: turn an rlbench run directory into tables, charts and a
 * regression verdict, and keep the nightly history.
 *
 * Exit status: 0 success, 1 measured failure (regression, failed point in
 * the candidate), 2 bad input or missing prerequisite, 3 (regress) no
 * verdict either way.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"

/* builtin-<cmd>.c: one row below each */
int cmd_report(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_regress(int argc, char **argv);
int cmd_next(int argc, char **argv);
int cmd_charts(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_mail(int argc, char **argv);
int cmd_profile(int argc, char **argv);

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "report", cmd_report,
	  "report.txt, report.html and the charts of a run" },
	{ "summary", cmd_summary,
	  "ops/s and latency percentiles per point" },
	{ "mail", cmd_mail,
	  "a run's comparison as text for a mailing-list thread" },
	{ "regress", cmd_regress,
	  "the gate: runB against runA, exit 1 FAIL, 0 PASS, 3 neither" },
	{ "next", cmd_next,
	  "the time-mode points still undecided (ITERATIONS=auto)" },
	{ "charts", cmd_charts,
	  "the charts report would draw, or every kind of chart" },
	{ "validate", cmd_validate,
	  "result documents against rlbench-result/1" },
	{ "history", cmd_history,
	  "the nightly history: import, show, rebuild, mail, trend" },
	{ "profile", cmd_profile,
	  "a cost run's instructions per op by function (PROFILE=insn)" },
	{ "plan", cmd_plan,
	  "a run's boots in meta.json, and whether to add a round" },
	{ NULL, NULL, NULL }
};

static void usage(FILE *f)
{
	const struct command *c;

	fputs("usage: rlstat <command> [<args>]; rlstat <command> --help for "
	      "its options\n\n", f);
	for (c = commands; c->name; c++)
		fprintf(f, "  %-9s %s\n", c->name, c->summary);
}

int main(int argc, char **argv)
{
	const struct command *c;

	rl_gsl_handler_install();
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_BADINPUT : 0;
	}
	for (c = commands; c->name; c++)
		if (!strcmp(argv[1], c->name))
			return c->fn(argc, argv);
	fprintf(stderr, "rlstat: unknown command \"%s\"; accepted:", argv[1]);
	for (c = commands; c->name; c++)
		fprintf(stderr, " %s", c->name);
	fputc('\n', stderr);
	return EXIT_BADINPUT;
}
