// SPDX-License-Identifier: GPL-2.0
/*
 * rlsynth: write a synthetic run directory in the real formats, with
 * known noise and planted effects. The test fixtures and the validation
 * of the regression gate are built with it; results are a deterministic
 * function of the options and the seed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "report/report.h"
#include "hist.h"

#define MAXV 8
#define MAXT 16

struct opts {
	const char *dir, *name;
	unsigned long seed;
	char *variants[MAXV];
	int nvariants;
	int threads[MAXT];
	int nthreads;
	int iterations;
	double noise;			/* CV of per-iteration throughput */
	double effect[MAXV];		/* percent change of throughput */
	int samples;			/* latency samples per op and iteration */
	char *fail;			/* "variant:point:iteration" */
	double boot_noise;		/* CV of a boot's shared offset */
	double cost_noise;		/* CV of insn/op in cost mode */
	const char *mode;		/* NULL (no env.mode), time, cost, both */
	int effect_point;		/* -1: effects at every point */
	int sequential;			/* > 0: meta says iterations auto */
	double *boot[2];		/* [mode][variant * iterations + it] */
	int mix[MAXV];			/* enum mix_model of each variant */
	bool waits;			/* mapping_lock monitor files */
	int nops;			/* 2: read and write; 1: read */
	const char *stats_boot;		/* the variant that waits */
};

/*
 * --mix: every op has two kinds, hole and data, a hole 4 times the cost;
 * a variant of MIX_SHARE runs more holes at the same cost per kind, one
 * of MIX_COST the same mix at a higher cost per kind: the same rate
 * change (-32.7%) made of different things, for the explanation.
 */
enum mix_model { MIX_NONE, MIX_SAME, MIX_SHARE, MIX_COST };
#define MIX_OVERHEAD_NS	5000.0	/* untimed, per op */
static const double mix_cost_ns[2] = { 80000, 20000 };	/* hole, data */

static const char usage[] =
"usage: rlsynth <dir> [--seed N] [--variants a,b] [--threads 1,2]\n"
"               [--iterations N] [--noise CV] [--effect VARIANT=PCT]...\n"
"               [--samples N] [--fail VARIANT:POINT:ITER] [--name NAME]\n"
"               [--boot-noise CV] [--mode time|cost|both] [--cost-noise CV]\n"
"               [--effect-point N] [--sequential MAX]\n"
"               [--mix VARIANT=mix|cost]... [--waits] [--ops 1|2]\n"
"               [--stats-boot VARIANT]\n";

static void split_list(char *s, char **out, int max, int *n)
{
	char *tok;

	*n = 0;
	for (tok = strtok(s, ","); tok && *n < max; tok = strtok(NULL, ","))
		out[(*n)++] = tok;
}

static void parse(int argc, char **argv, struct opts *o)
{
	char *tv[MAXT], *eq;
	int i, k, n;

	memset(o, 0, sizeof(*o));
	o->name = "synthetic";
	o->seed = 1;
	o->variants[0] = "stock";
	o->variants[1] = "rangelock";
	o->nvariants = 2;
	o->nops = 2;
	o->threads[0] = 1;
	o->threads[1] = 2;
	o->nthreads = 2;
	o->iterations = 3;
	o->noise = 0.03;
	o->samples = 4000;
	o->cost_noise = 0.0002;
	o->effect_point = -1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (a[0] != '-') {
			o->dir = a;
			continue;
		}
		if (!strcmp(a, "--waits")) {
			o->waits = true;
			continue;
		}
		if (!v)
			die_input("%s needs a value\n%s", a, usage);
		i++;
		if (!strcmp(a, "--seed"))
			o->seed = strtoul(v, NULL, 10);
		else if (!strcmp(a, "--name"))
			o->name = v;
		else if (!strcmp(a, "--variants"))
			split_list(xstrdup(v), o->variants, MAXV,
				   &o->nvariants);
		else if (!strcmp(a, "--threads")) {
			split_list(xstrdup(v), tv, MAXT, &n);
			for (k = 0; k < n; k++)
				o->threads[k] = atoi(tv[k]);
			o->nthreads = n;
		} else if (!strcmp(a, "--iterations"))
			o->iterations = atoi(v);
		else if (!strcmp(a, "--noise"))
			o->noise = atof(v);
		else if (!strcmp(a, "--samples"))
			o->samples = atoi(v);
		else if (!strcmp(a, "--fail"))
			o->fail = (char *)v;
		else if (!strcmp(a, "--boot-noise"))
			o->boot_noise = atof(v);
		else if (!strcmp(a, "--cost-noise"))
			o->cost_noise = atof(v);
		else if (!strcmp(a, "--effect-point"))
			o->effect_point = atoi(v);
		else if (!strcmp(a, "--ops") && (!strcmp(v, "1") ||
						  !strcmp(v, "2")))
			o->nops = atoi(v);
		else if (!strcmp(a, "--stats-boot"))
			o->stats_boot = v;
		else if (!strcmp(a, "--sequential"))
			o->sequential = atoi(v);
		else if (!strcmp(a, "--mode")) {
			if (strcmp(v, "time") && strcmp(v, "cost") &&
			    strcmp(v, "both"))
				die_input("--mode %s: accepted are time, cost, "
					  "both", v);
			o->mode = v;
		}
		else if (!strcmp(a, "--mix") && (eq = strchr(v, '='))) {
			if (strcmp(eq + 1, "mix") && strcmp(eq + 1, "cost"))
				die_input("--mix %s: accepted are VARIANT=mix, "
					  "VARIANT=cost", v);
			for (k = 0; k < o->nvariants; k++) {
				if (!o->mix[k])
					o->mix[k] = MIX_SAME;
				if (!strncmp(o->variants[k], v, eq - v) &&
				    !o->variants[k][eq - v])
					o->mix[k] = eq[1] == 'm' ? MIX_SHARE :
								   MIX_COST;
			}
		} else if (!strcmp(a, "--effect") && (eq = strchr(v, '='))) {
			for (k = 0; k < o->nvariants; k++)
				if (!strncmp(o->variants[k], v, eq - v) &&
				    !o->variants[k][eq - v])
					o->effect[k] = atof(eq + 1);
		} else
			die_input("unknown option %s\n%s", a, usage);
	}
	if (!o->dir || o->iterations < 1 || o->nvariants < 1 ||
	    o->boot_noise < 0 || o->cost_noise < 0)
		die_input("bad arguments\n%s", usage);
}

static json_t *lat_json(gsl_rng *rng, double median_ns, int samples)
{
	struct hist *h = xcalloc(1, sizeof(*h));
	json_t *counts = json_object(), *pc = json_object(), *lat;
	static const char *const pcts[] = { "50", "90", "99", "99.9", "99.99" };
	char key[16];
	unsigned int i;
	int k;

	hist_init(h);
	/* log-normal body with a slow tail: typical of IO latency */
	for (k = 0; k < samples; k++) {
		double v = median_ns * exp(gsl_ran_gaussian(rng, 0.4));

		if (gsl_rng_uniform(rng) < 0.003)
			v *= 5 + gsl_ran_exponential(rng, 10);
		hist_add(h, (uint64_t)v);
	}
	for (i = 0; i < HIST_BUCKETS; i++) {
		if (!h->counts[i])
			continue;
		snprintf(key, sizeof(key), "%u", i);
		json_object_set_new(counts, key, json_integer(h->counts[i]));
	}
	for (k = 0; k < 5; k++)
		json_object_set_new(pc, pcts[k], json_integer(
			hist_percentile(h, atof(pcts[k]))));
	lat = json_pack("{s:I,s:f,s:I,s:f,s:o,s:{s:i,s:o}}",
			"min", (json_int_t)h->min, "mean", hist_mean(h),
			"max", (json_int_t)h->max, "stddev", hist_stddev(h),
			"percentiles", pc, "hist", "bits", HIST_BITS,
			"counts", counts);
	free(h);
	return lat;
}

static json_t *metrics_json(int nops)
{
	static const char *const ops[] = { "read", "write" };
	json_t *m = json_array();
	char name[64];
	int i;

	for (i = 0; i < nops; i++) {
		snprintf(name, sizeof(name), "%s.ops_per_s", ops[i]);
		json_array_append_new(m, json_pack("{s:s,s:s,s:b}", "name",
			name, "unit", "ops/s", "higher_is_better", 1));
		snprintf(name, sizeof(name), "%s.lat_ns.p99", ops[i]);
		json_array_append_new(m, json_pack("{s:s,s:s,s:b}", "name",
			name, "unit", "ns", "higher_is_better", 0));
	}
	json_array_append_new(m, json_pack("{s:s,s:s,s:b}", "name",
		"read.lat_ns.p50", "unit", "ns", "higher_is_better", 0));
	json_array_append_new(m, json_pack("{s:s,s:s,s:b}", "name",
		"counters.short_reads", "unit", "count", "higher_is_better",
		0));
	return m;
}

/* the model's share of holes and cost factor per kind, of a variant */
static void mix_model(int model, double *hole_share, double *cost_mult)
{
	*hole_share = model == MIX_SHARE ? 0.5 : 0.2;
	*cost_mult = model == MIX_COST ? 1.5625 : 1;
}

static double mix_cycle_ns(int model)
{
	double sh, cm;

	mix_model(model, &sh, &cm);
	return MIX_OVERHEAD_NS + cm * (sh * mix_cost_ns[0] +
				       (1 - sh) * mix_cost_ns[1]);
}

/* ops[].kinds of count ops whose cycle (per op and thread) is cycle_ns */
static json_t *mix_kinds(int model, double count, double cycle_ns)
{
	double sh, cm, holes, f;

	mix_model(model, &sh, &cm);
	holes = round(count * sh);
	/* the model scaled to the op's rate: its noise falls on all alike */
	f = cycle_ns / mix_cycle_ns(model);
	return json_pack("{s:{s:I,s:I},s:{s:I,s:I}}",
		"hole", "count", (json_int_t)holes, "time_ns",
		(json_int_t)(holes * mix_cost_ns[0] * cm * f),
		"data", "count", (json_int_t)(count - holes), "time_ns",
		(json_int_t)((count - holes) * mix_cost_ns[1] * cm * f));
}

/* Per-thread op rates of the model, and instructions per op in cost mode. */
static const double per_thread[] = { 21000, 9000 };
static const double insn_per_op[] = { 52000, 118000 };

static json_t *result(const struct opts *o, gsl_rng *rng, int v, int t,
		      int it, bool cost)
{
	static const char *const ops[] = { "read", "write" };
	double scale = 1 + (o->effect_point < 0 || o->effect_point == t ?
			    o->effect[v] / 100 : 0);
	double boot = o->boot[cost][v * o->iterations + it - 1];
	int th = o->threads[t];
	json_t *j, *op, *oa = json_array();
	char rel[64];
	int k;

	for (k = 0; k < o->nops; k++) {
		/* more threads scale sub-linearly, as they do on 2 cpus */
		double rate = per_thread[k] * th / (1 + 0.3 * (th - 1)) * scale *
			      boot * (1 + gsl_ran_gaussian(rng, o->noise));
		double med, count;

		/* the work mix's model sets the rate: 1e9 / cycle a thread */
		if (o->mix[v] && !cost)
			rate *= mix_cycle_ns(MIX_SAME) / mix_cycle_ns(o->mix[v]);
		med = 1e9 * th / rate * 0.8;
		count = rate * 10;

		if (cost) {
			/*
			 * One virtual clock for all vCPUs: the point's rate is
			 * 1e9 / insn per op, counted over 10 s of it.
			 */
			rate = 1e9 / (insn_per_op[k] * (1 + 0.05 * (th - 1))) *
			       scale * boot *
			       (1 + gsl_ran_gaussian(rng, o->cost_noise));
			count = round(rate * 10);
			rate = count / 10;
			med = 1e9 * th / rate * 0.8;
		}
		if (o->mix[v] && !cost) {	/* whole ops, as counted */
			count = round(count);
			rate = count / 10;
		}
		op = json_pack("{s:s,s:I,s:f,s:f,s:o}",
			"name", ops[k], "count", (json_int_t)count,
			"ops_per_s", rate, "bytes_per_s", rate * 4096,
			"lat_ns", lat_json(rng, med, o->samples));
		if (o->mix[v] && !cost) {
			json_object_set_new(op, "threads", json_integer(th));
			json_object_set_new(op, "kinds", mix_kinds(o->mix[v],
					    count, 1e9 * th / rate));
		}
		json_array_append_new(oa, op);
	}
	snprintf(rel, sizeof(rel), "6.12.118-rl-%s", o->variants[v]);
	j = json_pack("{s:s,s:s,s:{s:i,s:s,s:i},s:i,s:f,s:f,"
		      "s:{s:s,s:s,s:s},s:{s:s,s:s,s:i,s:i,s:s,s:s,s:s},"
		      "s:o,s:{s:i},s:o,s:{s:b,s:i,s:i,s:n},s:s}",
		"schema", "rlbench-result/1", "workload", "dio",
		"params", "threads", th, "layout", "disjoint", "bs", 4096,
		"iteration", it, "runtime_s", 10.0, "ramp_s", 1.0,
		"kernel", "variant", o->variants[v], "release", rel,
		"strategy", o->variants[v],
		"env", "runner", "qemu", "accel", "tcg", "cpus", 2,
		"mem_mb", 2048, "fs", "ext4", "device", "virtio-blk",
		"started", "2026-12-03T08:00:00Z",
		"ops", oa, "counters", "short_reads", 0,
		"metrics", metrics_json(o->nops),
		"verify", "enabled", 1, "checked", 1000, "errors", 0,
		"first_error", "status", "ok");
	if (o->mix[v] && !cost)
		json_object_set_new(j, "workers", json_integer(th));
	if (o->mode)
		json_object_set_new(json_object_get(j, "env"), "mode",
				    json_string(cost ? "cost" : "time"));
	if (cost) {	/* runners/boot's cost guest: one vCPU, the disk on brd */
		json_object_set_new(json_object_get(j, "env"), "cpus",
				    json_integer(1));
		json_object_set_new(json_object_get(j, "env"), "device",
				    json_string("brd"));
	}
	return j;
}

/*
 * A boot's offset: every point and op it runs shares it (host drift, page
 * placement, boot-time layout), so it enters between boots, never within.
 * Drawn from a generator of its own: without --boot-noise the results are
 * those of earlier versions, byte for byte.
 */
static void boot_offsets(struct opts *o)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int m, i, n = o->nvariants * o->iterations;

	gsl_rng_set(rng, o->seed * 7919 + 17);
	for (m = 0; m < 2; m++) {
		o->boot[m] = xcalloc(n, sizeof(double));
		for (i = 0; i < n; i++)
			o->boot[m][i] = o->boot_noise > 0 && !m ?
				exp(gsl_ran_gaussian(rng, o->boot_noise)) : 1;
	}
	gsl_rng_free(rng);
}

static void mark_failed(json_t *j)
{
	json_object_set_new(j, "status", json_string("failed"));
	json_object_set_new(j, "error",
		json_string("verify: page 12 holds data older than the punch"));
	json_object_set_new(j, "log", json_string("console-1.log"));
}

static void write_json(const char *path, json_t *j, size_t flags)
{
	if (json_dump_file(j, path, flags | JSON_REAL_PRECISION(9)))
		die_input("%s: cannot write", path);
	json_decref(j);
}

/* Boots interleave: ABBA blocks over the variants, as the runner does. */
static void meta_order(const struct opts *o, json_t *meta)
{
	json_t *order = json_array();
	int it, k, v, m;

	for (it = 1; it <= o->iterations; it++)
		for (m = 0; m < 2; m++) {
			if ((!m && o->mode && !strcmp(o->mode, "cost")) ||
			    (m && (!o->mode || strcmp(o->mode, "time") == 0)))
				continue;
			for (k = 0; k < o->nvariants; k++) {
				v = it % 2 ? k : o->nvariants - 1 - k;
				json_array_append_new(order, json_pack(
					"{s:s,s:s,s:i}", "variant",
					o->variants[v], "mode", m ? "cost" :
					"time", "iteration", it));
			}
		}
	json_object_set_new(meta, "boot_order", order);
	json_object_set_new(meta, "seed", json_integer(o->seed));
	if (o->sequential) {
		json_object_set_new(meta, "iterations", json_string("auto"));
		json_object_set_new(meta, "max_iterations",
				    json_integer(o->sequential));
	}
}

/* The shape rlstat plan create writes for runners/run. */
static void write_meta(const struct opts *o)
{
	json_t *vs = json_array(), *meta;
	char rel[64];
	int v;

	for (v = 0; v < o->nvariants; v++) {
		snprintf(rel, sizeof(rel), "6.12.118-rl-%s", o->variants[v]);
		json_array_append_new(vs, json_pack("{s:s,s:s,s:s,s:s}",
			"name", o->variants[v], "release", rel,
			"config_sha256", "0123abcd", "accel", "tcg"));
	}
	meta = json_pack("{s:s,s:s,s:s,s:s,s:{s:s,s:b,s:s},"
				"s:{s:s,s:i,s:i,s:s},s:o,s:s,s:s}",
		"schema", "rlbench-meta/1", "name", o->name, "runner", "qemu",
		"matrix", "synthetic.matrix",
		"suite", "commit", "0123456789abcdef", "dirty", 0,
		"diff", "suite.diff",
		"host", "cpu_model", "Synthetic CPU @ 2.0GHz", "cpus", 2,
		"mem_mb", 24576, "kernel", "6.18.0",
		"variants", vs, "started", "2026-12-03T08:00:00Z",
		"ended", "2026-12-03T09:00:00Z");
	if (o->mode || o->boot_noise > 0 || o->sequential)
		meta_order(o, meta);
	if (o->stats_boot)	/* as rlstat plan create records it */
		json_object_set_new(meta, "stats_boot", json_pack("{s:b, s:s}",
				    "on", 1, "why", "rlsynth --stats-boot"));
	/* meta.json's one writer, as for a real run */
	plan_meta_write(o->dir, meta);
	json_decref(meta);
}

/*
 * --waits: the lock counters' mapping_lock monitor (runners/collect's
 * delta of /sys/kernel/debug/mapping_lock/stats) for a time result: a
 * variant of --mix ...=cost waits eight times as often and twenty times
 * as long as the others.
 */
static void write_waits(const struct opts *o, json_t *j, int v, int t,
			int it)
{
	bool more = o->mix[v] == MIX_COST;
	char *rel = xasprintf("%s/p%03d-dio-i%d.mapping_lock.json",
			      o->variants[v], t, it);
	char *p = xasprintf("%s/%s", o->dir, rel);

	write_json(p, json_pack("{s:I,s:I,s:I,s:I}", "stats.acquisitions",
		(json_int_t)400000, "stats.contended",
		(json_int_t)(more ? 8000 : 1000), "stats.wait_ns_total",
		(json_int_t)(more ? 200000000 : 10000000), "stats.wait_ns_max",
		(json_int_t)2000000), JSON_COMPACT);
	json_object_set_new(j, "monitors", json_pack("{s:s}", "mapping_lock",
						     rel));
	free(p);
	free(rel);
}

/*
 * --stats-boot V: each variant's stats boot (runners/run boots one on the
 * counting boot next to the timed boots): its results as
 * <point>-stats-i1, env.boot "stats", a tenth of the timed rates (the
 * counters' cost, exaggerated so that a rate of it read as a timed one
 * shows in every table), and its mapping_lock counters: V waits eight
 * times as often and twenty times as long as the others, its longest
 * wait 3 ms against 0.5 ms. A generator of its own: the timed results
 * are those of the same run without it, byte for byte.
 */
static void write_stats_boots(const struct opts *o)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	json_t *j, *op;
	char *rel, *p;
	size_t i;
	int v, t;

	gsl_rng_set(rng, o->seed + 7919);
	for (v = 0; v < o->nvariants; v++)
		for (t = 0; t < o->nthreads; t++) {
			bool more = !strcmp(o->variants[v], o->stats_boot);

			j = result(o, rng, v, t, 1, false);
			json_array_foreach(json_object_get(j, "ops"), i, op) {
				json_int_t n = json_integer_value(
					json_object_get(op, "count")) / 10;

				json_object_set_new(op, "count",
						    json_integer(n));
				json_object_set_new(op, "ops_per_s",
						    json_real(n / 10.0));
				json_object_set_new(op, "bytes_per_s",
						    json_real(n / 10.0 * 4096));
			}
			json_object_set_new(json_object_get(j, "env"), "boot",
					    json_string("stats"));
			rel = xasprintf("%s/p%03d-dio-stats-i1.mapping_lock"
					".json", o->variants[v], t);
			p = xasprintf("%s/%s", o->dir, rel);
			write_json(p, json_pack("{s:I,s:I,s:I,s:I}",
				"stats.acquisitions", (json_int_t)400000,
				"stats.contended",
				(json_int_t)(more ? 8000 : 1000),
				"stats.wait_ns_total",
				(json_int_t)(more ? 200000000 : 10000000),
				"stats.wait_ns_max_point",
				(json_int_t)(more ? 3000000 : 500000)),
				JSON_COMPACT);
			free(p);
			json_object_set_new(j, "monitors", json_pack("{s:s}",
					    "mapping_lock", rel));
			free(rel);
			p = xasprintf("%s/%s/p%03d-dio-stats-i1.result.json",
				      o->dir, o->variants[v], t);
			write_json(p, j, JSON_COMPACT);
			free(p);
		}
	gsl_rng_free(rng);
}

int main(int argc, char **argv)
{
	struct opts o;
	gsl_rng *rng;
	char *p, fv[64];
	int v, t, it, m, fp = -1, fi = -1;

	rl_gsl_handler_install();
	parse(argc, argv, &o);
	if (o.fail && sscanf(o.fail, "%63[^:]:%d:%d", fv, &fp, &fi) != 3)
		die_input("--fail %s: expected VARIANT:POINT:ITER", o.fail);
	if (mkdir(o.dir, 0777) && errno != EEXIST)
		die_input("%s: cannot create: %s", o.dir, strerror(errno));
	gsl_rng_env_setup();
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, o.seed);
	boot_offsets(&o);
	write_meta(&o);
	for (v = 0; v < o.nvariants; v++) {
		p = xasprintf("%s/%s", o.dir, o.variants[v]);
		if (mkdir(p, 0777) && errno != EEXIST)
			die_input("%s: cannot create: %s", p, strerror(errno));
		free(p);
		for (m = 0; m < 2; m++) {
			/* m = 1: cost mode, files p<N>-dio-cost-i<N> */
			if ((!m && o.mode && !strcmp(o.mode, "cost")) ||
			    (m && (!o.mode || !strcmp(o.mode, "time"))))
				continue;
			for (t = 0; t < o.nthreads; t++)
				for (it = 1; it <= o.iterations; it++) {
					json_t *j = result(&o, rng, v, t, it, m);

					if (o.fail && !strcmp(fv, o.variants[v]) &&
					    fp == t && fi == it)
						mark_failed(j);
					if (o.waits && !m)
						write_waits(&o, j, v, t, it);
					p = xasprintf("%s/%s/p%03d-dio%s-i%d."
						      "result.json", o.dir,
						      o.variants[v], t,
						      m ? "-cost" : "", it);
					write_json(p, j, JSON_COMPACT);
					free(p);
				}
		}
	}
	if (o.stats_boot)
		write_stats_boots(&o);
	gsl_rng_free(rng);
	return 0;
}
