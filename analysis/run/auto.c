// SPDX-License-Identifier: GPL-2.0
/*
 * MODE=auto, the default: each point measured the way this host can
 * answer it, decided once, when the run is planned.
 *
 * Where KVM runs a guest, auto is both: time mode on KVM (wall clock
 * worth reading) and cost mode on TCG. Where it does not, TCG's wall
 * clock measures the emulator and the host's load as much as the kernel
 * (CoeffVar 28-153% on a loaded 2-core host), while cost mode's counts
 * agree to 0.01% whatever the load. So the points cost mode suits, those
 * whose threads all issue the same ops (single-role: direct IO, buffered,
 * readahead, faults alone, punches alone), run in cost mode; the
 * contention points, whose threads play different roles (a fault racing
 * a punch, truncate against readers), run in time mode under MTTCG: in
 * cost mode their ops charge each other's instructions and waits, and
 * the gate would leave them unsuited (gate.c's suitability).
 *
 * Roles are read from the point's resolved options (rlwork --dry-run),
 * by rlwork's naming: --threads threads of the workload's main op, one
 * more group for each <role>-threads option above 0, and --roles giving
 * --threads threads to each role it lists. The gate still checks the
 * results (has_roles): a point planned in cost mode that turns out to
 * have roles is reported unsuited, never gated.
 *
 * Whether KVM runs a guest is the runner's fact (runners/lib.sh
 * kvm_state: probed once and cached), given as --kvm yes|no.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"

int point_roles(json_t *params)
{
	const char *k;
	json_t *v;
	json_int_t threads = 0;
	int n = 0, roles = 1;

	json_object_foreach(params, k, v) {
		size_t l = strlen(k);

		if (!strcmp(k, "threads")) {
			threads = json_integer_value(v);
		} else if (l > 8 && !strcmp(k + l - 8, "-threads")) {
			n += json_integer_value(v) > 0;
		} else if (!strcmp(k, "roles") && json_is_string(v)) {
			const char *c = json_string_value(v);

			for (roles = 1; (c = strchr(c, ',')); c++)
				roles++;
		}
	}
	return n + (threads > 0 ? roles : 0);
}

/* the resolved params of a point's words: rlwork's dry run of them */
static json_t *point_params(const char *top, const char *id,
			    const char *args)
{
	char *words = xstrdup(args), *save = NULL, *t, *out;
	char *rl = xasprintf("%s/workloads/rlwork", top);
	const char **argv = xcalloc(strlen(args) / 2 + 6, sizeof(*argv));
	json_t *doc, *p;
	json_error_t err;
	int n = 0;
	bool ok;

	argv[n++] = rl;
	for (t = strtok_r(words, " ", &save); t; t = strtok_r(NULL, " ", &save))
		argv[n++] = t;
	argv[n++] = "--dry-run";
	argv[n++] = "--json";
	argv[n++] = "-";
	out = cmd_output(argv, &ok);
	doc = ok ? json_loads(out, 0, &err) : NULL;
	p = json_object_get(doc, "params");
	if (!json_is_object(p))
		die_input("point %s: '%s %s --dry-run --json -' gave no params "
			  "(accepted: a point runners/matrix checked, with "
			  "rlwork built: make all)", id, rl, args);
	json_incref(p);
	json_decref(doc);
	free(out);
	free(argv);
	free(words);
	free(rl);
	return p;
}

void plan_auto(const struct plan_req *q, const struct matrix_out *mx,
	       struct plan_set *s, bool time_only)
{
	const char *kvm = q->kvm ? q->kvm : "no", *why = q->kvm_why;
	json_t *pts = json_object();
	int i, ncost = 0, ntime = 0;

	if (strcmp(kvm, "yes") && strcmp(kvm, "no"))
		die_input("--kvm '%s' is not one of yes, no", kvm);
	/*
	 * The matrix asked for virtio-blk, whose completions arrive in host
	 * time: no cost mode, so every point in time mode, on KVM or not.
	 */
	if (time_only)
		why = "the matrix's device virtio-blk has no cost mode";
	for (i = 0; i < mx->npoints; i++) {
		const char *p = mx->points[i], *sp = strchr(p, ' ');
		const char *args = sp ? sp + 1 : "";
		char *id = xasprintf("%.*s", (int)(sp ? sp - p : (long)strlen(p)),
				     p);
		const char *m = "both";

		if (time_only) {
			m = "time";
		} else if (!strcmp(kvm, "no")) {
			/* a test hook (@name) is no rlwork point: time */
			json_t *pa = *args == '@' ? NULL :
				     point_params(q->top, id, args);

			m = pa && point_roles(pa) <= 1 ? "cost" : "time";
			json_decref(pa);
		}
		ncost += !strcmp(m, "cost");
		ntime += !strcmp(m, "time");
		json_object_set_new(pts, id, json_string(m));
		free(id);
	}
	s->auto_meta = json_pack("{s:b, s:s, s:o}", "kvm", !strcmp(kvm, "yes"),
				 "why", why && *why ? why :
				 !strcmp(kvm, "yes") ? "KVM runs a guest" :
				 "KVM does not run a guest here", "points", pts);
	if (!strcmp(kvm, "yes") && !time_only) {
		s->mode = "both";
		s->modes = "cost time";
	} else {
		s->mode = "auto";
		s->modes = ncost && ntime ? "cost time" : ncost ? "cost" :
			   "time";
	}
}

const char *meta_point_mode(json_t *meta, const char *label)
{
	json_t *a = json_object_get(json_object_get(meta, "auto"), "points");
	const char *m = json_string_value(json_object_get(a, label));

	if (m)
		return m;
	m = json_string_value(json_object_get(meta, "mode"));
	return m && (!strcmp(m, "time") || !strcmp(m, "cost")) ? m : "both";
}

const char *plan_modes(const char *mode, json_t *meta)
{
	json_t *pts = json_object_get(json_object_get(meta, "auto"), "points");
	const char *k;
	json_t *v;
	bool cost = false, time = false;

	if (!strcmp(mode, "time") || !strcmp(mode, "cost"))
		return mode;
	if (strcmp(mode, "auto") || !pts)
		return "cost time";
	/* a RESUME of an auto run: the modes its points were given */
	json_object_foreach(pts, k, v) {
		cost |= !strcmp(json_string_value(v) ?: "", "cost");
		time |= !strcmp(json_string_value(v) ?: "", "time");
	}
	return cost && time ? "cost time" : cost ? "cost" : "time";
}
