// SPDX-License-Identifier: GPL-2.0
/*
 * Provenance lines for the report header, from meta.json (rlbench-meta/1)
 * and the results' env. meta.json fields beyond "name" are read loosely:
 * the header shows what is there and says what is not.
 */
#include <stdio.h>
#include <string.h>

#include "rlstat.h"

static json_t *first_of(json_t *o, const char *const *keys)
{
	json_t *v;

	for (; *keys; keys++)
		if ((v = json_object_get(o, *keys)) && !json_is_null(v))
			return v;
	return NULL;
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

static void machine(char *buf, size_t len, json_t *host)
{
	static const char *const model[] = { "cpu_model", "model", "cpu",
					     "model_name", NULL };
	static const char *const cpus[] = { "cpus", "ncpus", "nproc", NULL };
	static const char *const mem[] = { "mem_mb", "memory_mb",
					   "mem_total_mb", NULL };
	static const char *const rel[] = { "kernel", "release", NULL };

	buf[0] = 0;
	if (json_is_string(host)) {
		snprintf(buf, len, "%s", json_string_value(host));
		return;
	}
	put_scalar(buf, len, first_of(host, model), "");
	put_scalar(buf, len, first_of(host, cpus), " cpus");
	put_scalar(buf, len, first_of(host, mem), " MiB");
	put_scalar(buf, len, first_of(host, rel), "");
}

void report_meta_lines(FILE *f, const struct run *r)
{
	static const char *const commit[] = { "suite_commit", "commit", NULL };
	char buf[256];
	json_t *m = r->meta, *v;

	if (!m) {
		fprintf(f, "Machine:     unknown (no meta.json in the run)\n");
	} else {
		machine(buf, sizeof(buf), json_object_get(m, "host"));
		fprintf(f, "Machine:     %s\n", *buf ? buf : "unknown");
	}
	buf[0] = 0;
	put_scalar(buf, sizeof(buf), json_object_get(r->env, "runner"), "");
	put_scalar(buf, sizeof(buf), json_object_get(r->env, "cpus"), " cpus");
	put_scalar(buf, sizeof(buf), json_object_get(r->env, "mem_mb"),
		   " MiB");
	put_scalar(buf, sizeof(buf), json_object_get(r->env, "fs"), "");
	put_scalar(buf, sizeof(buf), json_object_get(r->env, "device"), "");
	fprintf(f, "Test system: %s\n", *buf ? buf : "unknown");
	if (!m)
		return;
	v = first_of(m, commit);
	if (!v)
		v = json_object_get(json_object_get(m, "suite"), "commit");
	buf[0] = 0;
	put_scalar(buf, sizeof(buf), v, "");
	if (json_is_true(json_object_get(json_object_get(m, "suite"),
					 "dirty")))
		strncat(buf, " (with local changes)",
			sizeof(buf) - strlen(buf) - 1);
	if (*buf)
		fprintf(f, "Suite:       %s\n", buf);
	buf[0] = 0;
	put_scalar(buf, sizeof(buf), json_object_get(m, "matrix"), "");
	put_scalar(buf, sizeof(buf), json_object_get(m, "started"), "");
	put_scalar(buf, sizeof(buf), json_object_get(m, "ended"), "");
	if (*buf)
		fprintf(f, "Matrix:      %s\n", buf);
}
