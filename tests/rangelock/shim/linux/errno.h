/* SPDX-License-Identifier: GPL-2.0 */
/* Also reached from the C library's <errno.h>, as the real one is. */
#ifndef SHIM_LINUX_ERRNO_H
#define SHIM_LINUX_ERRNO_H

#include <asm/errno.h>

/* Kernel-internal: a wait ended by a signal (wait_var_event_killable()). */
#define ERESTARTSYS	512

#endif
