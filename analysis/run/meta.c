// SPDX-License-Identifier: GPL-2.0
/*
 * meta.json (rlbench-meta/1): the fields the report prints are checked
 * when the run is loaded, so the provenance lines never say "unknown"
 * about a run the runners wrote, and a run whose meta.json lost them is
 * refused rather than reported without its origin.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "run/run.h"

#define META_SCHEMA "rlbench-meta/1"

static void bad(const char *path, const char *what)
{
	die_input("%s: %s; accepted is meta.json (" META_SCHEMA ") as "
		  "runners/run and runners/bare write it", path, what);
}

static bool is_str(json_t *o, const char *key)
{
	return json_is_string(json_object_get(o, key));
}

static bool is_pos(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) && json_integer_value(v) > 0;
}

/* A variant's features (absent in runs from before them): names, once. */
static bool features_ok(json_t *fs)
{
	json_t *f, *g;
	size_t i, k;

	if (!fs)
		return true;
	if (!json_is_array(fs))
		return false;
	json_array_foreach(fs, i, f) {
		if (!json_is_string(f) || !name_ok(json_string_value(f), "-"))
			return false;
		for (k = 0; k < i; k++) {
			g = json_array_get(fs, k);
			if (json_equal(f, g))
				return false;
		}
	}
	return true;
}

/* whole: a finished run's, with its variants; else one being made */
static void check(const char *path, json_t *m, bool whole)
{
	json_t *host, *suite, *vs, *v, *w;
	const char *s;
	size_t i, k;

	if (!json_is_object(m))
		bad(path, "not a JSON object");
	s = json_string_value(json_object_get(m, "schema"));
	if (!s || strcmp(s, META_SCHEMA))
		bad(path, "schema is not \"" META_SCHEMA "\"");
	if (!is_str(m, "name") || !is_str(m, "matrix") || !is_str(m, "started"))
		bad(path, "name, matrix or started is not a string");
	v = json_object_get(m, "ended");
	if (!json_is_string(v) && !json_is_null(v))
		bad(path, "ended is not a string or null");
	suite = json_object_get(m, "suite");
	if (!is_str(suite, "commit") ||
	    !json_is_boolean(json_object_get(suite, "dirty")))
		bad(path, "suite is not {commit: string, dirty: boolean}");
	host = json_object_get(m, "host");
	if (!is_str(host, "cpu_model") || !is_pos(host, "cpus") ||
	    !is_pos(host, "mem_mb") || !is_str(host, "kernel"))
		bad(path, "host is not {cpu_model, kernel: string, cpus, "
		    "mem_mb: integer > 0}");
	vs = json_object_get(m, "variants");
	if (!json_is_array(vs) || (whole && !json_array_size(vs)))
		bad(path, whole ? "variants is not a non-empty array" :
		    "variants is not an array");
	json_array_foreach(vs, i, v) {
		s = json_string_value(json_object_get(v, "name"));
		if (!s || !name_ok(s, "-.+") || !is_str(v, "release"))
			bad(path, "a variants[] entry has no name of "
			    "[A-Za-z0-9_.+-] or no release string");
		w = json_object_get(v, "strategy");
		if (w && (!json_is_string(w) ||
			  !name_ok(json_string_value(w), "-")))
			bad(path, "a variants[] entry's strategy is not a "
			    "variant name of [A-Za-z0-9_-]");
		if (!features_ok(json_object_get(v, "features")))
			bad(path, "a variants[] entry's features is not an "
			    "array of feature names of [A-Za-z0-9_-], each "
			    "once");
		for (k = 0; k < i; k++) {
			w = json_array_get(vs, k);
			if (!strcmp(s, json_string_value(json_object_get(w,
							"name"))))
				bad(path, "a variant is listed twice");
		}
	}
	v = json_object_get(m, "skipped");
	if (v && !json_is_array(v))
		bad(path, "skipped is not an array");
	json_array_foreach(v, i, w)
		if (!is_str(w, "variant") || !is_str(w, "reason"))
			bad(path, "skipped[] is not {variant, reason: string}");
}

void meta_check(const char *path, json_t *m)
{
	check(path, m, true);
}

static json_t *load(const char *dir, bool whole)
{
	char *path = xasprintf("%s/meta.json", dir);
	json_error_t err;
	struct stat st;
	json_t *m;

	rl_input = path;
	if (stat(path, &st))
		bad(path, errno == ENOENT ? "missing" : strerror(errno));
	if (!S_ISREG(st.st_mode))
		bad(path, "not a regular file");
	m = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
	if (!m)
		die_input("%s: invalid JSON at line %d column %d: %s", path,
			  err.line, err.column, err.text);
	check(path, m, whole);
	return m;
}

/* <dir>/meta.json, checked: every run the runners write has one. */
json_t *meta_load(const char *dir)
{
	return load(dir, true);
}

/*
 * <dir>/meta.json of a run being made: checked as meta_load() does, but
 * its variants may be still to come (rlstat plan's edits before the
 * first kernel is built).
 */
json_t *meta_open(const char *dir)
{
	return load(dir, false);
}

/*
 * The variants meta.json lists are the variant directories holding
 * results: a listed variant without results is a run that lost them, a
 * directory of results meta.json does not list is not this run's.
 */
/* The variants[] entry of variant in meta.json, NULL if none. */
json_t *meta_variant(json_t *m, const char *variant)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(m, "variants"), i, v)
		if (!strcmp(variant, json_string_value(json_object_get(v,
							"name"))))
			return v;
	return NULL;
}

void meta_check_variants(const struct run *r, char **vdirs, const int *nres,
			 int nv)
{
	json_t *v;
	size_t i;
	int k;

	for (k = 0; k < nv; k++)
		if (nres[k] && !meta_variant(r->meta, vdirs[k]))
			die_input("%s/%s: results of variant \"%s\", which "
				  "%s/meta.json does not list in variants",
				  r->dir, vdirs[k], vdirs[k], r->dir);
	json_array_foreach(json_object_get(r->meta, "variants"), i, v) {
		const char *name = json_string_value(json_object_get(v,
								    "name"));

		for (k = 0; k < nv; k++)
			if (!strcmp(vdirs[k], name))
				break;
		if (k == nv || !nres[k])
			die_input("%s/%s: no *.result.json of variant \"%s\", "
				  "which meta.json lists; accepted is a run "
				  "with results of every variant it lists",
				  r->dir, name, name);
	}
}

static bool timed(const struct cell *g)
{
	return g && !strcmp(g->pt->mode, "time");
}

/* The number of boots most time-mode cells of @r have. */
static int modal_niter(const struct run *r)
{
	int i, j, best = -1, bestc = 0, c;

	for (i = 0; i < r->npoints * r->nvariants; i++) {
		if (!timed(r->cells[i]))
			continue;
		for (j = 0, c = 0; j < r->npoints * r->nvariants; j++)
			c += timed(r->cells[j]) &&
			     r->cells[j]->niter == r->cells[i]->niter;
		if (c > bestc) {
			bestc = c;
			best = r->cells[i]->niter;
		}
	}
	return best;
}

/*
 * meta.json "iterations": "auto": every time-mode point was looked at
 * after each round, the whole run is sequential. A number there means no
 * looks: a lost boot is data missing, not a look. Without either, a point
 * whose variants have unequal boots, or boots unlike most points', may
 * have been extended: that point alone is marked sequential (point->seq),
 * so one lost boot costs only the points it touches.
 */
bool run_is_sequential(const struct run *r, int *max_iter)
{
	json_t *it = r->meta ? json_object_get(r->meta, "iterations") : NULL;
	json_t *mx = r->meta ? json_object_get(r->meta, "max_iterations") :
			       NULL;
	int pt, v, mode;

	if (json_is_integer(mx) && json_integer_value(mx) >= 3)
		*max_iter = json_integer_value(mx);
	if (json_is_string(it) && !strcmp(json_string_value(it), "auto"))
		return true;
	if (json_is_integer(it))
		return false;
	mode = modal_niter(r);
	for (pt = 0; pt < r->npoints; pt++) {
		if (strcmp(r->points[pt]->mode, "time"))
			continue;
		for (v = 0; v < r->nvariants; v++) {
			const struct cell *g = run_cell(r, pt, v);

			if (g && g->niter != mode)
				r->points[pt]->seq = true;
		}
	}
	return false;
}
