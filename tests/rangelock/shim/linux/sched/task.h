/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SHIM_LINUX_SCHED_TASK_H
#define SHIM_LINUX_SCHED_TASK_H

#include <linux/sched.h>

void shim_task_free(struct task_struct *task);

static inline struct task_struct *get_task_struct(struct task_struct *t)
{
	__atomic_fetch_add(&t->usage, 1, __ATOMIC_RELAXED);
	return t;
}

static inline void put_task_struct(struct task_struct *t)
{
	if (__atomic_sub_fetch(&t->usage, 1, __ATOMIC_ACQ_REL) == 0)
		shim_task_free(t);
}

#endif
