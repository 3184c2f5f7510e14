// SPDX-License-Identifier: GPL-2.0
/*
 * Exits, allocation, directory listing, and the two things every exit
 * must respect: the error names the input that caused it, and no
 * temporary file outlives the process (die_input, a GSL error, exit()
 * anywhere, SIGINT/SIGTERM/SIGHUP).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gsl/gsl_errno.h>

#include "base/base.h"

const char *rl_input;

/* Paths of temporaries this process created and has not yet renamed. */
#define MAX_TMP 8
static char *tmp_path[MAX_TMP];
static bool tmp_isdir[MAX_TMP];
static pid_t tmp_owner;
static pid_t tmp_writer;	/* a child writing into them (gnuplot) */

static int remove_one(const char *p, const struct stat *st, int type,
		      struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(p);
	else
		unlink(p);
	return 0;
}

/* Depth first, links not followed: only what rlstat itself made. */
void remove_tree(const char *dir)
{
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void tmp_cleanup(void)
{
	int i;

	/* a forked child (gnuplot before exec) must not remove them */
	if (tmp_owner != getpid())
		return;
	/* else it could create a file after the directory was emptied */
	if (tmp_writer > 0) {
		kill(tmp_writer, SIGKILL);
		waitpid(tmp_writer, NULL, 0);
		tmp_writer = 0;
	}
	for (i = 0; i < MAX_TMP; i++) {
		if (!tmp_path[i])
			continue;
		if (tmp_isdir[i])
			remove_tree(tmp_path[i]);
		else
			unlink(tmp_path[i]);
		tmp_path[i] = NULL;
	}
}

static void tmp_signal(int sig)
{
	tmp_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

void tmp_track(const char *path, bool isdir)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	int i;

	if (!tmp_owner) {
		tmp_owner = getpid();
		atexit(tmp_cleanup);
		for (i = 0; i < (int)(sizeof(sigs) / sizeof(sigs[0])); i++)
			signal(sigs[i], tmp_signal);
	}
	for (i = 0; i < MAX_TMP; i++)
		if (!tmp_path[i]) {
			tmp_path[i] = xstrdup(path);
			tmp_isdir[i] = isdir;
			return;
		}
	die_input("%s: too many temporary files at once", path);
}

/* pid writes into the temporaries until tmp_child(0): killed on exit. */
void tmp_child(pid_t pid)
{
	tmp_writer = pid;
}

/* The temporary was renamed into place or removed by its creator. */
void tmp_untrack(const char *path)
{
	int i;

	for (i = 0; i < MAX_TMP; i++)
		if (tmp_path[i] && !strcmp(tmp_path[i], path)) {
			free(tmp_path[i]);
			tmp_path[i] = NULL;
		}
}

void die_input(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_BADINPUT);	/* atexit: tmp_cleanup */
}

/*
 * GSL's default handler abort()s: a core dump, exit 134 and the
 * temporaries left behind. Every GSL error is an input the statistics
 * cannot handle, so it is reported like any other bad input, naming the
 * file being read or, once loading is done, the run(s) being analysed.
 */
static void gsl_handler(const char *reason, const char *file, int line,
			int gsl_errno)
{
	die_input("%s: the statistics cannot be computed on these values "
		  "(GSL %s: %s, %s:%d); accepted are finite rates, latencies "
		  "and counters as rlwork writes them",
		  rl_input ? rl_input : "input", gsl_strerror(gsl_errno),
		  reason, file, line);
}

void rl_gsl_handler_install(void)
{
	gsl_set_error_handler(gsl_handler);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_suffix(const char *s, const char *suf)
{
	size_t l = strlen(s), m = strlen(suf);

	return l > m && !strcmp(s + l - m, suf);
}

/*
 * Sorted names in dir: its subdirectories but hidden ones (dirs_only: the
 * variants, never rlstat's own temporaries), or every entry whose name
 * ends in suffix, whatever it is: a directory, a dangling link or a
 * hidden file named *.result.json is refused, never skipped.
 */
char **list_dir(const char *dir, bool dirs_only, const char *suffix, int *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	int cap = 0;
	struct stat st;

	*n = 0;
	if (!d)
		die_input("%s: cannot open directory: %s (expected a run "
			  "directory results/<run>)", dir, strerror(errno));
	while ((e = readdir(d))) {
		char *p;

		/* a hidden result (.p000-dio-i1.result.json) is refused by
		 * its name, never skipped: n would drop without a word */
		if (suffix ? !has_suffix(e->d_name, suffix) :
		    e->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		if (dirs_only && (stat(p, &st) || !S_ISDIR(st.st_mode))) {
			free(p);
			continue;
		}
		free(p);
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				die_input("out of memory");
		}
		v[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), str_cmp);
	return v;
}

static void oom(void)
{
	fputs("rlstat: out of memory\n", stderr);
	exit(EXIT_BADINPUT);
}

void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		oom();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	return p;
}

/* Eight columns, as many digits as fit. */
void fmt_value(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (isnan(v))
		snprintf(buf, len, "%8s", "n/a");
	else if (a < 1e5)
		snprintf(buf, len, "%8.2f", v);
	else if (a < 1e6)
		snprintf(buf, len, "%8.1f", v);
	else if (a < 1e8)
		snprintf(buf, len, "%8.0f", v);
	else
		snprintf(buf, len, "%8.2e", v);
}

/* Seven columns including the percent sign. */
void fmt_pct(char *buf, size_t len, double pct)
{
	double a = fabs(pct);

	if (isnan(pct) || isinf(pct))
		snprintf(buf, len, "%7s", "n/a");
	else if (a < 99.995)
		snprintf(buf, len, "%6.2f%%", pct);
	else if (a < 999.95)
		snprintf(buf, len, "%6.1f%%", pct);
	else if (a < 99999.5)
		snprintf(buf, len, "%6.0f%%", pct);
	else
		snprintf(buf, len, "%7s", pct > 0 ? "huge" : "-huge");
}

/* Seven characters of a git commit; anything else as it is. */
const char *git_short(const char *c)
{
	static char buf[4][16];
	static int k;
	size_t n = strspn(c, "0123456789abcdef");

	if (n < 12 || c[n])
		return c;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%.7s", c);
	return buf[k];
}

/**
 * cmd_output() - the standard output of a program, run without a shell
 * @argv: the program and its arguments, NULL-terminated
 * @ok: set to whether it exited 0
 *
 * Its stderr goes to /dev/null: the callers ask for facts (a version, a
 * commit id) that may be missing, and say so themselves.
 *
 * Return: what it printed, NUL-terminated (empty when it could not run).
 */
char *cmd_output(const char *const argv[], bool *ok)
{
	size_t len = 0, cap = 4096;
	char *buf = xcalloc(cap, 1);
	int fd[2], st = 1, dn;
	ssize_t r;
	pid_t pid;

	*ok = false;
	if (pipe(fd))
		return buf;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return buf;
	}
	if (!pid) {
		dn = open("/dev/null", O_RDWR);
		dup2(fd[1], 1);
		if (dn >= 0) {
			dup2(dn, 2);
			dup2(dn, 0);
		}
		close(fd[0]);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fd[1]);
	while ((r = read(fd[0], buf + len, cap - len - 1)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		len += r;
		if (len + 1 == cap) {
			buf = realloc(buf, cap *= 2);
			if (!buf)
				oom();
		}
	}
	buf[len] = 0;
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	*ok = WIFEXITED(st) && !WEXITSTATUS(st);
	return buf;
}
