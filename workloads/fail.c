// SPDX-License-Identifier: GPL-2.0
/*
 * The runners' edits of a result document, so that report.c's
 * result_save() stays the one writer of rlbench-result/1:
 *
 *   rlwork --fail-result --out FILE --error REASON [--args "WORKLOAD OPTIONS"]
 *          [--iteration N] [--variant V] [--release R] [--runner qemu|bare|lava]
 *          [--accel A] [--point ID] [--log REL] [--excerpt-file F]
 *
 * When FILE holds no result, writes the "failed" document of the point
 * ARGS names (a point whose kernel died never wrote one): params resolved
 * here as its dry run resolves them, so it groups with its passing
 * iterations; env the --env pairs of ARGS (numbers as numbers, as a run
 * records them) overlaid with runner, accel, args and point. When FILE
 * holds an ok result, marks it failed with REASON (a console or fsck
 * verdict found after the point ended); one that failed already keeps its
 * first reason. LOG is the evidence's path relative to the run directory,
 * the excerpt the last 4000 bytes of F.
 *
 *   rlwork --set-monitors --out FILE [--in SRC] [--profile PATH]
 *                         [NAME=PATH...]
 *
 * Sets FILE's "monitors" object (each monitor's file, relative to the run
 * directory) and, with --profile, its "profile" object (the point's
 * instruction profile, {"insn": PATH}), the rest of the document as it
 * was; with --in, the document is read from SRC (a guest's share) and
 * FILE is written from it.
 *
 * Both write atomically; exit 0, 1 when the write fails, 2 on bad input,
 * which changes no file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rlwork.h"

#define EXCERPT_MAX	4000	/* bytes of the log's tail in log_excerpt */

static const char *const runner_names[] = { "qemu", "bare", "lava", NULL };

struct fail_opts {
	const char *out;
	const char *error;
	const char *args;
	uint64_t iteration;
	const char *variant;
	const char *release;
	unsigned int runner;
	const char *accel;
	const char *point;
	const char *log;
	const char *excerpt;
};

#define F(field) offsetof(struct fail_opts, field)

/* the runners pass their variables as they are: "" means not set */
static const struct opt_def fail_opts[] = {
	{ .name = "out", .type = OPT_STR, .off = F(out), NORANGE,
	  .help = "the result to write, or to mark failed (required)" },
	{ .name = "error", .type = OPT_STR, .off = F(error), NORANGE,
	  .help = "the reason, one line (required)" },
	{ .name = "args", .type = OPT_STR, .off = F(args), NORANGE,
	  .flags = OPT_EMPTY,
	  .help = "the point's rlwork arguments, a workload and its options; @ACCEL@ stands for --accel (needed when FILE holds no result)" },
	{ .name = "iteration", .type = OPT_INT, .off = F(iteration), .def = "1",
	  .min = 1, .max = 1000000,
	  .help = "iteration number recorded in the result" },
	{ .name = "variant", .type = OPT_STR, .off = F(variant), .def = "",
	  NORANGE, .flags = OPT_EMPTY,
	  .help = "kernel.variant (empty: null)" },
	{ .name = "release", .type = OPT_STR, .off = F(release),
	  .def = "unknown", NORANGE, .flags = OPT_EMPTY,
	  .help = "kernel.release: the uname -r of the kernel that ran" },
	{ .name = "runner", .type = OPT_ENUM, .off = F(runner), .def = "qemu",
	  NORANGE, .choices = runner_names,
	  .help = "env.runner" },
	{ .name = "accel", .type = OPT_STR, .off = F(accel), .def = "none",
	  NORANGE, .flags = OPT_EMPTY,
	  .help = "env.accel, the accelerator that ran" },
	{ .name = "point", .type = OPT_STR, .off = F(point), .def = "",
	  NORANGE, .flags = OPT_EMPTY,
	  .help = "env.point (empty: left out)" },
	{ .name = "log", .type = OPT_STR, .off = F(log), .def = "",
	  NORANGE, .flags = OPT_EMPTY,
	  .help = "the evidence's path relative to the run directory" },
	{ .name = "excerpt-file", .type = OPT_STR, .off = F(excerpt),
	  .def = "", NORANGE, .flags = OPT_EMPTY,
	  .help = "a file whose last 4000 bytes become log_excerpt (missing: none)" },
	OPT_END
};

struct mon_opts {
	const char *out;
	const char *in;
	const char *profile;
};

#define M(field) offsetof(struct mon_opts, field)

static const struct opt_def mon_opts[] = {
	{ .name = "out", .type = OPT_STR, .off = M(out), NORANGE,
	  .help = "the result to write (required)" },
	{ .name = "in", .type = OPT_STR, .off = M(in), NORANGE,
	  .help = "read the result from here instead of --out" },
	{ .name = "profile", .type = OPT_STR, .off = M(profile), NORANGE,
	  .help = "the point's instruction profile, relative to the run directory" },
	OPT_END
};

#define ACCEPTED_DOC "a result document rlwork wrote (schema rlbench-result/1)"

static int bad(const char *who, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* a refusal: one line naming the input and what is accepted, exit 2 */
static int bad(const char *who, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", who);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see %s --help)\n", who);
	return EXIT_BADINPUT;
}

/* length of the valid UTF-8 sequence (RFC 3629) at p, 0 if none starts */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (*p < 0x80)
		return 1;
	if (*p < 0xc2 || *p > 0xf4)
		return 0;
	len = *p < 0xe0 ? 2 : *p < 0xf0 ? 3 : 4;
	/* no overlong forms, no surrogates, nothing past U+10FFFF */
	if (*p == 0xe0)
		lo = 0xa0;
	else if (*p == 0xed)
		hi = 0x9f;
	else if (*p == 0xf0)
		lo = 0x90;
	else if (*p == 0xf4)
		hi = 0x8f;
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/*
 * S as UTF-8 without NULs, which is all jansson takes: a console holds
 * any byte, and a tail may start inside a character. A byte that starts
 * no valid sequence becomes U+FFFD, as jq made it.
 */
static char *utf8_clean(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	char *out = malloc(3 * n + 1), *o = out;
	size_t len;

	if (!out)
		abort();
	while (p < end) {
		len = utf8_len(p, end - p);
		if (!len) {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			p++;
			continue;
		}
		if (*p) {
			memcpy(o, p, len);
			o += len;
		}
		p += len;
	}
	*o = 0;
	return out;
}

static json_t *text(const char *s)
{
	char *c = utf8_clean(s, strlen(s));
	json_t *j = json_string(c);

	free(c);
	return j;
}

/*
 * The last EXCERPT_MAX bytes of PATH, trailing newlines dropped (as the
 * shell's $(tail -c) did); "" for no file, which a runner may not have.
 */
static char *excerpt_of(const char *path, char *err, size_t len)
{
	char buf[EXCERPT_MAX];
	struct stat st;
	ssize_t n = 0;
	int fd;

	if (!*path)
		return strdup("");
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return strdup("");
	if (fd < 0 || fstat(fd, &st))
		goto fail;
	if (S_ISREG(st.st_mode))
		n = pread(fd, buf, sizeof(buf), st.st_size > EXCERPT_MAX ?
			  st.st_size - EXCERPT_MAX : 0);
	if (n < 0)
		goto fail;
	close(fd);
	while (n && buf[n - 1] == '\n')
		n--;
	return utf8_clean(buf, n);
fail:
	snprintf(err, len, "--excerpt-file: '%s': %s; accepted: a readable file, or none",
		 path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* PATH's rlbench-result/1 document, or NULL and why in err */
static json_t *load_result(const char *path, char *err, size_t len)
{
	json_error_t je;
	struct stat st;
	json_t *doc;
	const char *schema;

	if (lstat(path, &st)) {
		snprintf(err, len, "'%s': %s; accepted: " ACCEPTED_DOC,
			 path, strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, len, "'%s' is not a regular file; accepted: " ACCEPTED_DOC,
			 path);
		return NULL;
	}
	doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		snprintf(err, len, "'%s' is not a JSON document (line %d: %s); accepted: " ACCEPTED_DOC,
			 path, je.line, je.text);
		return NULL;
	}
	schema = json_string_value(json_object_get(doc, "schema"));
	if (!json_is_object(doc) || !schema ||
	    strcmp(schema, "rlbench-result/1")) {
		snprintf(err, len, "'%s' is not an rlbench-result/1 document; accepted: " ACCEPTED_DOC,
			 path);
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* a new file needs its directory: refused here, not as a failed write */
static int dir_exists(const char *path)
{
	char *copy = strdup(path);
	struct stat st;
	int ret = !stat(dirname(copy), &st) && S_ISDIR(st.st_mode);

	free(copy);
	return ret;
}

/* S with every FROM replaced by TO */
static char *replace_all(const char *s, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to), n = 0;
	const char *p;
	char *out, *o;

	for (p = s; (p = strstr(p, from)); p += fl)
		n++;
	out = malloc(strlen(s) + n * tl + 1);
	if (!out)
		abort();
	for (o = out; (p = strstr(s, from)); s = p + fl) {
		memcpy(o, s, p - s);
		o += p - s;
		memcpy(o, to, tl);
		o += tl;
	}
	strcpy(o, s);
	return out;
}

#define FAIL_WHO "rlwork --fail-result"

/* an ok result marked failed; a failed one keeps its first reason */
static int mark_failed(const struct fail_opts *o, const char *excerpt)
{
	const char *status;
	char err[PATH_MAX + 300];
	json_t *doc;
	int ret = 0;

	doc = load_result(o->out, err, sizeof(err));
	if (!doc)
		return bad(FAIL_WHO, "--out: %s", err);
	status = json_string_value(json_object_get(doc, "status"));
	if (status && !strcmp(status, "ok")) {
		json_object_set_new(doc, "status", json_string("failed"));
		json_object_set_new(doc, "error", text(o->error));
		if (*o->log)
			json_object_set_new(doc, "log", text(o->log));
		if (*excerpt)
			json_object_set_new(doc, "log_excerpt",
					    json_string(excerpt));
		ret = result_save(o->out, doc, FAIL_WHO, NULL);
	}
	json_decref(doc);
	return ret;
}

/* where a point that never reported ran, as the runner knows it */
static json_t *runner_kernel(const struct fail_opts *o)
{
	return json_pack("{s:o, s:o, s:n, s:n}",
			 "variant", *o->variant ? text(o->variant) : json_null(),
			 "release", text(o->release), "strategy", "features");
}

static json_t *runner_env(const struct fail_opts *o, const struct rl_run *r,
			  const char *args)
{
	json_t *env = json_object();

	env_pairs(r, env);
	json_object_set_new(env, "runner",
			    json_string(runner_names[o->runner]));
	json_object_set_new(env, "accel", text(o->accel));
	json_object_set_new(env, "args", json_string(args));
	if (*o->point)
		json_object_set_new(env, "point", text(o->point));
	return env;
}

/* the failed document of a point that left none, through result_doc() */
static int new_failed(const struct fail_opts *o, const char *excerpt)
{
	char *raw, *args, *copy, *tok, *save, **argv, err[1024];
	struct rl_run *r;
	int argc = 0, ret;
	json_t *doc;

	if (!o->args || !*o->args)
		return bad(FAIL_WHO, "--args: empty, and --out '%s' holds no result to mark failed; accepted: the point's rlwork arguments (a workload and its options)",
			   o->out);
	if (!dir_exists(o->out))
		return bad(FAIL_WHO, "--out: the directory of '%s' does not exist; accepted: a path in an existing directory",
			   o->out);
	raw = replace_all(o->args, "@ACCEL@", o->accel);
	args = utf8_clean(raw, strlen(raw));
	free(raw);
	/* blanks only, as the runners' read -a split a plan's words */
	copy = strdup(args);	/* kept: the options point into it */
	argv = calloc(strlen(copy) / 2 + 2, sizeof(*argv));
	for (tok = strtok_r(copy, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save))
		argv[argc++] = tok;
	/*
	 * A test hook (@panic, @hang) is a plan line the guest runs itself,
	 * no workload of rlwork's: its document has the shape of one (an
	 * empty run of calib's), its own name and no params.
	 */
	if (argc && argv[0][0] == '@') {
		char *calib[] = { "calib", NULL };

		r = rl_point(1, calib, err, sizeof(err));
	} else {
		r = rl_point(argc, argv, err, sizeof(err));
	}
	if (!r) {
		ret = bad(FAIL_WHO, "--args '%s': %s", args, err);
		free(args);
		return ret;
	}
	r->o.iteration = o->iteration;
	doc = result_doc(r, "failed", NULL, runner_kernel(o),
			 runner_env(o, r, args));
	if (argv[0][0] == '@') {
		json_object_set_new(doc, "workload", json_string(argv[0]));
		json_object_set_new(doc, "params", json_object());
	}
	json_object_set_new(doc, "error", text(o->error));
	json_object_set_new(doc, "log", *o->log ? text(o->log) : json_null());
	json_object_set_new(doc, "log_excerpt", json_string(excerpt));
	ret = result_save(o->out, doc, FAIL_WHO, NULL);
	json_decref(doc);
	free(args);
	return ret;
}

static bool wants_help(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

static void help(const char *synopsis, const struct opt_def *defs)
{
	printf("usage: %s\n\noptions:\n", synopsis);
	opt_print_help(stdout, defs);
	printf("\nexit status: 0 written (or nothing to change), 1 the write failed, 2 bad input (no file changed)\n");
}

int fail_result_main(int argc, char **argv)
{
	struct fail_opts o = { 0 };
	struct opt_set set = { .defs = fail_opts, .base = &o };
	char err[PATH_MAX + 300], *excerpt;
	struct stat st;
	int ret;

	if (wants_help(argc, argv)) {
		help(FAIL_WHO " --out FILE --error REASON [options]", fail_opts);
		return 0;
	}
	if (opt_defaults(&set, 1, NULL, err, sizeof(err)) ||
	    opt_parse_argv(&set, 1, argc, argv, err, sizeof(err)))
		return bad(FAIL_WHO, "%s", err);
	if (!o.out || !o.error)
		return bad(FAIL_WHO, "need --out FILE and --error REASON");
	excerpt = excerpt_of(o.excerpt, err, sizeof(err));
	if (!excerpt)
		return bad(FAIL_WHO, "%s", err);
	if (!lstat(o.out, &st) || errno != ENOENT)
		ret = mark_failed(&o, excerpt);
	else
		ret = new_failed(&o, excerpt);
	free(excerpt);
	return ret;
}

/* NAME=PATH: a monitor's name and its file, relative to the run directory */
static int add_monitor(json_t *mons, const char *pair)
{
	const char *eq = strchr(pair, '=');
	char name[65];

	if (!eq || eq == pair || eq - pair >= (ptrdiff_t)sizeof(name) ||
	    !eq[1] || eq[1] == '/')
		return -1;
	memcpy(name, pair, eq - pair);
	name[eq - pair] = 0;
	if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != strlen(name))
		return -1;
	json_object_set_new(mons, name, text(eq + 1));
	return 0;
}

#define MON_WHO "rlwork --set-monitors"

int set_monitors_main(int argc, char **argv)
{
	struct mon_opts o = { 0 };
	struct opt_set set = { .defs = mon_opts, .base = &o };
	char err[PATH_MAX + 300];
	json_t *mons, *doc;
	int nopt = 0, i, ret;

	if (wants_help(argc, argv)) {
		help(MON_WHO " --out FILE [--in SRC] [--profile PATH] [NAME=PATH...]",
		     mon_opts);
		return 0;
	}
	/* the options, then the pairs: every option here takes a value */
	while (nopt < argc && !strncmp(argv[nopt], "--", 2))
		nopt += strchr(argv[nopt], '=') ? 1 : 2;
	if (nopt > argc)
		nopt = argc;
	if (opt_defaults(&set, 1, NULL, err, sizeof(err)) ||
	    opt_parse_argv(&set, 1, nopt, argv, err, sizeof(err)))
		return bad(MON_WHO, "%s", err);
	if (!o.out)
		return bad(MON_WHO, "need --out FILE");
	if (!dir_exists(o.out))
		return bad(MON_WHO, "--out: the directory of '%s' does not exist; accepted: a path in an existing directory",
			   o.out);
	mons = json_object();
	for (i = nopt; i < argc; i++) {
		if (add_monitor(mons, argv[i])) {
			json_decref(mons);
			return bad(MON_WHO, "'%s' is not NAME=PATH; accepted: a monitor's name ([A-Za-z0-9_-], 1-64 characters), '=' and its file's path relative to the run directory",
				   argv[i]);
		}
	}
	doc = load_result(o.in ? o.in : o.out, err, sizeof(err));
	if (!doc) {
		json_decref(mons);
		return bad(MON_WHO, "%s: %s", o.in ? "--in" : "--out", err);
	}
	/* no pairs: no monitor left a file, and the document stays as it is */
	if (json_object_size(mons))
		json_object_set(doc, "monitors", mons);
	if (o.profile && *o.profile)
		json_object_set_new(doc, "profile",
				    json_pack("{s:o}", "insn", text(o.profile)));
	ret = result_save(o.out, doc, MON_WHO, NULL);
	json_decref(mons);
	json_decref(doc);
	return ret;
}
