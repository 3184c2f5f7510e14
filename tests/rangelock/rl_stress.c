// SPDX-License-Identifier: GPL-2.0
/*
 * Stress validator for the range locks: lib/range_lock.c (--lock tree, the
 * default), lib/range_lock_bitmap.c (--lock bitmap) and
 * lib/range_lock_adaptive.c (--lock adaptive) and lib/range_lock_list.c
 * (--lock list), each behind its struct rl_ops table (rl_ops_<name>.c).
 *
 * N threads take random ranges in random modes (lock, killable, trylock;
 * reader or writer) while an optional killer thread sends fatal signals to
 * random threads.  Every holder registers in a shadow array of per-index
 * holder counts: a writer must find every index of its range empty, a
 * reader must find no writer.  The shadow uses relaxed atomics, so it adds
 * no ordering of its own: under ThreadSanitizer the plain data[] accesses
 * inside the critical sections are ordered by the range lock alone.
 *
 * The shadow covers the first and the last SPACE indices of the unsigned
 * long space, so ranges that end at ULONG_MAX and [0, ULONG_MAX] itself
 * are checked too.
 *
 * Exit: 0 if no violation, no stall, no warning and an empty lock at the
 * end; 1 otherwise (the first violation is printed); 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/sched.h>
#include <linux/spinlock.h>

#include "rl_ops.h"
#include "shim.h"

#define MAX_SPACE	4096
#define MAX_THREADS	64
#define WRITER		(1 << 20)

struct worker {
	pthread_t thread;
	struct task_struct *task;
	unsigned long long rng;
	unsigned long ops, reads, writes, try_fail, killed, sleeps;
};

/* Every lock the validator knows, the default first. */
static const struct rl_ops *const all_ops[] = {
	&rl_tree_ops, &rl_bitmap_ops, &rl_adaptive_ops, &rl_list_ops
};
static const struct rl_ops *ops = &rl_tree_ops;

#define NR_OPS	(sizeof(all_ops) / sizeof(all_ops[0]))

/* "tree, bitmap, list": the names --lock accepts. */
static const char *rl_ops_names(void)
{
	static char names[128];
	unsigned int i;

	names[0] = 0;
	for (i = 0; i < NR_OPS; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names),
			 "%s%s", i ? ", " : "", all_ops[i]->name);
	return names;
}

static const struct rl_ops *rl_ops_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < NR_OPS; i++)
		if (!strcmp(all_ops[i]->name, name))
			return all_ops[i];
	return NULL;
}
static unsigned int space = 64;
static int shadow[2 * MAX_SPACE];
static unsigned long data[2 * MAX_SPACE];
static unsigned long progress, violations;
static int stop;		/* the run should end: time is up or a check failed */
static int done;		/* the killer is gone: workers may exit */
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static struct worker workers[MAX_THREADS];
static unsigned int nthreads = 4;

static unsigned long long rnd(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

static void violation(const char *what, unsigned long start,
		      unsigned long last, unsigned int slot, int seen)
{
	if (__atomic_fetch_add(&violations, 1, __ATOMIC_RELAXED) == 0) {
		pthread_mutex_lock(&report_lock);
		printf("VIOLATION: %s [%lu, %lu] at shadow slot %u: %d reader(s), %d writer(s) already there\n",
		       what, start, last, slot, seen % WRITER, seen / WRITER);
		fflush(stdout);
		pthread_mutex_unlock(&report_lock);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

/* Shadow slots of [start, last]: low part [0, space), high part above. */
static void slots(unsigned long start, unsigned long last,
		  unsigned int *lo_a, unsigned int *lo_b,
		  unsigned int *hi_a, unsigned int *hi_b)
{
	unsigned long hi_base = ULONG_MAX - space + 1;

	*lo_a = start < space ? start : space;
	*lo_b = last < space ? last + 1 : space;
	if (*lo_a > *lo_b)
		*lo_a = *lo_b;
	*hi_a = space + (start > hi_base ? start - hi_base : 0);
	*hi_b = last >= hi_base ? space + (last - hi_base) + 1 : space;
	if (*hi_a > *hi_b)
		*hi_a = *hi_b;
}

static void enter_slot(unsigned int i, bool reader, unsigned long start,
		       unsigned long last, unsigned long *sum)
{
	int old = __atomic_fetch_add(&shadow[i], reader ? 1 : WRITER,
				     __ATOMIC_RELAXED);

	if (reader ? old >= WRITER : old != 0)
		violation(reader ? "reader" : "writer", start, last, i, old);
	if (reader)
		*sum += data[i];
	else
		data[i]++;
}

static void hold(struct worker *w, bool reader, unsigned long start,
		 unsigned long last)
{
	unsigned int lo_a, lo_b, hi_a, hi_b, i, n;
	unsigned long sum = 0;

	slots(start, last, &lo_a, &lo_b, &hi_a, &hi_b);
	for (i = lo_a; i < lo_b; i++)
		enter_slot(i, reader, start, last, &sum);
	for (i = hi_a; i < hi_b; i++)
		enter_slot(i, reader, start, last, &sum);
	n = rnd(&w->rng) % 64;
	if (n == 0)
		sched_yield();
	while (n--)
		cpu_relax();
	for (i = lo_a; i < lo_b; i++)
		__atomic_fetch_sub(&shadow[i], reader ? 1 : WRITER,
				   __ATOMIC_RELAXED);
	for (i = hi_a; i < hi_b; i++)
		__atomic_fetch_sub(&shadow[i], reader ? 1 : WRITER,
				   __ATOMIC_RELAXED);
	/* Keeps the reads alive; the value itself means nothing. */
	__atomic_store_n(&data[2 * MAX_SPACE - 1 - (sum & 1)], 0,
			 __ATOMIC_RELAXED);
}

static void pick_range(struct worker *w, unsigned long *start,
		       unsigned long *last)
{
	unsigned int kind = rnd(&w->rng) % 100;
	unsigned long len = 1 + rnd(&w->rng) % (space / 4 ? space / 4 : 1);
	unsigned long off = rnd(&w->rng) % space;

	if (kind < 4) {			/* whole space */
		*start = 0;
		*last = ULONG_MAX;
	} else if (kind < 8) {		/* from the low part to the top */
		*start = off;
		*last = ULONG_MAX - rnd(&w->rng) % space;
	} else if (kind < 20) {		/* high part, may end at ULONG_MAX */
		*last = ULONG_MAX - off;
		*start = *last - (len - 1 < space - 1 - off ?
				  len - 1 : space - 1 - off);
	} else {			/* low part */
		*start = off;
		*last = off + len - 1;
	}
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	union rl_req rl;
	unsigned long start, last;
	unsigned int op;
	bool reader;
	int ret;

	__atomic_store_n(&w->task, current, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		pick_range(w, &start, &last);
		reader = rnd(&w->rng) & 1;
		op = rnd(&w->rng) % 10;
		ops->req_init(&rl, start, last);
		if (op < 2) {
			ret = ops->lock_killable(&rl, reader);
			if (ret) {
				w->killed++;
				goto next;
			}
		} else if (op < 3) {
			if (!ops->trylock(&rl, reader)) {
				w->try_fail++;
				goto next;
			}
		} else {
			ops->lock(&rl, reader);
		}
		hold(w, reader, start, last);
		if (reader)
			w->reads++;
		else
			w->writes++;
		ops->unlock(&rl, reader);
next:
		/* A real task would die; this one forgets the signal. */
		shim_clear_sigkill(current);
		w->ops++;
		__atomic_fetch_add(&progress, 1, __ATOMIC_RELAXED);
	}
	w->sleeps = current->nr_sleeps;
	return NULL;
}

static void *killer_fn(void *arg)
{
	unsigned long long rng = (unsigned long long)(uintptr_t)arg | 1;
	struct task_struct *task;
	struct timespec ts;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		task = __atomic_load_n(&workers[rnd(&rng) % nthreads].task,
				       __ATOMIC_ACQUIRE);
		if (task)
			shim_send_sigkill(task);
		ts.tv_sec = 0;
		ts.tv_nsec = 20000 + rnd(&rng) % 100000;
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: rl_stress [--lock NAME (%s)] [--threads N (1-%d)] [--seconds S]\n"
		"                 [--space M (4-%d)] [--seed N] [--kill] [--stall-ms MS]\n",
		rl_ops_names(), MAX_THREADS, MAX_SPACE);
}

static unsigned long parse_num(const char *opt, const char *s,
			       unsigned long lo, unsigned long hi)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!*s || *end || v < lo || v > hi) {
		fprintf(stderr, "rl_stress: --%s '%s': expected an integer in %lu..%lu\n",
			opt, s, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "lock", required_argument, NULL, 'l' },
		{ "threads", required_argument, NULL, 't' },
		{ "seconds", required_argument, NULL, 's' },
		{ "space", required_argument, NULL, 'm' },
		{ "seed", required_argument, NULL, 'r' },
		{ "kill", no_argument, NULL, 'k' },
		{ "stall-ms", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	unsigned long seed = 1, stall_ms = 3000, last_progress = ~0ul;
	unsigned long nops = 0, reads = 0, writes = 0, try_fail = 0, killed = 0;
	unsigned long sleeps = 0;
	double seconds = 2, t_end, t_moved;
	pthread_t killer;
	bool kill = false;
	unsigned int i;
	int c, ret = 0;
	char *end;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			ops = rl_ops_find(optarg);
			if (!ops) {
				fprintf(stderr, "rl_stress: --lock '%s': expected one of %s\n",
					optarg, rl_ops_names());
				return 2;
			}
			break;
		case 't':
			nthreads = parse_num("threads", optarg, 1, MAX_THREADS);
			break;
		case 's':
			seconds = strtod(optarg, &end);
			if (*end || !(seconds > 0 && seconds <= 3600)) {
				fprintf(stderr, "rl_stress: --seconds '%s': expected a number in (0, 3600]\n",
					optarg);
				return 2;
			}
			break;
		case 'm':
			space = parse_num("space", optarg, 4, MAX_SPACE);
			break;
		case 'r':
			seed = parse_num("seed", optarg, 0, ~0ul);
			break;
		case 'k':
			kill = true;
			break;
		case 'S':
			stall_ms = parse_num("stall-ms", optarg, 10, 600000);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rl_stress: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}

	ops->init(space);
	for (i = 0; i < nthreads; i++) {
		workers[i].rng = (seed + 1) * 0x9e3779b97f4a7c15ull + i;
		if (pthread_create(&workers[i].thread, NULL, worker_fn,
				   &workers[i]))
			abort();
	}
	if (kill && pthread_create(&killer, NULL, killer_fn,
				   (void *)(uintptr_t)(seed + 77)))
		abort();

	t_end = now_s() + seconds;
	t_moved = now_s();
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED) && now_s() < t_end) {
		unsigned long p = __atomic_load_n(&progress, __ATOMIC_RELAXED);

		if (p != last_progress) {
			last_progress = p;
			t_moved = now_s();
		} else if ((now_s() - t_moved) * 1000 > stall_ms) {
			printf("STALL: no lock operation completed for %lu ms (%lu done): lost wake-up or deadlock\n",
			       stall_ms, p);
			fflush(stdout);
			_exit(1);
		}
		usleep(10000);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	/* The killer uses the workers' tasks: it goes first. */
	if (kill)
		pthread_join(killer, NULL);
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	for (i = 0; i < nthreads; i++) {
		pthread_join(workers[i].thread, NULL);
		nops += workers[i].ops;
		reads += workers[i].reads;
		writes += workers[i].writes;
		try_fail += workers[i].try_fail;
		killed += workers[i].killed;
		sleeps += workers[i].sleeps;
	}

	if (ops->report)
		ops->report();
	if (ops->is_locked()) {
		printf("LEAK: %s lock still held after every thread unlocked\n",
		       ops->name);
		ret = 1;
	}
	if (shim_warn_count()) {
		printf("WARNINGS: %lu\n", shim_warn_count());
		ret = 1;
	}
	if (violations)
		ret = 1;
	printf("rl_stress: lock=%s threads=%u space=%u kill=%d ops=%lu reads=%lu writes=%lu try_fail=%lu killed=%lu sleeps=%lu violations=%lu: %s\n",
	       ops->name, nthreads, space, kill, nops, reads, writes, try_fail, killed,
	       sleeps, violations, ret ? "FAIL" : "PASS");
	return ret;
}
