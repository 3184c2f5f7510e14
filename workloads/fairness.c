// SPDX-License-Identifier: GPL-2.0
/*
 * fairness: one wide request against a stream of narrow ones, the
 * starvation case raised against reader/writer range locks. Wide threads
 * punch (or truncate away) most of the file, over and over; --threads
 * narrow threads fault and read single pages all over it, so every wide
 * request meets narrow holders of the lock wherever it lands. A FIFO lock
 * bounds the wide request's wait; a barging one may not. The wide op's
 * time from call to return is what userspace sees of that wait, and the
 * result carries it as ops[].wait_ns (count, mean, p99, max and the one
 * still unfinished when the window closed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "oracle.h"
#include "rlwork.h"

struct fw_opts {
	uint64_t wide_threads;
	unsigned int wide_op;
	uint64_t wide_pct;
	uint64_t wide_gap_us;
	uint64_t read_pct;
	uint64_t write_pct;
};

enum { WIDE_PUNCH, WIDE_TRUNCATE };
/* narrow ops first: the first op's rate is the point's main rate */
enum { OP_FAULT, OP_READ, OP_WIDE_PUNCH, OP_WIDE_TRUNCATE, OP_EXTEND };
enum { C_SIGBUS, C_SHORT_READS };

struct fw_state {
	char *map;
	uint64_t npages;	/* of the file */
	uint64_t wide_pages;	/* of each wide request */
};

static const char *const wide_op_choices[] = { "punch", "truncate", NULL };

#define O(f) offsetof(struct fw_opts, f)
static const struct opt_def fw_opts[] = {
	{ .name = "wide-threads", .type = OPT_INT, .off = O(wide_threads), .def = "1",
	  .min = 0, .max = 64,
	  .help = "threads issuing wide requests one after another; 0: the narrow threads alone, for their rates without a wide request" },
	{ .name = "wide-op", .type = OPT_ENUM, .off = O(wide_op), .def = "punch",
	  NORANGE, .choices = wide_op_choices,
	  .help = "punch: fallocate PUNCH_HOLE|KEEP_SIZE of --wide-pct of the file at a random page; truncate: shrink the file by --wide-pct, then extend it back (an extend op)" },
	{ .name = "wide-pct", .type = OPT_INT, .off = O(wide_pct), .def = "90",
	  .min = 1, .max = 100,
	  .help = "percent of the file each wide request covers" },
	{ .name = "wide-gap-us", .type = OPT_INT, .off = O(wide_gap_us), .def = "1000",
	  .min = 0, .max = 1000000,
	  .help = "microseconds a wide thread sleeps between requests, so each one arrives into a running stream of narrow ones" },
	{ .name = "read-pct", .type = OPT_INT, .off = O(read_pct), .def = "50",
	  .min = 0, .max = 100,
	  .help = "percent of narrow ops that are --bs preads; the rest fault one page of a MAP_SHARED mapping" },
	{ .name = "write-pct", .type = OPT_INT, .off = O(write_pct), .def = "25",
	  .min = 0, .max = 100,
	  .help = "percent of narrow faults that are write faults (they put back data for the wide requests to remove)" },
	OPT_END
};

static const struct op_decl fw_ops[] = {
	{ "fault", true }, { "read", true }, { "wide_punch", false },
	{ "wide_truncate", false }, { "extend", false }, { NULL, false },
};

static const struct counter_decl fw_counters[] = {
	{ "sigbus", "faults", 0 }, { "short_reads", "reads", 0 },
	{ NULL, NULL, 0 },
};

static int fw_check(struct rl_run *r, char *err, size_t len)
{
	const struct fw_opts *f = r->wopts;
	uint64_t pages = r->o.size / RL_PAGE;

	if (pages * f->wide_pct / 100 < 1)
		return snprintf(err, len,
				"--wide-pct %llu of --size %llu is less than a page",
				(unsigned long long)f->wide_pct,
				(unsigned long long)r->o.size), -1;
	if (!f->wide_threads &&
	    opt_is_set(fw_opts, r->wopts_given, "wide-gap-us"))
		return snprintf(err, len,
				"--wide-gap-us %llu without wide threads (--wide-threads 0): give one or neither",
				(unsigned long long)f->wide_gap_us), -1;
	return 0;
}

static unsigned int fw_unused_ops(const struct rl_run *r)
{
	const struct fw_opts *f = r->wopts;
	unsigned int off = 0;

	if (f->read_pct == 100)
		off |= 1u << OP_FAULT;
	if (f->read_pct == 0)
		off |= 1u << OP_READ;
	if (!f->wide_threads || f->wide_op != WIDE_PUNCH)
		off |= 1u << OP_WIDE_PUNCH;
	if (!f->wide_threads || f->wide_op != WIDE_TRUNCATE)
		off |= 1u << OP_WIDE_TRUNCATE | 1u << OP_EXTEND;
	return off;
}

/* a fault past EOF (after a wide truncate): SIGBUS, caught and counted */
static __thread sigjmp_buf *fault_jmp;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	if (fault_jmp)
		siglongjmp(*fault_jmp, 1);
	rl_fatal_signal(sig);	/* not ours: crash as usual, file removed */
}

static void fault_one(struct worker *w)
{
	struct rl_run *r = w->run;
	const struct fw_opts *f = r->wopts;
	struct fw_state *st = r->priv;
	struct oracle *o = r->oracle;
	uint64_t page = rl_rand_below(w, st->npages), gen = 0;
	char *addr = st->map + page * RL_PAGE, *tmp = w->buf;
	volatile bool write;
	volatile uint64_t t0;
	sigjmp_buf jb;

	write = rl_rand_below(w, 100) < f->write_pct;
	/* a page being written by another thread is read instead */
	if (o && write && !oracle_write_trybegin(o, page, 1, &gen))
		write = false;
	if (o && write)
		oracle_fill(o, tmp, page, 1, gen);
	else if (o)
		oracle_read_begin(o, w->rd, page, 1);
	t0 = rl_now();
	if (sigsetjmp(jb, 0)) {
		/* past EOF: nothing was read; a write did not complete */
		fault_jmp = NULL;
		rl_op_done(w, OP_FAULT, t0, 0);
		rl_count(w, C_SIGBUS);
		if (o && write)
			oracle_write_end(o, page, 1, gen, false);
		return;
	}
	fault_jmp = &jb;
	if (write)
		memcpy(addr, tmp, RL_PAGE);
	else
		memcpy(tmp, addr, RL_PAGE);
	fault_jmp = NULL;
	/* the next touch of the page faults again */
	madvise(addr, RL_PAGE, MADV_DONTNEED);
	rl_op_done(w, OP_FAULT, t0, RL_PAGE);
	if (o && write)
		oracle_write_end(o, page, 1, gen, true);
	else if (o)
		oracle_read_end(o, w->rd, tmp, RL_PAGE, "read fault");
}

static void read_one(struct worker *w)
{
	struct rl_run *r = w->run;
	uint64_t bs = r->o.bs, off, t0;
	ssize_t ret;

	off = rl_rand_below(w, r->o.size / bs) * bs;
	if (r->oracle)
		oracle_read_begin(r->oracle, w->rd, off / RL_PAGE, bs / RL_PAGE);
	t0 = rl_now();
	ret = pread(w->fd, w->buf, bs, off);
	rl_op_done(w, OP_READ, t0, ret > 0 ? ret : 0);
	if (ret < 0) {
		rl_fail(r, "read at %llu: %s", (unsigned long long)off,
			strerror(errno));
		return;
	}
	if ((uint64_t)ret < bs)
		rl_count(w, C_SHORT_READS);	/* past a wide truncate's EOF */
	if (r->oracle)
		oracle_read_end(r->oracle, w->rd, w->buf, ret, "read");
}

/*
 * With the oracle on, the wide range read back through the page cache
 * after the request (untimed, in pieces the thread's buffer holds): a
 * page a narrow fault cached from the blocks while the request was
 * between dropping the cache and freeing them still holds the data the
 * request removed, and the oracle sees it here even if no narrow op
 * touches that page again.
 */
static void read_back(struct worker *w, uint64_t first, uint64_t n)
{
	struct rl_run *r = w->run;
	uint64_t chunk = r->bufsize / RL_PAGE, k;
	ssize_t ret;

	for (; n && rl_running(w); first += k, n -= k) {
		k = n < chunk ? n : chunk;
		oracle_read_begin(r->oracle, w->rd, first, k);
		ret = pread(w->fd, w->buf, k * RL_PAGE, first * RL_PAGE);
		if (ret < 0) {
			rl_fail(r, "read back at %llu: %s",
				(unsigned long long)(first * RL_PAGE),
				strerror(errno));
			return;
		}
		oracle_read_end(r->oracle, w->rd, w->buf, ret,
				"read after a wide request");
	}
}

static void wide_one(struct worker *w)
{
	struct rl_run *r = w->run;
	const struct fw_opts *f = r->wopts;
	struct fw_state *st = r->priv;
	bool punch = f->wide_op == WIDE_PUNCH;
	uint64_t n = st->wide_pages, first, t0;
	int phase0, ret;

	first = punch ? rl_rand_below(w, st->npages - n + 1) : st->npages - n;
	if (r->oracle)
		oracle_punch_begin(r->oracle, w->pn, first, n);
	phase0 = READ_ONCE(r->phase);
	t0 = rl_now();
	if (punch)
		ret = fallocate(w->fd, FALLOC_FL_PUNCH_HOLE |
				FALLOC_FL_KEEP_SIZE, first * RL_PAGE,
				n * RL_PAGE);
	else
		ret = ftruncate(w->fd, first * RL_PAGE);
	rl_wait_done(w, punch ? OP_WIDE_PUNCH : OP_WIDE_TRUNCATE, phase0, t0);
	if (r->oracle)
		oracle_punch_end(r->oracle, w->pn);
	if (ret) {
		rl_fail(r, "wide %s at %llu: %s", punch ? "punch" : "truncate",
			(unsigned long long)(first * RL_PAGE), strerror(errno));
		return;
	}
	if (!punch) {
		t0 = rl_now();
		ret = ftruncate(w->fd, r->o.size);
		rl_op_done(w, OP_EXTEND, t0, 0);
		if (ret) {
			rl_fail(r, "extend to %llu: %s",
				(unsigned long long)r->o.size, strerror(errno));
			return;
		}
	}
	if (r->oracle)
		read_back(w, first, n);
	if (f->wide_gap_us && rl_running(w))
		usleep(f->wide_gap_us);
}

static void fw_thread(struct worker *w)
{
	const struct rl_run *r = w->run;
	const struct fw_opts *f = r->wopts;

	if (w->id < f->wide_threads) {
		while (rl_running(w))
			wide_one(w);
		return;
	}
	while (rl_running(w)) {
		if (rl_rand_below(w, 100) < f->read_pct)
			read_one(w);
		else
			fault_one(w);
	}
}

/* pieces of the read-back: bigger ones read the range in fewer calls */
#define READ_BACK_BYTES	(64u << 10)

static int fw_setup(struct rl_run *r)
{
	const struct fw_opts *f = r->wopts;
	struct fw_state *st = calloc(1, sizeof(*st));
	struct sigaction sa = { .sa_sigaction = on_sigbus,
				.sa_flags = SA_SIGINFO | SA_NODEFER };

	if (!st)
		return EXIT_MEASURED;
	st->npages = r->o.size / RL_PAGE;
	st->wide_pages = st->npages * f->wide_pct / 100;
	st->map = mmap(NULL, r->o.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       r->t.fd, 0);
	if (st->map == MAP_FAILED) {
		fprintf(stderr, "rlwork fairness: mmap %s: %s\n", r->t.path,
			strerror(errno));
		free(st);
		return EXIT_MEASURED;
	}
	sigaction(SIGBUS, &sa, NULL);
	r->priv = st;
	r->nthreads = f->wide_threads + r->o.threads;
	if (r->bufsize < READ_BACK_BYTES && r->o.verify)
		r->bufsize = READ_BACK_BYTES;
	if (r->bufsize < RL_PAGE)
		r->bufsize = RL_PAGE;
	return 0;
}

static void fw_teardown(struct rl_run *r)
{
	struct fw_state *st = r->priv;

	munmap(st->map, r->o.size);
	free(st);
}

WORKLOAD(wl_fairness) = {
	.name = "fairness",
	.summary = "one wide punch or truncate at a time vs narrow faults and reads: the wide request's wait",
	.help =
"--wide-threads threads (default 1) issue wide requests one after another,\n"
"--wide-gap-us apart: with --wide-op punch, a hole punch (fallocate\n"
"PUNCH_HOLE|KEEP_SIZE) of --wide-pct of the file at a random page; with\n"
"--wide-op truncate, a truncate that cuts --wide-pct off the end (op\n"
"wide_truncate), then one that extends the file back (op extend).\n"
"Meanwhile --threads narrow threads each pick a random place in the whole\n"
"file per op: --read-pct of their ops are --bs preads (op read), the\n"
"rest touch one page of a MAP_SHARED mapping (op fault; --write-pct of\n"
"them are write faults) and zap it again with MADV_DONTNEED. Every\n"
"narrow op that brings a page into the page cache takes the invalidation\n"
"lock shared over its page, so each wide request, which takes it\n"
"exclusive over most of the file, meets a stream of narrow holders: a\n"
"FIFO lock bounds its wait, a barging one may starve it. The result's\n"
"wide op carries wait_ns: count, mean, p99 and max of its time from call\n"
"to return (the request's latency, of which the lock wait is the main\n"
"part under contention) and unfinished, the time of a request that was\n"
"still in flight when the window closed (0: none). Faults past EOF after\n"
"a wide truncate get SIGBUS and reads there are short: both expected and\n"
"counted (sigbus, short_reads). --verify checks every narrow op and reads\n"
"each wide range back after its request (untimed).",
	.opts = fw_opts,
	.opts_size = sizeof(struct fw_opts),
	.defaults = "threads=2",
	.ops = fw_ops,
	.counters = fw_counters,
	.wait_ops = 1u << OP_WIDE_PUNCH | 1u << OP_WIDE_TRUNCATE,
	.flags = WL_PUNCH,
	.check = fw_check,
	.unused_ops = fw_unused_ops,
	.setup = fw_setup,
	.thread = fw_thread,
	.teardown = fw_teardown,
};
