// SPDX-License-Identifier: GPL-2.0
/* rlstat charts: the charts report would draw, listed, nothing written. */
#include <stdio.h>

#include "builtin.h"

static const char usage[] =
"usage: rlstat charts <rundir> [--baseline VARIANT]\n"
"       rlstat charts --kinds\n"
"\n"
"Prints the charts report would draw for the run, one a line (file name\n"
"without .png/.svg, kind, caption), and writes nothing. --kinds: every\n"
"kind of chart and what it shows.\n";

int cmd_charts(int argc, char **argv)
{
	const char *dir = NULL, *baseline = "stock";
	const struct chart_kind *k;
	struct gated_run x = { 0 };
	bool given = false, kinds = false;
	struct chart *c;
	int i, n;
	const struct cli_opt opts[] = {
		CLI("--baseline", CLI_STRING, &baseline, .given = &given),
		CLI("--kinds", CLI_FLAG, &kinds),
		CLI_END
	};

	n = cli_parse(argc, argv, 2, opts, &dir, 1, "charts", usage);
	if (kinds) {
		for (k = chart_kinds; k->name; k++)
			printf("%s\t%s\n", k->name, k->what);
		return 0;
	}
	if (!n)
		die_input("charts: missing run directory\n%s", usage);
	gate_init(&x.gt);
	gated_run_open(&x, dir, baseline, given);
	report_charts(&x, &c, &n, NULL);
	for (i = 0; i < n; i++)
		printf("%s\t%s\t%s\n", c[i].name, c[i].kind->name,
		       c[i].caption);
	return 0;
}
