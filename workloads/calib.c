// SPDX-License-Identifier: GPL-2.0
/*
 * calib: a loop whose instruction count is known exactly, so that a
 * cost-mode guest (QEMU -icount shift=0: one nanosecond of guest time per
 * guest instruction) can be checked to measure instructions: there,
 * 1e9 / loop.ops_per_s must come out at 2 * --loops plus the op's
 * bookkeeping (two clock reads and a histogram update, a few hundred
 * instructions) and the timer ticks that land in it.
 */
#include <stddef.h>
#include <stdio.h>

#include "rlwork.h"

struct calib_opts {
	uint64_t loops;
};

enum { OP_LOOP };

#define O(f) offsetof(struct calib_opts, f)
static const struct opt_def calib_opts[] = {
	{ .name = "loops", .type = OPT_INT, .off = O(loops), .def = "100000",
	  .min = 1, .max = 1e12,
	  .help = "iterations of the two-instruction loop per op (2 x loops instructions)" },
	OPT_END
};

static const struct op_decl calib_ops[] = {
	{ "loop", false }, { NULL, false },
};

static const struct counter_decl calib_counters[] = {
	{ NULL, NULL, 0 },
};

/*
 * Exactly two instructions per iteration, "dec; jnz", whatever the
 * compiler does around it: the count lives in a register the asm owns.
 */
static inline void calib_spin(uint64_t n)
{
	__asm__ volatile("1:\n\tdec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

/*
 * An op of the largest --loops spins for minutes: in chunks of this many
 * iterations it sees the end of the run (or a signal) within a few tens
 * of milliseconds instead. The check adds a handful of instructions per
 * 2^26 iterations, and none below that many.
 */
#define CALIB_CHUNK	(1ull << 26)

static void calib_thread(struct worker *w)
{
	const struct calib_opts *c = w->run->wopts;
	uint64_t t0, left;

	while (rl_running(w)) {
		t0 = rl_now();
		for (left = c->loops; left > CALIB_CHUNK && rl_running(w);
		     left -= CALIB_CHUNK)
			calib_spin(CALIB_CHUNK);
		if (left > CALIB_CHUNK)
			break;	/* stopped half way: not an op */
		calib_spin(left);
		rl_op_done(w, OP_LOOP, t0, 0);
	}
}

WORKLOAD(wl_calib) = {
	.name = "calib",
	.summary = "a loop of 2 x --loops instructions per op, to check cost mode's unit",
	.help =
"Each thread runs, per op, --loops iterations of a two-instruction loop\n"
"(dec; jnz): 2 x --loops instructions, plus the op's own bookkeeping (two\n"
"clock reads and a histogram update, a few hundred instructions). It\n"
"touches no file beyond the harness's small target. In a cost-mode guest\n"
"(QEMU -icount shift=0, where guest time counts instructions)\n"
"1e9 / loop.ops_per_s, the instructions per op, must come out within 1%\n"
"of 2 x --loops for --loops 100000 and more; tests/96-cost-mode.t checks it.",
	.opts = calib_opts,
	.opts_size = sizeof(struct calib_opts),
	.defaults = "size=64k",
	.ops = calib_ops,
	.counters = calib_counters,
	.thread = calib_thread,
};
