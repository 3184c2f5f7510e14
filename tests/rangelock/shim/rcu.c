// SPDX-License-Identifier: GPL-2.0
/*
 * RCU and kmalloc() for the harness's threads.
 *
 * Each thread that enters a read-side section registers a counter: odd
 * while inside a section, bumped on entry and on exit.  Entry is a fully
 * ordered exchange followed by a full fence, so a grace period that reads
 * the counter even cannot miss a section whose loads already saw the
 * entry it is about to free.  synchronize_rcu() waits, for every thread
 * it finds inside a section, until the counter moves: that section has
 * ended.  Exit is a release store and the grace period reads with
 * acquire, so ThreadSanitizer sees every access of the section happen
 * before the free that follows.
 *
 * call_rcu() and kfree_rcu() queue their callbacks per thread and hand
 * them over in batches to one reclaimer thread, which waits for a grace
 * period and runs them.  A thread's batch is handed over when it exits,
 * and rcu_barrier() runs everything queued by then.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <linux/bug.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#define RCU_BATCH	64

struct rcu_reader {
	unsigned long ctr;		/* odd: inside a section */
	int depth;
	struct callback_head *batch;
	unsigned int nbatch;
	struct rcu_reader *next;
};

static pthread_mutex_t readers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rcu_reader *readers;
static __thread struct rcu_reader *me;
static pthread_key_t reader_key;
static pthread_once_t reader_once = PTHREAD_ONCE_INIT;

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_cond = PTHREAD_COND_INITIALIZER;
static struct callback_head *queue;
/* Held while a batch waits for its grace period and runs. */
static pthread_mutex_t reclaim_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t reclaimer_once = PTHREAD_ONCE_INIT;

static unsigned long fail_every, nr_kmalloc, nr_failed;
static long live;

static void hand_over(struct rcu_reader *r)
{
	struct callback_head *last;

	if (!r->batch)
		return;
	for (last = r->batch; last->next; last = last->next)
		;
	pthread_mutex_lock(&queue_lock);
	last->next = queue;
	queue = r->batch;
	pthread_cond_signal(&queue_cond);
	pthread_mutex_unlock(&queue_lock);
	r->batch = NULL;
	r->nbatch = 0;
}

static void reader_exit(void *arg)
{
	struct rcu_reader *r = arg, **p;

	if (r->depth)
		shim_warn(__FILE__, __LINE__, "thread exits inside rcu_read_lock()");
	hand_over(r);
	pthread_mutex_lock(&readers_lock);
	for (p = &readers; *p; p = &(*p)->next)
		if (*p == r) {
			*p = r->next;
			break;
		}
	pthread_mutex_unlock(&readers_lock);
	me = NULL;
	free(r);
}

static void make_reader_key(void)
{
	if (pthread_key_create(&reader_key, reader_exit))
		abort();
}

static struct rcu_reader *reader(void)
{
	struct rcu_reader *r = me;

	if (r)
		return r;
	r = calloc(1, sizeof(*r));
	if (!r)
		abort();
	pthread_once(&reader_once, make_reader_key);
	pthread_setspecific(reader_key, r);
	pthread_mutex_lock(&readers_lock);
	r->next = readers;
	readers = r;
	pthread_mutex_unlock(&readers_lock);
	me = r;
	return r;
}

void rcu_read_lock(void)
{
	struct rcu_reader *r = reader();

	if (r->depth++)
		return;
	__atomic_exchange_n(&r->ctr, r->ctr + 1, __ATOMIC_SEQ_CST);
	/*
	 * The section's loads must not pass the store (C11 does not order
	 * a seq_cst store before later acquire loads; x86's locked exchange
	 * does).  ThreadSanitizer rejects fences: it needs none here.
	 */
#ifndef __SANITIZE_THREAD__
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

void rcu_read_unlock(void)
{
	struct rcu_reader *r = me;

	if (!r || r->depth <= 0) {
		shim_warn(__FILE__, __LINE__, "rcu_read_unlock() outside a section");
		return;
	}
	if (--r->depth)
		return;
	__atomic_store_n(&r->ctr, r->ctr + 1, __ATOMIC_RELEASE);
}

void synchronize_rcu(void)
{
	struct rcu_reader *r;
	unsigned long snap;

	if (me && me->depth)
		shim_warn(__FILE__, __LINE__, "synchronize_rcu() inside rcu_read_lock()");
#ifndef __SANITIZE_THREAD__
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
	pthread_mutex_lock(&readers_lock);
	for (r = readers; r; r = r->next) {
		snap = __atomic_load_n(&r->ctr, __ATOMIC_SEQ_CST);
		if (!(snap & 1))
			continue;
		/*
		 * Sleep rather than spin: a spinning reclaimer would steal
		 * the CPU from the reader it waits for, and its loop would
		 * count in callgrind's instructions for the lock.
		 */
		while (__atomic_load_n(&r->ctr, __ATOMIC_ACQUIRE) == snap)
			nanosleep(&(struct timespec){ 0, 20000 }, NULL);
	}
	pthread_mutex_unlock(&readers_lock);
}

static void run_callbacks(struct callback_head *head)
{
	struct callback_head *next;
	uintptr_t f;

	for (; head; head = next) {
		next = head->next;
		f = (uintptr_t)head->func;
		if (f < 4096)		/* kfree_rcu(): the offset of the head */
			kfree((char *)head - f);
		else
			head->func(head);
	}
}

/* Take the queue and run it after a grace period, under reclaim_lock. */
static void reclaim_once(void)
{
	struct callback_head *batch;

	pthread_mutex_lock(&reclaim_lock);
	pthread_mutex_lock(&queue_lock);
	batch = queue;
	queue = NULL;
	pthread_mutex_unlock(&queue_lock);
	if (batch) {
		synchronize_rcu();
		run_callbacks(batch);
	}
	pthread_mutex_unlock(&reclaim_lock);
}

static void *reclaimer(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&queue_lock);
		while (!queue)
			pthread_cond_wait(&queue_cond, &queue_lock);
		pthread_mutex_unlock(&queue_lock);
		reclaim_once();
	}
	return NULL;
}

static void start_reclaimer(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, reclaimer, NULL) || pthread_detach(t))
		abort();
}

void call_rcu(struct callback_head *head, void (*func)(struct callback_head *))
{
	struct rcu_reader *r = reader();

	pthread_once(&reclaimer_once, start_reclaimer);
	head->func = func;
	head->next = r->batch;
	r->batch = head;
	if (++r->nbatch >= RCU_BATCH)
		hand_over(r);
}

void shim_kfree_rcu(void *obj, size_t offset)
{
	call_rcu((struct callback_head *)((char *)obj + offset),
		 (void (*)(struct callback_head *))(uintptr_t)offset);
}

void rcu_barrier(void)
{
	hand_over(reader());
	reclaim_once();
}

void *kmalloc(size_t size, gfp_t gfp)
{
	unsigned long n = __atomic_fetch_add(&nr_kmalloc, 1, __ATOMIC_RELAXED);
	unsigned long every = __atomic_load_n(&fail_every, __ATOMIC_RELAXED);
	void *p;

	(void)gfp;
	if (every && n % every == every - 1) {
		__atomic_fetch_add(&nr_failed, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	p = malloc(size);
	if (p)
		__atomic_fetch_add(&live, 1, __ATOMIC_RELAXED);
	return p;
}

void kfree(const void *p)
{
	if (!p)
		return;
	__atomic_fetch_sub(&live, 1, __ATOMIC_RELAXED);
	free((void *)p);
}

void shim_kmalloc_fail_every(unsigned long n)
{
	__atomic_store_n(&fail_every, n, __ATOMIC_RELAXED);
}

long shim_kmalloc_live(void)
{
	return __atomic_load_n(&live, __ATOMIC_RELAXED);
}

unsigned long shim_kmalloc_failed(void)
{
	return __atomic_load_n(&nr_failed, __ATOMIC_RELAXED);
}
