// SPDX-License-Identifier: GPL-2.0
/*
 * bench-gate: the gate's operating characteristics by simulation (make
 * bench-gate). For noise CV 1%, 3%, 10%, 30% and a candidate 0%, 2%, 5%, 10%
 * slower: the share of runs the gate FAILs (false alarms for 0%, power
 * otherwise) and PASSes, at a fixed 3 and 10 boots a side and with the
 * sequential rule (3 up to 10), and the mean boots the latter used.
 *
 *     analysis/bench-gate [--trials N] [--points P] [--seed S]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlstat.h"

static void cellrow(struct ocsim *s, unsigned long seed, int trials)
{
	struct ocres r;

	s->n0 = s->nmax = 3;
	oc_run(s, seed, trials, &r);
	printf(" |      %5.3f %5.3f", r.fail, r.pass);
	s->n0 = s->nmax = 10;
	oc_run(s, seed + 1, trials, &r);
	printf(" |      %5.3f %5.3f", r.fail, r.pass);
	s->n0 = 3;
	oc_run(s, seed + 2, trials, &r);
	printf(" |       %5.3f %5.3f %5.2f\n", r.fail, r.pass, r.iters);
}

int main(int argc, char **argv)
{
	static const double cvs[] = { 0.01, 0.03, 0.10, 0.30 };
	static const double eff[] = { 0, -0.02, -0.05, -0.10 };
	unsigned long seed = 20261203;
	int trials = 2000, i, c, e, one;
	struct ocsim s;

	oc_init(&s);
	for (i = 1; i < argc; i++) {
		if (i + 1 < argc && !strcmp(argv[i], "--trials"))
			trials = atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--points"))
			s.points = atoi(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--seed"))
			seed = strtoul(argv[++i], NULL, 10);
		else
			die_input("usage: bench-gate [--trials N] [--points P] "
				  "[--seed S]");
	}
	if (trials < 10 || s.points < 1 || s.points > 64)
		die_input("bench-gate: --trials >= 10, --points 1..64");
	printf("Gate operating characteristics, %d simulated runs per cell.\n"
	       "Matrix: %d points, one candidate variant against the "
	       "baseline; per-boot\nvalues by rlsynth's model: half the "
	       "variance a boot-level offset shared\nby every point of a "
	       "boot, p99 noise %gx the rate's. Gate: alpha %g\n(primary "
	       "%g, secondary %g, Holm within each), threshold %g%% (p99 "
	       "%g%%),\nsequential looks at 3..%d boots a side, stopping a "
	       "point once p >= %g\nand PASS is out of reach.\n"
	       "fail = share of runs FAILed (false-alarm rate for 0%%, power "
	       "otherwise),\npass = share PASSed, iters = mean boots per "
	       "point and side.\n", trials, s.points, s.p99_mult,
	       s.gt.alpha, s.gt.alpha * s.gt.primary_share,
	       s.gt.alpha * (1 - s.gt.primary_share), s.gt.threshold_pct,
	       s.gt.tail_threshold_pct, s.nmax, s.gt.futility);
	for (one = 0; one < 2; one++) {
		printf("\nCandidate slower at %s:\n",
		       one ? "one point only" : "every point");
		printf("   CV  change |  N=3: fail  pass | N=10: fail  pass |"
		       "  seq: fail  pass iters\n");
		for (c = 0; c < 4; c++)
			for (e = 0; e < 4; e++) {
				if (one && !e)
					continue;
				s.cv = cvs[c];
				s.effect = eff[e];
				s.all_points = !one;
				printf("%4.0f%% %6.0f%%", cvs[c] * 100,
				       eff[e] * 100);
				cellrow(&s, seed + 100 * (c * 4 + e) +
					1000 * one, trials);
			}
	}
	return 0;
}
