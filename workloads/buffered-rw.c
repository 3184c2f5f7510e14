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
	bool keep_index;
};

/*
 * Pages per leaf node of the page cache's index (XA_CHUNK_SIZE; 16 on
 * kernels built with CONFIG_BASE_SMALL).
 */
#define INDEX_LEAF_PAGES 64ULL
#define INDEX_LEAF_BYTES (INDEX_LEAF_PAGES * RL_PAGE)

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
	{ .name = "keep-index", .type = OPT_BOOL, .off = O(keep_index), .def = "no",
	  .help = "with --cache=cold: keep the last page of every 256k (64 pages, a leaf of the page cache's index) cached, and leave the blocks that hold one out of the run, so a miss does not allocate index nodes and free them through RCU, a cost that follows the slab allocator's state; needs --bs up to 128k and 256k or more per thread" },
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
	uint64_t span = r->o.size;

	if (iopat_check(r, &b->io, err, len))
		return -1;
	if (!b->keep_index)
		return 0;
	if (b->cache != CACHE_COLD)
		return snprintf(err, len,
				"--keep-index is for --cache=cold (a warm file is cached whole)"), -1;
	if (r->o.bs > INDEX_LEAF_BYTES / 2)
		return snprintf(err, len,
				"--keep-index: --bs %llu would put a kept page in most blocks (accepted: --bs up to %llu)",
				(unsigned long long)r->o.bs,
				INDEX_LEAF_BYTES / 2), -1;
	if (b->io.layout == LAYOUT_DISJOINT)
		span = r->o.size / r->o.bs / r->o.threads * r->o.bs;
	if (span < INDEX_LEAF_BYTES)
		return snprintf(err, len,
				"--keep-index: each thread reads %llu bytes of the file, less than the %llu that hold a block free of kept pages (a larger --size or fewer --threads)",
				(unsigned long long)span, INDEX_LEAF_BYTES), -1;
	return 0;
}

/* whether [off, off + len) holds a page that --keep-index keeps cached */
static bool brw_kept(const struct brw_opts *b, uint64_t off, uint64_t len)
{
	uint64_t first = off / RL_PAGE, last = (off + len - 1) / RL_PAGE;

	return b->keep_index && (first / INDEX_LEAF_PAGES != last / INDEX_LEAF_PAGES ||
				 last % INDEX_LEAF_PAGES == INDEX_LEAF_PAGES - 1);
}

static unsigned int brw_unused_ops(const struct rl_run *r)
{
	const struct brw_opts *b = r->wopts;

	return iopat_unused(&b->io, OP_READ, OP_WRITE);
}

static void brw_one(struct worker *w, struct iopat *p, bool cold)
{
	struct rl_run *r = w->run;
	const struct brw_opts *b = r->wopts;
	struct oracle *o = r->oracle;
	uint64_t off, bs = r->o.bs, gen = 0, t0;
	bool write;
	ssize_t ret;

	do
		off = iopat_next(p, w);
	while (brw_kept(b, off, bs));
	write = iopat_is_write(p, w);

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

/*
 * A miss into an otherwise empty index allocates the leaf and the nodes
 * above it, and the DONTNEED after it frees them through RCU: in cost mode
 * that made a cold read's instruction count follow the slab allocator's
 * state (stock: 13095 to 13399 insn/op from point to point, 11651.0 in
 * every boot with the kept pages; README.md names the runs).  One cached page per leaf keeps every node
 * allocated.  Read without readahead so only that page comes in.
 */
static int brw_keep_index(struct rl_run *r)
{
	char *page;
	uint64_t off;
	int ret = 0;

	if (posix_memalign((void **)&page, RL_PAGE, RL_PAGE))
		return EXIT_MEASURED;
	posix_fadvise(r->t.fd, 0, 0, POSIX_FADV_RANDOM);
	for (off = INDEX_LEAF_BYTES - RL_PAGE; off + RL_PAGE <= r->o.size;
	     off += INDEX_LEAF_BYTES) {
		ssize_t got = pread(r->t.fd, page, RL_PAGE, off);

		if (got != RL_PAGE) {
			fprintf(stderr, "rlwork %s: %s: --keep-index: reading the page at %llu: %s\n",
				r->wl->name, r->t.path, (unsigned long long)off,
				got < 0 ? strerror(errno) : "short read");
			ret = EXIT_MEASURED;
			break;
		}
	}
	posix_fadvise(r->t.fd, 0, 0, POSIX_FADV_NORMAL);
	free(page);
	return ret;
}

static int brw_setup(struct rl_run *r)
{
	const struct brw_opts *b = r->wopts;
	char *buf;
	uint64_t off;

	if (b->cache != CACHE_WARM)
		return b->keep_index ? brw_keep_index(r) : 0;
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
"block-sized DONTNEED would leave behind for later reads to hit.\n"
"--keep-index keeps one page of every 64 cached so that misses do not\n"
"allocate and free the page cache's index nodes (see its help).",
	.opts = brw_opts,
	.opts_size = sizeof(struct brw_opts),
	.ops = brw_ops,
	.counters = brw_counters,
	.check = brw_check,
	.unused_ops = brw_unused_ops,
	.setup = brw_setup,
	.thread = brw_thread,
};
