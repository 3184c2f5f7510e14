// SPDX-License-Identifier: GPL-2.0
/*
 * What each op did, per kind (workload_ops.kinds): a rate per role alone
 * cannot tell "each fault waited longer" from "more faults landed on
 * holes, which cost more".  The workloads count each op under one kind
 * as they record it (rl_op_record), from state they keep anyway, so the
 * counts add nothing to the timed window; this file only reports them.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "rlwork.h"

static const char *const *op_kinds(const struct rl_run *r, unsigned int op)
{
	return r->kinds ? r->kinds[op] : NULL;
}

/* per-thread counts are fixed arrays: a bug, not bad input */
void kinds_table_check(const struct workload_ops *wl,
		       const char *const *const *kinds)
{
	const struct op_decl *op;
	unsigned int k;

	for (op = wl->ops; kinds && op->name; op++) {
		for (k = 0; kinds[op - wl->ops] && kinds[op - wl->ops][k]; k++)
			;
		if (k > RL_MAX_KINDS) {
			fprintf(stderr, "rlwork: %s's op %s declares %u kinds, more than RL_MAX_KINDS (%d)\n",
				wl->name, op->name, k, RL_MAX_KINDS);
			abort();
		}
	}
}

/* {"hole": {"count": N, "time_ns": T}, ...}, or NULL for a one-kind op */
json_t *op_kinds_json(const struct rl_run *r, unsigned int op)
{
	const char *const *k;
	uint64_t n, ns;
	unsigned int i, kind;
	json_t *o;

	if (!op_kinds(r, op) || !r->workers)
		return NULL;
	o = json_object();
	for (k = op_kinds(r, op), kind = 0; *k; k++, kind++) {
		for (i = n = ns = 0; i < r->nthreads; i++) {
			n += r->workers[i]->stats[op].kind_count[kind];
			ns += r->workers[i]->stats[op].kind_ns[kind];
		}
		json_object_set_new(o, *k, json_pack("{s:I, s:I}",
			"count", (json_int_t)n, "time_ns", (json_int_t)ns));
	}
	return o;
}

/* "    kinds: hole 120 (31.0 us), data 880 (9.2 us)" under the op's row */
void print_kinds(const struct rl_run *r, unsigned int op)
{
	const char *const *k;
	uint64_t n, ns;
	unsigned int i, kind;

	if (!op_kinds(r, op))
		return;
	fprintf(r->info, "    kinds:");
	for (k = op_kinds(r, op), kind = 0; *k; k++, kind++) {
		for (i = n = ns = 0; i < r->nthreads; i++) {
			n += r->workers[i]->stats[op].kind_count[kind];
			ns += r->workers[i]->stats[op].kind_ns[kind];
		}
		fprintf(r->info, "%s %s %llu (%.1f us)", kind ? "," : "", *k,
			(unsigned long long)n, n ? ns / 1e3 / n : 0.0);
	}
	fputc('\n', r->info);
}
