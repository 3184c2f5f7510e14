/* SPDX-License-Identifier: GPL-2.0 */
/* rbtree.h publishes nodes for lockless readers; range_lock has none. */
#ifndef SHIM_LINUX_RCUPDATE_H
#define SHIM_LINUX_RCUPDATE_H

#include <linux/compiler.h>

#define rcu_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define rcu_dereference_raw(p)	 __atomic_load_n(&(p), __ATOMIC_CONSUME)

#endif
