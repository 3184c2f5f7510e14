// SPDX-License-Identifier: GPL-2.0
/*
 * The will-it-scale part: start every thread, hold them at a start gate,
 * let them run a ramp-up whose ops are not recorded, then a fixed measured
 * interval, then stop and join them. Threads only touch their own counters;
 * the main thread reads them after the join. A thread that cannot be set
 * up or started stops the others before they run an op, so the caller can
 * remove the file it created and report.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "insn-mark.h"
#include "oracle.h"
#include "rlwork.h"

static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Not a pthread barrier: one cannot be released when a thread fails to
 * start, and the started ones would wait at it for ever.
 */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int waiting;
	bool open;
} gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, false };

/* "the open-file limit, ulimit -n, is 4" for a finite limit, else "" */
static void limit_str(char *buf, size_t len, int res)
{
	static const struct { int res; const char *name, *opt; } names[] = {
		{ RLIMIT_NOFILE, "open-file", "-n" },
		{ RLIMIT_FSIZE, "file-size", "-f" },
		{ RLIMIT_MEMLOCK, "locked-memory", "-l" },
		{ RLIMIT_NPROC, "process", "-u" },
		{ RLIMIT_AS, "address-space", "-v" },
	};
	struct rlimit rl;
	unsigned int i;

	buf[0] = 0;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].res == res && !getrlimit(res, &rl) &&
		    rl.rlim_cur != RLIM_INFINITY)
			snprintf(buf, len, "the %s limit, ulimit %s, is %llu%s",
				 names[i].name, names[i].opt,
				 (unsigned long long)rl.rlim_cur,
				 res == RLIMIT_NOFILE || res == RLIMIT_NPROC ?
				 "" : " bytes");
}

/*
 * strerror(err) with the resource limit behind it: "Too many open files"
 * alone was blamed on O_DIRECT, and ENOMEM from io_uring on
 * CONFIG_IO_URING, where the fix was a ulimit. EMFILE and EFBIG always
 * come from a limit; ENOMEM and EAGAIN from the one the caller names
 * (hint: an RLIMIT_*, or -1) or the address space's. *limit (if not
 * NULL): whether a limit was named, which makes it bad input (exit 2).
 */
const char *rl_strerror(int err, int hint, bool *limit)
{
	static __thread char buf[320];
	char lim[2][128];
	bool mem = err == ENOMEM || err == EAGAIN;
	int res = err == EMFILE ? RLIMIT_NOFILE : err == EFBIG ? RLIMIT_FSIZE :
		  mem ? hint : -1;

	lim[0][0] = lim[1][0] = 0;
	if (res >= 0)
		limit_str(lim[0], sizeof(lim[0]), res);
	if (mem && res != RLIMIT_AS)
		limit_str(lim[1], sizeof(lim[1]), RLIMIT_AS);
	if (err == ENFILE)
		snprintf(lim[0], sizeof(lim[0]), "the system's open-file table is full, fs.file-max");
	if (limit)
		*limit = lim[0][0] || lim[1][0];
	snprintf(buf, sizeof(buf), "%s%s%s%s%s%s", strerror(err),
		 lim[0][0] || lim[1][0] ? " (" : "", lim[0],
		 lim[0][0] && lim[1][0] ? "; " : "", lim[1],
		 lim[0][0] || lim[1][0] ? ")" : "");
	return buf;
}

void rl_fail(struct rl_run *r, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&fail_lock);
	if (!r->failed) {
		va_start(ap, fmt);
		vsnprintf(r->fail_msg, sizeof(r->fail_msg), fmt, ap);
		va_end(ap);
		r->failed = 1;
	}
	pthread_mutex_unlock(&fail_lock);
	WRITE_ONCE(r->phase, PHASE_STOP);
}

/*
 * Why the threads could not be set up, for main's one line: the first
 * failure, with the limit behind it (rl_strerror); r->setup_limit makes
 * it bad input.
 */
static void setup_error(struct rl_run *r, int err, int hint,
			const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (r->setup_err[0])
		return;
	va_start(ap, fmt);
	n = vsnprintf(r->setup_err, sizeof(r->setup_err), fmt, ap);
	va_end(ap);
	if (n < sizeof(r->setup_err))
		snprintf(r->setup_err + n, sizeof(r->setup_err) - n, ": %s",
			 rl_strerror(err, hint, &r->setup_limit));
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char err[256];

	/* placed before the gate: the ramp-up already runs where it measures */
	if (placement_thread(w, err, sizeof(err)))
		rl_fail(w->run, "%s", err);
	pthread_mutex_lock(&gate.lock);
	gate.waiting++;
	pthread_cond_broadcast(&gate.cond);
	while (!gate.open)
		pthread_cond_wait(&gate.cond, &gate.lock);
	pthread_mutex_unlock(&gate.lock);
	if (rl_running(w))
		w->run->wl->thread(w);
	return NULL;
}

static struct worker *worker_new(struct rl_run *r, unsigned int id)
{
	uint64_t pages = r->bufsize / RL_PAGE;
	struct worker *w;
	unsigned int i;

	if (posix_memalign((void **)&w, CACHELINE, sizeof(*w)))
		return NULL;
	memset(w, 0, sizeof(*w));
	w->run = r;
	w->id = id;
	/*
	 * Its own open files, as separate processes would have: threads
	 * sharing one struct file bounce its reference count between CPUs on
	 * every syscall, and share one readahead state.
	 */
	w->fd = open(r->t.path, O_RDWR | O_CLOEXEC);
	w->dfd = r->t.dfd >= 0 ?
		 open(r->t.path, O_RDWR | O_DIRECT | O_CLOEXEC) : -1;
	if (w->fd < 0 || (r->t.dfd >= 0 && w->dfd < 0)) {
		setup_error(r, errno, -1, "thread %u: opening it%s", id,
			    w->fd < 0 ? "" : " with O_DIRECT");
		if (w->fd >= 0)
			close(w->fd);
		free(w);
		return NULL;
	}
	/* distinct, never zero, reproducible from --seed */
	w->rng = (r->o.seed + 1) * 0x9e3779b97f4a7c15ull + id * 0xbf58476d1ce4e5b9ull;
	for (i = 0; i < RL_MAX_OPS; i++)
		hist_init(&w->stats[i].h);
	if (posix_memalign(&w->buf, RL_PAGE, r->bufsize))
		goto nomem;
	/* even untagged runs write tags: the file stays recognizably ours */
	for (i = 0; i < pages; i++)
		tag_fill_page((char *)w->buf + i * RL_PAGE, r->t.file_id, 0, 1);
	if (r->oracle) {
		w->rd = oracle_read_new(pages ? pages : 1);
		w->pn = oracle_punch_new(r->oracle->npages);
		if (!w->rd || !w->pn)
			goto nomem;
	}
	return w;
nomem:
	setup_error(r, ENOMEM, -1, "thread %u: its buffers", id);
	close(w->fd);
	if (w->dfd >= 0)
		close(w->dfd);
	free(w);
	return NULL;
}

static double ts_diff(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

static void ts_add(struct timespec *t, double s)
{
	t->tv_sec += (time_t)s;
	t->tv_nsec += (long)((s - (time_t)s) * 1e9);
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

/* sleep until the deadline, a failure or a signal, whichever comes first */
static void wait_until(struct rl_run *r, const struct timespec *deadline)
{
	struct timespec now, tick;

	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (ts_diff(&now, deadline) <= 0 || rl_interrupted ||
		    READ_ONCE(r->phase) == PHASE_STOP)
			return;
		tick = now;
		ts_add(&tick, 0.05);
		if (ts_diff(&tick, deadline) < 0)
			tick = *deadline;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &tick, NULL);
	}
}

/*
 * Thread i starts on the i-th allowed CPU, round-robin: a process bound to
 * one package gets one thread per core there, in the same place every run.
 */
static int pin_attr(const struct rl_run *r, unsigned int i,
		    pthread_attr_t *attr)
{
	unsigned int cpu = r->cpus[i % r->ncpus];
	size_t size = CPU_ALLOC_SIZE(cpu + 1);
	cpu_set_t *set = CPU_ALLOC(cpu + 1);
	int err;

	if (!set)
		return ENOMEM;
	CPU_ZERO_S(size, set);
	CPU_SET_S(cpu, size, set);
	err = pthread_attr_setaffinity_np(attr, size, set);
	CPU_FREE(set);
	return err;
}

static int start_worker(struct rl_run *r, unsigned int i, pthread_t *tid)
{
	pthread_attr_t attr;
	int err;

	pthread_attr_init(&attr);
	err = r->o.pin ? pin_attr(r, i, &attr) : 0;
	if (!err)
		err = pthread_create(tid, &attr, worker_main, r->workers[i]);
	pthread_attr_destroy(&attr);
	if (err)
		setup_error(r, err, RLIMIT_NPROC, "starting thread %u%s", i,
			    r->o.pin ? " (--pin)" : "");
	return err;
}

static void open_gate(void)
{
	pthread_mutex_lock(&gate.lock);
	gate.open = true;
	pthread_cond_broadcast(&gate.cond);
	pthread_mutex_unlock(&gate.lock);
}

static void free_workers(struct rl_run *r, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		close(r->workers[i]->fd);
		if (r->workers[i]->dfd >= 0)
			close(r->workers[i]->dfd);
	}
}

/*
 * A thread sees the stop between two ops, and an op may take longer than
 * anyone waits after a signal (calib at its largest --loops spins for
 * minutes): after SIGINT, SIGTERM or SIGHUP each thread gets STOP_GRACE_S
 * to finish its op. One still in it is left running (its files and
 * buffers stay, r->abandoned counts it); the run has failed, main writes
 * the result without the workload's teardown, and the exit ends it.
 */
#define STOP_GRACE_S	2.0

static void join_workers(struct rl_run *r, pthread_t *tids)
{
	struct timespec now, tick, giveup;
	bool signalled = false;
	unsigned int i;

	for (i = 0; i < r->nthreads; i++) {
		/* in slices: a signal may come while a thread is waited for */
		for (;;) {
			clock_gettime(CLOCK_REALTIME, &tick);
			ts_add(&tick, 0.05);
			if (pthread_timedjoin_np(tids[i], NULL, &tick) != ETIMEDOUT)
				break;
			if (!rl_interrupted)
				continue;
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (!signalled) {
				signalled = true;
				giveup = now;
				ts_add(&giveup, STOP_GRACE_S);
			}
			if (ts_diff(&now, &giveup) <= 0) {
				r->abandoned++;
				break;
			}
		}
	}
}

/*
 * The tag of the measured window, for the instruction profiler
 * (insn-mark.h): FNV-1a (32 bits) of the base name of --json, e.g.
 * "p001-dio-cost-i1.result.json", which runners/boot computes too to
 * find the point's window; 0 without --json or with --json -.
 */
static uint32_t window_tag(const struct rl_run *r)
{
	const char *p = r->o.json, *slash;
	uint32_t h = 2166136261u;

	if (!p || !strcmp(p, "-"))
		return 0;
	slash = strrchr(p, '/');
	for (p = slash ? slash + 1 : p; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return h;
}

/*
 * The measured window's start: the tag's 32 bit markers, most significant
 * first, then the start marker. Markers are NOPs: outside the profiler
 * they cost about 200 instructions a point (the loop), before its clock
 * starts.
 */
static void window_start(const struct rl_run *r)
{
	uint32_t tag = window_tag(r);
	int i;

	for (i = 31; i >= 0; i--) {
		if (tag >> i & 1)
			insn_mark(INSN_MARK_BIT1);
		else
			insn_mark(INSN_MARK_BIT0);
	}
	insn_mark(INSN_MARK_START);
}

/* Returns -1 when the threads could not be set up; nothing ran then. */
int rl_harness_run(struct rl_run *r)
{
	struct timespec t0, t1, deadline;
	pthread_t *tids;
	unsigned int i, n;

	r->workers = calloc(r->nthreads, sizeof(*r->workers));
	tids = calloc(r->nthreads, sizeof(*tids));
	if (!r->workers || !tids) {
		setup_error(r, ENOMEM, -1, "%u threads", r->nthreads);
		free(tids);
		return -1;
	}
	for (i = 0; i < r->nthreads; i++) {
		r->workers[i] = worker_new(r, i);
		if (!r->workers[i]) {
			free_workers(r, i);
			free(tids);
			return -1;
		}
	}
	if (placement_start(r)) {
		setup_error(r, ENOMEM, -1, "the placement");
		free_workers(r, r->nthreads);
		free(tids);
		return -1;
	}
	WRITE_ONCE(r->phase, r->o.ramp > 0 ? PHASE_RAMP : PHASE_MEASURE);
	for (n = 0; n < r->nthreads; n++)
		if (start_worker(r, n, &tids[n]))
			break;
	if (n < r->nthreads) {
		/* the started ones see PHASE_STOP at the gate and return */
		WRITE_ONCE(r->phase, PHASE_STOP);
		open_gate();
		for (i = 0; i < n; i++)
			pthread_join(tids[i], NULL);
		free_workers(r, r->nthreads);
		free(tids);
		return -1;
	}
	pthread_mutex_lock(&gate.lock);
	while (gate.waiting < r->nthreads)
		pthread_cond_wait(&gate.cond, &gate.lock);
	pthread_mutex_unlock(&gate.lock);
	open_gate();
	/* the window the clock measures, marked for the profiler */
	if (r->o.ramp <= 0)
		window_start(r);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (r->o.ramp > 0) {
		deadline = t0;
		ts_add(&deadline, r->o.ramp);
		wait_until(r, &deadline);
		window_start(r);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (READ_ONCE(r->phase) != PHASE_STOP)
			WRITE_ONCE(r->phase, PHASE_MEASURE);
	}
	deadline = t0;
	ts_add(&deadline, r->o.runtime);
	wait_until(r, &deadline);
	WRITE_ONCE(r->phase, PHASE_STOP);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	insn_mark(INSN_MARK_END);
	r->measured_s = ts_diff(&t0, &t1);
	if (rl_interrupted && !r->failed)
		rl_fail(r, "interrupted by a signal");
	join_workers(r, tids);
	if (!r->abandoned)
		free_workers(r, r->nthreads);
	free(tids);
	return 0;
}
