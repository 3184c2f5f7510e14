/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SHIM_LINUX_LIMITS_H
#define SHIM_LINUX_LIMITS_H

#include <limits.h>

#endif
