// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the log-linear histogram (hist.h), TAP output: bucket
 * boundaries, percentiles within the stated 1/(2N) bound of the exact
 * percentile of the sorted data, merging by adding counts.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

static int test_no, failed;

static void ok(bool cond, const char *fmt, const char *what)
{
	test_no++;
	if (!cond)
		failed++;
	printf("%sok %d - ", cond ? "" : "not ", test_no);
	printf(fmt, what);
	putchar('\n');
}

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_boundaries(void)
{
	bool good = true;
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++) {
		if (hist_index(hist_bucket_lo(i)) != i ||
		    hist_index(hist_bucket_hi(i)) != i)
			good = false;
		if (i + 1 < HIST_BUCKETS &&
		    hist_bucket_lo(i + 1) != hist_bucket_hi(i) + 1)
			good = false;
	}
	ok(good, "%s", "every bucket's bounds map back to it, buckets are contiguous");
	ok(hist_index(63) == 63 && hist_index(64) == 64 &&
	   hist_index(127) == 127 && hist_index(128) == 128 &&
	   hist_index(129) == 128 && hist_index(130) == 129,
	   "%s", "index() at the first group boundaries");
	ok(hist_index(UINT64_MAX) == 58 * 64 + 63 &&
	   hist_bucket_hi(HIST_BUCKETS - 1) == UINT64_MAX,
	   "%s", "2^64 - 1 lands in the last bucket, index 3775");
	good = true;
	for (i = HIST_N; i < HIST_BUCKETS; i++) {
		double lo = hist_bucket_lo(i), hi = hist_bucket_hi(i);

		if ((hi - lo) / lo > 1.0 / HIST_N)
			good = false;
	}
	ok(good, "%s", "bucket width over its lower bound is at most 1/N");
}

/* the exact percentile: the ceil(p/100 * n)-th smallest value */
static uint64_t exact(const uint64_t *sorted, size_t n, double p)
{
	size_t rank = (size_t)ceil(p / 100.0 * n);

	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

static void test_percentiles(const char *name, uint64_t (*gen)(void))
{
	static const double ps[] = { 0.1, 1, 10, 50, 90, 99, 99.9, 99.99, 100 };
	const size_t n = 200000;
	uint64_t *v = malloc(n * sizeof(*v)), e, h;
	struct hist *hs = malloc(sizeof(*hs));
	double worst = 0, err;
	bool good = true;
	unsigned int i;
	size_t j;

	hist_init(hs);
	for (j = 0; j < n; j++) {
		v[j] = gen();
		hist_add(hs, v[j]);
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		e = exact(v, n, ps[i]);
		h = hist_percentile(hs, ps[i]);
		err = e ? fabs((double)h - (double)e) / (double)e : (double)h;
		if (err > worst)
			worst = err;
		if (e < HIST_N ? h != e : err > 1.0 / (2 * HIST_N))
			good = false;
	}
	ok(good && hs->min == v[0] && hs->max == v[n - 1] && hs->total == n,
	   "percentiles of %s data within 1/128 of the exact ones", name);
	printf("# %s: worst relative error %.5f (bound %.5f)\n", name, worst,
	       1.0 / (2 * HIST_N));
	free(v);
	free(hs);
}

static uint64_t gen_small(void) { return rnd() % 64; }
static uint64_t gen_uniform(void) { return rnd() % 10000000; }
static uint64_t gen_lognormal(void)
{
	double u = (rnd() >> 11) * 0x1.0p-53 + 1e-12;
	double w = (rnd() >> 11) * 0x1.0p-53;

	/* Box-Muller, then exp: latency-like, 3 decades wide */
	return (uint64_t)exp(9 + 1.5 * sqrt(-2 * log(u)) * cos(2 * M_PI * w));
}
static uint64_t gen_wide(void) { return rnd() >> (rnd() % 64); }

static void test_merge(void)
{
	struct hist *all = malloc(sizeof(*all)), *part = malloc(4 * sizeof(*part));
	struct hist *merged = malloc(sizeof(*merged));
	bool good = true;
	unsigned int i;
	uint64_t x;

	hist_init(all);
	hist_init(merged);
	for (i = 0; i < 4; i++)
		hist_init(&part[i]);
	for (i = 0; i < 100000; i++) {
		x = gen_lognormal();
		hist_add(all, x);
		hist_add(&part[i % 4], x);
	}
	for (i = 0; i < 4; i++)
		hist_merge(merged, &part[i]);
	ok(!memcmp(all->counts, merged->counts, sizeof(all->counts)) &&
	   all->total == merged->total && all->min == merged->min &&
	   all->max == merged->max && all->sum == merged->sum,
	   "%s", "merging 4 per-thread histograms equals one histogram of all values");
	for (i = 0; i < 1000; i++)
		if (hist_percentile(all, i / 10.0) !=
		    hist_percentile(merged, i / 10.0))
			good = false;
	ok(good, "%s", "merged percentiles equal those of the single histogram");
	hist_init(merged);
	for (i = 0; i < HIST_BUCKETS; i++)
		hist_add_bucket(merged, i, all->counts[i]);
	ok(!memcmp(all->counts, merged->counts, sizeof(all->counts)) &&
	   hist_percentile(all, 99) == hist_percentile(merged, 99),
	   "%s", "rebuilding from stored buckets gives the same percentiles");
	ok(hist_add_bucket(merged, HIST_BUCKETS, 1) == -1, "%s",
	   "an out-of-range bucket index is refused");
	free(all);
	free(part);
	free(merged);
}

static void test_empty(void)
{
	struct hist *h = malloc(sizeof(*h));

	hist_init(h);
	ok(hist_percentile(h, 50) == 0 && hist_mean(h) == 0 &&
	   hist_stddev(h) == 0, "%s", "an empty histogram reports zeros");
	hist_add(h, 1000);
	hist_add(h, 3000);
	ok(fabs(hist_mean(h) - 2000) < 1e-9 &&
	   fabs(hist_stddev(h) - sqrt(2e6)) < 1e-6, "%s",
	   "mean and stddev are exact, not bucketed");
	free(h);
}

int main(void)
{
	printf("1..14\n");
	test_boundaries();
	test_percentiles("small (<64, exact)", gen_small);
	test_percentiles("uniform", gen_uniform);
	test_percentiles("lognormal", gen_lognormal);
	test_percentiles("64-bit wide", gen_wide);
	test_merge();
	test_empty();
	return failed ? 1 : 0;
}
