// SPDX-License-Identifier: GPL-2.0
/*
 * A run's profiles (<variant>/<point>-cost-i<N>.profile, next to each its
 * result), each block's counts given to the function holding its start
 * address (self counts): the variant's System.map for the kernel half
 * (cost guests boot nokaslr, so the link addresses are the run's),
 * RUN/rlwork.map below it (nm -n of the static rlwork the guests ran),
 * or "user (rlwork)" without it; and the cross-check of each window's
 * total per op against the guest clock's insn/op, 1e9 / ops_per_s.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "profile/profile.h"

/* x86-64: canonical kernel addresses, and the user half below */
#define KERNEL_HALF	0xffff800000000000ull
#define USER_TOP	0x0000800000000000ull

const char *prof_cache_dir(void)
{
	const char *c = getenv("RLBENCH_CACHE");
	static char *home;

	if (c && *c)
		return c;
	if (!home)
		home = xasprintf("%s/.cache/rlbench", getenv("HOME") ?: "");
	return home;
}

static int fn_cmp(const void *a, const void *b)
{
	const struct prof_fn *x = a, *y = b;

	if (x->insns != y->insns)
		return x->insns < y->insns ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int fn_name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct prof_fn *)a)->name,
		      ((const struct prof_fn *)b)->name);
}

/* sort by name and add up the rows of one name */
static void fns_merge(struct prof_fn *f, size_t *n)
{
	size_t i, m = 0;

	qsort(f, *n, sizeof(*f), fn_name_cmp);
	for (i = 0; i < *n; i++) {
		if (m && !strcmp(f[m - 1].name, f[i].name)) {
			f[m - 1].insns += f[i].insns;
			f[m - 1].atomics += f[i].atomics;
		} else {
			f[m++] = f[i];
		}
	}
	*n = m;
}

/*
 * The window's blocks by function: one slot per kernel symbol, per rlwork
 * symbol, then user code outside rlwork's symbols, unknown kernel text,
 * the rest; the slots that ran, costliest first.
 */
static void by_function(struct prof_file *pf, const struct prof_window *w,
			const struct prof_symtab *t, const struct prof_symtab *u)
{
	enum { F_USER, F_KUNKNOWN, F_OTHER, F_SPECIAL };
	size_t i, sp = t->n + u->n, nf = sp + F_SPECIAL;
	struct prof_fn *fns = xcalloc(nf, sizeof(*fns));

	for (i = 0; i < t->n; i++)
		fns[i].name = t->s[i].name;
	for (i = 0; i < u->n; i++)
		fns[t->n + i].name = u->s[i].name;
	fns[sp + F_USER].name = u->n ? "user (not in rlwork.map: vDSO)" : "user (rlwork)";
	fns[sp + F_KUNKNOWN].name = "kernel (not in System.map: modules, BPF)";
	fns[sp + F_OTHER].name = "(non-canonical address)";
	for (i = 0; i < w->n; i++) {
		ssize_t k;

		if (w->vaddr[i] < USER_TOP)
			k = (k = prof_symtab_find(u, w->vaddr[i])) < 0 ?
			    (ssize_t)(sp + F_USER) : (ssize_t)t->n + k;
		else if (w->vaddr[i] < KERNEL_HALF)
			k = sp + F_OTHER;
		else if ((k = prof_symtab_find(t, w->vaddr[i])) < 0)
			k = sp + F_KUNKNOWN;
		fns[k].insns += w->ni[i];
		fns[k].atomics += w->na[i];
	}
	qsort(fns, nf, sizeof(*fns), fn_cmp);
	for (i = 0; i < nf && (fns[i].insns || fns[i].atomics); i++)
		;
	pf->fns = realloc(fns, (i + 1) * sizeof(*fns));
	pf->nfns = i;
}

/* the point of pf's variant and label, made when new */
static struct prof_point *point_get(struct prof_run *p, const char *variant,
				    const char *name)
{
	const char *it = strrchr(name, '-');
	size_t len = it && it[1] == 'i' ? (size_t)(it - name) : strlen(name), i;

	for (i = 0; i < p->npoints; i++)
		if (!strcmp(p->points[i].variant, variant) &&
		    strlen(p->points[i].label) == len &&
		    !strncmp(p->points[i].label, name, len))
			return &p->points[i];
	p->points = realloc(p->points, (p->npoints + 1) * sizeof(*p->points));
	if (!p->points)
		die_input("profile: out of memory");
	memset(&p->points[p->npoints], 0, sizeof(*p->points));
	p->points[p->npoints].variant = variant;
	p->points[p->npoints].label = xasprintf("%.*s", (int)len, name);
	return &p->points[p->npoints++];
}

/* one profile and its result; -1 with *why on bad input */
static int file_load(struct prof_run *p, const char *dir, const char *variant,
		     const char *name, const struct prof_symtab *t,
		     const struct prof_symtab *u, char **why)
{
	char *pp = xasprintf("%s/%s/%s.profile", dir, variant, name);
	char *rp = xasprintf("%s/%s/%s.result.json", dir, variant, name);
	struct prof_file *pf;
	struct prof_point *pt;
	struct prof_window w;
	json_error_t err;
	json_t *res, *op0;
	const char *s;
	int rc = -1;

	if (prof_window_load(&w, pp, why))
		goto out;
	res = json_load_file(rp, 0, &err);
	if (!res) {
		*why = xasprintf("%s: %s (accepted: the result next to each profile)", rp, err.text);
		prof_window_free(&w);
		goto out;
	}
	p->files = realloc(p->files, (p->nfiles + 1) * sizeof(*p->files));
	if (!p->files)
		die_input("profile: out of memory");
	pf = &p->files[p->nfiles++];
	memset(pf, 0, sizeof(*pf));
	pf->variant = variant;
	pf->name = xstrdup(name);
	pf->insns = w.insns;
	pf->atomics = w.atomics;
	s = json_string_value(json_object_get(res, "status"));
	pf->status = xstrdup(s ?: "?");
	op0 = json_array_get(json_object_get(res, "ops"), 0);
	s = json_string_value(json_object_get(op0, "name"));
	pf->op = s ? xstrdup(s) : NULL;
	pf->count = json_number_value(json_object_get(op0, "count"));
	pf->rate = json_number_value(json_object_get(op0, "ops_per_s"));
	json_decref(res);
	pf->has_ops = !strcmp(pf->status, "ok") && pf->op && pf->count > 0 &&
		      pf->rate > 0;
	if (pf->has_ops) {
		pf->clock_ipo = 1e9 / pf->rate;
		pf->prof_ipo = pf->insns / pf->count;
		pf->dev = pf->prof_ipo / pf->clock_ipo - 1;
		pf->mismatch = pf->dev > PROF_CROSS_CHECK_TOL ||
			       pf->dev < -PROF_CROSS_CHECK_TOL;
		p->nbad += pf->mismatch;
		by_function(pf, &w, t, u);
		pt = point_get(p, variant, name);
		pt->fns = realloc(pt->fns, (pt->n + pf->nfns + 1) * sizeof(*pt->fns));
		if (!pt->fns)
			die_input("profile: out of memory");
		memcpy(pt->fns + pt->n, pf->fns, pf->nfns * sizeof(*pf->fns));
		pt->n += pf->nfns;
		fns_merge(pt->fns, &pt->n);
		pt->ops += pf->count;
		pt->insns += pf->insns;
		pt->atomics += pf->atomics;
		pt->boots++;
	}
	prof_window_free(&w);
	rc = 0;
out:
	free(pp);
	free(rp);
	return rc;
}

struct prof_run *prof_run_load(const char *dir, json_t *meta,
			       const char *point, char **why)
{
	struct prof_run *p = xcalloc(1, sizeof(*p));
	char *umap = xasprintf("%s/rlwork.map", dir);
	json_t *v;
	size_t vi;

	json_array_foreach(json_object_get(meta, "variants"), vi, v) {
		const char *name = json_string_value(json_object_get(v, "name"));
		const char *build = json_string_value(json_object_get(v, "build"));
		char *vdir, **files, *map, *e;
		struct prof_symtab *t, *u;
		struct stat st;
		int n = 0, i, k = 0;

		if (!name)
			continue;
		vdir = xasprintf("%s/%s", dir, name);
		files = stat(vdir, &st) || !S_ISDIR(st.st_mode) ? NULL :
			list_dir(vdir, false, ".profile", &n);
		free(vdir);
		for (i = 0; i < n; i++)	/* the names that start with point */
			if (!point || !strncmp(files[i], point, strlen(point)))
				files[k++] = files[i];
		if (!(n = k))
			continue;
		if (!build || strchr(build, '/')) {
			*why = xasprintf("%s/meta.json: variant %s has no build directory name (accepted: variants[].build, as runners/run writes it)", dir, name);
			return NULL;
		}
		t = xcalloc(2, sizeof(*t));
		u = t + 1;
		/*
		 * The run's own copy (runners/kernel keeps it with a profile):
		 * the build directory holds whatever was built last, and a
		 * rebuilt kernel would name an older run's addresses wrongly.
		 * Runs made before the copy was kept read the build's.
		 */
		map = xasprintf("%s/%s/System.map", dir, name);
		if (stat(map, &st)) {
			free(map);
			map = xasprintf("%s/build/%s/System.map", prof_cache_dir(), build);
		}
		if (prof_symtab_load(t, map, "", false, &e)) {
			*why = xasprintf("variant %s: cannot read its System.map, %s (accepted: %s/%s/System.map, or the build directory of meta.json's variants[].build under RLBENCH_CACHE, with System.map)",
					 name, e, dir, name);
			return NULL;
		}
		if (prof_symtab_load(u, umap, "rlwork: ", true, why))
			return NULL;
		for (i = 0; i < n; i++) {
			files[i][strlen(files[i]) - strlen(".profile")] = 0;
			if (file_load(p, dir, name, files[i], t, u, why))
				return NULL;
		}
	}
	free(umap);
	return p;
}

const struct prof_point *prof_point_find(const struct prof_run *p,
					 const char *variant,
					 const char *label)
{
	size_t i;

	for (i = 0; p && i < p->npoints; i++)
		if (!strcmp(p->points[i].variant, variant) &&
		    !strcmp(p->points[i].label, label) && p->points[i].ops > 0)
			return &p->points[i];
	return NULL;
}
