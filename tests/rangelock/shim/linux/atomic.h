/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cmpxchg family and the atomic_t/atomic_long_t operations the locks
 * use, as C11 atomics.  As in the kernel: atomic_read/set and the void
 * operations are unordered, value-returning ones are fully ordered
 * unless their suffix says otherwise.
 */
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

#define atomic_read(v)		__atomic_load_n(&(v)->counter, __ATOMIC_RELAXED)
#define atomic_set(v, i)	__atomic_store_n(&(v)->counter, (i), __ATOMIC_RELAXED)
#define atomic_read_acquire(v)	__atomic_load_n(&(v)->counter, __ATOMIC_ACQUIRE)
#define atomic_inc(v)		((void)__atomic_fetch_add(&(v)->counter, 1, __ATOMIC_RELAXED))
#define atomic_dec(v)		((void)__atomic_fetch_sub(&(v)->counter, 1, __ATOMIC_RELAXED))
#define atomic_inc_return(v)	__atomic_add_fetch(&(v)->counter, 1, __ATOMIC_SEQ_CST)
#define atomic_dec_return(v)	__atomic_sub_fetch(&(v)->counter, 1, __ATOMIC_SEQ_CST)
#define atomic_inc_return_relaxed(v) \
	__atomic_add_fetch(&(v)->counter, 1, __ATOMIC_RELAXED)
#define atomic_dec_return_relaxed(v) \
	__atomic_sub_fetch(&(v)->counter, 1, __ATOMIC_RELAXED)

#define atomic_long_read(v)	__atomic_load_n(&(v)->counter, __ATOMIC_RELAXED)
#define atomic_long_set(v, i)	__atomic_store_n(&(v)->counter, (i), __ATOMIC_RELAXED)
#define atomic_long_read_acquire(v) \
	__atomic_load_n(&(v)->counter, __ATOMIC_ACQUIRE)
#define atomic_long_try_cmpxchg(v, oldp, new) \
	__shim_try_cmpxchg(&(v)->counter, oldp, new, __ATOMIC_SEQ_CST)
#define atomic_long_try_cmpxchg_relaxed(v, oldp, new) \
	__shim_try_cmpxchg(&(v)->counter, oldp, new, __ATOMIC_RELAXED)
#define atomic_long_try_cmpxchg_acquire(v, oldp, new) \
	__shim_try_cmpxchg(&(v)->counter, oldp, new, __ATOMIC_ACQUIRE)
#define atomic_long_sub_return_release(i, v) \
	__atomic_sub_fetch(&(v)->counter, (i), __ATOMIC_RELEASE)
#define atomic_long_sub_return_relaxed(i, v) \
	__atomic_sub_fetch(&(v)->counter, (i), __ATOMIC_RELAXED)
#define atomic_long_xchg(v, new) \
	__atomic_exchange_n(&(v)->counter, (new), __ATOMIC_SEQ_CST)
#define atomic_long_xchg_relaxed(v, new) \
	__atomic_exchange_n(&(v)->counter, (new), __ATOMIC_RELAXED)
#define atomic_long_fetch_or(i, v) \
	__atomic_fetch_or(&(v)->counter, (i), __ATOMIC_SEQ_CST)
#define atomic_long_fetch_or_relaxed(i, v) \
	__atomic_fetch_or(&(v)->counter, (i), __ATOMIC_RELAXED)
#define atomic_long_fetch_andnot(i, v) \
	__atomic_fetch_and(&(v)->counter, ~(i), __ATOMIC_SEQ_CST)
#define atomic_long_fetch_andnot_relaxed(i, v) \
	__atomic_fetch_and(&(v)->counter, ~(i), __ATOMIC_RELAXED)

#endif
