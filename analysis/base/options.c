// SPDX-License-Identifier: GPL-2.0
/*
 * Every rlstat subcommand reads its options from one table (struct
 * cli_opt), so each option is parsed, range-checked and refused the same
 * way everywhere: a bad value names the option, the value and what is
 * accepted, and exits 2.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
double parse_alpha(const char *s)
{
	char *end;
	double a;

	errno = 0;
	a = strtod(s, &end);
	if (errno || end == s || *end || !(a > 0 && a < 0.5))
		die_input("--alpha %s: accepted is a number in (0, 0.5), "
			  "e.g. 0.05", s);
	return a;
}

/*
 * A threshold in percent, the value s of option opt: "2%" or "0.25%",
 * or a bare number from 1 up.
 * A bare number below 1 is refused: a script's 0.02 may mean 2% as a
 * fraction, and read as 0.02% it would FAIL every run.
 */
double parse_threshold(const char *opt, const char *s)
{
	char *end;
	bool pct;
	double t;

	errno = 0;
	t = strtod(s, &end);
	pct = *end == '%';
	if (pct)
		end++;
	if (errno || end == s || *end || !(t >= 0 && t < 100) ||
	    (!pct && t < 1))
		die_input("%s %s: accepted is a percentage in [0, 100) with "
			  "its %% sign, e.g. 2%% or 0.25%% (a bare number "
			  "only from 1, read as percent)", opt, s);
	return t;
}

static double parse_num(const struct cli_opt *o, const char *v)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (o->type == CLI_NUM && *end == '%')
		end++;
	if (errno || end == v || *end || !(x >= o->min && x <= o->max) ||
	    (o->type == CLI_INT && x != (long)x))
		die_input(o->type == CLI_INT ? "%s %s: accepted is an integer "
			  "from %.0f to %.0f" : "%s %s: accepted is a number "
			  "from %g to %g", o->name, v, o->min, o->max);
	return x;
}

static void take(const struct cli_opt *o, const char *v)
{
	switch (o->type) {
	case CLI_FLAG:
		*(bool *)o->dst = true;
		break;
	case CLI_STRING:
		*(const char **)o->dst = v;
		break;
	case CLI_STRINGS:
		((const char **)o->dst)[(*o->count)++] = v;
		break;
	case CLI_ALPHA:
		*(double *)o->dst = parse_alpha(v);
		break;
	case CLI_PCT:
		*(double *)o->dst = parse_threshold(o->name, v);
		break;
	case CLI_NUM:
		*(double *)o->dst = parse_num(o, v);
		break;
	case CLI_INT:
		*(int *)o->dst = parse_num(o, v);
		break;
	}
	if (o->given)
		*o->given = true;
}

int cli_parse(int argc, char **argv, int first, const struct cli_opt *opts,
	      const char **pos, int maxpos, const char *cmd,
	      const char *usage)
{
	const char *sep = cmd ? ": " : "";
	const struct cli_opt *o;
	int i, npos = 0;

	if (!cmd)
		cmd = "";

	for (i = first; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			exit(0);
		}
		for (o = opts; o->name; o++)
			if (!strcmp(a, o->name) ||
			    (o->alias && !strcmp(a, o->alias)))
				break;
		if (o->name && o->type == CLI_FLAG) {
			take(o, NULL);
		} else if (o->name) {
			if (i + 1 >= argc)
				die_input("%s%s%s needs a value\n%s", cmd, sep,
					  a, usage);
			take(o, argv[++i]);
		} else if ((a[0] == '-' && a[1]) || npos == maxpos) {
			die_input("%s%sunexpected argument \"%s\"\n%s", cmd,
				  sep, a, usage);
		} else {
			pos[npos++] = a;
		}
	}
	return npos;
}
