/* SPDX-License-Identifier: GPL-2.0 */
/* The cmpxchg family, as C11 atomics; the kernel's plain form is fully ordered. */
#ifndef SHIM_LINUX_ATOMIC_H
#define SHIM_LINUX_ATOMIC_H

#include <linux/compiler.h>
#include <linux/types.h>

#define __shim_try_cmpxchg(ptr, oldp, new, order)			\
	__atomic_compare_exchange_n((ptr), (oldp), (new), false, (order), \
				    __ATOMIC_RELAXED)

#define try_cmpxchg(ptr, oldp, new) \
	__shim_try_cmpxchg(ptr, oldp, new, __ATOMIC_SEQ_CST)
#define try_cmpxchg_acquire(ptr, oldp, new) \
	__shim_try_cmpxchg(ptr, oldp, new, __ATOMIC_ACQUIRE)
#define try_cmpxchg_release(ptr, oldp, new) \
	__shim_try_cmpxchg(ptr, oldp, new, __ATOMIC_RELEASE)

#endif
