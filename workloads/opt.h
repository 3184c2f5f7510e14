/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Option tables in the fio options.c style: every option is one row (name,
 * type, offset into a struct, default, range, help) and all parsing happens
 * in opt.c, for the common table and the workload's table alike.
 */
#ifndef RLWORK_OPT_H
#define RLWORK_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum opt_type {
	OPT_INT,	/* uint64_t, plain number */
	OPT_SIZE,	/* uint64_t, bytes, k/m/g/t suffixes (powers of 1024) */
	OPT_DOUBLE,	/* double, e.g. seconds */
	OPT_BOOL,	/* bool: --x, --x=1|0|yes|no|true|false */
	OPT_ENUM,	/* unsigned int index into choices[] */
	OPT_STR,	/* const char * */
	OPT_KV,		/* struct kv_list: repeatable KEY=VALUE */
};

/* row flags */
#define OPT_NOPARAM	(1u << 0)	/* not part of the result's "params" */
#define OPT_HIDDEN	(1u << 1)	/* not in --help: test-only */
#define OPT_EMPTY	(1u << 2)	/* OPT_STR: "" is a value (a runner's unset one) */
/*
 * OPT_BOOL: in "params" only when on, so the points of results from
 * before the option keep their params (and their history series)
 */
#define OPT_PARAM_ON	(1u << 3)

/*
 * One row, written with designated initializers:
 *	{ .name = "bs", .type = OPT_SIZE, .off = O(bs), .def = "4k",
 *	  .min = 512, .max = 64 << 20, .help = "bytes per IO" },
 * A numeric row states its range or NORANGE: an omitted range would read
 * as 0..0, so opt_defaults() refuses that as a broken table.
 */
struct opt_def {
	const char *name;
	enum opt_type type;
	size_t off;
	const char *def;	/* default, parsed like the command line; NULL: unset */
	double min, max;	/* numeric types; ignored when min > max */
	const char *const *choices;	/* OPT_ENUM, NULL-terminated */
	const char *help;
	unsigned int flags;
};

#define NORANGE		.min = 1, .max = 0

#define OPT_END { .name = NULL }

struct kv {
	const char *key;
	const char *value;
};

struct kv_list {
	unsigned int n;
	struct kv *v;
};

/* one table bound to the struct its offsets point into */
struct opt_set {
	const struct opt_def *defs;
	void *base;
	uint64_t given;		/* bit i: row i was on the command line */
};

/*
 * Apply defaults, then "name=value,name=value" overrides (a workload's own
 * defaults for common options), then argv. On bad input, writes a one-line
 * message to err and returns -1.
 */
int opt_defaults(struct opt_set *sets, int nsets, const char *overrides,
		 char *err, size_t errlen);
int opt_parse_argv(struct opt_set *sets, int nsets, int argc, char **argv,
		   char *err, size_t errlen);
int opt_parse_size(const char *s, uint64_t *out);
void opt_print_help(FILE *f, const struct opt_def *defs);
void opt_print_resolved(FILE *f, const struct opt_set *sets, int nsets);
/*
 * Whether the command line set the row NAME of a table, as fio's
 * fio_option_is_set(): a default and an explicit value can mean different
 * things (mmap-punch: --fault-threads replaces --threads).
 */
int opt_is_set(const struct opt_def *defs, uint64_t given, const char *name);
/* the value of a row as a string (static buffer) */
const char *opt_value_str(const struct opt_def *d, const void *base);

static inline void *opt_ptr(const struct opt_def *d, const void *base)
{
	return (char *)base + d->off;
}

#endif
