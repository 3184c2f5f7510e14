// SPDX-License-Identifier: GPL-2.0
/*
 * One metric compared between a baseline group and another group, and
 * the fixed-width number formats the text tables use.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rlstat.h"

#define MDE_POWER 0.8

void cmp_compute(struct cmp *c, const struct group_metric *a,
		 const struct group_metric *b, double alpha)
{
	double base = fabs(a->s.amean);

	memset(c, 0, sizeof(*c));
	c->a = a;
	c->b = b;
	c->pct = c->ci_pct_lo = c->ci_pct_hi = c->mde_pct = NAN;
	if (a->value != 0)
		c->pct = (b->value - a->value) / fabs(a->value) * 100;
	else if (b->value == 0)
		c->pct = 0;
	c->worse = a->def->higher_is_better ? b->value < a->value :
					      b->value > a->value;
	stat_welch(a->vals, a->nvals, b->vals, b->nvals, alpha, &c->w);
	if (!c->w.valid)
		return;
	c->sig = c->w.p < alpha;
	if (base > 0) {
		c->ci_pct_lo = c->w.ci_lo / base * 100;
		c->ci_pct_hi = c->w.ci_hi / base * 100;
		c->mde_pct = stat_mde(c->w.se, c->w.df, alpha, MDE_POWER) /
			     base * 100;
	}
}

/* Scale to the unit tables print: latency in us, bytes in MiB/s. */
double metric_scale(const struct metric_def *d, const char **unit)
{
	if (d->kind == MK_LAT && !strcmp(d->unit, "ns")) {
		*unit = "us";
		return 1e-3;
	}
	if (d->kind == MK_BYTES && (!strcmp(d->unit, "B/s") ||
				    !strcmp(d->unit, "bytes/s"))) {
		*unit = "MiB/s";
		return 1.0 / (1 << 20);
	}
	*unit = d->unit;
	return 1;
}

const char *metric_label(const struct metric_def *d, char *buf, size_t len)
{
	const char *unit;

	metric_scale(d, &unit);
	switch (d->kind) {
	case MK_OPS:
	case MK_BYTES:
		snprintf(buf, len, "Hmean %s %s", d->op, unit);
		break;
	case MK_LAT:
		snprintf(buf, len, "p%s %s %s", d->pct, d->op, unit);
		break;
	case MK_COUNTER:
		snprintf(buf, len, "Mean %s", d->counter);
		break;
	}
	return buf;
}

/* Eight columns, as many digits as fit. */
void fmt_value(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (isnan(v))
		snprintf(buf, len, "%8s", "n/a");
	else if (a < 1e5)
		snprintf(buf, len, "%8.2f", v);
	else if (a < 1e6)
		snprintf(buf, len, "%8.1f", v);
	else if (a < 1e8)
		snprintf(buf, len, "%8.0f", v);
	else
		snprintf(buf, len, "%8.2e", v);
}

/* Seven columns including the percent sign. */
void fmt_pct(char *buf, size_t len, double pct)
{
	double a = fabs(pct);

	if (isnan(pct) || isinf(pct))
		snprintf(buf, len, "%7s", "n/a");
	else if (a < 99.995)
		snprintf(buf, len, "%6.2f%%", pct);
	else if (a < 999.95)
		snprintf(buf, len, "%6.1f%%", pct);
	else if (a < 99999.5)
		snprintf(buf, len, "%6.0f%%", pct);
	else
		snprintf(buf, len, "%7s", pct > 0 ? "huge" : "-huge");
}
