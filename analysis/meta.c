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

#include "rlstat.h"
#include "input.h"

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

void meta_check(const char *path, json_t *m)
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
	if (!json_is_array(vs) || !json_array_size(vs))
		bad(path, "variants is not a non-empty array");
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

/* The variants[] entry of variant in meta.json, NULL if none. */
static json_t *meta_variant(json_t *m, const char *variant)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(m, "variants"), i, v)
		if (!strcmp(variant, json_string_value(json_object_get(v,
							"name"))))
			return v;
	return NULL;
}

static bool meta_lists(json_t *m, const char *variant)
{
	return meta_variant(m, variant);
}

/* Is feature f in the array fs? */
static bool has_feature(json_t *fs, json_t *f)
{
	json_t *g;
	size_t i;

	json_array_foreach(fs, i, g)
		if (json_equal(f, g))
			return true;
	return false;
}

/*
 * What each variant carries besides its lock (meta.json variants[]
 * .features, runners/run), baseline first; and, for every variant whose
 * features are not the baseline's, a line saying so: a difference the
 * reader would otherwise put down to the lock.  Runs from before
 * features record none, and get neither.
 */
void report_features(FILE *f, const struct run *r, int base)
{
	int *o = variant_order(r, base);
	json_t *b, *v, *fs, *bf, *x;
	const char *lead = "Features:    ", *sb, *sv;
	bool any = false, known = false;
	size_t k;
	int i;

	for (i = 0; r->meta && i < r->nvariants; i++) {
		fs = json_object_get(meta_variant(r->meta, r->variants[i]),
				     "features");
		known |= fs != NULL;
		any |= json_array_size(fs) > 0;
	}
	if (!known)
		goto out;
	if (!any) {
		fprintf(f, "%snone: the variants differ in the lock alone\n",
			lead);
		goto out;
	}
	for (i = 0; i < r->nvariants; i++) {
		fs = json_object_get(meta_variant(r->meta, r->variants[o[i]]),
				     "features");
		fprintf(f, "%s%-12s ", i ? "             " : lead,
			r->variants[o[i]]);
		if (!fs)
			fputs("not recorded", f);
		else if (!json_array_size(fs))
			fputs("none", f);
		json_array_foreach(fs, k, x)
			fprintf(f, "%s%s", k ? " " : "", json_string_value(x));
		fputc('\n', f);
	}
	b = meta_variant(r->meta, r->variants[base]);
	bf = json_object_get(b, "features");
	sb = json_string_value(json_object_get(b, "strategy"));
	for (i = 1; bf && i < r->nvariants; i++) {
		v = meta_variant(r->meta, r->variants[o[i]]);
		fs = json_object_get(v, "features");
		sv = json_string_value(json_object_get(v, "strategy"));
		if (!fs || json_equal(fs, bf))
			continue;
		fprintf(f, "Note:        %s differs from %s %s:",
			r->variants[o[i]], r->variants[base],
			sb && sv && !strcmp(sb, sv) ? "only in" :
			"in the lock and in");
		json_array_foreach(fs, k, x)
			if (!has_feature(bf, x))
				fprintf(f, " %s", json_string_value(x));
		json_array_foreach(bf, k, x)
			if (!has_feature(fs, x))
				fprintf(f, " no %s", json_string_value(x));
		fputc('\n', f);
	}
out:
	free(o);
}

static void put_scalar(char *buf, size_t len, json_t *v, const char *suffix)
{
	size_t l = strlen(buf);

	if (!v || l + 2 >= len)
		return;
	if (l)
		snprintf(buf + l, len - l, ", ");
	l = strlen(buf);
	if (json_is_string(v))
		snprintf(buf + l, len - l, "%s%s", json_string_value(v),
			 suffix);
	else if (json_is_integer(v))
		snprintf(buf + l, len - l, "%lld%s",
			 (long long)json_integer_value(v), suffix);
	else if (json_is_real(v))
		snprintf(buf + l, len - l, "%g%s", json_real_value(v), suffix);
}

/* the guest the results ran in; its mode named when the run had two */
static void test_system_line(FILE *f, const char *lead, json_t *env,
			     json_t *other)
{
	char buf[256];

	buf[0] = 0;
	put_scalar(buf, sizeof(buf), json_object_get(env, "runner"), "");
	put_scalar(buf, sizeof(buf), json_object_get(env, "cpus"), " cpus");
	put_scalar(buf, sizeof(buf), json_object_get(env, "mem_mb"), " MiB");
	put_scalar(buf, sizeof(buf), json_object_get(env, "fs"), "");
	put_scalar(buf, sizeof(buf), json_object_get(env, "device"), "");
	fprintf(f, "%s%s", lead, *buf ? buf : "unknown");
	if (other)
		fprintf(f, " (%s mode)", json_string_value(json_object_get(env,
			"mode")) ?: "unnamed");
	fputc('\n', f);
}

void report_meta_lines(FILE *f, const struct run *r)
{
	json_t *m = r->meta, *host = json_object_get(m, "host");
	json_t *suite = json_object_get(m, "suite");
	json_t *a = r->env, *b = r->env_other;
	const char *mode;
	char buf[256];

	buf[0] = 0;
	put_scalar(buf, sizeof(buf), json_object_get(host, "cpu_model"), "");
	put_scalar(buf, sizeof(buf), json_object_get(host, "cpus"), " cpus");
	put_scalar(buf, sizeof(buf), json_object_get(host, "mem_mb"), " MiB");
	put_scalar(buf, sizeof(buf), json_object_get(host, "kernel"), "");
	fprintf(f, "Machine:     %s\n", buf);
	if (b && (mode = json_string_value(json_object_get(a, "mode"))) &&
	    !strcmp(mode, "cost")) {	/* in the order of the sections */
		a = r->env_other;
		b = r->env;
	}
	test_system_line(f, "Test system: ", a, b);
	if (b)
		test_system_line(f, "             ", b, a);
	fprintf(f, "Suite:       %s%s\n",
		json_string_value(json_object_get(suite, "commit")),
		json_is_true(json_object_get(suite, "dirty")) ?
		" (with local changes)" : "");
	buf[0] = 0;
	put_scalar(buf, sizeof(buf), json_object_get(m, "matrix"), "");
	put_scalar(buf, sizeof(buf), json_object_get(m, "started"), "");
	if (json_is_string(json_object_get(m, "ended")))
		put_scalar(buf, sizeof(buf), json_object_get(m, "ended"), "");
	else
		strncat(buf, ", not ended", sizeof(buf) - strlen(buf) - 1);
	fprintf(f, "Matrix:      %s\n", buf);
}

/*
 * Why ITERATIONS=auto added no further rounds (meta.json "auto_stop",
 * written by runners/run): a budget that ran out leaves points the data
 * could still have decided, and the reader should know that.
 */
const char *report_auto_stop(const struct run *r, char *buf, size_t len)
{
	json_t *a = json_object_get(r->meta, "auto_stop");
	const char *rule = json_string_value(json_object_get(a, "rule"));
	size_t n = json_array_size(json_object_get(a, "undecided"));
	json_int_t b = json_integer_value(json_object_get(r->meta, "budget_s"));
	char bs[32];

	if (!rule)
		return NULL;
	if (b <= 0)
		snprintf(bs, sizeof(bs), "?");
	else if (b % 60)
		snprintf(bs, sizeof(bs), "%lld s", (long long)b);
	else
		snprintf(bs, sizeof(bs), "%lld min", (long long)b / 60);
	if (!strcmp(rule, "budget"))
		snprintf(buf, len, "auto: the budget (%s) left no time for the "
			 "next round; %zu point%s undecided", bs, n,
			 n == 1 ? "" : "s");
	else if (!strcmp(rule, "max_iterations"))
		snprintf(buf, len, "auto: max_iterations reached");
	else if (!strcmp(rule, "decided"))
		snprintf(buf, len, "auto: every point decided");
	else
		return NULL;
	return buf;
}

/* <dir>/meta.json, checked: every run the runners write has one. */
json_t *meta_load(const char *dir)
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
	meta_check(path, m);
	return m;
}

/*
 * The variants meta.json lists are the variant directories holding
 * results: a listed variant without results is a run that lost them, a
 * directory of results meta.json does not list is not this run's.
 */
void meta_check_variants(const struct run *r, char **vdirs, const int *nres,
			 int nv)
{
	json_t *v;
	size_t i;
	int k;

	for (k = 0; k < nv; k++)
		if (nres[k] && !meta_lists(r->meta, vdirs[k]))
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
