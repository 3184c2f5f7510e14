// SPDX-License-Identifier: GPL-2.0
/*
 * What each op of a cell did, boot by boot: the counts and timed ns of its
 * kinds (ops[].kinds, rlwork's work-mix counts), its time per op and
 * thread, a wide request's waits (ops[].wait_ns), and the point's lock
 * waits when the mapping_lock monitor recorded them. The loader (load.c) keeps only the metrics; the
 * few cells a report explains are read again here, so a run without
 * kinds costs nothing.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"

/* rlwork writes at most RL_MAX_KINDS; more is accepted, up to this */
const char *kinds_check(const char *op, json_t *kinds, json_t *count)
{
	static char buf[256];
	json_int_t sum = 0;
	const char *k;
	json_t *v, *n, *ns;

	if (!kinds)
		return NULL;	/* results from before the counts */
	if (!json_is_object(kinds) || !json_object_size(kinds) ||
	    json_object_size(kinds) > MIX_KINDS)
		return snprintf(buf, sizeof(buf), "op \"%s\": kinds is not an "
				"object of 1 to %d kinds", op, MIX_KINDS), buf;
	json_object_foreach(kinds, k, v) {
		n = json_object_get(v, "count");
		ns = json_object_get(v, "time_ns");
		if (!name_ok(k, ""))
			return snprintf(buf, sizeof(buf), "op \"%s\": kind "
					"name \"%.64s\" is not 1-64 of "
					"[A-Za-z0-9_]", op, k), buf;
		if (!json_is_object(v) || !json_is_integer(n) ||
		    json_integer_value(n) < 0 || !json_is_integer(ns) ||
		    json_integer_value(ns) < 0)
			return snprintf(buf, sizeof(buf), "op \"%s\": kinds.%s "
					"is not {\"count\": integer >= 0, "
					"\"time_ns\": integer >= 0}", op, k),
			       buf;
		sum += json_integer_value(n);
	}
	if (sum != json_integer_value(count))
		return snprintf(buf, sizeof(buf), "op \"%s\": its kinds count "
				"%lld ops, its count is %lld", op,
				(long long)sum,
				(long long)json_integer_value(count)), buf;
	return NULL;
}

/*
 * A wide request's wait (rlwork's wait_ops): count, mean, p99, max and
 * unfinished, no other key. rlwork caps p99 and the mean at the exact
 * max, so p99 > max or mean > max is a broken document, and max is the
 * op's lat_ns.max: the same requests, the same clock readings.
 */
const char *wait_check(const char *op, json_t *wait, json_t *count,
		       json_t *lat)
{
	static const char *const ints[] = { "count", "p99", "max",
					    "unfinished" };
	static char buf[256];
	json_t *v, *lmax = json_object_get(lat, "max");
	const char *k;
	double mean, p99, max;
	size_t i;

	if (!wait)
		return NULL;	/* not a wide request, or an older result */
	if (!json_is_object(wait))
		return snprintf(buf, sizeof(buf), "op \"%s\": wait_ns is not "
				"an object", op), buf;
	json_object_foreach(wait, k, v)
		if (strcmp(k, "mean") && strcmp(k, "count") && strcmp(k, "p99")
		    && strcmp(k, "max") && strcmp(k, "unfinished"))
			return snprintf(buf, sizeof(buf), "op \"%s\": wait_ns "
					"has \"%.20s\"; accepted are count, "
					"mean, p99, max, unfinished", op, k),
			       buf;
	for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		v = json_object_get(wait, ints[i]);
		if (!v)
			return snprintf(buf, sizeof(buf), "op \"%s\": wait_ns "
					"has no %s (it needs count, mean, "
					"p99, max, unfinished)", op, ints[i]),
			       buf;
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return snprintf(buf, sizeof(buf), "op \"%s\": "
					"wait_ns.%s is not an integer >= 0",
					op, ints[i]), buf;
	}
	v = json_object_get(wait, "mean");
	if (!v)
		return snprintf(buf, sizeof(buf), "op \"%s\": wait_ns has no "
				"mean (it needs count, mean, p99, max, "
				"unfinished)", op), buf;
	if (!json_is_number(v) || json_number_value(v) < 0)
		return snprintf(buf, sizeof(buf), "op \"%s\": wait_ns.mean is "
				"not a number >= 0", op), buf;
	mean = json_number_value(v);
	p99 = json_integer_value(json_object_get(wait, "p99"));
	max = json_integer_value(json_object_get(wait, "max"));
	if (json_integer_value(json_object_get(wait, "count")) !=
	    json_integer_value(count))
		return snprintf(buf, sizeof(buf), "op \"%s\": wait_ns.count "
				"is not the op's count", op), buf;
	if (p99 > max || mean > max)
		return snprintf(buf, sizeof(buf), "op \"%s\": wait_ns.%s is "
				"above wait_ns.max", op, p99 > max ? "p99" :
				"mean"), buf;
	if (json_is_integer(lmax) && json_integer_value(lmax) != max)
		return snprintf(buf, sizeof(buf), "op \"%s\": wait_ns.max is "
				"not lat_ns.max", op), buf;
	return NULL;
}

static bool doc_passed(json_t *j)
{
	json_t *e = json_object_get(json_object_get(j, "verify"), "errors");

	return !strcmp(json_string_value(json_object_get(j, "status")), "ok")
	       && !(json_is_integer(e) && json_integer_value(e) > 0);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* an op's kind names, sorted: the two sides compare whatever the order */
static void op_kinds_first(struct op_mix *m, json_t *kinds)
{
	const char *k;
	json_t *v;

	m->nkinds = 0;
	json_object_foreach(kinds, k, v)
		m->kind[m->nkinds++] = xstrdup(k);
	qsort(m->kind, m->nkinds, sizeof(m->kind[0]), name_cmp);
}

/* one boot of an op; false when its kinds are not the first boot's */
static bool op_add_boot(struct op_mix *m, json_t *op, double runtime, int b)
{
	json_t *kinds = json_object_get(op, "kinds"), *v;
	double count = json_integer_value(json_object_get(op, "count"));
	json_t *th = json_object_get(op, "threads");
	int k;

	m->ops[b] = count;
	if (m->wide && (v = json_object_get(op, "wait_ns"))) {
		m->wait[b] = (struct wide_wait){
			count, json_number_value(json_object_get(v, "mean")),
			json_integer_value(json_object_get(v, "p99")),
			json_integer_value(json_object_get(v, "max")),
			json_integer_value(json_object_get(v, "unfinished")) };
	} else {
		m->wide = false;	/* a boot without: not shown */
	}
	/* threads * seconds per op: each thread runs its ops one by one */
	m->cycle_ns[b] = count > 0 ? (th ? json_integer_value(th) : 1) *
				     runtime * 1e9 / count : 0;
	if (!m->nkinds)
		return true;
	if (!kinds || json_object_size(kinds) != (size_t)m->nkinds)
		return false;
	for (k = 0; k < m->nkinds; k++) {
		v = json_object_get(kinds, m->kind[k]);
		if (!v)
			return false;
		m->count[b * m->nkinds + k] =
			json_integer_value(json_object_get(v, "count"));
		m->ns[b * m->nkinds + k] =
			json_integer_value(json_object_get(v, "time_ns"));
	}
	return true;
}

static void mix_add_doc(const struct run *r, struct cell_mix *m, json_t *j)
{
	double rt = json_number_value(json_object_get(j, "runtime_s"));
	json_t *ops = json_object_get(j, "ops"), *op;
	int b = m->nboots++, i, k;
	size_t x;
	bool found;

	for (i = 0; i < m->nops; i++) {
		struct op_mix *om = &m->op[i];
		size_t n = m->nboots * (om->nkinds ? om->nkinds : 1);

		om->ops = realloc(om->ops, m->nboots * sizeof(double));
		om->cycle_ns = realloc(om->cycle_ns, m->nboots *
				       sizeof(double));
		om->count = realloc(om->count, n * sizeof(double));
		om->ns = realloc(om->ns, n * sizeof(double));
		om->wait = realloc(om->wait, m->nboots * sizeof(*om->wait));
		if (!om->ops || !om->cycle_ns || !om->count || !om->ns ||
		    !om->wait)
			die_input("out of memory");
		found = false;
		json_array_foreach(ops, x, op)
			if (!strcmp(json_string_value(json_object_get(op,
					"name")), om->op)) {
				found = true;
				break;
			}
		if (!found) {
			om->ops[b] = om->cycle_ns[b] = 0;
			om->wide = false;
		}
		if (!found || !op_add_boot(om, op, rt, b)) {
			/* boots that disagree on the kinds: none counted */
			for (k = 0; k < om->nkinds; k++)
				free(om->kind[k]);
			om->nkinds = 0;
		}
	}
	m->contended = realloc(m->contended, m->nboots * sizeof(double));
	m->wait_ns = realloc(m->wait_ns, m->nboots * sizeof(double));
	if (!m->contended || !m->wait_ns)
		die_input("out of memory");
	m->waits &= boot_lock_waits(r, j, &m->contended[b], &m->wait_ns[b],
				    NULL);
}

/* "<label>-i<N>.result.json" of a time-mode cell (cost: "-cost-i<N>") */
static bool cell_file(const struct cell *c, const char *f)
{
	size_t l = strlen(c->pt->label);
	bool cost = !strcmp(c->pt->mode, "cost");

	if (strncmp(f, c->pt->label, l))
		return false;
	f += l;
	if (cost && strncmp(f, "-cost", 5))
		return false;
	f += cost ? 5 : 0;
	return f[0] == '-' && f[1] == 'i' && f[2] >= '1' && f[2] <= '9' &&
	       strspn(f + 2, "0123456789") + 2 + strlen(".result.json") ==
	       strlen(f);
}

struct cell_mix *cell_mix_load(const struct run *r, const struct cell *c)
{
	struct cell_mix *m = xcalloc(1, sizeof(*m));
	char *vd = xasprintf("%s/%s", r->dir, c->variant), *p;
	int nf, i;
	char **files = list_dir(vd, false, ".result.json", &nf);
	json_t *j, *op;
	size_t x;

	m->waits = true;
	for (i = 0; i < nf; i++) {
		if (!cell_file(c, files[i]))
			continue;
		p = xasprintf("%s/%s", vd, files[i]);
		j = load_result(p);
		free(p);
		if (doc_passed(j)) {
			if (!m->op) {	/* the ops and kinds of the first */
				m->nops = json_array_size(json_object_get(j,
								"ops"));
				m->op = xcalloc(m->nops, sizeof(*m->op));
				json_array_foreach(json_object_get(j, "ops"),
						   x, op) {
					m->op[x].op = xstrdup(json_string_value(
						json_object_get(op, "name")));
					m->op[x].wide = json_object_get(op,
							"wait_ns") != NULL;
					if (json_object_get(op, "kinds"))
						op_kinds_first(&m->op[x],
							json_object_get(op,
								"kinds"));
				}
			}
			mix_add_doc(r, m, j);
		}
		json_decref(j);
		free(files[i]);
	}
	free(files);
	free(vd);
	m->waits &= m->nboots > 0;
	return m;
}

const struct op_mix *cell_mix_op(const struct cell_mix *m, const char *op)
{
	int i;

	for (i = 0; m && i < m->nops; i++)
		if (!strcmp(m->op[i].op, op))
			return &m->op[i];
	return NULL;
}

void cell_mix_free(struct cell_mix *m)
{
	int i, k;

	if (!m)
		return;
	for (i = 0; i < m->nops; i++) {
		for (k = 0; k < m->op[i].nkinds; k++)
			free(m->op[i].kind[k]);
		free(m->op[i].op);
		free(m->op[i].ops);
		free(m->op[i].cycle_ns);
		free(m->op[i].count);
		free(m->op[i].ns);
		free(m->op[i].wait);
	}
	free(m->op);
	free(m->contended);
	free(m->wait_ns);
	free(m);
}
