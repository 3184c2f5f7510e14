/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exit codes of every rlbench tool, rlwork and rlstat alike, so that
 * the runners and nightly timers read one meaning from either.
 */
#ifndef RLEXIT_H
#define RLEXIT_H

#define EXIT_MEASURED	1	/* verification error, failed run or point,
				 * regression */
#define EXIT_BADINPUT	2	/* bad input or missing prerequisite */
#define EXIT_INCONCLUSIVE 3	/* rlstat regress: neither FAIL nor PASS */

#endif
