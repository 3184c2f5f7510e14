// SPDX-License-Identifier: GPL-2.0
/*
 * The text symbols of a kernel's System.map or of nm -n of a static
 * program ("address type name" lines), and the function holding an
 * address.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"

static int sym_cmp(const void *a, const void *b)
{
	const struct prof_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * The text ends at _etext (the kernel's) or at _fini (a static program's
 * last function, a few instructions).
 */
int prof_symtab_load(struct prof_symtab *t, const char *path,
		     const char *prefix, bool optional, char **why)
{
	char line[1024], name[512], type;
	size_t cap = 0;
	uint64_t addr;
	FILE *f = fopen(path, "r");

	memset(t, 0, sizeof(*t));
	if (!f && optional)
		return 0;
	if (!f) {
		*why = xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %511s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, "_etext") || !strcmp(name, "_fini"))
			t->etext = addr;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (t->n == cap) {
			cap = cap ? cap * 2 : 65536;
			t->s = realloc(t->s, cap * sizeof(*t->s));
			if (!t->s)
				die_input("profile: %s: out of memory", path);
		}
		t->s[t->n].addr = addr;
		t->s[t->n].name = xasprintf("%s%s", prefix, name);
		t->n++;
	}
	fclose(f);
	if (!t->n && !optional) {
		*why = xasprintf("%s: no text symbols (accepted: a kernel's System.map, \"address type name\" lines)", path);
		return -1;
	}
	qsort(t->s, t->n, sizeof(*t->s), sym_cmp);
	return 0;
}

ssize_t prof_symtab_find(const struct prof_symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	if (!t->n || addr < t->s[0].addr || (t->etext && addr >= t->etext))
		return -1;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (t->s[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}
