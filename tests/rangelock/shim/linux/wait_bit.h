/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wait_var_event() and wake_up_var() for the shim's tasks.  Sleepers on
 * a variable sit in hashed lists, as in the kernel, each under a lock;
 * a sleeper sets its task state under that lock, as
 * prepare_to_wait_event() does, and checks its condition after it, so a
 * wake-up cannot fall between the check and schedule().  Unlike the
 * kernel's, wake_up_var() always takes the list's lock.
 */
#ifndef SHIM_LINUX_WAIT_BIT_H
#define SHIM_LINUX_WAIT_BIT_H

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/sched.h>

struct shim_var_waiter {
	void *var;
	struct task_struct *task;
	struct shim_var_waiter *next;
	bool queued;
};

/*
 * Queue @w (once) and set the task's state; with a signal @state does
 * not ignore pending, dequeue it instead and return -ERESTARTSYS.
 */
long shim_prepare_var_wait(void *var, struct shim_var_waiter *w,
			   unsigned int state);
void shim_finish_var_wait(struct shim_var_waiter *w);
void wake_up_var(void *var);

#define ___shim_wait_var_event(var, condition, state)			\
({									\
	struct shim_var_waiter __w = { 0 };				\
	long __ret = 0;							\
									\
	for (;;) {							\
		long __int = shim_prepare_var_wait((var), &__w, (state)); \
									\
		if (condition)						\
			break;						\
		if (__int) {						\
			__ret = __int;					\
			break;						\
		}							\
		schedule();						\
	}								\
	shim_finish_var_wait(&__w);					\
	__ret;								\
})

#define wait_var_event(var, condition)					\
do {									\
	might_sleep();							\
	if (condition)							\
		break;							\
	___shim_wait_var_event(var, condition, TASK_UNINTERRUPTIBLE);	\
} while (0)

#define wait_var_event_killable(var, condition)				\
({									\
	int __ret = 0;							\
									\
	might_sleep();							\
	if (!(condition))						\
		__ret = ___shim_wait_var_event(var, condition,		\
					       TASK_KILLABLE);		\
	__ret;								\
})

#endif
