// SPDX-License-Identifier: GPL-2.0
/* The tree range lock (lib/range_lock.c) behind struct rl_ops. */
#include "rl_ops.h"

static struct range_lock_tree tree;

static void tree_init(unsigned long space)
{
	(void)space;
	range_lock_tree_init(&tree);
}

static void tree_req_init(union rl_req *req, unsigned long start,
			  unsigned long last)
{
	range_lock_init(&req->tree, start, last);
}

static void tree_lock(union rl_req *req, bool reader)
{
	if (reader)
		range_read_lock(&tree, &req->tree);
	else
		range_write_lock(&tree, &req->tree);
}

static int tree_lock_killable(union rl_req *req, bool reader)
{
	return reader ? range_read_lock_killable(&tree, &req->tree) :
			range_write_lock_killable(&tree, &req->tree);
}

static int tree_trylock(union rl_req *req, bool reader)
{
	return reader ? range_read_trylock(&tree, &req->tree) :
			range_write_trylock(&tree, &req->tree);
}

static void tree_unlock(union rl_req *req, bool reader)
{
	if (reader)
		range_read_unlock(&tree, &req->tree);
	else
		range_write_unlock(&tree, &req->tree);
}

static bool tree_is_locked(void)
{
	return range_lock_tree_is_locked(&tree);
}

const struct rl_ops rl_tree_ops = {
	.name = "tree",
	.desc = "lib/range_lock.c: interval tree, FIFO",
	.init = tree_init,
	.req_init = tree_req_init,
	.lock = tree_lock,
	.lock_killable = tree_lock_killable,
	.trylock = tree_trylock,
	.unlock = tree_unlock,
	.is_locked = tree_is_locked,
};
