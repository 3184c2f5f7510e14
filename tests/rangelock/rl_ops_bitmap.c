// SPDX-License-Identifier: GPL-2.0
/* The bitmap range lock (lib/range_lock_bitmap.c) behind struct rl_ops. */
#include "rl_ops.h"

static struct range_bitmap_lock lock;

/*
 * Segments of one index, so that a stress run over a small space has
 * ranges of one segment, ranges of many, and ranges that alias: the
 * validator's shadow space of 2 * space indices is wider than the
 * RANGE_BITMAP_SEGMENTS bits for any space above 32.
 */
static void bitmap_init(unsigned long space)
{
	(void)space;
	range_bitmap_lock_init(&lock, 0);
}

static void bitmap_req_init(union rl_req *req, unsigned long start,
			    unsigned long last)
{
	range_bitmap_req_init(&req->bitmap, start, last);
}

static void bitmap_lock(union rl_req *req, bool reader)
{
	if (reader)
		range_bitmap_read_lock(&lock, &req->bitmap);
	else
		range_bitmap_write_lock(&lock, &req->bitmap);
}

static int bitmap_lock_killable(union rl_req *req, bool reader)
{
	return reader ? range_bitmap_read_lock_killable(&lock, &req->bitmap) :
			range_bitmap_write_lock_killable(&lock, &req->bitmap);
}

static int bitmap_trylock(union rl_req *req, bool reader)
{
	return reader ? range_bitmap_read_trylock(&lock, &req->bitmap) :
			range_bitmap_write_trylock(&lock, &req->bitmap);
}

static void bitmap_unlock(union rl_req *req, bool reader)
{
	if (reader)
		range_bitmap_read_unlock(&lock, &req->bitmap);
	else
		range_bitmap_write_unlock(&lock, &req->bitmap);
}

static bool bitmap_is_locked(void)
{
	return range_bitmap_is_locked(&lock);
}

const struct rl_ops rl_bitmap_ops = {
	.name = "bitmap",
	.desc = "lib/range_lock_bitmap.c: one bit per segment, index % 64",
	.init = bitmap_init,
	.req_init = bitmap_req_init,
	.lock = bitmap_lock,
	.lock_killable = bitmap_lock_killable,
	.trylock = bitmap_trylock,
	.unlock = bitmap_unlock,
	.is_locked = bitmap_is_locked,
};
