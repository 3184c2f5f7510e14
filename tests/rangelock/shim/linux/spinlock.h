/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A test-and-test-and-set lock with the cost profile of an uncontended
 * kernel spinlock: one atomic exchange to lock, one release store to
 * unlock.  Userspace cannot disable preemption, so a waiter that spins
 * long yields the CPU instead of burning a preempted holder's timeslice.
 * Interrupt flags do not exist here; the *_irqsave forms only keep the
 * kernel code's shape.
 */
#ifndef SHIM_LINUX_SPINLOCK_H
#define SHIM_LINUX_SPINLOCK_H

#include <sched.h>
#include <linux/compiler.h>
#include <linux/spinlock_types.h>

#ifdef SHIM_DEBUG
extern __thread int shim_spin_depth;
#define shim_spin_depth_add(n)	(shim_spin_depth += (n))
#else
#define shim_spin_depth_add(n)	do { } while (0)
#endif

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	barrier();
#endif
}

static inline void spin_lock_init(spinlock_t *lock)
{
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELAXED);
}

static inline void shim_spin_lock(spinlock_t *lock)
{
	unsigned int spins = 0;

	while (__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED)) {
			if (++spins % 1024 == 0)
				sched_yield();
			else
				cpu_relax();
		}
	}
	shim_spin_depth_add(1);
}

static inline void shim_spin_unlock(spinlock_t *lock)
{
	shim_spin_depth_add(-1);
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
}

#define spin_lock(lock)		shim_spin_lock(lock)
#define spin_unlock(lock)	shim_spin_unlock(lock)
#define spin_lock_irqsave(lock, flags) \
	do { (flags) = 0; shim_spin_lock(lock); } while (0)
#define spin_unlock_irqrestore(lock, flags) \
	do { (void)(flags); shim_spin_unlock(lock); } while (0)

#endif
