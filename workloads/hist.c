// SPDX-License-Identifier: GPL-2.0
/* Log-linear histogram; the format and error bound are in hist.h. */
#include <math.h>
#include <string.h>

#include "hist.h"

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++)
		dst->counts[i] += src->counts[i];
	dst->total += src->total;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t hist_bucket_lo(unsigned int i)
{
	unsigned int s;

	if (i < HIST_N)
		return i;
	s = i / HIST_N - 1;
	return (uint64_t)(HIST_N + i % HIST_N) << s;
}

uint64_t hist_bucket_hi(unsigned int i)
{
	unsigned int s;

	if (i < HIST_N)
		return i;
	s = i / HIST_N - 1;
	/* the last bucket ends at 2^64 - 1: shift then subtract, wrapping */
	return ((uint64_t)(HIST_N + i % HIST_N + 1) << s) - 1;
}

uint64_t hist_bucket_mid(unsigned int i)
{
	uint64_t lo = hist_bucket_lo(i);

	return lo + (hist_bucket_hi(i) - lo) / 2;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, cum = 0;
	unsigned int i;

	if (!h->total)
		return 0;
	rank = (uint64_t)ceil(p / 100.0 * (double)h->total);
	if (rank < 1)
		rank = 1;
	if (rank > h->total)
		rank = h->total;
	for (i = 0; i < HIST_BUCKETS; i++) {
		cum += h->counts[i];
		if (cum >= rank)
			return hist_bucket_mid(i);
	}
	return hist_bucket_mid(HIST_BUCKETS - 1);
}

double hist_mean(const struct hist *h)
{
	return h->total ? (double)h->sum / (double)h->total : 0.0;
}

double hist_stddev(const struct hist *h)
{
	double mean, var;

	if (h->total < 2)
		return 0.0;
	mean = hist_mean(h);
	var = (h->sumsq - (double)h->total * mean * mean) /
	      (double)(h->total - 1);
	return var > 0 ? sqrt(var) : 0.0;
}

int hist_add_bucket(struct hist *h, unsigned int i, uint64_t n)
{
	uint64_t mid;

	if (i >= HIST_BUCKETS)
		return -1;
	if (!n)
		return 0;
	mid = hist_bucket_mid(i);
	h->counts[i] += n;
	h->total += n;
	h->sum += mid * n;
	h->sumsq += (double)mid * (double)mid * (double)n;
	if (mid < h->min)
		h->min = mid;
	if (mid > h->max)
		h->max = mid;
	return 0;
}
