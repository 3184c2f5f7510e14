// SPDX-License-Identifier: GPL-2.0
/*
 * Deterministic tests of lib/range_lock_list.c: which requests conflict,
 * that disjoint ranges never wait, a reader that joins in front of an
 * overlapping writer and waits for it in the list, the pending writer
 * that later overlapping readers defer to, trylock, killable waits, the
 * embedded entry used when allocation fails, and a writer's wait behind
 * a stream of readers.
 *
 * Each request runs in its own thread.  A request is "blocked" once its
 * thread sleeps in schedule() without holding; it "did not wait" if it
 * holds without ever having slept.
 *
 * Usage: rl_list_test semantics|fairness|killable|alloc|all  (TAP on stdout)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/range_lock_list.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "shim.h"
#include "tap.h"

#define W		false
#define R		true
#define TIMEOUT_NS	(20ull * 1000 * 1000 * 1000)

enum { R_CALLED = 1, R_HELD, R_FAILED, R_RELEASED };

struct req {
	struct range_list_req rq;
	bool reader, killable;
	pthread_t thread;
	struct task_struct *task;
	int state, ret, release, depth_held, depth_after;
};

static struct range_list_lock lock;

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

static void do_lock(struct range_list_req *rq, bool reader)
{
	if (reader)
		range_list_read_lock(&lock, rq);
	else
		range_list_write_lock(&lock, rq);
}

static void do_unlock(struct range_list_req *rq, bool reader)
{
	if (reader)
		range_list_read_unlock(&lock, rq);
	else
		range_list_write_unlock(&lock, rq);
}

static void *req_thread(void *arg)
{
	struct req *r = arg;

	__atomic_store_n(&r->task, current, __ATOMIC_RELEASE);
	__atomic_store_n(&r->state, R_CALLED, __ATOMIC_RELEASE);
	if (r->killable)
		r->ret = r->reader ?
			 range_list_read_lock_killable(&lock, &r->rq) :
			 range_list_write_lock_killable(&lock, &r->rq);
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
	range_list_req_init(&r->rq, start, last);
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

/* Release once it holds, without waiting for that. */
static void let_go(struct req *r)
{
	__atomic_store_n(&r->release, 1, __ATOMIC_RELEASE);
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

static int kill_req(struct req *r)
{
	shim_send_sigkill(r->task);
	while (load(&r->state) == R_CALLED)
		pause_us(20);
	return r->ret;
}

static bool idle(void)
{
	return !range_list_is_locked(&lock) &&
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
	struct req *w, *r1, *r2, *d[8];
	struct range_list_req l;
	unsigned int i;
	bool ok;

	tap_ok(idle(), "new lock is unlocked");
	tap_ok(conflicts(W, 0, 9, W, 5, 15), "overlapping writers exclude");
	tap_ok(conflicts(W, 0, 9, W, 9, 9) && conflicts(W, 9, 20, W, 0, 9),
	       "ranges sharing one index exclude, either way round");
	tap_ok(compatible(W, 0, 9, W, 10, 19) && compatible(W, 10, 19, W, 0, 9),
	       "adjacent writers do not wait");
	tap_ok(compatible(R, 0, 99, R, 50, 60) && compatible(R, 50, 60, R, 0, 99),
	       "overlapping readers share");
	tap_ok(conflicts(R, 0, 9, W, 9, 9), "reader excludes overlapping writer");
	tap_ok(conflicts(W, 0, 9, R, 3, 4), "writer excludes overlapping reader");
	tap_ok(conflicts(W, 0, top, W, 0, 0) &&
	       conflicts(W, 0, top, R, top, top) &&
	       conflicts(W, top, top, W, 0, top) &&
	       compatible(R, 0, top, R, top, top),
	       "[0,ULONG_MAX] conflicts with every writer, shares with readers");

	/* Eight disjoint holders, writers and readers mixed: none sleeps. */
	ok = true;
	for (i = 0; i < 8; i++) {
		d[i] = start(i & 1, 100 * (7 - i), 100 * (7 - i) + 99);
		ok = ok && held_at_once(d[i]);
	}
	for (i = 0; i < 8; i++)
		release_finish(d[i]);
	tap_ok(ok && idle(), "disjoint ranges never wait (8 holders, any order)");

	/*
	 * A reader that sorts in front of another reader joins there
	 * without looking further, then finds the writer behind it that it
	 * overlaps: it waits in the list, and gets its range after.
	 */
	r1 = start(R, 5, 5);
	w = start(W, 10, 15);
	ok = held(r1) && held(w);
	r2 = start(R, 0, 12);
	ok = ok && blocked(r2);
	release_finish(w);
	ok = ok && held(r2);
	release_finish(r2);
	release_finish(r1);
	tap_ok(ok && idle(),
	       "a reader that joins in front of an overlapping writer waits for it");

	/* One unlock wakes every reader it blocked. */
	w = start(W, 0, 100);
	ok = held(w);
	r1 = start(R, 10, 10);
	r2 = start(R, 90, 200);
	ok = ok && blocked(r1) && blocked(r2);
	release_finish(w);
	ok = ok && held(r1) && held(r2);
	release_finish(r1);
	release_finish(r2);
	tap_ok(ok && idle(), "unlock wakes all readers it blocked");

	w = start(W, 10, 19);
	ok = held(w);
	range_list_req_init(&l, 19, 25);
	ok = ok && !range_list_write_trylock(&lock, &l) &&
	     !range_list_read_trylock(&lock, &l);
	range_list_req_init(&l, 20, 30);
	ok = ok && range_list_write_trylock(&lock, &l);
	range_list_write_unlock(&lock, &l);
	release_finish(w);
	r1 = start(R, 40, 40);
	ok = ok && held(r1);
	range_list_req_init(&l, 40, 40);
	ok = ok && !range_list_write_trylock(&lock, &l) &&
	     range_list_read_trylock(&lock, &l);
	range_list_read_unlock(&lock, &l);
	release_finish(r1);
	tap_ok(ok && idle(), "trylock fails on conflict, leaves no trace");

	range_list_req_init(&l, 0, 9);
	ok = range_list_read_trylock(&lock, &l) &&
	     shim_lockdep_depth() == 1 && range_list_is_locked(&lock);
	range_list_read_unlock(&lock, &l);
	ok = ok && shim_lockdep_depth() == 0;
	range_list_write_lock(&lock, &l);
	ok = ok && shim_lockdep_depth() == 1;
	range_list_write_unlock(&lock, &l);
	tap_ok(ok && shim_lockdep_depth() == 0 && idle(),
	       "lockdep sees every acquire released; a request is reusable");
}

static void test_fairness(void)
{
	struct req *r1, *w, *r2, *r3, *w2;
	bool ok;

	/* Ends without a hang when r2 does not wait, as in a broken lock. */
	r1 = start(R, 0, 9);
	ok = held(r1);
	w = start(W, 5, 5);
	ok = ok && blocked(w);
	r2 = start(R, 4, 6);
	ok = ok && blocked(r2);
	r3 = start(R, 50, 60);
	ok = ok && held_at_once(r3);
	release_finish(r1);
	ok = ok && held(w) && load(&r2->state) == R_CALLED;
	let_go(w);
	let_go(r2);
	finish(w);
	finish(r2);
	release_finish(r3);
	tap_ok(ok && idle(),
	       "a waiting writer is pending: later overlapping readers wait, disjoint ones do not");

	/*
	 * Only one writer is pending: a second one does not hold readers.
	 * Each reader holds before its writer starts: a thread that has
	 * only been started may enter the lock after the next one.
	 */
	r1 = start(R, 0, 9);
	ok = held(r1);
	w = start(W, 5, 5);
	ok = ok && blocked(w);
	r2 = start(R, 20, 29);
	ok = ok && held(r2);
	w2 = start(W, 25, 25);
	ok = ok && blocked(w2);
	r3 = start(R, 22, 22);
	ok = ok && held_at_once(r3);
	release_finish(r1);
	ok = ok && held(w);
	release_finish(w);
	release_finish(r2);
	release_finish(r3);
	ok = ok && held(w2);
	release_finish(w2);
	tap_ok(ok && idle(),
	       "a second waiting writer is not pending: readers pass it (documented)");
}

struct stream {
	pthread_t thread;
	unsigned int id;
	unsigned long ops;
};

/* The streams stop when told to, or when a writer starves past 1 s. */
static int stream_stop;
static unsigned long long writer_since;

static void *watchdog(void *arg)
{
	unsigned long long since;

	(void)arg;
	while (!load(&stream_stop)) {
		since = __atomic_load_n(&writer_since, __ATOMIC_ACQUIRE);
		if (since && now_ns() - since > 1000000000ull)
			__atomic_store_n(&stream_stop, 1, __ATOMIC_RELEASE);
		pause_us(10000);
	}
	return NULL;
}

/* Overlapping readers back to back: some reader always holds [0, 15]. */
static void *reader_stream(void *arg)
{
	struct stream *s = arg;
	struct range_list_req rq;

	while (!load(&stream_stop)) {
		range_list_req_init(&rq, s->id, 15);
		range_list_read_lock(&lock, &rq);
		pause_us(100);
		range_list_read_unlock(&lock, &rq);
		s->ops++;
	}
	return NULL;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

static void test_reader_stream(void)
{
	unsigned long long t[100], sum = 0;
	struct stream s[4] = { { 0 } };
	struct range_list_req rq;
	unsigned int i, n = 100;
	unsigned long reads = 0;

	pthread_t dog;

	if (pthread_create(&dog, NULL, watchdog, NULL))
		abort();
	for (i = 0; i < 4; i++) {
		s[i].id = i;
		if (pthread_create(&s[i].thread, NULL, reader_stream, &s[i]))
			abort();
	}
	pause_us(20000);
	for (i = 0; i < n; i++) {
		range_list_req_init(&rq, 3, 3);
		t[i] = now_ns();
		__atomic_store_n(&writer_since, t[i], __ATOMIC_RELEASE);
		range_list_write_lock(&lock, &rq);
		__atomic_store_n(&writer_since, 0, __ATOMIC_RELEASE);
		t[i] = now_ns() - t[i];
		range_list_write_unlock(&lock, &rq);
		sum += t[i];
		pause_us(1000);
	}
	__atomic_store_n(&stream_stop, 1, __ATOMIC_RELEASE);
	pthread_join(dog, NULL);
	for (i = 0; i < 4; i++) {
		pthread_join(s[i].thread, NULL);
		reads += s[i].ops;
	}
	qsort(t, n, sizeof(t[0]), cmp_ull);
	/* A holder stays 100 us: a wait of a second is starvation. */
	tap_ok(t[n - 1] < 1000000000ull && reads > n && idle(),
	       "a writer behind 4 streaming readers: %u waits, mean %.0f us, p99 %.0f us, max %.0f us (%lu reads)",
	       n, sum / 1e3 / n, t[n * 99 / 100 - 1] / 1e3, t[n - 1] / 1e3,
	       reads);
}

static void test_killable(void)
{
	struct req *w, *k, *r1, *r2;
	bool ok;

	w = start(W, 0, 9);
	ok = held(w);
	k = start_req(W, true, 5, 5);
	ok = ok && blocked(k) && kill_req(k) == -EINTR && k->depth_after == 0;
	finish(k);
	k = start_req(R, true, 5, 5);
	ok = ok && blocked(k) && kill_req(k) == -EINTR && k->depth_after == 0;
	finish(k);
	release_finish(w);
	tap_ok(ok && idle(), "a killed writer or reader returns -EINTR, unlocked");

	r1 = start(R, 0, 9);
	ok = held(r1);
	k = start_req(W, true, 5, 5);
	ok = ok && blocked(k);
	r2 = start(R, 4, 6);
	ok = ok && blocked(r2);
	ok = kill_req(k) == -EINTR && ok && held(r2);
	finish(k);
	release_finish(r2);
	release_finish(r1);
	tap_ok(ok && idle(), "a killed pending writer lets the readers it held back in");

	/* Killed while waiting in the list: its entry must not block. */
	r1 = start(R, 5, 5);
	w = start(W, 10, 15);
	ok = held(r1) && held(w);
	k = start_req(R, true, 0, 12);
	ok = ok && blocked(k) && kill_req(k) == -EINTR;
	finish(k);
	r2 = start(W, 0, 3);
	ok = ok && held(r2);
	release_finish(r2);
	release_finish(w);
	release_finish(r1);
	tap_ok(ok && idle(), "a reader killed inside the list leaves it");
}

/* Every allocation fails: requests use their embedded entries. */
static void test_alloc(void)
{
	unsigned long failed = shim_kmalloc_failed();
	struct range_list_req l;
	struct req *r1, *w, *r2;
	bool ok;

	shim_kmalloc_fail_every(1);
	r1 = start(R, 5, 5);
	w = start(W, 10, 15);
	ok = held(r1) && held(w);
	r2 = start(R, 0, 12);
	ok = ok && blocked(r2);
	release_finish(w);
	ok = ok && held(r2);
	range_list_req_init(&l, 0, 0);
	ok = ok && !range_list_write_trylock(&lock, &l) &&
	     !range_list_read_trylock(&lock, &l);
	range_list_req_init(&l, 100, 100);
	ok = ok && !range_list_write_trylock(&lock, &l);
	release_finish(r2);
	release_finish(r1);
	ok = ok && conflicts(W, 0, 9, W, 5, 15) && compatible(R, 0, 9, R, 5, 5);
	shim_kmalloc_fail_every(0);
	tap_ok(ok && idle() && shim_kmalloc_failed() > failed,
	       "with every allocation failing, embedded entries keep the semantics; trylock fails");

	range_list_lock_destroy(&lock);
	rcu_barrier();
	tap_ok(shim_kmalloc_live() == 0,
	       "every entry freed once the lock is destroyed (%ld live)",
	       shim_kmalloc_live());
	range_list_lock_init(&lock, GFP_KERNEL);
}

int main(int argc, char **argv)
{
	static const char *const groups[] = {
		"semantics", "fairness", "killable", "alloc"
	};
	const char *what = argc > 1 ? argv[1] : "all";
	bool all = !strcmp(what, "all");
	unsigned int i;

	for (i = 0; i < 4 && strcmp(what, groups[i]); i++)
		;
	if (!all && i == 4) {
		fprintf(stderr, "rl_list_test: unknown group '%s' (accepted: semantics, fairness, killable, alloc, all)\n",
			what);
		return 2;
	}
	range_list_lock_init(&lock, GFP_KERNEL);
	if (all || i == 0)
		test_semantics();
	if (all || i == 1) {
		test_fairness();
		test_reader_stream();
	}
	if (all || i == 2)
		test_killable();
	if (all || i == 3)
		test_alloc();
	tap_ok(shim_warn_count() == 0, "no warnings from the lock or shim");
	return tap_done();
}
