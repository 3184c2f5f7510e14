// SPDX-License-Identifier: GPL-2.0
/*
 * Deterministic tests of lib/range_lock.c: semantics, FIFO order, trylock
 * and killable waits (the nesting deadlock is rl_nesting.c).
 *
 * Each request runs in its own thread.  A request is "blocked" once its
 * thread sleeps in schedule() with a non-zero count of blockers; counts
 * are checked only after the unlock (or kill) that changes them has
 * returned, when they are final, so no check depends on timing.
 *
 * Usage: rl_test semantics|fifo|killable|all    (TAP on stdout)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rl_req.h"
#include "tap.h"

/* Take and release @b while @a is held, from another thread. */
static bool conflicts(bool ra, unsigned long sa, unsigned long la,
		      bool rb, unsigned long sb, unsigned long lb)
{
	struct req *a = start("a", ra, sa, la), *b;
	bool ok = held(a), was_blocked;

	b = start("b", rb, sb, lb);
	was_blocked = blocked(b);
	release(a);
	ok = ok && held(b);
	release_finish(b);
	finish(a);
	return ok && was_blocked && tree_idle();
}

static bool compatible(bool ra, unsigned long sa, unsigned long la,
		       bool rb, unsigned long sb, unsigned long lb)
{
	struct req *a = start("a", ra, sa, la), *b;
	bool ok = held(a);

	b = start("b", rb, sb, lb);
	ok = ok && held(b) && load(&a->state) == R_HELD;
	release_finish(b);
	release_finish(a);
	return ok && tree_idle();
}

static void test_semantics(void)
{
	const unsigned long top = ULONG_MAX;
	struct req *w, *r1, *r2, *r3;
	struct range_lock l;
	bool ok;

	tap_ok(!range_lock_tree_is_locked(&tree), "new tree is unlocked");
	tap_ok(conflicts(W, 0, 9, W, 5, 15), "overlapping writers exclude");
	tap_ok(conflicts(W, 5, 5, W, 0, 100), "writer inside a range conflicts");
	tap_ok(compatible(W, 0, 9, W, 20, 29), "disjoint writers both hold");
	tap_ok(compatible(W, 0, 9, W, 10, 19), "[0,9] and [10,19] don't conflict");
	tap_ok(conflicts(W, 0, 9, W, 9, 19), "[0,9] and [9,19] conflict");
	tap_ok(compatible(R, 0, 9, R, 5, 15), "overlapping readers share");
	tap_ok(conflicts(R, 0, 9, W, 9, 9), "reader excludes overlapping writer");
	tap_ok(conflicts(W, 0, 9, R, 3, 4), "writer excludes overlapping reader");
	tap_ok(compatible(R, 0, 9, W, 10, 10), "reader and disjoint writer");
	tap_ok(conflicts(W, 0, top, W, 0, 0) &&
	       conflicts(W, 0, top, W, 123456, 123457) &&
	       conflicts(W, 0, top, R, top, top) &&
	       conflicts(W, top, top, W, 0, top),
	       "[0,ULONG_MAX] conflicts with every range");
	tap_ok(compatible(R, 0, top, R, 7, 7) && conflicts(R, 0, top, W, 7, 7),
	       "whole-range reader shares with readers only");
	tap_ok(compatible(W, top, top, W, top - 1, top - 1),
	       "[ULONG_MAX,ULONG_MAX] and [ULONG_MAX-1,ULONG_MAX-1] disjoint");

	/* One unlock grants every waiter it was the last blocker of. */
	w = start("w", W, 0, 99);
	ok = held(w);
	r1 = start("r1", R, 0, 9);
	r2 = start("r2", R, 50, 59);
	r3 = start("r3", R, 90, 120);
	ok = ok && blocked(r1) && blocked(r2) && blocked(r3);
	release_finish(w);
	ok = ok && held(r1) && held(r2) && held(r3);
	release_finish(r1);
	release_finish(r2);
	release_finish(r3);
	tap_ok(ok && tree_idle(), "unlock wakes all readers it blocked");

	/* trylock from this thread */
	w = start("w", W, 10, 19);
	ok = held(w);
	range_lock_init(&l, 15, 25);
	ok = ok && !range_write_trylock(&tree, &l) &&
	     !range_read_trylock(&tree, &l);
	range_lock_init(&l, 20, 25);
	ok = ok && range_write_trylock(&tree, &l);
	range_write_unlock(&tree, &l);
	release_finish(w);
	tap_ok(ok && tree_idle(), "trylock fails on conflict, leaves no trace");

	range_lock_init(&l, 0, 9);
	ok = range_read_trylock(&tree, &l) && shim_lockdep_depth() == 1 &&
	     range_lock_tree_is_locked(&tree);
	range_read_unlock(&tree, &l);
	ok = ok && shim_lockdep_depth() == 0;
	range_lock_init(&l, 0, 9);
	range_write_lock(&tree, &l);
	range_write_unlock(&tree, &l);
	/* Reused without a new init, it keeps its range [0, 9]. */
	w = start("w", W, 9, 9);
	ok = ok && held(w);
	ok = ok && !range_write_trylock(&tree, &l) &&
	     !range_read_trylock(&tree, &l);
	release_finish(w);
	range_read_lock(&tree, &l);
	ok = ok && l.start == 0 && l.last == 9;
	range_read_unlock(&tree, &l);
	tap_ok(ok && tree_idle(), "a request can be reused; lockdep balanced");
}

static void test_fifo(void)
{
	struct req *q[8], *a, *b, *c, *d;
	struct range_lock l;
	bool ok, order;
	int i, j;

	/* W2 waits for W1; W3 overlaps only W2 and must queue behind it. */
	a = start("w1", W, 0, 9);
	ok = held(a);
	b = start("w2", W, 5, 15);
	ok = ok && blocked(b);
	c = start("w3", W, 12, 20);
	ok = ok && blocked(c) && waits_for(c, 1);
	release_finish(a);
	ok = ok && held(b) && waits_for(c, 1);
	release_finish(b);
	ok = ok && held(c);
	release_finish(c);
	tap_ok(ok && tree_idle(), "no barging past a waiting writer");

	/* A reader behind a queued writer waits for both writers. */
	a = start("w1", W, 0, 9);
	ok = held(a);
	b = start("w2", W, 0, 9);
	ok = ok && blocked(b);
	c = start("r3", R, 0, 9);
	ok = ok && blocked(c) && waits_for(c, 2);
	release_finish(a);
	ok = ok && held(b) && waits_for(c, 1);
	release_finish(b);
	ok = ok && held(c);
	release_finish(c);
	tap_ok(ok && tree_idle(), "reader queues behind earlier writers");

	/*
	 * R1 holds; W2 waits for it; R3 overlaps only W2 and waits; R4
	 * overlaps only R1 and shares it at once.
	 */
	a = start("r1", R, 0, 9);
	ok = held(a);
	b = start("w2", W, 5, 15);
	ok = ok && blocked(b) && waits_for(b, 1);
	c = start("r3", R, 12, 14);
	ok = ok && blocked(c) && waits_for(c, 1);
	d = start("r4", R, 0, 4);
	ok = ok && held(d);
	range_lock_init(&l, 12, 14);
	ok = ok && !range_read_trylock(&tree, &l);
	range_lock_init(&l, 0, 3);
	ok = ok && range_read_trylock(&tree, &l);
	range_read_unlock(&tree, &l);
	release_finish(a);
	ok = ok && held(b) && waits_for(c, 1);
	release_finish(d);
	release_finish(b);
	ok = ok && held(c);
	release_finish(c);
	tap_ok(ok && tree_idle(),
	       "readers pass only where no writer is queued; trylock agrees");

	/* Eight writers on one index are granted strictly in arrival order. */
	a = start("w0", W, 7, 7);
	ok = held(a);
	for (i = 0; i < 8; i++) {
		q[i] = start("wq", W, 7, 7);
		ok = ok && blocked(q[i]) && waits_for(q[i], i + 1);
	}
	release_finish(a);
	order = ok;
	for (i = 0; i < 8; i++) {
		order = order && held(q[i]);
		for (j = i + 1; j < 8; j++)
			order = order && waits_for(q[j], j - i);
		release_finish(q[i]);
	}
	tap_ok(order && tree_idle(), "writers granted in FIFO order");
}

static void test_killable(void)
{
	struct req *a, *b, *c, *d;
	bool ok;
	int i, n0 = 0, n1 = 0;

	a = start("w1", W, 0, 9);
	ok = held(a);
	b = start_on(&tree, "w2", W, OP_KILLABLE, 0, 9);
	ok = ok && blocked(b);
	ok = ok && kill_req(b) == -EINTR && b->depth_after == 0;
	finish(b);
	release_finish(a);
	tap_ok(ok && tree_idle(), "killed writer returns -EINTR, leaves tree");

	/* W3 counted only the killed W2: it must get the lock. */
	a = start("w1", W, 0, 9);
	ok = held(a);
	b = start_on(&tree, "w2", W, OP_KILLABLE, 5, 15);
	ok = ok && blocked(b);
	c = start("w3", W, 12, 20);
	ok = ok && blocked(c) && waits_for(c, 1);
	ok = ok && kill_req(b) == -EINTR && held(c);
	finish(b);
	release_finish(c);
	release_finish(a);
	tap_ok(ok && tree_idle(), "killed waiter releases a waiter it blocked");

	/* W3 still has W1 ahead: killing W2 must not wake it. */
	a = start("w1", W, 0, 9);
	ok = held(a);
	b = start_on(&tree, "w2", W, OP_KILLABLE, 0, 9);
	ok = ok && blocked(b);
	c = start("w3", W, 0, 9);
	ok = ok && blocked(c) && waits_for(c, 2);
	ok = ok && kill_req(b) == -EINTR && waits_for(c, 1);
	finish(b);
	release_finish(a);
	ok = ok && held(c);
	release_finish(c);
	tap_ok(ok && tree_idle(), "killed waiter wakes nobody still blocked");

	/*
	 * A killed reader: the writer behind it stops counting it; the
	 * writers ahead of it, which never counted it, are untouched.
	 */
	a = start("w1", W, 0, 9);
	ok = held(a);
	b = start("w2", W, 0, 9);
	ok = ok && blocked(b) && waits_for(b, 1);
	c = start_on(&tree, "r3", R, OP_KILLABLE, 0, 9);
	ok = ok && blocked(c) && waits_for(c, 2);
	d = start("w4", W, 0, 9);
	ok = ok && blocked(d) && waits_for(d, 3);
	ok = ok && kill_req(c) == -EINTR && c->depth_after == 0;
	ok = ok && waits_for(b, 1) && waits_for(d, 2);
	finish(c);
	release_finish(a);
	ok = ok && held(b) && waits_for(d, 1);
	release_finish(b);
	ok = ok && held(d);
	release_finish(d);
	tap_ok(ok && tree_idle(), "killed reader adjusts only later waiters");

	/* A killable request that is never killed behaves as a plain one. */
	a = start("r1", R, 0, 9);
	ok = held(a);
	b = start_on(&tree, "w2", W, OP_KILLABLE, 0, 0);
	ok = ok && blocked(b);
	release_finish(a);
	ok = ok && held(b) && b->depth_held == 1;
	release_finish(b);
	tap_ok(ok && tree_idle(), "unkilled killable waiter gets the lock");

	/* Kill racing the last unlock: either outcome, never both. */
	ok = true;
	for (i = 0; i < 200 && ok; i++) {
		a = start("w1", W, 0, 9);
		ok = held(a);
		b = start_on(&tree, "w2", W, OP_KILLABLE, 0, 9);
		ok = ok && blocked(b);
		__atomic_store_n(&a->release, 1, __ATOMIC_RELEASE);
		shim_send_sigkill(b->task);
		while (load(&b->state) == R_CALLED)
			pause_us(5);
		if (b->ret == 0) {
			n0++;
			ok = ok && load(&b->state) == R_HELD;
			release(b);
		} else {
			n1++;
			ok = ok && b->ret == -EINTR;
		}
		finish(b);
		while (load(&a->state) != R_RELEASED)
			pause_us(5);
		finish(a);
		ok = ok && tree_idle();
	}
	tap_ok(ok, "kill racing unlock is consistent (%d got it, %d killed)",
	       n0, n1);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "all";
	bool all = !strcmp(what, "all");
	bool known = all;

	range_lock_tree_init(&tree);
	if (all || !strcmp(what, "semantics")) {
		test_semantics();
		known = true;
	}
	if (all || !strcmp(what, "fifo")) {
		test_fifo();
		known = true;
	}
	if (all || !strcmp(what, "killable")) {
		test_killable();
		known = true;
	}
	if (!known) {
		fprintf(stderr, "rl_test: unknown group '%s' (accepted: semantics, fifo, killable, all)\n",
			what);
		return 2;
	}
	tap_ok(shim_warn_count() == 0, "no warnings from the lock or shim");
	return tap_done();
}
