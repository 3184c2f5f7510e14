/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's wake_q contract, implemented in shim.c. */
#ifndef SHIM_LINUX_SCHED_WAKE_Q_H
#define SHIM_LINUX_SCHED_WAKE_Q_H

#include <linux/sched.h>

struct wake_q_head {
	struct wake_q_node *first;
	struct wake_q_node **lastp;
};

#define WAKE_Q_TAIL ((struct wake_q_node *)0x01)

#define WAKE_Q_HEAD_INITIALIZER(name)	{ WAKE_Q_TAIL, &name.first }
#define DEFINE_WAKE_Q(name) \
	struct wake_q_head name = WAKE_Q_HEAD_INITIALIZER(name)

void wake_q_add(struct wake_q_head *head, struct task_struct *task);
void wake_q_add_safe(struct wake_q_head *head, struct task_struct *task);
void wake_up_q(struct wake_q_head *head);

#endif
