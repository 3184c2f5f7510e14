/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rlwork: workload generators for the page-cache invalidation lock.
 *
 * The harness (harness.c) owns the threads, the start gate, the ramp-up,
 * the fixed runtime and the collection of results; a workload (one file per
 * workload, a `struct workload_ops` like fio's ioengine_ops or locktorture's
 * lock_torture_ops) only says what one thread does in its loop and bumps its
 * own per-thread counters, which live on cache lines no other thread writes.
 */
#ifndef RLWORK_H
#define RLWORK_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "hist.h"
#include "opt.h"
#include "rlexit.h"

#define CACHELINE	64
#define RL_PAGE		4096u	/* unit of the oracle's tags, not PAGE_SIZE */
#define RL_MAX_OPS	8
#define RL_MAX_COUNTERS	8
#define RL_MAX_KINDS	4	/* what one op did: workload_ops.kinds, r->kinds */

#define READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))


enum inject_mode { INJECT_NONE, INJECT_STALE, INJECT_TAG, INJECT_CHECKSUM,
		   INJECT_LOST };

/* the rows of struct common_opts (main.c) */
extern const struct opt_def common_opts[];

struct common_opts {
	uint64_t threads;
	double runtime;
	double ramp;
	const char *file;
	uint64_t size;
	uint64_t bs;
	bool verify;
	uint64_t seed;
	const char *primary_op;	/* --primary-op: its metrics first */
	const char *json;
	const char *variant;
	uint64_t iteration;
	struct kv_list env;
	bool dry_run;
	bool force;
	bool keep;
	bool pin;
	const char *placement;	/* --placement pack|spread|list:<cpus> */
	const char *membind;	/* --membind local|interleave */
	unsigned int inject;
};

/* A timed operation a workload reports, e.g. "read" or "punch". */
struct op_decl {
	const char *name;
	bool io;		/* has a meaningful bytes_per_s */
};

/* An outcome that is not a timed op, e.g. "sigbus". */
struct counter_decl {
	const char *name;
	const char *unit;
	int better;		/* +1 higher is better, -1 lower, 0 no metric */
};

/* what a workload needs from the target filesystem */
#define WL_DIRECT	(1u << 0)	/* O_DIRECT */
#define WL_PUNCH	(1u << 1)	/* fallocate(PUNCH_HOLE) */

struct rl_run;
struct worker;

struct workload_ops {
	const char *name;
	const char *summary;		/* one line for rlwork --help */
	const char *help;		/* the paragraph for rlwork <w> --help */
	const struct opt_def *opts;
	size_t opts_size;
	const char *defaults;		/* overrides of common defaults */
	const struct op_decl *ops;	/* NULL-terminated, index = op id */
	/*
	 * What an op can have done, e.g. a punch over data or over a hole:
	 * RL_MAX_OPS entries, index = op id, each NULL (one kind only) or a
	 * NULL-terminated list of at most RL_MAX_KINDS names. Each op is
	 * counted under exactly one, so a rate change can be split into a
	 * change of the mix and a change of each kind's cost.
	 */
	const char *const *const *kinds;
	const struct counter_decl *counters;	/* NULL-terminated */
	/*
	 * Bit i: op i is a wide request whose wait the result reports
	 * (ops[].wait_ns, docs/formats.md); it ends with rl_wait_done(),
	 * which also keeps the one in flight when the window closed.
	 */
	unsigned int wait_ops;
	unsigned int flags;
	/* option consistency; -1 and a message in err for bad input */
	int (*check)(struct rl_run *r, char *err, size_t len);
	/*
	 * The ops this configuration never runs (bit i: op i), left out of
	 * ops, metrics and the summary. A function of the options alone, so
	 * every iteration of a point reports the same metrics.
	 */
	unsigned int (*unused_ops)(const struct rl_run *r);
	/*
	 * The kinds these options count, a table like kinds, when they are
	 * not kinds (a probe option that counts other ones, or none); kinds
	 * stays what --help lists.
	 */
	const char *const *const *(*run_kinds)(const struct rl_run *r);
	/* sets r->nthreads (and r->bufsize); returns an exit code */
	int (*setup)(struct rl_run *r);
	void (*thread)(struct worker *w);
	void (*teardown)(struct rl_run *r);
};

struct op_stats {
	uint64_t count;
	uint64_t bytes;
	uint64_t kind_count[RL_MAX_KINDS];	/* sums to count, if kinded */
	uint64_t kind_ns[RL_MAX_KINDS];		/* their timed ns */
	uint64_t unfinished;	/* wait_ops: rl_wait_done() */
	struct hist h;
} __attribute__((aligned(CACHELINE)));

struct worker {
	struct rl_run *run;
	unsigned int id;
	int fd;				/* its own open file, buffered */
	int dfd;			/* and O_DIRECT, or -1 */
	uint64_t rng;
	void *buf;			/* r->bufsize bytes, 4 KiB aligned */
	void *priv;			/* the workload's per-thread state */
	struct oracle_read *rd;		/* oracle snapshots, when verifying */
	struct oracle_punch *pn;
	uint64_t counters[RL_MAX_COUNTERS];
	struct op_stats stats[RL_MAX_OPS];
} __attribute__((aligned(CACHELINE)));

enum phase { PHASE_RAMP, PHASE_MEASURE, PHASE_STOP };

struct target {
	const char *path;
	int fd;			/* buffered, O_RDWR */
	int dfd;		/* O_DIRECT, or -1 */
	uint64_t size;
	bool created;		/* by this run: deleted at the end */
	bool owned;		/* rlwork's before this run (its mark) */
	bool sparse;		/* left as holes, not filled with tagged data */
	uint32_t file_id;	/* in every tag written to it */
	char fstype[32];
};

struct rl_run {
	/* written three times per run, read by every op: its own line */
	int phase __attribute__((aligned(CACHELINE)));
	char pad0[CACHELINE - sizeof(int)];

	const struct workload_ops *wl;
	struct common_opts o;
	void *wopts;
	uint64_t o_given, wopts_given;	/* opt_set.given of each table */
	struct target t;
	struct oracle *oracle;		/* NULL unless --verify */
	void *priv;
	unsigned int nthreads;
	unsigned int ops_off;		/* bit i: op i unused in this run */
	const char *const *const *kinds;	/* this run's (run_kinds) */
	FILE *info;			/* human-readable output */
	unsigned int *cpus;		/* allowed CPUs at start-up, for --pin */
	unsigned int ncpus;
	struct placement *place;	/* --placement or --pin, else NULL */
	size_t bufsize;
	struct worker **workers;
	double measured_s;
	char started[32];
	int failed;
	char fail_msg[512];
	unsigned int abandoned;	/* threads still in an op after a signal */
	char setup_err[400];	/* why the threads could not be set up */
	bool setup_limit;	/* ... a resource limit: bad input */
};

/* ---- hot-path helpers ---- */

static inline uint64_t rl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline bool rl_running(const struct worker *w)
{
	return READ_ONCE(w->run->phase) != PHASE_STOP;
}

/* Ops completing during the ramp-up are not recorded. */
static inline void rl_op_done(struct worker *w, unsigned int op, uint64_t t0,
			      uint64_t bytes)
{
	uint64_t t1 = rl_now();
	struct op_stats *s = &w->stats[op];

	if (likely(READ_ONCE(w->run->phase) == PHASE_MEASURE)) {
		s->count++;
		s->bytes += bytes;
		hist_add(&s->h, t1 - t0);
	}
}

/*
 * An op of a kind (an index into the op's list in r->kinds) that ended
 * at t1: the count and the kind's count and time under one look at the
 * phase, so the kinds always add up to the count. Kinded ops only.
 */
static inline void rl_op_record(struct worker *w, unsigned int op,
				unsigned int kind, uint64_t t0, uint64_t t1,
				uint64_t bytes)
{
	struct op_stats *s = &w->stats[op];

	if (likely(READ_ONCE(w->run->phase) == PHASE_MEASURE)) {
		s->count++;
		s->bytes += bytes;
		s->kind_count[kind]++;
		s->kind_ns[kind] += t1 - t0;
		hist_add(&s->h, t1 - t0);
	}
}

static inline void rl_op_done_kind(struct worker *w, unsigned int op,
				   unsigned int kind, uint64_t t0,
				   uint64_t bytes)
{
	rl_op_record(w, op, kind, t0, rl_now(), bytes);
}

/*
 * The end of a wide request (workload_ops.wait_ops) that began at t0 in phase
 * phase0 (read just before t0): counted as rl_op_done() counts ops. One
 * that began before the window closed and returned after it is in no
 * count, so its time from call to return is kept instead, the longest
 * of the thread's: a request a barging lock starves through the whole
 * window shows there and nowhere else.
 */
static inline void rl_wait_done(struct worker *w, unsigned int op,
				int phase0, uint64_t t0)
{
	uint64_t t1 = rl_now();
	struct op_stats *s = &w->stats[op];
	int phase = READ_ONCE(w->run->phase);

	if (likely(phase == PHASE_MEASURE)) {
		s->count++;
		hist_add(&s->h, t1 - t0);
	} else if (phase == PHASE_STOP && phase0 != PHASE_STOP &&
		   t1 - t0 > s->unfinished) {
		s->unfinished = t1 - t0;
	}
}

static inline void rl_count(struct worker *w, unsigned int counter)
{
	if (READ_ONCE(w->run->phase) == PHASE_MEASURE)
		w->counters[counter]++;
}

/* xorshift64*: per thread, cheap, good enough for offsets */
static inline uint64_t rl_rand(struct worker *w)
{
	uint64_t x = w->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	w->rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* uniform in [0, n) without a division (Lemire) */
static inline uint64_t rl_rand_below(struct worker *w, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rl_rand(w) * n) >> 64);
}

/* ---- harness services for workloads ---- */

/* stop the run: a measured failure (exit 1), reported once */
void rl_fail(struct rl_run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* -1: the threads could not be set up (r->setup_err says why) */
int rl_harness_run(struct rl_run *r);
/* strerror(err), naming the resource limit behind it (*limit) if any */
const char *rl_strerror(int err, int hint, bool *limit);
/* signals.c: no file of rlwork's outlives a signal */
/* set by SIGINT/SIGTERM/SIGHUP, from rl_signals_run() on */
extern volatile sig_atomic_t rl_interrupted;
/* every terminating signal: remove the doomed files, die of it */
void rl_signals_init(void);
/* from here SIGINT, SIGTERM and SIGHUP stop the run instead */
void rl_signals_run(void);
/* what a handler of a workload's own calls for a signal not its own */
void rl_fatal_signal(int sig);
/* block every signal rl_signals_init() catches: create, then register */
void rl_signals_block(sigset_t *old);
void rl_signals_restore(const sigset_t *old);
/* the files a fatal signal removes, each while its name leads to fd's inode */
enum rl_doomed { RL_DOOMED_TARGET, RL_DOOMED_TEMP, RL_DOOMED_SLOTS };
int rl_doomed_set(enum rl_doomed slot, const char *path, int fd);
void rl_doomed_clear(enum rl_doomed slot);

/* target.c */
int target_open(struct rl_run *r);
void target_close(struct rl_run *r);
void target_abort(struct rl_run *r);
int target_fill(struct rl_run *r, uint64_t from, uint64_t to);
int target_split_pages(struct rl_run *r);

/* whose a file is: the user.rlwork mark (target.c) */
enum owner {
	OWNER_NONE,	/* no mark: not rlwork's */
	OWNER_OTHER,	/* a mark made for another inode or kind: a copy */
	OWNER_CHANGED,	/* this inode's mark, but written since: not ours */
	OWNER_UNKNOWN,	/* no xattrs, or no inode identity: unprovable */
	OWNER_YES,
};
int owner_mark(int fd, const char *kind);
enum owner owner_check(int fd, const char *kind);
const char *owner_why(enum owner o);
/* --json PATH: 0, or -1 and a one-line refusal in err */
int result_path_check(const struct rl_run *r, bool probe, char *err,
		      size_t len);

/* placement.c: --placement, --membind and env.placement */
struct json_t;
int placement_check(struct rl_run *r, char *err, size_t len);
int placement_start(struct rl_run *r);
int placement_thread(struct worker *w, char *err, size_t len);
void placement_params(const struct rl_run *r, struct json_t *params);
void placement_env(const struct rl_run *r, struct json_t *env);

/* report.c; the ints are exit codes */
struct json_t *params_json(const struct rl_run *r);
void env_pairs(const struct rl_run *r, struct json_t *env);
/* takes kernel and env; a point whose threads never ran measured nothing */
struct json_t *result_doc(const struct rl_run *r, const char *status,
			  const char *error, struct json_t *kernel,
			  struct json_t *env);
/* atomically; run: a run's --json and its rules, NULL: the caller checked */
int result_save(const char *path, struct json_t *doc, const char *who,
		const struct rl_run *run);
int report_write(struct rl_run *r);

/* kinds.c: ops[].kinds of the result, and the summary's kinds lines */
/* a table with more than RL_MAX_KINDS kinds for an op: abort (a bug) */
void kinds_table_check(const struct workload_ops *wl,
		       const char *const *const *kinds);
struct json_t *op_kinds_json(const struct rl_run *r, unsigned int op);
void print_kinds(const struct rl_run *r, unsigned int op);
int report_point(struct rl_run *r);

/*
 * main.c: the point ARGV (a workload and its options) names, resolved as
 * a dry run does; NULL and the dry run's one-line message in err
 */
struct rl_run *rl_point(int argc, char **argv, char *err, size_t len);

/* fail.c: the runners' edits of a result, through result_save() */
int fail_result_main(int argc, char **argv);
int set_monitors_main(int argc, char **argv);

/*
 * WORKLOAD(wl_x) = { ... }; defines a workload and registers it: a pointer
 * to it goes into the section rlwork_workloads, which the linker gathers
 * from every object into one array (__start_/__stop_rlwork_workloads), so
 * a new workload is its .c file alone and no table has to name it.
 */
#define WORKLOAD(sym)							\
	static const struct workload_ops sym;				\
	static const struct workload_ops *const sym##_reg		\
	__attribute__((used, section("rlwork_workloads"),		\
		       aligned(sizeof(void *)))) = &sym;		\
	static const struct workload_ops sym

#endif
