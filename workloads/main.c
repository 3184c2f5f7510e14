// SPDX-License-Identifier: GPL-2.0
/*
 * rlwork: command line, the workload table and the order of a run:
 * options -> checks -> target -> oracle -> threads -> final verification
 * -> result.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "oracle.h"
#include "rlwork.h"

/* every WORKLOAD() of the linked objects (rlwork.h), sorted by name */
extern const struct workload_ops *const __start_rlwork_workloads[];
extern const struct workload_ops *const __stop_rlwork_workloads[];
static const struct workload_ops **workloads;
static unsigned int nworkloads;

static int wl_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct workload_ops *const *)a)->name,
		      (*(const struct workload_ops *const *)b)->name);
}

/* link order is the Makefile's; the listing should not depend on it */
static void workloads_init(void)
{
	nworkloads = __stop_rlwork_workloads - __start_rlwork_workloads;
	workloads = malloc(nworkloads * sizeof(*workloads));
	if (!workloads)
		abort();
	memcpy(workloads, __start_rlwork_workloads,
	       nworkloads * sizeof(*workloads));
	qsort(workloads, nworkloads, sizeof(*workloads), wl_cmp);
}

static const char *const inject_modes[] = { "none", "stale", "tag",
					    "checksum", "lost", NULL };

#define C(field) offsetof(struct common_opts, field)

const struct opt_def common_opts[] = {
	{ .name = "threads", .type = OPT_INT, .off = C(threads), .def = "1",
	  .min = 1, .max = 1024,
	  .help = "worker threads (see the workload for what they do)" },
	{ .name = "runtime", .type = OPT_DOUBLE, .off = C(runtime), .def = "10",
	  .min = 0.01, .max = 86400, .flags = OPT_NOPARAM,
	  .help = "measured seconds, after the ramp-up" },
	{ .name = "ramp", .type = OPT_DOUBLE, .off = C(ramp), .def = "1",
	  .min = 0, .max = 3600, .flags = OPT_NOPARAM,
	  .help = "seconds run before measuring; their ops are not counted" },
	{ .name = "file", .type = OPT_STR, .off = C(file), .def = "rlwork.dat",
	  NORANGE, .flags = OPT_NOPARAM,
	  .help = "target file; created (and deleted after) if missing" },
	{ .name = "size", .type = OPT_SIZE, .off = C(size), .def = "64m",
	  .min = 65536, .max = 1ull << 40,
	  .help = "file size in bytes (k/m/g/t suffixes)" },
	{ .name = "bs", .type = OPT_SIZE, .off = C(bs), .def = "4k",
	  .min = 512, .max = 64 << 20,
	  .help = "bytes per IO" },
	{ .name = "verify", .type = OPT_BOOL, .off = C(verify), .def = "no",
	  NORANGE,
	  .help = "tag every written page and check every read (the oracle)" },
	{ .name = "seed", .type = OPT_INT, .off = C(seed), .def = "1",
	  .min = 0, .max = 1e18,
	  .help = "random seed for offsets and choices" },
	{ .name = "primary-op", .type = OPT_STR, .off = C(primary_op),
	  NORANGE,
	  .help = "the op whose rate a comparison gates: listed first in the result's metrics (default: the first op this run times)" },
	{ .name = "json", .type = OPT_STR, .off = C(json),
	  NORANGE, .flags = OPT_NOPARAM,
	  .help = "write the result JSON here (atomically); replaces only a result rlwork wrote" },
	{ .name = "variant", .type = OPT_STR, .off = C(variant),
	  NORANGE, .flags = OPT_NOPARAM,
	  .help = "kernel variant name recorded as kernel.variant" },
	{ .name = "iteration", .type = OPT_INT, .off = C(iteration), .def = "1",
	  .min = 1, .max = 1000000, .flags = OPT_NOPARAM,
	  .help = "iteration number recorded in the result" },
	{ .name = "env", .type = OPT_KV, .off = C(env),
	  NORANGE, .flags = OPT_NOPARAM,
	  .help = "KEY=VALUE added to the result's env block (repeatable)" },
	{ .name = "dry-run", .type = OPT_BOOL, .off = C(dry_run), .def = "no",
	  NORANGE, .flags = OPT_NOPARAM,
	  .help = "resolve, check and print the options, touch no file" },
	{ .name = "force", .type = OPT_BOOL, .off = C(force), .def = "no",
	  NORANGE, .flags = OPT_NOPARAM,
	  .help = "allow overwriting a regular file rlwork did not create (--file, --json)" },
	{ .name = "keep", .type = OPT_BOOL, .off = C(keep), .def = "no",
	  NORANGE, .flags = OPT_NOPARAM,
	  .help = "keep a file this run created" },
	{ .name = "pin", .type = OPT_BOOL, .off = C(pin), .def = "no",
	  NORANGE, .flags = OPT_NOPARAM,
	  .help = "pin worker thread i to the i-th allowed CPU (round-robin); recorded as env.pinned" },
	{ .name = "placement", .type = OPT_STR, .off = C(placement),
	  NORANGE, .flags = OPT_NOPARAM,
	  .help = "pack|spread|list:<cpus>: threads on one package's cores first, round-robin over packages, or on the listed CPUs; recorded in env.placement" },
	{ .name = "membind", .type = OPT_STR, .off = C(membind),
	  NORANGE, .flags = OPT_NOPARAM,
	  .help = "local|interleave: each thread's memory on its own NUMA node, or interleaved over the threads' nodes (needs --placement)" },
	{ .name = "inject-corruption", .type = OPT_ENUM, .off = C(inject), .def = "none",
	  NORANGE, .choices = inject_modes, .flags = OPT_NOPARAM | OPT_HIDDEN,
	  .help = "test only: corrupt a page behind the workload" },
	OPT_END
};

static void usage(FILE *f)
{
	unsigned int i;

	fprintf(f,
		"usage: rlwork <workload> [--threads N] [--runtime SEC] [--ramp SEC]\n"
		"              [--file PATH] [--size BYTES] [--bs BYTES] [--verify]\n"
		"              [--json PATH] [workload options...]\n"
		"       rlwork <workload> --help\n"
		"       rlwork --list\n"
		"       rlwork --fail-result --out FILE --error REASON [--args \"WORKLOAD OPTIONS\"] ...\n"
		"       rlwork --set-monitors --out FILE [--in FILE] [NAME=PATH...]\n"
		"\nworkloads:\n");
	for (i = 0; i < nworkloads; i++)
		fprintf(f, "  %-16s %s\n", workloads[i]->name,
			workloads[i]->summary);
	fprintf(f, "\nexit status: 0 ok, 1 measured failure (verification error, "
		"failed run), 2 bad input\n");
}

static const struct workload_ops *find_workload(const char *name)
{
	unsigned int i;

	for (i = 0; i < nworkloads; i++) {
		const struct op_decl *op = workloads[i]->ops;

		if (strcmp(workloads[i]->name, name))
			continue;
		/* per-thread stats are a fixed array: a bug, not bad input */
		while (op->name)
			op++;
		kinds_table_check(workloads[i], workloads[i]->kinds);
		if (op - workloads[i]->ops > RL_MAX_OPS) {
			fprintf(stderr, "rlwork: %s declares %d ops, more than RL_MAX_OPS (%d)\n",
				name, (int)(op - workloads[i]->ops), RL_MAX_OPS);
			abort();
		}
		return workloads[i];
	}
	return NULL;
}

static void workload_help(const struct workload_ops *wl)
{
	const struct op_decl *op;

	printf("rlwork %s: %s\n\n%s\n\n"
	       "ops (each reported when the options run it):",
	       wl->name, wl->summary, wl->help);
	for (op = wl->ops; op->name; op++) {
		const char *const *kinds = wl->kinds ? wl->kinds[op - wl->ops] :
					  NULL, *const *k;

		printf(" %s", op->name);
		/* the kinds each op is counted under (ops[].kinds) */
		for (k = kinds; k && *k; k++)
			printf("%s%s", k == kinds ? " (kinds: " : " ", *k);
		if (kinds)
			printf(")");
	}
	printf("\n\noptions of %s:\n", wl->name);
	opt_print_help(stdout, wl->opts);
	printf("\ncommon options:\n");
	opt_print_help(stdout, common_opts);
	if (wl->defaults)
		printf("\n%s overrides the common defaults: %s\n", wl->name,
		       wl->defaults);
}

static int common_check(struct rl_run *r, char *err, size_t len)
{
	const struct common_opts *o = &r->o;

	if (o->bs % (o->verify ? RL_PAGE : 512))
		return snprintf(err, len, "--bs: %llu is not a multiple of %u%s",
				(unsigned long long)o->bs,
				o->verify ? RL_PAGE : 512,
				o->verify ? " (needed by --verify)" : ""), -1;
	if (o->size % RL_PAGE)
		return snprintf(err, len, "--size: %llu is not a multiple of 4k",
				(unsigned long long)o->size), -1;
	if (o->bs > o->size)
		return snprintf(err, len, "--bs: %llu is larger than --size %llu",
				(unsigned long long)o->bs,
				(unsigned long long)o->size), -1;
	if (o->inject && !o->verify)
		return snprintf(err, len, "--inject-corruption needs --verify"), -1;
	if (placement_check(r, err, len))
		return -1;
	return result_path_check(r, true, err, len);
}

/*
 * --primary-op names an op this run times: the one a multi-role point
 * exists for (the punches that no longer wait for faults), which need
 * not be the workload's first op.
 */
static int primary_op_check(struct rl_run *r, char *err, size_t len)
{
	const struct op_decl *op;
	char names[256] = "";
	size_t n = 0;

	if (!r->o.primary_op)
		return 0;
	for (op = r->wl->ops; op->name; op++) {
		if (r->ops_off & (1u << (op - r->wl->ops)))
			continue;
		if (!strcmp(op->name, r->o.primary_op))
			return 0;
		n += snprintf(names + n, sizeof(names) - n, "%s%s",
			      n ? "|" : "", op->name);
		if (n >= sizeof(names))
			n = sizeof(names) - 1;
	}
	return snprintf(err, len, "--primary-op: '%s' is not an op this run "
			"times (%s)", r->o.primary_op, names), -1;
}

static void set_started(struct rl_run *r)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(r->started, sizeof(r->started), "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/*
 * Resolve and check ARGV, a workload's options, as a run does: -1 and the
 * line a run prints on bad input in err.
 */
static int resolve(struct rl_run *r, int argc, char **argv, char *err,
		   size_t len)
{
	struct opt_set sets[2] = {
		{ .defs = common_opts, .base = &r->o },
		{ .defs = r->wl->opts },
	};
	char why[512];

	r->wopts = calloc(1, r->wl->opts_size ? r->wl->opts_size : 1);
	sets[1].base = r->wopts;
	if (opt_defaults(sets, 2, r->wl->defaults, why, sizeof(why)) ||
	    opt_parse_argv(sets, 2, argc, argv, why, sizeof(why)))
		goto bad;
	r->o_given = sets[0].given;
	r->wopts_given = sets[1].given;
	if (common_check(r, why, sizeof(why)) ||
	    (r->wl->check && r->wl->check(r, why, sizeof(why))))
		goto bad;
	if (r->wl->unused_ops)
		r->ops_off = r->wl->unused_ops(r);
	if (primary_op_check(r, why, sizeof(why)))
		goto bad;
	r->kinds = r->wl->run_kinds ? r->wl->run_kinds(r) : r->wl->kinds;
	kinds_table_check(r->wl, r->kinds);
	return 0;
bad:
	snprintf(err, len, "rlwork %s: %s (see rlwork %s --help)",
		 r->wl->name, why, r->wl->name);
	return -1;
}

static int parse(struct rl_run *r, int argc, char **argv)
{
	struct opt_set sets[2] = {
		{ .defs = common_opts, .base = &r->o },
		{ .defs = r->wl->opts },
	};
	char err[700];

	if (resolve(r, argc, argv, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return EXIT_BADINPUT;
	}
	sets[1].base = r->wopts;
	/* stdout is for the JSON when it goes there or is all we produce */
	r->info = r->o.json && (r->o.dry_run || !strcmp(r->o.json, "-")) ?
		  stderr : stdout;
	fprintf(r->info, "rlwork %s: resolved options\n", r->wl->name);
	opt_print_resolved(r->info, sets, 2);
	fflush(r->info);
	return 0;
}

static struct rl_run *new_run(void)
{
	struct rl_run *r;

	if (posix_memalign((void **)&r, CACHELINE, sizeof(*r)))
		abort();
	memset(r, 0, sizeof(*r));
	r->t.fd = r->t.dfd = -1;
	return r;
}

struct rl_run *rl_point(int argc, char **argv, char *err, size_t len)
{
	struct rl_run *r = new_run();

	r->wl = argc ? find_workload(argv[0]) : NULL;
	if (!r->wl) {
		snprintf(err, len, "rlwork: unknown workload '%s' (rlwork --list names them)",
			 argc ? argv[0] : "");
		free(r);
		return NULL;
	}
	if (resolve(r, argc - 1, argv + 1, err, len)) {
		free(r->wopts);
		free(r);
		return NULL;
	}
	return r;
}

/*
 * rlwork --points: the dry run of every point of a matrix in one process
 * (runners/matrix ran one rlwork a point, most of its 30-100 ms a point).
 * Each line on stdin is a workload and its options, words separated by
 * single spaces (a matrix point's words hold no quotes or blanks); each
 * prints one line: "ok " and {"params":...,"workload":...} (compact,
 * keys sorted: equal strings are equal points), or "bad " and the line
 * the dry run of the same words prints on stderr. Exit 0 once stdin ends.
 */
static int check_points(void)
{
	size_t cap = 0;
	char *line = NULL, *tok, *save, *dump, err[700];
	char **argv = NULL;
	struct rl_run *r;
	ssize_t n;
	int argc;
	json_t *doc;

	while ((n = getline(&line, &cap, stdin)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = 0;
		argv = realloc(argv, (n / 2 + 2) * sizeof(*argv));
		argc = 0;
		for (tok = strtok_r(line, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save))
			argv[argc++] = strdup(tok);	/* kept: options point into it */
		r = rl_point(argc, argv, err, sizeof(err));
		if (!r) {
			printf("bad %s\n", err);
		} else {
			doc = json_pack("{s:s, s:o}", "workload", r->wl->name,
					"params", params_json(r));
			dump = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
			printf("ok %s\n", dump);
			free(dump);
			json_decref(doc);
		}
		fflush(stdout);
	}
	free(line);
	return 0;
}

/*
 * The CPUs the process may run on when it starts, e.g. one package under
 * hwloc-bind: --pin places the threads on these, in this order.
 */
static int allowed_cpus(struct rl_run *r)
{
	size_t n = 1024, size;
	cpu_set_t *set;
	unsigned int c;

	for (;;) {
		set = CPU_ALLOC(n);
		size = CPU_ALLOC_SIZE(n);
		if (!set)
			return -1;
		if (!sched_getaffinity(0, size, set))
			break;
		CPU_FREE(set);
		if (errno != EINVAL || n >= 1u << 20)
			return -1;
		n *= 2;
	}
	r->cpus = calloc(CPU_COUNT_S(size, set), sizeof(*r->cpus));
	if (!r->cpus) {
		CPU_FREE(set);
		return -1;
	}
	for (c = 0; c < n; c++)
		if (CPU_ISSET_S(c, size, set))
			r->cpus[r->ncpus++] = c;
	CPU_FREE(set);
	return r->ncpus ? 0 : -1;
}

static void final_verify(struct rl_run *r)
{
	char msg[256];

	if (r->o.inject) {
		if (oracle_inject(r->oracle, r->t.path, r->o.inject,
				  r->t.size, msg, sizeof(msg)))
			rl_fail(r, "%s", msg);
		fprintf(stderr, "rlwork: %s\n", msg);
	}
	if (oracle_verify_file(r->oracle, r->t.fd, r->t.size,
			       "final pass, page cache"))
		rl_fail(r, "final verification pass could not read the file");
	/* and once more from the disk, past whatever the cache holds */
	fsync(r->t.fd);
	posix_fadvise(r->t.fd, 0, 0, POSIX_FADV_DONTNEED);
	if (oracle_verify_file(r->oracle, r->t.fd, r->t.size,
			       "final pass, after dropping the cache"))
		rl_fail(r, "final verification pass could not read the file");
}

int main(int argc, char **argv)
{
	struct rl_run *r;
	int i, ret;

	/* from the start: a dry run's --json has a temp file too */
	rl_signals_init();
	workloads_init();
	if (argc < 2) {
		usage(stderr);
		return EXIT_BADINPUT;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--points"))
		return check_points();
	if (!strcmp(argv[1], "--fail-result"))
		return fail_result_main(argc - 2, argv + 2);
	if (!strcmp(argv[1], "--set-monitors"))
		return set_monitors_main(argc - 2, argv + 2);
	/* the names alone, one a line, for scripts and tests */
	if (!strcmp(argv[1], "--list")) {
		for (i = 0; i < (int)nworkloads; i++)
			printf("%s\n", workloads[i]->name);
		return 0;
	}
	r = new_run();
	r->wl = find_workload(argv[1]);
	if (!r->wl) {
		fprintf(stderr, "rlwork: unknown workload '%s' (valid:", argv[1]);
		for (i = 0; i < (int)nworkloads; i++)
			fprintf(stderr, "%s %s", i ? "," : "",
				workloads[i]->name);
		fprintf(stderr, ")\n");
		return EXIT_BADINPUT;
	}
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			workload_help(r->wl);
			return 0;
		}
	}
	ret = parse(r, argc - 2, argv + 2);
	if (ret)
		return ret;
	if (r->o.dry_run)
		return r->o.json ? report_point(r) : 0;
	if (r->o.pin && allowed_cpus(r)) {
		fprintf(stderr, "rlwork: --pin: sched_getaffinity: %s\n",
			strerror(errno));
		return EXIT_MEASURED;
	}

	/* from here SIGINT, SIGTERM and SIGHUP end the run cleanly */
	rl_signals_run();
	set_started(r);
	r->t.file_id = (uint32_t)(getpid() * 2654435761u ^ time(NULL));
	ret = target_open(r);
	if (ret)
		return ret;
	if (r->o.verify) {
		r->oracle = oracle_new(r->t.file_id, r->t.size / RL_PAGE);
		if (!r->oracle) {
			fprintf(stderr, "rlwork: --verify: out of memory for the oracle\n");
			target_abort(r);
			return EXIT_MEASURED;
		}
		if (r->t.sparse)	/* holes: nothing written yet */
			oracle_mark_filled(r->oracle, 0, r->t.size / RL_PAGE, 0);
	}
	r->nthreads = r->o.threads;
	r->bufsize = r->o.bs;
	ret = r->wl->setup ? r->wl->setup(r) : 0;
	if (ret) {
		target_abort(r);
		return ret;
	}
	if (rl_harness_run(r)) {
		fprintf(stderr, "rlwork %s: %s: %s; the run did not start%s\n",
			r->wl->name, r->o.file, r->setup_err, r->setup_limit ?
			" (accepted: a higher limit, or fewer --threads)" : "");
		target_abort(r);
		return r->setup_limit ? EXIT_BADINPUT : EXIT_MEASURED;
	}
	/* a signal after the threads stopped still fails the run */
	if (rl_interrupted && !r->failed)
		rl_fail(r, "interrupted by a signal");
	if (r->abandoned) {
		/* a thread is still in its op: nothing may be torn down under it */
		snprintf(r->fail_msg + strlen(r->fail_msg),
			 sizeof(r->fail_msg) - strlen(r->fail_msg),
			 " (%u threads still in an op were left to the exit)",
			 r->abandoned);
	} else {
		if (r->wl->teardown)
			r->wl->teardown(r);
		if (r->oracle)
			final_verify(r);
		if (rl_interrupted && !r->failed)
			rl_fail(r, "interrupted by a signal");
	}
	ret = report_write(r);
	if (r->failed)
		fprintf(stderr, "rlwork %s: failed: %s\n", r->wl->name,
			r->fail_msg);
	if (r->oracle && r->oracle->errors)
		fprintf(stderr, "rlwork %s: verification failed: %llu errors, first: %s\n",
			r->wl->name, (unsigned long long)r->oracle->errors,
			r->oracle->first_error);
	target_close(r);
	if (ret)
		return ret;
	if (r->failed || (r->oracle && r->oracle->errors))
		return EXIT_MEASURED;
	return 0;
}
