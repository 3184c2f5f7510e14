/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RCU for the harness's threads (shim/rcu.c): rbtree.h's publication
 * macros, and the read-side sections, grace periods and deferred frees
 * that the list range lock uses.
 */
#ifndef SHIM_LINUX_RCUPDATE_H
#define SHIM_LINUX_RCUPDATE_H

#include <stddef.h>
#include <linux/compiler.h>
#include <linux/types.h>

#define rcu_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define rcu_dereference_raw(p)	 __atomic_load_n(&(p), __ATOMIC_CONSUME)

void rcu_read_lock(void);
void rcu_read_unlock(void);
void synchronize_rcu(void);
void call_rcu(struct callback_head *head, void (*func)(struct callback_head *));
/* Wait for every callback queued so far, by any thread, to have run. */
void rcu_barrier(void);

/* As the kernel's: the offset of the rcu_head stands in for a callback. */
void shim_kfree_rcu(void *obj, size_t offset);
#define kfree_rcu(ptr, rhf) \
	shim_kfree_rcu((ptr), offsetof(__typeof__(*(ptr)), rhf))

#endif
