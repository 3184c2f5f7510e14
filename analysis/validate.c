// SPDX-License-Identifier: GPL-2.0
/*
 * Schema checks for one result document (rlbench-result/1, pinned down
 * in docs/formats.md). Every problem is reported with the file name and
 * the reason; nothing is skipped.
 */
#include <stdio.h>
#include <string.h>

#include "rlstat.h"

#define SCHEMA "rlbench-result/1"

static char why_buf[256];

static const char *why(const char *fmt, const char *arg)
{
	snprintf(why_buf, sizeof(why_buf), fmt, arg);
	return why_buf;
}

static bool is_str_or_null(json_t *v)
{
	return json_is_string(v) || json_is_null(v);
}

static const char *check_op(json_t *op)
{
	json_t *lat, *pc, *h;
	const char *name;

	if (!json_is_object(op))
		return "ops[] entry is not an object";
	if (!json_is_string(json_object_get(op, "name")))
		return "ops[].name is not a string";
	name = json_string_value(json_object_get(op, "name"));
	if (!json_is_integer(json_object_get(op, "count")) ||
	    json_integer_value(json_object_get(op, "count")) < 0)
		return why("op \"%s\": count is not an integer >= 0", name);
	if (!json_is_number(json_object_get(op, "ops_per_s")) ||
	    json_number_value(json_object_get(op, "ops_per_s")) < 0)
		return why("op \"%s\": ops_per_s is not a number >= 0", name);
	if (!json_is_number(json_object_get(op, "bytes_per_s")) ||
	    json_number_value(json_object_get(op, "bytes_per_s")) < 0)
		return why("op \"%s\": bytes_per_s is not a number >= 0", name);
	lat = json_object_get(op, "lat_ns");
	if (!lat)
		return NULL;
	if (!json_is_object(lat))
		return why("op \"%s\": lat_ns is not an object", name);
	pc = json_object_get(lat, "percentiles");
	if (pc && !json_is_object(pc))
		return why("op \"%s\": lat_ns.percentiles is not an object",
			   name);
	h = json_object_get(lat, "hist");
	if (h) {
		struct lathist *lh = lathist_new();
		const char *w = NULL;
		int rc = lathist_add_json(lh, h, &w);

		lathist_free(lh);
		if (rc) {
			snprintf(why_buf, sizeof(why_buf), "op \"%s\": %s",
				 name, w);
			return why_buf;
		}
	}
	return NULL;
}

/* Find the op a metric name refers to; *rest points after "<op>.". */
json_t *metric_op(json_t *doc, const char *metric, const char **rest)
{
	json_t *ops = json_object_get(doc, "ops"), *op;
	size_t i, l;

	json_array_foreach(ops, i, op) {
		const char *n = json_string_value(json_object_get(op, "name"));

		if (!n)
			continue;
		l = strlen(n);
		if (!strncmp(metric, n, l) && metric[l] == '.') {
			*rest = metric + l + 1;
			return op;
		}
	}
	return NULL;
}

static const char *check_metric(json_t *doc, json_t *m)
{
	const char *name, *rest;
	json_t *op, *pc, *c;

	if (!json_is_object(m) || !json_is_string(json_object_get(m, "name")))
		return "metrics[] entry has no string \"name\"";
	name = json_string_value(json_object_get(m, "name"));
	if (!json_is_string(json_object_get(m, "unit")))
		return why("metric \"%s\": unit is not a string", name);
	if (!json_is_boolean(json_object_get(m, "higher_is_better")))
		return why("metric \"%s\": higher_is_better is not a boolean",
			   name);
	if (!strncmp(name, "counters.", 9)) {
		c = json_object_get(json_object_get(doc, "counters"), name + 9);
		if (!json_is_number(c))
			return why("metric \"%s\": no such number in counters",
				   name);
		return NULL;
	}
	op = metric_op(doc, name, &rest);
	if (!op)
		return why("metric \"%s\" names no op in ops[]", name);
	if (!strcmp(rest, "ops_per_s") || !strcmp(rest, "bytes_per_s"))
		return NULL;
	if (!strncmp(rest, "lat_ns.p", 8)) {
		pc = json_object_get(json_object_get(op, "lat_ns"),
				     "percentiles");
		if (json_is_number(json_object_get(pc, rest + 8)) ||
		    json_object_get(json_object_get(op, "lat_ns"), "hist"))
			return NULL;
		return why("metric \"%s\": op has neither that percentile "
			   "nor a histogram", name);
	}
	return why("metric \"%s\": accepted are <op>.ops_per_s, "
		   "<op>.bytes_per_s, <op>.lat_ns.pNN, counters.<name>", name);
}

/* NULL when doc is a valid result document, else the reason. */
const char *validate_doc(json_t *doc)
{
	json_t *v, *k, *e;
	const char *s, *key;
	size_t i;
	bool failed;

	if (!json_is_object(doc))
		return "top level is not a JSON object";
	s = json_string_value(json_object_get(doc, "schema"));
	if (!s || strcmp(s, SCHEMA))
		return why("schema is not \"%s\"", SCHEMA);
	s = json_string_value(json_object_get(doc, "status"));
	if (!s || (strcmp(s, "ok") && strcmp(s, "failed")))
		return "status is not \"ok\" or \"failed\"";
	failed = !strcmp(s, "failed");
	if (failed && !json_is_string(json_object_get(doc, "error")))
		return "status is \"failed\" but error is not a string";
	s = json_string_value(json_object_get(doc, "workload"));
	if (!s || !*s)
		return "workload is not a non-empty string";
	v = json_object_get(doc, "params");
	if (!json_is_object(v))
		return "params is not an object";
	json_object_foreach(v, key, e)
		if (!json_is_number(e) && !json_is_string(e) &&
		    !json_is_boolean(e))
			return why("params.%s is not a number, string or "
				   "boolean", key);
	v = json_object_get(doc, "iteration");
	if (!json_is_integer(v) || json_integer_value(v) < 1)
		return "iteration is not an integer >= 1";
	k = json_object_get(doc, "kernel");
	if (!json_is_object(k))
		return "kernel is not an object";
	if (!is_str_or_null(json_object_get(k, "variant")) ||
	    !is_str_or_null(json_object_get(k, "strategy")) ||
	    !json_is_string(json_object_get(k, "release")))
		return "kernel needs release (string), variant and strategy "
		       "(string or null)";
	if (!json_is_object(json_object_get(doc, "env")))
		return "env is not an object";
	if (failed)
		return NULL;
	v = json_object_get(doc, "runtime_s");
	if (!json_is_number(v) || json_number_value(v) < 0)
		return "runtime_s is not a number >= 0";
	v = json_object_get(doc, "ops");
	if (!json_is_array(v) || !json_array_size(v))
		return "ops is not a non-empty array";
	json_array_foreach(v, i, e)
		if ((s = check_op(e)))
			return s;
	v = json_object_get(doc, "counters");
	if (v && !json_is_object(v))
		return "counters is not an object";
	v = json_object_get(doc, "metrics");
	if (!json_is_array(v) || !json_array_size(v))
		return "metrics is not a non-empty array";
	json_array_foreach(v, i, e)
		if ((s = check_metric(doc, e)))
			return s;
	if (!json_is_object(json_object_get(doc, "verify")))
		return "verify is not an object";
	return NULL;
}

/* Load and check one file; exits 2 with "<path>: <reason>" on error. */
json_t *load_result(const char *path)
{
	json_error_t err;
	json_t *doc;
	const char *w;

	doc = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
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
