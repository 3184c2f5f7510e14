// SPDX-License-Identifier: GPL-2.0
/*
 * One window file of runners/plugins/insn-profile.so (docs/formats.md):
 * a header of its totals, then one row per block start address with the
 * instructions and atomics executed there, which sum to the totals.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"

void prof_window_free(struct prof_window *w)
{
	free(w->vaddr);
	free(w->ni);
	free(w->na);
	memset(w, 0, sizeof(*w));
}

static int fail(struct prof_window *w, FILE *f, char **why, char *msg)
{
	if (f)
		fclose(f);
	prof_window_free(w);
	*why = msg;
	return -1;
}

int prof_window_load(struct prof_window *w, const char *path, char **why)
{
	char line[256], key[32];
	uint64_t a, i, n, si = 0, sa = 0;
	bool rows = false, end_marker = false;
	size_t cap = 0, lineno = 0;
	FILE *f = fopen(path, "r");

	memset(w, 0, sizeof(*w));
	if (!f)
		return fail(w, f, why, xasprintf("%s: %s", path, strerror(errno)));
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (lineno == 1) {
			if (strcmp(line, "# rlbench insn-profile 1\n"))
				return fail(w, f, why, xasprintf("%s:1: not an instruction profile (accepted: files starting \"# rlbench insn-profile 1\", docs/profile.md)", path));
			continue;
		}
		if (!rows) {
			if (!strcmp(line, "vaddr\tinsns\tatomics\n")) {
				rows = true;
			} else if (sscanf(line, "%31s %" SCNu64, key, &n) == 2) {
				if (!strcmp(key, "insns"))
					w->insns = n;
				else if (!strcmp(key, "atomics"))
					w->atomics = n;
			} else if (!strcmp(line, "end\tmarker\n")) {
				end_marker = true;
			}
			continue;
		}
		if (sscanf(line, "%" SCNx64 "\t%" SCNu64 "\t%" SCNu64, &a, &i, &n) != 3)
			return fail(w, f, why, xasprintf("%s:%zu: not a block row (accepted: hex address, instructions, atomics, tab-separated)", path, lineno));
		if (w->n == cap) {
			cap = cap ? cap * 2 : 4096;
			w->vaddr = realloc(w->vaddr, cap * sizeof(*w->vaddr));
			w->ni = realloc(w->ni, cap * sizeof(*w->ni));
			w->na = realloc(w->na, cap * sizeof(*w->na));
			if (!w->vaddr || !w->ni || !w->na)
				die_input("profile: %s: out of memory", path);
		}
		w->vaddr[w->n] = a;
		w->ni[w->n] = i;
		w->na[w->n] = n;
		w->n++;
		si += i;
		sa += n;
	}
	fclose(f);
	if (!rows || !end_marker)
		return fail(w, NULL, why, xasprintf("%s: %s (accepted: a window that ended at its end marker, docs/profile.md)",
			    path, rows ? "the window did not end at its marker" : "no block rows"));
	if (si != w->insns || sa != w->atomics)
		return fail(w, NULL, why, xasprintf("%s: the rows sum to %" PRIu64 " instructions and %" PRIu64 " atomics, the header says %" PRIu64 " and %" PRIu64,
			    path, si, sa, w->insns, w->atomics));
	return 0;
}
