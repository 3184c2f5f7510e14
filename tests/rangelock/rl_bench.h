/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the lock microbenchmark's two halves share: rl_bench.c (options,
 * the throughput points, the output) and rl_bench_pairs.c (the
 * uncontended lock+unlock pairs, timed and counted one by one).
 */
#ifndef RL_BENCH_H
#define RL_BENCH_H

#include <pthread.h>
#include <stdbool.h>

#include <linux/range_lock.h>
#include <linux/range_lock_adaptive.h>
#include <linux/range_lock_bitmap.h>
#include <linux/range_lock_list.h>

/* the locks under test, one of each, set up by main() */
extern pthread_mutex_t mutex;
extern pthread_rwlock_t rwlock;
extern struct range_lock_tree tree;
extern struct range_bitmap_lock bitmap;
extern struct range_adaptive_lock adaptive, adaptive_precise;
extern struct range_list_lock listlock;

/* iterations of each pair loop (the callgrind child sets its own) */
extern unsigned long long pair_iters;

/* CLOCK_MONOTONIC, in seconds */
double now(void);

/* The pairs, in print order; each is compared with the rwlock pair of its mode. */
enum { P_MUTEX, P_RW_WRITE, P_RW_READ, P_RANGE_WRITE, P_RANGE_READ,
       P_RANGE_FULL, P_RANGE_WRITE_TREE, P_RANGE_READ_TREE,
       P_BITMAP_WRITE, P_BITMAP_READ, P_BITMAP_WRITE_FULL,
       P_BITMAP_READ_FULL, P_ADAPTIVE_WRITE, P_ADAPTIVE_READ,
       P_ADAPTIVE_WRITE_PRECISE, P_ADAPTIVE_READ_PRECISE,
       P_LIST_WRITE, P_LIST_READ, P_LIST_WRITE_FULL,
       P_LIST_READ_FULL, P_LIST_ENTRY, P_LIST_WRITE_DEEP, NR_PAIRS };

struct pair {
	const char *name;	/* its JSON key */
	const char *label;	/* its row in the table */
	double (*fn)(void);	/* pair_iters pairs: ns per pair */
	bool reader;		/* compared with the rwlock's read pair */
};

extern const struct pair pairs[NR_PAIRS];

/* Switch an adaptive lock to precise mode for good. */
void make_precise(struct range_adaptive_lock *lock);

#endif
