// SPDX-License-Identifier: GPL-2.0
/*
 * A run's settings and its meta.json, resolved and written in one place.
 * MODE=, ITERATIONS=, BUDGET=, --seed and ACCEL= are checked and resolved
 * against the matrix's settings (runners/matrix's output), the run
 * directory is made (never an existing one), and meta.json records the
 * host's facts; runners/run executes what comes out, one `key value` line
 * a setting. A RESUME resolves the same way from its meta.json. Nothing
 * is made when an input is refused: the directory is a temporary until
 * its meta.json is written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "run/run.h"

#define BUDGET_ACCEPTED "(accepted: none, or minutes: 8, 8m, or seconds: " \
	"90s; from 1 s to 7 days)"

/* NULL for an absent or empty setting, as bash's ${x:-...} saw it */
static const char *set_or(const struct matrix_out *m, const char *key,
			  const char *dflt)
{
	const char *v = matrix_set(m, key);

	return v && *v ? v : dflt;
}

long plan_budget_seconds(const char *b)
{
	size_t n = strlen(b);
	char *end;
	long s;

	if (!strcmp(b, "none"))
		return -1;
	if (!n || b[0] < '1' || b[0] > '9' || n > 7)
		return -2;
	errno = 0;
	s = strtol(b, &end, 10);
	if (errno || (*end && (strcmp(end, "s") && strcmp(end, "m"))) ||
	    end - b > 6)
		return -2;
	if (strcmp(end, "s"))
		s *= 60;
	return s <= 604800 ? s : -2;
}

/* all of s from accept, 1..max long */
static bool only(const char *s, const char *accept, size_t max)
{
	size_t n = strspn(s, accept);

	return n && n <= max && !s[n];
}

static void check_request(const struct plan_req *q)
{
	const char *m = q->mode && *q->mode ? q->mode : "auto";

	if (q->accel && strcmp(q->accel, "auto") && strcmp(q->accel, "kvm") &&
	    strcmp(q->accel, "tcg"))
		die_input("ACCEL='%s' is not one of auto, kvm, tcg", q->accel);
	if (strcmp(m, "auto") && strcmp(m, "time") && strcmp(m, "cost") &&
	    strcmp(m, "both"))
		die_input("MODE='%s' is not one of auto, time, cost, both", m);
	if (q->iterations && *q->iterations && strcmp(q->iterations, "auto") &&
	    (!only(q->iterations, "0123456789", 2) || q->iterations[0] == '0'))
		die_input("ITERATIONS='%s' is not auto or a whole number from "
			  "1 to 99", q->iterations);
	if (q->seed && *q->seed && !only(q->seed, "0123456789", 9))
		die_input("--seed '%s' is not a whole number below 10^9",
			  q->seed);
	if (q->budget && *q->budget && plan_budget_seconds(q->budget) == -2)
		die_input("BUDGET='%s' is not a time " BUDGET_ACCEPTED,
			  q->budget);
	if (q->profile && *q->profile && strcmp(q->profile, "insn") &&
	    strcmp(q->profile, "none"))
		die_input("PROFILE='%s' is not one of insn, none", q->profile);
	if (q->stats && *q->stats && strcmp(q->stats, "0") &&
	    strcmp(q->stats, "1"))
		die_input("STATS='%s' is not one of 1 (a stats boot per "
			  "variant, the default), 0 (none)", q->stats);
	if (q->kcsan && !q->debug)
		die_input("--kcsan is a debug run's (DEBUG=kcsan): accepted "
			  "with --debug only");
}

/* the first line matching ^\s*device\s+virtio-blk of text, 0 if none */
static int virtio_line(const char *text)
{
	const char *p = text;
	int n = 1;

	while (p && *p) {
		const char *s = p + strspn(p, " \t");

		if (!strncmp(s, "device", 6) && (s[6] == ' ' || s[6] == '\t')) {
			s += 6 + strspn(s + 6, " \t");
			if (!strncmp(s, "virtio-blk", 10))
				return n;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
		n++;
	}
	return 0;
}

/* does a line of text start with whitespace, key and whitespace? */
static bool has_line(const char *text, const char *key)
{
	size_t k = strlen(key);
	const char *p = text;

	while (p && *p) {
		const char *s = p + strspn(p, " \t");

		if (!strncmp(s, key, k) && (s[k] == ' ' || s[k] == '\t'))
			return true;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return false;
}

/* the matrix with its includes written out (runners/matrix --flatten) */
static char *flatten(const char *top, const char *mfile, bool *ok)
{
	char *prog = xasprintf("%s/runners/matrix", top);
	const char *argv[] = { prog, "--flatten", mfile, NULL };
	char *out = cmd_output(argv, ok);

	free(prog);
	return out;
}

static char *json_text(json_t *v)
{
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_integer(v))
		return xasprintf("%lld", json_integer_value(v));
	return json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
}

void plan_resolve(const struct plan_req *q, json_t *meta,
		  const struct matrix_out *mx, struct plan_set *s)
{
	char *where = meta ? xasprintf("%s/meta.json", q->run) :
			     xstrdup(q->matrix);
	const char *v, *mon = set_or(mx, "monitors", "");
	char *pad = xasprintf(" %s ", mon), *flat;
	bool ok;

	check_request(q);
	memset(s, 0, sizeof(*s));
	s->accel = q->accel ? q->accel : "auto";
	s->debug = q->debug;
	s->kcsan = q->kcsan;
	s->baseline = q->baseline ? q->baseline : "stock";
	s->mode = q->mode;
	s->iterations = q->iterations && *q->iterations ? q->iterations : NULL;
	s->budget = q->budget && *q->budget ? q->budget : NULL;
	s->cost_cpus = set_or(mx, "cost_cpus", "");
	if (meta) {	/* a RESUME goes by what its run recorded */
		json_t *it = json_object_get(meta, "iterations");
		json_t *cc = json_object_get(json_object_get(meta, "cost"),
					     "cpus");

		/* copies: the settings outlive meta */
		v = json_string_value(json_object_get(meta, "mode"));
		s->mode = xstrdup(v ? v : "time");
		s->iterations = json_is_null(it) || !it ? NULL : json_text(it);
		s->seed = json_integer_value(json_object_get(meta, "seed"));
		v = json_string_value(json_object_get(meta, "budget"));
		if (!s->budget && v)
			s->budget = xstrdup(v);
		v = json_string_value(json_object_get(meta, "baseline"));
		s->baseline = xstrdup(v ? v : "none");
		v = json_string_value(json_object_get(meta, "profile"));
		s->profile = xstrdup(v ? v : "none");
		v = json_string_value(json_object_get(meta, "accel_requested"));
		s->accel = xstrdup(v ? v : "null");
		s->debug = json_is_true(json_object_get(meta, "debug"));
		s->kcsan = json_is_true(json_object_get(meta, "kcsan"));
		/* the vCPUs its cost boots had, whatever the default is now */
		if (cc && !json_is_null(cc)) {
			if (!json_is_integer(cc) || json_integer_value(cc) < 1 ||
			    json_integer_value(cc) > 256)
				die_input("%s: cost.cpus '%s' is not a vCPU count "
					  "(accepted: 1..256)", where,
					  json_text(cc));
			s->cost_cpus = json_text(cc);
		}
	}
	if (!s->mode || !*s->mode)
		s->mode = set_or(mx, "mode", "auto");
	if (!meta)
		s->requested_mode = s->mode;
	if (strstr(pad, " perf "))
		die_input("%s: the perf monitor needs the workload on the host "
			  "(KERNEL=host); guests have no perf", q->matrix);
	flat = flatten(q->top, q->matrix, &ok);
	/* a matrix that names virtio-blk has no cost mode (below) */
	if (!meta && !strcmp(s->mode, "auto"))
		plan_auto(q, mx, s, virtio_line(flat) > 0);
	if (!s->modes)	/* a RESUME's, or a mode asked for */
		s->modes = plan_modes(s->mode, meta);
	/* ITERATIONS= wins, then the matrix's own `iterations` line */
	if (!s->iterations) {
		if (has_line(flat, "iterations"))
			s->iterations = set_or(mx, "iterations", "");
		else	/* time: rounds while undecided; cost: 2, maybe 3 */
			s->iterations = "auto";
	}
	v = set_or(mx, "max_iterations", "10");
	s->max_iterations = atoi(v);
	if (!s->budget || !*s->budget)
		s->budget = set_or(mx, "budget", "none");
	s->budget_s = plan_budget_seconds(s->budget);
	if (s->budget_s == -2)
		die_input("%s: budget '%s' is not a time " BUDGET_ACCEPTED,
			  where, s->budget);
	/*
	 * Cost mode runs on a memory device: virtio-blk completions arrive
	 * in host time and would make guest time depend on the host again.
	 */
	s->time_device = s->cost_device = set_or(mx, "device", "");
	if (strstr(s->modes, "cost") && !strcmp(s->cost_device, "virtio-blk")) {
		char *own = plan_slurp(q->matrix);
		int line = own ? virtio_line(own) : 0;
		const char *why = "device virtio-blk cannot run in cost mode";

		if (line)
			die_input("%s:%d: %s (MODE=%s): its completions arrive "
				  "in host time (accepted: brd, null_blk, or no "
				  "device line)", q->matrix, line, why, s->mode);
		if (virtio_line(flat))
			die_input("%s (in a file it includes): %s (MODE=%s): "
				  "its completions arrive in host time "
				  "(accepted: brd, null_blk, or no device line)",
				  q->matrix, why, s->mode);
		s->cost_device = "brd";
		free(own);
	}
	/* the profiler counts what cost boots execute; time boots have none */
	if (q->profile && *q->profile)
		s->profile = q->profile;
	else if (!s->profile)
		s->profile = set_or(mx, "profile", "none");
	if (strcmp(s->profile, "none") && !strstr(s->modes, "cost"))
		die_input("%s%s: profile %s counts instructions in cost-mode "
			  "boots; MODE is time (accepted: MODE=cost or both "
			  "with a profile, or PROFILE=none)",
			  q->profile && *q->profile ? "PROFILE=" : q->matrix,
			  q->profile && *q->profile ? s->profile : "",
			  s->profile);
	s->rounds = strcmp(s->iterations, "auto") ? atoi(s->iterations) : 3;
	s->cost_rounds = strcmp(s->iterations, "auto") ? s->rounds : 2;
	plan_stats(q, meta, mx, pad, s);	/* plan.c */
	free(flat);
	free(pad);
	free(where);
}

void plan_settings_print(FILE *f, const char *dir, const struct plan_set *s)
{
	fprintf(f, "run %s\nmode %s\nmodes %s\niterations %s\nrounds %d\n"
		"cost_rounds %d\nmax_iterations %d\nbudget %s\n", dir, s->mode,
		s->modes, s->iterations, s->rounds, s->cost_rounds,
		s->max_iterations, s->budget);
	if (s->budget_s >= 0)
		fprintf(f, "budget_s %ld\n", s->budget_s);
	else
		fprintf(f, "budget_s\n");
	fprintf(f, "seed %ld\naccel %s\ndebug %d\nbaseline %s\nvariants %s\n"
		"time_device %s\ncost_device %s\ncost_cpus %s\nprofile %s\n"
		"stats_boot %d\nkcsan %d\n",
		s->seed, s->accel, s->debug, s->baseline, s->variants,
		s->time_device, s->cost_device, s->cost_cpus, s->profile,
		s->stats_boot, s->kcsan);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) == EOF || fclose(f))
		die_input("%s: cannot write: %s", path, strerror(errno));
}

/* the run directory, never an existing one: stamp-name, -2, -3 ... */
static char *make_rundir(const char *results, const char *name)
{
	char stamp[32], *dir;
	time_t t = time(NULL);
	int n;

	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", gmtime(&t));
	mkdir(results, 0777);
	for (n = 1; n < 100; n++) {
		dir = n == 1 ? xasprintf("%s/%s-%s", results, stamp, name) :
			       xasprintf("%s/%s-%s-%d", results, stamp, name, n);
		if (!mkdir(dir, 0777)) {
			tmp_track(dir, true);
			return dir;
		}
		free(dir);
	}
	die_input("cannot create a run directory under results/");
}

static char *default_name(const struct plan_req *q, const struct plan_set *s)
{
	const char *b = strrchr(q->matrix, '/');
	size_t n;
	char *name, *vs = xstrdup(q->variants ? q->variants : ""), *t;
	const char *m;
	char join;

	b = b ? b + 1 : q->matrix;
	n = strlen(b);
	if (n > 7 && !strcmp(b + n - 7, ".matrix"))
		n -= 7;
	/*
	 * '+' joins variants, unless a name has one (a feature): then ','.
	 * Decided before the first join, which would otherwise be the '+'.
	 */
	join = strchr(vs, '+') ? ',' : '+';
	for (t = vs; *t; t++)
		if (*t == ' ')
			*t = join;
	/* the default (auto) and time name no mode */
	m = strcmp(s->requested_mode, "auto") && strcmp(s->requested_mode,
		"time") ? s->requested_mode : NULL;
	name = xasprintf("%.*s-%s%s%s%s", (int)n, b, vs,
			 s->kcsan ? "-debug-kcsan" : s->debug ? "-debug" : "",
			 m ? "-" : "", m ? m : "");
	free(vs);
	return name;
}

/* path relative to top when it is below it, as bash's ${p#"$top"/} */
static const char *below(const char *path, const char *top)
{
	size_t n = strlen(top);

	return !strncmp(path, top, n) && path[n] == '/' ? path + n + 1 : path;
}

static json_t *num_or_str(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return *s && !*end ? json_integer(v) : json_string(s);
}

/*
 * The document runners/run's jq template wrote, key for key: the run's
 * name and matrix, the suite and host, what was asked for and what it
 * resolved to, and the boots still to come.
 */
static json_t *qemu_meta(const struct plan_req *q, const struct plan_set *s,
			 const char *dir, const char *name)
{
	const char *qv[] = { "qemu-system-x86_64", "--version", NULL };
	char *p = xasprintf("%s/suite.diff", dir), *diff = plan_slurp(p);
	char *commit = plan_git_commit(q->top), *msha = plan_sha256(q->matrix);
	char *started = plan_now_utc(), *qemu, *out;
	const char *mname = strrchr(q->matrix, '/');
	json_t *m = json_object(), *cost = json_null(), *rerun = json_null();
	json_t *prev;
	bool ok;

	mname = mname ? mname + 1 : q->matrix;
	out = cmd_output(qv, &ok);
	qemu = plan_first_line(out);
	/* a rerun's matrix is the copy in the first run: named as that did */
	if (q->rerun_of && *q->rerun_of) {
		prev = meta_load(q->rerun_of);
		mname = xstrdup(json_string_value(json_object_get(prev,
								  "matrix")));
		rerun = json_string(below(q->rerun_of, q->top));
	}
	if (strstr(s->modes, "cost")) {
		const char *mem = set_or(q->mx, "mem_mb", "0");
		long mb = atol(mem) / 2 < 1024 ? atol(mem) / 2 : 1024;
		char *qa = xasprintf("-accel tcg -icount shift=0,sleep=off,"
				     "align=off -machine pc,max-ram-below-4g="
				     "%ldM", mb);

		cost = json_pack("{s:s, s:s, s:O}", "qemu", qa, "device",
				 s->cost_device, "cpus", num_or_str(s->cost_cpus));
		free(qa);
	}
	json_object_set_new(m, "schema", json_string("rlbench-meta/1"));
	json_object_set_new(m, "name", json_string(name));
	json_object_set_new(m, "runner", json_string("qemu"));
	json_object_set_new(m, "matrix", json_string(mname));
	json_object_set_new(m, "matrix_sha256", json_string(msha));
	json_object_set_new(m, "rerun_of", rerun);
	json_object_set_new(m, "suite", json_pack("{s:s, s:b, s:s}", "commit",
			    commit, "dirty", diff && *diff, "diff",
			    "suite.diff"));
	json_object_set_new(m, "host", plan_host_facts());
	json_object_set_new(m, "qemu", json_pack("{s:s}", "version", qemu));
	json_object_set_new(m, "accel_requested", json_string(s->accel));
	json_object_set_new(m, "debug", json_boolean(s->debug));
	if (s->kcsan)	/* only where asked: older runs have no such key */
		json_object_set_new(m, "kcsan", json_true());
	json_object_set_new(m, "mode", json_string(s->mode));
	if (s->auto_meta)	/* MODE=auto: why, and each point's mode */
		json_object_set(m, "auto", s->auto_meta);
	json_object_set_new(m, "iterations", num_or_str(s->iterations));
	json_object_set_new(m, "max_iterations",
			    json_integer(s->max_iterations));
	json_object_set_new(m, "budget", json_string(s->budget));
	json_object_set_new(m, "budget_s", s->budget_s >= 0 ?
			    json_integer(s->budget_s) : json_null());
	json_object_set_new(m, "auto_stop", json_null());
	json_object_set_new(m, "seed", json_integer(s->seed));
	json_object_set_new(m, "baseline", json_string(s->baseline));
	json_object_set_new(m, "profile", json_string(s->profile));
	json_object_set_new(m, "cost", cost);
	json_object_set_new(m, "stats_boot", json_pack("{s:b, s:s}", "on",
			    s->stats_boot, "why", s->stats_why));
	json_object_set_new(m, "requested", json_pack("{s:s, s:s, s:s, s:o, "
			    "s:o, s:o, s:o}", "kernel",
			    q->kernel ? q->kernel : "",
			    "baseline", s->baseline, "mode", s->requested_mode,
			    "iterations", num_or_str(s->iterations), "budget",
			    q->budget && *q->budget ? json_string(q->budget) :
			    json_null(), "profile", q->profile && *q->profile ?
			    json_string(q->profile) : json_null(), "stats",
			    q->stats && *q->stats ? json_string(q->stats) :
			    json_null()));
	json_object_set_new(m, "variants", json_array());
	json_object_set_new(m, "boot_order", json_array());
	json_object_set_new(m, "started", json_string(started));
	json_object_set_new(m, "ended", json_null());
	free(p);
	free(diff);
	free(commit);
	free(msha);
	free(started);
	free(out);
	free(qemu);
	return m;
}

char *plan_create_qemu(const struct plan_req *q, struct plan_set *s)
{
	const char *gv[] = { "git", "-C", q->top, "diff", "HEAD", NULL };
	char *name, *dir, *p, *text, *results;
	json_t *meta;
	bool ok;

	plan_resolve(q, NULL, q->mx, s);
	s->variants = q->variants ? q->variants : "";
	s->seed = q->seed && *q->seed ? strtol(q->seed, NULL, 10) :
					 plan_clock_seed();
	name = q->name && *q->name ? xstrdup(q->name) : default_name(q, s);
	if (q->check) {		/* every input checked, nothing made */
		free(name);
		return NULL;
	}
	results = q->results ? xstrdup(q->results) :
			       xasprintf("%s/results", q->top);
	dir = make_rundir(results, name);
	/* the run's own copy of the matrix, includes written out */
	text = flatten(q->top, q->matrix, &ok);
	if (!ok) {
		free(text);
		text = plan_slurp(q->matrix);
		if (!text)
			die_input("%s: cannot read: %s", q->matrix,
				  strerror(errno));
	}
	p = xasprintf("%s/matrix", dir);
	write_file(p, text);
	free(p);
	free(text);
	text = cmd_output(gv, &ok);
	p = xasprintf("%s/suite.diff", dir);
	write_file(p, text);
	free(p);
	free(text);
	/* rlwork is static and not PIE: its symbols name its profile rows */
	if (strcmp(s->profile, "none")) {
		char *rl = xasprintf("%s/workloads/rlwork", q->top);
		const char *nv[] = { "nm", "-n", rl, NULL };

		text = cmd_output(nv, &ok);
		if (ok) {
			p = xasprintf("%s/rlwork.map", dir);
			write_file(p, text);
			free(p);
		}
		free(text);
		free(rl);
	}
	meta = qemu_meta(q, s, dir, name);
	plan_meta_write(dir, meta);
	tmp_untrack(dir);	/* a run directory now */
	json_decref(meta);
	free(name);
	free(results);
	return dir;
}

char *plan_resume(const struct plan_req *q, struct plan_set *s)
{
	char *dir = realpath(q->run, NULL);
	json_t *meta;

	if (!dir)
		die_input("RESUME='%s' is not a run directory (needs meta.json "
			  "and matrix)", q->run);
	meta = meta_open(dir);
	plan_resolve(q, meta, q->mx, s);
	/* BUDGET= with RESUME gives a run the budget stopped more time */
	if (q->budget && *q->budget) {
		json_t *r = json_object_get(meta, "requested");

		json_object_set_new(meta, "budget", json_string(s->budget));
		json_object_set_new(meta, "budget_s", s->budget_s >= 0 ?
				    json_integer(s->budget_s) : json_null());
		if (!json_is_object(r)) {
			r = json_object();
			json_object_set_new(meta, "requested", r);
		}
		json_object_set_new(r, "budget", json_string(s->budget));
		plan_meta_write(dir, meta);
	}
	s->variants = plan_meta_variants(meta);
	json_decref(meta);
	return dir;
}
