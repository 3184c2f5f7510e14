/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Instructions per lock+unlock pair, counted by callgrind: rl_bench runs
 * itself under valgrind with --insn-child, which toggles collection on
 * around each pair loop and dumps the count after it; the parent reads
 * the dumps.  A count is the path length alone: no cache misses, no
 * coherence traffic, nothing of contention.  Without valgrind's headers
 * or binary the counts are simply missing.
 */
#ifndef RL_INSN_H
#define RL_INSN_H

#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define RL_HAVE_CALLGRIND	1
#else
#define RL_HAVE_CALLGRIND	0
#define CALLGRIND_TOGGLE_COLLECT	do { } while (0)
#define CALLGRIND_DUMP_STATS_AT(s)	do { (void)(s); } while (0)
/* Iterations of the two callgrind runs of each pair loop. */
#define INSN_ITERS_1	1000ull
#define INSN_ITERS_2	11000ull

/* Under callgrind: @fn's loop at both counts, a dump after each. */
static inline void insn_child_run(const char *name, double (*fn)(void),
				  unsigned long long *iters)
{
	*iters = INSN_ITERS_1;
	CALLGRIND_TOGGLE_COLLECT;
	fn();
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT(name);
	*iters = INSN_ITERS_2;
	CALLGRIND_TOGGLE_COLLECT;
	fn();
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT(name);
}

/*
 * Instructions per pair of each of the @n loops the child ran, into
 * @insn (-1 where unknown); false without valgrind.  The difference of
 * the two runs cancels everything outside the loop body, the timer
 * calls included.
 */
static inline bool insn_pairs(unsigned int n, double *insn)
{
	char dir[] = "/tmp/rl_bench.XXXXXX";
	unsigned int i;
	double a, b;
	bool ok;

	for (i = 0; i < n; i++)
		insn[i] = -1;
	if (!mkdtemp(dir))
		return false;
	ok = insn_run_child(dir);
	for (i = 0; ok && i < n; i++) {
		a = insn_dump_total(dir, 2 * i + 1);
		b = insn_dump_total(dir, 2 * i + 2);
		if (a >= 0 && b >= a)
			insn[i] = (b - a) / (INSN_ITERS_2 - INSN_ITERS_1);
	}
	insn_cleanup(dir);
	return ok;
}

#endif

extern char **environ;

/*
 * Run `valgrind --tool=callgrind ... <this program> --insn-child` in @dir.
 * By its path: valgrind cannot load /proc/self/exe.
 */
static inline bool insn_run_child(const char *dir)
{
	char out[4200], log[4200], self[4096];
	char *argv[] = { "valgrind", "--tool=callgrind", "--collect-atstart=no",
			 out, log, self, "--insn-child", NULL };
	posix_spawn_file_actions_t fa;
	ssize_t len;
	int status;
	pid_t pid;

	if (!RL_HAVE_CALLGRIND)
		return false;
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return false;
	self[len] = 0;
	snprintf(out, sizeof(out), "--callgrind-out-file=%s/cg", dir);
	snprintf(log, sizeof(log), "--log-file=%s/log", dir);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "valgrind", &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		return false;
	}
	posix_spawn_file_actions_destroy(&fa);
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

/* The instruction total of dump @n (1, 2, ...) in @dir, or -1. */
static inline double insn_dump_total(const char *dir, unsigned int n)
{
	char path[4200], line[256];
	double total = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cg.%u", dir, n);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "totals: ", 8) || !strncmp(line, "summary: ", 9))
			total = strtod(strchr(line, ' ') + 1, NULL);
	fclose(f);
	return total;
}

/* Remove @dir and the files in it (no subdirectories). */
static inline void insn_cleanup(const char *dir)
{
	char path[4200];
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* Iterations of the two callgrind runs of each pair loop. */
#define INSN_ITERS_1	1000ull
#define INSN_ITERS_2	11000ull

/* Under callgrind: @fn's loop at both counts, a dump after each. */
static inline void insn_child_run(const char *name, double (*fn)(void),
				  unsigned long long *iters)
{
	*iters = INSN_ITERS_1;
	CALLGRIND_TOGGLE_COLLECT;
	fn();
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT(name);
	*iters = INSN_ITERS_2;
	CALLGRIND_TOGGLE_COLLECT;
	fn();
	CALLGRIND_TOGGLE_COLLECT;
	CALLGRIND_DUMP_STATS_AT(name);
}

/*
 * Instructions per pair of each of the @n loops the child ran, into
 * @insn (-1 where unknown); false without valgrind.  The difference of
 * the two runs cancels everything outside the loop body, the timer
 * calls included.
 */
static inline bool insn_pairs(unsigned int n, double *insn)
{
	char dir[] = "/tmp/rl_bench.XXXXXX";
	unsigned int i;
	double a, b;
	bool ok;

	for (i = 0; i < n; i++)
		insn[i] = -1;
	if (!mkdtemp(dir))
		return false;
	ok = insn_run_child(dir);
	for (i = 0; ok && i < n; i++) {
		a = insn_dump_total(dir, 2 * i + 1);
		b = insn_dump_total(dir, 2 * i + 2);
		if (a >= 0 && b >= a)
			insn[i] = (b - a) / (INSN_ITERS_2 - INSN_ITERS_1);
	}
	insn_cleanup(dir);
	return ok;
}

#endif
