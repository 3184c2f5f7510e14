// SPDX-License-Identifier: GPL-2.0
/*
 * truncate-storm: truncate threads shrink the file to a random size and
 * extend it back while reader, writer, fault and O_DIRECT threads work on
 * it. A fault past EOF gets SIGBUS: that is the expected outcome, caught
 * with sigsetjmp and counted, not an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oracle.h"
#include "rlwork.h"

struct ts_opts {
	uint64_t truncate_threads;
	uint64_t min_size;
	uint64_t write_pct;
	const char *roles;
	bool probe_blocks;
};

enum { ROLE_READ, ROLE_WRITE, ROLE_FAULT, ROLE_DIO, ROLE_DIO_WRITE, NROLES };
enum { OP_TRUNCATE, OP_EXTEND, OP_READ, OP_WRITE, OP_FAULT, OP_DIO_READ,
       OP_DIO_WRITE };
enum { C_SIGBUS, C_SHORT_READS, C_DIO_READ_EIO };

struct ts_state {
	char *map;
	unsigned int roles[NROLES];	/* the roles given, in order */
	unsigned int nroles;
};

static const char *const role_names[] = {
	"read", "write", "fault", "dio", "diowrite"
};

#define O(f) offsetof(struct ts_opts, f)
static const struct opt_def ts_opts[] = {
	{ .name = "truncate-threads", .type = OPT_INT, .off = O(truncate_threads), .def = "1",
	  .min = 1, .max = 1024,
	  .help = "threads shrinking and re-extending the file" },
	{ .name = "min-size", .type = OPT_SIZE, .off = O(min_size), .def = "0",
	  .min = 0, .max = 1ull << 40,
	  .help = "smallest size a truncate shrinks to" },
	{ .name = "write-pct", .type = OPT_INT, .off = O(write_pct), .def = "25",
	  .min = 0, .max = 100,
	  .help = "percent of a fault thread's faults that are write faults" },
	{ .name = "roles", .type = OPT_STR, .off = O(roles), .def = "read,write,fault,dio",
	  NORANGE,
	  .help = "worker roles, comma separated from read,write,fault,dio,diowrite; --threads threads of each" },
	{ .name = "probe-blocks", .type = OPT_BOOL, .off = O(probe_blocks), .def = "no",
	  .flags = OPT_PARAM_ON,
	  .help = "count each truncate as freed or empty from st_blocks before and after it: two fstat() a truncate, outside its timed window but in the run, so fewer truncates a second" },
	OPT_END
};

/*
 * What an op did (ops[].kinds).  A fault past EOF (SIGBUS) and a short
 * read (past EOF, or a direct read's EIO: no data) do less than one that
 * finds the page; the outcome is known when the op returns, so the count
 * costs a comparison.  A truncate freed blocks or shrank over an empty
 * range: only fstat() tells, so only with --probe-blocks.
 */
enum { K_MAPPED, K_PAST_EOF };
enum { K_FULL, K_SHORT };
enum { K_FREED, K_EMPTY };
static const char *const fault_kinds[] = { "mapped", "past_eof", NULL };
static const char *const read_kinds[] = { "full", "short", NULL };
static const char *const truncate_kinds[] = { "freed", "empty", NULL };

static const char *const *const ts_op_kinds[RL_MAX_OPS] = {
	[OP_READ] = read_kinds, [OP_FAULT] = fault_kinds,
	[OP_DIO_READ] = read_kinds,
};
static const char *const *const ts_op_kinds_probed[RL_MAX_OPS] = {
	[OP_TRUNCATE] = truncate_kinds, [OP_READ] = read_kinds,
	[OP_FAULT] = fault_kinds, [OP_DIO_READ] = read_kinds,
};

static const struct op_decl ts_ops[] = {
	{ "truncate", false }, { "extend", false }, { "read", true },
	{ "write", true }, { "fault", true }, { "dio_read", true },
	{ "dio_write", true }, { NULL, false },
};

static const struct counter_decl ts_counters[] = {
	{ "sigbus", "faults", 0 }, { "short_reads", "reads", 0 },
	{ "dio_read_eio", "reads", 0 }, { NULL, NULL, 0 },
};

static __thread sigjmp_buf *fault_jmp;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	if (fault_jmp)
		siglongjmp(*fault_jmp, 1);
	rl_fatal_signal(sig);	/* not ours: crash as usual, file removed */
}

static int parse_roles(const char *s, struct ts_state *st)
{
	char *copy = strdup(s), *tok, *save;
	unsigned int i;

	st->nroles = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < NROLES && strcmp(tok, role_names[i]); i++)
			;
		if (i == NROLES || st->nroles == NROLES) {
			free(copy);
			return -1;
		}
		st->roles[st->nroles++] = i;
	}
	free(copy);
	return st->nroles ? 0 : -1;
}

static int ts_check(struct rl_run *r, char *err, size_t len)
{
	const struct ts_opts *t = r->wopts;
	struct ts_state st;

	if (parse_roles(t->roles, &st))
		return snprintf(err, len,
				"--roles: '%s' is not a list of read,write,fault,dio,diowrite",
				t->roles), -1;
	if (t->min_size % RL_PAGE || t->min_size >= r->o.size)
		return snprintf(err, len,
				"--min-size: %llu must be a multiple of 4k below --size %llu",
				(unsigned long long)t->min_size,
				(unsigned long long)r->o.size), -1;
	return 0;
}

/* truncate and extend always run; the other ops only for their role */
static unsigned int ts_unused_ops(const struct rl_run *r)
{
	static const unsigned int role_op[NROLES] = {
		[ROLE_READ] = OP_READ, [ROLE_WRITE] = OP_WRITE,
		[ROLE_FAULT] = OP_FAULT, [ROLE_DIO] = OP_DIO_READ,
		[ROLE_DIO_WRITE] = OP_DIO_WRITE,
	};
	const struct ts_opts *t = r->wopts;
	unsigned int off = 0, i;
	struct ts_state st;

	if (parse_roles(t->roles, &st))
		return 0;	/* ts_check refused it */
	for (i = 0; i < NROLES; i++)
		off |= 1u << role_op[i];
	for (i = 0; i < st.nroles; i++)
		off &= ~(1u << role_op[st.roles[i]]);
	return off;
}

static const char *const *const *ts_run_kinds(const struct rl_run *r)
{
	const struct ts_opts *t = r->wopts;

	return t->probe_blocks ? ts_op_kinds_probed : ts_op_kinds;
}

static uint64_t file_blocks(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : (uint64_t)st.st_blocks;
}

static uint64_t random_block(struct worker *w)
{
	return rl_rand_below(w, w->run->o.size / w->run->o.bs) * w->run->o.bs;
}

static void truncate_one(struct worker *w)
{
	struct rl_run *r = w->run;
	const struct ts_opts *t = r->wopts;
	uint64_t pages = (r->o.size - t->min_size) / RL_PAGE, newsize, t0, t1;
	uint64_t blocks = 0;
	int ret;

	newsize = t->min_size + rl_rand_below(w, pages) * RL_PAGE;
	if (r->oracle)
		oracle_punch_begin(r->oracle, w->pn, newsize / RL_PAGE,
				   (r->o.size - newsize) / RL_PAGE);
	if (t->probe_blocks)
		blocks = file_blocks(w->fd);
	t0 = rl_now();
	ret = ftruncate(w->fd, newsize);
	if (t->probe_blocks) {
		/* the clock stops before the probe, as without it */
		t1 = rl_now();
		rl_op_record(w, OP_TRUNCATE, file_blocks(w->fd) < blocks ?
			     K_FREED : K_EMPTY, t0, t1, 0);
	} else {
		rl_op_done(w, OP_TRUNCATE, t0, 0);
	}
	if (r->oracle)
		oracle_punch_end(r->oracle, w->pn);
	t0 = rl_now();
	ret = ret ? ret : ftruncate(w->fd, r->o.size);
	rl_op_done(w, OP_EXTEND, t0, 0);
	if (ret)
		rl_fail(r, "ftruncate: %s", strerror(errno));
}

static void read_one(struct worker *w, int fd, unsigned int op,
		     const char *how)
{
	struct rl_run *r = w->run;
	uint64_t off = random_block(w), bs = r->o.bs, t0;
	ssize_t ret;

	if (r->oracle)
		oracle_read_begin(r->oracle, w->rd, off / RL_PAGE, bs / RL_PAGE);
	t0 = rl_now();
	ret = pread(fd, w->buf, bs, off);
	rl_op_done_kind(w, op, ret < (ssize_t)bs ? K_SHORT : K_FULL, t0,
			ret > 0 ? ret : 0);
	/*
	 * 6.12's ext4 reports a delayed-allocation extent to iomap, which
	 * fails a direct read of it with EIO ("Direct I/O collision with
	 * buffered writes!"): a write fault (ext4_page_mkwrite(), which takes
	 * no i_rwsem) that dirtied a page after the read flushed its range
	 * makes one.  Not the lock's doing, and every variant has it;
	 * counted, the read returned no data.
	 */
	if (ret < 0 && errno == EIO && op == OP_DIO_READ) {
		rl_count(w, C_DIO_READ_EIO);
		return;
	}
	if (ret < 0) {
		rl_fail(r, "%s at %llu: %s", how, (unsigned long long)off,
			strerror(errno));
		return;
	}
	if ((uint64_t)ret < bs)
		rl_count(w, C_SHORT_READS);	/* past EOF: expected */
	if (r->oracle)
		oracle_read_end(r->oracle, w->rd, w->buf, ret, how);
}

static void write_one(struct worker *w, int fd, unsigned int op,
		      const char *how)
{
	struct rl_run *r = w->run;
	uint64_t off = random_block(w), bs = r->o.bs, gen = 0, t0;
	ssize_t ret;

	if (r->oracle) {
		gen = oracle_write_begin(r->oracle, off / RL_PAGE, bs / RL_PAGE);
		oracle_fill(r->oracle, w->buf, off / RL_PAGE, bs / RL_PAGE, gen);
	}
	t0 = rl_now();
	ret = pwrite(fd, w->buf, bs, off);
	rl_op_done(w, op, t0, ret > 0 ? ret : 0);
	if (r->oracle)
		oracle_write_end(r->oracle, off / RL_PAGE, bs / RL_PAGE, gen,
				 ret == (ssize_t)bs);
	if (ret != (ssize_t)bs)
		rl_fail(r, "%s at %llu: %s", how, (unsigned long long)off,
			ret < 0 ? strerror(errno) : "short write");
}

static void fault_one(struct worker *w)
{
	struct rl_run *r = w->run;
	const struct ts_opts *t = r->wopts;
	struct ts_state *st = r->priv;
	struct oracle *o = r->oracle;
	uint64_t page = rl_rand_below(w, r->o.size / RL_PAGE), gen = 0;
	char *addr = st->map + page * RL_PAGE, *tmp = w->buf;
	volatile bool write;
	volatile uint64_t t0;
	sigjmp_buf jb;

	write = rl_rand_below(w, 100) < t->write_pct;
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
		rl_op_done_kind(w, OP_FAULT, K_PAST_EOF, t0, 0);
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
	madvise(addr, RL_PAGE, MADV_DONTNEED);
	rl_op_done_kind(w, OP_FAULT, K_MAPPED, t0, RL_PAGE);
	if (o && write)
		oracle_write_end(o, page, 1, gen, true);
	else if (o)
		oracle_read_end(o, w->rd, tmp, RL_PAGE, "read fault");
}

static void ts_thread(struct worker *w)
{
	struct rl_run *r = w->run;
	const struct ts_opts *t = r->wopts;
	struct ts_state *st = r->priv;
	unsigned int role;

	if (w->id < t->truncate_threads) {
		while (rl_running(w))
			truncate_one(w);
		return;
	}
	role = st->roles[(w->id - t->truncate_threads) / r->o.threads];
	while (rl_running(w)) {
		switch (role) {
		case ROLE_READ:
			read_one(w, w->fd, OP_READ, "read");
			break;
		case ROLE_WRITE:
			write_one(w, w->fd, OP_WRITE, "write");
			break;
		case ROLE_FAULT:
			fault_one(w);
			break;
		case ROLE_DIO:
			read_one(w, w->dfd, OP_DIO_READ, "O_DIRECT read");
			break;
		case ROLE_DIO_WRITE:
			write_one(w, w->dfd, OP_DIO_WRITE, "O_DIRECT write");
			break;
		}
	}
}

static int ts_setup(struct rl_run *r)
{
	const struct ts_opts *t = r->wopts;
	struct ts_state *st = calloc(1, sizeof(*st));
	struct sigaction sa = { .sa_sigaction = on_sigbus,
				.sa_flags = SA_SIGINFO | SA_NODEFER };

	if (!st || parse_roles(t->roles, st))
		return EXIT_MEASURED;
	st->map = mmap(NULL, r->o.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       r->t.fd, 0);
	if (st->map == MAP_FAILED) {
		fprintf(stderr, "rlwork truncate-storm: mmap %s: %s\n",
			r->t.path, strerror(errno));
		return EXIT_MEASURED;
	}
	sigaction(SIGBUS, &sa, NULL);
	r->priv = st;
	r->nthreads = t->truncate_threads + r->o.threads * st->nroles;
	if (r->bufsize < RL_PAGE)
		r->bufsize = RL_PAGE;
	return 0;
}

static void ts_teardown(struct rl_run *r)
{
	struct ts_state *st = r->priv;

	munmap(st->map, r->o.size);
	free(st);
}

WORKLOAD(wl_truncate_storm) = {
	.name = "truncate-storm",
	.summary = "shrink/extend the file while others read, write, fault and do O_DIRECT",
	.help =
"--truncate-threads shrink the file to a random page-aligned size in\n"
"[--min-size, --size) and extend it back (a truncate op and an extend op).\n"
"Meanwhile --threads threads of each role in --roles work on random blocks:\n"
"read (buffered pread), write (buffered pwrite, which may extend the file),\n"
"fault (touch a page of a MAP_SHARED mapping, --write-pct of them writes,\n"
"then MADV_DONTNEED), dio (O_DIRECT pread) and diowrite (O_DIRECT pwrite,\n"
"not in the default roles). Reads past EOF are short and\n"
"faults past EOF get SIGBUS: both are expected, caught and counted\n"
"(counters short_reads and sigbus). An O_DIRECT read that finds a block\n"
"a racing mmap write fault left in delayed allocation fails with EIO\n"
"in 6.12 ext4 (\"Direct I/O collision with buffered writes!\" on the\n"
"console); it is counted in dio_read_eio, not a failure. Truncation takes the invalidation lock\n"
"exclusive over [new size, end], so this measures how page creation\n"
"scales against it and, with --verify, that nothing stale survives it.",
	.opts = ts_opts,
	.opts_size = sizeof(struct ts_opts),
	.defaults = "bs=4k",
	.ops = ts_ops,
	.kinds = ts_op_kinds,
	.counters = ts_counters,
	.flags = WL_DIRECT,
	.check = ts_check,
	.unused_ops = ts_unused_ops,
	.run_kinds = ts_run_kinds,
	.setup = ts_setup,
	.thread = ts_thread,
	.teardown = ts_teardown,
};
