// SPDX-License-Identifier: GPL-2.0
/*
 * Deterministic tests of lib/range_lock_bitmap.c: which requests conflict
 * (by segment, with aliasing), writer precedence over later readers,
 * ordered claiming, trylock, killable waits, and a writer's wait behind a
 * stream of readers.
 *
 * Each request runs in its own thread.  A request is "blocked" once its
 * thread sleeps in schedule() without holding; it "did not wait" if it
 * holds without ever having slept.  The lock has 16-index segments
 * (shift 4), so segment s is [16 s, 16 s + 15] and segments s and s + 64
 * share a bit.
 *
 * Usage: rl_bitmap_test semantics|fairness|killable|all    (TAP on stdout)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/range_lock_bitmap.h>
#include <linux/sched.h>

#include "shim.h"
#include "tap.h"

#define SEG(s)		(16ul * (s))
#define W		false
#define R		true
#define TIMEOUT_NS	(20ull * 1000 * 1000 * 1000)

enum { R_CALLED = 1, R_HELD, R_FAILED, R_RELEASED };

struct req {
	struct range_bitmap_req rq;
	bool reader, killable;
	pthread_t thread;
	struct task_struct *task;
	int state, ret, release, depth_held, depth_after;
};

static struct range_bitmap_lock lock;

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

static void do_lock(struct range_bitmap_req *rq, bool reader)
{
	if (reader)
		range_bitmap_read_lock(&lock, rq);
	else
		range_bitmap_write_lock(&lock, rq);
}

static void do_unlock(struct range_bitmap_req *rq, bool reader)
{
	if (reader)
		range_bitmap_read_unlock(&lock, rq);
	else
		range_bitmap_write_unlock(&lock, rq);
}

static void *req_thread(void *arg)
{
	struct req *r = arg;

	__atomic_store_n(&r->task, current, __ATOMIC_RELEASE);
	__atomic_store_n(&r->state, R_CALLED, __ATOMIC_RELEASE);
	if (r->killable)
		r->ret = r->reader ?
			 range_bitmap_read_lock_killable(&lock, &r->rq) :
			 range_bitmap_write_lock_killable(&lock, &r->rq);
	else
		do_lock(&r->rq, r->reader);
	if (r->ret) {
		r->depth_after = shim_lockdep_depth();
		__atomic_store_n(&r->state, R_FAILED, __ATOMIC_RELEASE);
		return NULL;
	}
	r->depth_held = shim_lockdep_depth();
	__atomic_store_n(&r->state, R_HELD, __ATOMIC_RELEASE);
	while (!load(&r->release))
		pause_us(50);
	do_unlock(&r->rq, r->reader);
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
	range_bitmap_req_init(&r->rq, start, last);
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

/* Held, and never slept on the way. */
static bool held_at_once(struct req *r)
{
	return held(r) && r->task->nr_sleeps == 0;
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

static void release(struct req *r)
{
	__atomic_store_n(&r->release, 1, __ATOMIC_RELEASE);
	while (load(&r->state) != R_RELEASED)
		pause_us(20);
}

static void finish(struct req *r)
{
	pthread_join(r->thread, NULL);
	free(r);
}

static void release_finish(struct req *r)
{
	release(r);
	finish(r);
}

static bool idle(void)
{
	return !range_bitmap_is_locked(&lock) &&
	       !__atomic_load_n(&lock.waiters.counter, __ATOMIC_ACQUIRE);
}

/* @b waits while @a holds, and holds once @a is released. */
static bool conflicts(bool ra, unsigned long sa, unsigned long la,
		      bool rb, unsigned long sb, unsigned long lb)
{
	struct req *a = start(ra, sa, la), *b;
	bool ok = held(a), was_blocked;

	b = start(rb, sb, lb);
	was_blocked = blocked(b);
	release(a);
	ok = ok && held(b);
	release_finish(b);
	finish(a);
	return ok && was_blocked && idle();
}

/* @b holds beside @a without sleeping. */
static bool compatible(bool ra, unsigned long sa, unsigned long la,
		       bool rb, unsigned long sb, unsigned long lb)
{
	struct req *a = start(ra, sa, la), *b;
	bool ok = held(a);

	b = start(rb, sb, lb);
	ok = ok && held_at_once(b) && load(&a->state) == R_HELD;
	release_finish(b);
	release_finish(a);
	return ok && idle();
}

static void test_semantics(void)
{
	const unsigned long top = ULONG_MAX;
	struct range_bitmap_req l;
	struct req *w, *r1, *r2;
	bool ok;

	tap_ok(idle(), "new lock is unlocked");
	tap_ok(conflicts(W, 0, 9, W, 5, 15), "overlapping writers exclude");
	tap_ok(conflicts(W, 0, 3, W, 12, 15),
	       "writers in one segment exclude, even over disjoint indices");
	tap_ok(compatible(W, SEG(0), SEG(1) - 1, W, SEG(1), SEG(2) - 1),
	       "writers of adjacent segments do not wait");
	tap_ok(conflicts(W, SEG(0), SEG(1), W, SEG(1) + 5, SEG(1) + 5),
	       "a range's last segment is locked: [0, 16] excludes 21");
	tap_ok(conflicts(W, SEG(3) - 1, SEG(3) - 1, W, SEG(2), SEG(2)),
	       "a range's first segment is locked: 47 excludes 32");
	tap_ok(compatible(R, 0, 99, R, 50, 60), "overlapping readers share");
	tap_ok(conflicts(R, 0, 9, W, 9, 9), "reader excludes overlapping writer");
	tap_ok(conflicts(W, 0, 9, R, 3, 4), "writer excludes overlapping reader");
	tap_ok(compatible(R, SEG(0), SEG(0) + 9, W, SEG(5), SEG(6)),
	       "reader and writer of other segments do not wait");
	tap_ok(conflicts(W, SEG(2), SEG(2), W, SEG(66), SEG(66)),
	       "segments 2 and 66 share a bit: a false conflict, by design");
	tap_ok(conflicts(W, SEG(62), SEG(65) + 15, W, SEG(0), SEG(0)) &&
	       conflicts(W, SEG(62), SEG(65) + 15, W, SEG(63), SEG(63)) &&
	       compatible(W, SEG(62), SEG(65) + 15, W, SEG(2), SEG(61) + 15),
	       "a range over segments 62-65 wraps to bits 62, 63, 0, 1");
	tap_ok(conflicts(W, SEG(10), SEG(73) + 15, W, SEG(5), SEG(5)) &&
	       compatible(W, SEG(10), SEG(72) + 15, W, SEG(9), SEG(9)),
	       "64 segments take every bit, 63 leave one free");
	tap_ok(conflicts(W, 0, top, W, 0, 0) &&
	       conflicts(W, 0, top, W, 123456, 123457) &&
	       conflicts(W, 0, top, R, top, top) &&
	       conflicts(W, top, top, W, 0, top),
	       "[0,ULONG_MAX] conflicts with every range");
	tap_ok(compatible(R, 0, top, R, 7, 7) && compatible(R, 7, 7, R, 0, top) &&
	       conflicts(R, 0, top, W, 7, 7) && conflicts(R, 7, 7, W, 0, top),
	       "whole-range reader shares with readers only");

	/* One unlock wakes every reader it blocked. */
	w = start(W, 0, SEG(8));
	ok = held(w);
	r1 = start(R, SEG(1), SEG(1));
	r2 = start(R, SEG(7), SEG(9));
	ok = ok && blocked(r1) && blocked(r2);
	release_finish(w);
	ok = ok && held(r1) && held(r2);
	release_finish(r1);
	release_finish(r2);
	tap_ok(ok && idle(), "unlock wakes all readers it blocked");

	/* trylock from this thread */
	w = start(W, SEG(1), SEG(1));
	ok = held(w);
	range_bitmap_req_init(&l, SEG(1) + 15, SEG(2));
	ok = ok && !range_bitmap_write_trylock(&lock, &l) &&
	     !range_bitmap_read_trylock(&lock, &l);
	range_bitmap_req_init(&l, SEG(2), SEG(3));
	ok = ok && range_bitmap_write_trylock(&lock, &l);
	range_bitmap_write_unlock(&lock, &l);
	release_finish(w);
	r1 = start(R, SEG(4), SEG(4));
	ok = ok && held(r1);
	range_bitmap_req_init(&l, SEG(4), SEG(4));
	ok = ok && !range_bitmap_write_trylock(&lock, &l) &&
	     range_bitmap_read_trylock(&lock, &l);
	range_bitmap_read_unlock(&lock, &l);
	release_finish(r1);
	tap_ok(ok && idle(), "trylock fails on conflict, leaves no trace");

	range_bitmap_req_init(&l, 0, 9);
	ok = range_bitmap_read_trylock(&lock, &l) &&
	     shim_lockdep_depth() == 1 && range_bitmap_is_locked(&lock);
	range_bitmap_read_unlock(&lock, &l);
	ok = ok && shim_lockdep_depth() == 0;
	range_bitmap_write_lock(&lock, &l);
	ok = ok && shim_lockdep_depth() == 1;
	range_bitmap_write_unlock(&lock, &l);
	tap_ok(ok && shim_lockdep_depth() == 0 && idle(),
	       "lockdep sees every acquire released; a request is reusable");
}

/* A writer waits at most for the readers already in its segments. */
static void test_fairness(void)
{
	struct req *r1, *w, *r2, *w1, *wide;
	bool ok;

	r1 = start(R, 0, 9);
	ok = held(r1);
	w = start(W, 5, 5);
	ok = ok && blocked(w);
	r2 = start(R, 7, 7);
	ok = ok && blocked(r2);
	release_finish(r1);
	ok = ok && held(w) && load(&r2->state) == R_CALLED;
	release_finish(w);
	ok = ok && held(r2);
	release_finish(r2);
	tap_ok(ok && idle(),
	       "a waiting writer turns later readers away: no barging past it");

	w1 = start(W, SEG(1), SEG(1));
	ok = held(w1);
	wide = start(W, SEG(0), SEG(3));
	ok = ok && blocked(wide);
	r1 = start(R, SEG(0), SEG(0));
	r2 = start(R, SEG(3), SEG(3));
	ok = ok && blocked(r1) && held_at_once(r2);
	release_finish(w1);
	ok = ok && blocked(wide);
	release_finish(r2);
	ok = ok && held(wide) && load(&r1->state) == R_CALLED;
	release_finish(wide);
	ok = ok && held(r1);
	release_finish(r1);
	tap_ok(ok && idle(),
	       "a wide writer keeps the bits below its first busy one, not those above");
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
	struct range_bitmap_req rq;

	while (!load(&s->stop)) {
		range_bitmap_req_init(&rq, s->id, 15);
		range_bitmap_read_lock(&lock, &rq);
		pause_us(100);
		range_bitmap_read_unlock(&lock, &rq);
		s->ops++;
	}
	return NULL;
}

static void test_reader_stream(void)
{
	struct stream s[4] = { { 0 } };
	unsigned long long t, max = 0, sum = 0;
	struct range_bitmap_req rq;
	unsigned int i, n = 50;
	unsigned long reads = 0;

	for (i = 0; i < 4; i++) {
		s[i].id = i;
		if (pthread_create(&s[i].thread, NULL, reader_stream, &s[i]))
			abort();
	}
	pause_us(20000);
	for (i = 0; i < n; i++) {
		range_bitmap_req_init(&rq, 3, 3);
		t = now_ns();
		range_bitmap_write_lock(&lock, &rq);
		t = now_ns() - t;
		range_bitmap_write_unlock(&lock, &rq);
		sum += t;
		max = t > max ? t : max;
		pause_us(1000);
	}
	for (i = 0; i < 4; i++) {
		__atomic_store_n(&s[i].stop, 1, __ATOMIC_RELEASE);
		pthread_join(s[i].thread, NULL);
		reads += s[i].ops;
	}
	/* A holder stays 100 us: a wait of a second is starvation. */
	tap_ok(max < 1000000000ull && reads > n && idle(),
	       "a writer behind 4 streaming readers: %u waits, mean %.0f us, max %.0f us (%lu reads)",
	       n, sum / 1e3 / n, max / 1e3, reads);
}

static void test_killable(void)
{
	struct req *w, *k, *r, *w1;
	bool ok;

	w = start(W, 0, 9);
	ok = held(w);
	k = start_req(W, true, 5, 5);
	ok = ok && blocked(k);
	shim_send_sigkill(k->task);
	while (load(&k->state) == R_CALLED)
		pause_us(20);
	ok = ok && k->ret == -EINTR && k->depth_after == 0;
	finish(k);
	k = start_req(R, true, 5, 5);
	ok = ok && blocked(k);
	shim_send_sigkill(k->task);
	while (load(&k->state) == R_CALLED)
		pause_us(20);
	ok = ok && k->ret == -EINTR && k->depth_after == 0;
	finish(k);
	release_finish(w);
	tap_ok(ok && idle(), "a killed writer or reader returns -EINTR, unlocked");

	w1 = start(W, SEG(1), SEG(1));
	ok = held(w1);
	k = start_req(W, true, SEG(0), SEG(3));
	ok = ok && blocked(k);
	r = start(R, SEG(0), SEG(0));
	ok = ok && blocked(r);
	shim_send_sigkill(k->task);
	ok = ok && held(r) && load(&w1->state) == R_HELD && k->ret == -EINTR;
	finish(k);
	release_finish(r);
	release_finish(w1);
	tap_ok(ok && idle(),
	       "a writer killed while claiming gives its claimed bits back");

	r = start(R, SEG(0), SEG(0));
	ok = held(r);
	k = start_req(W, true, SEG(0), SEG(0));
	ok = ok && blocked(k);
	w = start(R, SEG(0), SEG(0));
	ok = ok && blocked(w);
	shim_send_sigkill(k->task);
	ok = ok && held(w) && k->ret == -EINTR;
	finish(k);
	release_finish(w);
	release_finish(r);
	tap_ok(ok && idle(),
	       "a writer killed while readers drain lets later readers in");
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "all";
	bool all = !strcmp(what, "all");
	bool known = all;

	range_bitmap_lock_init(&lock, 4);
	if (all || !strcmp(what, "semantics")) {
		test_semantics();
		known = true;
	}
	if (all || !strcmp(what, "fairness")) {
		test_fairness();
		test_reader_stream();
		known = true;
	}
	if (all || !strcmp(what, "killable")) {
		test_killable();
		known = true;
	}
	if (!known) {
		fprintf(stderr, "rl_bitmap_test: unknown group '%s' (accepted: semantics, fairness, killable, all)\n",
			what);
		return 2;
	}
	tap_ok(shim_warn_count() == 0, "no warnings from the lock or shim");
	return tap_done();
}
