/* SPDX-License-Identifier: GPL-2.0 */
/* Harness-side view of the shim: counters the tests check. */
#ifndef SHIM_SHIM_H
#define SHIM_SHIM_H

/* WARN_ON()s hit so far, from the lock or from the shim's own checks. */
unsigned long shim_warn_count(void);

#endif
