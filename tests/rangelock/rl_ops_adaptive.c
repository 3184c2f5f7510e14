// SPDX-License-Identifier: GPL-2.0
/*
 * The adaptive range lock (lib/range_lock_adaptive.c) behind struct rl_ops.
 *
 * A lock switches to precise mode once and for good, within microseconds
 * of a stress run's start, so a run would test the switch once.  Instead
 * the lock is re-armed: every REARM_EVERY unlocks of a thread, that
 * thread waits until no request is in a lock call or holds a range (a
 * gate, a pthread rwlock that prefers its writer: every lock call holds
 * it for reading until its unlock), checks that the lock is idle and
 * initialises it again, in cheat mode.  The gate orders nothing between
 * two requests of one generation: readers of a pthread rwlock do not
 * synchronise with each other, so under ThreadSanitizer the sections are
 * still ordered by the range lock alone.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "rl_ops.h"

#define REARM_EVERY	512

static struct range_adaptive_lock lock;
static pthread_rwlock_t gate;
static unsigned long rearms, switches, cheat_grants, grants;
static bool leaked;
static __thread unsigned int unlocks;

static void adaptive_init(unsigned long space)
{
	pthread_rwlockattr_t attr;

	(void)space;
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr,
			PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	if (pthread_rwlock_init(&gate, &attr))
		abort();
	pthread_rwlockattr_destroy(&attr);
	range_adaptive_lock_init(&lock);
}

static void adaptive_req_init(union rl_req *req, unsigned long start,
			      unsigned long last)
{
	range_adaptive_req_init(&req->adaptive, start, last);
}

static void granted(union rl_req *req)
{
	__atomic_fetch_add(&grants, 1, __ATOMIC_RELAXED);
	if (req->adaptive.cheat)
		__atomic_fetch_add(&cheat_grants, 1, __ATOMIC_RELAXED);
}

static void adaptive_lock(union rl_req *req, bool reader)
{
	pthread_rwlock_rdlock(&gate);
	if (reader)
		range_adaptive_read_lock(&lock, &req->adaptive);
	else
		range_adaptive_write_lock(&lock, &req->adaptive);
	granted(req);
}

static int adaptive_lock_killable(union rl_req *req, bool reader)
{
	int ret;

	pthread_rwlock_rdlock(&gate);
	ret = reader ? range_adaptive_read_lock_killable(&lock, &req->adaptive) :
		       range_adaptive_write_lock_killable(&lock, &req->adaptive);
	if (ret)
		pthread_rwlock_unlock(&gate);
	else
		granted(req);
	return ret;
}

static int adaptive_trylock(union rl_req *req, bool reader)
{
	int ret;

	pthread_rwlock_rdlock(&gate);
	ret = reader ? range_adaptive_read_trylock(&lock, &req->adaptive) :
		       range_adaptive_write_trylock(&lock, &req->adaptive);
	if (!ret)
		pthread_rwlock_unlock(&gate);
	else
		granted(req);
	return ret;
}

/* With every request out: count a switch, check the lock, re-arm it. */
static void rearm(void)
{
	pthread_rwlock_wrlock(&gate);
	rearms++;
	if (range_adaptive_is_locked(&lock)) {
		if (!leaked)
			printf("LEAK: adaptive lock held with no request in a lock call\n");
		leaked = true;
	} else if (range_adaptive_is_precise(&lock)) {
		switches++;
		range_adaptive_lock_init(&lock);
	}
	pthread_rwlock_unlock(&gate);
}

static void adaptive_unlock(union rl_req *req, bool reader)
{
	if (reader)
		range_adaptive_read_unlock(&lock, &req->adaptive);
	else
		range_adaptive_write_unlock(&lock, &req->adaptive);
	pthread_rwlock_unlock(&gate);
	if (++unlocks % REARM_EVERY == 0)
		rearm();
}

static bool adaptive_is_locked(void)
{
	return leaked || range_adaptive_is_locked(&lock);
}

static void adaptive_report(void)
{
	if (range_adaptive_is_precise(&lock))
		switches++;
	printf("adaptive: %lu switches to precise mode, %lu quiescent points, %lu of %lu grants in cheat mode\n",
	       switches, rearms, cheat_grants, grants);
}

const struct rl_ops rl_adaptive_ops = {
	.name = "adaptive",
	.desc = "lib/range_lock_adaptive.c: cheat mode, then the tree",
	.init = adaptive_init,
	.req_init = adaptive_req_init,
	.lock = adaptive_lock,
	.lock_killable = adaptive_lock_killable,
	.trylock = adaptive_trylock,
	.unlock = adaptive_unlock,
	.is_locked = adaptive_is_locked,
	.report = adaptive_report,
};
