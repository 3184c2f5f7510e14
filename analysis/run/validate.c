// SPDX-License-Identifier: GPL-2.0
/*
 * Schema checks for one result document (rlbench-result/1, pinned down
 * in docs/formats.md). Every problem is reported with the file name and
 * the reason; nothing is skipped.
 *
 * Names end up in file names, gnuplot scripts and HTML, so they are held
 * to the characters rlwork uses. Numbers are held to what rlwork can
 * write (counts are 64-bit integers, rates are count / runtime_s), which
 * also keeps every value inside the range the statistics compute on.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "run/run.h"

#define SCHEMA "rlbench-result/1"

/* rlwork accepts --runtime 0.01 to 86400 s; the window is never shorter */
#define RUNTIME_MIN	0.001
#define RUNTIME_MAX	1e6

static const char *const pct_keys[] = { "50", "90", "99", "99.9", "99.99" };
#define NPCT (sizeof(pct_keys) / sizeof(pct_keys[0]))

static char why_buf[512];

static const char *why(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static const char *why(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why_buf, sizeof(why_buf), fmt, ap);
	va_end(ap);
	return why_buf;
}

static bool is_str_or_null(json_t *v)
{
	return json_is_string(v) || json_is_null(v);
}

static bool is_count(json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0;
}

static bool is_nonneg(json_t *v)
{
	return json_is_number(v) && json_number_value(v) >= 0;
}

/*
 * 1..64 characters of [A-Za-z0-9_] plus those in extra, the first one
 * of [A-Za-z0-9_] (no "-x" option look-alike, no "." or "..").
 */
bool name_ok(const char *s, const char *extra)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz"
			  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

	if (!n)
		return false;

	while (s[n] && strchr(extra, s[n]))
		n += 1 + strspn(s + n + 1, "abcdefghijklmnopqrstuvwxyz"
				"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	return n && !s[n] && n <= 64;
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

static int pct_index(const char *key)
{
	size_t i;

	for (i = 0; i < NPCT; i++)
		if (!strcmp(key, pct_keys[i]))
			return i;
	return -1;
}

static const char *check_lat(const char *name, json_t *lat)
{
	static const char *const ints[] = { "min", "max" };
	static const char *const reals[] = { "mean", "stddev" };
	json_t *pc, *h, *v;
	const char *key;
	double prev = 0;
	size_t i;

	if (!json_is_object(lat))
		return why("op \"%s\": lat_ns is not an object", name);
	for (i = 0; i < 2; i++) {
		if (!is_count(json_object_get(lat, ints[i])))
			return why("op \"%s\": lat_ns.%s is not an integer "
				   "number of ns >= 0", name, ints[i]);
		if (!is_nonneg(json_object_get(lat, reals[i])))
			return why("op \"%s\": lat_ns.%s is not a number of ns "
				   ">= 0", name, reals[i]);
	}
	if (json_integer_value(json_object_get(lat, "min")) >
	    json_integer_value(json_object_get(lat, "max")))
		return why("op \"%s\": lat_ns.min is above lat_ns.max", name);
	pc = json_object_get(lat, "percentiles");
	if (!json_is_object(pc))
		return why("op \"%s\": lat_ns.percentiles is not an object",
			   name);
	json_object_foreach(pc, key, v) {
		if (pct_index(key) < 0)
			return why("op \"%s\": lat_ns.percentiles has "
				   "\"%.20s\"; accepted are \"50\", \"90\", "
				   "\"99\", \"99.9\", \"99.99\"", name, key);
		if (!is_count(v))
			return why("op \"%s\": lat_ns.percentiles.\"%s\" is "
				   "not an integer number of ns >= 0", name,
				   key);
	}
	/* a percentile never falls below a lower one of the same data */
	for (i = 0; i < NPCT; i++) {
		v = json_object_get(pc, pct_keys[i]);
		if (!v)
			continue;
		if (json_integer_value(v) < prev)
			return why("op \"%s\": lat_ns.percentiles.\"%s\" is "
				   "below a lower percentile", name,
				   pct_keys[i]);
		prev = json_integer_value(v);
	}
	h = json_object_get(lat, "hist");
	if (h) {
		struct lathist *lh = lathist_new();
		const char *w = NULL;
		int rc = lathist_add_json(lh, h, &w);

		lathist_free(lh);
		if (rc)
			return why("op \"%s\": %s", name, w);
	}
	return NULL;
}

static const char *check_op(json_t *op, double runtime, json_t *workers)
{
	json_t *lat;
	const char *name, *s;
	double rate, count, t = runtime > 0 ? runtime : 1;

	if (!json_is_object(op))
		return "ops[] entry is not an object";
	if (!json_is_string(json_object_get(op, "name")))
		return "ops[].name is not a string";
	name = json_string_value(json_object_get(op, "name"));
	if (!name_ok(name, ""))
		return why("op name \"%.64s\" is not 1-64 of [A-Za-z0-9_]",
			   name);
	if (!is_count(json_object_get(op, "count")))
		return why("op \"%s\": count is not an integer >= 0", name);
	if (!is_nonneg(json_object_get(op, "ops_per_s")))
		return why("op \"%s\": ops_per_s is not a number >= 0", name);
	if (!is_nonneg(json_object_get(op, "bytes_per_s")))
		return why("op \"%s\": bytes_per_s is not a number >= 0", name);
	/* threads that issued the op: optional, as old results lack it */
	if (json_object_get(op, "threads") &&
	    (!is_count(json_object_get(op, "threads")) || !workers ||
	     json_integer_value(json_object_get(op, "threads")) >
	     json_integer_value(workers)))
		return why("op \"%s\": threads is not an integer from 0 to "
			   "the document's workers", name);
	/* rlwork writes ops_per_s = count / runtime_s (1 s if it is 0) */
	rate = json_number_value(json_object_get(op, "ops_per_s"));
	count = json_integer_value(json_object_get(op, "count"));
	if (!(fabs(rate * t - count) <= 1 + 1e-9 * count))
		return why("op \"%s\": ops_per_s %g is not count / runtime_s "
			   "(%.0f / %g s)", name, rate, count, t);
	if (json_number_value(json_object_get(op, "bytes_per_s")) * t >
	    18446744073709551616.0)
		return why("op \"%s\": bytes_per_s %g over runtime_s %g s is "
			   "more than 2^64 bytes", name, json_number_value(
			   json_object_get(op, "bytes_per_s")), t);
	lat = json_object_get(op, "lat_ns");
	if (lat && (s = check_lat(name, lat)))
		return s;
	if ((s = wait_check(name, json_object_get(op, "wait_ns"),
			    json_object_get(op, "count"), lat)))
		return s;
	return kinds_check(name, json_object_get(op, "kinds"),
			   json_object_get(op, "count"));
}

/*
 * A document's ops[] or metrics[] by name: a jansson object name -> entry,
 * made on first use and kept in the document under a key that starts with
 * a NUL, which no JSON text loaded without JSON_ALLOW_NUL can hold. Every
 * lookup by name is then a hash lookup, and a result with thousands of
 * ops reads in time linear in its size (a scan per lookup made it
 * quadratic: 2000 ops took seconds). The first entry of a name wins, as
 * a scan from the start would find it.
 */
json_t *doc_index(json_t *doc, const char *arr)
{
	char key[16];
	int kl = snprintf(key, sizeof(key), "%c%s", 0, arr);
	json_t *ix = json_object_getn(doc, key, kl), *e;
	const char *n;
	size_t i;

	if (ix)
		return ix;
	ix = json_object();
	json_array_foreach(json_object_get(doc, arr), i, e) {
		n = json_string_value(json_object_get(e, "name"));
		if (n && !json_object_get(ix, n))
			json_object_set(ix, n, e);
	}
	json_object_setn_new(doc, key, kl, ix);
	return ix;
}

/*
 * The op a metric name refers to: the name is "<op>.<field>" and op names
 * hold no dot. *rest points after "<op>.".
 */
json_t *metric_op(json_t *doc, const char *metric, const char **rest)
{
	const char *dot = strchr(metric, '.');
	json_t *op;

	if (!dot)
		return NULL;
	op = json_object_getn(doc_index(doc, "ops"), metric, dot - metric);
	if (op)
		*rest = dot + 1;
	return op;
}

static const char *check_unit(const char *name, json_t *m, const char *unit,
			      bool hib)
{
	const char *u = json_string_value(json_object_get(m, "unit"));

	if (strcmp(u, unit))
		return why("metric \"%s\": unit \"%.20s\" is not \"%s\"", name,
			   u, unit);
	if (json_is_true(json_object_get(m, "higher_is_better")) != hib)
		return why("metric \"%s\": higher_is_better is not %s", name,
			   hib ? "true" : "false");
	return NULL;
}

static const char *check_metric(json_t *doc, json_t *m)
{
	const char *name, *rest;
	json_t *op, *pc;

	if (!json_is_object(m) || !json_is_string(json_object_get(m, "name")))
		return "metrics[] entry has no string \"name\"";
	name = json_string_value(json_object_get(m, "name"));
	if (strlen(name) > 128 || has_control(name))
		return "metrics[].name is not a metric name";
	if (!json_is_string(json_object_get(m, "unit")) ||
	    !name_ok(json_string_value(json_object_get(m, "unit")), "/%."))
		return why("metric \"%s\": unit is not a string of "
			   "[A-Za-z0-9_/%%.]", name);
	if (!json_is_boolean(json_object_get(m, "higher_is_better")))
		return why("metric \"%s\": higher_is_better is not a boolean",
			   name);
	if (!strncmp(name, "counters.", 9)) {
		if (!json_object_get(json_object_get(doc, "counters"),
				     name + 9))
			return why("metric \"%s\": no such number in counters",
				   name);
		return NULL;
	}
	op = metric_op(doc, name, &rest);
	if (!op)
		return why("metric \"%s\" names no op in ops[]", name);
	if (!strcmp(rest, "ops_per_s"))
		return check_unit(name, m, "ops/s", true);
	if (!strcmp(rest, "bytes_per_s"))
		return check_unit(name, m, "B/s", true);
	if (!strncmp(rest, "lat_ns.p", 8) && pct_index(rest + 8) >= 0) {
		pc = json_object_get(json_object_get(op, "lat_ns"),
				     "percentiles");
		if (!json_object_get(pc, rest + 8) &&
		    !json_object_get(json_object_get(op, "lat_ns"), "hist"))
			return why("metric \"%s\": op has neither that "
				   "percentile nor a histogram", name);
		return check_unit(name, m, "ns", false);
	}
	return why("metric \"%s\": accepted are <op>.ops_per_s, "
		   "<op>.bytes_per_s, <op>.lat_ns.p50|p90|p99|p99.9|p99.99, "
		   "counters.<name>", name);
}

static const char *check_verify(json_t *v)
{
	static const char *const counts[] = { "checked", "errors", "racy" };
	size_t i;

	if (!json_is_object(v))
		return "verify is not an object";
	if (!json_is_boolean(json_object_get(v, "enabled")))
		return "verify.enabled is not a boolean";
	for (i = 0; i < 3; i++) {
		json_t *c = json_object_get(v, counts[i]);

		if ((c || i < 2) && !is_count(c))
			return why("verify.%s is not an integer >= 0",
				   counts[i]);
	}
	if (json_object_get(v, "racy") &&
	    json_integer_value(json_object_get(v, "racy")) >
	    json_integer_value(json_object_get(v, "checked")))
		return "verify.racy is more than verify.checked";
	if (!is_str_or_null(json_object_get(v, "first_error")))
		return "verify.first_error is not a string or null";
	return NULL;
}

/*
 * The test system the report's header describes, as rlwork writes it: a
 * passing result has all three; a failed one (runners/fail-result) only
 * the --env pairs, and what it has is checked.
 */
static const char *check_env(json_t *env, bool failed)
{
	static const char *const counts[] = { "cpus", "mem_mb" };
	json_t *e;
	int i;

	for (i = 0; i < 2; i++) {
		e = json_object_get(env, counts[i]);
		if ((e || !failed) && (!json_is_integer(e) ||
				       json_integer_value(e) < 1 ||
				       json_integer_value(e) > INT_MAX))
			return why("env.%s is not an integer in 1..2147483647",
				   counts[i]);
	}
	e = json_object_get(env, "fs");
	if ((e || !failed) && (!json_is_string(e) ||
			       !name_ok(json_string_value(e), "-.")))
		return "env.fs is not a filesystem type, 1-64 of "
		       "[A-Za-z0-9_.-]";
	return NULL;
}

/* Fields every document has, failed or not. */
static const char *check_head(json_t *doc, bool *failed)
{
	json_t *v, *k, *e;
	const char *s, *key;

	s = json_string_value(json_object_get(doc, "schema"));
	if (!s || strcmp(s, SCHEMA))
		return why("schema is not \"%s\"", SCHEMA);
	s = json_string_value(json_object_get(doc, "status"));
	if (!s || (strcmp(s, "ok") && strcmp(s, "failed")))
		return "status is not \"ok\" or \"failed\"";
	*failed = !strcmp(s, "failed");
	if (*failed && !json_is_string(json_object_get(doc, "error")))
		return "status is \"failed\" but error is not a string";
	s = json_string_value(json_object_get(doc, "workload"));
	if (!s || !name_ok(s, "-"))
		return "workload is not 1-64 of [A-Za-z0-9_-]";
	v = json_object_get(doc, "params");
	if (!json_is_object(v))
		return "params is not an object";
	json_object_foreach(v, key, e) {
		if (!name_ok(key, "-"))
			return why("params key \"%.64s\" is not 1-64 of "
				   "[A-Za-z0-9_-]", key);
		if (!json_is_number(e) && !json_is_string(e) &&
		    !json_is_boolean(e))
			return why("params.%s is not a number, string or "
				   "boolean", key);
		if (json_is_string(e) && (has_control(json_string_value(e)) ||
					  strlen(json_string_value(e)) > 256))
			return why("params.%s is not a one-line string of at "
				   "most 256 bytes", key);
	}
	e = json_object_get(v, "threads");
	/* 0: a point without the role --threads counts (mmap-punch) */
	if (e && (!json_is_integer(e) || json_integer_value(e) < 0 ||
		  json_integer_value(e) > INT_MAX))
		return "params.threads is not an integer in 0..2147483647";
	v = json_object_get(doc, "iteration");
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > INT_MAX)
		return "iteration is not an integer in 1..2147483647";
	k = json_object_get(doc, "kernel");
	if (!json_is_object(k))
		return "kernel is not an object";
	if (!is_str_or_null(json_object_get(k, "variant")) ||
	    !is_str_or_null(json_object_get(k, "strategy")) ||
	    !json_is_string(json_object_get(k, "release")))
		return "kernel needs release (string), variant and strategy "
		       "(string or null)";
	v = json_object_get(k, "features");
	if (v && !json_is_null(v)) {
		size_t i;
		json_t *w;

		if (!json_is_array(v))
			return "kernel.features is not an array of strings "
			       "or null";
		json_array_foreach(v, i, w)
			if (!json_is_string(w))
				return "kernel.features is not an array of "
				       "strings or null";
	}
	v = json_object_get(doc, "env");
	if (!json_is_object(v))
		return "env is not an object";
	e = json_object_get(v, "mode");
	if (e && (!json_is_string(e) || (strcmp(json_string_value(e), "cost") &&
					 strcmp(json_string_value(e), "time"))))
		return "env.mode is not \"cost\" or \"time\"";
	return check_env(v, *failed);
}

/* NULL when doc is a valid result document, else the reason. */
const char *validate_doc(json_t *doc)
{
	json_t *v, *e, *w, *names;
	const char *s, *key;
	double runtime;
	size_t i;
	bool failed = false;

	if (!json_is_object(doc))
		return "top level is not a JSON object";
	if ((s = check_head(doc, &failed)))
		return s;
	/* a failed document may lack measurements; what it has is checked */
	v = json_object_get(doc, "runtime_s");
	if (!failed && (!json_is_number(v) ||
			json_number_value(v) < RUNTIME_MIN ||
			json_number_value(v) > RUNTIME_MAX))
		return "runtime_s is not a number of seconds in [0.001, 1e6]";
	if (v && !is_nonneg(v))
		return "runtime_s is not a number >= 0";
	runtime = json_number_value(v);
	v = json_object_get(doc, "ops");
	if (!failed && !json_array_size(v))
		return "ops is not a non-empty array";
	if (v && !json_is_array(v))
		return "ops is not an array";
	/* 0: a failed point whose threads never ran (rlwork --fail-result) */
	w = json_object_get(doc, "workers");
	if (w && (!json_is_integer(w) || json_integer_value(w) < !failed))
		return failed ? "workers is not an integer >= 0" :
				"workers is not an integer >= 1";
	names = json_object();
	json_array_foreach(v, i, e) {
		if ((s = check_op(e, runtime, w)))
			break;
		key = json_string_value(json_object_get(e, "name"));
		if (json_object_get(names, key)) {
			s = why("op \"%s\" appears twice in ops[]", key);
			break;
		}
		json_object_set_new(names, key, json_true());
	}
	json_decref(names);
	if (s)
		return s;
	v = json_object_get(doc, "counters");
	if (v && !json_is_object(v))
		return "counters is not an object";
	json_object_foreach(v, key, e) {
		if (!name_ok(key, ""))
			return why("counter name \"%.64s\" is not 1-64 of "
				   "[A-Za-z0-9_]", key);
		if (!is_count(e))
			return why("counters.%s is not an integer >= 0", key);
	}
	v = json_object_get(doc, "metrics");
	if (!failed && !json_array_size(v))
		return "metrics is not a non-empty array";
	if (v && !json_is_array(v))
		return "metrics is not an array";
	names = json_object();
	json_array_foreach(v, i, e) {
		if ((s = check_metric(doc, e)))
			break;
		key = json_string_value(json_object_get(e, "name"));
		if (json_object_get(names, key)) {
			s = why("metric \"%s\" appears twice in metrics[]",
				key);
			break;
		}
		json_object_set_new(names, key, json_true());
	}
	json_decref(names);
	if (s)
		return s;
	v = json_object_get(doc, "verify");
	if (v || !failed)
		return check_verify(v);
	return NULL;
}

/*
 * Every passing iteration of a point, in every variant, reports the same
 * ops and metrics: the set is a function of the options alone.
 */
static void same_names(const char *path, json_t *doc, const char *refpath,
		       json_t *ref, const char *arr, const char *what)
{
	json_t *e;
	size_t i;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		json_array_foreach(json_object_get(pass ? ref : doc, arr), i, e) {
			const char *n = json_string_value(json_object_get(e,
								"name"));

			if (json_object_get(doc_index(pass ? doc : ref, arr),
					    n))
				continue;
			die_input("%s: %s \"%s\" %s; %s, another passing "
				  "iteration of this point, %s it (accepted: "
				  "every iteration has the same %s)", path,
				  what, n, pass ? "missing" : "extra", refpath,
				  pass ? "has" : "lacks", arr);
		}
	}
}

void docs_same_names(const char *path, json_t *doc, const char *refpath,
		     json_t *ref)
{
	same_names(path, doc, refpath, ref, "ops", "op");
	same_names(path, doc, refpath, ref, "metrics", "metric");
}

/* Load and check one file; exits 2 with "<path>: <reason>" on error. */
json_t *load_result(const char *path)
{
	json_error_t err;
	struct stat st;
	json_t *doc;
	const char *w;

	rl_input = path;
	/* not a FIFO (the read would block), a directory or a dangling link */
	if (stat(path, &st)) {
		int e = errno;

		if (!lstat(path, &st) && S_ISLNK(st.st_mode))
			die_input("%s: a symbolic link to nothing; accepted is "
				  "a regular file", path);
		die_input("%s: cannot read: %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode))
		die_input("%s: a %s; accepted is a regular file", path,
			  S_ISDIR(st.st_mode) ? "directory" : "special file");
	doc = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
	if (!doc && err.position == 0 && err.line == -1)
		die_input("%s: cannot read: %s", path, err.text);
	if (!doc)
		die_input("%s: invalid JSON at line %d column %d: %s",
			  path, err.line, err.column, err.text);
	w = validate_doc(doc);
	if (w)
		die_input("%s: %s", path, w);
	return doc;
}

int validate_file(const char *path)
{
	json_decref(load_result(path));
	return 0;
}
