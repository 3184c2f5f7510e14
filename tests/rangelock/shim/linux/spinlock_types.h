/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SHIM_LINUX_SPINLOCK_TYPES_H
#define SHIM_LINUX_SPINLOCK_TYPES_H

#include <linux/lockdep.h>

typedef struct {
	int locked;
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED(name)	{ 0 }

#endif
