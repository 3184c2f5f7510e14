// SPDX-License-Identifier: GPL-2.0
/*
 * meta.json as the bare-metal and LAVA runners write it: the same
 * document as a QEMU run's where a field means the same, with what each
 * runner knows instead (bare: the machine's topology, the binding and the
 * scratch filesystem; LAVA: its jobs and the workers the guests ran on).
 * The runner makes the run directory; these only fill in its meta.json.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "run/run.h"

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

static bool nonempty_file(const char *path)
{
	FILE *f = fopen(path, "r");
	bool some = f && fgetc(f) != EOF;

	if (f)
		fclose(f);
	return some;
}

static char *commit_of(const char *top)
{
	const char *argv[] = { "git", "-C", top, "rev-parse", "HEAD", NULL };
	bool ok;
	char *out = cmd_output(argv, &ok);

	out[strcspn(out, "\n")] = 0;
	if (!ok || !*out) {
		free(out);
		out = xstrdup("unknown");
	}
	return out;
}

void plan_create_bare(const struct plan_req *q)
{
	char *p = xasprintf("%s/matrix", q->run), *msha = plan_sha256(p);
	char *diff = xasprintf("%s/suite.diff", q->run), *csha, *name;
	char *commit = commit_of(q->top), *started = plan_now_utc();
	json_t *host = plan_host_facts(), *v, *fs = json_array(), *m;
	struct utsname u;
	int i;

	free(p);
	p = xasprintf("%s/%s/kernel.config", q->run, q->variant);
	csha = plan_sha256(p);
	uname(&u);
	json_object_set_new(host, "topology", json_string(q->topology ?
			    q->topology : ""));
	json_object_set_new(host, "topology_file", json_string("topology.txt"));
	json_object_set_new(host, "binding", json_string(q->binding ?
			    q->binding : "none"));
	v = json_pack("{s:s, s:s, s:s, s:s}", "name", q->variant, "release",
		      u.release, "config_sha256", csha, "accel", "none");
	/* a kernel without the series' marker has no strategy to name */
	if (q->strategy && *q->strategy) {
		for (i = 0; i < q->nfeatures; i++)
			json_array_append_new(fs, json_string(q->features[i]));
		json_object_set_new(v, "strategy", json_string(q->strategy));
		json_object_set(v, "features", fs);
	}
	name = realpath(q->run, NULL);
	m = json_pack("{s:s, s:s, s:s, s:s, s:s, s:{s:s, s:b, s:s}, s:o, "
		      "s:{s:s, s:s}, s:[o], s:s, s:n}",
		      "schema", "rlbench-meta/1",
		      "name", base_name(name ? name : q->run), "runner", "bare",
		      "matrix", base_name(q->matrix), "matrix_sha256", msha,
		      "suite", "commit", commit, "dirty", nonempty_file(diff),
		      "diff", "suite.diff", "host", host,
		      "scratch", "path", q->scratch ? q->scratch : "", "fs",
		      q->fs ? q->fs : "", "variants", v, "started", started,
		      "ended");
	plan_meta_write(q->run, m);
	json_decref(m);
	json_decref(fs);
	free(p);
	free(msha);
	free(diff);
	free(csha);
	free(name);
	free(commit);
	free(started);
}

/* the last `key N` line of the run's matrix copy, dflt when none */
static long matrix_last(const char *dir, const char *key, long dflt)
{
	char *p = xasprintf("%s/matrix", dir), *line = NULL, k[64], val[64];
	FILE *f = fopen(p, "r");
	size_t len = 0;
	long v = dflt;

	while (f && getline(&line, &len, f) >= 0)
		if (sscanf(line, "%63s %63s", k, val) == 2 && !strcmp(k, key))
			v = strspn(val, "0123456789") == strlen(val) ?
			    atol(val) : dflt;
	if (f)
		fclose(f);
	free(line);
	free(p);
	return v;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The machine the guests ran on: this one for lava-run, else the workers. */
static json_t *lava_host(const char *dir, json_t *jobs)
{
	const char **w = xcalloc(json_array_size(jobs) + 1, sizeof(*w));
	char *cpu = xstrdup("LAVA worker ");
	bool local = true;
	json_t *j;
	size_t i, n = 0;

	json_array_foreach(jobs, i, j) {
		const char *id = json_string_value(json_object_get(j, "id"));
		const char *wk = json_string_value(json_object_get(j,
								   "worker"));

		local &= id && !strncmp(id, "local-", 6);
		w[n++] = wk ? wk : "unknown";
	}
	if (local) {
		free(w);
		free(cpu);
		return plan_host_facts();
	}
	qsort(w, n, sizeof(*w), str_cmp);
	for (i = 0; i < n; i++) {
		char *o = cpu;

		if (i && !strcmp(w[i], w[i - 1]))
			continue;
		cpu = xasprintf("%s%s%s", o, i ? ", " : "", w[i]);
		free(o);
	}
	j = json_pack("{s:s, s:I, s:I, s:s}", "cpu_model", cpu, "cpus",
		      (json_int_t)matrix_last(dir, "cpus", 1), "mem_mb",
		      (json_int_t)matrix_last(dir, "mem_mb", 2048), "kernel",
		      "unknown");
	free(w);
	free(cpu);
	return j;
}

/* is name the name of an entry of vars? */
static bool listed(json_t *vars, json_t *name)
{
	json_t *v;
	size_t i;

	json_array_foreach(vars, i, v)
		if (json_equal(json_object_get(v, "name"), name))
			return true;
	return false;
}

/* "job JSON" and "variant JSON" lines; a variant once, by name */
static void lava_read(FILE *in, json_t *jobs, json_t *vars)
{
	char *line = NULL;
	size_t len = 0;
	json_error_t err;

	while (getline(&line, &len, in) > 0) {
		bool job = !strncmp(line, "job ", 4);
		json_t *x;

		if (!job && strncmp(line, "variant ", 8))
			die_input("plan create --runner lava: stdin line \"%s\" "
				  "is not job JSON or variant JSON", line);
		x = json_loads(line + (job ? 4 : 8), 0, &err);
		if (!json_is_object(x))
			die_input("plan create --runner lava: %s", err.text);
		if (job)
			json_array_append_new(jobs, x);
		else if (listed(vars, json_object_get(x, "name")))
			json_decref(x);
		else
			json_array_append_new(vars, x);
	}
	free(line);
}

void plan_create_lava(const struct plan_req *q, FILE *in)
{
	json_t *jobs = json_array(), *vars = json_array(), *order, *j, *m;
	char *started = plan_now_utc(), *kernel = xstrdup("");
	json_int_t it = 0;
	size_t i;

	lava_read(in, jobs, vars);
	order = json_array();
	json_array_foreach(jobs, i, j) {
		json_int_t n = json_integer_value(json_object_get(j,
							"iteration"));

		it = n > it ? n : it;
		json_array_append_new(order, json_pack("{s:O?, s:O?, s:O?, s:n}",
			"variant", json_object_get(j, "variant"), "mode",
			json_object_get(j, "mode"), "iteration",
			json_object_get(j, "iteration"), "points"));
	}
	json_array_foreach(vars, i, j) {
		char *o = kernel;

		kernel = xasprintf("%s%s%s", o, i ? "," : "",
				   json_string_value(json_object_get(j,
								     "name")));
		free(o);
	}
	m = json_pack("{s:s, s:s, s:s, s:s, s:s, s:n, s:{s:s, s:b, s:n}, "
		      "s:o, s:n, s:s, s:b, s:s, s:I, s:I, s:I, s:s, s:n, "
		      "s:{s:s, s:s, s:s, s:I}, s:O, s:o, s:{s:O}, s:s, s:s}",
		      "schema", "rlbench-meta/1", "name", q->name ? q->name : "",
		      "runner", "lava", "matrix", q->matrix ? q->matrix : "",
		      "matrix_sha256", q->matrix_sha ? q->matrix_sha : "",
		      "rerun_of", "suite", "commit", q->commit ? q->commit :
		      "unknown", "dirty", 0, "diff", "host",
		      lava_host(q->run, jobs), "qemu", "accel_requested", "tcg",
		      "debug", 0, "mode", "time", "iterations", it,
		      "max_iterations", it, "seed", (json_int_t)(q->seed ?
		      atol(q->seed) : 0), "baseline", q->baseline ?
		      q->baseline : "none", "cost", "requested", "kernel",
		      kernel, "baseline", q->baseline ? q->baseline : "none",
		      "mode", "time", "iterations", it, "variants", vars,
		      "boot_order", order, "lava", "jobs", jobs, "started",
		      started, "ended", started);
	if (!m)
		die_input("plan create --runner lava: cannot make meta.json");
	plan_meta_write(q->run, m);
	json_decref(m);
	json_decref(jobs);
	json_decref(vars);
	free(started);
	free(kernel);
}
