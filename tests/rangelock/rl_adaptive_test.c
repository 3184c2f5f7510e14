// SPDX-License-Identifier: GPL-2.0
/*
 * Deterministic tests of lib/range_lock_adaptive.c: cheat mode for readers
 * alone and for a lone writer, the switch at the first conflict (requests
 * that come during the drain wait and then go to the tree, holders in
 * cheat mode unlock through the word), precise ranges after it, a
 * writer's wait behind streaming readers, and killable and trylock calls
 * during the drain.
 *
 * Each request runs in its own thread.  A request is "blocked" once its
 * thread has slept in schedule() without holding for 20 ms; it "did not
 * wait" if it holds without ever having slept.  Every test starts from a
 * lock initialised again, in cheat mode.
 *
 * Usage: rl_adaptive_test cheat|switch|fairness|killable|all  (TAP on stdout)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/range_lock_adaptive.h>
#include <linux/sched.h>

#include "shim.h"
#include "tap.h"

#define W		false
#define R		true
#define TOP		ULONG_MAX
#define TIMEOUT_NS	(20ull * 1000 * 1000 * 1000)

enum { R_CALLED = 1, R_HELD, R_FAILED, R_RELEASED };

struct req {
	struct range_adaptive_req rq;
	bool reader, killable;
	pthread_t thread;
	struct task_struct *task;
	int state, ret, release, depth_held, depth_after;
};

static struct range_adaptive_lock lock;

static int load(int *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void pause_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	nanosleep(&ts, NULL);
}

static void *req_thread(void *arg)
{
	struct req *r = arg;

	__atomic_store_n(&r->task, current, __ATOMIC_RELEASE);
	__atomic_store_n(&r->state, R_CALLED, __ATOMIC_RELEASE);
	if (r->killable)
		r->ret = r->reader ?
			 range_adaptive_read_lock_killable(&lock, &r->rq) :
			 range_adaptive_write_lock_killable(&lock, &r->rq);
	else if (r->reader)
		range_adaptive_read_lock(&lock, &r->rq);
	else
		range_adaptive_write_lock(&lock, &r->rq);
	if (r->ret) {
		r->depth_after = shim_lockdep_depth();
		__atomic_store_n(&r->state, R_FAILED, __ATOMIC_RELEASE);
		return NULL;
	}
	r->depth_held = shim_lockdep_depth();
	__atomic_store_n(&r->state, R_HELD, __ATOMIC_RELEASE);
	while (!load(&r->release))
		pause_us(50);
	if (r->reader)
		range_adaptive_read_unlock(&lock, &r->rq);
	else
		range_adaptive_write_unlock(&lock, &r->rq);
	r->depth_after = shim_lockdep_depth();
	__atomic_store_n(&r->state, R_RELEASED, __ATOMIC_RELEASE);
	return NULL;
}

static struct req *start_req(bool reader, bool killable, unsigned long start,
			     unsigned long last)
{
	struct req *r = calloc(1, sizeof(*r));

	if (!r)
		abort();
	r->reader = reader;
	r->killable = killable;
	range_adaptive_req_init(&r->rq, start, last);
	if (pthread_create(&r->thread, NULL, req_thread, r))
		abort();
	while (!load(&r->state))
		pause_us(10);
	return r;
}

static struct req *start(bool reader, unsigned long start, unsigned long last)
{
	return start_req(reader, false, start, last);
}

static bool held(struct req *r)
{
	unsigned long long end = now_ns() + TIMEOUT_NS;

	while (load(&r->state) != R_HELD) {
		if (load(&r->state) > R_HELD || now_ns() > end)
			return false;
		pause_us(20);
	}
	return true;
}

/* Held without ever sleeping, in cheat mode (@cheat) or in the tree. */
static bool held_at_once(struct req *r, bool cheat)
{
	return held(r) && r->task->nr_sleeps == 0 && r->rq.cheat == cheat &&
	       r->depth_held == 1;
}

/* Sleeping without the range, 20 ms after it first looked so. */
static bool blocked(struct req *r)
{
	unsigned long long end = now_ns() + TIMEOUT_NS;
	int seen = 0;

	while (load(&r->state) == R_CALLED && now_ns() < end) {
		seen = shim_task_sleeping(r->task) ? seen + 1 : 0;
		if (seen == 100)
			return true;
		pause_us(200);
	}
	return false;
}

/*
 * A request that never got its range never releases it: with a broken
 * lock, stop rather than hang.
 */
static void release(struct req *r)
{
	unsigned long long end = now_ns() + TIMEOUT_NS;

	__atomic_store_n(&r->release, 1, __ATOMIC_RELEASE);
	while (load(&r->state) != R_RELEASED) {
		if (now_ns() > end) {
			printf("Bail out! [%lu, %lu] never held its range\n",
			       r->rq.range.start, r->rq.range.last);
			exit(1);
		}
		pause_us(20);
	}
}

/* Release, join; true if lockdep saw the request's release. */
static bool release_finish(struct req *r)
{
	bool ok;

	release(r);
	pthread_join(r->thread, NULL);
	ok = r->depth_after == 0;
	free(r);
	return ok;
}

static int kill_finish(struct req *r)
{
	int ret;

	shim_send_sigkill(r->task);
	while (load(&r->state) == R_CALLED)
		pause_us(20);
	ret = r->depth_after == 0 && r->state == R_FAILED ? r->ret : 0;
	pthread_join(r->thread, NULL);
	free(r);
	return ret;
}

static bool idle(void)
{
	return !range_adaptive_is_locked(&lock);
}

static bool precise(void)
{
	return range_adaptive_is_precise(&lock);
}

/* A fresh lock in cheat mode; the previous test must have left it idle. */
static void fresh(void)
{
	if (!idle())
		tap_ok(0, "lock idle before it is initialised again");
	range_adaptive_lock_init(&lock);
}

static void test_cheat(void)
{
	struct range_adaptive_req l1, l2;
	struct req *a, *b, *c;
	bool ok;

	fresh();
	tap_ok(idle() && !precise(), "a new lock is unlocked, in cheat mode");

	a = start(R, 0, 9);
	b = start(R, 5, 15);
	c = start(R, 0, TOP);
	ok = held_at_once(a, true) && held_at_once(b, true) &&
	     held_at_once(c, true);
	ok = release_finish(a) && ok;
	ok = release_finish(b) && ok;
	ok = release_finish(c) && ok;
	tap_ok(ok && idle() && !precise(),
	       "readers alone share the lock in cheat mode, none sleeps");

	a = start(W, 100, 200);
	ok = held_at_once(a, true);
	ok = release_finish(a) && ok;
	a = start(W, 0, TOP);
	ok = held_at_once(a, true) && ok;
	ok = release_finish(a) && ok;
	a = start(R, 7, 7);
	ok = held_at_once(a, true) && ok;
	ok = release_finish(a) && ok;
	tap_ok(ok && idle() && !precise(),
	       "a lone writer, then a lone reader, in cheat mode: no switch");

	/* Trylocks from this thread, beside a holder in another. */
	a = start(R, 0, 9);
	ok = held(a);
	range_adaptive_req_init(&l1, 100, 100);
	ok = ok && !range_adaptive_write_trylock(&lock, &l1);
	ok = ok && range_adaptive_read_trylock(&lock, &l1) && l1.cheat &&
	     shim_lockdep_depth() == 1;
	range_adaptive_read_unlock(&lock, &l1);
	ok = ok && shim_lockdep_depth() == 0 && release_finish(a);
	a = start(W, 0, 9);
	ok = ok && held(a);
	ok = ok && !range_adaptive_read_trylock(&lock, &l1) &&
	     !range_adaptive_write_trylock(&lock, &l1);
	ok = ok && release_finish(a);
	tap_ok(ok && idle() && !precise() && shim_lockdep_depth() == 0,
	       "trylocks in cheat mode: fail on a conflict, never switch");

	range_adaptive_req_init(&l1, 0, 9);
	range_adaptive_req_init(&l2, 0, 9);
	ok = range_adaptive_write_trylock(&lock, &l1) && l1.cheat &&
	     range_adaptive_is_locked(&lock) && shim_lockdep_depth() == 1;
	range_adaptive_write_unlock(&lock, &l1);
	range_adaptive_write_lock(&lock, &l1);
	ok = ok && l1.cheat && shim_lockdep_depth() == 1;
	range_adaptive_write_unlock(&lock, &l1);
	ok = ok && range_adaptive_read_lock_killable(&lock, &l2) == 0 &&
	     l2.cheat;
	range_adaptive_read_unlock(&lock, &l2);
	tap_ok(ok && idle() && !precise() && shim_lockdep_depth() == 0,
	       "lockdep sees every cheat-mode acquire released; requests are reusable");
}

/* @first holds in cheat mode; @second conflicts with it in cheat mode. */
static bool switches(bool rf, unsigned long sf, unsigned long lf,
		     bool rs, unsigned long ss, unsigned long ls)
{
	struct req *a, *b;
	bool ok;

	fresh();
	a = start(rf, sf, lf);
	ok = held_at_once(a, true);
	b = start(rs, ss, ls);
	ok = ok && blocked(b) && !precise();
	ok = release_finish(a) && ok;
	ok = ok && held(b) && !b->rq.cheat && precise();
	ok = release_finish(b) && ok;
	return ok && idle() && precise();
}

static void test_switch(void)
{
	struct req *a, *b, *c, *d;
	bool ok;

	tap_ok(switches(R, 0, 9, W, 100, 109),
	       "a writer while a reader holds, disjoint ranges: drains, then precise");
	tap_ok(switches(W, 0, 9, W, 100, 109),
	       "a second writer, disjoint ranges: the whole-object conflict switches");
	tap_ok(switches(W, 0, 9, R, 100, 109),
	       "a reader while a writer holds: drains, then precise");

	/* Requests that come during the drain wait, then use the tree. */
	fresh();
	a = start(R, 0, 9);
	b = start(R, 50, 59);
	ok = held_at_once(a, true) && held_at_once(b, true);
	c = start(W, 100, 109);
	ok = ok && blocked(c);
	d = start(R, 200, 209);
	ok = ok && blocked(d);
	ok = release_finish(a) && ok;
	/* A cheat-mode holder left; one is still counted. */
	ok = ok && blocked(c) && blocked(d) && !precise();
	ok = release_finish(b) && ok;
	ok = ok && held(c) && held(d) && !c->rq.cheat && !d->rq.cheat &&
	     precise();
	ok = release_finish(d) && ok;
	ok = release_finish(c) && ok;
	tap_ok(ok && idle() && precise(),
	       "requests during the drain wait for every cheat-mode holder, then use the tree");

	/* After the switch: disjoint writers do not wait, overlapping do. */
	a = start(W, 0, 9);
	b = start(W, 10, 19);
	ok = held_at_once(a, false) && held_at_once(b, false);
	c = start(W, 5, 5);
	ok = ok && blocked(c);
	ok = release_finish(a) && ok;
	ok = ok && held(c) && !c->rq.cheat;
	ok = release_finish(b) && ok;
	ok = release_finish(c) && ok;
	a = start(R, 0, TOP);
	b = start(R, 3, 3);
	ok = ok && held_at_once(a, false) && held_at_once(b, false);
	ok = release_finish(a) && ok;
	ok = release_finish(b) && ok;
	tap_ok(ok && idle() && precise(),
	       "after the switch: disjoint writers do not wait, overlapping ones do, for good");
}

struct stream {
	pthread_t thread;
	unsigned int id;
	int stop;
	unsigned long ops;
};

/* Overlapping readers back to back: some reader always holds [0, 15]. */
static void *reader_stream(void *arg)
{
	struct stream *s = arg;
	struct range_adaptive_req rq;

	while (!load(&s->stop)) {
		range_adaptive_req_init(&rq, s->id, 15);
		range_adaptive_read_lock(&lock, &rq);
		pause_us(100);
		range_adaptive_read_unlock(&lock, &rq);
		__atomic_fetch_add(&s->ops, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

struct watchdog {
	pthread_t thread;
	struct stream *s;
	int done;
};

/* A starved writer would wait for ever: stop the streams after 2 s. */
static void *watchdog_fn(void *arg)
{
	struct watchdog *wd = arg;
	unsigned long long end = now_ns() + 2000000000ull;
	unsigned int i;

	while (!load(&wd->done) && now_ns() < end)
		pause_us(1000);
	for (i = 0; i < 4; i++)
		__atomic_store_n(&wd->s[i].stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * The writer that starts the switch waits for the readers already in,
 * not for those that keep coming: a fresh lock per round, four readers
 * streaming in cheat mode, then a writer.
 */
static void test_writer_behind_readers(void)
{
	const unsigned int rounds = 20;
	unsigned long long t, sum = 0, max = 0;
	struct range_adaptive_req rq;
	struct stream s[4];
	struct watchdog wd;
	unsigned long reads = 0;
	unsigned int n, i, switched = 0;

	for (n = 0; n < rounds; n++) {
		fresh();
		memset(s, 0, sizeof(s));
		for (i = 0; i < 4; i++) {
			s[i].id = i;
			if (pthread_create(&s[i].thread, NULL, reader_stream,
					   &s[i]))
				abort();
		}
		while (__atomic_load_n(&s[3].ops, __ATOMIC_RELAXED) < 5)
			pause_us(100);
		wd = (struct watchdog){ .s = s };
		if (pthread_create(&wd.thread, NULL, watchdog_fn, &wd))
			abort();
		range_adaptive_req_init(&rq, 0, 15);
		t = now_ns();
		range_adaptive_write_lock(&lock, &rq);
		t = now_ns() - t;
		__atomic_store_n(&wd.done, 1, __ATOMIC_RELEASE);
		pthread_join(wd.thread, NULL);
		switched += !rq.cheat && precise();
		range_adaptive_write_unlock(&lock, &rq);
		sum += t;
		max = t > max ? t : max;
		for (i = 0; i < 4; i++) {
			__atomic_store_n(&s[i].stop, 1, __ATOMIC_RELEASE);
			pthread_join(s[i].thread, NULL);
			reads += s[i].ops;
		}
		if (t >= 1000000000ull)
			break;
	}
	/*
	 * A holder stays 100 us: a wait of a second is starvation (the
	 * watchdog ends it at two).
	 */
	n += n < rounds;
	tap_ok(max < 1000000000ull && switched == rounds && idle(),
	       "a writer behind 4 streaming cheat-mode readers drains them: %u switches in %u rounds, mean %.0f us, max %.0f us (%lu reads)",
	       switched, n, sum / 1e3 / n, max / 1e3, reads);
}

static void test_killable(void)
{
	struct range_adaptive_req l1;
	struct req *a, *b, *k;
	bool ok;

	/* A killable request waiting in the drain. */
	fresh();
	a = start(R, 0, 9);
	ok = held(a);
	b = start(W, 100, 109);
	ok = ok && blocked(b);
	k = start_req(W, true, 300, 309);
	ok = ok && blocked(k);
	ok = ok && kill_finish(k) == -EINTR;
	ok = ok && load(&b->state) == R_CALLED && !precise();
	ok = release_finish(a) && ok;
	ok = ok && held(b) && !b->rq.cheat;
	ok = release_finish(b) && ok;
	tap_ok(ok && idle() && precise(),
	       "a killed request in the drain returns -EINTR, unlocked; the drain goes on");

	/* The request that started the drain is killed. */
	fresh();
	a = start(R, 0, 9);
	ok = held(a);
	k = start_req(W, true, 100, 109);
	ok = ok && blocked(k);
	ok = ok && kill_finish(k) == -EINTR;
	b = start(R, 200, 209);
	ok = ok && blocked(b) && !precise();
	ok = release_finish(a) && ok;
	ok = ok && held(b) && !b->rq.cheat && precise();
	ok = release_finish(b) && ok;
	tap_ok(ok && idle() && precise(),
	       "the drain outlives the killed request that started it");

	/* Trylocks during the drain fail; after it they use the tree. */
	fresh();
	a = start(R, 0, 9);
	ok = held(a);
	b = start(W, 100, 109);
	ok = ok && blocked(b);
	range_adaptive_req_init(&l1, 500, 509);
	ok = ok && !range_adaptive_read_trylock(&lock, &l1) &&
	     !range_adaptive_write_trylock(&lock, &l1) &&
	     shim_lockdep_depth() == 0;
	ok = release_finish(a) && ok;
	ok = ok && held(b);
	ok = ok && range_adaptive_write_trylock(&lock, &l1) && !l1.cheat &&
	     shim_lockdep_depth() == 1;
	range_adaptive_write_unlock(&lock, &l1);
	range_adaptive_req_init(&l1, 105, 105);
	ok = ok && !range_adaptive_read_trylock(&lock, &l1) &&
	     shim_lockdep_depth() == 0;
	ok = release_finish(b) && ok;
	tap_ok(ok && idle() && precise(),
	       "trylocks fail during the drain and use the tree after it");
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "all";
	bool all = !strcmp(what, "all");
	bool known = all;

	range_adaptive_lock_init(&lock);
	if (all || !strcmp(what, "cheat")) {
		test_cheat();
		known = true;
	}
	if (all || !strcmp(what, "switch")) {
		test_switch();
		known = true;
	}
	if (all || !strcmp(what, "fairness")) {
		test_writer_behind_readers();
		known = true;
	}
	if (all || !strcmp(what, "killable")) {
		test_killable();
		known = true;
	}
	if (!known) {
		fprintf(stderr, "rl_adaptive_test: unknown group '%s' (accepted: cheat, switch, fairness, killable, all)\n",
			what);
		return 2;
	}
	tap_ok(shim_warn_count() == 0, "no warnings from the lock or shim");
	return tap_done();
}
