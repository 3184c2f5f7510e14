/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SHIM_LINUX_BITS_H
#define SHIM_LINUX_BITS_H

#define BITS_PER_LONG	(8 * (int)sizeof(long))

#endif
