// SPDX-License-Identifier: GPL-2.0
/*
 * dio's io_uring engine: --iodepth IOs in flight per thread, submitted and
 * reaped by that thread, optionally polled (--iopoll) or forced to io-wq
 * (--force-async).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "dio.h"
#include "iopat.h"
#include "oracle.h"
#include "rlwork.h"

struct uring_thread {
	struct io_uring ring;
	unsigned int depth;
	struct dio_io *ios;
	struct dio_io **free;
	unsigned int nfree;
	unsigned int inflight;
};

/*
 * A verified write locks its pages until it completes; this thread may hold
 * some of them for IOs still in flight, so it must not wait for a lock:
 * try a few other offsets, then let completions free some.
 */
static bool uring_pick(struct worker *w, struct iopat *p, struct dio_io *io,
		       bool can_wait)
{
	struct oracle *o = w->run->oracle;
	uint64_t n = w->run->o.bs / RL_PAGE;
	int tries;

	for (tries = 0; tries < 8; tries++) {
		io->off = iopat_next(p, w);
		io->write = iopat_is_write(p, w);
		if (!o || !io->write)
			break;
		if (can_wait) {
			io->gen = oracle_write_begin(o, io->off / RL_PAGE, n);
		} else if (!oracle_write_trybegin(o, io->off / RL_PAGE, n,
						  &io->gen)) {
			continue;
		}
		oracle_fill(o, io->buf, io->off / RL_PAGE, n, io->gen);
		return true;
	}
	if (tries == 8)
		return false;
	if (o)
		oracle_read_begin(o, io->rd, io->off / RL_PAGE, n);
	return true;
}

static void uring_reap(struct worker *w, struct uring_thread *u)
{
	struct io_uring_cqe *cqe;
	struct dio_io *io;
	unsigned int head, n = 0;

	io_uring_for_each_cqe(&u->ring, head, cqe) {
		io = io_uring_cqe_get_data(cqe);
		errno = cqe->res < 0 ? -cqe->res : 0;
		dio_complete(w, io, cqe->res < 0 ? -1 : cqe->res);
		u->free[u->nfree++] = io;
		n++;
	}
	io_uring_cq_advance(&u->ring, n);
	u->inflight -= n;
}

static void uring_fill(struct worker *w, struct uring_thread *u,
		       struct iopat *p)
{
	const struct dio_opts *d = w->run->wopts;
	int fd = w->dfd;
	size_t bs = w->run->o.bs;
	struct io_uring_sqe *sqe;
	struct dio_io *io;

	while (u->nfree && rl_running(w)) {
		io = u->free[u->nfree - 1];
		if (!uring_pick(w, p, io, !u->inflight))
			return;
		u->nfree--;
		sqe = io_uring_get_sqe(&u->ring);
		if (io->write)
			io_uring_prep_write(sqe, fd, io->buf, bs, io->off);
		else
			io_uring_prep_read(sqe, fd, io->buf, bs, io->off);
		io_uring_sqe_set_data(sqe, io);
		io->new = true;
		if (d->force_async)
			io_uring_sqe_set_flags(sqe, IOSQE_ASYNC);
		io->t0 = rl_now();
		u->inflight++;
	}
}

/*
 * Submit, then read a page of each new IO's range through the page cache
 * (w->fd is not O_DIRECT) before waiting for any of them.  With
 * IORING_SETUP_IOPOLL a bio completes only when this thread polls, so a
 * kernel that makes the read wait for the IO sleeps until the device
 * times the bio out.  What the read returns is not checked: it races
 * with the IO.  It lands in the thread's own buffer, which this engine's
 * IOs stop using once uring_init() has copied its pattern.
 */
static bool uring_touch_inflight(struct worker *w, struct uring_thread *u)
{
	unsigned int i;
	int ret = io_uring_submit(&u->ring);

	if (ret < 0 && ret != -EINTR) {
		rl_fail(w->run, "io_uring submit: %s", strerror(-ret));
		return false;
	}
	for (i = 0; i < u->depth; i++) {
		if (!u->ios[i].new)
			continue;
		u->ios[i].new = false;
		if (pread(w->fd, w->buf, RL_PAGE, u->ios[i].off) < 0) {
			rl_fail(w->run, "buffered read of an IO in flight: %s",
				strerror(errno));
			return false;
		}
	}
	return true;
}

static int uring_init(struct worker *w, struct uring_thread *u,
		      unsigned int depth)
{
	const struct rl_run *r = w->run;
	const struct dio_opts *d = r->wopts;
	unsigned int i, poll = d->iopoll ? IORING_SETUP_IOPOLL : 0;
	int ret;

	/*
	 * One thread submits and reaps: completion work can wait until it
	 * asks for events instead of interrupting it (what fio does too).
	 * Kernels before 6.1 refuse the flags: fall back to none.
	 */
	ret = io_uring_queue_init(depth, &u->ring, IORING_SETUP_COOP_TASKRUN |
				  IORING_SETUP_SINGLE_ISSUER |
				  IORING_SETUP_DEFER_TASKRUN | poll);
	if (ret == -EINVAL)
		ret = io_uring_queue_init(depth, &u->ring, poll);
	if (ret)
		return ret;
	u->depth = depth;
	u->ios = calloc(depth, sizeof(*u->ios));
	u->free = calloc(depth, sizeof(*u->free));
	if (!u->ios || !u->free)
		return -ENOMEM;
	for (i = 0; i < depth; i++) {
		if (posix_memalign(&u->ios[i].buf, RL_PAGE, r->bufsize))
			return -ENOMEM;
		u->ios[i].buf = (char *)u->ios[i].buf + d->buf_offset;
		/* the tagged pattern the harness put in the thread's buffer */
		memcpy(u->ios[i].buf, w->buf, r->o.bs);
		if (r->oracle &&
		    !(u->ios[i].rd = oracle_read_new(r->o.bs / RL_PAGE)))
			return -ENOMEM;
		u->free[u->nfree++] = &u->ios[i];
	}
	return 0;
}

void dio_thread_uring(struct worker *w)
{
	const struct dio_opts *d = w->run->wopts;
	struct uring_thread u = { .nfree = 0 };
	struct iopat p;
	int ret;

	ret = uring_init(w, &u, d->iodepth);
	if (ret) {
		rl_fail(w->run, "io_uring setup: %s", rl_strerror(-ret, RLIMIT_MEMLOCK, NULL));
		return;
	}
	iopat_init(&p, w, &d->io);
	while (rl_running(w)) {
		uring_fill(w, &u, &p);
		if (d->touch_inflight && !uring_touch_inflight(w, &u))
			break;
		ret = io_uring_submit_and_wait(&u.ring, 1);
		if (ret < 0 && ret != -EINTR) {
			rl_fail(w->run, "io_uring submit: %s", strerror(-ret));
			break;
		}
		uring_reap(w, &u);
	}
	/* every IO in flight completes: verified writes hold page locks */
	while (u.inflight) {
		io_uring_submit_and_wait(&u.ring, 1);
		uring_reap(w, &u);
	}
	io_uring_queue_exit(&u.ring);
}

