// SPDX-License-Identifier: GPL-2.0
/*
 * mmap-punch: page faults on a shared mapping against hole punching, the
 * race invalidate_lock closed in 5.15. Fault threads read and write pages
 * of a MAP_SHARED mapping and zap them again (MADV_DONTNEED) so the next
 * touch faults again; punch threads punch chunks; refill threads write
 * punched chunks back so there is data to punch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "oracle.h"
#include "rlwork.h"

struct mp_opts {
	uint64_t fault_threads;
	uint64_t punch_threads;
	uint64_t refill_threads;
	uint64_t punch_len;
	uint64_t write_pct;
	unsigned int overlap;
	bool probe_residency;
};

enum { OVERLAP_DISJOINT, OVERLAP_INTERLEAVED, OVERLAP_IDENTICAL };
enum { OP_FAULT, OP_PUNCH, OP_REFILL };
enum { C_READ_FAULTS, C_WRITE_FAULTS };

struct mp_state {
	char *map;
	uint64_t nchunks;
	uint64_t ppc;		/* pages per chunk */
	uint8_t *punched;	/* per chunk: punched, not yet refilled */
};

static const char *const overlap_choices[] = { "disjoint", "interleaved",
					       "identical", NULL };

#define O(f) offsetof(struct mp_opts, f)
static const struct opt_def mp_opts[] = {
	{ .name = "fault-threads", .type = OPT_INT, .off = O(fault_threads),
	  .min = 0, .max = 1024, .flags = OPT_NOPARAM,
	  .help = "fault threads, 0 for a point without faults; sets --threads, which the result records" },
	{ .name = "punch-threads", .type = OPT_INT, .off = O(punch_threads), .def = "1",
	  .min = 0, .max = 1024,
	  .help = "threads punching holes (--threads is the number of fault threads); 0: faults alone, and no refills" },
	{ .name = "refill-threads", .type = OPT_INT, .off = O(refill_threads), .def = "1",
	  .min = 0, .max = 1024,
	  .help = "threads writing punched chunks back with pwrite" },
	{ .name = "punch-len", .type = OPT_SIZE, .off = O(punch_len), .def = "64k",
	  .min = 4096, .max = 1ull << 30,
	  .help = "bytes per punch; the file is cut into chunks of this size" },
	{ .name = "write-pct", .type = OPT_INT, .off = O(write_pct), .def = "25",
	  .min = 0, .max = 100,
	  .help = "percent of faults that are write faults" },
	{ .name = "overlap", .type = OPT_ENUM, .off = O(overlap), .def = "identical",
	  NORANGE, .choices = overlap_choices,
	  .help = "fault vs punch chunks: disjoint (separate halves), interleaved (even vs odd chunks) or identical (all chunks)" },
	{ .name = "probe-residency", .type = OPT_BOOL, .off = O(probe_residency), .def = "no",
	  .flags = OPT_PARAM_ON,
	  .help = "count each fault also by mincore() on its page just before the touch: missed (not in the page cache) or cached; one mincore() a fault, outside its timed window but in the run, so fewer faults a second" },
	OPT_END
};

/*
 * What a fault or punch did, from the punched[] flags the refills already
 * keep (one load before the op's clock starts, no syscall): "hole" when
 * its chunk had been punched and no refill had claimed it since, "data"
 * otherwise.  The first fault on a hole finds no page in the cache (the
 * punch dropped it) and makes one, taking the invalidation lock, but its
 * read-around brings in the rest of the chunk: --probe-residency tells
 * those apart.  A punch over a hole frees only what faults brought in
 * since.  A refill always writes a chunk a punch left: one kind.
 */
enum { K_HOLE, K_DATA };
static const char *const mp_kinds[] = { "hole", "data", NULL };

static const char *const *const mp_op_kinds[RL_MAX_OPS] = {
	[OP_FAULT] = mp_kinds, [OP_PUNCH] = mp_kinds,
};

/*
 * --probe-residency: whether the page was in the page cache (mincore())
 * just before the touch, which is what decides whether the fault takes
 * the invalidation lock, crossed with hole/data, so a run also shows how
 * often the free flag's guess was wrong. K_HOLE/K_DATA + 2 if cached.
 */
enum { K_CACHED = 2 };
static const char *const mp_fault_probed[] = {
	"hole_missed", "data_missed", "hole_cached", "data_cached", NULL
};
static const char *const *const mp_op_kinds_probed[RL_MAX_OPS] = {
	[OP_FAULT] = mp_fault_probed, [OP_PUNCH] = mp_kinds,
};

static const char *const *const *mp_run_kinds(const struct rl_run *r)
{
	const struct mp_opts *m = r->wopts;

	return m->probe_residency ? mp_op_kinds_probed : mp_op_kinds;
}

static const struct op_decl mp_ops[] = {
	{ "fault", true }, { "punch", false }, { "refill", true },
	{ NULL, false },
};

static const struct counter_decl mp_counters[] = {
	{ "read_faults", "faults", 0 }, { "write_faults", "faults", 0 },
	{ NULL, NULL, 0 },
};

static int mp_check(struct rl_run *r, char *err, size_t len)
{
	struct mp_opts *m = r->wopts;
	uint64_t n = r->o.size / m->punch_len;

	/* --threads cannot be 0 for every workload; this one can do without */
	if (opt_is_set(mp_opts, r->wopts_given, "fault-threads")) {
		if (opt_is_set(common_opts, r->o_given, "threads"))
			return snprintf(err, len,
					"--fault-threads and --threads both set the fault threads: give one"), -1;
		r->o.threads = m->fault_threads;
	}
	/* what the resolved options print: the fault threads that will run */
	m->fault_threads = r->o.threads;
	if (!r->o.threads && !m->punch_threads)
		return snprintf(err, len,
				"--fault-threads 0 and --punch-threads 0: nothing would run"), -1;

	if (m->punch_len % RL_PAGE)
		return snprintf(err, len, "--punch-len: %llu is not a multiple of 4k",
				(unsigned long long)m->punch_len), -1;
	if (n < 2)
		return snprintf(err, len,
				"file too small: --size %llu holds %llu chunks of --punch-len %llu, need at least 2",
				(unsigned long long)r->o.size,
				(unsigned long long)n,
				(unsigned long long)m->punch_len), -1;
	return 0;
}

/* refills only follow punches: without punchers they would only sleep */
static uint64_t refill_threads(const struct rl_run *r)
{
	const struct mp_opts *m = r->wopts;

	return m->punch_threads ? m->refill_threads : 0;
}

static unsigned int mp_unused_ops(const struct rl_run *r)
{
	const struct mp_opts *m = r->wopts;

	return (r->o.threads ? 0 : 1u << OP_FAULT) |
	       (m->punch_threads ? 0 : 1u << OP_PUNCH) |
	       (refill_threads(r) ? 0 : 1u << OP_REFILL);
}

/* the k-th chunk of the fault (punch = false) or punch domain */
static uint64_t domain_size(const struct rl_run *r, bool punch)
{
	const struct mp_opts *m = r->wopts;
	const struct mp_state *s = r->priv;

	switch (m->overlap) {
	case OVERLAP_DISJOINT:
		return punch ? s->nchunks - s->nchunks / 2 : s->nchunks / 2;
	case OVERLAP_INTERLEAVED:
		return punch ? s->nchunks / 2 : (s->nchunks + 1) / 2;
	}
	return s->nchunks;
}

static uint64_t domain_chunk(const struct rl_run *r, bool punch, uint64_t k)
{
	const struct mp_opts *m = r->wopts;
	const struct mp_state *s = r->priv;

	switch (m->overlap) {
	case OVERLAP_DISJOINT:
		return punch ? s->nchunks / 2 + k : k;
	case OVERLAP_INTERLEAVED:
		return 2 * k + punch;
	}
	return k;
}

static bool page_cached(void *addr)
{
	unsigned char v = 0;

	return !mincore(addr, RL_PAGE, &v) && (v & 1);
}

static void fault_one(struct worker *w)
{
	struct rl_run *r = w->run;
	const struct mp_opts *m = r->wopts;
	struct mp_state *s = r->priv;
	struct oracle *o = r->oracle;
	uint64_t k, page, gen = 0, t0;
	char *addr, *tmp = w->buf;
	unsigned int kind;
	bool write;

	k = domain_chunk(r, false, rl_rand_below(w, domain_size(r, false)));
	kind = __atomic_load_n(&s->punched[k], __ATOMIC_RELAXED) ? K_HOLE :
								 K_DATA;
	page = k * s->ppc + rl_rand_below(w, s->ppc);
	addr = s->map + page * RL_PAGE;
	write = rl_rand_below(w, 100) < m->write_pct;
	/* a page being refilled is read instead: writes are serialized */
	if (o && write && !oracle_write_trybegin(o, page, 1, &gen))
		write = false;
	if (o && write)
		oracle_fill(o, tmp, page, 1, gen);
	else if (o)
		oracle_read_begin(o, w->rd, page, 1);
	/* the last thing before the clock: the residency the touch meets */
	if (m->probe_residency && page_cached(addr))
		kind += K_CACHED;
	t0 = rl_now();
	if (write)
		memcpy(addr, tmp, RL_PAGE);
	else if (o)
		memcpy(tmp, addr, RL_PAGE);
	else
		(void)*(volatile char *)addr;
	madvise(addr, RL_PAGE, MADV_DONTNEED);
	rl_op_done_kind(w, OP_FAULT, kind, t0, RL_PAGE);
	rl_count(w, write ? C_WRITE_FAULTS : C_READ_FAULTS);
	if (o && write)
		oracle_write_end(o, page, 1, gen, true);
	else if (o)
		oracle_read_end(o, w->rd, tmp, RL_PAGE, "read fault");
}

/*
 * With the oracle on, read the chunk back through the page cache after its
 * punch, before a refill may write it: a page that a fault cached from the
 * blocks while the punch was between dropping the cache and freeing them
 * is still there, with the data the punch removed.  Without this, only a
 * fault that happened to touch that page again before the refill would
 * see it.  Not timed: the punch op ends at fallocate()'s return.
 */
static void punch_read_back(struct worker *w, uint64_t k)
{
	struct rl_run *r = w->run;
	struct mp_state *s = r->priv;
	uint64_t len = s->ppc * RL_PAGE;
	ssize_t ret;

	oracle_read_begin(r->oracle, w->rd, k * s->ppc, s->ppc);
	ret = pread(w->fd, w->buf, len, k * len);
	if (ret < 0) {
		rl_fail(r, "read after the punch at %llu: %s",
			(unsigned long long)(k * len), strerror(errno));
		return;
	}
	oracle_read_end(r->oracle, w->rd, w->buf, ret, "read after punch");
}

static void punch_one(struct worker *w)
{
	struct rl_run *r = w->run;
	struct mp_state *s = r->priv;
	struct oracle *o = r->oracle;
	uint64_t k, t0, len = s->ppc * RL_PAGE;
	unsigned int kind;
	int ret;

	k = domain_chunk(r, true, rl_rand_below(w, domain_size(r, true)));
	kind = __atomic_load_n(&s->punched[k], __ATOMIC_RELAXED) ? K_HOLE :
								 K_DATA;
	if (o)
		oracle_punch_begin(o, w->pn, k * s->ppc, s->ppc);
	t0 = rl_now();
	ret = fallocate(w->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			k * len, len);
	rl_op_done_kind(w, OP_PUNCH, kind, t0, 0);
	if (o)
		oracle_punch_end(o, w->pn);
	if (ret)
		rl_fail(r, "punch at %llu: %s", (unsigned long long)(k * len),
			strerror(errno));
	else if (o)
		punch_read_back(w, k);
	__atomic_store_n(&s->punched[k], 1, __ATOMIC_RELEASE);
}

static void refill_one(struct worker *w, uint64_t *cursor)
{
	struct rl_run *r = w->run;
	struct mp_state *s = r->priv;
	struct oracle *o = r->oracle;
	uint64_t n = domain_size(r, true), k, i, gen = 0, t0;
	uint64_t len = s->ppc * RL_PAGE;
	ssize_t ret;

	for (i = 0; i < n; i++) {
		k = domain_chunk(r, true, (*cursor + i) % n);
		if (__atomic_exchange_n(&s->punched[k], 0, __ATOMIC_ACQ_REL))
			break;
	}
	*cursor += i + 1;
	if (i == n) {
		usleep(100);	/* nothing punched yet */
		return;
	}
	if (o) {
		gen = oracle_write_begin(o, k * s->ppc, s->ppc);
		oracle_fill(o, w->buf, k * s->ppc, s->ppc, gen);
	}
	t0 = rl_now();
	ret = pwrite(w->fd, w->buf, len, k * len);
	rl_op_done(w, OP_REFILL, t0, ret > 0 ? ret : 0);
	if (o)
		oracle_write_end(o, k * s->ppc, s->ppc, gen,
				 ret == (ssize_t)len);
	if (ret != (ssize_t)len)
		rl_fail(r, "refill at %llu: %s", (unsigned long long)(k * len),
			ret < 0 ? strerror(errno) : "short write");
}

static void mp_thread(struct worker *w)
{
	const struct rl_run *r = w->run;
	const struct mp_opts *m = r->wopts;
	uint64_t cursor = w->id;

	if (w->id < r->o.threads)
		while (rl_running(w))
			fault_one(w);
	else if (w->id < r->o.threads + m->punch_threads)
		while (rl_running(w))
			punch_one(w);
	else
		while (rl_running(w))
			refill_one(w, &cursor);
}

static int mp_setup(struct rl_run *r)
{
	const struct mp_opts *m = r->wopts;
	struct mp_state *s = calloc(1, sizeof(*s));

	if (!s)
		return EXIT_MEASURED;
	s->ppc = m->punch_len / RL_PAGE;
	s->nchunks = r->o.size / m->punch_len;
	s->punched = calloc(s->nchunks, 1);
	s->map = mmap(NULL, r->o.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      r->t.fd, 0);
	if (s->map == MAP_FAILED || !s->punched) {
		fprintf(stderr, "rlwork mmap-punch: mmap %s: %s\n", r->t.path,
			strerror(errno));
		return EXIT_MEASURED;
	}
	r->priv = s;
	r->nthreads = r->o.threads + m->punch_threads + refill_threads(r);
	r->bufsize = m->punch_len > RL_PAGE ? m->punch_len : RL_PAGE;
	return 0;
}

static void mp_teardown(struct rl_run *r)
{
	struct mp_state *s = r->priv;

	munmap(s->map, r->o.size);
	free(s->punched);
	free(s);
}

WORKLOAD(wl_mmap_punch) = {
	.name = "mmap-punch",
	.summary = "page faults on a shared mapping vs hole punching and refills",
	.help =
"--threads fault threads touch random pages of a MAP_SHARED mapping of the\n"
"file (read faults, and --write-pct write faults that store a tagged page)\n"
"and zap each page with MADV_DONTNEED so the next touch faults again; a\n"
"fault op is the touch plus the zap. --punch-threads punch random chunks of\n"
"--punch-len bytes (fallocate PUNCH_HOLE|KEEP_SIZE) and --refill-threads\n"
"write punched chunks back with pwrite. --overlap chooses whether the fault\n"
"and punch chunks are disjoint, interleaved or identical; --fault-threads 0\n"
"or --punch-threads 0 leaves one side alone, for single-role points. This\n"
"is the race the page-cache invalidation lock exists for: without it\n"
"(imutex) a fault can bring back data a completed punch removed, which\n"
"--verify reports: the punch threads then also read each punched chunk\n"
"back through the page cache (untimed), so every page brought back is\n"
"seen, not only those a fault touches again before the refill.",
	.opts = mp_opts,
	.opts_size = sizeof(struct mp_opts),
	.ops = mp_ops,
	.kinds = mp_op_kinds,
	.run_kinds = mp_run_kinds,
	.counters = mp_counters,
	.flags = WL_PUNCH,
	.check = mp_check,
	.unused_ops = mp_unused_ops,
	.setup = mp_setup,
	.thread = mp_thread,
	.teardown = mp_teardown,
};
