/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SHIM_LINUX_BITOPS_H
#define SHIM_LINUX_BITOPS_H

#include <linux/bits.h>

/* The lowest set bit of a non-zero word, as the kernel's __ffs(). */
#define __ffs(word)	((unsigned long)__builtin_ctzl(word))

#endif
