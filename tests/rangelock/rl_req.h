/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Requests in threads of their own, for the deterministic range lock
 * tests (rl_test, rl_nesting): start one, wait until it holds or sleeps on
 * the lock, release or kill it.  A request is "blocked" once its thread
 * sleeps in schedule() with a non-zero count of blockers.
 */
#ifndef RL_REQ_H
#define RL_REQ_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include <linux/range_lock.h>
#include <linux/sched.h>

#include "shim.h"

enum { OP_LOCK, OP_KILLABLE };
enum { R_CALLED = 1, R_HELD, R_FAILED, R_RELEASED };

#define W	false
#define R	true
#define TIMEOUT_NS	(20ull * 1000 * 1000 * 1000)

struct req {
	struct range_lock rl;
	struct range_lock_tree *tree;
	const char *name;
	bool reader;
	int op;
	pthread_t thread;
	struct task_struct *task;
	int state;
	int ret;
	int release;
	int depth_held;
	int depth_after;
};

/* The tree every test uses; one per program. */
static struct range_lock_tree tree;

static inline int load(int *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline void pause_us(long us)
{
	struct timespec ts = { 0, us * 1000 };

	nanosleep(&ts, NULL);
}

static inline void rl_lock(struct range_lock_tree *t, struct range_lock *l,
		    bool reader)
{
	if (reader)
		range_read_lock(t, l);
	else
		range_write_lock(t, l);
}

static inline void rl_unlock(struct range_lock_tree *t, struct range_lock *l,
		      bool reader)
{
	if (reader)
		range_read_unlock(t, l);
	else
		range_write_unlock(t, l);
}

static inline void *req_thread(void *arg)
{
	struct req *r = arg;
	int ret = 0;

	__atomic_store_n(&r->task, current, __ATOMIC_RELEASE);
	__atomic_store_n(&r->state, R_CALLED, __ATOMIC_RELEASE);
	if (r->op == OP_KILLABLE)
		ret = r->reader ? range_read_lock_killable(r->tree, &r->rl) :
				  range_write_lock_killable(r->tree, &r->rl);
	else
		rl_lock(r->tree, &r->rl, r->reader);
	r->ret = ret;
	if (ret) {
		r->depth_after = shim_lockdep_depth();
		__atomic_store_n(&r->state, R_FAILED, __ATOMIC_RELEASE);
		return NULL;
	}
	r->depth_held = shim_lockdep_depth();
	__atomic_store_n(&r->state, R_HELD, __ATOMIC_RELEASE);
	while (!load(&r->release))
		pause_us(50);
	rl_unlock(r->tree, &r->rl, r->reader);
	r->depth_after = shim_lockdep_depth();
	__atomic_store_n(&r->state, R_RELEASED, __ATOMIC_RELEASE);
	return NULL;
}

static inline struct req *start_on(struct range_lock_tree *t, const char *name,
			    bool reader, int op, unsigned long start,
			    unsigned long last)
{
	struct req *r = calloc(1, sizeof(*r));

	if (!r)
		abort();
	r->tree = t;
	r->name = name;
	r->reader = reader;
	r->op = op;
	range_lock_init(&r->rl, start, last);
	if (pthread_create(&r->thread, NULL, req_thread, r))
		abort();
	while (!load(&r->state))
		pause_us(10);
	return r;
}

static inline struct req *start(const char *name, bool reader, unsigned long start,
			 unsigned long last)
{
	return start_on(&tree, name, reader, OP_LOCK, start, last);
}

static inline unsigned int count(struct req *r)
{
	return __atomic_load_n(&r->rl.blocking_ranges, __ATOMIC_ACQUIRE);
}

/* Wait until @r holds its range (true) or the timeout passes (false). */
static inline bool held(struct req *r)
{
	unsigned long long end = now_ns() + TIMEOUT_NS;

	while (load(&r->state) != R_HELD) {
		if (load(&r->state) > R_HELD || now_ns() > end)
			return false;
		pause_us(20);
	}
	return true;
}

/* Wait until @r sleeps on the lock; false if it gets the lock instead. */
static inline bool blocked(struct req *r)
{
	unsigned long long end = now_ns() + TIMEOUT_NS;

	for (;;) {
		if (load(&r->state) != R_CALLED)
			return false;
		if (shim_task_sleeping(r->task) && count(r))
			return true;
		if (now_ns() > end)
			return false;
		pause_us(20);
	}
}

/* Blocked with exactly @n blockers; exact once their changes returned. */
static inline bool waits_for(struct req *r, unsigned int n)
{
	return load(&r->state) == R_CALLED && count(r) == n;
}

static inline void finish(struct req *r)
{
	pthread_join(r->thread, NULL);
	free(r);
}

static inline void release(struct req *r)
{
	__atomic_store_n(&r->release, 1, __ATOMIC_RELEASE);
	while (load(&r->state) != R_RELEASED)
		pause_us(20);
}

static inline void release_finish(struct req *r)
{
	release(r);
	finish(r);
}

/* Kill a waiting request; returns its lock call's result. */
static inline int kill_req(struct req *r)
{
	shim_send_sigkill(r->task);
	while (load(&r->state) == R_CALLED)
		pause_us(20);
	return r->ret;
}

static inline bool tree_idle(void)
{
	return !range_lock_tree_is_locked(&tree);
}

#endif
