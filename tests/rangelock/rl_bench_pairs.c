// SPDX-License-Identifier: GPL-2.0
/*
 * The uncontended lock+unlock pairs of the lock microbenchmark
 * (rl_bench.c): one function per pair, each a loop of pair_iters pairs
 * returning ns per pair, the same loops that callgrind counts; and the
 * table that names them.  Each loop is noinline, so that the call cost
 * is in every figure alike.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include <linux/slab.h>

#include "rl_bench.h"

/* Uncontended pairs; noinline keeps each loop honest about call cost. */
#define PAIR_LOOP(name, lock_stmt, unlock_stmt)				\
static __attribute__((__noinline__)) double name(void)			\
{									\
	struct range_adaptive_req ar;					\
	struct range_bitmap_req br;					\
	struct range_list_req lr;					\
	struct range_lock rl;						\
	unsigned long long i;						\
	double t0 = now();						\
									\
	(void)ar;							\
	(void)rl;							\
	(void)br;							\
	(void)lr;							\
	for (i = 0; i < pair_iters; i++) {				\
		lock_stmt;						\
		__asm__ __volatile__("" ::: "memory");			\
		unlock_stmt;						\
	}								\
	return (now() - t0) * 1e9 / pair_iters;				\
}

PAIR_LOOP(pair_mutex, pthread_mutex_lock(&mutex),
	  pthread_mutex_unlock(&mutex))
PAIR_LOOP(pair_rw_write, pthread_rwlock_wrlock(&rwlock),
	  pthread_rwlock_unlock(&rwlock))
PAIR_LOOP(pair_rw_read, pthread_rwlock_rdlock(&rwlock),
	  pthread_rwlock_unlock(&rwlock))
PAIR_LOOP(pair_range_write,
	  (range_lock_init(&rl, i & 1023, (i & 1023) + 3),
	   range_write_lock(&tree, &rl)),
	  range_write_unlock(&tree, &rl))
PAIR_LOOP(pair_range_read,
	  (range_lock_init(&rl, i & 1023, (i & 1023) + 3),
	   range_read_lock(&tree, &rl)),
	  range_read_unlock(&tree, &rl))
PAIR_LOOP(pair_range_full,
	  (range_lock_init_full(&rl), range_write_lock(&tree, &rl)),
	  range_write_unlock(&tree, &rl))
PAIR_LOOP(pair_bitmap_write,
	  (range_bitmap_req_init(&br, i & 1023, (i & 1023) + 3),
	   range_bitmap_write_lock(&bitmap, &br)),
	  range_bitmap_write_unlock(&bitmap, &br))
PAIR_LOOP(pair_bitmap_read,
	  (range_bitmap_req_init(&br, i & 1023, (i & 1023) + 3),
	   range_bitmap_read_lock(&bitmap, &br)),
	  range_bitmap_read_unlock(&bitmap, &br))
PAIR_LOOP(pair_bitmap_write_full,
	  (range_bitmap_req_init_full(&br),
	   range_bitmap_write_lock(&bitmap, &br)),
	  range_bitmap_write_unlock(&bitmap, &br))
PAIR_LOOP(pair_bitmap_read_full,
	  (range_bitmap_req_init_full(&br),
	   range_bitmap_read_lock(&bitmap, &br)),
	  range_bitmap_read_unlock(&bitmap, &br))
/*
 * What the list lock's pair costs here in stand-ins: the shim's
 * allocator, kfree_rcu() and two read-side sections (function calls
 * here; nothing or a per-task count in the kernel).
 */
static __attribute__((__noinline__)) double pair_list_entry(void)
{
	struct range_list_node *node;
	unsigned long long i;
	double t0 = now();

	for (i = 0; i < pair_iters; i++) {
		node = kmalloc(sizeof(*node), GFP_KERNEL);
		rcu_read_lock();
		__asm__ __volatile__("" ::: "memory");
		rcu_read_unlock();
		rcu_read_lock();
		kfree_rcu(node, rcu);
		rcu_read_unlock();
	}
	return (now() - t0) * 1e9 / pair_iters;
}

PAIR_LOOP(pair_list_write,
	  (range_list_req_init(&lr, i & 1023, (i & 1023) + 3),
	   range_list_write_lock(&listlock, &lr)),
	  range_list_write_unlock(&listlock, &lr))
PAIR_LOOP(pair_list_read,
	  (range_list_req_init(&lr, i & 1023, (i & 1023) + 3),
	   range_list_read_lock(&listlock, &lr)),
	  range_list_read_unlock(&listlock, &lr))
PAIR_LOOP(pair_list_write_full,
	  (range_list_req_init_full(&lr),
	   range_list_write_lock(&listlock, &lr)),
	  range_list_write_unlock(&listlock, &lr))
PAIR_LOOP(pair_list_read_full,
	  (range_list_req_init_full(&lr),
	   range_list_read_lock(&listlock, &lr)),
	  range_list_read_unlock(&listlock, &lr))

PAIR_LOOP(pair_adaptive_write,
	  (range_adaptive_req_init(&ar, i & 1023, (i & 1023) + 3),
	   range_adaptive_write_lock(&adaptive, &ar)),
	  range_adaptive_write_unlock(&adaptive, &ar))
PAIR_LOOP(pair_adaptive_read,
	  (range_adaptive_req_init(&ar, i & 1023, (i & 1023) + 3),
	   range_adaptive_read_lock(&adaptive, &ar)),
	  range_adaptive_read_unlock(&adaptive, &ar))
PAIR_LOOP(pair_adaptive_write_precise,
	  (range_adaptive_req_init(&ar, i & 1023, (i & 1023) + 3),
	   range_adaptive_write_lock(&adaptive_precise, &ar)),
	  range_adaptive_write_unlock(&adaptive_precise, &ar))
PAIR_LOOP(pair_adaptive_read_precise,
	  (range_adaptive_req_init(&ar, i & 1023, (i & 1023) + 3),
	   range_adaptive_read_lock(&adaptive_precise, &ar)),
	  range_adaptive_read_unlock(&adaptive_precise, &ar))

/* set by the thread that holds a reader in cheat mode for make_precise() */
static int cheat_held;

static void *hold_cheat_reader(void *arg)
{
	struct range_adaptive_req ar;
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	range_adaptive_req_init(&ar, 0, 0);
	range_adaptive_read_lock(arg, &ar);
	__atomic_store_n(&cheat_held, 1, __ATOMIC_RELEASE);
	nanosleep(&ts, NULL);
	range_adaptive_read_unlock(arg, &ar);
	return NULL;
}

/* Switch @lock: a writer while another thread holds a reader. */
void make_precise(struct range_adaptive_lock *lock)
{
	struct range_adaptive_req ar;
	pthread_t t;

	range_adaptive_req_init(&ar, 1, 1);
	while (!range_adaptive_is_precise(lock)) {
		cheat_held = 0;
		if (pthread_create(&t, NULL, hold_cheat_reader, lock))
			abort();
		while (!__atomic_load_n(&cheat_held, __ATOMIC_ACQUIRE))
			;
		range_adaptive_write_lock(lock, &ar);
		range_adaptive_write_unlock(lock, &ar);
		pthread_join(t, NULL);
	}
}

/*
 * The same pairs while this thread holds an unrelated range: every
 * request goes through the spinlock and the interval tree, the cost
 * behind the fast path.
 */
static double with_tree(double (*fn)(void))
{
	struct range_lock other;
	double ns;

	range_lock_init(&other, 1ul << 40, 1ul << 40);
	range_write_lock(&tree, &other);
	ns = fn();
	range_write_unlock(&tree, &other);
	return ns;
}

static double pair_range_write_tree(void)
{
	return with_tree(pair_range_write);
}

static double pair_range_read_tree(void)
{
	return with_tree(pair_range_read);
}

/*
 * A list lock pair behind 64 held ranges, as behind a deep direct-IO
 * queue on one file: every walk passes them (O(n)).  The holders are
 * this thread's own disjoint writes, which never wait.
 */
#define LIST_DEPTH	64

static __attribute__((__noinline__)) double pair_list_write_deep(void)
{
	struct range_list_req held[LIST_DEPTH], lr;
	unsigned long long i;
	unsigned int k;
	double t0;

	for (k = 0; k < LIST_DEPTH; k++) {
		range_list_req_init(&held[k], 16ul * k, 16ul * k + 3);
		range_list_write_lock(&listlock, &held[k]);
	}
	t0 = now();
	for (i = 0; i < pair_iters; i++) {
		range_list_req_init(&lr, (1ul << 30) + (i & 1023),
				    (1ul << 30) + (i & 1023) + 3);
		range_list_write_lock(&listlock, &lr);
		__asm__ __volatile__("" ::: "memory");
		range_list_write_unlock(&listlock, &lr);
	}
	t0 = (now() - t0) * 1e9 / pair_iters;
	for (k = 0; k < LIST_DEPTH; k++)
		range_list_write_unlock(&listlock, &held[k]);
	return t0;
}

const struct pair pairs[NR_PAIRS] = {
	[P_MUTEX] = { "mutex", "pthread mutex", pair_mutex, false },
	[P_RW_WRITE] = { "rwlock_write", "pthread rwlock write",
			 pair_rw_write, false },
	[P_RW_READ] = { "rwlock_read", "pthread rwlock read", pair_rw_read,
			true },
	[P_RANGE_WRITE] = { "range_write", "range lock write (exclusive)",
			    pair_range_write, false },
	[P_RANGE_READ] = { "range_read", "range lock read", pair_range_read,
			   true },
	[P_RANGE_FULL] = { "range_write_full",
			   "range lock write [0,ULONG_MAX]", pair_range_full,
			   false },
	[P_RANGE_WRITE_TREE] = { "range_write_tree",
				 "range lock write, tree path",
				 pair_range_write_tree, false },
	[P_RANGE_READ_TREE] = { "range_read_tree",
				"range lock read, tree path",
				pair_range_read_tree, true },
	[P_BITMAP_WRITE] = { "bitmap_write", "bitmap lock write",
			     pair_bitmap_write, false },
	[P_BITMAP_READ] = { "bitmap_read", "bitmap lock read",
			    pair_bitmap_read, true },
	[P_BITMAP_WRITE_FULL] = { "bitmap_write_full",
				  "bitmap lock write [0,ULONG_MAX]",
				  pair_bitmap_write_full, false },
	[P_BITMAP_READ_FULL] = { "bitmap_read_full",
				 "bitmap lock read [0,ULONG_MAX]",
				 pair_bitmap_read_full, true },
	[P_ADAPTIVE_WRITE] = { "adaptive_write", "adaptive lock write, cheat mode",
			       pair_adaptive_write, false },
	[P_ADAPTIVE_READ] = { "adaptive_read", "adaptive lock read, cheat mode",
			      pair_adaptive_read, true },
	[P_ADAPTIVE_WRITE_PRECISE] = { "adaptive_write_precise",
				       "adaptive lock write, precise",
				       pair_adaptive_write_precise, false },
	[P_ADAPTIVE_READ_PRECISE] = { "adaptive_read_precise",
				      "adaptive lock read, precise",
				      pair_adaptive_read_precise, true },
	[P_LIST_WRITE] = { "list_write", "list lock write", pair_list_write,
			   false },
	[P_LIST_READ] = { "list_read", "list lock read", pair_list_read,
			  true },
	[P_LIST_WRITE_FULL] = { "list_write_full",
				"list lock write [0,ULONG_MAX]",
				pair_list_write_full, false },
	[P_LIST_READ_FULL] = { "list_read_full",
			       "list lock read [0,ULONG_MAX]",
			       pair_list_read_full, true },
	[P_LIST_ENTRY] = { "list_entry_alloc_free",
			   "  of which shim kmalloc, RCU",
			   pair_list_entry, false },
	[P_LIST_WRITE_DEEP] = { "list_write_deep64",
				"list lock write behind 64 held",
				pair_list_write_deep, false },
};
