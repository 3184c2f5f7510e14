// SPDX-License-Identifier: GPL-2.0
/*
 * How long a cell waited for the invalidation lock, from the lock counters'
 * counters (kernels/patches/0007, /sys/kernel/debug/mapping_lock/stats,
 * read around each point by the mapping_lock monitor): preferably from
 * the variant's stats boot (<label>-stats-i1.result.json, runners/run
 * boots one per variant next to the timed ones), else from timed boots
 * whose kernel carried the counters (a matrix with `monitors
 * mapping_lock`). The counters cost a clock read and atomics on every
 * acquisition, so a stats boot's rates are never the cell's: load.c
 * never reads its results, only this file does.
 *
 * What the counters can say: they are global (every mapping, every task,
 * shared and exclusive acquisitions alike), so the waits of a point
 * belong to one role only when the point has one op; a point of several
 * ops (fault and punch, truncate and its readers) has the point's waits,
 * not separable by role. The window is the monitor's: rlwork's whole run,
 * its fill and verification included, but those run on one thread and a
 * wait needs two tasks at once, so the waits are the measured threads'.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"

/*
 * One boot's mapping_lock delta from its monitor file: contended and
 * waited ns, and the longest wait when the guest reset the counters at
 * the point's start (wait_ns_max_point; a delta of a maximum means
 * nothing, so older files have no max). false: no counters recorded.
 */
bool boot_lock_waits(const struct run *r, json_t *j, double *cont,
		     double *ns, double *max)
{
	json_t *p = json_object_get(json_object_get(j, "monitors"),
				    "mapping_lock"), *w, *m;
	char *path;

	/* a path inside the run, as runners/collect writes it */
	if (!json_is_string(p) || json_string_value(p)[0] == '/' ||
	    strstr(json_string_value(p), ".."))
		return false;
	path = xasprintf("%s/%s", r->dir, json_string_value(p));
	w = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
	free(path);
	if (!json_is_integer(json_object_get(w, "stats.contended")) ||
	    !json_is_integer(json_object_get(w, "stats.wait_ns_total"))) {
		json_decref(w);
		return false;
	}
	*cont = json_integer_value(json_object_get(w, "stats.contended"));
	*ns = json_integer_value(json_object_get(w, "stats.wait_ns_total"));
	m = json_object_get(w, "stats.wait_ns_max_point");
	if (max)
		*max = json_is_integer(m) ? json_integer_value(m) : NAN;
	json_decref(w);
	return true;
}

/* "<label><suffix>-i<N>.result.json" */
static bool boot_file(const char *label, const char *suffix, const char *f)
{
	size_t l = strlen(label), s = strlen(suffix);

	if (strncmp(f, label, l) || strncmp(f + l, suffix, s))
		return false;
	f += l + s;
	return f[0] == '-' && f[1] == 'i' && f[2] >= '1' && f[2] <= '9' &&
	       strspn(f + 2, "0123456789") + 2 + strlen(".result.json") ==
	       strlen(f);
}

bool stats_boot_file(const char *f)
{
	const char *s = strstr(f, "-stats-i");

	return s && boot_file("", "", s + strlen("-stats"));
}

static bool passed(json_t *j)
{
	json_t *e = json_object_get(json_object_get(j, "verify"), "errors");

	return !strcmp(json_string_value(json_object_get(j, "status")), "ok")
	       && !(json_is_integer(e) && json_integer_value(e) > 0);
}

/* the files of one source; true when any of them had counters */
static bool load_source(const struct run *r, const struct cell *c,
			bool stats, struct cell_waits *w)
{
	char *vd = xasprintf("%s/%s", r->dir, c->variant), *p;
	double cont, ns, max, longest = 0;
	bool max_known = true;
	json_t *j, *ops;
	char **files;
	int nf, i;

	files = list_dir(vd, false, ".result.json", &nf);
	for (i = 0; i < nf; i++) {
		if (boot_file(c->pt->label, stats ? "-stats" : "", files[i])) {
			p = xasprintf("%s/%s", vd, files[i]);
			j = load_result(p);
			free(p);
			w->stats_booted += stats;
			if (!passed(j)) {
				w->stats_failed += stats;
			} else if (boot_lock_waits(r, j, &cont, &ns, &max)) {
				ops = json_object_get(j, "ops");
				if (!w->nboots && json_array_size(ops) == 1)
					w->role = xstrdup(json_string_value(
						json_object_get(json_array_get(
						ops, 0), "name")));
				w->nops = json_array_size(ops);
				w->contended += cont;
				w->wait_ns += ns;
				w->runtime_s += json_number_value(
					json_object_get(j, "runtime_s"));
				/* one boot without a max: the max unknown */
				max_known &= !isnan(max);
				longest = fmax(longest, max);
				w->nboots++;
			}
			json_decref(j);
		}
		free(files[i]);
	}
	free(files);
	free(vd);
	if (!w->nboots)
		return false;
	w->contended /= w->nboots;
	w->wait_ns /= w->nboots;
	w->runtime_s /= w->nboots;
	w->max_ns = max_known ? longest : NAN;
	w->source = stats ? "stats boot" : "timed boots";
	return true;
}

struct cell_waits *cell_waits_load(const struct run *r, const struct cell *c)
{
	struct cell_waits *w = xcalloc(1, sizeof(*w));

	w->max_ns = NAN;
	if (!c || strcmp(c->pt->mode, "time") || load_source(r, c, true, w))
		return w;
	/* no stats boot with counters: the timed boots' own, if any */
	load_source(r, c, false, w);
	return w;
}

double cell_waits_mean_us(const struct cell_waits *w)
{
	return w && w->nboots && w->contended > 0 ?
	       w->wait_ns / w->contended / 1e3 : NAN;
}

void cell_waits_free(struct cell_waits *w)
{
	if (!w)
		return;
	free(w->role);
	free(w);
}
