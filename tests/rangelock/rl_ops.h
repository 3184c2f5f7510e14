/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One range lock behind a small table of operations, as locktorture's
 * lock_torture_ops, so that the stress validator drives every lock the
 * same way.  Each lock registers its table from a file of its own
 * (rl_ops_<name>.c); a request is the union of the locks' requests.
 */
#ifndef RL_OPS_H
#define RL_OPS_H

#include <stdbool.h>

#include <linux/range_lock.h>
#include <linux/range_lock_bitmap.h>
#include <linux/range_lock_adaptive.h>
#include <linux/range_lock_list.h>

union rl_req {
	struct range_lock tree;
	struct range_bitmap_req bitmap;
	struct range_adaptive_req adaptive;
	struct range_list_req list;
};

struct rl_ops {
	const char *name;
	const char *desc;
	/* Set up the one lock the run uses; @space is the indices it spans. */
	void (*init)(unsigned long space);
	void (*req_init)(union rl_req *req, unsigned long start,
			 unsigned long last);
	void (*lock)(union rl_req *req, bool reader);
	int (*lock_killable)(union rl_req *req, bool reader);
	int (*trylock)(union rl_req *req, bool reader);
	void (*unlock)(union rl_req *req, bool reader);
	/* Anything still held or counted once every thread has unlocked? */
	bool (*is_locked)(void);
	/* Optional: print the lock's own counts at the end of a run. */
	void (*report)(void);
};

extern const struct rl_ops rl_tree_ops;
extern const struct rl_ops rl_bitmap_ops;
extern const struct rl_ops rl_adaptive_ops;
extern const struct rl_ops rl_list_ops;

#endif
