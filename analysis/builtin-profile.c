// SPDX-License-Identifier: GPL-2.0
/*
 * rlstat profile: where a cost-mode point's instructions go. Reads the
 * instruction profiles of a run (<variant>/<point>-cost-i<N>.profile,
 * written by runners/plugins/insn-profile.so, docs/profile.md), maps each
 * block address to the kernel function holding it with the variant's
 * System.map (cost guests boot nokaslr, so the link addresses are the
 * run's), below the kernel half to rlwork's functions (RUN/rlwork.map,
 * nm -n of the static rlwork the guests ran) or "user (rlwork)" without
 * it, and prints per
 * point and variant the instructions and atomics per op by function
 * (self counts), with the cross-check against the guest clock: the
 * profile's window total per op against the result's 1e9 / ops_per_s.
 * The files are read and resolved in profile/ and --diff's table is the
 * report's (report/where.c), so the report says what this prints.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"

static const char usage[] =
"usage: rlstat profile <rundir> [--point NAME] [--top N] [--diff BASELINE]\n"
"\n"
"Per cost-mode point and variant with an instruction profile (make bench\n"
"PROFILE=insn): instructions and atomics per op by function, the N (default\n"
"25) costliest first, and the cross-check of the profile's total against\n"
"the guest clock's insn/op. Kernel symbols come from <rundir>/<variant>/\n"
"System.map (runners/run keeps it), else from the variant's build\n"
"($RLBENCH_CACHE/build/<meta.json variants[].build>), user ones from\n"
"<rundir>/rlwork.map (runners/run writes it) when it is there.\n"
"--point: only the results whose name starts with NAME (p001-dio).\n"
"--diff: then, per point and variant, where its difference from BASELINE\n"
"goes: the functions whose insn/op moved most (means over the boots), with\n"
"both sides and the delta of insn/op and atomics/op, the other functions in\n"
"one row, summing to the point's total delta. BASELINE is a variant of the\n"
"run, or another run's directory (a path with a '/'): each point against\n"
"that run's point of the same name and variant (two builds of one variant:\n"
"a commit against its parent).\n"
"Exit 0, 1 when a point's profile and clock differ by more than 0.5%,\n"
"2 on bad input (no profile, a missing System.map, a malformed file).\n";

/* one profile's table: per op by function, the costliest first */
static void file_table(FILE *out, const struct prof_file *pf, int top)
{
	struct prof_fn other = { "(others)", 0, 0 };
	size_t i;

	fprintf(out, "%s %s: %" PRIu64 " instructions in the window, %" PRIu64 " atomics",
		pf->variant, pf->name, pf->insns, pf->atomics);
	if (!pf->has_ops) {
		fprintf(out, "; no ops (status %s): nothing per op\n\n", pf->status);
		return;
	}
	fprintf(out, ", %.0f %s ops\n  insn/op: %.2f by the guest clock, %.2f by the profile (%+.3f%%) %s\n"
		"  atomics/op: %.3f\n",
		pf->count, pf->op, pf->clock_ipo, pf->prof_ipo, pf->dev * 100,
		pf->mismatch ? "MISMATCH: more than 0.5% apart" : "ok",
		pf->atomics / pf->count);
	fprintf(out, "  %-44s %12s %7s %10s\n", "function", "insn/op", "share", "atomics/op");
	for (i = 0; i < pf->nfns; i++) {
		const struct prof_fn *f = &pf->fns[i];

		if ((int)i >= top) {
			other.insns += f->insns;
			other.atomics += f->atomics;
			continue;
		}
		fprintf(out, "  %-44.44s %12.2f %6.2f%% %10.3f\n", f->name,
			f->insns / pf->count, 100.0 * f->insns / pf->insns,
			f->atomics / pf->count);
	}
	if (other.insns)
		fprintf(out, "  %-44s %12.2f %6.2f%% %10.3f\n", "(the other functions)",
			other.insns / pf->count, 100.0 * other.insns / pf->insns,
			other.atomics / pf->count);
	fprintf(out, "  %-44s %12.2f %6.2f%% %10.3f\n\n", "total", pf->prof_ipo, 100.0,
		pf->atomics / pf->count);
}

/*
 * --diff RUN: every point of p against the point of the same name and
 * variant in base; the baseline's column is headed BASELINE, since both
 * sides carry the one variant name.
 */
static size_t diff_runs(FILE *out, const struct prof_run *p,
			const struct prof_run *base, const char *bdir, int top)
{
	size_t i, n = 0;

	for (i = 0; i < p->npoints; i++) {
		const struct prof_point *c = &p->points[i], *b;
		struct prof_point bb;

		b = prof_point_find(base, c->variant, c->label);
		if (!c->ops || !b)
			continue;
		bb = *b;
		bb.variant = "BASELINE";
		fprintf(out, "BASELINE: %s %s of %s\n", b->variant, b->label, bdir);
		report_where_table(out, &bb, c, top, false);
		fputc('\n', out);
		n++;
	}
	return n;
}

int cmd_profile(int argc, char **argv)
{
	const char *dir = NULL, *point = NULL, *base = NULL;
	double top = 25;
	const struct cli_opt opts[] = {
		CLI("--point", CLI_STRING, &point),
		CLI("--top", CLI_NUM, &top, .min = 1, .max = 100000),
		CLI("--diff", CLI_STRING, &base),
		CLI_END
	};
	struct prof_run *p, *bp = NULL;
	json_t *meta, *vs, *v, *bmeta = NULL;
	json_error_t err;
	size_t vi, i, j, npairs = 0;
	char *mp, *why = NULL;
	FILE *out;

	if (!cli_parse(argc, argv, 2, opts, &dir, 1, "profile", usage))
		die_input("profile: expected one run directory\n%s", usage);
	mp = xasprintf("%s/meta.json", dir);
	meta = json_load_file(mp, 0, &err);
	if (!meta)
		die_input("profile: %s: %s (accepted: a run directory)", mp, err.text);
	vs = json_object_get(meta, "variants");
	if (base && strchr(base, '/')) {
		char *bm = xasprintf("%s/meta.json", base);

		bmeta = json_load_file(bm, 0, &err);
		if (!bmeta)
			die_input("profile: --diff %s: %s (accepted: a variant of the run, or another run's directory)",
				  bm, err.text);
		bp = prof_run_load(base, bmeta, point, &why);
		if (!bp)
			die_input("profile: --diff %s: %s", base, why);
		free(bm);
	} else if (base) {
		bool found = false;

		json_array_foreach(vs, vi, v)
			found |= !strcmp(json_string_value(json_object_get(v, "name")) ?: "", base);
		if (!found)
			die_input("profile: --diff '%s' is not a variant of %s (accepted: a name in its meta.json variants)",
				  base, dir);
	}
	p = prof_run_load(dir, meta, point, &why);
	if (!p)
		die_input("profile: %s", why);
	if (!p->nfiles)
		die_input("profile: %s: no instruction profiles%s%s (accepted: a run of make bench MODE=cost PROFILE=insn)",
			  dir, point ? " of points starting " : "", point ? point : "");
	out = text_safe(stdout);
	for (i = 0; i < p->nfiles; i++)
		file_table(out, &p->files[i], (int)top);
	if (bp)
		npairs = diff_runs(out, p, bp, base, (int)top);
	/* every other variant's points against the baseline's */
	for (i = 0; base && !bp && i < p->npoints; i++) {
		if (strcmp(p->points[i].variant, base) || !p->points[i].ops)
			continue;
		for (j = 0; j < p->npoints; j++)
			if (j != i && p->points[j].ops &&
			    !strcmp(p->points[j].label, p->points[i].label)) {
				report_where_table(out, &p->points[i],
						   &p->points[j], (int)top, false);
				fputc('\n', out);
				npairs++;
			}
	}
	if (bp && !npairs)
		die_input("profile: %s: --diff %s: no profiled point of the one has the same name and variant in the other (accepted: runs of the same matrix and variant, with PROFILE=insn)",
			  dir, base);
	if (base && !npairs)
		die_input("profile: %s: --diff %s: no point has profiles of %s and of another variant (accepted: a variant of the run, with profiled points)",
			  dir, base, base);
	if (p->nbad)
		fprintf(out, "%d of %zu profiles disagree with the guest clock by more than 0.5%%\n",
			p->nbad, p->nfiles);
	json_decref(meta);
	json_decref(bmeta);
	if (fclose(out))
		return EXIT_BADINPUT;
	return p->nbad ? 1 : 0;
}
