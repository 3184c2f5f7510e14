/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmalloc() and kfree() over malloc(), with a harness-only fault
 * injection: shim_kmalloc_fail_every(n) makes every n-th kmalloc() fail.
 */
#ifndef SHIM_LINUX_SLAB_H
#define SHIM_LINUX_SLAB_H

#include <stddef.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#define __GFP_DIRECT_RECLAIM	0x400u
#define __GFP_IO		0x40u
#define __GFP_FS		0x80u
#define __GFP_NOWARN		0x2000u
#define GFP_NOWAIT		0u
#define GFP_NOFS		(__GFP_DIRECT_RECLAIM | __GFP_IO)
#define GFP_KERNEL		(__GFP_DIRECT_RECLAIM | __GFP_IO | __GFP_FS)

void *kmalloc(size_t size, gfp_t gfp);
void kfree(const void *p);

/* Harness controls, not kernel API. */
void shim_kmalloc_fail_every(unsigned long n);
/* kmalloc()s not yet freed; kfree_rcu() frees when its callback runs. */
long shim_kmalloc_live(void);
unsigned long shim_kmalloc_failed(void);

#endif
