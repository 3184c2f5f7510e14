/* SPDX-License-Identifier: GPL-2.0 */
/* Warnings are counted; the tests require the count to stay zero. */
#ifndef SHIM_LINUX_BUG_H
#define SHIM_LINUX_BUG_H

#include <linux/compiler.h>

void shim_warn(const char *file, int line, const char *cond);

#define WARN_ON(cond) ({						\
	int __ret_warn = !!(cond);					\
	if (unlikely(__ret_warn))					\
		shim_warn(__FILE__, __LINE__, #cond);			\
	unlikely(__ret_warn);						\
})
#define WARN_ON_ONCE(cond)	WARN_ON(cond)
#define BUG_ON(cond)		do { if (WARN_ON(cond)) __builtin_trap(); } while (0)

#endif
