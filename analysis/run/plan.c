// SPDX-License-Identifier: GPL-2.0
/*
 * The boots of a run, kept in meta.json's boot_order so that a RESUME runs
 * the same ones in the same order. Each round boots every unit (a variant
 * in a mode) once, in an order drawn from the run's seed; every second
 * round runs the one before it backwards (ABBA), so a drift of the host
 * over a round falls on every variant alike. ITERATIONS=auto adds rounds
 * of time boots for the points still undecided, while max_iterations and
 * the time budget allow, and meta.json's auto_stop says why they ended;
 * in cost mode it runs two boots, and a third of the points whose two
 * differ (plan_confirm_round). Under MODE=auto a boot runs the points
 * of its mode (meta.json's auto.points). A run whose meta.json says
 * stats_boot.on has one stats boot per time variant in its first round
 * (mode "stats", iteration 1): the time points once on the variant's
 * kernel booted with its lock counters on, results <point>-stats-i1, for
 * the lock waits alone; no budget, round or verdict counts it. A variant
 * with no lock to count (flavours_skipped) has none.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_rng.h>

#include "run/run.h"

/* The round's units, in place: a seeded shuffle, or prev backwards. */
static void order_units(char **u, int n, unsigned long seed, int round,
			char **prev, int nprev)
{
	gsl_rng *rng;
	char *t;
	int i, j;

	if (round % 2 == 0 && prev && nprev == n) {
		for (i = 0; i < n; i++)
			u[i] = prev[n - 1 - i];
		return;
	}
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng)
		die_input("out of memory");
	gsl_rng_set(rng, seed + round);
	for (i = n - 1; i > 0; i--) {
		j = gsl_rng_uniform_int(rng, i + 1);
		t = u[i];
		u[i] = u[j];
		u[j] = t;
	}
	gsl_rng_free(rng);
}

/* Append round r of the units ("variant:mode") to boot_order. */
static void add_round(json_t *order, int r, char **u, int n,
		      json_t *points)
{
	int i;

	for (i = 0; i < n; i++) {
		char *colon = strrchr(u[i], ':');
		char *v = xasprintf("%.*s", (int)(colon - u[i]), u[i]);

		json_array_append_new(order, json_pack("{s:s, s:s, s:i, s:O}",
			"variant", v, "mode", colon + 1, "iteration", r,
			"points", points));
		free(v);
	}
}

static unsigned long meta_seed(json_t *meta)
{
	return json_integer_value(json_object_get(meta, "seed"));
}

static int meta_fn(FILE *f, void *meta)
{
	return json_dumpf(meta, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ||
	       fputc('\n', f) == EOF;
}

void plan_meta_write(const char *dir, json_t *meta)
{
	struct stage *st = stage_new(dir);

	stage_write(st, "meta.json", meta_fn, meta);
	stage_commit(st);
}

/*
 * A stats boot per variant beside the timed boots: the lock counters
 * cost time on every acquisition when on (mapping_lock.stats=1), so timed
 * boots run with them off and the report's waits come from one boot that
 * counts (run/waits.c). Asked for by STATS=1 or the matrix's `stats_boot
 * yes` (default.matrix's; a matrix without it, a debug one say, adds no
 * boot unasked). None when the user opts out, when nothing
 * runs in time mode, or when every boot counts already (monitors
 * mapping_lock).
 */
void plan_stats(const struct plan_req *q, json_t *meta,
		       const struct matrix_out *mx, const char *monitors,
		       struct plan_set *s)
{
	bool asked = q->stats && *q->stats;

	json_t *sb = json_object_get(meta, "stats_boot");

	if (meta) {	/* a RESUME: as recorded; runs from before, none */
		s->stats_boot = json_is_true(json_object_get(sb, "on"));
		s->stats_why = json_string_value(json_object_get(sb, "why"));
		if (!s->stats_why)
			s->stats_why = "the run recorded none";
		return;
	}
	s->stats_boot = false;
	if (asked && !strcmp(q->stats, "0"))
		s->stats_why = "STATS=0";
	else if (!asked && strcmp(matrix_set(mx, "stats_boot") ?: "no",
				  "yes"))
		s->stats_why = "the matrix has no `stats_boot yes` (STATS=1 "
			       "asks for it)";
	else if (!strstr(s->modes, "time"))
		s->stats_why = "no point runs in time mode";
	else if (strstr(monitors, " mapping_lock "))
		s->stats_why = "every boot counts the lock (monitors "
			       "mapping_lock)";
	else
		s->stats_boot = true;
	if (s->stats_boot)
		s->stats_why = "one boot per variant with its lock counters "
			       "on, for the waits; its rates are never compared";
}

/* a variant whose counters were skipped: nothing to count */
static bool stats_skipped(json_t *meta, const char *v, size_t len)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(meta, "flavours_skipped"), i, e) {
		const char *sv = json_string_value(json_object_get(e,
								"variant"));
		const char *f = json_string_value(json_object_get(e,
								"flavour"));

		if (sv && f && !strcmp(f, "stats") && strlen(sv) == len &&
		    !strncmp(sv, v, len))
			return true;
	}
	return false;
}

/* the stats units ("variant:stats") of a run's time units, in *out */
static int stats_units(json_t *meta, char **units, int n, char ***out)
{
	char **s = xcalloc(n + 1, sizeof(*s));
	int i, k = 0;

	if (!json_is_true(json_object_get(json_object_get(meta, "stats_boot"),
					  "on"))) {
		*out = s;
		return 0;
	}
	for (i = 0; i < n; i++) {
		const char *c = strrchr(units[i], ':');

		if (c && !strcmp(c, ":time") &&
		    !stats_skipped(meta, units[i], c - units[i]))
			s[k++] = xasprintf("%.*s:stats", (int)(c - units[i]),
					   units[i]);
	}
	*out = s;
	return k;
}

int plan_first_rounds(json_t *meta, int rounds, int cost_rounds,
		      char **units, int n)
{
	json_t *order = json_object_get(meta, "boot_order");
	char **prev = NULL, **su;
	int r, last = rounds > cost_rounds ? rounds : cost_rounds, i, k;
	int nprev = 0, ns;

	if (json_array_size(order))
		return 0;	/* a RESUME keeps the order it recorded */
	ns = stats_units(meta, units, n, &su);
	order = json_array();
	for (r = 1; r <= last; r++) {
		char **u = xcalloc(n + 1, sizeof(*u));

		/* a round past a mode's own count leaves its units out */
		for (i = 0, k = 0; i < n; i++)
			if (r <= (strstr(units[i], ":cost") ? cost_rounds :
				  rounds))
				u[k++] = units[i];
		order_units(u, k, meta_seed(meta), r, prev, nprev);
		add_round(order, r, u, k, json_null());
		/*
		 * The stats boots: once, after the first round's, drawn in
		 * no order a later round mirrors (ABBA is the timed boots')
		 */
		if (r == 1 && ns) {
			order_units(su, ns, meta_seed(meta), r, NULL, 0);
			add_round(order, r, su, ns, json_null());
		}
		free(prev);
		prev = u;
		nprev = k;
	}
	free(prev);
	json_object_set_new(meta, "boot_order", order);
	for (i = 0; i < ns; i++)
		free(su[i]);
	free(su);
	return 1;
}

/* ramp + runtime of one plan line: its own seconds, besides the boot's */
static double line_own(const char *line)
{
	char *copy = xstrdup(line), *tok[256], *save = NULL, *t;
	double s = 0;
	int n = 0, i;

	for (t = strtok_r(copy, " \t\n", &save); t && n < 256;
	     t = strtok_r(NULL, " \t\n", &save))
		tok[n++] = t;
	for (i = 3; i + 1 < n; i++)
		if (!strcmp(tok[i], "--runtime") || !strcmp(tok[i], "--ramp"))
			s += atof(tok[i + 1]);
	free(copy);
	return s;
}

static bool listed(const char *key, char **names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(key, names[i]))
			return true;
	return false;
}

/*
 * The seconds of one plan file's lines (those in names only, if given),
 * and whether each of names is a point of it.
 */
static double plan_own(const char *path, char **names, int n, bool *found)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, key[256];
	size_t len = 0;
	double s = 0;
	int i;

	if (!f)
		die_input("%s: cannot read: %s", path, strerror(errno));
	while (getline(&line, &len, f) > 0) {
		if (sscanf(line, "%255s", key) != 1)
			continue;
		for (i = 0; found && i < n; i++)
			found[i] |= !strcmp(key, names[i]);
		if (!names || listed(key, names, n))
			s += line_own(line);
	}
	free(line);
	fclose(f);
	return s;
}

/* The time units of the run: its variants that boot in time mode. */
static int time_variants(json_t *order, char ***out)
{
	char **v = xcalloc(json_array_size(order) + 1, sizeof(*v));
	json_t *b;
	size_t i;
	int n = 0;

	json_array_foreach(order, i, b) {
		const char *name = json_string_value(json_object_get(b,
								   "variant"));

		if (!strcmp(json_string_value(json_object_get(b, "mode")),
			    "time") && !listed(name, v, n))
			v[n++] = (char *)name;
	}
	*out = v;
	return n;
}

/*
 * The host seconds a round of time boots running names should take. Per
 * variant, its last timed boot less its points' own seconds (ramp +
 * runtime) is what a boot costs besides them (start, setup, shutdown,
 * fsck: over-counted by the points' setup, so the guess errs long); its
 * next boot is that plus the named points' own seconds.
 */
static double round_seconds(const char *dir, json_t *order, char **tv,
			    int ntv, char **names, int n)
{
	bool *found = xcalloc(n + 1, sizeof(*found));
	double sum = 0;
	int k, i;

	for (k = 0; k < ntv; k++) {
		char *first = xasprintf("%s/%s/plan-time-i1", dir, tv[k]);
		json_t *b, *last = NULL;
		size_t j;

		json_array_foreach(order, j, b)
			if (!strcmp(json_string_value(json_object_get(b,
					"variant")), tv[k]) &&
			    !strcmp(json_string_value(json_object_get(b,
					"mode")), "time") &&
			    json_is_number(json_object_get(b, "seconds")))
				last = b;
		memset(found, 0, n * sizeof(*found));
		if (last) {
			char *lp = xasprintf("%s/%s/plan-time-i%lld", dir,
				tv[k], json_integer_value(json_object_get(last,
							"iteration")));
			double extra = json_number_value(json_object_get(last,
					"seconds")) - plan_own(lp, NULL, 0, NULL);

			sum += (extra > 0 ? extra : 0) +
			       plan_own(first, names, n, found);
			free(lp);
		} else {	/* none timed yet: a RESUME of an older run */
			plan_own(first, names, n, found);
		}
		for (i = 0; i < n; i++)
			if (!found[i])
				die_input("%s: \"%s\" is not a point of this "
					  "run (accepted: the labels of "
					  "%s/%s/plan-time-i1)", dir,
					  names[i], dir, tv[k]);
		free(first);
	}
	free(found);
	return sum;
}

static void auto_stop(json_t *meta, const char *rule, int rounds,
		      char **names, int n)
{
	json_t *u = json_array();
	int i;

	for (i = 0; i < n; i++)
		json_array_append_new(u, json_string(names[i]));
	json_object_set_new(meta, "auto_stop", json_pack("{s:s, s:i, s:o}",
			    "rule", rule, "rounds", rounds, "undecided", u));
}

int plan_next_round(const char *dir, json_t *meta, char **names, int n,
		    char *msg, size_t len)
{
	json_t *order = json_object_get(meta, "boot_order"), *b, *pts;
	json_t *bs = json_object_get(meta, "budget_s");
	json_t *mx = json_object_get(meta, "max_iterations");
	/* runs from before meta.json recorded it had the matrix default */
	int maxit = json_is_integer(mx) ? json_integer_value(mx) : 10;
	double spent = 0, need;
	char **tv, **prev;
	int k = 0, ntv, nprev = 0, i;
	size_t j;

	ntv = time_variants(order, &tv);
	prev = xcalloc(ntv + 1, sizeof(*prev));
	json_array_foreach(order, j, b)
		if (!strcmp(json_string_value(json_object_get(b, "mode")),
			    "time")) {
			int it = json_integer_value(json_object_get(b,
							"iteration"));

			k = it > k ? it : k;
			spent += json_number_value(json_object_get(b,
								 "seconds"));
		}
	if (k >= maxit) {
		snprintf(msg, len, "max_iterations %d reached", maxit);
		auto_stop(meta, "max_iterations", k, names, n);
		return 0;
	}
	if (!n) {
		snprintf(msg, len, "every point decided after %d iterations",
			 k);
		auto_stop(meta, "decided", k, names, n);
		return 0;
	}
	need = round_seconds(dir, order, tv, ntv, names, n);
	if (json_is_number(bs) && spent + need > json_number_value(bs)) {
		snprintf(msg, len, "budget %.0f s: round %d (%d points, about "
			 "%d s) would take the time boots from %d s past it; "
			 "stopping with %d point(s) undecided",
			 json_number_value(bs), k + 1, n, (int)need,
			 (int)spent, n);
		auto_stop(meta, "budget", k, names, n);
		return 0;
	}
	json_array_foreach(order, j, b)
		if (json_integer_value(json_object_get(b, "iteration")) == k &&
		    !strcmp(json_string_value(json_object_get(b, "mode")),
			    "time") && nprev < ntv)
			prev[nprev++] = xasprintf("%s:time",
				json_string_value(json_object_get(b,
								  "variant")));
	for (i = 0; i < ntv; i++)
		tv[i] = xasprintf("%s:time", tv[i]);
	order_units(tv, ntv, meta_seed(meta), k + 1, prev, nprev);
	pts = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(pts, json_string(names[i]));
	add_round(order, k + 1, tv, ntv, pts);
	json_decref(pts);
	i = snprintf(msg, len, "iteration %d: %d undecided point(s):", k + 1,
		     n);
	for (j = 0; j < (size_t)n && i > 0 && (size_t)i < len; j++)
		i += snprintf(msg + i, len - i, " %s", names[j]);
	return 1;
}

int plan_confirm_round(json_t *meta, char **names, int n, char *msg,
		       size_t len)
{
	json_t *order = json_object_get(meta, "boot_order"), *b, *pts;
	char **u = xcalloc(json_array_size(order) + 1, sizeof(*u));
	char **prev = xcalloc(json_array_size(order) + 1, sizeof(*prev));
	int k = 0, nu = 0, nprev = 0, i;
	size_t j;

	json_array_foreach(order, j, b) {
		int it = json_integer_value(json_object_get(b, "iteration"));

		if (strcmp(json_string_value(json_object_get(b, "mode")),
			   "cost"))
			continue;
		k = it > k ? it : k;
	}
	json_array_foreach(order, j, b) {
		const char *v = json_string_value(json_object_get(b,
							       "variant"));
		char *unit;

		if (strcmp(json_string_value(json_object_get(b, "mode")),
			   "cost"))
			continue;
		unit = xasprintf("%s:cost", v);
		if (json_integer_value(json_object_get(b, "iteration")) == k)
			prev[nprev++] = unit;
		if (!listed(unit, u, nu))
			u[nu++] = unit;
	}
	if (!n || k != 2) {
		snprintf(msg, len, !n ? "cost: the two boots of every variant "
			 "agree on every suited point" : "cost: %d boots "
			 "ran; a third is added only after two", k);
		free(u);
		free(prev);
		return 0;
	}
	order_units(u, nu, meta_seed(meta), k + 1, prev, nprev);
	pts = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(pts, json_string(names[i]));
	add_round(order, k + 1, u, nu, pts);
	json_decref(pts);
	i = snprintf(msg, len, "cost: a third boot for %d point(s) whose two "
		     "boots differ:", n);
	for (j = 0; j < (size_t)n && i > 0 && (size_t)i < len; j++)
		i += snprintf(msg + i, len - i, " %s", names[j]);
	free(u);
	free(prev);
	return 1;
}

void plan_list(FILE *f, json_t *meta)
{
	json_t *b, *p;
	size_t i, j;

	json_array_foreach(json_object_get(meta, "boot_order"), i, b) {
		json_t *pts = json_object_get(b, "points");

		fprintf(f, "%s %s %lld ",
			json_string_value(json_object_get(b, "mode")),
			json_string_value(json_object_get(b, "variant")),
			json_integer_value(json_object_get(b, "iteration")));
		if (!json_array_size(pts))
			fputc('-', f);
		json_array_foreach(pts, j, p)
			fprintf(f, "%s%s", j ? "," : "",
				json_string_value(p));
		fputc('\n', f);
	}
}

int plan_record(json_t *meta, const char *variant, const char *mode,
		int iteration, double seconds, const char *accel)
{
	json_t *b, *v = meta_variant(meta, variant);
	json_t *found = NULL;
	size_t i;

	json_array_foreach(json_object_get(meta, "boot_order"), i, b)
		if (!strcmp(json_string_value(json_object_get(b, "variant")),
			    variant) &&
		    !strcmp(json_string_value(json_object_get(b, "mode")),
			    mode) &&
		    json_integer_value(json_object_get(b, "iteration")) ==
		    iteration)
			found = b;
	if (!found || !v)
		return -1;
	if (seconds >= 0)
		json_object_set_new(found, "seconds",
				    json_real(round(seconds * 10) / 10));
	/* a variant's time boots name its accelerator; cost boots run TCG */
	if (accel && (strcmp(mode, "cost") ||
		      json_is_null(json_object_get(v, "accel"))))
		json_object_set_new(v, "accel", json_string(accel));
	return 0;
}

void plan_boot_lines(FILE *f, json_t *meta, const struct matrix_out *mx,
		     const char *accel,
		     const char *v, const char *mode, int it, char **sel,
		     int nsel)
{
	bool cost = !strcmp(mode, "cost"), stats = !strcmp(mode, "stats");
	const char *dev = matrix_set(mx, "device");
	const char *rt = matrix_set(mx, cost ? "cost_runtime" : "runtime");
	const char *rp = matrix_set(mx, cost ? "cost_ramp" : "ramp");
	const char *fs = matrix_set(mx, "fs");
	const char *to = matrix_set(mx, "timeout");
	const char *commit = json_string_value(json_object_get(
				json_object_get(meta, "suite"), "commit"));
	const char *runner = json_string_value(json_object_get(meta,
								"runner"));
	long tmo = to ? atol(to) : 0;
	int i;

	if (cost)
		dev = json_string_value(json_object_get(json_object_get(meta,
							"cost"), "device"));
	/* no timeout set: three times a point's own seconds, and a minute */
	if (tmo <= 0)
		tmo = (atol(matrix_set(mx, "runtime") ?: "0") +
		       atol(matrix_set(mx, "ramp") ?: "0")) * 3 + 60;
	for (i = 0; i < mx->npoints; i++) {
		const char *p = mx->points[i], *sp = strchr(p, ' ');
		const char *args = sp ? sp + 1 : p, *pm;
		char *id = sp ? xasprintf("%.*s", (int)(sp - p), p) : xstrdup(p);

		/* all points: those whose mode (MODE=auto) this boot's is */
		pm = meta_point_mode(meta, id);
		if (nsel ? !listed(id, sel, nsel) :
		    strcmp(pm, "both") && strcmp(pm, stats ? "time" : mode)) {
			free(id);
			continue;
		}
		fprintf(f, "%s%s %d %ld %s", id, cost ? "-cost" : stats ?
			"-stats" : "", it, tmo, args);
		/* a test hook (@name) gets none: the guest runs its first word */
		if (*args != '@')
			fprintf(f, " --runtime %s --ramp %s --variant %s --env "
				"runner=%s --env accel=%s --env mode=%s "
				"--env device=%s --env fs=%s --env point=%s "
				"--env suite_commit=%s", rt ?: "", rp ?: "", v,
				runner ?: "qemu", accel ?: "@ACCEL@",
				stats ? "time" : mode, dev ?: "", fs ?: "", id,
				commit ?: "unknown");
		/* its results are the waits' alone (run/waits.c) */
		if (*args != '@' && stats)
			fputs(" --env boot=stats", f);
		fputc('\n', f);
		free(id);
	}
}
