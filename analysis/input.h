/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checks of a run directory that load.c, meta.c and validate.c share
 * (what rlstat accepts is listed in docs/rlstat-input.md; everything else
 * is exit 2 with the file and the reason), and the child process that
 * writes into rlstat's temporaries (chart.c's gnuplot).
 */
#ifndef RLSTAT_INPUT_H
#define RLSTAT_INPUT_H

#include <stdbool.h>
#include <sys/types.h>
#include <jansson.h>

struct run;

/* a child process writing into the temporaries, killed before cleanup */
void tmp_child(pid_t pid);
/* 1..64 of [A-Za-z0-9_] and those in extra, not starting with extra */
bool name_ok(const char *s, const char *extra);
/* sorted entry names of dir: subdirectories, or names ending in suffix */
char **list_dir(const char *dir, bool dirs_only, const char *suffix, int *n);
/* <dir>/meta.json, loaded and checked (meta_check) */
json_t *meta_load(const char *dir);
/* meta.json's variants are exactly the directories holding results */
void meta_check_variants(const struct run *r, char **vdirs, const int *nres,
			 int nv);
/* two passing iterations of one point report the same ops and metrics */
void docs_same_names(const char *path, json_t *doc, const char *refpath,
		     json_t *ref);

#endif
