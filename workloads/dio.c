// SPDX-License-Identifier: GPL-2.0
/*
 * dio: O_DIRECT pread/pwrite on one file, with page-cache readers (faults,
 * buffered reads) and mmap lock writers (mprotect) of the same pages
 * beside them.  Direct IO takes no range on any strategy of the series;
 * the readers are what would wait if it did.
 *
 * The IO path is split into "pick the next IO", "issue it", "complete it",
 * shared by the engines: sync (one pread/pwrite at a time) and io_uring
 * (dio-uring.c: --iodepth IOs in flight per thread, completions reaped as
 * they come).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/fs.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>

#include "dio.h"
#include "iopat.h"
#include "oracle.h"
#include "rlwork.h"



static const char *const engine_choices[] = { "sync", "io_uring", NULL };

#define O(f) offsetof(struct dio_opts, f)
static const struct opt_def dio_opts[] = {
	IOPAT_OPTS(struct dio_opts, io),
	{ .name = "engine", .type = OPT_ENUM, .off = O(engine), .def = "sync",
	  NORANGE, .choices = engine_choices,
	  .help = "how IO is issued: sync (pread/pwrite) or io_uring (asynchronous)" },
	{ .name = "iodepth", .type = OPT_INT, .off = O(iodepth), .def = "1",
	  .min = 1, .max = 1024,
	  .help = "IOs in flight per thread (io_uring only)" },
	{ .name = "fault-threads", .type = OPT_INT, .off = O(fault_threads), .def = "0",
	  .min = 0, .max = 1024,
	  .help = "threads reading the same file through mmap read faults" },
	{ .name = "fault-random", .type = OPT_BOOL, .off = O(fault_random), .def = "no",
	  NORANGE,
	  .help = "madvise(MADV_RANDOM) the fault threads' mapping: no read-around, so a fault that finds its page missing reads it, and waits for the invalidate lock, without dropping the mmap or VMA lock first" },
	{ .name = "fault-write", .type = OPT_BOOL, .off = O(fault_write), .def = "no",
	  NORANGE,
	  .help = "the fault threads store through a shared writable mapping (an atomic add of 0: the page's bytes stay, but every fault is a write fault through ->page_mkwrite); --mprotect-threads then toggle PROT_EXEC" },
	{ .name = "mprotect-threads", .type = OPT_INT, .off = O(mprotect_threads), .def = "0",
	  .min = 0, .max = 1024,
	  .help = "threads that mprotect() the fault threads' whole mapping back and forth (a writer of the mmap and VMA locks): their latency is how long a fault holds those locks" },
	{ .name = "buffered-threads", .type = OPT_INT, .off = O(buffered_threads), .def = "0",
	  .min = 0, .max = 1024,
	  .help = "threads reading the same file through the page cache (pread)" },
	{ .name = "sparse", .type = OPT_BOOL, .off = O(sparse), .def = "no",
	  NORANGE,
	  .help = "start from a file of holes, so that writes allocate blocks" },
	{ .name = "buf-offset", .type = OPT_SIZE, .off = O(buf_offset), .def = "0",
	  .min = 0, .max = 3584,
	  .help = "O_DIRECT buffers start this many bytes (a multiple of 512) after a page boundary: bios of a multi-bio IO then end inside pages" },
	{ .name = "nowait", .type = OPT_BOOL, .off = O(nowait), .def = "no",
	  NORANGE,
	  .help = "sync engine: issue each IO with preadv2/pwritev2(RWF_NOWAIT) first and redo what it left undone without it (io_uring always tries IOCB_NOWAIT first)" },
	{ .name = "split-pages", .type = OPT_BOOL, .off = O(split_pages), .def = "no",
	  NORANGE,
	  .help = "before the run, move the second filesystem block of each IO's first page elsewhere on the disk (punch it, rewrite it with O_DIRECT), so every IO's first page spans two extents (needs blocks smaller than a page)" },
	{ .name = "iopoll", .type = OPT_BOOL, .off = O(iopoll), .def = "no",
	  NORANGE,
	  .help = "io_uring: IORING_SETUP_IOPOLL (fio's hipri): bios go to the device's poll queues and complete only when this thread polls for them" },
	{ .name = "touch-inflight", .type = OPT_BOOL, .off = O(touch_inflight), .def = "no",
	  NORANGE,
	  .help = "io_uring: after submitting, read the first page of each new IO's range through the page cache before reaping: a kernel that holds a polled IO's range until its submitter polls sleeps there" },
	{ .name = "force-async", .type = OPT_BOOL, .off = O(force_async), .def = "no",
	  NORANGE,
	  .help = "io_uring: issue every IO with IOSQE_ASYNC (fio's force_async), from an io-wq worker that may block, instead of trying IOCB_NOWAIT inline first" },
	OPT_END
};

static const struct op_decl dio_ops[] = {
	{ "read", true }, { "write", true }, { "fault", true },
	{ "buffered_read", true }, { "mprotect", true }, { NULL, false },
};

static const struct counter_decl dio_counters[] = {
	{ "short_ios", "ios", 0 }, { "nowait_again", "ios", 0 },
	{ NULL, NULL, 0 },
};


static int dio_check(struct rl_run *r, char *err, size_t len)
{
	const struct dio_opts *d = r->wopts;

	if (d->buf_offset % 512)
		return snprintf(err, len,
				"--buf-offset %llu is not a multiple of 512",
				(unsigned long long)d->buf_offset), -1;
	if (d->nowait && d->engine != ENGINE_SYNC)
		return snprintf(err, len,
				"--nowait is for --engine=sync (io_uring tries IOCB_NOWAIT first by itself)"), -1;
	if (d->split_pages && d->sparse)
		return snprintf(err, len,
				"--split-pages moves data blocks and --sparse leaves holes: use one of them"), -1;
	if (d->force_async && d->engine != ENGINE_URING)
		return snprintf(err, len,
				"--force-async needs --engine=io_uring (IOSQE_ASYNC is an io_uring flag)"), -1;
	if (d->touch_inflight && d->engine != ENGINE_URING)
		return snprintf(err, len,
				"--touch-inflight needs --engine=io_uring (sync IO is never in flight when its thread reads)"), -1;
	if (d->iopoll && d->engine != ENGINE_URING)
		return snprintf(err, len,
				"--iopoll needs --engine=io_uring (IORING_SETUP_IOPOLL is a ring's setting)"), -1;
	if ((d->mprotect_threads || d->fault_random || d->fault_write) && !d->fault_threads)
		return snprintf(err, len,
				"--%s acts on the fault threads' mapping: it needs --fault-threads 1 or more",
				d->fault_random ? "fault-random" :
				d->fault_write ? "fault-write" : "mprotect-threads"), -1;
	/*
	 * A page stored to through a mapping while a direct write covers it
	 * holds either's data, and its writeback may land after the direct
	 * write: no oracle can say what it must read.
	 */
	if (d->fault_write && r->o.verify)
		return snprintf(err, len,
				"--fault-write cannot be verified (a page stored to through a mapping and written directly at once holds either's data): drop --verify"), -1;
	if (d->iodepth > 1 && d->engine != ENGINE_URING)
		return snprintf(err, len,
				"--iodepth %llu needs --engine=io_uring (sync issues one IO at a time)",
				(unsigned long long)d->iodepth), -1;
	r->t.sparse = d->sparse;
	return iopat_check(r, &d->io, err, len);
}

static unsigned int dio_unused_ops(const struct rl_run *r)
{
	const struct dio_opts *d = r->wopts;
	unsigned int off = iopat_unused(&d->io, OP_READ, OP_WRITE);

	if (!d->fault_threads)
		off |= 1u << OP_FAULT;
	if (!d->buffered_threads)
		off |= 1u << OP_BREAD;
	if (!d->mprotect_threads)
		off |= 1u << OP_MPROTECT;
	return off;
}

void dio_prepare(struct worker *w, struct dio_io *io)
{
	struct oracle *o = w->run->oracle;
	uint64_t bs = w->run->o.bs;

	if (!o)
		return;
	if (io->write) {
		io->gen = oracle_write_begin(o, io->off / RL_PAGE, bs / RL_PAGE);
		oracle_fill(o, io->buf, io->off / RL_PAGE, bs / RL_PAGE,
			    io->gen);
	} else {
		oracle_read_begin(o, io->rd, io->off / RL_PAGE, bs / RL_PAGE);
	}
}

void dio_complete(struct worker *w, struct dio_io *io, ssize_t ret)
{
	struct rl_run *r = w->run;
	uint64_t bs = r->o.bs;

	rl_op_done(w, io->write ? OP_WRITE : OP_READ, io->t0,
		   ret > 0 ? ret : 0);
	if (ret < 0) {
		rl_fail(r, "%s at offset %llu: %s",
			io->write ? "O_DIRECT write" : "O_DIRECT read",
			(unsigned long long)io->off, strerror(errno));
		ret = 0;
	} else if ((uint64_t)ret != bs) {
		rl_count(w, C_SHORT);
	}
	if (!r->oracle)
		return;
	if (io->write)
		oracle_write_end(r->oracle, io->off / RL_PAGE, bs / RL_PAGE,
				 io->gen, (uint64_t)ret == bs);
	else
		oracle_read_end(r->oracle, io->rd, io->buf, ret,
				"O_DIRECT read");
}

/*
 * RWF_NOWAIT first, as io_uring's first attempt and aio do: the kernel
 * must either do the whole IO or leave the rest of the buffer for the
 * blocking retry, which then writes (or reads) exactly what is left.  An
 * IO of several bios that fails part way through exercises the paths
 * that undo a partly built IO.
 */
static ssize_t dio_sync_io(struct worker *w, int fd, const struct dio_io *io,
			   size_t bs, bool nowait)
{
	struct iovec iov = { .iov_base = io->buf, .iov_len = bs };
	ssize_t ret, done = 0;

	if (nowait) {
		if (io->write)
			ret = pwritev2(fd, &iov, 1, io->off, RWF_NOWAIT);
		else
			ret = preadv2(fd, &iov, 1, io->off, RWF_NOWAIT);
		if (ret == (ssize_t)bs)
			return ret;
		if (ret < 0 && errno != EAGAIN)
			return ret;
		rl_count(w, C_NOWAIT_AGAIN);
		if (ret > 0)
			done = ret;
	}
	if (io->write)
		ret = pwrite(fd, (char *)io->buf + done, bs - done,
			     io->off + done);
	else
		ret = pread(fd, (char *)io->buf + done, bs - done,
			    io->off + done);
	return ret < 0 ? ret : ret + done;
}

static void dio_thread_sync(struct worker *w)
{
	const struct dio_opts *d = w->run->wopts;
	int fd = w->dfd;
	size_t bs = w->run->o.bs;
	struct dio_io io = { .buf = (char *)w->buf + d->buf_offset,
			     .rd = w->rd };
	struct iopat p;
	ssize_t ret;

	iopat_init(&p, w, &d->io);
	while (rl_running(w)) {
		io.off = iopat_next(&p, w);
		io.write = iopat_is_write(&p, w);
		dio_prepare(w, &io);
		io.t0 = rl_now();
		ret = dio_sync_io(w, fd, &io, bs, d->nowait);
		dio_complete(w, &io, ret);
	}
}

/* ---- page-cache readers on the same file, against the DIO writes ---- */

static void fault_one(struct worker *w, char *map, bool store)
{
	struct oracle *o = w->run->oracle;
	uint64_t page = rl_rand_below(w, w->run->o.size / RL_PAGE), t0;
	char *addr = map + page * RL_PAGE;

	if (o)
		oracle_read_begin(o, w->rd, page, 1);
	t0 = rl_now();
	if (store)
		__atomic_fetch_add((unsigned char *)addr, 0, __ATOMIC_RELAXED);
	else if (o)
		memcpy(w->buf, addr, RL_PAGE);
	else
		(void)*(volatile char *)addr;
	madvise(addr, RL_PAGE, MADV_DONTNEED);
	rl_op_done(w, OP_FAULT, t0, RL_PAGE);
	if (o)
		oracle_read_end(o, w->rd, w->buf, RL_PAGE, "read fault");
}

/*
 * mprotect() takes the mmap lock for writing and then each VMA's lock for
 * writing, so it waits for every fault in progress on the mapping: a fault
 * that sleeps with either lock held stalls it, and the process's other
 * mmap writers and faults queue behind it.  Write permission is added and
 * removed in turn, or execute permission when the faults store: a change
 * of the VMA's flags, or mprotect() would take no VMA lock.
 */
static void mprotect_loop(struct worker *w, char *map, bool store)
{
	int prot = PROT_READ | (store ? PROT_WRITE : 0);
	int toggle = store ? PROT_EXEC : PROT_WRITE;
	uint64_t len = w->run->o.size, t0;
	bool on = false;

	while (rl_running(w)) {
		on = !on;
		t0 = rl_now();
		if (mprotect(map, len, prot | (on ? toggle : 0))) {
			rl_fail(w->run, "mprotect of the fault mapping: %s",
				strerror(errno));
			return;
		}
		rl_op_done(w, OP_MPROTECT, t0, 0);
	}
}

static void buffered_read_one(struct worker *w)
{
	struct rl_run *r = w->run;
	uint64_t bs = r->o.bs, t0, off;
	ssize_t ret;

	off = rl_rand_below(w, r->o.size / bs) * bs;
	if (r->oracle)
		oracle_read_begin(r->oracle, w->rd, off / RL_PAGE, bs / RL_PAGE);
	t0 = rl_now();
	ret = pread(w->fd, w->buf, bs, off);
	rl_op_done(w, OP_BREAD, t0, ret > 0 ? ret : 0);
	if (ret < 0) {
		rl_fail(r, "buffered read at %llu: %s",
			(unsigned long long)off, strerror(errno));
		return;
	}
	if (r->oracle)
		oracle_read_end(r->oracle, w->rd, w->buf, ret, "buffered read");
}

static void dio_thread(struct worker *w)
{
	const struct rl_run *r = w->run;
	const struct dio_opts *d = r->wopts;

	if (w->id >= r->o.threads + d->fault_threads + d->buffered_threads) {
		mprotect_loop(w, r->priv, d->fault_write);
	} else if (w->id >= r->o.threads + d->fault_threads) {
		while (rl_running(w))
			buffered_read_one(w);
	} else if (w->id >= r->o.threads) {
		while (rl_running(w))
			fault_one(w, r->priv, d->fault_write);
	} else if (d->engine == ENGINE_URING)
		dio_thread_uring(w);
	else
		dio_thread_sync(w);
}

static int dio_setup(struct rl_run *r)
{
	const struct dio_opts *d = r->wopts;
	struct io_uring ring;
	int ret;

	r->nthreads = r->o.threads + d->fault_threads + d->buffered_threads +
		      d->mprotect_threads;
	if (r->bufsize < RL_PAGE)
		r->bufsize = RL_PAGE;
	/* room for the IO after --buf-offset, in whole pages */
	if (d->buf_offset)
		r->bufsize = (r->o.bs + d->buf_offset + RL_PAGE - 1) /
			     RL_PAGE * RL_PAGE;
	if (d->split_pages) {
		ret = target_split_pages(r);
		if (ret)
			return ret;
	}
	if (d->fault_threads) {
		r->priv = mmap(NULL, r->o.size,
			       PROT_READ | (d->fault_write ? PROT_WRITE : 0),
			       MAP_SHARED, r->t.fd, 0);
		if (r->priv == MAP_FAILED) {
			fprintf(stderr, "rlwork dio: mmap %s: %s\n", r->t.path,
				strerror(errno));
			return EXIT_MEASURED;
		}
		if (d->fault_random)
			madvise(r->priv, r->o.size, MADV_RANDOM);
	}
	if (d->engine != ENGINE_URING)
		return 0;
	ret = io_uring_queue_init(1, &ring, d->iopoll ? IORING_SETUP_IOPOLL : 0);
	/*
	 * ENOSYS: no CONFIG_IO_URING; EPERM: kernel.io_uring_disabled;
	 * ENOMEM: the ring's memory is over RLIMIT_MEMLOCK (ulimit -l), on
	 * kernels that account it there.
	 */
	if (ret) {
		fprintf(stderr,
			"rlwork dio: --engine=io_uring%s: io_uring is not available here: %s%s\n",
			d->iopoll ? " --iopoll" : "",
			rl_strerror(-ret, RLIMIT_MEMLOCK, NULL),
			-ret == ENOSYS ? " (needs CONFIG_IO_URING=y)" :
			-ret == EPERM ? " (needs sysctl kernel.io_uring_disabled=0, or 1 and the io_uring group)" :
			-ret == ENOMEM ? "; accepted: a higher limit" : "");
		return EXIT_BADINPUT;
	}
	io_uring_queue_exit(&ring);
	return 0;
}

static void dio_teardown(struct rl_run *r)
{
	const struct dio_opts *d = r->wopts;

	if (d->fault_threads)
		munmap(r->priv, r->o.size);
}

WORKLOAD(wl_dio) = {
	.name = "dio",
	.summary = "O_DIRECT pread/pwrite, threads on disjoint, shared or random offsets",
	.help =
"N threads issue O_DIRECT reads and/or writes of --bs bytes to one file.\n"
"With --layout=disjoint each thread stays in its own slice of the file (no\n"
"two threads' ranges overlap: what a range lock can run in parallel), with\n"
"shared every thread walks the same offsets (maximal overlap), with random\n"
"offsets are independent over the whole file. --verify tags every written\n"
"page and checks every page read against the oracle; overlapping writes are\n"
"then serialized per page (their result is undefined otherwise).\n"
"--engine=io_uring keeps --iodepth IOs in flight per thread; a completion's\n"
"latency runs from its submission to its reaping. --fault-threads and\n"
"--buffered-threads add readers of the same pages through mmap faults and\n"
"the page cache: with --verify the oracle checks none of them returns data\n"
"older than a DIO write that completed before the read started.\n"
"--mprotect-threads time mprotect() calls on the fault threads' mapping:\n"
"each waits for the faults in progress, so its latency shows a fault that\n"
"sleeps holding the mmap or VMA lock (--fault-random keeps read-around,\n"
"which drops those locks for its I/O, out of the way; --fault-write makes\n"
"every fault a write fault, through the filesystem's ->page_mkwrite).\n"
"--nowait issues each sync IO with RWF_NOWAIT first (counted in\n"
"nowait_again when the kernel declines part or all of it); with --bs of\n"
"several MiB an IO is several bios, so the kernel can give up after the\n"
"first ones are in flight and must then leave the buffer where it stopped.\n"
"--buf-offset=512 (or any multiple of 512 below a page) misaligns the\n"
"O_DIRECT buffers, so the bios of an IO of a MiB or more end inside pages\n"
"and neighbouring bios of one IO share a page.  --iopoll sets up the ring\n"
"with IORING_SETUP_IOPOLL: on a device with poll queues (null_blk has one)\n"
"a bio completes only when the submitting thread polls, so a kernel in which\n"
"one bio of an IO waits for another of the same IO hangs there.\n"
"--force-async issues every io_uring IO from an io-wq worker, where it may\n"
"block, instead of trying IOCB_NOWAIT inline first.  --touch-inflight reads\n"
"a page of each IO's range through the page cache between submitting and\n"
"reaping it: with --iopoll nothing completes the IO meanwhile.",
	.opts = dio_opts,
	.opts_size = sizeof(struct dio_opts),
	.ops = dio_ops,
	.counters = dio_counters,
	.flags = WL_DIRECT,
	.check = dio_check,
	.unused_ops = dio_unused_ops,
	.setup = dio_setup,
	.thread = dio_thread,
	.teardown = dio_teardown,
};
