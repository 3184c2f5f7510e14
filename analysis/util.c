// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rlstat.h"

void die_input(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_BADINPUT);
}

static void oom(void)
{
	fputs("rlstat: out of memory\n", stderr);
	exit(EXIT_BADINPUT);
}

void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		oom();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	return p;
}

double parse_alpha(const char *s)
{
	char *end;
	double a;

	errno = 0;
	a = strtod(s, &end);
	if (errno || end == s || *end || !(a > 0 && a < 0.5))
		die_input("--alpha %s: accepted is a number in (0, 0.5), "
			  "e.g. 0.05", s);
	return a;
}
