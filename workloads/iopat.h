/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Offsets and read/write choice shared by the IO workloads (dio,
 * buffered-rw): layouts disjoint (each thread its own slice), shared (all
 * threads the same offsets in the same order) and random (independent
 * offsets over the whole file), sequential or random inside a slice.
 */
#ifndef RLWORK_IOPAT_H
#define RLWORK_IOPAT_H

#include <stddef.h>

#include "rlwork.h"

enum { RW_READ, RW_WRITE, RW_MIXED };
enum { LAYOUT_DISJOINT, LAYOUT_SHARED, LAYOUT_RANDOM };
enum { PATTERN_RAND, PATTERN_SEQ };

static const char *const iopat_rw_choices[] = { "read", "write", "rw", NULL };
static const char *const iopat_layout_choices[] = { "disjoint", "shared",
						    "random", NULL };
static const char *const iopat_pattern_choices[] = { "rand", "seq", NULL };

/* the options every IO workload takes, first in its option struct */
struct iopat_opts {
	unsigned int rw;
	uint64_t rwmix;
	unsigned int layout;
	unsigned int pattern;
};

/*
 * Their rows, one definition for every workload that embeds a struct
 * iopat_opts as MEMBER of the struct ST, so that the help and the choices
 * cannot drift apart between workloads.
 */
#define IOPAT_OPT(st, member, f)					\
	(offsetof(st, member) + offsetof(struct iopat_opts, f))
#define IOPAT_OPTS(st, member)					\
	{ .name = "rw", .type = OPT_ENUM,				\
	  .off = IOPAT_OPT(st, member, rw), .def = "read",		\
	  NORANGE, .choices = iopat_rw_choices,				\
	  .help = "read, write, or rw (a mix, see --rwmix)" },		\
	{ .name = "rwmix", .type = OPT_INT,				\
	  .off = IOPAT_OPT(st, member, rwmix), .def = "50",		\
	  .min = 0, .max = 100,						\
	  .help = "percent of reads with --rw=rw" },			\
	{ .name = "layout", .type = OPT_ENUM,				\
	  .off = IOPAT_OPT(st, member, layout), .def = "random",	\
	  NORANGE, .choices = iopat_layout_choices,			\
	  .help = "disjoint: each thread its own slice; shared: every thread the same offsets; random: independent offsets over the whole file" }, \
	{ .name = "pattern", .type = OPT_ENUM,				\
	  .off = IOPAT_OPT(st, member, pattern), .def = "rand",	\
	  NORANGE, .choices = iopat_pattern_choices,			\
	  .help = "order inside the slice for disjoint and shared" }

struct iopat {
	uint64_t first;		/* block range of this thread */
	uint64_t nblocks;
	uint64_t cursor;
	unsigned int pattern;
	unsigned int rw;
	uint64_t rwmix;		/* percent reads for RW_MIXED */
};

static inline void iopat_init(struct iopat *p, struct worker *w,
			      const struct iopat_opts *io)
{
	unsigned int layout = io->layout;
	const struct rl_run *r = w->run;
	uint64_t total = r->o.size / r->o.bs;

	p->first = 0;
	p->nblocks = total;
	p->cursor = 0;
	p->pattern = layout == LAYOUT_RANDOM ? PATTERN_RAND : io->pattern;
	p->rw = io->rw;
	p->rwmix = io->rwmix;
	if (layout == LAYOUT_DISJOINT) {
		p->first = total * w->id / r->o.threads;
		p->nblocks = total * (w->id + 1) / r->o.threads - p->first;
	} else if (layout == LAYOUT_SHARED) {
		/* the same sequence in every thread */
		w->rng = (r->o.seed + 1) * 0x9e3779b97f4a7c15ull;
	}
}

static inline uint64_t iopat_next(struct iopat *p, struct worker *w)
{
	uint64_t b;

	if (p->pattern == PATTERN_SEQ) {
		b = p->cursor++;
		if (p->cursor == p->nblocks)
			p->cursor = 0;
	} else {
		b = rl_rand_below(w, p->nblocks);
	}
	return (p->first + b) * w->run->o.bs;
}

static inline bool iopat_is_write(struct iopat *p, struct worker *w)
{
	if (p->rw != RW_MIXED)
		return p->rw == RW_WRITE;
	return rl_rand_below(w, 100) >= p->rwmix;
}

/*
 * The read or write op (ids op_read, op_write) that --rw and --rwmix never
 * issue, as bits for workload_ops.unused_ops.
 */
static inline unsigned int iopat_unused(const struct iopat_opts *io,
					unsigned int op_read,
					unsigned int op_write)
{
	unsigned int rw = io->rw;
	uint64_t rwmix = io->rwmix;

	if (rw == RW_READ || (rw == RW_MIXED && rwmix == 100))
		return 1u << op_write;
	if (rw == RW_WRITE || (rw == RW_MIXED && rwmix == 0))
		return 1u << op_read;
	return 0;
}

/* disjoint slices need a block per thread */
static inline int iopat_check(const struct rl_run *r,
			      const struct iopat_opts *io, char *err, size_t len)
{
	if (io->layout == LAYOUT_DISJOINT && r->o.size / r->o.bs < r->o.threads)
		return snprintf(err, len,
				"file too small: --size %llu holds %llu blocks of --bs %llu, fewer than --threads %llu",
				(unsigned long long)r->o.size,
				(unsigned long long)(r->o.size / r->o.bs),
				(unsigned long long)r->o.bs,
				(unsigned long long)r->o.threads), -1;
	return 0;
}

#endif
