// SPDX-License-Identifier: GPL-2.0
/*
 * Opening the history database, and telling its three troubles apart:
 * busy (another process holds a lock: wait, or say who), full (the disk:
 * say so), broken (not a history: only `history rebuild` replaces it).
 *
 * Every rlstat that has a history open holds <db>.lock shared, from
 * before it opens the database until it closes it; `history rebuild`
 * holds it exclusively from before it reads the nights until the new
 * database is in place. So rebuild never moves a database another rlstat
 * has open (an import's commit would land in the moved file and be lost),
 * and an import that starts during a rebuild waits for it and writes into
 * the new database. The lock file stays: removing it would let two
 * processes lock two different files of one name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "history/history.h"

const char *hdb_path;

const char hdb_schema[] =
"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
"CREATE TABLE nights (\n"
"  night TEXT PRIMARY KEY, dir TEXT NOT NULL, started TEXT NOT NULL,\n"
"  kernel_source TEXT NOT NULL, kernel_branch TEXT,\n"
"  kernel_commit TEXT NOT NULL, kernel_describe TEXT,\n"
"  suite_commit TEXT NOT NULL, host TEXT, matrix TEXT,\n"
"  matrix_sha256 TEXT, modes TEXT NOT NULL, reference TEXT,\n"
"  verdict TEXT NOT NULL, failed_points INTEGER NOT NULL);\n"
"CREATE TABLE series (\n"
"  night TEXT NOT NULL REFERENCES nights(night), variant TEXT NOT NULL,\n"
"  point TEXT NOT NULL, point_key TEXT NOT NULL, workload TEXT NOT NULL,\n"
"  params TEXT NOT NULL, mode TEXT NOT NULL, metric TEXT NOT NULL,\n"
"  unit TEXT NOT NULL, higher_is_better INTEGER NOT NULL,\n"
"  family TEXT NOT NULL, n INTEGER NOT NULL, statistic TEXT NOT NULL,\n"
"  value REAL, ci_lo REAL, ci_hi REAL, cv REAL,\n"
"  kernel_commit TEXT NOT NULL, suite_commit TEXT NOT NULL,\n"
"  config_sha256 TEXT, release TEXT,\n"
"  reference TEXT, ref_value REAL, change_pct REAL, change_lo REAL,\n"
"  change_hi REAL, gate TEXT,\n"
"  PRIMARY KEY (night, variant, point_key, mode, metric));\n"
"CREATE INDEX series_key ON series (mode, variant, point_key, metric);\n"
"INSERT INTO meta VALUES ('schema', '" HISTORY_SCHEMA "');\n";

/* lock descriptors of the databases open, by connection */
#define MAX_OPEN 4
static struct {
	sqlite3 *db;
	int fd;
} opened[MAX_OPEN];

/*
 * The processes other than this one holding a lock on path (SQLite's
 * POSIX locks on the database, flock on the lock file), from /proc/locks:
 * "pid 1234 (rlstat history import ...)".
 */
const char *hdb_holders(const char *path)
{
	static char out[512];
	char line[256], dev[64], tag[32], cmd[128];
	struct stat st;
	size_t len = 0, n, i;
	FILE *f, *c;
	int pid;

	out[0] = 0;
	if (stat(path, &st) || !(f = fopen("/proc/locks", "r")))
		return "another process";
	snprintf(dev, sizeof(dev), " %02x:%02x:%lu ", major(st.st_dev),
		 minor(st.st_dev), (unsigned long)st.st_ino);
	while (len < sizeof(out) - 160 && fgets(line, sizeof(line), f)) {
		/* "->": a process waiting for the lock, not holding it */
		if (!strstr(line, dev) || strstr(line, "->") ||
		    sscanf(line, "%*s %*s %*s %*s %d", &pid) != 1 ||
		    pid == getpid())
			continue;
		snprintf(tag, sizeof(tag), "pid %d ", pid);
		if (strstr(out, tag))
			continue;
		snprintf(cmd, sizeof(cmd), "/proc/%d/cmdline", pid);
		c = fopen(cmd, "r");
		n = c ? fread(cmd, 1, sizeof(cmd) - 1, c) : 0;
		if (c)
			fclose(c);
		for (i = 0; i + 1 < n; i++)	/* NUL-separated arguments */
			if (!cmd[i])
				cmd[i] = ' ';
		cmd[n] = 0;
		len += snprintf(out + len, sizeof(out) - len, "%s%s(%s)",
				len ? ", " : "", tag, n ? cmd : "?");
	}
	fclose(f);
	return len ? out : "another process";
}

/*
 * Take <path>.lock (LOCK_SH or LOCK_EX); while another process holds it
 * the wait says who. -1 when a reader cannot create the lock file (a
 * read-only directory): no writer can be at work there either.
 */
static int take_lock(const char *path, int op)
{
	char *p = xasprintf("%s.lock", path);
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0666);

	if (fd < 0 && op == LOCK_SH && (errno == EROFS || errno == EACCES)) {
		free(p);
		return -1;
	}
	if (fd < 0)
		die_input("%s: cannot lock: %s", p, strerror(errno));
	if (flock(fd, op | LOCK_NB)) {
		if (errno != EWOULDBLOCK)
			die_input("%s: cannot lock: %s", p, strerror(errno));
		fprintf(stderr, "rlstat: %s: in use by %s; waiting\n", path,
			hdb_holders(p));
		if (flock(fd, op))
			die_input("%s: cannot lock: %s", p, strerror(errno));
	}
	free(p);
	return fd;
}

int hdb_lock(const char *path)
{
	return take_lock(path, LOCK_EX);
}

/* A failed statement, as one line: busy, full or broken, each as such. */
void hdb_fail(sqlite3 *db, int rc, const char *what)
{
	rc &= 0xff;
	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
		die_input("%s: %s: busy: %s has held it for over %d s; nothing "
			  "was changed, try again when it is done", hdb_path,
			  what, hdb_holders(hdb_path), HDB_WAIT_MS / 1000);
	if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB)
		die_input("%s: %s: %s; rebuild it from the night directories "
			  "with `rlstat history rebuild --db %s`", hdb_path,
			  what, sqlite3_errmsg(db), hdb_path);
	die_input("%s: %s: %s", hdb_path, what, sqlite3_errmsg(db));
}

void hdb_exec(sqlite3 *db, const char *sql)
{
	int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);

	if (rc != SQLITE_OK)
		hdb_fail(db, rc, "cannot write");
}

/* A new, empty history at path (no file there): the schema only. */
sqlite3 *hdb_new(const char *path)
{
	sqlite3 *db;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_CREATE | SQLITE_OPEN_EXCLUSIVE,
			    NULL) != SQLITE_OK)
		die_input("%s: cannot create: %s", path, sqlite3_errmsg(db));
	sqlite3_busy_timeout(db, HDB_WAIT_MS);
	hdb_exec(db, "BEGIN");
	hdb_exec(db, hdb_schema);
	hdb_exec(db, "COMMIT");
	return db;
}

/*
 * The first import: the new database is made whole beside path and
 * linked in, so a full disk leaves no file at all (an empty one would be
 * refused by every later command); if another process made one first,
 * that one is used.
 */
static void create_whole(const char *path)
{
	char *tmp = xasprintf("%s.new.%d", path, (int)getpid());
	char *journal = xasprintf("%s-journal", tmp);
	const char *keep = hdb_path;

	unlink(tmp);
	tmp_track(tmp, false);
	tmp_track(journal, false);
	hdb_path = path;
	sqlite3_close(hdb_new(tmp));
	if (link(tmp, path) && errno != EEXIST)
		die_input("%s: cannot create: %s", path, strerror(errno));
	unlink(tmp);
	tmp_untrack(tmp);
	tmp_untrack(journal);
	hdb_path = keep;
	free(tmp);
	free(journal);
}

/*
 * Open an existing history (refused, untouched, when it is not one) or,
 * with create, make a new one where there is no file.
 */
sqlite3 *hdb_open(const char *path, bool create)
{
	const char *why = NULL;
	sqlite3_stmt *st;
	sqlite3 *db;
	int fd, rc, i;

	hdb_path = path;
	/* refused before the lock: no lock file beside a path that is none */
	if (access(path, F_OK) && !create)
		die_input("%s: no history database; `rlstat history import "
			  "RUN --db %s` or `rlstat history rebuild` makes one",
			  path, path);
	fd = take_lock(path, LOCK_SH);
	if (access(path, F_OK))
		create_whole(path);
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK)
		die_input("%s: cannot open: %s", path, sqlite3_errmsg(db));
	sqlite3_busy_timeout(db, HDB_WAIT_MS);
	rc = sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = "
				"'schema'", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW && strcmp((const char *)
		    sqlite3_column_text(st, 0), HISTORY_SCHEMA))
			why = "no " HISTORY_SCHEMA " schema";
		sqlite3_finalize(st);
	}
	if ((rc & 0xff) == SQLITE_BUSY)
		hdb_fail(db, rc, "cannot read");
	if (!why && rc != SQLITE_ROW)
		why = rc == SQLITE_DONE ? "no " HISTORY_SCHEMA " schema" :
		      sqlite3_errmsg(db);
	if (!why && sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st,
				       NULL) == SQLITE_OK) {
		rc = sqlite3_step(st);
		if ((rc & 0xff) == SQLITE_BUSY)
			hdb_fail(db, rc, "cannot read");
		if (rc != SQLITE_ROW ||
		    strcmp((const char *)sqlite3_column_text(st, 0), "ok"))
			why = "its integrity check fails";
		sqlite3_finalize(st);
	}
	if (why)
		die_input("%s: not a usable history database (%s); it is left "
			  "as it is: `rlstat history rebuild --db %s` makes it "
			  "again from the night directories", path, why, path);
	for (i = 0; i < MAX_OPEN && opened[i].db; i++)
		;
	if (i == MAX_OPEN)
		die_input("%s: too many databases open", path);
	opened[i].db = db;
	opened[i].fd = fd;
	return db;
}

void hdb_close(sqlite3 *db)
{
	int i;

	sqlite3_close(db);
	for (i = 0; i < MAX_OPEN; i++)
		if (opened[i].db == db) {
			if (opened[i].fd >= 0)
				close(opened[i].fd);
			opened[i].db = NULL;
		}
}
