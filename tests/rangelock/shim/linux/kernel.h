/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SHIM_LINUX_KERNEL_H
#define SHIM_LINUX_KERNEL_H

#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/container_of.h>
#include <linux/limits.h>
#include <linux/types.h>

#ifdef SHIM_DEBUG
void shim_might_sleep(const char *file, int line);
#define might_sleep()	shim_might_sleep(__FILE__, __LINE__)
#else
#define might_sleep()	do { } while (0)
#endif

#endif
