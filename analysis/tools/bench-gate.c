// SPDX-License-Identifier: GPL-2.0
/*
 * bench-gate: the gate's operating characteristics by simulation (make
 * bench-gate), on a matrix of 16 points like the default one. A true
 * change of 0, 0.5, 0.75, 1 and 2 times the threshold at every point: the
 * share of runs the gate FAILs and PASSes in time mode (CV 1%, 3%, 10%;
 * 3 and 10 boots a side, and the sequential rule from 3 up to 10) and in
 * cost mode (CV 0.01% to 0.1%, 3 boots), each also with the points' noise
 * spread from one CV to a much larger one; and the boots an A/A comparison
 * needs to PASS, and a change of 2x the threshold to FAIL, when the
 * sequential rule may go past 10.
 *
 *     analysis/bench-gate [--trials N] [--points P] [--seed S]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "report/report.h"

/* Changes in units of the threshold: inside it, at its edge, past it. */
static const double fracs[] = { 0, 0.5, 0.75, 1, 2 };
#define NFRAC (sizeof(fracs) / sizeof(fracs[0]))

/* The rate change that makes the main metric f thresholds worse. */
static double effect_of(const struct oc_scenario *s, double f)
{
	double t = (s->cost ? s->gt.cost_threshold_pct :
		    s->gt.threshold_pct) / 100;

	/* cost mode: insn/op rises by f * t, i.e. the rate falls to 1/(1+ft) */
	return s->cost ? 1 / (1 + f * t) - 1 : -f * t;
}

static void cell(struct oc_scenario *s, int n0, int nmax, unsigned long seed,
		 int trials, bool iters)
{
	struct oc_result r;

	s->n0 = n0;
	s->nmax = nmax;
	oc_run(s, seed, trials, &r);
	printf(" |      %5.3f %5.3f", r.fail, r.pass);
	if (iters)
		printf(" %5.2f", r.iters);
}

/*
 * The noise of a row: one CV at every point, or (last > cv) the points'
 * own noise spread geometrically from cv to last, as real runs are (a
 * direct read steady, a fault/punch race not), so a gate that pools the
 * points' variances shows what it does to the noisy ones.
 */
struct noise {
	double cv, last;
};

static void noise_label(const struct noise *n, int width)
{
	char buf[32];

	if (n->last > n->cv)
		snprintf(buf, sizeof(buf), "%g-%g%%", n->cv * 100,
			 n->last * 100);
	else
		snprintf(buf, sizeof(buf), "%g%%", n->cv * 100);
	printf("%*s", width, buf);
}

static void time_mode(struct oc_scenario *s, unsigned long seed, int trials)
{
	static const struct noise cvs[] = {
		{ 0.01, 0 }, { 0.03, 0 }, { 0.10, 0 }, { 0.01, 0.30 } };
	unsigned c, e;

	printf("\nTime mode, the change at every point:\n"
	       "     CV  change  x thr |  N=3: fail  pass | N=10: fail  pass |"
	       "  seq: fail  pass iters\n");
	for (c = 0; c < sizeof(cvs) / sizeof(cvs[0]); c++)
		for (e = 0; e < NFRAC; e++) {
			s->cv = cvs[c].cv;
			s->cv_last = cvs[c].last;
			s->effect = effect_of(s, fracs[e]);
			noise_label(&cvs[c], 7);
			printf(" %6.2f%% %5.2f", s->effect * 100, fracs[e]);
			seed += 10;
			cell(s, 3, 3, seed, trials, false);
			cell(s, 10, 10, seed + 1, trials, false);
			cell(s, 3, 10, seed + 2, trials, true);
			putchar('\n');
		}
	s->cv_last = 0;
}

static void cost_mode(struct oc_scenario *s, unsigned long seed, int trials)
{
	static const struct noise cvs[] = {
		{ 0.0001, 0 }, { 0.0003, 0 }, { 0.001, 0 }, { 0.0001, 0.005 } };
	unsigned c, e;

	s->cost = true;
	printf("\nCost mode (insn/op, threshold %g%%), the change at every "
	       "point:\n          CV insn/op  x thr |  N=3: fail  pass\n",
	       s->gt.cost_threshold_pct);
	for (c = 0; c < sizeof(cvs) / sizeof(cvs[0]); c++)
		for (e = 0; e < NFRAC; e++) {
			s->cv = cvs[c].cv;
			s->cv_last = cvs[c].last;
			s->effect = effect_of(s, fracs[e]);
			noise_label(&cvs[c], 12);
			printf(" %+6.3f%% %5.2f",
			       fracs[e] * s->gt.cost_threshold_pct, fracs[e]);
			cell(s, 3, 3, seed += 10, trials, false);
			putchar('\n');
		}
	s->cost = false;
	s->cv_last = 0;
}

/* A/A with the sequential rule allowed past 10 boots a side. */
static void boots_needed(struct oc_scenario *s, unsigned long seed, int trials)
{
	static const double cvs[] = { 0.01, 0.03 };
	static const int maxes[] = { 10, 20, 30, 50 };
	unsigned c, k;

	printf("\nA/A, sequential from 3 boots up to a maximum:\n"
	       "   CV   max |        fail  pass iters\n");
	s->effect = 0;
	for (c = 0; c < sizeof(cvs) / sizeof(cvs[0]); c++)
		for (k = 0; k < sizeof(maxes) / sizeof(maxes[0]); k++) {
			s->cv = cvs[c];
			printf("%4.0f%% %5d", cvs[c] * 100, maxes[k]);
			cell(s, 3, maxes[k], seed += 10, trials, true);
			putchar('\n');
		}
}

/*
 * A true change of twice the threshold at CV 3%, the sequential rule
 * allowed past 10 boots. "bound": the power at that many boots a side of
 * the best level-alpha test this model allows, a z-test with the
 * variance known, of the mean over every point against the threshold
 * (the change is the same at every point, and the boot-level offset
 * shared by every point does not average out over points), so no rule
 * per point, no pooling and no correction can do better.
 */
static void power_needed(struct oc_scenario *s, unsigned long seed, int trials)
{
	static const int maxes[] = { 10, 20, 30, 50 };
	double thr = -log(1 - s->gt.threshold_pct / 100);
	unsigned k;

	s->cv = 0.03;
	s->effect = effect_of(s, 2);
	printf("\nA change of 2x the threshold (%.2f%%) at CV %g%%, sequential "
	       "from 3 boots:\n   CV   max |        fail  pass iters  bound\n",
	       s->effect * 100, s->cv * 100);
	for (k = 0; k < sizeof(maxes) / sizeof(maxes[0]); k++) {
		double v = s->cv * s->cv * (s->boot_share +
			   (1 - s->boot_share) / s->points);
		double se = sqrt(2 * v / maxes[k]);
		double z = gsl_cdf_ugaussian_Pinv(1 - s->gt.alpha);

		printf("%4.0f%% %5d", s->cv * 100, maxes[k]);
		cell(s, 3, maxes[k], seed += 10, trials, true);
		printf("  %5.3f\n", gsl_cdf_ugaussian_Q(
			       z - (-log(1 + s->effect) - thr) / se));
	}
}

int main(int argc, char **argv)
{
	static const char usage[] =
		"usage: bench-gate [--trials N] [--points P] [--seed S]\n";
	double seed = 20261203;
	int trials = 1000, points = 16;
	struct oc_scenario s;
	const struct cli_opt opts[] = {
		CLI("--trials", CLI_INT, &trials, .min = 10, .max = 1e7),
		CLI("--points", CLI_INT, &points, .min = 1, .max = 64),
		CLI("--seed", CLI_NUM, &seed, .min = 0, .max = 4e9),
		CLI_END
	};

	cli_parse(argc, argv, 1, opts, NULL, 0, NULL, usage);
	oc_init(&s);
	s.points = points;
	s.all_points = true;
	printf("Gate operating characteristics, %d simulated runs per cell.\n"
	       "Matrix: %d points, one candidate variant against the "
	       "baseline; per-boot\nvalues by rlsynth's model: half the "
	       "variance a boot-level offset shared\nby every point of a "
	       "boot, p99 noise %gx the rate's. Gate: alpha %g\n(primary "
	       "%g, secondary %g), thresholds %g%% (p99 %g%%, cost mode "
	       "%g%%);\nsequential: looks at 3..max boots a side while a "
	       "point is undecided.\nThe change is given in units of the "
	       "threshold (x thr): below 1 the gate\nshould not FAIL, at 2 "
	       "it should. fail, pass = share of runs FAILed,\nPASSed; "
	       "iters = mean boots per point and side.\n", trials, s.points,
	       s.p99_mult, s.gt.alpha, s.gt.alpha * s.gt.primary_share,
	       s.gt.alpha * (1 - s.gt.primary_share), s.gt.threshold_pct,
	       s.gt.tail_threshold_pct, s.gt.cost_threshold_pct);
	time_mode(&s, seed, trials);
	cost_mode(&s, seed + 1000, trials);
	boots_needed(&s, seed + 2000, trials);
	power_needed(&s, seed + 3000, trials);
	return 0;
}
