// SPDX-License-Identifier: GPL-2.0
/*
 * A set of outputs replaced as a whole or not at all: a report (report.txt,
 * report.html and its charts) or a trend page (index.html and trend/).
 * Everything is written into a hidden staging directory beside the
 * outputs, on the same filesystem; only when every file is there, complete
 * and synced are they moved in, each old one kept in the staging directory
 * until all of the new ones are in, and put back if one cannot be. A full
 * disk, a chart gnuplot cannot draw or a signal thus leaves the outputs
 * of the previous run as they were, and the error names the cause.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/base.h"

struct stage {
	char *dst, *tmp;
	char **names;		/* entries of tmp to move into dst */
	int n;
};

struct stage *stage_new(const char *dst)
{
	struct stage *s = xcalloc(1, sizeof(*s));

	s->dst = xstrdup(dst);
	s->tmp = xasprintf("%s/.rlstat-stage-XXXXXX", dst);
	if (!mkdtemp(s->tmp))
		die_input("%s: cannot write: %s", dst, strerror(errno));
	tmp_track(s->tmp, true);
	return s;
}

const char *stage_dir(const struct stage *s)
{
	return s->tmp;
}

/* name (a file or a directory in the staging directory) is an output. */
void stage_add(struct stage *s, const char *name)
{
	s->names = realloc(s->names, (s->n + 1) * sizeof(*s->names));
	if (!s->names)
		die_input("out of memory");
	s->names[s->n++] = xstrdup(name);
}

/*
 * Why a write failed, for the one-line error: errno when there is one,
 * else (gnuplot's writes, which it does not check) the filesystem's state.
 */
const char *stage_why(const char *dir, int err)
{
	struct statvfs v;

	if (err)
		return strerror(err);
	if (!statvfs(dir, &v) && (v.f_bavail == 0 || v.f_favail == 0))
		return strerror(ENOSPC);
	return NULL;
}

/* A file fn writes, flushed and synced before it counts as written. */
void stage_write(struct stage *s, const char *name,
		 int (*fn)(FILE *, void *), void *arg)
{
	char *p = xasprintf("%s/%s", s->tmp, name);
	FILE *f = fopen(p, "wx");

	errno = 0;
	if (!f || fn(f, arg) || fflush(f) || fsync(fileno(f)) || fclose(f))
		die_input("%s/%s: cannot write: %s", s->dst, name,
			  stage_why(s->tmp, errno) ?: "write error");
	stage_add(s, name);
	free(p);
}

/* fsync a file or directory by path, so a crash leaves it whole. */
static int sync_path(const char *p)
{
	int fd = open(p, O_RDONLY), rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return !lstat(p, &st) && S_ISDIR(st.st_mode);
}

/*
 * Put back what steps [0, k) did: the new entry out, the old one (if
 * there was one) back in. Renames within one directory tree need no space.
 */
static void roll_back(struct stage *s, int k, const bool *had)
{
	char *to, *old, *undo;
	int i;

	for (i = k - 1; i >= 0; i--) {
		to = xasprintf("%s/%s", s->dst, s->names[i]);
		old = xasprintf("%s/.old/%s", s->tmp, s->names[i]);
		undo = xasprintf("%s/.undo-%d", s->tmp, i);
		if (is_dir(to) || !had[i])
			rename(to, undo);
		if (had[i] && rename(old, to))
			fprintf(stderr, "rlstat: %s: could not put back the "
				"old one, it is %s\n", to, old);
		free(to);
		free(old);
		free(undo);
	}
}

/*
 * Move every output in, or none. A file is replaced by rename() over it
 * (readers see the old or the new one, never none) after a hard link
 * keeps the old one; a directory cannot be renamed over a full one, so
 * the old one moves aside first. Signals wait until it is done: a
 * SIGINT in between would remove the kept old outputs with the staging
 * directory.
 */
void stage_commit(struct stage *s)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	bool *had = xcalloc(s->n + 1, sizeof(*had));
	char *from, *to, *old, *olddir = xasprintf("%s/.old", s->tmp);
	sigset_t set, prev;
	struct stat st;
	int i, err = 0;

	for (i = 0; i < s->n; i++) {
		from = xasprintf("%s/%s", s->tmp, s->names[i]);
		if (stat(from, &st) || (!S_ISDIR(st.st_mode) && !st.st_size))
			die_input("%s/%s: not written: %s", s->dst,
				  s->names[i], stage_why(s->tmp, errno) ?:
				  "empty");
		if (sync_path(from))
			die_input("%s/%s: cannot write: %s", s->dst,
				  s->names[i], strerror(errno));
		free(from);
	}
	if (mkdir(olddir, 0700))
		die_input("%s: cannot write: %s", s->dst, strerror(errno));
	sigemptyset(&set);
	for (i = 0; i < (int)(sizeof(sigs) / sizeof(sigs[0])); i++)
		sigaddset(&set, sigs[i]);
	sigprocmask(SIG_BLOCK, &set, &prev);
	for (i = 0; i < s->n && !err; i++) {
		from = xasprintf("%s/%s", s->tmp, s->names[i]);
		to = xasprintf("%s/%s", s->dst, s->names[i]);
		old = xasprintf("%s/%s", olddir, s->names[i]);
		had[i] = !lstat(to, &st);
		if (had[i] && (S_ISDIR(st.st_mode) ? rename(to, old) :
			       link(to, old)))
			err = errno;
		else if (rename(from, to))
			err = errno;
		if (err && had[i] && S_ISDIR(st.st_mode))
			rename(old, to);
		if (err)
			fprintf(stderr, "rlstat: %s: cannot replace: %s\n", to,
				strerror(err));
		free(from);
		free(to);
		free(old);
	}
	if (err)
		roll_back(s, i - 1, had);
	else
		sync_path(s->dst);
	remove_tree(s->tmp);
	tmp_untrack(s->tmp);
	sigprocmask(SIG_SETMASK, &prev, NULL);
	if (err)
		die_input("%s: nothing replaced: %s", s->dst, strerror(err));
	free(had);
	free(olddir);
}

/* gnuplot's own error, for the one-line message (the log goes away). */
static const char *last_line(const char *log)
{
	static char line[512], buf[512];
	FILE *f = fopen(log, "r");

	snprintf(line, sizeof(line), "no message");
	while (f && fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = 0;
		if (buf[strspn(buf, " ^")])
			snprintf(line, sizeof(line), "%s", buf);
	}
	if (f)
		fclose(f);
	return line;
}

/*
 * gnuplot on dir/script, run in dir: no path (a checkout, --out) enters a
 * script, the outputs are named relative to it. Its standard input is
 * /dev/null: a script that went wrong cannot read rlstat's. Exits with
 * the reason when gnuplot is missing or fails.
 */
void gp_run(const char *dir, const char *script)
{
	char *log = xasprintf("%s/gnuplot.log", dir);
	const char *why;
	pid_t pid;
	int st, rc;

	pid = fork();
	if (pid < 0)
		die_input("gnuplot: cannot start: %s", strerror(errno));
	if (!pid) {
		if (!freopen("/dev/null", "r", stdin) ||
		    !freopen(log, "w", stdout) || !freopen(log, "a", stderr))
			_exit(126);
		if (chdir(dir))
			_exit(126);
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	tmp_child(pid);
	if (waitpid(pid, &st, 0) < 0)
		die_input("gnuplot: %s", strerror(errno));
	tmp_child(0);
	rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (rc == 127)
		die_input("gnuplot not found: install gnuplot-nox (make setup)");
	why = stage_why(dir, 0);
	if (rc)
		die_input("gnuplot failed (exit %d): %s", rc,
			  why ? why : last_line(log));
	free(log);	/* the log and script go with the staging directory */
}

/*
 * A chart as gnuplot leaves it when a write failed (it does not check
 * them): short, a PNG without its IEND chunk, an SVG without </svg>.
 */
void gp_check(const char *dir, const char *file)
{
	static const char iend[] = "IEND\xae\x42\x60\x82";
	char *p = xasprintf("%s/%s", dir, file), tail[16] = "";
	const char *why;
	FILE *f = fopen(p, "r");
	bool png = strstr(file, ".png") != NULL;
	long n;

	if (f && !fseek(f, -8, SEEK_END) && (n = fread(tail, 1, 8, f)) == 8) {
		tail[8] = 0;
		if (png ? !memcmp(tail, iend, 8) : !!strstr(tail, "</svg>"))
			goto ok;
	}
	why = stage_why(dir, 0);
	die_input("gnuplot left %s incomplete%s%s", file, why ? ": " : "",
		  why ? why : "");
ok:
	fclose(f);
	free(p);
}
