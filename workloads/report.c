// SPDX-License-Identifier: GPL-2.0
/*
 * Collection and output: merge per-thread counters (histograms by adding
 * counts), print a summary, write the result JSON of docs/formats.md
 * atomically (temp file, fsync, rename) to a path that replaces nothing
 * but a result rlwork wrote.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "oracle.h"
#include "rlwork.h"

static const char *const pct_names[] = { "50", "90", "99", "99.9", "99.99" };
static const double pct_values[] = { 50, 90, 99, 99.9, 99.99 };

static unsigned int nops(const struct rl_run *r)
{
	unsigned int n = 0;

	while (r->wl->ops[n].name)
		n++;
	return n;
}

static unsigned int ncounters(const struct rl_run *r)
{
	unsigned int n = 0;

	while (r->wl->counters && r->wl->counters[n].name)
		n++;
	return n;
}

static void merge_op(const struct rl_run *r, unsigned int op,
		     struct op_stats *s)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	hist_init(&s->h);
	for (i = 0; i < r->nthreads; i++) {
		s->count += r->workers[i]->stats[op].count;
		s->bytes += r->workers[i]->stats[op].bytes;
		if (r->workers[i]->stats[op].unfinished > s->unfinished)
			s->unfinished = r->workers[i]->stats[op].unfinished;
		hist_merge(&s->h, &r->workers[i]->stats[op].h);
	}
}

/*
 * Threads that issued op: fewer than all of them means the point has
 * roles, and in cost mode each role is charged the others' instructions.
 */
static unsigned int op_threads(const struct rl_run *r, unsigned int op)
{
	unsigned int i, n = 0;

	for (i = 0; i < r->nthreads; i++)
		n += r->workers[i]->stats[op].count > 0;
	return n;
}

static uint64_t merge_counter(const struct rl_run *r, unsigned int c)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < r->nthreads; i++)
		sum += r->workers[i]->counters[c];
	return sum;
}

static json_t *hist_json(const struct hist *h)
{
	json_t *counts = json_object();
	unsigned int i;
	char key[16];

	for (i = 0; i < HIST_BUCKETS; i++) {
		if (!h->counts[i])
			continue;
		snprintf(key, sizeof(key), "%u", i);
		json_object_set_new(counts, key, json_integer(h->counts[i]));
	}
	return json_pack("{s:i, s:o}", "bits", HIST_BITS, "counts", counts);
}

static json_t *lat_json(const struct hist *h)
{
	json_t *pct = json_object();
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pct_names); i++)
		json_object_set_new(pct, pct_names[i],
			json_integer(hist_percentile(h, pct_values[i])));
	return json_pack("{s:I, s:f, s:I, s:f, s:o, s:o}",
			 "min", (json_int_t)(h->total ? h->min : 0),
			 "mean", hist_mean(h),
			 "max", (json_int_t)h->max,
			 "stddev", hist_stddev(h),
			 "percentiles", pct, "hist", hist_json(h));
}

/*
 * A wide request's wait (ops[].wait_ns): its time from call to return,
 * which is what userspace sees of the lock wait. The exact max bounds
 * every quantile, so the histogram's p99 (a bucket midpoint, up to half
 * a bucket above the value) is capped at it: p99 <= max always holds.
 */
static uint64_t wait_p99(const struct hist *h)
{
	uint64_t p = hist_percentile(h, 99);

	return p > h->max ? h->max : p;
}

static json_t *wait_json(const struct op_stats *s)
{
	double mean = hist_mean(&s->h);

	/* sum / count in doubles may round one ulp past the max it is under */
	if (mean > s->h.max)
		mean = s->h.max;
	return json_pack("{s:I, s:f, s:I, s:I, s:I}",
			 "count", (json_int_t)s->h.total,
			 "mean", mean,
			 "p99", (json_int_t)wait_p99(&s->h),
			 "max", (json_int_t)s->h.max,
			 "unfinished", (json_int_t)s->unfinished);
}

static json_t *param_value(const struct opt_def *d, const void *base)
{
	const void *p = opt_ptr(d, base);

	switch (d->type) {
	case OPT_INT:
	case OPT_SIZE:
		return json_integer(*(const uint64_t *)p);
	case OPT_DOUBLE:
		return json_real(*(const double *)p);
	case OPT_BOOL:
		return json_boolean(*(const bool *)p);
	case OPT_ENUM:
		return json_string(d->choices[*(const unsigned int *)p]);
	case OPT_STR:
		return *(const char *const *)p ?
			json_string(*(const char *const *)p) : json_null();
	default:
		return NULL;
	}
}

json_t *params_json(const struct rl_run *r)
{
	const struct opt_set sets[] = {
		{ .defs = common_opts, .base = (void *)&r->o },
		{ .defs = r->wl->opts, .base = r->wopts },
	};
	json_t *params = json_object();
	const struct opt_def *d;
	unsigned int i;

	/* an unset string option (--primary-op) is no parameter */
	for (i = 0; i < ARRAY_SIZE(sets); i++)
		for (d = sets[i].defs; d && d->name; d++) {
			json_t *v;

			if ((d->flags & (OPT_NOPARAM | OPT_HIDDEN)) ||
			    ((d->flags & OPT_PARAM_ON) &&
			     !*(const bool *)opt_ptr(d, sets[i].base)))
				continue;
			v = param_value(d, sets[i].base);
			if (json_is_null(v))
				json_decref(v);
			else
				json_object_set_new(params, d->name, v);
		}
	placement_params(r, params);
	return params;
}

static json_t *read_strategy(void)
{
	char buf[64];
	FILE *f = fopen("/sys/kernel/mapping_lock/strategy", "r");
	size_t n;

	if (!f)
		return json_null();
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = 0;
	return n ? json_string(buf) : json_null();
}

/*
 * The features the kernel was built with, as it prints them (0013): an
 * array of words; null on a kernel without the file (stock 6.12, a host
 * kernel), which has none the suite knows of.
 */
static json_t *read_features(void)
{
	char buf[256], *tok, *save;
	FILE *f = fopen("/sys/kernel/mapping_lock/features", "r");
	json_t *a;
	size_t n;

	if (!f)
		return json_null();
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	a = json_array();
	for (tok = strtok_r(buf, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save))
		json_array_append_new(a, json_string(tok));
	return a;
}

static json_t *kernel_json(const struct rl_run *r)
{
	struct utsname u;

	uname(&u);
	return json_pack("{s:o, s:s, s:o, s:o}",
			 "variant", r->o.variant ? json_string(r->o.variant) :
						   json_null(),
			 "release", u.release, "strategy", read_strategy(),
			 "features", read_features());
}

static json_t *kv_value(const char *s)
{
	char *end;
	long long i;
	double d;

	if (!*s)
		return json_string(s);
	errno = 0;
	i = strtoll(s, &end, 10);
	if (!*end && !errno)
		return json_integer(i);
	d = strtod(s, &end);
	if (!*end && !errno && d == d)
		return json_real(d);
	return json_string(s);
}

/* every --env KEY=VALUE into env, numbers as numbers; --env wins */
void env_pairs(const struct rl_run *r, json_t *env)
{
	unsigned int i;

	for (i = 0; i < r->o.env.n; i++)
		json_object_set_new(env, r->o.env.v[i].key,
				    kv_value(r->o.env.v[i].value));
}

static json_t *env_json(const struct rl_run *r)
{
	struct sysinfo si;
	json_t *env;

	sysinfo(&si);
	env = json_pack("{s:i, s:I, s:s, s:s, s:b}",
			"cpus", (int)sysconf(_SC_NPROCESSORS_ONLN),
			"mem_mb", (json_int_t)((uint64_t)si.totalram *
					       si.mem_unit >> 20),
			"fs", r->t.fstype, "started", r->started,
			"pinned", r->o.pin);
	env_pairs(r, env);
	placement_env(r, env);
	return env;
}

static void add_metric(json_t *m, const char *op, const char *what,
		       const char *unit, bool higher)
{
	char name[128];

	snprintf(name, sizeof(name), "%s%s%s", op, *op ? "." : "", what);
	json_array_append_new(m, json_pack("{s:s, s:s, s:b}", "name", name,
					   "unit", unit,
					   "higher_is_better", higher));
}

static void op_metrics(json_t *m, const struct op_decl *op)
{
	add_metric(m, op->name, "ops_per_s", "ops/s", true);
	if (op->io)
		add_metric(m, op->name, "bytes_per_s", "B/s", true);
	add_metric(m, op->name, "lat_ns.p50", "ns", false);
	add_metric(m, op->name, "lat_ns.p99", "ns", false);
	add_metric(m, op->name, "lat_ns.p99.9", "ns", false);
}

/* the first op's rate is the one a comparison gates (--primary-op) */
static json_t *metrics_json(const struct rl_run *r)
{
	const char *primary = r->o.primary_op;
	const struct counter_decl *c;
	const struct op_decl *op;
	json_t *m = json_array();
	char name[96];

	for (op = r->wl->ops; primary && op->name; op++)
		if (!strcmp(op->name, primary))
			op_metrics(m, op);
	for (op = r->wl->ops; op->name; op++) {
		if (r->ops_off & (1u << (op - r->wl->ops)))
			continue;
		if (!primary || strcmp(op->name, primary))
			op_metrics(m, op);
	}
	for (c = r->wl->counters; c && c->name; c++) {
		if (!c->better)
			continue;
		snprintf(name, sizeof(name), "counters.%s", c->name);
		add_metric(m, "", name, c->unit, c->better > 0);
	}
	return m;
}

static json_t *verify_json(const struct rl_run *r)
{
	const struct oracle *o = r->oracle;

	if (!o)
		return json_pack("{s:b, s:i, s:i, s:n}", "enabled", 0,
				 "checked", 0, "errors", 0, "first_error");
	return json_pack("{s:b, s:I, s:I, s:I, s:o}", "enabled", 1,
			 "checked", (json_int_t)o->checked,
			 "racy", (json_int_t)o->racy,
			 "errors", (json_int_t)o->errors,
			 "first_error", o->errors ?
				json_string(o->first_error) : json_null());
}

/*
 * The result document, given where the point ran (kernel and env, which
 * the caller hands over). A point whose threads never started (a runner's
 * failed point: r->workers is NULL) measured nothing: no ops, counters or
 * metrics, 0 s and 0 workers.
 */
json_t *result_doc(const struct rl_run *r, const char *status,
		   const char *error, json_t *kernel, json_t *env)
{
	json_t *ops = json_array(), *counters = json_object(), *doc;
	double t = r->measured_s > 0 ? r->measured_s : 1;
	unsigned int i;
	struct op_stats *s = malloc(sizeof(*s));

	for (i = 0; r->workers && i < nops(r); i++) {
		if (r->ops_off & (1u << i))
			continue;
		json_t *op, *kinds = op_kinds_json(r, i);

		merge_op(r, i, s);
		op = json_pack("{s:s, s:I, s:i, s:f, s:f, s:o}",
			"name", r->wl->ops[i].name,
			"count", (json_int_t)s->count,
			"threads", (int)op_threads(r, i),
			"ops_per_s", s->count / t,
			"bytes_per_s", r->wl->ops[i].io ? s->bytes / t : 0.0,
			"lat_ns", lat_json(&s->h));
		if (kinds)
			json_object_set_new(op, "kinds", kinds);
		if (r->wl->wait_ops & (1u << i))
			json_object_set_new(op, "wait_ns", wait_json(s));
		json_array_append_new(ops, op);
	}
	free(s);
	for (i = 0; r->workers && i < ncounters(r); i++)
		json_object_set_new(counters, r->wl->counters[i].name,
				    json_integer(merge_counter(r, i)));
	doc = json_pack("{s:s, s:s, s:o, s:I, s:f, s:f, s:o, s:o, s:o,"
			" s:o, s:o, s:o, s:s, s:i}",
			"schema", "rlbench-result/1",
			"workload", r->wl->name,
			"params", params_json(r),
			"iteration", (json_int_t)r->o.iteration,
			"runtime_s", r->measured_s,
			"ramp_s", r->o.ramp,
			"kernel", kernel,
			"env", env,
			"ops", ops,
			"counters", counters,
			"metrics", r->workers ? metrics_json(r) : json_array(),
			"verify", verify_json(r),
			"status", status,
			"workers", r->workers ? (int)r->nthreads : 0);
	if (error)
		json_object_set_new(doc, "error", json_string(error));
	return doc;
}

static void print_summary(const struct rl_run *r)
{
	struct op_stats *s = malloc(sizeof(*s));
	FILE *f = r->info;
	double t = r->measured_s > 0 ? r->measured_s : 1;
	unsigned int i;

	fprintf(f, "rlwork %s: %u threads, %.2f s measured\n", r->wl->name,
	       r->nthreads, r->measured_s);
	fprintf(f, "  %-13s %12s %12s %9s %9s %9s %10s %10s\n", "op", "count",
	       "ops/s", "MiB/s", "p50(us)", "p99(us)", "p99.9(us)",
	       "max(us)");
	for (i = 0; i < nops(r); i++) {
		if (r->ops_off & (1u << i))
			continue;
		merge_op(r, i, s);
		fprintf(f, "  %-13s %12llu %12.1f %9.1f %9.1f %9.1f %9.1f %10.1f\n",
		       r->wl->ops[i].name, (unsigned long long)s->count,
		       s->count / t, s->bytes / t / 1048576.0,
		       hist_percentile(&s->h, 50) / 1e3,
		       hist_percentile(&s->h, 99) / 1e3,
		       hist_percentile(&s->h, 99.9) / 1e3, s->h.max / 1e3);
		print_kinds(r, i);
		if (r->wl->wait_ops & (1u << i))
			fprintf(f, "    wait: %llu requests, mean %.1f us, p99 %.1f us, max %.1f us, unfinished %.1f us\n",
				(unsigned long long)s->h.total,
				hist_mean(&s->h) / 1e3, wait_p99(&s->h) / 1e3,
				s->h.max / 1e3, s->unfinished / 1e3);
	}
	free(s);
	for (i = 0; i < ncounters(r); i++)
		fprintf(f, "  %-13s %12llu\n", r->wl->counters[i].name,
		       (unsigned long long)merge_counter(r, i));
	if (r->oracle)
		fprintf(f, "  verify: %llu pages checked, %llu racy, %llu errors\n",
		       (unsigned long long)r->oracle->checked,
		       (unsigned long long)r->oracle->racy,
		       (unsigned long long)r->oracle->errors);
	else
		fprintf(f, "  verify: off\n");
	fflush(f);
}

/* a new name never replaces a file that appeared since the check */
static int rename_into(const char *tmp, const char *path)
{
	struct stat st;

	if (lstat(path, &st) && errno == ENOENT) {
		if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE))
			return 0;
		/* 9p, NFS and older filesystems have no RENAME_NOREPLACE */
		if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
			return -1;
	}
	return rename(tmp, path);
}

/*
 * To PATH, atomically (temp file in the same directory, fsync, rename) so
 * a reader never sees half a document and a failure leaves PATH as it
 * was. "-" is stdout. The temp file carries the user.rlwork mark, which
 * the rename keeps: a later run may replace PATH. RUN: a run's --json,
 * checked again against its rules just before the rename; NULL: the
 * caller checked PATH (it read the document there, or found nothing).
 * Either way a file that appeared at a new PATH is never replaced.
 * Returns an exit code; WHO starts its messages.
 */
static int write_file(const char *path, json_t *doc, const char *who,
		      const struct rl_run *run)
{
	const size_t flags = JSON_INDENT(1) | JSON_SORT_KEYS;
	char tmp[PATH_MAX], err[PATH_MAX + 256], *copy;
	sigset_t old;
	mode_t mask;
	FILE *f;
	int fd, e;

	if (!strcmp(path, "-")) {
		if (json_dumpf(doc, stdout, flags) || putchar('\n') == EOF ||
		    fflush(stdout))
			goto fail;
		return 0;
	}
	copy = strdup(path);
	snprintf(tmp, sizeof(tmp), "%s/.rlwork-XXXXXX", dirname(copy));
	free(copy);
	/* a fatal signal removes the temp file from its creation on */
	rl_signals_block(&old);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd >= 0)
		rl_doomed_set(RL_DOOMED_TEMP, tmp, fd);
	e = errno;
	rl_signals_restore(&old);
	errno = e;
	if (fd < 0)
		goto fail;
	/* what fopen(path, "w") would have made, not mkstemp's 0600 */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) || !(f = fdopen(fd, "w"))) {
		e = errno;
		close(fd);
		errno = e;
		goto fail_unlink;
	}
	if (json_dumpf(doc, f, flags) || fputc('\n', f) == EOF || fflush(f) ||
	    fsync(fileno(f))) {
		e = errno;
		fclose(f);
		errno = e;
		goto fail_unlink;
	}
	/* after the writes: the mark records the size and mtime they left */
	owner_mark(fd, "result");	/* else only --force replaces it */
	if (fclose(f))
		goto fail_unlink;
	if (run && result_path_check(run, false, err, sizeof(err))) {
		unlink(tmp);
		fprintf(stderr, "%s: %s\n", who, err);
		return EXIT_BADINPUT;
	}
	if (rename_into(tmp, path)) {
		if (errno == EEXIST) {
			unlink(tmp);
			fprintf(stderr, "%s: %s'%s' appeared %s; refusing to replace it\n",
				who, run ? "--json: " : "", path,
				run ? "during the run" : "since it was checked");
			return EXIT_BADINPUT;
		}
		goto fail_unlink;
	}
	return 0;
fail_unlink:
	e = errno;
	unlink(tmp);
	errno = e;
fail:
	fprintf(stderr, "%s: writing %s: %s\n", who, path, strerror(errno));
	return EXIT_MEASURED;
}

/* the one writer of result documents, for a run and for the runners */
int result_save(const char *path, json_t *doc, const char *who,
		const struct rl_run *run)
{
	int ret = write_file(path, doc, who, run);

	/* renamed or removed: the temp file is no signal's business any more */
	rl_doomed_clear(RL_DOOMED_TEMP);
	return ret;
}

/* a run's --json: its own result or (a dry run) its point document */
static int write_doc(const struct rl_run *r, json_t *doc)
{
	char who[80];

	snprintf(who, sizeof(who), "rlwork %s", r->wl->name);
	return result_save(r->o.json, doc, who, r);
}

int report_write(struct rl_run *r)
{
	const char *status = "ok", *error = NULL;
	char err[600];
	json_t *doc;
	int ret;

	print_summary(r);
	if (r->failed) {
		status = "failed";
		error = r->fail_msg;
	} else if (r->oracle && r->oracle->errors) {
		status = "failed";
		snprintf(err, sizeof(err), "verification: %llu errors, first: %s",
			 (unsigned long long)r->oracle->errors,
			 r->oracle->first_error);
		error = err;
	}
	if (!r->o.json)
		return 0;
	doc = result_doc(r, status, error, kernel_json(r), env_json(r));
	ret = write_doc(r, doc);
	json_decref(doc);
	return ret;
}

/*
 * The point a dry run resolves to: the params a run of the same command
 * line would report, for a runner whose run died before writing a result.
 */
int report_point(struct rl_run *r)
{
	json_t *doc;
	int ret;

	doc = json_pack("{s:s, s:s, s:o}", "schema", "rlbench-point/1",
			"workload", r->wl->name, "params", params_json(r));
	ret = write_doc(r, doc);
	json_decref(doc);
	return ret;
}
