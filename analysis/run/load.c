// SPDX-License-Identifier: GPL-2.0
/*
 * Read a run directory (<run>/<variant>/<point>-i<N>.result.json) into points
 * (workload + params), variants and per-cell metric values.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/run.h"

static char *params_string(json_t *params, bool skip_threads)
{
	const char *k;
	json_t *v;
	char *s = xstrdup(""), *t, *val;

	json_object_foreach(params, k, v) {
		if (skip_threads && !strcmp(k, "threads"))
			continue;
		if (json_is_string(v))
			val = xstrdup(json_string_value(v));
		else
			val = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		t = xasprintf("%s%s%s=%s", s, *s ? " " : "", k, val);
		free(val);
		free(s);
		s = t;
	}
	return s;
}

static enum metric_kind metric_kind(json_t *doc, const char *name,
			      struct metric_def *d)
{
	const char *rest;
	json_t *op;

	if (!strncmp(name, "counters.", 9)) {
		d->counter = xstrdup(name + 9);
		return METRIC_COUNTER;
	}
	op = metric_op(doc, name, &rest);
	d->op = xstrdup(json_string_value(json_object_get(op, "name")));
	if (!strcmp(rest, "ops_per_s"))
		return METRIC_OPS;
	if (!strcmp(rest, "bytes_per_s"))
		return METRIC_BYTES;
	d->pct = xstrdup(rest + 8);
	return METRIC_LAT;
}

static void point_add_metrics(struct point *pt, struct doc *dc)
{
	json_t *ms = json_object_get(dc->j, "metrics"), *m;
	size_t i;
	json_t *k;

	if (!pt->defix)
		pt->defix = json_object();
	json_array_foreach(ms, i, m) {
		const char *name = json_string_value(json_object_get(m, "name"));
		const char *unit = json_string_value(json_object_get(m, "unit"));
		bool hib = json_is_true(json_object_get(m, "higher_is_better"));
		struct metric_def *d;

		if ((k = json_object_get(pt->defix, name))) {
			d = &pt->defs[json_integer_value(k)];
			if (strcmp(d->unit, unit) || d->higher_is_better != hib)
				die_input("%s: metric \"%s\" has unit/direction "
					  "different from other results of "
					  "this point", dc->path, name);
			continue;
		}
		pt->defs = realloc(pt->defs, (pt->ndefs + 1) * sizeof(*d));
		if (!pt->defs)
			die_input("out of memory");
		json_object_set_new(pt->defix, name, json_integer(pt->ndefs));
		d = &pt->defs[pt->ndefs++];
		memset(d, 0, sizeof(*d));
		d->name = xstrdup(name);
		d->unit = xstrdup(unit);
		d->higher_is_better = hib;
		d->kind = metric_kind(dc->j, name, d);
	}
}

static int find_point(struct run *r, struct doc *dc)
{
	json_t *params = json_object_get(dc->j, "params"), *th;
	json_t *md = json_object_get(json_object_get(dc->j, "env"), "mode");
	const char *mode = json_is_string(md) ? json_string_value(md) : "time";
	char *ps = json_dumps(params, JSON_SORT_KEYS | JSON_COMPACT);
	char *key;
	struct point *pt;
	int i;

	if (md && strcmp(mode, "cost") && strcmp(mode, "time"))
		die_input("%s: env.mode must be \"cost\" or \"time\"",
			  dc->path);
	/* the same params in cost and time mode are different points */
	key = xasprintf("%s %s%s",
		json_string_value(json_object_get(dc->j, "workload")), ps,
		strcmp(mode, "cost") ? "" : " mode=cost");
	free(ps);
	for (i = 0; i < r->npoints; i++)
		if (!strcmp(r->points[i]->key, key)) {
			free(key);
			return i;
		}
	pt = xcalloc(1, sizeof(*pt));
	pt->key = key;
	pt->label = xstrdup(dc->label);
	pt->mode = xstrdup(mode);
	pt->workload = xstrdup(json_string_value(json_object_get(dc->j,
							      "workload")));
	pt->params = json_incref(params);
	pt->params_str = params_string(params, false);
	pt->params_nothreads = params_string(params, true);
	th = json_object_get(params, "threads");
	pt->threads = json_is_integer(th) ? (int)json_integer_value(th) : -1;
	r->points = realloc(r->points, (r->npoints + 1) * sizeof(pt));
	if (!r->points)
		die_input("out of memory");
	r->points[r->npoints] = pt;
	return r->npoints++;
}

static int point_cmp(const void *a, const void *b)
{
	const struct point *x = *(struct point *const *)a;
	const struct point *y = *(struct point *const *)b;
	int c = strcmp(x->label, y->label);

	return c ? c : strcmp(x->key, y->key);
}

int run_variant_index(const struct run *r, const char *name)
{
	int i;

	for (i = 0; i < r->nvariants; i++)
		if (!strcmp(r->variants[i], name))
			return i;
	return -1;
}

int run_point_index(const struct run *r, const char *key)
{
	int i;

	for (i = 0; i < r->npoints; i++)
		if (!strcmp(r->points[i]->key, key))
			return i;
	return -1;
}

struct cell *run_cell(const struct run *r, int point, int variant)
{
	return r->cells[point * r->nvariants + variant];
}

static struct cell *group_get(struct run *r, struct doc *dc)
{
	struct cell **g = &r->cells[dc->point * r->nvariants +
				      dc->variant_idx];
	struct point *pt = r->points[dc->point];

	if (!*g) {
		*g = xcalloc(1, sizeof(**g));
		(*g)->variant = r->variants[dc->variant_idx];
		(*g)->pt = pt;
		(*g)->nm = pt->ndefs;
		(*g)->m = xcalloc(pt->ndefs, sizeof(*(*g)->m));
	}
	return *g;
}

static void push_val(struct cell_metric *gm, double v)
{
	gm->vals = realloc(gm->vals, (gm->nvals + 1) * sizeof(double));
	if (!gm->vals)
		die_input("out of memory");
	gm->vals[gm->nvals++] = v;
}

static struct lathist *group_ophist(struct cell *g, const char *op)
{
	json_t *i;

	if (!g->opix)
		g->opix = json_object();
	if ((i = json_object_get(g->opix, op)))
		return g->ophist[json_integer_value(i)];
	json_object_set_new(g->opix, op, json_integer(g->nops));
	g->opname = realloc(g->opname, (g->nops + 1) * sizeof(char *));
	g->ophist = realloc(g->ophist, (g->nops + 1) * sizeof(void *));
	if (!g->opname || !g->ophist)
		die_input("out of memory");
	g->opname[g->nops] = xstrdup(op);
	g->ophist[g->nops] = lathist_new();
	return g->ophist[g->nops++];
}

/* One iteration's value of a metric; latency from its own histogram. */
static double doc_value(struct doc *dc, struct cell *g,
			struct cell_metric *gm)
{
	const struct metric_def *d = gm->def;
	json_t *op = NULL, *v = NULL, *lat, *h;
	struct lathist *lh;
	const char *w;
	double x;

	if (d->kind == METRIC_COUNTER)
		v = json_object_get(json_object_get(dc->j, "counters"),
				    d->counter);
	else if (!(op = json_object_get(doc_index(dc->j, "ops"),
					   d->op)))
		die_input("%s: op \"%s\" (metric %s) missing; other results of "
			  "this point have it", dc->path, d->op, d->name);
	if (d->kind == METRIC_OPS)
		v = json_object_get(op, "ops_per_s");
	else if (d->kind == METRIC_BYTES)
		v = json_object_get(op, "bytes_per_s");
	if (d->kind != METRIC_LAT) {
		if (!json_is_number(v))
			die_input("%s: metric %s missing", dc->path, d->name);
		/* a rate is count / runtime: resolution 1 / count of itself */
		x = json_number_value(json_object_get(op, "count"));
		if (op && x > 0 && 1 / x > gm->quantum)
			gm->quantum = 1 / x;
		return json_number_value(v);
	}
	lat = json_object_get(op, "lat_ns");
	h = json_object_get(lat, "hist");
	if (h && dc->hop != op) {
		lathist_free(dc->hlh);
		dc->hlh = lathist_new();
		dc->hop = op;
		if (lathist_add_json(dc->hlh, h, &w))
			die_input("%s: %s", dc->path, w);
	}
	if (h) {
		lh = dc->hlh;
		if (lathist_total(lh)) {
			if (lathist_total(lh) > INT64_MAX - gm->htotal)
				die_input("%s: metric %s: histogram counts "
					  "over the iterations add up to more "
					  "than 2^63 - 1", dc->path, d->name);
			gm->htotal += lathist_total(lh);
			return lathist_percentile(lh, atof(d->pct));
		}
	}
	(void)g;
	v = json_object_get(json_object_get(lat, "percentiles"), d->pct);
	if (!json_is_number(v))
		die_input("%s: metric %s: no histogram counts and no "
			  "lat_ns.percentiles.\"%s\"", dc->path, d->name,
			  d->pct);
	return json_number_value(v);
}

/* Some op issued by fewer than all of the run's threads (validate.c). */
static bool has_roles(json_t *doc)
{
	json_t *w = json_object_get(doc, "workers"), *op, *t;
	size_t i;

	json_array_foreach(json_object_get(doc, "ops"), i, op) {
		t = json_object_get(op, "threads");
		if (w && t && json_integer_value(t) < json_integer_value(w))
			return true;
	}
	return false;
}

static void add_op_hists(struct doc *dc, struct cell *g)
{
	json_t *op, *h;
	const char *w;
	size_t i;

	json_array_foreach(json_object_get(dc->j, "ops"), i, op) {
		/* the report's wide request waits (mix.c) read it again */
		g->wide |= json_object_get(op, "wait_ns") != NULL;
		h = json_object_get(json_object_get(op, "lat_ns"), "hist");
		if (!h)
			continue;
		if (lathist_add_json(group_ophist(g, json_string_value(
				json_object_get(op, "name"))), h, &w))
			die_input("%s: %s", dc->path, w);
	}
}

static void add_doc(struct run *r, struct doc *dc, int **seen, int *nseen)
{
	struct cell *g = group_get(r, dc);
	int gi = dc->point * r->nvariants + dc->variant_idx;
	int it = json_integer_value(json_object_get(dc->j, "iteration"));
	json_t *verr;
	bool failed, idle;
	int i, mr;

	for (i = 0; i < nseen[gi]; i++)
		if (seen[gi][i] == it)
			die_input("%s: iteration %d of %s/%s appears twice",
				  dc->path, it, dc->variant,
				  r->points[dc->point]->label);
	seen[gi] = realloc(seen[gi], (nseen[gi] + 1) * sizeof(int));
	seen[gi][nseen[gi]++] = it;
	g->niter++;
	if (!g->release)
		g->release = xstrdup(json_string_value(json_object_get(
			json_object_get(dc->j, "kernel"), "release")));
	if (!g->accel && json_is_string(json_object_get(
			json_object_get(dc->j, "env"), "accel")))
		g->accel = xstrdup(json_string_value(json_object_get(
			json_object_get(dc->j, "env"), "accel")));
	verr = json_object_get(json_object_get(dc->j, "verify"), "errors");
	for (i = 0, mr = -1; i < g->nm; i++) {
		g->m[i].def = &r->points[dc->point]->defs[i];
		mr = mr < 0 && g->m[i].def->kind == METRIC_OPS ? i : mr;
	}
	failed = !strcmp(json_string_value(json_object_get(dc->j, "status")),
			 "failed");
	/* no work done says nothing of speed, and a 0 turns the row linear */
	idle = !failed && mr >= 0 && !(doc_value(dc, g, &g->m[mr]) > 0);
	if (failed || idle ||
	    (json_is_integer(verr) && json_integer_value(verr) > 0)) {
		g->nfailed++;
		if (!g->first_error) {
			json_t *e = json_object_get(dc->j, "error");

			g->first_error = xasprintf("%s: %s", dc->path,
				idle ? "status \"ok\" but its main rate (the "
				"first op's ops_per_s) is 0: a boot that did no "
				"work is a failed point" : json_is_string(e) ?
				json_string_value(e) : "verification errors");
		}
		return;
	}
	for (i = 0; i < g->nm; i++)
		push_val(&g->m[i], doc_value(dc, g, &g->m[i]));
	lathist_free(dc->hlh);
	dc->hlh = NULL;
	dc->hop = NULL;
	add_op_hists(dc, g);
	g->roles |= has_roles(dc->j);
}

static void group_finish(struct cell *g, double conf)
{
	struct cell_metric *gm;
	bool rate;
	int i;

	for (i = 0; i < g->nm; i++) {
		gm = &g->m[i];
		if (!gm->def)
			gm->def = &g->pt->defs[i];
		rate = gm->def->kind == METRIC_OPS || gm->def->kind == METRIC_BYTES;
		stat_summary(gm->vals, gm->nvals, rate, conf, &gm->s);
		gm->value = gm->s.mean;
		/* the op's histogram merged over the iterations: one copy
		 * per op however many of its percentiles are metrics */
		if (gm->def->kind == METRIC_LAT && gm->htotal)
			gm->hist = g->ophist[json_integer_value(
				json_object_get(g->opix, gm->def->op))];
		if (gm->hist && lathist_total(gm->hist))
			gm->value = lathist_percentile(gm->hist,
						       atof(gm->def->pct));
	}
}

/*
 * One label, one point: measured results of p000-dio whose workload or
 * params differ are a broken run, never two points of the same name.
 * ref[k]: 1 + the first passing document of point k, 0 if none yet.
 */
static void same_label(struct run *r, const int *ref, struct doc *d, int k)
{
	const struct point *p = r->points[k], *q;
	int i;

	for (i = 0; i < r->npoints; i++) {
		q = r->points[i];
		if (i == k || !ref[i] || strcmp(q->label, p->label) ||
		    strcmp(q->mode, p->mode))
			continue;
		die_input("%s: workload or params differ from %s, another "
			  "result of point %s (accepted: every result of a "
			  "point has the same workload and params)",
			  d[ref[k] - 1].path, d[ref[i] - 1].path, p->label);
	}
}

/* a MODE=both run has two test systems: the header names both */
static void note_env(struct run *r, json_t *env)
{
	const char *mode = json_string_value(json_object_get(env, "mode"));

	if (!r->env)
		r->env = json_incref(env);
	else if (!r->env_other && mode &&
		 strcmp(mode, json_string_value(json_object_get(r->env,
				"mode")) ?: ""))
		r->env_other = json_incref(env);
}

struct run *run_load(const char *dir, double conf)
{
	static char *loaded;
	DIR *d;
	struct run *r = xcalloc(1, sizeof(*r));
	struct docs ds = { 0 };
	struct point **orig;
	int i, k, **seen, *nseen, *ref;

	r->dir = xstrdup(dir);
	d = opendir(dir);	/* a run directory before its meta.json */
	if (!d)
		die_input("%s: cannot open directory: %s (expected a run "
			  "directory results/<run>)", dir, strerror(errno));
	closedir(d);
	r->meta = meta_load(dir);
	load_docs(r, &ds);
	r->nfiles = ds.n;
	ref = xcalloc(ds.n, sizeof(*ref));
	for (i = 0; i < ds.n; i++) {
		if (run_variant_index(r, ds.d[i].variant) < 0) {
			r->variants = realloc(r->variants,
				(r->nvariants + 1) * sizeof(char *));
			r->variants[r->nvariants++] = ds.d[i].variant;
		}
		ds.d[i].point = find_point(r, &ds.d[i]);
		note_env(r, json_object_get(ds.d[i].j, "env"));
		if (strcmp(json_string_value(json_object_get(ds.d[i].j,
				"status")), "ok"))
			continue;
		k = ds.d[i].point;
		if (ref[k]) {
			docs_same_names(ds.d[i].path, ds.d[i].j,
					ds.d[ref[k] - 1].path,
					ds.d[ref[k] - 1].j);
		} else {
			ref[k] = i + 1;
			same_label(r, ref, ds.d, k);
		}
		point_add_metrics(r->points[k], &ds.d[i]);
	}
	free(ref);
	qsort(r->variants, r->nvariants, sizeof(char *), variant_cmp);
	orig = xcalloc(r->npoints, sizeof(*orig));
	memcpy(orig, r->points, r->npoints * sizeof(*orig));
	qsort(r->points, r->npoints, sizeof(*orig), point_cmp);
	r->cells = xcalloc(r->npoints * r->nvariants, sizeof(*r->cells));
	seen = xcalloc(r->npoints * r->nvariants, sizeof(*seen));
	nseen = xcalloc(r->npoints * r->nvariants, sizeof(*nseen));
	for (i = 0; i < ds.n; i++) {
		for (k = 0; k < r->npoints; k++)
			if (r->points[k] == orig[ds.d[i].point])
				break;
		ds.d[i].point = k;
		ds.d[i].variant_idx = run_variant_index(r, ds.d[i].variant);
		add_doc(r, &ds.d[i], seen, nseen);
	}
	for (i = 0; i < r->npoints * r->nvariants; i++) {
		struct cell *g = r->cells[i];

		if (g) {
			rl_input = xasprintf("%s/%s/%s%s-i*.result.json",
				dir, g->variant, g->pt->label,
				strcmp(g->pt->mode, "cost") ? "" : "-cost");
			group_finish(g, conf);
		}
		free(seen[i]);
	}
	/* what a GSL error after loading names: every run loaded */
	loaded = loaded ? xasprintf("%s and %s", loaded, dir) : xstrdup(dir);
	rl_input = loaded;
	for (i = 0; i < ds.n; i++) {
		json_decref(ds.d[i].j);
		free(ds.d[i].path);
		free(ds.d[i].label);
	}
	free(seen);
	free(nseen);
	free(orig);
	free(ds.d);
	return r;
}
