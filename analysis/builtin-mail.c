// SPDX-License-Identifier: GPL-2.0
/* rlstat mail: a run's comparison as text for a mailing-list thread. */
#include <stdio.h>

#include "builtin.h"

static const char usage[] =
"usage: rlstat mail <rundir> [--baseline VARIANT] [--threshold PCT%]\n"
"                   [--cost-threshold PCT%] [--tail-threshold PCT%]\n"
"\n"
"Prints what a patch author pastes under the cover letter: 72 columns,\n"
"ASCII, the verdict, per candidate the comparison table in the mmtests\n"
"and lkp style (time mode's rates and p99, cost mode's path-length\n"
"rows) and the command that reproduces the run.\n";

int cmd_mail(int argc, char **argv)
{
	const char *dir = NULL, *baseline = "stock";
	struct gated_run x = { 0 };
	bool given = false;
	FILE *out;
	int rc;
	const struct cli_opt opts[] = {
		CLI("--baseline", CLI_STRING, &baseline, .given = &given),
		CLI("--threshold", CLI_PCT, &x.gt.threshold_pct),
		CLI("--cost-threshold", CLI_PCT, &x.gt.cost_threshold_pct),
		CLI("--tail-threshold", CLI_PCT, &x.gt.tail_threshold_pct),
		CLI_END
	};

	gate_init(&x.gt);
	if (!cli_parse(argc, argv, 2, opts, &dir, 1, "mail", usage))
		die_input("mail: missing run directory\n%s", usage);
	gated_run_open(&x, dir, baseline, given);
	out = text_safe(stdout);
	rc = report_mail(out, &x);
	return fclose(out) || rc ? EXIT_BADINPUT : 0;
}
