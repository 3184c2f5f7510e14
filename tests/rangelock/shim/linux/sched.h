/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tasks for the userspace harness: every thread that touches a range lock
 * gets a task_struct on first use.  The task state is a futex word, so
 * set_current_state()/schedule()/wake_up_process() keep the kernel's
 * contract: a wake-up that lands between setting the state and calling
 * schedule() makes schedule() return at once.
 */
#ifndef SHIM_LINUX_SCHED_H
#define SHIM_LINUX_SCHED_H

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/lockdep.h>
#include <linux/types.h>

#define TASK_RUNNING		0x0000
#define TASK_INTERRUPTIBLE	0x0001
#define TASK_UNINTERRUPTIBLE	0x0002
#define TASK_WAKEKILL		0x0100
#define TASK_KILLABLE		(TASK_WAKEKILL | TASK_UNINTERRUPTIBLE)

struct wake_q_node {
	struct wake_q_node *next;
};

#define SHIM_MAX_HELD	8

struct shim_held_lock {
	struct lockdep_map *map;
	int subclass;
	int read;
};

struct task_struct {
	unsigned int __state;		/* futex word */
	int sigkill;			/* a fatal signal is pending */
	int usage;			/* reference count */
	int sleeping;			/* inside schedule(), for tests */
	unsigned long nr_sleeps;
	struct wake_q_node wake_q;
	int nr_held;
	struct shim_held_lock held[SHIM_MAX_HELD];
};

extern __thread struct task_struct *shim_current_task;
struct task_struct *shim_task_attach(void);

static inline struct task_struct *shim_get_current(void)
{
	struct task_struct *t = shim_current_task;

	return likely(t) ? t : shim_task_attach();
}

#define current	shim_get_current()

#define __set_current_state(s) \
	__atomic_store_n(&current->__state, (s), __ATOMIC_RELAXED)
#define set_current_state(s) \
	__atomic_store_n(&current->__state, (s), __ATOMIC_SEQ_CST)

void schedule(void);
int wake_up_process(struct task_struct *task);

/* Harness controls, not kernel API. */
void shim_send_sigkill(struct task_struct *task);
void shim_clear_sigkill(struct task_struct *task);
bool shim_task_sleeping(struct task_struct *task);

#endif
