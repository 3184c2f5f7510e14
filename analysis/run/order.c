// SPDX-License-Identifier: GPL-2.0
/* The order of a run's variants in every report, table and chart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/run.h"

/*
 * The order reports show variants in: kernels/variants' rows (the baseline,
 * stock, first), so a new variant is one row there and no list here. The
 * file is $RLBENCH_VARIANTS, else ../kernels/variants next to the rlstat
 * binary; a run copied where neither exists still sorts: stock first, other
 * names alphabetically, "host" last.
 */
static char **order;
static int norder = -1;

static void order_add(const char *name)
{
	order = realloc(order, (norder + 1) * sizeof(*order));
	if (!order)
		die_input("out of memory");
	order[norder++] = xstrdup(name);
}

static FILE *variants_open(void)
{
	const char *env = getenv("RLBENCH_VARIANTS");
	char exe[4096], *slash;
	ssize_t n;

	if (env && *env)
		return fopen(env, "r");
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 32);
	if (n <= 0)
		return NULL;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	strcpy(slash, "/../kernels/variants");
	return fopen(exe, "r");
}

static void order_load(void)
{
	char line[1024], name[256];
	FILE *f;

	norder = 0;
	f = variants_open();
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (line[0] != '#' && sscanf(line, "%255s", name) == 1)
				order_add(name);
		fclose(f);
	}
	if (!norder)
		order_add("stock");
}

/* A variant with features (stock+fault-retry) ranks as its row, after it. */
static int variant_rank(const char *v)
{
	size_t n = strcspn(v, "+");
	int i;

	if (norder < 0)
		order_load();
	for (i = 0; i < norder; i++)
		if (strlen(order[i]) == n && !strncmp(v, order[i], n))
			return i;
	return strcmp(v, "host") ? norder : norder + 1;
}

int variant_cmp(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	int rx = variant_rank(x), ry = variant_rank(y);

	return rx != ry ? rx - ry : strcmp(x, y);
}

/* Variant indices with the baseline first. */
int *variant_order(const struct run *r, int base)
{
	int *o = xcalloc(r->nvariants, sizeof(int));
	int i, k = 0;

	o[k++] = base;
	for (i = 0; i < r->nvariants; i++)
		if (i != base)
			o[k++] = i;
	return o;
}
