/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run directory as the analysis sees it: its points, its variants and,
 * for each variant at each point, a cell holding every boot's metrics
 * (load.c), the result documents checked against rlbench-result/1
 * (validate.c), meta.json checked against rlbench-meta/1 (meta.c), the
 * variants in kernels/variants' order (order.c) and cost mode's insn/op
 * derived from its rates (prep.c), and the boots a run still has to run
 * (plan.c), and what each op did and how long the point waited for the
 * lock (mix.c, waits.c). What rlstat accepts is listed in
 * docs/rlstat-input.md; everything else is exit 2 with the file and the
 * reason. Nothing here gates or prints a report.
 */
#ifndef RLSTAT_RUN_H
#define RLSTAT_RUN_H

#include "base/base.h"

/* METRIC_INSN: cost mode's insn/op, 1e9 / ops_per_s (run_open) */
enum metric_kind {
	METRIC_OPS, METRIC_BYTES, METRIC_LAT, METRIC_COUNTER, METRIC_INSN
};

struct metric_def {
	char *name;		/* e.g. "read.ops_per_s" */
	char *unit;
	bool higher_is_better;
	enum metric_kind kind;
	char *op;		/* op name, NULL for counters */
	char *pct;		/* "99.9" for latency metrics */
	char *counter;		/* counter name */
	bool linear;		/* a value <= 0 somewhere: no log scale */
};

struct cell_metric {		/* one metric of a cell, over its boots */
	struct metric_def *def;
	double *vals;		/* one per ok iteration */
	int nvals;
	/* latency: merged over iterations, the cell's ophist of the op */
	const struct lathist *hist;
	uint64_t htotal;	/* its count so far, while loading */
	double quantum;		/* rates: largest 1/count, relative */
	struct summary s;
	double value;		/* what tables show: hmean, merged pct, mean */
};

struct cell {			/* one variant at one point of the matrix */
	char *variant;
	struct point *pt;
	int niter, nfailed;
	char *first_error;
	struct cell_metric *m;
	int nm;
	struct lathist **ophist;	/* merged per op, for CDFs */
	char **opname;
	int nops;
	json_t *opix;		/* op name -> index in ophist */
	char *release, *accel;
	bool roles;		/* threads of different ops (has_roles) */
	bool wide;		/* an op has wait_ns: a wide request */
};

struct point {
	char *key;		/* workload + canonical params */
	char *label;		/* "p001-dio" or synthesized */
	char *mode;		/* env.mode: "cost" or "time" */
	char *workload;
	json_t *params;
	char *params_str;	/* "threads=2 layout=disjoint bs=4096" */
	char *params_nothreads;
	int threads;		/* -1 when the point has no threads param */
	struct metric_def *defs;
	int ndefs;
	bool seq;		/* alpha spent over looks here (run_is_sequential) */
	json_t *defix;		/* metric name -> index in defs */
};

struct run {
	char *dir;
	json_t *meta;		/* NULL if absent */
	/* env of the first result, and of the first of the other mode */
	json_t *env, *env_other;
	char **variants;
	int nvariants;
	struct point **points;
	int npoints;
	struct cell **cells;	/* [point * nvariants + variant], may be NULL */
	int nfiles;
};

/* ---- load.c ---- */

struct run *run_load(const char *dir, double conf);
struct cell *run_cell(const struct run *r, int point, int variant);
int run_variant_index(const struct run *r, const char *name);
int run_point_index(const struct run *r, const char *key);

/* ---- prep.c: a loaded run as the analysis sees it ---- */

struct run *run_open(const char *dir, double conf);
/* The baseline variant; one variant alone compares with nothing. */
int run_pick_baseline(const struct run *r, const char *want, bool given);
double metric_floor(const struct cell_metric *cm, bool logscale);
double metric_scale(const struct metric_def *d, const char **unit);
const char *metric_label(const struct metric_def *d, char *buf, size_t len);

/* ---- order.c ---- */

/* qsort comparator of variant names, kernels/variants' order */
int variant_cmp(const void *a, const void *b);
/* Variant indices with the baseline first. */
int *variant_order(const struct run *r, int base);

/* ---- validate.c ---- */

int validate_file(const char *path);
const char *validate_doc(json_t *doc);
json_t *load_result(const char *path);
json_t *metric_op(json_t *doc, const char *metric, const char **rest);
/* ops[] or metrics[] of a result by name, for lookups in O(1) */
json_t *doc_index(json_t *doc, const char *arr);
/* 1..64 of [A-Za-z0-9_] and those in extra, not starting with extra */
bool name_ok(const char *s, const char *extra);
/* two passing iterations of one point report the same ops and metrics */
void docs_same_names(const char *path, json_t *doc, const char *refpath,
		     json_t *ref);

/*
 * ---- mix.c: what each op did (ops[].kinds), the point's lock waits,
 * a wide request's waits (ops[].wait_ns) ----
 */

#define MIX_KINDS	8
struct wide_wait {		/* ops[].wait_ns of one boot, ns */
	double count, mean, p99, max, unfinished;
};
struct op_mix {			/* one op of a cell, per passing boot */
	char *op;
	int nkinds;		/* 0: no kinds (older results, one kind) */
	char *kind[MIX_KINDS];
	double *count, *ns;	/* [boot * nkinds + kind]: ops, timed ns */
	double *ops;		/* [boot]: the op's count */
	double *cycle_ns;	/* [boot]: ns per op and thread issuing it */
	bool wide;		/* every boot's op has wait_ns */
	struct wide_wait *wait;	/* [boot]: its wait_ns */
};
struct cell_mix {
	int nops, nboots;
	struct op_mix *op;
	bool waits;		/* every boot has the mapping_lock monitor */
	double *contended, *wait_ns;	/* [boot], the whole point's */
};
/* NULL when kinds is absent or valid, else why not (validate.c) */
const char *kinds_check(const char *op, json_t *kinds, json_t *count);
/* NULL when wait_ns is absent or valid, else why not (validate.c) */
const char *wait_check(const char *op, json_t *wait, json_t *count,
		       json_t *lat);
struct cell_mix *cell_mix_load(const struct run *r, const struct cell *c);
const struct op_mix *cell_mix_op(const struct cell_mix *m, const char *op);
void cell_mix_free(struct cell_mix *m);

/* ---- waits.c: a cell's lock waits, from its stats boot ---- */

struct cell_waits {
	const char *source;	/* "stats boot", "timed boots"; NULL: none */
	int nboots;		/* boots with counters */
	int stats_booted, stats_failed;	/* the cell's stats results */
	double contended, wait_ns;	/* per boot, the mean over nboots */
	double max_ns;		/* the longest wait, NAN when not known */
	double runtime_s;	/* a boot's measured seconds, the mean */
	char *role;		/* the one op the waits are exact for; NULL:
				 * several ops, the waits are the point's */
	int nops;
};
/* the monitor's counters of one boot; false when none were recorded */
bool boot_lock_waits(const struct run *r, json_t *j, double *cont,
		     double *ns, double *max);
/* "<point>-stats-i<N>.result.json": a stats boot's, never a rate */
bool stats_boot_file(const char *file);
/* never NULL; ->source NULL when the cell has no counters */
struct cell_waits *cell_waits_load(const struct run *r,
				   const struct cell *c);
/* us per contended acquisition, NAN when none */
double cell_waits_mean_us(const struct cell_waits *w);
void cell_waits_free(struct cell_waits *w);

/* ---- meta.c ---- */

void meta_check(const char *path, json_t *meta);
/* <dir>/meta.json, loaded and checked (meta_check) */
json_t *meta_load(const char *dir);
/* the same, of a run being made: its variants may be still to come */
json_t *meta_open(const char *dir);
/* meta.json's variants[] entry of variant, NULL if none */
json_t *meta_variant(json_t *meta, const char *variant);
/* meta.json's variants are exactly the directories holding results */
void meta_check_variants(const struct run *r, char **vdirs, const int *nres,
			 int nv);
/* ITERATIONS=auto, or time points whose variants ran unequal boots */
bool run_is_sequential(const struct run *r, int *max_iter);

/* ---- plan.c: the boots of a run, meta.json's boot_order ---- */

struct matrix_out;

/* meta.json of dir replaced, whole or not at all */
void plan_meta_write(const char *dir, json_t *meta);
/*
 * Rounds 1..rounds of units ("variant:mode"; cost units 1..cost_rounds),
 * unless boot_order has boots
 * already (a RESUME): 1 when it wrote them, 0 when not.
 */
int plan_first_rounds(json_t *meta, int rounds, int cost_rounds,
		      char **units, int n);
/*
 * ITERATIONS=auto: the next round of time boots for the points names
 * (undecided), or none: 1 a round added to boot_order, 0 none, with
 * auto_stop saying why (max_iterations, decided, budget); msg says it.
 */
int plan_next_round(const char *dir, json_t *meta, char **names, int n,
		    char *msg, size_t len);
/*
 * Cost mode's ITERATIONS=auto: a third cost boot of every cost variant
 * for the points names (their two boots differ), unless one ran: 1 a
 * round added, 0 none; msg says which.
 */
int plan_confirm_round(json_t *meta, char **names, int n, char *msg,
		       size_t len);
/*
 * Whether each variant gets a stats boot, and why (STATS= in q->stats,
 * the matrix's stats_boot, its modes and monitors; a RESUME's meta.json)
 */
struct plan_req;
struct plan_set;
void plan_stats(const struct plan_req *q, json_t *meta,
		const struct matrix_out *mx, const char *monitors,
		struct plan_set *s);
/* the boots, one a line: mode variant iteration points (a,b or -) */
void plan_list(FILE *f, json_t *meta);
/*
 * A boot ran: its host seconds (< 0: not recorded) and its variant's
 * accelerator (NULL: none; a cost boot's only where none is recorded);
 * -1 when meta.json has no such boot.
 */
int plan_record(json_t *meta, const char *variant, const char *mode,
		int iteration, double seconds, const char *accel);
/*
 * One boot's plan lines, those of the points in sel (all when nsel is 0),
 * from the matrix's points: the lines runners/qemu feeds the guest (accel
 * NULL: "@ACCEL@", which runners/boot fills in) or a LAVA job carries.
 */
void plan_boot_lines(FILE *f, json_t *meta, const struct matrix_out *mx,
		     const char *accel,
		     const char *variant, const char *mode, int iteration,
		     char **sel, int nsel);

/* ---- matrix.c: runners/matrix's output, read on stdin ---- */

struct matrix_out {
	char **lines;		/* "KEY VALUE" of each "set KEY VALUE" */
	int nlines;
	char **points;		/* "ID ARGS...", one space between fields */
	int npoints;
};
struct matrix_out *matrix_out_read(FILE *f);
/* the value of setting key ("" when set empty), NULL when absent */
const char *matrix_set(const struct matrix_out *m, const char *key);

/* ---- create.c, edit.c: meta.json made and added to ---- */

/* What a runner asks for (rlstat plan create and resume's options). */
struct plan_req {
	const char *runner;	/* qemu, bare, lava */
	const char *top, *results;	/* the suite, where runs go */
	const char *run;	/* resume: the run; bare, lava: its dir */
	const char *matrix;	/* the matrix file the user named */
	const struct matrix_out *mx;
	const char *mode, *iterations, *budget, *seed, *accel, *name;
	const char *profile;	/* PROFILE=: insn or none */
	const char *stats;	/* STATS=: 1 (default) or 0, no stats boot */
	const char *kernel, *baseline, *variants, *rerun_of;
	bool debug;
	bool kcsan;	/* DEBUG=kcsan: the debug kernels with KCSAN */
	/* qemu: resolve and check only, make nothing (plan create --check) */
	bool check;
	/* bare: the running kernel's variant, its scratch, its binding */
	const char *variant, *strategy, *scratch, *fs, *topology, *binding;
	const char **features;
	int nfeatures;
	/* lava: what the job files recorded */
	const char *matrix_sha, *commit;
	/* MODE=auto: does KVM run a guest here (yes, no), and why */
	const char *kvm, *kvm_why;
};

/* What the run goes by, printed for the runner as `key value` lines. */
struct plan_set {
	const char *mode, *iterations, *budget, *accel, *baseline, *profile;
	const char *time_device, *cost_device, *cost_cpus, *variants;
	const char *requested_mode;	/* MODE= as asked: auto, time, ... */
	const char *modes;	/* the units' modes: "cost time", "cost" ... */
	json_t *auto_meta;	/* MODE=auto: meta.json's "auto", else NULL */
	long budget_s;		/* -1: none */
	long seed;
	int max_iterations, rounds;
	int cost_rounds;	/* ITERATIONS=auto: 2, a third where they differ */
	bool debug;
	bool kcsan;
	bool stats_boot;	/* one stats boot per variant (plan.c) */
	const char *stats_why;	/* why it has one, or none */
};

/* seconds of a time budget; -1 for "none", -2 for anything not one */
long plan_budget_seconds(const char *budget);
/* q resolved against the matrix's settings (and a RESUME's meta) */
void plan_resolve(const struct plan_req *q, json_t *meta,
		  const struct matrix_out *mx, struct plan_set *s);
void plan_settings_print(FILE *f, const char *dir, const struct plan_set *s);
/* the run directory made and its meta.json written; returns the dir */
char *plan_create_qemu(const struct plan_req *q, struct plan_set *s);
/* bare's and lava's documents, into q->run, which the runner made */
void plan_create_bare(const struct plan_req *q);
void plan_create_lava(const struct plan_req *q, FILE *in);
/* a RESUME's settings; BUDGET= written into its meta.json */
char *plan_resume(const struct plan_req *q, struct plan_set *s);
/* run/facts.c: what meta.json records of the machine and checkout */
char *plan_now_utc(void);
/* a whole file, NUL-terminated; NULL when it cannot be opened */
char *plan_slurp(const char *path);
/* 9 digits of the nanosecond clock: a run's seed when none is given */
long plan_clock_seed(void);
/* HEAD of the git checkout at top, "unknown" outside one */
char *plan_git_commit(const char *top);
/* the first line of s, without its newline */
char *plan_first_line(const char *s);
/* sha256 of a file in hex, "unknown" when it cannot be read */
char *plan_sha256(const char *path);
/* cpu_model, cpus, mem_mb, kernel of this machine */
json_t *plan_host_facts(void);
/* variants[] entry of a built kernel; 0 when it is there already */
int plan_add_variant(json_t *meta, const char *dir, const char *variant,
		     const char *kdir, const char *strategy,
		     const char **features, int nfeatures);
/* a skipped variant (flavour NULL) or flavour; 0 when there already */
int plan_add_skip(json_t *meta, const char *variant, const char *reason,
		  const char *flavour);
void plan_end(json_t *meta);
/* the variants a RESUME runs: variants[] and skipped[], space-separated */
char *plan_meta_variants(json_t *meta);
/* what `make rerun` repeats: runners/run's arguments, one a line */
void plan_rerun_args(FILE *f, const char *dir, json_t *meta);

/* ---- auto.c: MODE=auto, each point in the mode this host answers ---- */

/* threads of a point's resolved params that play different roles */
int point_roles(json_t *params);
/*
 * MODE=auto resolved: both where KVM runs a guest, else cost mode for
 * the single-role points and time mode for the rest (time_only: every
 * point in time mode, the matrix's device has none); s->auto_meta holds
 * meta.json's "auto" (why, and each point's mode).
 */
void plan_auto(const struct plan_req *q, const struct matrix_out *mx,
	       struct plan_set *s, bool time_only);
/* the modes a run's units boot in: "cost time", "cost" or "time" */
const char *plan_modes(const char *mode, json_t *meta);
/* meta.json's mode of a point: "time", "cost" or "both" */
const char *meta_point_mode(json_t *meta, const char *label);

/* ---- docs.c: a run's result documents, as load.c reads them (run/ only) ---- */

struct doc {
	char *path, *variant, *label;
	json_t *j;
	int point, variant_idx;
	/* the op whose histogram was parsed last, while add_doc runs: the
	 * op's percentile metrics follow one another, one parse serves all */
	json_t *hop;
	struct lathist *hlh;
};

struct docs {
	struct doc *d;
	int n, cap;
};

/*
 * Every result document under r->dir into ds, its file name, variant
 * directory and kernel.variant checked; the stats boot's files are left
 * out (waits.c reads them). Dies on bad input.
 */
void load_docs(struct run *r, struct docs *ds);

#endif
