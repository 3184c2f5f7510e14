/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SHIM_LINUX_STDDEF_H
#define SHIM_LINUX_STDDEF_H

#include <linux/types.h>

#endif
