// SPDX-License-Identifier: GPL-2.0
/*
 * The nightly history database: one row per night, variant, point,
 * metric and mode (docs/formats.md). It is an index over the night run
 * directories, never the only copy: `history rebuild` makes it again
 * from them. A file that is not such a database is named and refused;
 * it is replaced only by `history rebuild`, which keeps it aside.
 *
 * Each night imported is compared with the previous good night (the
 * latest earlier one that did not FAIL) by the gate, exactly as
 * `rlstat regress PREV NIGHT` decides, and the per-metric outcome is
 * stored with the row.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "history/history.h"

static sqlite3_stmt *prep(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		hdb_fail(db, sqlite3_errcode(db), "query failed");
	return st;
}

static const char *jstr(json_t *o, const char *k1, const char *k2)
{
	json_t *v = json_object_get(o, k1);

	if (k2)
		v = json_object_get(v, k2);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static void bind_num(sqlite3_stmt *st, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

static void step_done(sqlite3 *db, sqlite3_stmt *st)
{
	if (sqlite3_step(st) != SQLITE_DONE)
		hdb_fail(db, sqlite3_errcode(db), "write failed");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

/* The night's identity: night.json from runners/nightly, else meta.json. */
struct nid {
	char *night, *started, *ksource, *kbranch, *kcommit, *kdesc, *dir;
	json_t *nj;
};

static void night_id(const char *dir, const struct run *r, struct nid *id)
{
	char *p = xasprintf("%s/night.json", dir), *d = xstrdup(dir), *abs;
	json_error_t err;
	const char *s;

	memset(id, 0, sizeof(*id));
	id->nj = NULL;
	if (!access(p, F_OK)) {
		id->nj = json_load_file(p, 0, &err);
		if (!json_is_object(id->nj))
			die_input("%s: not a night document: %s", p, err.text);
	}
	abs = realpath(dir, NULL);
	id->dir = abs ? abs : xstrdup(dir);
	s = jstr(id->nj, "night", NULL);
	id->night = xstrdup(s ? s : basename(d));
	s = jstr(id->nj, "started", NULL);
	if (!s)
		s = jstr(r->meta, "started", NULL);
	if (!s)
		die_input("%s: neither night.json nor meta.json says when it "
			  "started", dir);
	id->started = xstrdup(s);
	s = jstr(id->nj, "kernel", "source");
	id->ksource = xstrdup(s ? s : "unknown");
	s = jstr(id->nj, "kernel", "branch");
	id->kbranch = s ? xstrdup(s) : NULL;
	s = jstr(id->nj, "kernel", "commit");
	id->kcommit = xstrdup(s ? s : "unknown");
	s = jstr(id->nj, "kernel", "describe");
	id->kdesc = s ? xstrdup(s) : NULL;
	free(p);
	free(d);
}

/* The previous good night: the latest earlier one that did not FAIL. */
static char *reference(sqlite3 *db, const struct nid *id, char **refdir)
{
	sqlite3_stmt *st = prep(db,
		"SELECT night, dir FROM nights WHERE night != ?1 AND "
		"(started < ?2 OR (started = ?2 AND night < ?1)) AND "
		"verdict != 'FAIL' ORDER BY started DESC, night DESC LIMIT 1");
	char *ref = NULL;

	bind_text(st, 1, id->night);
	bind_text(st, 2, id->started);
	if (sqlite3_step(st) == SQLITE_ROW) {
		ref = xstrdup((const char *)sqlite3_column_text(st, 0));
		*refdir = xstrdup((const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	return ref;
}

/* regress's pairing: every candidate cell with its reference cell. */
static struct gated_metric *pair(const struct run *a, const struct run *b, int *m,
			  int *nfailed)
{
	struct gated_metric *it = NULL;
	int v, p, n = 0;

	*nfailed = 0;
	for (v = 0; v < b->nvariants; v++)
		for (p = 0; p < b->npoints; p++) {
			const struct cell *gb = run_cell(b, p, v), *ga;

			if (!gb)
				continue;
			if (gb->nfailed) {
				(*nfailed)++;
				continue;
			}
			if (!a)
				continue;
			ga = run_cell(a, run_point_index(a, b->points[p]->key),
				       run_variant_index(a, b->variants[v]));
			if (!ga || ga->nfailed || ga->nm != gb->nm)
				continue;
			it = gate_add_pair(it, &n, ga, gb);
		}
	*m = n;
	return it;
}

static const char *variant_config(const struct run *r, const char *v)
{
	json_t *vs = r->meta ? json_object_get(r->meta, "variants") : NULL, *x;
	size_t i;

	json_array_foreach(vs, i, x)
		if (!strcmp(jstr(x, "name", NULL) ? jstr(x, "name", NULL) : "",
			    v))
			return jstr(x, "config_sha256", NULL);
	return NULL;
}

static void insert_rows(sqlite3 *db, const struct run *r, const struct nid *id,
			const char *ref, const struct gated_metric *it, int m)
{
	sqlite3_stmt *st = prep(db, "INSERT INTO series VALUES (?1, ?2, ?3, "
		"?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
		"?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27)");
	const char *scommit = jstr(r->meta, "suite", "commit");
	int p, v, k;

	for (p = 0; p < r->npoints; p++)
		for (v = 0; v < r->nvariants; v++) {
			const struct cell *g = run_cell(r, p, v);
			const struct point *pt = r->points[p];

			for (k = 0; g && k < g->nm; k++) {
				const struct cell_metric *gm = &g->m[k];
				const struct gated_metric *x = gate_find(it, m, g, k);
				int fam = metric_family(pt, k);

				if (!gm->nvals)
					continue;
				bind_text(st, 1, id->night);
				bind_text(st, 2, g->variant);
				bind_text(st, 3, pt->label);
				bind_text(st, 4, pt->key);
				bind_text(st, 5, pt->workload);
				bind_text(st, 6, pt->params_str);
				bind_text(st, 7, pt->mode);
				bind_text(st, 8, gm->def->name);
				bind_text(st, 9, gm->def->unit);
				sqlite3_bind_int(st, 10, gm->def->higher_is_better);
				bind_text(st, 11, fam == FAM_PRIMARY ? "primary" :
					  fam == FAM_SECONDARY ? "secondary" :
					  fam == FAM_ERROR ? "error" : "other");
				sqlite3_bind_int(st, 12, gm->nvals);
				bind_text(st, 13, gm->def->linear ? "amean" :
					  "gmean");
				bind_num(st, 14, gm->s.mean);
				bind_num(st, 15, gm->s.ci_lo);
				bind_num(st, 16, gm->s.ci_hi);
				bind_num(st, 17, gm->s.cv);
				bind_text(st, 18, id->kcommit);
				bind_text(st, 19, scommit ? scommit : "unknown");
				bind_text(st, 20, variant_config(r, g->variant));
				bind_text(st, 21, g->release);
				if (x && x->c.valid) {
					bind_text(st, 22, ref);
					bind_num(st, 23, x->c.va);
					bind_num(st, 24, x->c.pct);
					bind_num(st, 25, x->c.ci_pct_lo);
					bind_num(st, 26, x->c.ci_pct_hi);
					bind_text(st, 27, gate_label(x));
				}
				step_done(db, st);
			}
		}
	sqlite3_finalize(st);
}

static const char *modes_of(const struct run *r)
{
	bool c = false, t = false;
	int p;

	for (p = 0; p < r->npoints; p++) {
		c |= !strcmp(r->points[p]->mode, "cost");
		t |= !strcmp(r->points[p]->mode, "time");
	}
	return c && t ? "cost,time" : c ? "cost" : "time";
}

/* Import one night; returns the night's verdict (enum verdict) or -1. */
static int import_run(sqlite3 *db, const char *dir, double thr, bool quiet)
{
	struct run *r, *a = NULL;
	struct nid id;
	struct gated_metric *it;
	struct gate gt;
	sqlite3_stmt *st;
	char *ref, *refdir = NULL;
	int m, nfailed, v = -1, mb = 10;
	const char *vs;

	r = run_open(dir, 0.95);
	night_id(dir, r, &id);
	ref = reference(db, &id, &refdir);
	if (ref) {
		if (access(refdir, F_OK))
			die_input("%s: the reference night %s is gone (%s); "
				  "`rlstat history rebuild` forgets it", hdb_path,
				  ref, refdir);
		a = run_open(refdir, 0.95);
	}
	gate_init(&gt);
	gt.threshold_pct = thr;
	it = pair(a, r, &m, &nfailed);
	if (a) {
		gt.sequential = run_is_sequential(a, &gt.max_iter) |
				run_is_sequential(r, &mb);
		if (mb > gt.max_iter)
			gt.max_iter = mb;
		gate_run(&gt, it, m);
		v = gate_overall(it, m, nfailed);
		vs = verdict_name(v);
	} else {
		vs = nfailed ? "FAIL" : "FIRST";
		v = nfailed ? V_FAIL : -1;
	}
	hdb_exec(db, "BEGIN IMMEDIATE");
	st = prep(db, "DELETE FROM series WHERE night = ?1");
	bind_text(st, 1, id.night);
	step_done(db, st);
	sqlite3_finalize(st);
	st = prep(db, "DELETE FROM nights WHERE night = ?1");
	bind_text(st, 1, id.night);
	step_done(db, st);
	sqlite3_finalize(st);
	st = prep(db, "INSERT INTO nights VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
		  "?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)");
	bind_text(st, 1, id.night);
	bind_text(st, 2, id.dir);
	bind_text(st, 3, id.started);
	bind_text(st, 4, id.ksource);
	bind_text(st, 5, id.kbranch);
	bind_text(st, 6, id.kcommit);
	bind_text(st, 7, id.kdesc);
	vs = jstr(r->meta, "suite", "commit");
	bind_text(st, 8, vs ? vs : "unknown");
	bind_text(st, 9, jstr(r->meta, "host", "cpu_model"));
	bind_text(st, 10, jstr(r->meta, "matrix", NULL));
	bind_text(st, 11, jstr(r->meta, "matrix_sha256", NULL));
	bind_text(st, 12, modes_of(r));
	bind_text(st, 13, ref);
	bind_text(st, 14, v < 0 ? "FIRST" : verdict_name(v));
	sqlite3_bind_int(st, 15, nfailed);
	step_done(db, st);
	sqlite3_finalize(st);
	insert_rows(db, r, &id, ref, it, m);
	hdb_exec(db, "COMMIT");
	if (!quiet)
		printf("%s: %s%s%s\n", id.night, v < 0 ? "first night" :
		       verdict_name(v), ref ? " against " : "", ref ? ref : "");
	free(it);
	json_decref(id.nj);
	return v;
}

int history_import(int argc, char **argv, const char *db, double thr)
{
	sqlite3 *h;
	int v;

	if (argc != 1)
		die_input("history import: expected one run directory "
			  "(usage: rlstat history import RUN [--db FILE])");
	if (access(argv[0], F_OK) || !strcmp(argv[0], ""))
		die_input("%s: no such run directory", argv[0]);
	h = hdb_open(db, true);
	v = import_run(h, argv[0], thr, false);
	hdb_close(h);
	(void)v;
	return 0;
}

static int started_cmp(const void *a, const void *b)
{
	const char *const *x = a, *const *y = b;

	return strcmp(*x, *y);
}

/* started from night.json, else meta.json; NULL if neither says */
static char *night_started(const char *d)
{
	static const char *const docs[] = { "night.json", "meta.json" };
	const char *s;
	char *p, *r = NULL;
	json_t *j;
	int i;

	for (i = 0; i < 2 && !r; i++) {
		p = xasprintf("%s/%s", d, docs[i]);
		j = json_load_file(p, 0, NULL);
		s = jstr(j, "started", NULL);
		if (s && *s)
			r = xstrdup(s);
		json_decref(j);
		free(p);
	}
	return r;
}

/*
 * "<started>\t<dir>" of every night under from (a directory with a
 * meta.json): the order the series are made in. Read here, not by a
 * shell: the path is data, whatever it holds (an apostrophe, a newline).
 */
static char **night_keys(const char *from, int *n)
{
	char **names = list_dir(from, true, NULL, n), **keys;
	char *d, *m, *s;
	int i, k = 0;

	keys = xcalloc(*n + 1, sizeof(*keys));
	for (i = 0; i < *n; i++) {
		d = xasprintf("%s/%s", from, names[i]);
		m = xasprintf("%s/meta.json", d);
		if (!access(m, F_OK)) {
			s = night_started(d);
			keys[k++] = xasprintf("%s\t%s", s ? s : "", d);
			free(s);
		}
		free(m);
		free(d);
		free(names[i]);
	}
	free(names);
	*n = k;
	return keys;
}

/*
 * The database rebuild replaces, held exclusively until it is replaced (a
 * writer outside rlstat, such as sqlite3, finishes first); NULL when it is
 * no history at all, then kept beside the new one as <db>.unusable.
 */
static sqlite3 *hold_old(const char *db)
{
	char *keep;
	sqlite3 *o;
	int rc = sqlite3_open_v2(db, &o, SQLITE_OPEN_READWRITE, NULL);

	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(o, HDB_WAIT_MS);
		rc = sqlite3_exec(o, "BEGIN EXCLUSIVE", NULL, NULL, NULL);
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(o, "SELECT value FROM meta WHERE "
					  "key = 'schema'", NULL, NULL, NULL);
		/* busy is not broken: never moved aside for it */
		if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
			hdb_fail(o, rc, "not replaced");
	}
	if (rc == SQLITE_OK)
		return o;
	sqlite3_close(o);
	keep = xasprintf("%s.unusable", db);
	if (rename(db, keep))
		die_input("%s: cannot keep it as %s: %s", db, keep,
			  strerror(errno));
	fprintf(stderr, "rlstat: %s was not a usable history; kept as %s\n",
		db, keep);
	free(keep);
	return NULL;
}

/*
 * Make the database again from every night under the directory, oldest
 * first, into a temporary file renamed over the old one. The lock is
 * taken first: every rlstat that has the history open finishes, and none
 * opens it until the new one is in place.
 */
int history_rebuild(int argc, char **argv, const char *db, const char *from,
		    double thr)
{
	char *tmp = xasprintf("%s.tmp.%d", db, (int)getpid()), **keys;
	char *journal = xasprintf("%s-journal", tmp);
	sqlite3 *h, *old = NULL;
	int n = 0, i, lock;

	if (argc)
		die_input("history rebuild: unexpected argument \"%s\" (usage: "
			  "rlstat history rebuild [--db FILE] [--from DIR])",
			  argv[0]);
	if (access(from, F_OK))
		die_input("%s: no such directory of nights", from);
	hdb_path = db;
	lock = hdb_lock(db);
	keys = night_keys(from, &n);
	qsort(keys, n, sizeof(*keys), started_cmp);
	unlink(tmp);
	tmp_track(tmp, false);
	tmp_track(journal, false);
	h = hdb_new(tmp);
	for (i = 0; i < n; i++)
		import_run(h, strchr(keys[i], '\t') + 1, thr, false);
	sqlite3_close(h);
	if (!access(db, F_OK))
		old = hold_old(db);
	if (rename(tmp, db))
		die_input("%s: cannot replace: %s", db, strerror(errno));
	tmp_untrack(tmp);
	tmp_untrack(journal);
	sqlite3_close(old);
	close(lock);
	printf("%s: %d nights from %s\n", db, n, from);
	return 0;
}
