// SPDX-License-Identifier: GPL-2.0
/*
 * runners/matrix's output as rlstat plan reads it on stdin: the `set KEY
 * VALUE` settings and the `point ID ARGS` lines, taken apart as the awk
 * of runners/run did (a point's fields joined by one space, a setting's
 * value everything after one space past its key), so the plan lines are
 * byte for byte the ones the runner wrote.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"

/* one line of runners/matrix's output, its fields joined by one space */
static char *fields_joined(const char *line, int skip)
{
	char *copy = xstrdup(line), *t, *save = NULL, *out = xstrdup("");
	int i = 0;

	for (t = strtok_r(copy, " \t\n", &save); t;
	     t = strtok_r(NULL, " \t\n", &save), i++) {
		char *o = out;

		if (i < skip)
			continue;
		out = xasprintf("%s%s%s", o, *o ? " " : "", t);
		free(o);
	}
	free(copy);
	return out;
}

struct matrix_out *matrix_out_read(FILE *f)
{
	struct matrix_out *m = xcalloc(1, sizeof(*m));
	char *line = NULL, first[16];
	size_t len = 0;
	ssize_t n;

	while ((n = getline(&line, &len, f)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = 0;
		if (sscanf(line, "%15s", first) != 1)
			continue;
		if (!strcmp(first, "point")) {
			m->points = realloc(m->points, (m->npoints + 1) *
					    sizeof(*m->points));
			if (!m->points)
				die_input("out of memory");
			m->points[m->npoints++] = fields_joined(line, 1);
		} else if (!strncmp(line, "set ", 4)) {
			m->lines = realloc(m->lines, (m->nlines + 1) *
					   sizeof(*m->lines));
			if (!m->lines)
				die_input("out of memory");
			m->lines[m->nlines++] = xstrdup(line + 4);
		}
	}
	free(line);
	return m;
}

const char *matrix_set(const struct matrix_out *m, const char *key)
{
	size_t k = strlen(key);
	int i;

	/* "set KEY VALUE", the value after one space, as awk's sub() did */
	for (i = 0; i < m->nlines; i++)
		if (!strncmp(m->lines[i], key, k) &&
		    (!m->lines[i][k] || m->lines[i][k] == ' '))
			return m->lines[i] + k + (m->lines[i][k] == ' ');
	return NULL;
}
