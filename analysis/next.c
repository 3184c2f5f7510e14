// SPDX-License-Identifier: GPL-2.0
/*
 * rlstat next RUN: the time-mode points whose verdict against the
 * baseline is still undecided by the sequential rule (gate.c) and that
 * have fewer than the maximum iterations, one label a line; nothing when
 * every point is decided. The runner adds interleaved boots running only
 * these points until nothing is printed. Cost mode needs no such loop.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlstat.h"

static int parse_max(const char *s)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || end == s || *end || n < 3 || n > 1000)
		die_input("--max-iterations %s: accepted is an integer from 3 "
			  "to 1000", s);
	return n;
}

/* A point is undecided when any variant's comparison there is. */
static bool point_undecided(const struct rctx *x, int pt)
{
	const struct run *r = x->r;
	const struct group *ga = run_group(r, pt, x->base), *gb;
	int v, i;

	for (v = 0; v < r->nvariants; v++) {
		gb = run_group(r, pt, v);
		if (v == x->base || !ga || !gb || ga->nfailed || gb->nfailed)
			continue;
		for (i = 0; i < x->nit; i++)
			if (x->it[i].gb == gb &&
			    gate_undecided(&x->gt, &x->it[i]))
				return true;
	}
	return false;
}

int next_main(int argc, char **argv)
{
	const char *dir = NULL, *baseline = "stock";
	bool given = false;
	int i, k, max = -1, pt;
	struct rctx x = { 0 };
	char **printed;

	gate_init(&x.gt);
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--baseline") && i + 1 < argc) {
			baseline = argv[++i];
			given = true;
		} else if (!strcmp(argv[i], "--threshold") && i + 1 < argc) {
			x.gt.threshold_pct = parse_threshold(&argv[i++]);
		} else if (!strcmp(argv[i], "--max-iterations") &&
			   i + 1 < argc) {
			max = parse_max(argv[++i]);
		} else if (argv[i][0] == '-' || dir) {
			die_input("next: unexpected argument \"%s\"; usage: "
				  "rlstat next <rundir> [--baseline VARIANT] "
				  "[--threshold 2%%] [--max-iterations N]",
				  argv[i]);
		} else {
			dir = argv[i];
		}
	}
	if (!dir)
		die_input("next: expected a run directory");
	x.r = run_open(dir, 1 - x.gt.alpha);
	x.base = pick_baseline(x.r, baseline, given);
	run_is_sequential(x.r, &x.gt.max_iter);
	if (max > 0)
		x.gt.max_iter = max;
	/* the decision is made with alpha spent over the looks */
	x.gt.sequential = true;
	x.it = gate_within(&x.gt, x.r, x.base, &x.nit);
	printed = xcalloc(x.r->npoints + 1, sizeof(*printed));
	for (pt = 0, k = 0; pt < x.r->npoints; pt++) {
		const char *l = x.r->points[pt]->label;

		if (strcmp(x.r->points[pt]->mode, "time") ||
		    !point_undecided(&x, pt))
			continue;
		for (i = 0; i < k; i++)
			if (!strcmp(printed[i], l))
				break;
		if (i < k)
			continue;
		printed[k++] = (char *)l;
		printf("%s\n", l);
	}
	free(printed);
	return 0;
}
