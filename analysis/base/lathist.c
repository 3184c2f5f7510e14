// SPDX-License-Identifier: GPL-2.0
/*
 * Latency histograms as analysis needs them: decoded from result JSON,
 * merged by adding counts, queried for percentiles and CDF points. The
 * bucket geometry and the percentile rule are workloads/hist.c's, the
 * same code rlwork records with.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "hist.h"

struct lathist {
	struct hist h;
};

struct lathist *lathist_new(void)
{
	struct lathist *h = xcalloc(1, sizeof(*h));

	hist_init(&h->h);
	return h;
}

void lathist_free(struct lathist *h)
{
	free(h);
}

/* Add the counts of a JSON "hist" object; *why says what is wrong. */
int lathist_add_json(struct lathist *h, json_t *hist, const char **why)
{
	json_t *bits, *counts, *v;
	const char *key;
	char *end;
	unsigned long idx;

	bits = json_object_get(hist, "bits");
	counts = json_object_get(hist, "counts");
	if (!json_is_object(hist) || !json_is_integer(bits) ||
	    !json_is_object(counts)) {
		*why = "hist must be {\"bits\": 6, \"counts\": {...}}";
		return -1;
	}
	if (json_integer_value(bits) != HIST_BITS) {
		*why = "hist.bits is not 6 (the only geometry supported)";
		return -1;
	}
	json_object_foreach(counts, key, v) {
		errno = 0;
		idx = strtoul(key, &end, 10);
		/* one spelling per bucket: "7", never "07", "+7", " 7" */
		if (!*key || *end || errno || idx >= HIST_BUCKETS ||
		    (key[0] == '0' && key[1]) || !(key[0] >= '0' &&
						   key[0] <= '9')) {
			*why = "hist.counts key is not a bucket index 0..3775 "
			       "written as a plain decimal";
			return -1;
		}
		if (!json_is_integer(v) || json_integer_value(v) < 0) {
			*why = "hist.counts value is not a count >= 0";
			return -1;
		}
		/* counts merged over buckets, threads and iterations */
		if ((uint64_t)json_integer_value(v) > INT64_MAX - h->h.total) {
			*why = "hist.counts add up to more than 2^63 - 1";
			return -1;
		}
		hist_add_bucket(&h->h, idx, json_integer_value(v));
	}
	return 0;
}

void lathist_merge(struct lathist *dst, const struct lathist *src)
{
	hist_merge(&dst->h, &src->h);
}

uint64_t lathist_total(const struct lathist *h)
{
	return h->h.total;
}

double lathist_percentile(const struct lathist *h, double p)
{
	if (!h->h.total)
		return 0;
	return hist_percentile(&h->h, p);
}

bool lathist_next(const struct lathist *h, int *idx, double *upper_ns,
		  uint64_t *count)
{
	int i;

	for (i = *idx + 1; i < (int)HIST_BUCKETS; i++) {
		if (!h->h.counts[i])
			continue;
		*idx = i;
		*upper_ns = (double)hist_bucket_hi(i);
		*count = h->h.counts[i];
		return true;
	}
	return false;
}
