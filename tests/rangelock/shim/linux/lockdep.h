/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A lockdep stand-in.  With CONFIG_DEBUG_LOCK_ALLOC it keeps each task's
 * held classes, as lockdep does, so tests can check that every path pairs
 * acquire and release and never nests one class unannotated; without it,
 * as in the kernel, the annotations compile away and the lockdep map is
 * not even referenced.
 */
#ifndef SHIM_LINUX_LOCKDEP_H
#define SHIM_LINUX_LOCKDEP_H

struct lock_class_key {
	char dummy;
};

struct lockdep_map {
	struct lock_class_key *key;
	const char *name;
	short wait_type_inner;
};

enum lockdep_wait_type {
	LD_WAIT_INV = 0,
	LD_WAIT_FREE,
	LD_WAIT_SPIN,
	LD_WAIT_CONFIG,
	LD_WAIT_SLEEP,
};

#ifdef CONFIG_DEBUG_LOCK_ALLOC
void lockdep_init_map_wait(struct lockdep_map *map, const char *name,
			   struct lock_class_key *key, int subclass,
			   int inner);
void shim_lock_acquire(struct lockdep_map *map, int subclass, int trylock,
		       int read, unsigned long ip);
void shim_lock_release(struct lockdep_map *map, unsigned long ip);

#define lock_acquire_exclusive(l, s, t, n, i)	shim_lock_acquire(l, s, t, 0, i)
#define lock_acquire_shared(l, s, t, n, i)	shim_lock_acquire(l, s, t, 1, i)
#define lock_release(l, i)			shim_lock_release(l, i)
#else
#define lock_acquire_exclusive(l, s, t, n, i)	do { } while (0)
#define lock_acquire_shared(l, s, t, n, i)	do { } while (0)
#define lock_release(l, i)			do { } while (0)
#endif

/* Lock statistics are not modelled. */
#define lock_contended(l, i)	do { } while (0)
#define lock_acquired(l, i)	do { } while (0)

/* Classes the calling task holds, per the annotations. */
int shim_lockdep_depth(void);

#endif
