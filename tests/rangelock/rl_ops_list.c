// SPDX-License-Identifier: GPL-2.0
/*
 * The list range lock (lib/range_lock_list.c) behind struct rl_ops.
 * RL_LIST_FAIL_EVERY=n in the environment makes every n-th entry
 * allocation fail, so stress runs take the embedded-entry path too.
 */
#include <stdlib.h>

#include <linux/slab.h>

#include "rl_ops.h"

static struct range_list_lock lock;

static void list_init(unsigned long space)
{
	const char *fail = getenv("RL_LIST_FAIL_EVERY");

	(void)space;
	range_list_lock_init(&lock, GFP_KERNEL);
	if (fail)
		shim_kmalloc_fail_every(strtoul(fail, NULL, 0));
}

static void list_req_init(union rl_req *req, unsigned long start,
			  unsigned long last)
{
	range_list_req_init(&req->list, start, last);
}

static void list_lock(union rl_req *req, bool reader)
{
	if (reader)
		range_list_read_lock(&lock, &req->list);
	else
		range_list_write_lock(&lock, &req->list);
}

static int list_lock_killable(union rl_req *req, bool reader)
{
	return reader ? range_list_read_lock_killable(&lock, &req->list) :
			range_list_write_lock_killable(&lock, &req->list);
}

static int list_trylock(union rl_req *req, bool reader)
{
	return reader ? range_list_read_trylock(&lock, &req->list) :
			range_list_write_trylock(&lock, &req->list);
}

static void list_unlock(union rl_req *req, bool reader)
{
	if (reader)
		range_list_read_unlock(&lock, &req->list);
	else
		range_list_write_unlock(&lock, &req->list);
}

/*
 * Also frees the entries left in the list and waits for every deferred
 * free, so that ASan's leak check at exit sees every entry accounted for.
 */
static bool list_is_locked(void)
{
	bool locked = range_list_is_locked(&lock);

	if (!locked) {
		range_list_lock_destroy(&lock);
		rcu_barrier();
		locked = shim_kmalloc_live() != 0;
	}
	return locked;
}

const struct rl_ops rl_list_ops = {
	.name = "list",
	.desc = "lib/range_lock_list.c: Kogan/Dice/Issa lock-free list",
	.init = list_init,
	.req_init = list_req_init,
	.lock = list_lock,
	.lock_killable = list_lock_killable,
	.trylock = list_trylock,
	.unlock = list_unlock,
	.is_locked = list_is_locked,
};
