// SPDX-License-Identifier: GPL-2.0
/*
 * rlstat profile: where a cost-mode point's instructions go. Reads the
 * instruction profiles of a run (<variant>/<point>-cost-i<N>.profile,
 * written by runners/plugins/insn-profile.so, docs/profile.md), maps each
 * block address to the kernel function holding it with the variant's
 * System.map (cost guests boot nokaslr, so the link addresses are the
 * run's), below the kernel half to rlwork's functions (RUN/rlwork.map,
 * nm -n of the static rlwork the guests ran) or "user (rlwork)" without
 * it, and prints per
 * point and variant the instructions and atomics per op by function
 * (self counts), with the cross-check against the guest clock: the
 * profile's window total per op against the result's 1e9 / ops_per_s.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"

static const char usage[] =
"usage: rlstat profile <rundir> [--point NAME] [--top N] [--diff BASELINE]\n"
"\n"
"Per cost-mode point and variant with an instruction profile (make bench\n"
"PROFILE=insn): instructions and atomics per op by function, the N (default\n"
"25) costliest first, and the cross-check of the profile's total against\n"
"the guest clock's insn/op. Kernel symbols come from System.map of the\n"
"variant's build ($RLBENCH_CACHE/build/<meta.json variants[].build>), user\n"
"ones from <rundir>/rlwork.map (runners/run writes it) when it is there.\n"
"--point: only the results whose name starts with NAME (p001-dio).\n"
"--diff: then, per point and variant, where its difference from BASELINE\n"
"goes: the functions whose insn/op moved most (means over the boots), with\n"
"both sides and the delta, summing to the point's total delta.\n"
"Exit 0, 1 when a point's profile and clock differ by more than 0.5%,\n"
"2 on bad input (no profile, a missing System.map, a malformed file).\n";

/* the profile and the guest clock agree within this (docs/profile.md) */
#define CROSS_CHECK_TOL	0.005
/* x86-64: canonical kernel addresses, and the user half below */
#define KERNEL_HALF	0xffff800000000000ull
#define USER_TOP	0x0000800000000000ull

struct sym {
	uint64_t addr;
	char *name;
};

struct symtab {
	struct sym *s;
	size_t n;
	uint64_t etext;		/* the end of the kernel's text, 0 if unknown */
};

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * The text symbols of PATH (System.map, or nm -n of rlwork: "address type
 * name" lines), sorted, their names after PREFIX. The text ends at _etext
 * (the kernel's) or at _fini (a static program's last function, a few
 * instructions). A file that cannot be read exits 2 unless OPTIONAL
 * (then t->n is 0).
 */
static void symtab_load(struct symtab *t, const char *path, const char *variant,
			const char *prefix, bool optional)
{
	char line[1024], name[512], type;
	size_t cap = 0;
	uint64_t addr;
	FILE *f = fopen(path, "r");

	memset(t, 0, sizeof(*t));
	if (!f && optional)
		return;
	if (!f)
		die_input("profile: variant %s: cannot read its System.map, %s: %s (accepted: the build directory of meta.json's variants[].build under RLBENCH_CACHE, with System.map)",
			  variant, path, strerror(errno));
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
	if (!t->n && !optional)
		die_input("profile: %s: no text symbols (accepted: a kernel's System.map, \"address type name\" lines)", path);
	qsort(t->s, t->n, sizeof(*t->s), sym_cmp);
}

/* the index of the symbol holding addr, or -1 */
static ssize_t symtab_find(const struct symtab *t, uint64_t addr)
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

struct window {
	uint64_t insns, atomics;
	size_t n;
	uint64_t *vaddr, *ni, *na;
};

/* a window file of the profiler; exits 2 naming the line that is wrong */
static void window_load(struct window *w, const char *path)
{
	char line[256], key[32];
	uint64_t a, i, n, si = 0, sa = 0;
	bool rows = false, end_marker = false;
	size_t cap = 0, lineno = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		die_input("profile: %s: %s", path, strerror(errno));
	memset(w, 0, sizeof(*w));
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (lineno == 1) {
			if (strcmp(line, "# rlbench insn-profile 1\n"))
				die_input("profile: %s:1: not an instruction profile (accepted: files starting \"# rlbench insn-profile 1\", docs/profile.md)", path);
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
			die_input("profile: %s:%zu: not a block row (accepted: hex address, instructions, atomics, tab-separated)", path, lineno);
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
		die_input("profile: %s: %s (accepted: a window that ended at its end marker, docs/profile.md)",
			  path, rows ? "the window did not end at its marker" : "no block rows");
	if (si != w->insns || sa != w->atomics)
		die_input("profile: %s: the rows sum to %" PRIu64 " instructions and %" PRIu64 " atomics, the header says %" PRIu64 " and %" PRIu64,
			  path, si, sa, w->insns, w->atomics);
}

struct fn {
	const char *name;
	uint64_t insns, atomics;
};

static int fn_cmp(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	if (x->insns != y->insns)
		return x->insns < y->insns ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int fn_name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fn *)a)->name, ((const struct fn *)b)->name);
}

/* One point of one variant over its boots, for --diff: by function name. */
struct acc {
	const char *variant;
	char *label;		/* the result name without -i<N> */
	struct fn *fns;
	size_t n;
	double ops;
	int boots;
};
static struct acc *accs;
static size_t naccs;

static struct acc *acc_get(const char *variant, const char *name)
{
	const char *it = strrchr(name, '-');
	size_t len = it && it[1] == 'i' ? (size_t)(it - name) : strlen(name), i;

	for (i = 0; i < naccs; i++)
		if (!strcmp(accs[i].variant, variant) && strlen(accs[i].label) == len &&
		    !strncmp(accs[i].label, name, len))
			return &accs[i];
	accs = realloc(accs, (naccs + 1) * sizeof(*accs));
	if (!accs)
		die_input("profile: out of memory");
	memset(&accs[naccs], 0, sizeof(*accs));
	accs[naccs].variant = variant;
	accs[naccs].label = xasprintf("%.*s", (int)len, name);
	return &accs[naccs++];
}

/* sort by name and add up the rows of one name */
static void fns_merge(struct fn *f, size_t *n)
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

struct delta {
	const char *name;
	double base, cand, d;
};

static int delta_cmp(const void *a, const void *b)
{
	const struct delta *x = a, *y = b;
	double p = x->d < 0 ? -x->d : x->d, q = y->d < 0 ? -y->d : y->d;

	if (p != q)
		return p < q ? 1 : -1;
	return strcmp(x->name, y->name);
}

/*
 * Where the difference of point C from point B goes: every function of
 * either by name, insn/op on each side, the largest moves first; the rest
 * in one row, so that the deltas sum to the total's.
 */
static void profile_diff(FILE *out, struct acc *b, struct acc *c, int top)
{
	struct delta *d = xcalloc(b->n + c->n + 1, sizeof(*d)), rest = { 0 };
	double tb = 0, tc = 0;
	size_t i = 0, j = 0, n = 0, k;

	fns_merge(b->fns, &b->n);
	fns_merge(c->fns, &c->n);
	while (i < b->n || j < c->n) {
		int cmp = i == b->n ? 1 : j == c->n ? -1 : strcmp(b->fns[i].name, c->fns[j].name);

		d[n].name = cmp <= 0 ? b->fns[i].name : c->fns[j].name;
		if (cmp <= 0)
			d[n].base = b->fns[i++].insns / b->ops;
		if (cmp >= 0)
			d[n].cand = c->fns[j++].insns / c->ops;
		d[n].d = d[n].cand - d[n].base;
		tb += d[n].base;
		tc += d[n].cand;
		n++;
	}
	qsort(d, n, sizeof(*d), delta_cmp);
	fprintf(out, "where the difference goes: %s, %s against %s (insn/op, %d and %d boots)\n",
		b->label, c->variant, b->variant, c->boots, b->boots);
	fprintf(out, "  %-44s %12s %12s %10s\n", "function", b->variant, c->variant, "delta");
	for (k = 0; k < n; k++) {
		if ((int)k >= top) {
			rest.base += d[k].base;
			rest.cand += d[k].cand;
			continue;
		}
		fprintf(out, "  %-44.44s %12.2f %12.2f %+10.2f\n", d[k].name,
			d[k].base, d[k].cand, d[k].d);
	}
	if (n > (size_t)top)
		fprintf(out, "  %-44s %12.2f %12.2f %+10.2f\n", "(the other functions)",
			rest.base, rest.cand, rest.cand - rest.base);
	fprintf(out, "  %-44s %12.2f %12.2f %+10.2f\n\n", "total", tb, tc, tc - tb);
	free(d);
}

/*
 * One point of one variant: returns 1 when its profile and its clock
 * disagree, else 0.
 */
static int profile_point(FILE *out, const char *dir, const char *variant,
			 const char *name, const struct symtab *t,
			 const struct symtab *u, int top, struct acc *a)
{
	char *pp = xasprintf("%s/%s/%s.profile", dir, variant, name);
	char *rp = xasprintf("%s/%s/%s.result.json", dir, variant, name);
	double count, rate, clock_ipo, prof_ipo, dev;
	const char *op, *status;
	struct fn *fns, other = { "(others)", 0, 0 };
	enum { F_USER, F_KUNKNOWN, F_OTHER, F_SPECIAL };
	struct window w;
	json_error_t err;
	json_t *res, *op0;
	size_t i, nf, sp;
	int bad = 0;

	window_load(&w, pp);
	res = json_load_file(rp, 0, &err);
	if (!res)
		die_input("profile: %s: %s (accepted: the result next to each profile)", rp, err.text);
	status = json_string_value(json_object_get(res, "status"));
	op0 = json_array_get(json_object_get(res, "ops"), 0);
	op = json_string_value(json_object_get(op0, "name"));
	count = json_number_value(json_object_get(op0, "count"));
	rate = json_number_value(json_object_get(op0, "ops_per_s"));
	fprintf(out, "%s %s: %" PRIu64 " instructions in the window, %" PRIu64 " atomics",
		variant, name, w.insns, w.atomics);
	if (!status || strcmp(status, "ok") || !op || count <= 0 || rate <= 0) {
		fprintf(out, "; no ops (status %s): nothing per op\n\n", status ? status : "?");
		goto out;
	}
	clock_ipo = 1e9 / rate;
	prof_ipo = w.insns / count;
	dev = prof_ipo / clock_ipo - 1;
	bad = dev > CROSS_CHECK_TOL || dev < -CROSS_CHECK_TOL;
	fprintf(out, ", %.0f %s ops\n  insn/op: %.2f by the guest clock, %.2f by the profile (%+.3f%%) %s\n"
		"  atomics/op: %.3f\n",
		count, op, clock_ipo, prof_ipo, dev * 100,
		bad ? "MISMATCH: more than 0.5% apart" : "ok", w.atomics / count);

	/*
	 * One slot per kernel symbol, per rlwork symbol, then user code
	 * outside rlwork's symbols, unknown kernel text, the rest.
	 */
	sp = t->n + u->n;
	nf = sp + F_SPECIAL;
	fns = xcalloc(nf, sizeof(*fns));
	for (i = 0; i < t->n; i++)
		fns[i].name = t->s[i].name;
	for (i = 0; i < u->n; i++)
		fns[t->n + i].name = u->s[i].name;
	fns[sp + F_USER].name = u->n ? "user (not in rlwork.map: vDSO)" : "user (rlwork)";
	fns[sp + F_KUNKNOWN].name = "kernel (not in System.map: modules, BPF)";
	fns[sp + F_OTHER].name = "(non-canonical address)";
	for (i = 0; i < w.n; i++) {
		ssize_t k;

		if (w.vaddr[i] < USER_TOP)
			k = (k = symtab_find(u, w.vaddr[i])) < 0 ? (ssize_t)(sp + F_USER) :
			    (ssize_t)t->n + k;
		else if (w.vaddr[i] < KERNEL_HALF)
			k = sp + F_OTHER;
		else if ((k = symtab_find(t, w.vaddr[i])) < 0)
			k = sp + F_KUNKNOWN;
		fns[k].insns += w.ni[i];
		fns[k].atomics += w.na[i];
	}
	qsort(fns, nf, sizeof(*fns), fn_cmp);
	for (i = 0; i < nf && fns[i].insns; i++)
		;
	a->fns = realloc(a->fns, (a->n + i + 1) * sizeof(*a->fns));
	if (!a->fns)
		die_input("profile: out of memory");
	memcpy(a->fns + a->n, fns, i * sizeof(*fns));
	a->n += i;
	a->ops += count;
	a->boots++;
	fprintf(out, "  %-44s %12s %7s %10s\n", "function", "insn/op", "share", "atomics/op");
	for (i = 0; i < nf && fns[i].insns; i++) {
		if ((int)i >= top) {
			other.insns += fns[i].insns;
			other.atomics += fns[i].atomics;
			continue;
		}
		fprintf(out, "  %-44.44s %12.2f %6.2f%% %10.3f\n", fns[i].name,
			fns[i].insns / count, 100.0 * fns[i].insns / w.insns,
			fns[i].atomics / count);
	}
	if (other.insns)
		fprintf(out, "  %-44s %12.2f %6.2f%% %10.3f\n", "(the other functions)",
			other.insns / count, 100.0 * other.insns / w.insns,
			other.atomics / count);
	fprintf(out, "  %-44s %12.2f %6.2f%% %10.3f\n\n", "total", prof_ipo, 100.0,
		w.atomics / count);
	free(fns);
out:
	free(w.vaddr);
	free(w.ni);
	free(w.na);
	json_decref(res);
	free(pp);
	free(rp);
	return bad;
}

int cmd_profile(int argc, char **argv)
{
	const char *dir = NULL, *point = NULL, *base = NULL, *cache = getenv("RLBENCH_CACHE");
	double top = 25;
	const struct cli_opt opts[] = {
		CLI("--point", CLI_STRING, &point),
		CLI("--top", CLI_NUM, &top, .min = 1, .max = 100000),
		CLI("--diff", CLI_STRING, &base),
		CLI_END
	};
	json_t *meta, *vs, *v;
	json_error_t err;
	int nprof = 0, nbad = 0;
	size_t vi;
	char *mp, *umap;
	FILE *out;

	if (!cli_parse(argc, argv, 2, opts, &dir, 1, "profile", usage))
		die_input("profile: expected one run directory\n%s", usage);
	mp = xasprintf("%s/meta.json", dir);
	umap = xasprintf("%s/rlwork.map", dir);
	meta = json_load_file(mp, 0, &err);
	if (!meta)
		die_input("profile: %s: %s (accepted: a run directory)", mp, err.text);
	vs = json_object_get(meta, "variants");
	if (base) {
		bool found = false;

		json_array_foreach(vs, vi, v)
			found |= !strcmp(json_string_value(json_object_get(v, "name")) ?: "", base);
		if (!found)
			die_input("profile: --diff '%s' is not a variant of %s (accepted: a name in its meta.json variants)",
				  base, dir);
	}
	if (!cache || !*cache)
		cache = xasprintf("%s/.cache/rlbench", getenv("HOME") ? getenv("HOME") : "");
	out = text_safe(stdout);
	json_array_foreach(vs, vi, v) {
		const char *name = json_string_value(json_object_get(v, "name"));
		const char *build = json_string_value(json_object_get(v, "build"));
		char *vdir, **files, *map;
		struct symtab t, u;
		int n, i;

		if (!name)
			continue;
		vdir = xasprintf("%s/%s", dir, name);
		files = list_dir(vdir, false, ".profile", &n);
		if (point) {	/* keep the names that start with it */
			int k = 0;

			for (i = 0; i < n; i++)
				if (!strncmp(files[i], point, strlen(point)))
					files[k++] = files[i];
			n = k;
		}
		if (!n)
			continue;
		if (!build || strchr(build, '/'))
			die_input("profile: %s: variant %s has no build directory name (accepted: variants[].build, as runners/run writes it)", mp, name);
		map = xasprintf("%s/build/%s/System.map", cache, build);
		symtab_load(&t, map, name, "", false);
		symtab_load(&u, umap, name, "rlwork: ", true);
		for (i = 0; i < n; i++) {
			files[i][strlen(files[i]) - strlen(".profile")] = 0;
			nbad += profile_point(out, dir, name, files[i], &t, &u, (int)top,
					      acc_get(name, files[i]));
			nprof++;
		}
	}
	if (!nprof)
		die_input("profile: %s: no instruction profiles%s%s (accepted: a run of make bench MODE=cost PROFILE=insn)",
			  dir, point ? " of points starting " : "", point ? point : "");
	if (base) {	/* every other variant's points against the baseline's */
		size_t i, j, npairs = 0;

		for (i = 0; i < naccs; i++) {
			if (strcmp(accs[i].variant, base) || !accs[i].ops)
				continue;
			for (j = 0; j < naccs; j++)
				if (j != i && accs[j].ops && !strcmp(accs[j].label, accs[i].label)) {
					profile_diff(out, &accs[i], &accs[j], (int)top);
					npairs++;
				}
		}
		if (!npairs)
			die_input("profile: %s: --diff %s: no point has profiles of %s and of another variant (accepted: a variant of the run, with profiled points)",
				  dir, base, base);
	}
	if (nbad)
		fprintf(out, "%d of %d profiles disagree with the guest clock by more than 0.5%%\n",
			nbad, nprof);
	json_decref(meta);
	if (fclose(out))
		return EXIT_BADINPUT;
	return nbad ? 1 : 0;
}
