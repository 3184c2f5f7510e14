// SPDX-License-Identifier: GPL-2.0
/*
 * Lock microbenchmark: lock+unlock pairs of pthread mutex (the i_mutex
 * stand-in), pthread rwlock (the rwsem stand-in), the exclusive range
 * lock (every request a write range, as the "rangelock" kernel takes
 * them), the reader/writer range lock (lib/range_lock.c), the bitmap
 * range lock (lib/range_lock_bitmap.c), the adaptive range lock
 * (lib/range_lock_adaptive.c) and the list range lock
 * (lib/range_lock_list.c), built with the non-debug shims.  The
 * adaptive lock is initialised again, in cheat mode, before every
 * throughput point, and its "precise" pairs run on a lock that has
 * switched.  The list lock's entries come from the shim's kmalloc()
 * (glibc malloc) and go through the shim's kfree_rcu() (a reclaimer
 * thread), not the kernel's slab and RCU: its figures include that
 * stand-in's costs.
 *
 * 1. Uncontended cost, one thread, ns per lock+unlock pair: the median
 *    of several samples, the pairs interleaved sample by sample so that
 *    a slow phase of the host hits all of them, and each as a ratio to
 *    the rwlock pair of its mode.  Also instructions per pair, counted
 *    by callgrind (deterministic: the difference between two runs of
 *    the loop, so the timer calls cancel), when valgrind is installed;
 *    see insn_pairs().
 * 2. Throughput at 1..N threads, ops/s, for three range layouts
 *    (disjoint: each thread its own range; overlap: random 16-index
 *    ranges in a 64-index window; whole: [0, ULONG_MAX]) and three mixes
 *    (readers: only read requests; mixed: one request in five writes;
 *    writers: only write requests).
 *    Each holder does --work iterations of dependent arithmetic.
 *
 * Prints a table and the ratio line, writes JSON to --json PATH.
 * Exit: 0, 1 if the JSON cannot be written, 2 on bad arguments.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/slab.h>

#include "rl_bench.h"
#include "rl_insn.h"

enum lock_kind { K_MUTEX, K_RWLOCK, K_RANGE_EXCL, K_RANGE_RW, K_BITMAP,
		 K_ADAPTIVE, K_LIST, NR_KINDS };
enum layout { L_DISJOINT, L_OVERLAP, L_WHOLE, NR_LAYOUTS };
enum mix { M_READERS, M_MIXED, M_WRITERS, NR_MIXES };

static const char *const kind_name[] = {
	"mutex", "rwlock", "range-excl", "range-rw", "bitmap", "adaptive",
	"list"
};
static const char *const layout_name[] = { "disjoint", "overlap", "whole" };
static const char *const mix_name[] = { "readers", "mixed", "writers" };

#define MAX_THREADS	64
#define SAMPLES		7

pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
struct range_lock_tree tree;
struct range_bitmap_lock bitmap;
static unsigned int bitmap_shift;
struct range_adaptive_lock adaptive, adaptive_precise;
struct range_list_lock listlock;

static unsigned int work = 50;
static unsigned int point_ms = 200;
unsigned long long pair_iters = 2000000;

struct point {
	enum lock_kind kind;
	enum layout layout;
	enum mix mix;
	unsigned int threads;
	double ops_per_s;
};

struct thread_arg {
	pthread_t thread;
	const struct point *p;
	unsigned int id;
	unsigned long long ops;
	unsigned long long rng;
	unsigned long sink;
};

static volatile int go, stop;

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long long rnd(unsigned long long *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/* The critical section: work that the compiler cannot drop or batch. */
static unsigned long do_work(unsigned long x)
{
	unsigned int i;

	for (i = 0; i < work; i++) {
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		__asm__ __volatile__("" : "+r"(x));
	}
	return x;
}

static void one_op(struct thread_arg *a, bool reader, unsigned long start,
		   unsigned long last)
{
	struct range_adaptive_req ar;
	struct range_bitmap_req br;
	struct range_list_req lr;
	struct range_lock rl;

	switch (a->p->kind) {
	case K_MUTEX:
		pthread_mutex_lock(&mutex);
		a->sink = do_work(a->sink);
		pthread_mutex_unlock(&mutex);
		break;
	case K_RWLOCK:
		if (reader)
			pthread_rwlock_rdlock(&rwlock);
		else
			pthread_rwlock_wrlock(&rwlock);
		a->sink = do_work(a->sink);
		pthread_rwlock_unlock(&rwlock);
		break;
	case K_RANGE_EXCL:
		range_lock_init(&rl, start, last);
		range_write_lock(&tree, &rl);
		a->sink = do_work(a->sink);
		range_write_unlock(&tree, &rl);
		break;
	case K_BITMAP:
		range_bitmap_req_init(&br, start, last);
		if (reader) {
			range_bitmap_read_lock(&bitmap, &br);
			a->sink = do_work(a->sink);
			range_bitmap_read_unlock(&bitmap, &br);
		} else {
			range_bitmap_write_lock(&bitmap, &br);
			a->sink = do_work(a->sink);
			range_bitmap_write_unlock(&bitmap, &br);
		}
		break;
	case K_ADAPTIVE:
		range_adaptive_req_init(&ar, start, last);
		if (reader) {
			range_adaptive_read_lock(&adaptive, &ar);
			a->sink = do_work(a->sink);
			range_adaptive_read_unlock(&adaptive, &ar);
		} else {
			range_adaptive_write_lock(&adaptive, &ar);
			a->sink = do_work(a->sink);
			range_adaptive_write_unlock(&adaptive, &ar);
		}
		break;
	case K_LIST:
		range_list_req_init(&lr, start, last);
		if (reader) {
			range_list_read_lock(&listlock, &lr);
			a->sink = do_work(a->sink);
			range_list_read_unlock(&listlock, &lr);
		} else {
			range_list_write_lock(&listlock, &lr);
			a->sink = do_work(a->sink);
			range_list_write_unlock(&listlock, &lr);
		}
		break;
	default:
		range_lock_init(&rl, start, last);
		if (reader) {
			range_read_lock(&tree, &rl);
			a->sink = do_work(a->sink);
			range_read_unlock(&tree, &rl);
		} else {
			range_write_lock(&tree, &rl);
			a->sink = do_work(a->sink);
			range_write_unlock(&tree, &rl);
		}
		break;
	}
}

static void *bench_thread(void *arg)
{
	struct thread_arg *a = arg;
	unsigned long start, last;
	bool reader;

	while (!go)
		;
	while (!stop) {
		reader = a->p->mix == M_READERS ||
			 (a->p->mix == M_MIXED && rnd(&a->rng) % 5);
		switch (a->p->layout) {
		case L_DISJOINT:
			start = a->id * 1024ul;
			last = start + 15;
			break;
		case L_OVERLAP:
			start = rnd(&a->rng) % 48;
			last = start + 15;
			break;
		default:
			start = 0;
			last = ULONG_MAX;
			break;
		}
		one_op(a, reader, start, last);
		a->ops++;
	}
	return NULL;
}

static void run_point(struct point *p)
{
	struct thread_arg args[MAX_THREADS];
	unsigned long long ops = 0;
	struct timespec ts = {
		.tv_sec = point_ms / 1000,
		.tv_nsec = (point_ms % 1000) * 1000000l,
	};
	double t0, t1;
	unsigned int i;

	go = 0;
	stop = 0;
	memset(args, 0, sizeof(args));
	if (p->kind == K_ADAPTIVE)
		range_adaptive_lock_init(&adaptive);
	for (i = 0; i < p->threads; i++) {
		args[i].p = p;
		args[i].id = i;
		args[i].rng = 0x9e3779b97f4a7c15ull * (i + 1);
		if (pthread_create(&args[i].thread, NULL, bench_thread,
				   &args[i]))
			abort();
	}
	t0 = now();
	go = 1;
	nanosleep(&ts, NULL);
	stop = 1;
	t1 = now();
	for (i = 0; i < p->threads; i++) {
		pthread_join(args[i].thread, NULL);
		ops += args[i].ops;
	}
	p->ops_per_s = ops / (t1 - t0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Medians of SAMPLES runs of every pair, the pairs taking turns. */
static void median_pairs(double *ns)
{
	double s[NR_PAIRS][SAMPLES];
	unsigned int i, j;

	for (i = 0; i < NR_PAIRS; i++)
		pairs[i].fn();	/* warm up */
	for (j = 0; j < SAMPLES; j++)
		for (i = 0; i < NR_PAIRS; i++)
			s[i][j] = pairs[i].fn();
	for (i = 0; i < NR_PAIRS; i++) {
		qsort(s[i], SAMPLES, sizeof(s[i][0]), cmp_double);
		ns[i] = s[i][SAMPLES / 2];
	}
}

static int write_json(const char *path, json_t *doc)
{
	char tmp[4096];

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, getpid()) >=
	    (int)sizeof(tmp) ||
	    json_dump_file(doc, tmp, JSON_INDENT(2) | JSON_SORT_KEYS) ||
	    rename(tmp, path)) {
		fprintf(stderr, "rl_bench: cannot write %s\n", path);
		unlink(tmp);
		return 1;
	}
	return 0;
}

static unsigned int parse_uint(const char *opt, const char *s,
			       unsigned int lo, unsigned int hi)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v < lo || v > hi) {
		fprintf(stderr, "rl_bench: --%s '%s': expected an integer in %u..%u\n",
			opt, s, lo, hi);
		exit(2);
	}
	return v;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: rl_bench [--json PATH] [--threads N (1-%d)] [--point-ms MS] [--work N]\n"
		"                [--no-insn]\n", MAX_THREADS);
}

/* Chinner's sizing: 64 segments span the layouts' indices, 16 at least. */
static unsigned int pick_bitmap_shift(unsigned int threads)
{
	unsigned long span = threads * 1024ul;
	unsigned int shift = 4;

	while (((unsigned long)RANGE_BITMAP_SEGMENTS << shift) < span)
		shift++;
	return shift;
}

static void print_pairs(json_t *doc, const double *ns, const double *insn)
{
	json_t *unc = json_object(), *ratio = json_object(), *ins = NULL;
	unsigned int i, base;

	printf("uncontended lock+unlock, one thread: ns/pair (median of %d, pairs interleaved),\n"
	       "ratio to the rwlock pair of the same mode, instructions/pair (callgrind:\n"
	       "path length only, no cache misses, no contention)\n",
	       SAMPLES);
	if (insn[0] >= 0)
		ins = json_object();
	for (i = 0; i < NR_PAIRS; i++) {
		base = pairs[i].reader ? P_RW_READ : P_RW_WRITE;
		printf("  %-34s %8.1f ns %6.2fx", pairs[i].label, ns[i],
		       ns[i] / ns[base]);
		if (insn[i] >= 0)
			printf(" %7.1f insn %6.2fx\n", insn[i],
			       insn[i] / insn[base]);
		else
			printf("       n/a insn\n");
		json_object_set_new(unc, pairs[i].name, json_real(ns[i]));
		json_object_set_new(ratio, pairs[i].name,
				    json_real(ns[i] / ns[base]));
		if (ins && insn[i] >= 0)
			json_object_set_new(ins, pairs[i].name,
					    json_real(insn[i]));
	}
	json_object_set_new(doc, "uncontended_ns", unc);
	json_object_set_new(doc, "uncontended_ratio_to_rwlock", ratio);
	if (ins)
		json_object_set_new(doc, "uncontended_insn", ins);
	json_object_set_new(doc, "ratio_range_write_to_rwlock_write",
			    json_real(ns[P_RANGE_WRITE] / ns[P_RW_WRITE]));
	json_object_set_new(doc, "ratio_range_write_tree_to_rwlock_write",
			    json_real(ns[P_RANGE_WRITE_TREE] / ns[P_RW_WRITE]));
}

/* Throughput at every point, the kinds taking turns within a point. */
static void run_throughput(json_t *doc, unsigned int max_threads)
{
	double ops[NR_KINDS];
	json_t *tp = json_array();
	unsigned int k, l, m, t;
	struct point p;

	printf("\nthroughput (Mops/s), critical section %u iterations; x rwlock at %u thread(s)\n",
	       work, max_threads);
	printf("  %-9s %-8s %7s", "ranges", "mix", "threads");
	for (k = 0; k < NR_KINDS; k++)
		printf(" %10s", kind_name[k]);
	printf("\n");
	for (l = 0; l < NR_LAYOUTS; l++) {
		for (m = 0; m < NR_MIXES; m++) {
			for (t = 1; t <= max_threads; t++) {
				printf("  %-9s %-8s %7u", layout_name[l],
				       mix_name[m], t);
				for (k = 0; k < NR_KINDS; k++) {
					p = (struct point){ k, l, m, t, 0 };
					run_point(&p);
					ops[k] = p.ops_per_s;
					printf(" %10.3f", p.ops_per_s / 1e6);
					fflush(stdout);
					json_array_append_new(tp, json_pack(
						"{s:s, s:s, s:s, s:i, s:f}",
						"lock", kind_name[k],
						"ranges", layout_name[l],
						"mix", mix_name[m],
						"threads", (int)t,
						"ops_per_s", p.ops_per_s));
				}
				printf("\n");
			}
			printf("  %-9s %-8s %7s", "", "", "x rwlock");
			for (k = 0; k < NR_KINDS; k++)
				printf(" %9.2fx", ops[k] / ops[K_RWLOCK]);
			printf("\n");
		}
	}
	json_object_set_new(doc, "throughput", tp);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", required_argument, NULL, 'j' },
		{ "threads", required_argument, NULL, 't' },
		{ "point-ms", required_argument, NULL, 'p' },
		{ "work", required_argument, NULL, 'w' },
		{ "no-insn", no_argument, NULL, 'n' },
		{ "insn-child", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int max_threads = ncpu > 0 && ncpu <= MAX_THREADS ? ncpu : 2;
	bool want_insn = true, child = false;
	const char *json_path = NULL;
	double ns[NR_PAIRS], insn[NR_PAIRS];
	json_t *doc;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json_path = optarg;
			break;
		case 't':
			max_threads = parse_uint("threads", optarg, 1, MAX_THREADS);
			break;
		case 'p':
			point_ms = parse_uint("point-ms", optarg, 10, 60000);
			break;
		case 'w':
			work = parse_uint("work", optarg, 0, 1000000);
			break;
		case 'n':
			want_insn = false;
			break;
		case 'c':
			child = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rl_bench: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}

	range_lock_tree_init(&tree);
	bitmap_shift = pick_bitmap_shift(max_threads);
	range_bitmap_lock_init(&bitmap, bitmap_shift);
	range_adaptive_lock_init(&adaptive);
	range_adaptive_lock_init(&adaptive_precise);
	make_precise(&adaptive_precise);
	range_list_lock_init(&listlock, GFP_KERNEL);
	if (child) {
		for (c = 0; c < NR_PAIRS; c++)
			insn_child_run(pairs[c].name, pairs[c].fn, &pair_iters);
		return 0;
	}

	doc = json_object();
	json_object_set_new(doc, "schema", json_string("rlbench-locks/2"));
	json_object_set_new(doc, "cpus", json_integer(ncpu));
	json_object_set_new(doc, "work_iters", json_integer(work));
	json_object_set_new(doc, "point_ms", json_integer(point_ms));
	json_object_set_new(doc, "bitmap_shift", json_integer(bitmap_shift));

	median_pairs(ns);
	if (!want_insn || !insn_pairs(NR_PAIRS, insn)) {
		for (c = 0; c < NR_PAIRS; c++)
			insn[c] = -1;
		if (want_insn)
			fprintf(stderr, "rl_bench: no instruction counts: valgrind (callgrind) %s\n",
				RL_HAVE_CALLGRIND ? "did not run" :
				"headers missing at build time");
	}
	print_pairs(doc, ns, insn);
	printf("bitmap lock: segments of %u indices, 64 of them span the %u * 1024 indices\n"
	       "of the layouts below (a fixed shift; Chinner sizes segments to the file)\n",
	       1u << bitmap_shift, max_threads);
	run_throughput(doc, max_threads);

	printf("\nuncontended range lock / rwlock write = %.2fx\n",
	       ns[P_RANGE_WRITE] / ns[P_RW_WRITE]);
	printf("tree-path range lock / rwlock write = %.2fx\n",
	       ns[P_RANGE_WRITE_TREE] / ns[P_RW_WRITE]);
	printf("uncontended bitmap lock / rwlock: write %.2fx, read %.2fx",
	       ns[P_BITMAP_WRITE] / ns[P_RW_WRITE],
	       ns[P_BITMAP_READ] / ns[P_RW_READ]);
	if (insn[P_BITMAP_WRITE] >= 0)
		printf("; in instructions %.2fx, %.2fx",
		       insn[P_BITMAP_WRITE] / insn[P_RW_WRITE],
		       insn[P_BITMAP_READ] / insn[P_RW_READ]);
	printf("\n");
	printf("uncontended adaptive lock (cheat mode) / rwlock: write %.2fx, read %.2fx",
	       ns[P_ADAPTIVE_WRITE] / ns[P_RW_WRITE],
	       ns[P_ADAPTIVE_READ] / ns[P_RW_READ]);
	if (insn[P_ADAPTIVE_WRITE] >= 0)
		printf("; in instructions %.2fx, %.2fx",
		       insn[P_ADAPTIVE_WRITE] / insn[P_RW_WRITE],
		       insn[P_ADAPTIVE_READ] / insn[P_RW_READ]);
	printf("\n");
	printf("uncontended list lock / rwlock: write %.2fx, read %.2fx",
	       ns[P_LIST_WRITE] / ns[P_RW_WRITE],
	       ns[P_LIST_READ] / ns[P_RW_READ]);
	if (insn[P_LIST_WRITE] >= 0)
		printf("; in instructions %.2fx, %.2fx",
		       insn[P_LIST_WRITE] / insn[P_RW_WRITE],
		       insn[P_LIST_READ] / insn[P_RW_READ]);
	printf("\n");

	if (json_path && write_json(json_path, doc))
		return 1;
	if (json_path)
		printf("json: %s\n", json_path);
	json_decref(doc);
	return 0;
}
