/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log-linear latency histogram (docs/formats.md), shared by rlwork and the
 * analysis tools: keep it free of anything else from rlwork.
 *
 * Values are nanoseconds. With B = HIST_BITS and N = 2^B:
 *
 *	index(v) = v                              if v < N
 *	         = (s + 1) * N + ((v >> s) - N)   otherwise, s = msb(v) - B
 *
 * Bucket i < N holds exactly the value i. Bucket i >= N, with s = i / N - 1,
 * holds [lo, hi] = [(N + i % N) << s, ((N + i % N + 1) << s) - 1].
 *
 * Error bound: a quantile is reported as the bucket midpoint
 * m = lo + (hi - lo) / 2. For any v in [lo, hi], |m - v| <= (hi - lo) / 2
 * = (2^s - 1) / 2 < 2^(s-1), and lo >= N * 2^s, so |m - v| / v < 1 / (2N).
 * With B = 6 that is 1/128 = 0.78%, under the 1% the design asks for.
 * Buckets below N are exact. The quantile's rank is the same as for the exact
 * sorted data (the ceil(p / 100 * total)-th smallest value), so the reported
 * percentile is within 1/(2N) of the exact one, not just of "some" value.
 *
 * Merging per-thread histograms is adding counts (hist_merge); percentiles
 * come from merged histograms, never from averaged percentiles.
 */
#ifndef RLBENCH_HIST_H
#define RLBENCH_HIST_H

#include <stdint.h>

#define HIST_BITS	6
#define HIST_N		(1u << HIST_BITS)
/* msb(2^64 - 1) = 63 gives the last group, 63 - HIST_BITS + 1 */
#define HIST_GROUPS	(64 - HIST_BITS + 1)
#define HIST_BUCKETS	(HIST_GROUPS * HIST_N)

struct hist {
	uint64_t total;
	uint64_t min;
	uint64_t max;
	uint64_t sum;		/* ns; 2^64 ns is 584 years of latency */
	double sumsq;		/* for the stddev; exact enough in double */
	uint64_t counts[HIST_BUCKETS];
};

static inline unsigned int hist_index(uint64_t v)
{
	unsigned int s;

	if (v < HIST_N)
		return (unsigned int)v;
	s = 63 - __builtin_clzll(v) - HIST_BITS;
	return (s + 1) * HIST_N + (unsigned int)((v >> s) - HIST_N);
}

/* Hot path: called once per timed operation. */
static inline void hist_add(struct hist *h, uint64_t v)
{
	h->counts[hist_index(v)]++;
	h->total++;
	h->sum += v;
	h->sumsq += (double)v * (double)v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void hist_init(struct hist *h);
void hist_merge(struct hist *dst, const struct hist *src);
uint64_t hist_bucket_lo(unsigned int i);
uint64_t hist_bucket_hi(unsigned int i);
uint64_t hist_bucket_mid(unsigned int i);
/* p in [0, 100]; 0 for an empty histogram */
uint64_t hist_percentile(const struct hist *h, double p);
double hist_mean(const struct hist *h);
double hist_stddev(const struct hist *h);
/*
 * Rebuild from stored buckets (e.g. parsed JSON): add n to bucket i.
 * min/max/sum become bucket-midpoint estimates. Returns -1 if i is invalid.
 */
int hist_add_bucket(struct hist *h, unsigned int i, uint64_t n);

#endif
