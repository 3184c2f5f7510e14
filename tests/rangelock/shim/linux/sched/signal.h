/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SHIM_LINUX_SCHED_SIGNAL_H
#define SHIM_LINUX_SCHED_SIGNAL_H

#include <linux/sched.h>

/* Only fatal signals exist in the harness. */
static inline int fatal_signal_pending(struct task_struct *p)
{
	return __atomic_load_n(&p->sigkill, __ATOMIC_SEQ_CST);
}

static inline int signal_pending(struct task_struct *p)
{
	return fatal_signal_pending(p);
}

static inline int signal_pending_state(unsigned int state,
				       struct task_struct *p)
{
	if (!(state & (TASK_INTERRUPTIBLE | TASK_WAKEKILL)))
		return 0;
	return signal_pending(p);
}

#endif
