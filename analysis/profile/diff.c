// SPDX-License-Identifier: GPL-2.0
/*
 * Where the difference of one variant's point from the baseline's goes:
 * every function of either side by name (the two kernels' addresses
 * differ, their names match), its insn/op and atomics/op on each side
 * (summed over the boots, divided by their ops) and the delta, the
 * largest moves first. Values are rounded once, to what is printed, and
 * the row of the other functions is the total less the rows shown, so
 * the printed rows add up to the printed total in every column.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

static int row_cmp(const void *a, const void *b)
{
	const struct prof_row *x = a, *y = b;
	int64_t p = abs64(x->cand - x->base), q = abs64(y->cand - y->base);

	if (p != q)
		return p < q ? 1 : -1;
	p = abs64(x->acand - x->abase);
	q = abs64(y->acand - y->abase);
	if (p != q)
		return p < q ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int64_t per_op(uint64_t v, double ops, double scale)
{
	return ops > 0 ? llround(scale * v / ops) : 0;
}

void prof_diff(const struct prof_point *b, const struct prof_point *c,
	       int top, bool moved_only, struct prof_diff *d)
{
	struct prof_row *r = xcalloc(b->n + c->n + 1, sizeof(*r));
	size_t i = 0, j = 0, n = 0, k;

	memset(d, 0, sizeof(*d));
	/* both sides are sorted by name (load.c) */
	while (i < b->n || j < c->n) {
		int cmp = i == b->n ? 1 : j == c->n ? -1 :
			  strcmp(b->fns[i].name, c->fns[j].name);

		r[n].name = cmp <= 0 ? b->fns[i].name : c->fns[j].name;
		if (cmp <= 0) {
			r[n].base = per_op(b->fns[i].insns, b->ops, 100);
			r[n].abase = per_op(b->fns[i].atomics, b->ops, 100);
			i++;
		}
		if (cmp >= 0) {
			r[n].cand = per_op(c->fns[j].insns, c->ops, 100);
			r[n].acand = per_op(c->fns[j].atomics, c->ops, 100);
			j++;
		}
		n++;
	}
	qsort(r, n, sizeof(*r), row_cmp);
	d->total = (struct prof_row){
		.name = "total",
		.base = per_op(b->insns, b->ops, 100),
		.cand = per_op(c->insns, c->ops, 100),
		.abase = per_op(b->atomics, b->ops, 100),
		.acand = per_op(c->atomics, c->ops, 100),
	};
	d->rest = d->total;
	d->rows = r;
	for (k = 0; k < n; k++) {
		if ((int)d->n >= top || (moved_only && r[k].base == r[k].cand &&
					 r[k].abase == r[k].acand)) {
			d->nrest++;
			continue;
		}
		r[d->n++] = r[k];	/* d->n <= k: nothing unread is lost */
		d->rest.base -= r[k].base;
		d->rest.cand -= r[k].cand;
		d->rest.abase -= r[k].abase;
		d->rest.acand -= r[k].acand;
	}
	d->rest.name = d->nrest ? "(the other functions)" : "(rounding)";
}

void prof_diff_free(struct prof_diff *d)
{
	free(d->rows);
	memset(d, 0, sizeof(*d));
}

void prof_fmt(char *buf, size_t len, int64_t v, int decimals, bool sign)
{
	int64_t p = 1, a = abs64(v);
	int i;

	for (i = 0; i < decimals; i++)
		p *= 10;
	snprintf(buf, len, "%s%" PRId64 ".%0*" PRId64,
		 v < 0 ? "-" : sign ? "+" : "", a / p, decimals, a % p);
}
