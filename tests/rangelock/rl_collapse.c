// SPDX-License-Identifier: GPL-2.0
/*
 * The lock order of khugepaged's collapse_file() against a write fault's
 * ext4_page_mkwrite() under the rangelock strategy, on the kernel's lock.
 * No guest reaches collapse_file() (the guest config has no
 * READ_ONLY_THP_FOR_FS, kernels/README.md), so the order is shown here:
 *
 *   fault:    range of its page, then the folio lock (ext4_page_mkwrite)
 *   collapse: the old folios' locks, then the range of the new folio
 *
 * rangelock makes shared requests exclusive, so a collapse that waits for
 * its range while the fault waits for the folio is an ABBA deadlock. 0006
 * makes collapse_file() only try the range under a range strategy and
 * abandon the collapse when it is busy. Both protocols run below, with
 * the folio lock a mutex and the fault's wait for it bounded, so the
 * deadlock shows as that wait timing out while the collapse sleeps on the
 * range, and the fixed protocol as the fault getting its folio.
 *
 * Usage: rl_collapse    (TAP on stdout)
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "rl_req.h"
#include "tap.h"

#define FOLIO_WAIT_MS	500	/* past it, the fault is deadlocked */

struct collapse_case {
	bool trylock;			/* the fixed protocol */
	pthread_mutex_t folio;
	struct range_lock fault_range, collapse_range;
	struct task_struct *collapse_task;
	int fault_state;		/* 1 holds its range, 2 asked for the folio, 3 done */
	int collapse_state;		/* 1 holds the folio, 2 asked for the range, 3 done */
	int fault_go, collapse_go;
	int fault_timed_out, collapse_abandoned, collapse_held_range;
};

static void set(int *p, int v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static void *fault_thread(void *arg)
{
	struct collapse_case *c = arg;
	struct timespec until;

	range_write_lock(&tree, &c->fault_range);
	set(&c->fault_state, 1);
	while (!load(&c->fault_go))
		pause_us(20);
	set(&c->fault_state, 2);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += FOLIO_WAIT_MS * 1000000L;
	until.tv_sec += until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	if (pthread_mutex_timedlock(&c->folio, &until) == 0)
		pthread_mutex_unlock(&c->folio);
	else
		set(&c->fault_timed_out, 1);
	/* a deadlocked fault gives its range up here, so the test ends */
	range_write_unlock(&tree, &c->fault_range);
	set(&c->fault_state, 3);
	return NULL;
}

static void *collapse_thread(void *arg)
{
	struct collapse_case *c = arg;

	__atomic_store_n(&c->collapse_task, current, __ATOMIC_RELEASE);
	pthread_mutex_lock(&c->folio);
	set(&c->collapse_state, 1);
	while (!load(&c->collapse_go))
		pause_us(20);
	set(&c->collapse_state, 2);
	if (c->trylock) {
		if (!range_write_trylock(&tree, &c->collapse_range)) {
			set(&c->collapse_abandoned, 1);
			pthread_mutex_unlock(&c->folio);
			set(&c->collapse_state, 3);
			return NULL;
		}
	} else {
		range_write_lock(&tree, &c->collapse_range);
	}
	set(&c->collapse_held_range, 1);
	range_write_unlock(&tree, &c->collapse_range);
	pthread_mutex_unlock(&c->folio);
	set(&c->collapse_state, 3);
	return NULL;
}

/*
 * The interleaving that deadlocked: the fault holds its range, collapse
 * the folio; the fault asks for the folio, then collapse for the range.
 * Returns whether the collapse was asleep on the range when the fault's
 * wait for the folio ran out.
 */
static bool run_case(struct collapse_case *c)
{
	pthread_t f, k;
	bool asleep = false;

	pthread_mutex_init(&c->folio, NULL);
	range_lock_init(&c->fault_range, 3, 3);
	range_lock_init(&c->collapse_range, 0, 511);
	if (pthread_create(&f, NULL, fault_thread, c))
		abort();
	while (load(&c->fault_state) != 1)
		pause_us(20);
	if (pthread_create(&k, NULL, collapse_thread, c))
		abort();
	while (load(&c->collapse_state) != 1)
		pause_us(20);
	set(&c->fault_go, 1);
	while (load(&c->fault_state) != 2)
		pause_us(20);
	pause_us(20000);	/* the fault is in its wait for the folio */
	set(&c->collapse_go, 1);
	while (load(&c->fault_state) != 3) {
		if (!load(&c->collapse_held_range) &&
		    load(&c->collapse_state) == 2 &&
		    shim_task_sleeping(__atomic_load_n(&c->collapse_task,
						       __ATOMIC_ACQUIRE)))
			asleep = true;
		pause_us(200);
	}
	pthread_join(f, NULL);
	pthread_join(k, NULL);
	pthread_mutex_destroy(&c->folio);
	return asleep;
}

int main(void)
{
	struct collapse_case blocking = { .trylock = false };
	struct collapse_case fixed = { .trylock = true };
	bool asleep;

	range_lock_tree_init(&tree);

	asleep = run_case(&blocking);
	tap_ok(load(&blocking.fault_timed_out) && asleep,
	       "collapse waiting for its range: the fault waits %d ms for the folio while collapse sleeps on the range (ABBA)",
	       FOLIO_WAIT_MS);
	tap_ok(load(&blocking.collapse_held_range) && tree_idle(),
	       "... and only the fault giving its range up ends it");

	asleep = run_case(&fixed);
	tap_ok(!load(&fixed.fault_timed_out) && !asleep,
	       "collapse trying its range (0006): the fault gets its folio");
	tap_ok(load(&fixed.collapse_abandoned) &&
	       !load(&fixed.collapse_held_range) && tree_idle(),
	       "... and the collapse is abandoned, its folio unlocked");
	tap_ok(shim_warn_count() == 0,
	       "no warnings from the lock or the shim (%lu)",
	       shim_warn_count());
	return tap_done();
}
