// SPDX-License-Identifier: GPL-2.0
/*
 * The deadlock of nesting two requests on one range lock tree, as a
 * documented and detected scenario.
 *
 * Usage: rl_nesting    (TAP on stdout)
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "rl_req.h"
#include "tap.h"

/*
 * Nesting two requests on one tree deadlocks even when their ranges are
 * disjoint, because nobody barges: T holds A = [0, 9]; Z = [5, 15], which
 * overlaps A and B, queues behind A; T asks for B = [10, 19] and queues
 * behind Z, which waits for T.  The scenario is detected two ways, as the
 * kernel would: lockdep (here the shim's) reports the second acquisition
 * as recursive locking, and T's request for B is still not granted after a
 * timeout although B is free, with T waiting for Z and Z for T.  Z is
 * killable, so killing it breaks the cycle and the test can clean up.
 */
struct nester {
	unsigned long a_start, a_last, b_start, b_last;
	struct range_lock a, b;
	struct task_struct *task;
	int state;		/* 1 holds A, 2 asked for B, 3 holds B, 4 done */
	int go, release;
};

static void *nester_thread(void *arg)
{
	struct nester *n = arg;

	__atomic_store_n(&n->task, current, __ATOMIC_RELEASE);
	range_write_lock(&tree, &n->a);
	__atomic_store_n(&n->state, 1, __ATOMIC_RELEASE);
	while (!load(&n->go))
		pause_us(20);
	__atomic_store_n(&n->state, 2, __ATOMIC_RELEASE);
	range_write_lock(&tree, &n->b);
	__atomic_store_n(&n->state, 3, __ATOMIC_RELEASE);
	while (!load(&n->release))
		pause_us(20);
	range_write_unlock(&tree, &n->b);
	range_write_unlock(&tree, &n->a);
	__atomic_store_n(&n->state, 4, __ATOMIC_RELEASE);
	return NULL;
}

/* Has T stayed blocked on B, B's count unchanged, for @ms? */
static bool stuck(struct nester *n, unsigned int ms)
{
	unsigned long long end = now_ns() + ms * 1000000ull;

	while (now_ns() < end) {
		if (load(&n->state) != 2)
			return false;
		pause_us(1000);
	}
	return shim_task_sleeping(n->task) &&
	       __atomic_load_n(&n->b.blocking_ranges, __ATOMIC_ACQUIRE) == 1;
}

static unsigned long expected_warnings;

static bool nesting_case(bool with_z, unsigned long *warned)
{
	struct nester n = { .a_start = 0, .a_last = 9, .b_start = 10,
			    .b_last = 19 };
	unsigned long w0 = shim_warn_count();
	struct req *z = NULL;
	pthread_t t;
	bool ok = true;

	range_lock_init(&n.a, n.a_start, n.a_last);
	range_lock_init(&n.b, n.b_start, n.b_last);
	if (pthread_create(&t, NULL, nester_thread, &n))
		abort();
	while (load(&n.state) != 1)
		pause_us(20);
	if (with_z) {
		z = start_on(&tree, "z", W, OP_KILLABLE, 5, 15);
		ok = blocked(z) && waits_for(z, 1);
	}
	__atomic_store_n(&n.go, 1, __ATOMIC_RELEASE);
	while (load(&n.state) < 2)
		pause_us(20);
	if (with_z) {
		/* The cycle: T waits for Z, Z for T (A). */
		ok = ok && stuck(&n, 300) && waits_for(z, 1);
		/* Z may hold A's overlap by now if T was granted B. */
		if (kill_req(z) != -EINTR) {
			ok = false;
			while (load(&n.state) != 3)
				pause_us(20);
			release(z);
		}
		finish(z);
	}
	while (load(&n.state) != 3)
		pause_us(20);
	__atomic_store_n(&n.release, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	*warned = shim_warn_count() - w0;
	expected_warnings += *warned;
	return ok && tree_idle();
}

static void test_nesting(void)
{
	unsigned long warned;
	bool ok;

	ok = nesting_case(false, &warned);
	tap_ok(ok && warned == 1,
	       "nesting disjoint ranges, nobody queued: granted, lockdep reports recursion (%lu)",
	       warned);
	ok = nesting_case(true, &warned);
	tap_ok(ok, "nesting disjoint ranges with an overlapping waiter between them deadlocks (detected by timeout; broken by killing the waiter)");
	tap_ok(warned == 1,
	       "lockdep reports that nesting as recursive locking (%lu)",
	       warned);
}

int main(void)
{
	range_lock_tree_init(&tree);
	test_nesting();
	tap_ok(shim_warn_count() == expected_warnings,
	       "no warnings from the lock or shim but the expected ones (%lu)",
	       expected_warnings);
	return tap_done();
}
