/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run's instruction profiles (PROFILE=insn, docs/profile.md): the window
 * files runners/plugins/insn-profile.so wrote (window.c), their block
 * addresses resolved to functions with the variant's System.map and the
 * run's rlwork.map (symtab.c), per file and per point over its boots
 * (load.c), and where the difference of two variants' points goes, in
 * rows that sum exactly to the total (diff.c). Read by `rlstat profile`
 * and by the report's section and charts. Nothing here prints.
 */
#ifndef RLSTAT_PROFILE_H
#define RLSTAT_PROFILE_H

#include "run/run.h"

/* the profile and the guest clock agree within this (docs/profile.md) */
#define PROF_CROSS_CHECK_TOL	0.005

/* ---- symtab.c: the text symbols of System.map or nm -n ---- */

struct prof_sym {
	uint64_t addr;
	char *name;
};

struct prof_symtab {
	struct prof_sym *s;
	size_t n;
	uint64_t etext;		/* the end of the text, 0 if unknown */
};

/*
 * The text symbols of path, sorted, their names after prefix; -1 with
 * *why when it cannot be read or holds none (optional: a missing file is
 * an empty table, 0).
 */
int prof_symtab_load(struct prof_symtab *t, const char *path,
		     const char *prefix, bool optional, char **why);
/* the index of the symbol holding addr, or -1 */
ssize_t prof_symtab_find(const struct prof_symtab *t, uint64_t addr);

/* ---- window.c: one window file of the profiler ---- */

struct prof_window {
	uint64_t insns, atomics;
	size_t n;
	uint64_t *vaddr, *ni, *na;	/* per block: address, insns, atomics */
};

/* 0, or -1 with *why naming the line that is wrong */
int prof_window_load(struct prof_window *w, const char *path, char **why);
void prof_window_free(struct prof_window *w);

/* ---- load.c: a run's profiles, by function ---- */

struct prof_fn {
	const char *name;
	uint64_t insns, atomics;
};

/* one profile: one boot of one point of one variant */
struct prof_file {
	const char *variant;
	char *name;		/* p001-dio-cost-i1 */
	uint64_t insns, atomics;	/* the window's */
	char *status, *op;	/* the result's, its first op's name */
	double count, rate;	/* its first op's count and ops/s */
	bool has_ops;		/* status ok and count, rate > 0 */
	double clock_ipo, prof_ipo, dev;	/* 1e9 / rate, insns / count */
	bool mismatch;		/* |dev| > PROF_CROSS_CHECK_TOL */
	struct prof_fn *fns;	/* the functions that ran, costliest first */
	size_t nfns;
};

/* one point of one variant, summed over its boots with ops */
struct prof_point {
	const char *variant;
	char *label;		/* the result's name without -i<N> */
	struct prof_fn *fns;	/* by name, one row a name */
	size_t n;
	double ops;
	uint64_t insns, atomics;
	int boots;
};

struct prof_run {
	struct prof_file *files;
	size_t nfiles;
	struct prof_point *points;
	size_t npoints;
	int nbad;		/* files whose cross-check failed */
};

/* $RLBENCH_CACHE, or ~/.cache/rlbench */
const char *prof_cache_dir(void);
/*
 * Every profile of run dir (meta its meta.json), of the results whose
 * names start with point (all when NULL); NULL with *why on bad input (a
 * missing System.map, a malformed file). A run without profiles has
 * nfiles 0.
 */
struct prof_run *prof_run_load(const char *dir, json_t *meta,
			       const char *point, char **why);
/* the point of variant whose label is label, NULL if none (or no ops) */
const struct prof_point *prof_point_find(const struct prof_run *p,
					 const char *variant,
					 const char *label);

/* ---- diff.c: where the difference goes ---- */

/*
 * Per op, in hundredths (fixed point, as printed), so that the rows add
 * up to the total as printed.
 */
struct prof_row {
	const char *name;
	int64_t base, cand;		/* insn/op x 100 */
	int64_t abase, acand;		/* atomics/op x 100 */
};

struct prof_diff {
	struct prof_row *rows;	/* the largest moves first */
	size_t n;
	struct prof_row rest;	/* every other function, and the rounding */
	size_t nrest;		/* how many functions rest holds */
	struct prof_row total;	/* each side's total per op */
};

/*
 * Where c's difference from b goes: every function of either by name,
 * the top that moved most as rows (moved only: those whose insn/op or
 * atomics/op moved as printed), the rest in one row; the rows and rest
 * sum to total exactly, column by column.
 */
void prof_diff(const struct prof_point *b, const struct prof_point *c,
	       int top, bool moved_only, struct prof_diff *d);
void prof_diff_free(struct prof_diff *d);
/* fixed point v (decimals after the point) as printed: "-12.34" */
void prof_fmt(char *buf, size_t len, int64_t v, int decimals, bool sign);

#endif
