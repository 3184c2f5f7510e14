// SPDX-License-Identifier: GPL-2.0
/* rlstat summary: ops/s and latency percentiles per point. */
#include <stdio.h>

#include "builtin.h"

static const char usage[] =
"usage: rlstat summary <rundir>\n"
"\n"
"Prints ops/s and latency percentiles per point to stdout.\n";

int cmd_summary(int argc, char **argv)
{
	const char *dir = NULL;
	const struct cli_opt opts[] = { CLI_END };
	struct run *r;
	FILE *out;
	int rc;

	if (!cli_parse(argc, argv, 2, opts, &dir, 1, "summary", usage))
		die_input("summary: expected one run directory\n%s", usage);
	r = run_open(dir, 0.95);
	out = text_safe(stdout);
	rc = report_summary(out, r);
	return fclose(out) || rc ? EXIT_BADINPUT : 0;
}
