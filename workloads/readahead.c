// SPDX-License-Identifier: GPL-2.0
/*
 * readahead: sequential reads of cold data, so the kernel's readahead (or
 * an explicit fadvise WILLNEED) creates the page-cache folios, taking the
 * invalidation lock shared over the readahead window.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "oracle.h"
#include "rlwork.h"

struct ra_opts {
	unsigned int mode;
	uint64_t window;
};

enum { MODE_SEQ, MODE_WILLNEED };
enum { OP_READ, OP_WILLNEED };
enum { C_PASSES };

static const char *const mode_choices[] = { "seq", "willneed", NULL };

#define O(f) offsetof(struct ra_opts, f)
static const struct opt_def ra_opts[] = {
	{ .name = "mode", .type = OPT_ENUM, .off = O(mode), .def = "seq",
	  NORANGE, .choices = mode_choices,
	  .help = "seq: plain sequential reads (kernel readahead); willneed: fadvise WILLNEED each window before reading it" },
	{ .name = "window", .type = OPT_SIZE, .off = O(window), .def = "1m",
	  .min = 4096, .max = 1ull << 30,
	  .help = "bytes per fadvise WILLNEED with --mode=willneed" },
	OPT_END
};

static const struct op_decl ra_ops[] = {
	{ "read", true }, { "willneed", false }, { NULL, false },
};

static const struct counter_decl ra_counters[] = {
	{ "passes", "passes", 0 }, { NULL, NULL, 0 },
};

static int ra_check(struct rl_run *r, char *err, size_t len)
{
	const struct ra_opts *a = r->wopts;

	if (r->o.size / r->o.threads < r->o.bs)
		return snprintf(err, len,
				"file too small: --size %llu gives each of --threads %llu less than --bs %llu",
				(unsigned long long)r->o.size,
				(unsigned long long)r->o.threads,
				(unsigned long long)r->o.bs), -1;
	if (a->window % RL_PAGE)
		return snprintf(err, len, "--window: %llu is not a multiple of 4k",
				(unsigned long long)a->window), -1;
	return 0;
}

static unsigned int ra_unused_ops(const struct rl_run *r)
{
	const struct ra_opts *a = r->wopts;

	return a->mode == MODE_WILLNEED ? 0 : 1u << OP_WILLNEED;
}

static void ra_pass(struct worker *w, int fd, uint64_t first, uint64_t end)
{
	struct rl_run *r = w->run;
	const struct ra_opts *a = r->wopts;
	uint64_t off, bs = r->o.bs, next_window = first, t0;
	ssize_t ret;

	/*
	 * Cold: after each read, what the pass has read so far is dropped,
	 * which leaves the readahead window ahead alone.  From the slice's
	 * start, not the block's: DONTNEED skips a large folio it covers
	 * only in part.  Dropping the whole slice once a pass instead put a
	 * long untimed stretch into some measurement windows and not others
	 * (a pass's frees were 1.5% of a 3 s window in cost mode, where the
	 * rate is the cost).  What a pass finds cached (readahead past the
	 * end of the last one) is dropped here, the pass's own slice only,
	 * so threads do not disturb others.
	 */
	posix_fadvise(fd, first, end - first, POSIX_FADV_DONTNEED);
	for (off = first; off + bs <= end && rl_running(w); off += bs) {
		if (a->mode == MODE_WILLNEED && off >= next_window) {
			t0 = rl_now();
			posix_fadvise(fd, off, a->window, POSIX_FADV_WILLNEED);
			rl_op_done(w, OP_WILLNEED, t0, 0);
			next_window = off + a->window;
		}
		if (r->oracle)
			oracle_read_begin(r->oracle, w->rd, off / RL_PAGE,
					  bs / RL_PAGE);
		t0 = rl_now();
		ret = pread(fd, w->buf, bs, off);
		rl_op_done(w, OP_READ, t0, ret > 0 ? ret : 0);
		if (ret != (ssize_t)bs) {
			rl_fail(r, "read at %llu: %s", (unsigned long long)off,
				ret < 0 ? strerror(errno) : "short read");
			return;
		}
		if (r->oracle)
			oracle_read_end(r->oracle, w->rd, w->buf, ret,
					"sequential read");
		posix_fadvise(fd, first, off + bs - first, POSIX_FADV_DONTNEED);
	}
	rl_count(w, C_PASSES);
}

static void ra_thread(struct worker *w)
{
	struct rl_run *r = w->run;
	uint64_t slice = r->o.size / r->nthreads / r->o.bs * r->o.bs;
	uint64_t first = slice * w->id;

	/* the thread's own open file (harness): its own readahead state */
	posix_fadvise(w->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	while (rl_running(w))
		ra_pass(w, w->fd, first, first + slice);
}

WORKLOAD(wl_readahead) = {
	.name = "readahead",
	.summary = "sequential reads of cold data through readahead or fadvise WILLNEED",
	.help =
"Each thread reads its own slice of the file sequentially in --bs blocks,\n"
"through its own open file (readahead state is per open file). After each\n"
"read, what the pass has read is dropped from the page cache (fadvise\n"
"DONTNEED), and the slice before every pass, so the reads are cold:\n"
"--mode=seq leaves the folio creation to the kernel's readahead,\n"
"--mode=willneed issues fadvise WILLNEED for each --window first (a\n"
"willneed op). Both create page-cache folios over whole readahead windows\n"
"under the invalidation lock taken shared.",
	.opts = ra_opts,
	.opts_size = sizeof(struct ra_opts),
	.defaults = "bs=128k",
	.ops = ra_ops,
	.counters = ra_counters,
	.check = ra_check,
	.unused_ops = ra_unused_ops,
	.thread = ra_thread,
};
