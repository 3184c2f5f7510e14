// SPDX-License-Identifier: GPL-2.0
/*
 * What meta.json records of the machine and the checkout a run came from:
 * the host's CPU, memory and kernel, the suite's commit, file digests and
 * the clock. Kept apart from create.c, which decides a run's settings,
 * because these are facts read off the machine, not settings resolved.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "run/run.h"

/* a whole file, NUL-terminated; NULL when it cannot be opened */
char *plan_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	if (getdelim(&buf, &len, 0, f) < 0) {
		free(buf);
		buf = xstrdup("");
	}
	fclose(f);
	return buf;
}

/* (10#: 9 digits of the nanosecond clock, as `date +%s%N | cut -c8-16`) */
long plan_clock_seed(void)
{
	struct timespec ts;
	char buf[64];

	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(buf, sizeof(buf), "%lld%09ld", (long long)ts.tv_sec,
		 ts.tv_nsec);
	buf[16] = 0;
	return strtol(buf + 7, NULL, 10);
}

char *plan_now_utc(void)
{
	char buf[32];
	time_t t = time(NULL);

	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	return xstrdup(buf);
}

/* the first line of s, without its newline */
char *plan_first_line(const char *s)
{
	return xasprintf("%.*s", (int)strcspn(s, "\n"), s);
}

char *plan_sha256(const char *path)
{
	const char *argv[] = { "sha256sum", path, NULL };
	bool ok;
	char *out = cmd_output(argv, &ok);

	if (!ok || strlen(out) < 64) {
		free(out);
		return xstrdup("unknown");
	}
	out[64] = 0;
	return out;
}

json_t *plan_host_facts(void)
{
	char *info = plan_slurp("/proc/cpuinfo"), *mem = plan_slurp("/proc/meminfo");
	char *cpu = xstrdup(""), *p;
	struct utsname u;
	cpu_set_t set;
	long mb = 0;
	int ncpu = 1;
	json_t *h;

	for (p = info; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 :
					 NULL)
		if (!strncmp(p, "model name", 10)) {
			char *c = p + 10 + strspn(p + 10, " \t");

			if (*c == ':' && c[1] == ' ') {
				free(cpu);
				cpu = plan_first_line(c + 2);
				break;
			}
		}
	p = mem ? strstr(mem, "MemTotal:") : NULL;
	if (p)
		mb = strtol(p + 9, NULL, 10) / 1024;
	/* nproc's count: the CPUs this process may run on */
	if (!sched_getaffinity(0, sizeof(set), &set))
		ncpu = CPU_COUNT(&set);
	uname(&u);
	h = json_pack("{s:s, s:i, s:I, s:s}", "cpu_model", cpu, "cpus", ncpu,
		      "mem_mb", (json_int_t)mb, "kernel", u.release);
	free(info);
	free(mem);
	free(cpu);
	return h;
}

char *plan_git_commit(const char *top)
{
	const char *argv[] = { "git", "-C", top, "rev-parse", "HEAD", NULL };
	bool ok;
	char *out = cmd_output(argv, &ok), *c;

	if (!ok) {
		free(out);
		return xstrdup("unknown");
	}
	c = plan_first_line(out);
	free(out);
	return c;
}
