// SPDX-License-Identifier: GPL-2.0
/*
 * buffered-rw: pread/pwrite through the page cache. A read that misses
 * creates page-cache folios, which takes the invalidation lock shared; with
 * --cache=warm every read hits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iopat.h"
#include "oracle.h"
#include "rlwork.h"

struct brw_opts {
	struct iopat_opts io;
	unsigned int cache;
};

enum { CACHE_WARM, CACHE_COLD };
enum { OP_READ, OP_WRITE };
enum { C_SHORT };

static const char *const cache_choices[] = { "warm", "cold", NULL };

#define O(f) offsetof(struct brw_opts, f)
static const struct opt_def brw_opts[] = {
	IOPAT_OPTS(struct brw_opts, io),
	{ .name = "cache", .type = OPT_ENUM, .off = O(cache), .def = "warm",
	  NORANGE, .choices = cache_choices,
	  .help = "warm: file read into the page cache first; cold: each block dropped (fadvise DONTNEED) after it is used, and random offsets read without readahead (fadvise RANDOM)" },
	OPT_END
};

static const struct op_decl brw_ops[] = {
	{ "read", true }, { "write", true }, { NULL, false },
};

static const struct counter_decl brw_counters[] = {
	{ "short_ios", "ios", 0 }, { NULL, NULL, 0 },
};

static int brw_check(struct rl_run *r, char *err, size_t len)
{
	const struct brw_opts *b = r->wopts;

	return iopat_check(r, &b->io, err, len);
}

static unsigned int brw_unused_ops(const struct rl_run *r)
{
	const struct brw_opts *b = r->wopts;

	return iopat_unused(&b->io, OP_READ, OP_WRITE);
}

static void brw_one(struct worker *w, struct iopat *p, bool cold)
{
	struct rl_run *r = w->run;
	struct oracle *o = r->oracle;
	uint64_t off = iopat_next(p, w), bs = r->o.bs, gen = 0, t0;
	bool write = iopat_is_write(p, w);
	ssize_t ret;

	if (o && write) {
		gen = oracle_write_begin(o, off / RL_PAGE, bs / RL_PAGE);
		oracle_fill(o, w->buf, off / RL_PAGE, bs / RL_PAGE, gen);
	} else if (o) {
		oracle_read_begin(o, w->rd, off / RL_PAGE, bs / RL_PAGE);
	}
	t0 = rl_now();
	if (write)
		ret = pwrite(w->fd, w->buf, bs, off);
	else
		ret = pread(w->fd, w->buf, bs, off);
	rl_op_done(w, write ? OP_WRITE : OP_READ, t0, ret > 0 ? ret : 0);
	if (ret < 0) {
		rl_fail(r, "%s at %llu: %s", write ? "write" : "read",
			(unsigned long long)off, strerror(errno));
		ret = 0;
	} else if ((uint64_t)ret != bs) {
		rl_count(w, C_SHORT);
	}
	if (o && write)
		oracle_write_end(o, off / RL_PAGE, bs / RL_PAGE, gen,
				 (uint64_t)ret == bs);
	else if (o)
		oracle_read_end(o, w->rd, w->buf, ret, "buffered read");
	if (cold)
		posix_fadvise(w->fd, off, bs, POSIX_FADV_DONTNEED);
}

static void brw_thread(struct worker *w)
{
	const struct brw_opts *b = w->run->wopts;
	struct iopat p;

	iopat_init(&p, w, &b->io);
	/*
	 * A random read that happens to follow the block read before it
	 * starts readahead, whose pages the block-sized DONTNEED leaves
	 * cached: "cold" reads would hit them more and more.  Each read
	 * brings in its own block only.
	 */
	if (b->cache == CACHE_COLD && p.pattern == PATTERN_RAND)
		posix_fadvise(w->fd, 0, 0, POSIX_FADV_RANDOM);
	while (rl_running(w))
		brw_one(w, &p, b->cache == CACHE_COLD);
}

static int brw_setup(struct rl_run *r)
{
	const struct brw_opts *b = r->wopts;
	char *buf;
	uint64_t off;

	if (b->cache != CACHE_WARM)
		return 0;
	if (posix_memalign((void **)&buf, RL_PAGE, 1 << 20))
		return EXIT_MEASURED;
	for (off = 0; off < r->o.size; off += 1 << 20)
		if (pread(r->t.fd, buf, 1 << 20, off) < 0)
			break;
	free(buf);
	return 0;
}

WORKLOAD(wl_buffered_rw) = {
	.name = "buffered-rw",
	.summary = "pread/pwrite through the page cache, warm or cold",
	.help =
"N threads pread and/or pwrite --bs bytes through the page cache, with the\n"
"same --rw, --layout and --pattern choices as dio. --cache=warm reads the\n"
"whole file into the page cache first so reads hit; --cache=cold drops each\n"
"block after using it (fadvise DONTNEED) so every read creates page-cache\n"
"folios, the path that takes the invalidation lock shared; with random\n"
"offsets it also turns readahead off (fadvise RANDOM), whose pages the\n"
"block-sized DONTNEED would leave behind for later reads to hit.",
	.opts = brw_opts,
	.opts_size = sizeof(struct brw_opts),
	.ops = brw_ops,
	.counters = brw_counters,
	.check = brw_check,
	.unused_ops = brw_unused_ops,
	.setup = brw_setup,
	.thread = brw_thread,
};
