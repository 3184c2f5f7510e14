// SPDX-License-Identifier: GPL-2.0
/*
 * What a run adds to its meta.json as it goes: a variant's kernel, a
 * variant or flavour it skips, its end; and what it says back to the
 * runner: the variants a RESUME runs, what `make rerun` repeats. Each
 * addition is made once per variant, so a RESUME repeating the runner's
 * steps changes nothing it recorded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"

/* the first line of path, without its newline; NULL if unreadable */
static char *read_line(const char *path, const char *prefix)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *out = NULL;
	size_t len = 0, n = strlen(prefix);

	if (!f)
		return NULL;
	while (!out && getline(&line, &len, f) >= 0)
		if (!strncmp(line, prefix, n)) {
			line[strcspn(line, "\n")] = 0;
			out = xstrdup(line + n);
		}
	free(line);
	fclose(f);
	return out;
}

int plan_add_variant(json_t *meta, const char *dir, const char *v,
		     const char *kdir, const char *strategy,
		     const char **features, int nfeatures)
{
	json_t *fs = json_array(), *e;
	char *p, *rel, *series, *src, *csha, *kd = xstrdup(kdir), *qcmd;
	int i;

	if (meta_variant(meta, v))
		return 0;
	for (i = 0; i < nfeatures; i++)
		json_array_append_new(fs, json_string(features[i]));
	p = xasprintf("%s/include/config/kernel.release", kdir);
	rel = read_line(p, "");
	free(p);
	p = xasprintf("%s/source/.rlbench-series", kdir);
	series = read_line(p, "hash: ");
	free(p);
	p = xasprintf("%s/source", kdir);
	src = realpath(p, NULL);
	free(p);
	p = xasprintf("%s/%s/kernel.config", dir, v);
	csha = plan_sha256(p);
	free(p);
	qcmd = xasprintf("%s/qemu-boot*.cmd", v);
	e = json_pack("{s:s, s:s, s:o, s:s, s:s, s:s, s:s, s:s, s:s, s:n}",
		      "name", v, "strategy", strategy, "features", fs,
		      "build", basename(kd), "release", rel ? rel : "",
		      "config_sha256", csha, "series_hash",
		      series && *series ? series : "KSRC", "source",
		      src ? src : "unknown", "qemu_cmdline", qcmd, "accel");
	json_array_append_new(json_object_get(meta, "variants"), e);
	free(rel);
	free(series);
	free(src);
	free(csha);
	free(kd);
	free(qcmd);
	return 1;
}

/* key's array of meta, made when absent */
static json_t *array_of(json_t *meta, const char *key)
{
	json_t *a = json_object_get(meta, key);

	if (!json_is_array(a)) {
		a = json_array();
		json_object_set_new(meta, key, a);
	}
	return a;
}

int plan_add_skip(json_t *meta, const char *v, const char *reason,
		  const char *flavour)
{
	json_t *a = array_of(meta, flavour ? "flavours_skipped" : "skipped");
	json_t *e;
	size_t i;

	json_array_foreach(a, i, e)
		if (!strcmp(json_string_value(json_object_get(e, "variant")),
			    v))
			return 0;
	if (flavour)
		e = json_pack("{s:s, s:s, s:s}", "variant", v, "flavour",
			      flavour, "reason", reason);
	else
		e = json_pack("{s:s, s:s}", "variant", v, "reason", reason);
	json_array_append_new(a, e);
	return 1;
}

void plan_end(json_t *meta)
{
	json_object_set_new(meta, "ended", json_string(plan_now_utc()));
}

/* a's strings: key of each object, or each element, after joined */
static char *join(char *joined, json_t *a, const char *key, const char *sep)
{
	json_t *e;
	size_t i;

	json_array_foreach(a, i, e) {
		const char *s = json_string_value(key ? json_object_get(e, key)
						      : e);
		char *o = joined;

		if (!s)
			continue;
		joined = xasprintf("%s%s%s", o, *o ? sep : "", s);
		free(o);
	}
	return joined;
}

char *plan_meta_variants(json_t *meta)
{
	char *v = join(xstrdup(""), json_object_get(meta, "variants"), "name",
		       " ");

	return join(v, json_object_get(meta, "skipped"), "variant", " ");
}

/* value of key, a string or a number, as jq -r prints it; NULL if unset */
static char *text_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_integer(v))
		return xasprintf("%lld", json_integer_value(v));
	return NULL;
}

void plan_rerun_args(FILE *f, const char *dir, json_t *meta)
{
	json_t *r = json_object_get(meta, "requested");
	char *k = text_of(r, "kernel"), *b = text_of(r, "baseline");
	char *m = text_of(r, "mode"), *it = text_of(r, "iterations");
	char *bu = text_of(r, "budget"), *acc, *name;

	/* runs from before meta.json kept what was asked name their variants */
	if (!k || !*k)
		k = join(xstrdup(""), json_object_get(meta, "variants"), "name",
			 ",");
	acc = text_of(meta, "accel_requested");
	name = text_of(meta, "name");
	fprintf(f, "bench\n--kernel\n%s\n--baseline\n%s\n--mode\n%s\n"
		"--matrix\n%s/matrix\n--accel\n%s\n--name\n%s\n", k,
		b ? b : "none", m ? m : "time", dir, acc ? acc : "null",
		name ? name : "");
	if (it && *it)
		fprintf(f, "--iterations\n%s\n", it);
	if (bu && *bu)
		fprintf(f, "--budget\n%s\n", bu);
	free(bu);
	bu = text_of(r, "profile");
	if (bu && *bu)
		fprintf(f, "--profile\n%s\n", bu);
	free(bu);
	bu = text_of(r, "stats");
	if (bu && *bu)
		fprintf(f, "--stats\n%s\n", bu);
	if (json_is_true(json_object_get(meta, "debug")))
		fputs("--debug\n", f);
	if (json_is_true(json_object_get(meta, "kcsan")))
		fputs("--kcsan\n", f);
	free(k);
	free(b);
	free(m);
	free(it);
	free(bu);
	free(acc);
	free(name);
}
