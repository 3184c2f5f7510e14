/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP output for the analysis unit-test programs (test-stats, test-gate):
 * one header, so they report alike; each program prints its own plan.
 */
#ifndef RLSTAT_TAP_H
#define RLSTAT_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int ntest, nfail;

static void ok(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	nfail += !cond;
}

static bool near(double x, double want, double tol)
{
	return fabs(x - want) <= tol;
}

#endif
