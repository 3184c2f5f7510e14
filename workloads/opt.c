// SPDX-License-Identifier: GPL-2.0
/* Option parsing for every table; see opt.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "opt.h"

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

int opt_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	/* "4k", "4kb", "4KiB" and "4096b" all mean the same */
	if (shift && (*end == 'i' || *end == 'I'))
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end)
		return -1;
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

static int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "1", "yes", "true", "on", NULL };
	static const char *const no[] = { "0", "no", "false", "off", NULL };
	int i;

	for (i = 0; yes[i]; i++)
		if (!strcasecmp(s, yes[i]))
			return *out = true, 0;
	for (i = 0; no[i]; i++)
		if (!strcasecmp(s, no[i]))
			return *out = false, 0;
	return -1;
}

static void choices_str(const struct opt_def *d, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = 0;
	for (i = 0; d->choices[i] && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s",
				 i ? "|" : "", d->choices[i]);
}

static const char *size_str(uint64_t v)
{
	static char bufs[2][32];
	static int which;
	char *buf = bufs[which ^= 1];
	static const char sfx[] = "kmgt";
	int i = -1;

	while (v && !(v & 1023) && i < 3) {
		v >>= 10;
		i++;
	}
	if (i < 0)
		snprintf(buf, sizeof(bufs[0]), "%llu", (unsigned long long)v);
	else
		snprintf(buf, sizeof(bufs[0]), "%llu%c", (unsigned long long)v,
			 sfx[i]);
	return buf;
}

static const char *range_str(const struct opt_def *d)
{
	static char buf[96];

	if (d->min > d->max)
		return "";
	if (d->type == OPT_DOUBLE)
		snprintf(buf, sizeof(buf), "%g..%g", d->min, d->max);
	else if (d->type == OPT_SIZE)
		snprintf(buf, sizeof(buf), "%s..%s", size_str(d->min),
			 size_str(d->max));
	else
		snprintf(buf, sizeof(buf), "%.0f..%.0f", d->min, d->max);
	return buf;
}

static int check_range(const struct opt_def *d, double v, const char *s,
		       char *err, size_t len)
{
	if (d->min <= d->max && (v < d->min || v > d->max))
		return fail(err, len, "--%s: %s is out of range (%s)",
			    d->name, s, range_str(d));
	return 0;
}

/*
 * Whole numbers are compared as whole numbers: as doubles, every value
 * within 2^-53 of the bound (--seed 1000000000000000001 against 1e18)
 * rounded onto it and passed.
 */
static int check_urange(const struct opt_def *d, uint64_t v, const char *s,
			char *err, size_t len)
{
	if (d->min <= d->max &&
	    (v < (uint64_t)d->min || v > (uint64_t)d->max))
		return fail(err, len, "--%s: %s is out of range (%s)",
			    d->name, s, range_str(d));
	return 0;
}

static int kv_add(struct kv_list *l, const char *s, const struct opt_def *d,
		  char *err, size_t len)
{
	const char *eq = strchr(s, '=');
	struct kv *v;
	unsigned int i;

	if (!eq || eq == s)
		return fail(err, len, "--%s: '%s' is not KEY=VALUE",
			    d->name, s);
	/* a later --env key=... replaces an earlier one */
	for (i = 0; i < l->n; i++)
		if (strlen(l->v[i].key) == (size_t)(eq - s) &&
		    !strncmp(l->v[i].key, s, eq - s))
			break;
	if (i == l->n) {
		v = realloc(l->v, (l->n + 1) * sizeof(*v));
		if (!v)
			return fail(err, len, "out of memory");
		l->v = v;
		l->n++;
		l->v[i].key = strndup(s, eq - s);
	}
	l->v[i].value = eq + 1;
	return 0;
}

static int set_value(const struct opt_def *d, void *base, const char *s,
		     char *err, size_t len)
{
	void *p = opt_ptr(d, base);
	uint64_t u;
	double x;
	char *end;
	int i;

	switch (d->type) {
	case OPT_INT:
		errno = 0;
		u = strtoull(s, &end, 10);
		if (errno || *end || *s < '0' || *s > '9')
			return fail(err, len, "--%s: '%s' is not a number (%s)",
				    d->name, s, range_str(d));
		if (check_urange(d, u, s, err, len))
			return -1;
		*(uint64_t *)p = u;
		return 0;
	case OPT_SIZE:
		if (opt_parse_size(s, &u))
			return fail(err, len,
				    "--%s: '%s' is not a size (bytes with an optional k/m/g/t suffix, %s)",
				    d->name, s, range_str(d));
		if (check_urange(d, u, s, err, len))
			return -1;
		*(uint64_t *)p = u;
		return 0;
	case OPT_DOUBLE:
		errno = 0;
		x = strtod(s, &end);
		if (errno || *end || end == s || x != x)
			return fail(err, len, "--%s: '%s' is not a number (%s)",
				    d->name, s, range_str(d));
		if (check_range(d, x, s, err, len))
			return -1;
		*(double *)p = x;
		return 0;
	case OPT_BOOL:
		if (parse_bool(s, p))
			return fail(err, len,
				    "--%s: '%s' is not a boolean (1|0|yes|no|true|false)",
				    d->name, s);
		return 0;
	case OPT_ENUM:
		for (i = 0; d->choices[i]; i++) {
			if (!strcmp(s, d->choices[i])) {
				*(unsigned int *)p = i;
				return 0;
			}
		}
		{
			char buf[256];

			choices_str(d, buf, sizeof(buf));
			return fail(err, len, "--%s: '%s' is not one of %s",
				    d->name, s, buf);
		}
	case OPT_STR:
		if (!*s && !(d->flags & OPT_EMPTY))
			return fail(err, len, "--%s: empty value", d->name);
		*(const char **)p = s;
		return 0;
	case OPT_KV:
		return kv_add(p, s, d, err, len);
	}
	return fail(err, len, "--%s: bad option table", d->name);
}

static const struct opt_def *find(struct opt_set *sets, int nsets,
				  const char *name, size_t nlen,
				  struct opt_set **set)
{
	const struct opt_def *d;
	int i;

	for (i = 0; i < nsets; i++) {
		for (d = sets[i].defs; d && d->name; d++) {
			if (strlen(d->name) == nlen &&
			    !strncmp(d->name, name, nlen)) {
				*set = &sets[i];
				return d;
			}
		}
	}
	return NULL;
}

int opt_is_set(const struct opt_def *defs, uint64_t given, const char *name)
{
	const struct opt_def *d;

	for (d = defs; d && d->name; d++)
		if (!strcmp(d->name, name))
			return d - defs < 64 && (given >> (d - defs) & 1);
	return 0;
}

int opt_defaults(struct opt_set *sets, int nsets, const char *overrides,
		 char *err, size_t errlen)
{
	const struct opt_def *d;
	char *copy, *tok, *save, *eq;
	struct opt_set *set;
	int i, ret = 0;

	for (i = 0; i < nsets; i++) {
		for (d = sets[i].defs; d && d->name; d++) {
			if (d->type <= OPT_DOUBLE && !d->min && !d->max)
				return fail(err, errlen,
					    "--%s: option table row without a range (NORANGE?)",
					    d->name);
			if (d->def && set_value(d, sets[i].base, d->def, err,
						errlen))
				return -1;
		}
	}
	if (!overrides)
		return 0;
	copy = strdup(overrides);	/* kept: OPT_STR values point into it */
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		eq = strchr(tok, '=');
		d = eq ? find(sets, nsets, tok, eq - tok, &set) : NULL;
		if (!d)
			return fail(err, errlen, "bad default override '%s'",
				    tok);
		ret = set_value(d, set->base, eq + 1, err, errlen);
	}
	return ret;
}

int opt_parse_argv(struct opt_set *sets, int nsets, int argc, char **argv,
		   char *err, size_t errlen)
{
	const struct opt_def *d;
	const char *name, *val;
	struct opt_set *set;
	size_t nlen;
	int i;

	for (i = 0; i < argc; i++) {
		if (strncmp(argv[i], "--", 2) || !argv[i][2])
			return fail(err, errlen,
				    "unexpected argument '%s' (options are --name=value)",
				    argv[i]);
		name = argv[i] + 2;
		val = strchr(name, '=');
		nlen = val ? (size_t)(val - name) : strlen(name);
		d = find(sets, nsets, name, nlen, &set);
		if (!d)
			return fail(err, errlen, "unknown option '--%.*s'",
				    (int)nlen, name);
		if (val) {
			val++;
		} else if (d->type == OPT_BOOL) {
			val = "1";
		} else {
			if (i + 1 >= argc)
				return fail(err, errlen, "--%s needs a value",
					    d->name);
			/*
			 * The next word is an option, not this one's value:
			 * "--json --dry-run" wrote a file named --dry-run.
			 */
			if (!strncmp(argv[i + 1], "--", 2))
				return fail(err, errlen,
					    "--%s needs a value, got the option '%.60s' (accepted: --%s VALUE, or --%s=VALUE for a value that starts with --)",
					    d->name, argv[i + 1], d->name,
					    d->name);
			val = argv[++i];
		}
		if (set_value(d, set->base, val, err, errlen))
			return -1;
		if (d - set->defs < 64)
			set->given |= 1ull << (d - set->defs);
	}
	return 0;
}

const char *opt_value_str(const struct opt_def *d, const void *base)
{
	static char buf[512];
	const void *p = opt_ptr(d, base);
	const struct kv_list *l;
	size_t used = 0;
	unsigned int i;

	switch (d->type) {
	case OPT_INT:
		snprintf(buf, sizeof(buf), "%llu",
			 (unsigned long long)*(const uint64_t *)p);
		return buf;
	case OPT_SIZE:
		return size_str(*(const uint64_t *)p);
	case OPT_DOUBLE:
		snprintf(buf, sizeof(buf), "%g", *(const double *)p);
		return buf;
	case OPT_BOOL:
		return *(const bool *)p ? "yes" : "no";
	case OPT_ENUM:
		return d->choices[*(const unsigned int *)p];
	case OPT_STR:
		return *(const char *const *)p ? *(const char *const *)p : "-";
	case OPT_KV:
		l = p;
		buf[0] = 0;
		for (i = 0; i < l->n && used < sizeof(buf); i++)
			used += snprintf(buf + used, sizeof(buf) - used,
					 "%s%s=%s", i ? "," : "",
					 l->v[i].key, l->v[i].value);
		return l->n ? buf : "-";
	}
	return "?";
}

void opt_print_help(FILE *f, const struct opt_def *defs)
{
	const struct opt_def *d;
	char choices[256], arg[300];

	for (d = defs; d && d->name; d++) {
		if (d->flags & OPT_HIDDEN)
			continue;
		switch (d->type) {
		case OPT_BOOL:
			arg[0] = 0;
			break;
		case OPT_ENUM:
			choices_str(d, choices, sizeof(choices));
			snprintf(arg, sizeof(arg), "=%s", choices);
			break;
		case OPT_SIZE:
			snprintf(arg, sizeof(arg), "=BYTES");
			break;
		case OPT_KV:
			snprintf(arg, sizeof(arg), "=KEY=VALUE");
			break;
		case OPT_STR:
			snprintf(arg, sizeof(arg), "=STR");
			break;
		default:
			snprintf(arg, sizeof(arg), "=N");
		}
		fprintf(f, "  --%s%s\n      %s", d->name, arg, d->help);
		if (d->def)
			fprintf(f, " [default %s", d->def);
		else
			fprintf(f, " [default none");
		if (d->min <= d->max && d->type != OPT_BOOL &&
		    d->type != OPT_ENUM)
			fprintf(f, ", range %s", range_str(d));
		fprintf(f, "]\n");
	}
}

void opt_print_resolved(FILE *f, const struct opt_set *sets, int nsets)
{
	const struct opt_def *d;
	int i;

	for (i = 0; i < nsets; i++)
		for (d = sets[i].defs; d && d->name; d++)
			if (!(d->flags & OPT_HIDDEN) ||
			    strcmp(opt_value_str(d, sets[i].base), "none"))
				fprintf(f, "  %-18s %s\n", d->name,
					opt_value_str(d, sets[i].base));
}
