// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler, wake_q and lockdep stand-ins behind the shim headers.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/* <linux/futex.h> would pull the system <linux/types.h>, not the shim's. */
#define FUTEX_WAIT_PRIVATE	128
#define FUTEX_WAKE_PRIVATE	129

#include <linux/bug.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/wake_q.h>
#include <linux/spinlock.h>
#include <linux/wait_bit.h>

#include "shim.h"

__thread struct task_struct *shim_current_task;
#ifdef SHIM_DEBUG
__thread int shim_spin_depth;
#endif

static unsigned long shim_warnings;
static pthread_key_t task_key;
static pthread_once_t task_key_once = PTHREAD_ONCE_INIT;

void shim_warn(const char *file, int line, const char *cond)
{
	__atomic_fetch_add(&shim_warnings, 1, __ATOMIC_RELAXED);
	fprintf(stderr, "WARNING: %s:%d: %s\n", file, line, cond);
}

unsigned long shim_warn_count(void)
{
	return __atomic_load_n(&shim_warnings, __ATOMIC_RELAXED);
}

#ifdef SHIM_DEBUG
void shim_might_sleep(const char *file, int line)
{
	if (shim_spin_depth)
		shim_warn(file, line, "might_sleep() under a spinlock");
}
#endif

static long futex(unsigned int *uaddr, int op, unsigned int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

void shim_task_free(struct task_struct *task)
{
	free(task);
}

static void task_exit(void *arg)
{
	struct task_struct *task = arg;

	if (task->nr_held)
		shim_warn(__FILE__, __LINE__, "task exits holding locks");
	shim_current_task = NULL;
	put_task_struct(task);
}

static void make_task_key(void)
{
	if (pthread_key_create(&task_key, task_exit))
		abort();
}

struct task_struct *shim_task_attach(void)
{
	struct task_struct *task = calloc(1, sizeof(*task));

	if (!task)
		abort();
	task->usage = 1;
	pthread_once(&task_key_once, make_task_key);
	pthread_setspecific(task_key, task);
	shim_current_task = task;
	return task;
}

void schedule(void)
{
	struct task_struct *task = current;
	unsigned int state;

#ifdef SHIM_DEBUG
	if (shim_spin_depth)
		shim_warn(__FILE__, __LINE__, "schedule() under a spinlock");
#endif
	task->nr_sleeps++;
	__atomic_store_n(&task->sleeping, 1, __ATOMIC_SEQ_CST);
	for (;;) {
		state = __atomic_load_n(&task->__state, __ATOMIC_SEQ_CST);
		if (state == TASK_RUNNING)
			break;
		if (signal_pending_state(state, task)) {
			__set_current_state(TASK_RUNNING);
			break;
		}
		futex(&task->__state, FUTEX_WAIT_PRIVATE, state);
	}
	__atomic_store_n(&task->sleeping, 0, __ATOMIC_SEQ_CST);
}

int wake_up_process(struct task_struct *task)
{
	if (__atomic_exchange_n(&task->__state, TASK_RUNNING,
				__ATOMIC_SEQ_CST) == TASK_RUNNING)
		return 0;
	futex(&task->__state, FUTEX_WAKE_PRIVATE, 1);
	return 1;
}

/* What signal_wake_up() does for SIGKILL: wake a TASK_WAKEKILL sleeper. */
void shim_send_sigkill(struct task_struct *task)
{
	unsigned int state;

	__atomic_store_n(&task->sigkill, 1, __ATOMIC_SEQ_CST);
	state = __atomic_load_n(&task->__state, __ATOMIC_SEQ_CST);
	while (state & TASK_WAKEKILL) {
		if (__atomic_compare_exchange_n(&task->__state, &state,
						TASK_RUNNING, false,
						__ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST)) {
			futex(&task->__state, FUTEX_WAKE_PRIVATE, 1);
			break;
		}
	}
}

void shim_clear_sigkill(struct task_struct *task)
{
	__atomic_store_n(&task->sigkill, 0, __ATOMIC_SEQ_CST);
}

bool shim_task_sleeping(struct task_struct *task)
{
	return __atomic_load_n(&task->sleeping, __ATOMIC_SEQ_CST);
}

static bool __wake_q_add(struct wake_q_head *head, struct task_struct *task)
{
	struct wake_q_node *node = &task->wake_q;
	struct wake_q_node *expected = NULL;

	/* Already queued somewhere: that queue's owner will wake it. */
	if (!__atomic_compare_exchange_n(&node->next, &expected, WAKE_Q_TAIL,
					 false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		return false;
	*head->lastp = node;
	head->lastp = &node->next;
	return true;
}

void wake_q_add(struct wake_q_head *head, struct task_struct *task)
{
	if (__wake_q_add(head, task))
		get_task_struct(task);
}

void wake_q_add_safe(struct wake_q_head *head, struct task_struct *task)
{
	if (!__wake_q_add(head, task))
		put_task_struct(task);
}

void wake_up_q(struct wake_q_head *head)
{
	struct wake_q_node *node = head->first;
	struct task_struct *task;

	while (node != WAKE_Q_TAIL) {
		task = container_of(node, struct task_struct, wake_q);
		node = __atomic_load_n(&node->next, __ATOMIC_RELAXED);
		__atomic_store_n(&task->wake_q.next, NULL, __ATOMIC_SEQ_CST);
		wake_up_process(task);
		put_task_struct(task);
	}
}

int shim_lockdep_depth(void)
{
	return current->nr_held;
}

#ifdef CONFIG_DEBUG_LOCK_ALLOC
void lockdep_init_map_wait(struct lockdep_map *map, const char *name,
			   struct lock_class_key *key, int subclass,
			   int inner)
{
	(void)subclass;
	map->name = name;
	map->key = key;
	map->wait_type_inner = inner;
}

void shim_lock_acquire(struct lockdep_map *map, int subclass, int trylock,
		       int read, unsigned long ip)
{
	struct task_struct *task = current;
	int i;

	(void)ip;
	if (!map->key)
		shim_warn(__FILE__, __LINE__, "lock class not initialised");
	/* As lockdep: a blocking acquire of a held class may deadlock. */
	for (i = 0; i < task->nr_held && !trylock; i++)
		if (task->held[i].map->key == map->key &&
		    task->held[i].subclass == subclass)
			shim_warn(__FILE__, __LINE__, "recursive locking");
	if (task->nr_held == SHIM_MAX_HELD) {
		shim_warn(__FILE__, __LINE__, "too many held locks");
		return;
	}
	task->held[task->nr_held].map = map;
	task->held[task->nr_held].subclass = subclass;
	task->held[task->nr_held].read = read;
	task->nr_held++;
}

void shim_lock_release(struct lockdep_map *map, unsigned long ip)
{
	struct task_struct *task = current;
	int i;

	(void)ip;
	for (i = task->nr_held - 1; i >= 0; i--) {
		if (task->held[i].map != map)
			continue;
		task->held[i] = task->held[--task->nr_held];
		return;
	}
	shim_warn(__FILE__, __LINE__, "releasing a lock that is not held");
}
#endif

/* wait_var_event(): hashed lists of sleepers, as the kernel's. */
#define VAR_WAIT_BITS	6

static struct {
	spinlock_t lock;
	struct shim_var_waiter *first;
} var_wait[1 << VAR_WAIT_BITS];

static unsigned int var_hash(void *var)
{
	return ((uintptr_t)var >> 4) & ((1 << VAR_WAIT_BITS) - 1);
}

long shim_prepare_var_wait(void *var, struct shim_var_waiter *w,
			   unsigned int state)
{
	unsigned int h = var_hash(var);
	struct shim_var_waiter **p;
	long ret = 0;

	spin_lock(&var_wait[h].lock);
	if (signal_pending_state(state, current)) {
		for (p = &var_wait[h].first; w->queued && *p; p = &(*p)->next)
			if (*p == w) {
				*p = w->next;
				w->queued = false;
				break;
			}
		ret = -ERESTARTSYS;
	} else {
		if (!w->queued) {
			w->var = var;
			w->task = current;
			w->next = var_wait[h].first;
			var_wait[h].first = w;
			w->queued = true;
		}
		set_current_state(state);
	}
	spin_unlock(&var_wait[h].lock);
	return ret;
}

void shim_finish_var_wait(struct shim_var_waiter *w)
{
	struct shim_var_waiter **p;
	unsigned int h;

	__set_current_state(TASK_RUNNING);
	if (!w->queued)
		return;
	h = var_hash(w->var);
	spin_lock(&var_wait[h].lock);
	for (p = &var_wait[h].first; *p; p = &(*p)->next)
		if (*p == w) {
			*p = w->next;
			break;
		}
	w->queued = false;
	spin_unlock(&var_wait[h].lock);
}

void wake_up_var(void *var)
{
	unsigned int h = var_hash(var);
	struct shim_var_waiter *w;

	spin_lock(&var_wait[h].lock);
	for (w = var_wait[h].first; w; w = w->next)
		if (w->var == var)
			wake_up_process(w->task);
	spin_unlock(&var_wait[h].lock);
}
