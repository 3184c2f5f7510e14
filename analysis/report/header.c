// SPDX-License-Identifier: GPL-2.0
/*
 * The report's header: where the run came from (meta.json, checked when
 * the run was loaded), which kernel features each variant had, and why
 * ITERATIONS=auto stopped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

/* Is feature f in the array fs? */
static bool has_feature(json_t *fs, json_t *f)
{
	json_t *g;
	size_t i;

	json_array_foreach(fs, i, g)
		if (json_equal(f, g))
			return true;
	return false;
}

/*
 * What each variant carries besides its lock (meta.json variants[]
 * .features, runners/run), baseline first; and, for every variant whose
 * features are not the baseline's, a line saying so: a difference the
 * reader would otherwise put down to the lock.  Runs from before
 * features record none, and get neither.
 */
void report_features(FILE *f, const struct run *r, int base)
{
	int *o = variant_order(r, base);
	json_t *b, *v, *fs, *bf, *x;
	const char *lead = "Features:    ", *sb, *sv;
	bool any = false, known = false;
	size_t k;
	int i;

	for (i = 0; r->meta && i < r->nvariants; i++) {
		fs = json_object_get(meta_variant(r->meta, r->variants[i]),
				     "features");
		known |= fs != NULL;
		any |= json_array_size(fs) > 0;
	}
	if (!known)
		goto out;
	if (!any) {
		fprintf(f, "%snone: the variants differ in the lock alone\n",
			lead);
		goto out;
	}
	for (i = 0; i < r->nvariants; i++) {
		fs = json_object_get(meta_variant(r->meta, r->variants[o[i]]),
				     "features");
		fprintf(f, "%s%-12s ", i ? "             " : lead,
			r->variants[o[i]]);
		if (!fs)
			fputs("not recorded", f);
		else if (!json_array_size(fs))
			fputs("none", f);
		json_array_foreach(fs, k, x)
			fprintf(f, "%s%s", k ? " " : "", json_string_value(x));
		fputc('\n', f);
	}
	b = meta_variant(r->meta, r->variants[base]);
	bf = json_object_get(b, "features");
	sb = json_string_value(json_object_get(b, "strategy"));
	for (i = 1; bf && i < r->nvariants; i++) {
		v = meta_variant(r->meta, r->variants[o[i]]);
		fs = json_object_get(v, "features");
		sv = json_string_value(json_object_get(v, "strategy"));
		if (!fs || json_equal(fs, bf))
			continue;
		fprintf(f, "Note:        %s differs from %s %s:",
			r->variants[o[i]], r->variants[base],
			sb && sv && !strcmp(sb, sv) ? "only in" :
			"in the lock and in");
		json_array_foreach(fs, k, x)
			if (!has_feature(bf, x))
				fprintf(f, " %s", json_string_value(x));
		json_array_foreach(bf, k, x)
			if (!has_feature(fs, x))
				fprintf(f, " no %s", json_string_value(x));
		fputc('\n', f);
	}
out:
	free(o);
}

static void put_scalar(char *buf, size_t len, json_t *v, const char *suffix)
{
	size_t l = strlen(buf);

	if (!v || l + 2 >= len)
		return;
	if (l)
		snprintf(buf + l, len - l, ", ");
	l = strlen(buf);
	if (json_is_string(v))
		snprintf(buf + l, len - l, "%s%s", json_string_value(v),
			 suffix);
	else if (json_is_integer(v))
		snprintf(buf + l, len - l, "%lld%s",
			 (long long)json_integer_value(v), suffix);
	else if (json_is_real(v))
		snprintf(buf + l, len - l, "%g%s", json_real_value(v), suffix);
}

/* the guest the results ran in; its mode named when the run had two */
static void test_system_line(FILE *f, const char *lead, json_t *env,
			     json_t *other)
{
	char buf[256];

	buf[0] = 0;
	put_scalar(buf, sizeof(buf), json_object_get(env, "runner"), "");
	put_scalar(buf, sizeof(buf), json_object_get(env, "cpus"), " cpus");
	put_scalar(buf, sizeof(buf), json_object_get(env, "mem_mb"), " MiB");
	put_scalar(buf, sizeof(buf), json_object_get(env, "fs"), "");
	put_scalar(buf, sizeof(buf), json_object_get(env, "device"), "");
	fprintf(f, "%s%s", lead, *buf ? buf : "unknown");
	if (other)
		fprintf(f, " (%s mode)", json_string_value(json_object_get(env,
			"mode")) ?: "unnamed");
	fputc('\n', f);
}

void report_meta_lines(FILE *f, const struct run *r)
{
	json_t *m = r->meta, *host = json_object_get(m, "host");
	json_t *suite = json_object_get(m, "suite");
	json_t *a = r->env, *b = r->env_other;
	const char *mode;
	char buf[256];

	buf[0] = 0;
	put_scalar(buf, sizeof(buf), json_object_get(host, "cpu_model"), "");
	put_scalar(buf, sizeof(buf), json_object_get(host, "cpus"), " cpus");
	put_scalar(buf, sizeof(buf), json_object_get(host, "mem_mb"), " MiB");
	put_scalar(buf, sizeof(buf), json_object_get(host, "kernel"), "");
	fprintf(f, "Machine:     %s\n", buf);
	if (b && (mode = json_string_value(json_object_get(a, "mode"))) &&
	    !strcmp(mode, "cost")) {	/* in the order of the sections */
		a = r->env_other;
		b = r->env;
	}
	test_system_line(f, "Test system: ", a, b);
	if (b)
		test_system_line(f, "             ", b, a);
	fprintf(f, "Suite:       %s%s\n",
		json_string_value(json_object_get(suite, "commit")),
		json_is_true(json_object_get(suite, "dirty")) ?
		" (with local changes)" : "");
	buf[0] = 0;
	put_scalar(buf, sizeof(buf), json_object_get(m, "matrix"), "");
	put_scalar(buf, sizeof(buf), json_object_get(m, "started"), "");
	if (json_is_string(json_object_get(m, "ended")))
		put_scalar(buf, sizeof(buf), json_object_get(m, "ended"), "");
	else
		strncat(buf, ", not ended", sizeof(buf) - strlen(buf) - 1);
	fprintf(f, "Matrix:      %s\n", buf);
	/* the boots whose results give the waits and nothing else */
	if (json_is_true(json_object_get(json_object_get(m, "stats_boot"),
					 "on")))
		fputs("Stats boots: one per variant, its lock counters on: the "
		      "lock waits only,\n             never its rates "
		      "(the counters cost time)\n", f);
}

/*
 * Why ITERATIONS=auto added no further rounds (meta.json "auto_stop",
 * written by runners/run): a budget that ran out leaves points the data
 * could still have decided, and the reader should know that; so do
 * @undecided time-mode points that rlstat next gave up on.
 */
const char *report_auto_stop(const struct run *r, int undecided, char *buf,
			     size_t len)
{
	json_t *a = json_object_get(r->meta, "auto_stop");
	const char *rule = json_string_value(json_object_get(a, "rule"));
	size_t n = json_array_size(json_object_get(a, "undecided"));
	json_int_t b = json_integer_value(json_object_get(r->meta, "budget_s"));
	char bs[32];

	if (!rule)
		return NULL;
	if (b <= 0)
		snprintf(bs, sizeof(bs), "?");
	else if (b % 60)
		snprintf(bs, sizeof(bs), "%lld s", (long long)b);
	else
		snprintf(bs, sizeof(bs), "%lld min", (long long)b / 60);
	if (!strcmp(rule, "budget"))
		snprintf(buf, len, "auto: the budget (%s) left no time for the "
			 "next round; %zu point%s undecided", bs, n,
			 n == 1 ? "" : "s");
	else if (!strcmp(rule, "max_iterations"))
		snprintf(buf, len, "auto: max_iterations reached");
	else if (!strcmp(rule, "decided") && !undecided)
		snprintf(buf, len, "auto: every point decided");
	else if (!strcmp(rule, "decided"))
		/*
		 * rlstat next drops a point that more rounds could not
		 * decide (gate_undecided(): futility, or no PASS reachable
		 * within max_iterations), so "nothing left to run" is not
		 * "every point decided".
		 */
		snprintf(buf, len, "auto: %d point%s undecided that more "
			 "rounds could not decide", undecided,
			 undecided == 1 ? "" : "s");
	else
		return NULL;
	return buf;
}

/* text from column 13 on, its words wrapped before column 80 */
static void put_wrapped(FILE *f, const char *lead, const char *text)
{
	char *copy = xstrdup(text), *save = NULL, *w;
	int col = fprintf(f, "%s", lead);

	for (w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (col > 13 && col + 1 + (int)strlen(w) > 79)
			col = fprintf(f, "\n%13s", "") - 1;
		col += fprintf(f, "%s%s", col > 13 ? " " : "", w);
	}
	fputc('\n', f);
	free(copy);
}

/*
 * MODE=auto's choice, one sentence (meta.json "auto", rlstat plan
 * create): which mode answered which points, why, and how to ask for
 * another. false for a run that asked for its mode.
 */
bool report_auto_mode(FILE *f, const struct run *r)
{
	json_t *a = json_object_get(r->meta, "auto"), *v;
	const char *why = json_string_value(json_object_get(a, "why")), *k;
	bool kvm = json_is_true(json_object_get(a, "kvm"));
	int ncost = 0, nother = 0;
	char *text;

	if (!json_is_object(a))
		return false;
	json_object_foreach(json_object_get(a, "points"), k, v) {
		ncost += !strcmp(json_string_value(v) ?: "", "cost");
		nother += !!strcmp(json_string_value(v) ?: "", "both");
	}
	nother -= ncost;
	if (!ncost && !nother)
		text = xasprintf("auto: both modes for every point, time on KVM "
				 "and cost on TCG, as KVM runs guests here (%s); "
				 "MODE=time|cost|both asks for one", why ?: "?");
	else
		text = xasprintf("auto: cost mode for the %d single-role "
				 "point%s, time mode%s for the %d others, as %s "
				 "(%s); MODE=time|cost|both asks for another",
				 ncost, ncost == 1 ? "" : "s", kvm ? "" :
				 " under TCG", nother, kvm ? "KVM runs guests "
				 "here" : "no KVM runs guests here", why ?: "?");
	put_wrapped(f, "Mode:        ", text);
	free(text);
	return true;
}

/* the time section of an auto run without KVM: what its figures can show */
bool report_auto_tcg(const struct run *r)
{
	json_t *a = json_object_get(r->meta, "auto");

	return json_is_object(a) && !json_is_true(json_object_get(a, "kvm"));
}
