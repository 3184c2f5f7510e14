// SPDX-License-Identifier: GPL-2.0
/*
 * rlstat plan: a run's state, for the runners, which execute it. It is
 * the one writer of meta.json: it resolves a run's settings and makes its
 * directory (create, resume), records its kernels, skips and end, owns
 * boot_order (the seeded ABBA rounds) and, under ITERATIONS=auto, the
 * decision to add a round: max_iterations, the undecided points and the
 * time budget. It also says what a boot runs (boot) and what `make
 * rerun` repeats (rerun).
 */
#define _GNU_SOURCE
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"

static const char usage[] =
"usage: rlstat plan create --runner qemu --matrix FILE [--kernel K]\n"
"                          [--variants 'V...'] [--baseline B] [--mode M]\n"
"                          [--iterations N|auto] [--budget B] [--seed N]\n"
"                          [--accel A] [--name N] [--debug [--kcsan]]\n"
"                          [--rerun-of RUN]\n"
"                          [--stats 1|0] [--check]\n"
"                          [--kvm yes|no [--kvm-why TEXT]]\n"
"                          [--top DIR] [--results DIR]  < matrix-output\n"
"       rlstat plan create --runner bare --run RUN --matrix FILE\n"
"                          --variant V [--strategy S] [--feature F]...\n"
"                          [--scratch S] [--fs FS] [--topology T]\n"
"                          [--binding B]\n"
"       rlstat plan create --runner lava --run RUN --name N --matrix M\n"
"                          --matrix-sha S --commit C --seed N\n"
"                          --baseline B  < 'job JSON' / 'variant JSON' lines\n"
"       rlstat plan resume <rundir> [--budget B]  < matrix-output\n"
"       rlstat plan variant <rundir> VARIANT KERNEL-DIR [--strategy S]\n"
"                           [--feature F]...\n"
"       rlstat plan skip <rundir> VARIANT REASON [--flavour F]\n"
"       rlstat plan end <rundir>\n"
"       rlstat plan rerun <rundir>\n"
"       rlstat plan boot <rundir>|- VARIANT MODE N [POINT,...|-]\n"
"                        [--runner R --accel A [--commit C]]\n"
"                        < matrix-output\n"
"       rlstat plan first <rundir> --rounds N [--cost-rounds N]\n"
"                         VARIANT:MODE...\n"
"       rlstat plan next <rundir> [--mode cost] [POINT...]\n"
"       rlstat plan list <rundir>\n"
"       rlstat plan record <rundir> VARIANT MODE ITERATION [--seconds S]\n"
"                          [--accel A]\n"
"       rlstat plan order --seed S --rounds N VARIANT:MODE...\n"
"\n"
"create makes a run: resolves MODE=, ITERATIONS=, BUDGET=, --seed and\n"
"       ACCEL= against the matrix's settings (runners/matrix FILE on\n"
"       stdin), makes results/<stamp>-<name>[-N] with its matrix copy,\n"
"       suite.diff and meta.json; MODE=auto (the default) by --kvm: both\n"
"       where KVM runs a guest, else cost mode for the single-role points\n"
"       and time mode for the others (meta.json's auto.points); prints\n"
"       the settings the run goes by, `key value` a line (modes: those\n"
"       its units boot in; stats_boot 1: a stats boot per variant, by\n"
"       --stats 1 or the matrix's stats_boot yes; none by --stats 0,\n"
"       without time points or with monitors mapping_lock). bare and\n"
"       lava write meta.json into the run directory their runner made.\n"
"       --check: every input checked, nothing made or printed (a runner\n"
"       that has work to do before it plans). Bad input: exit 2,\n"
"       nothing made.\n"
"resume a RESUME's settings, as create prints them, from its meta.json;\n"
"       --budget gives a run the budget stopped more time.\n"
"variant a built kernel's variants[] entry; skip a skipped variant (or,\n"
"       with --flavour, a flavour it runs without); each once a variant.\n"
"end    the run's end time.\n"
"rerun  runners/run's arguments that repeat the run, one a line.\n"
"boot   one boot's plan lines (a cost boot's results: <point>-cost, a\n"
"       stats boot's <point>-stats: the time points, env.boot stats);\n"
"       - for a LAVA job's, with no run: --runner, --accel, --commit.\n"
"first  writes rounds 1..N of boots into meta.json's boot_order, every\n"
"       VARIANT:MODE once a round (VARIANT:cost up to --cost-rounds,\n"
"       default N) in an order drawn from meta.json's\n"
"       seed, every second round the one before backwards (ABBA);\n"
"       with meta.json's stats_boot.on, VARIANT:stats once in the first\n"
"       round for each VARIANT:time whose -stats flavour was not\n"
"       skipped; nothing when boot_order has boots (a RESUME).\n"
"next   ITERATIONS=auto: adds a round of time boots running POINT... (the\n"
"       undecided ones, from rlstat next) and exits 0, or adds none and\n"
"       exits 1, meta.json's auto_stop saying why (max_iterations, every\n"
"       point decided, the budget); prints what it did in one line.\n"
"       --mode cost: after two cost boots, adds a third running POINT...\n"
"       (those whose two boots differ, rlstat next --mode cost) and\n"
"       exits 0, or adds none and exits 1.\n"
"list   prints the boots in order, one a line: mode, variant, iteration,\n"
"       the points it runs (comma-separated, - for all).\n"
"record a boot ran: its host seconds, its variant's accelerator (a cost\n"
"       boot's only where none is recorded).\n"
"order  prints, as list does, the boots first would write for a run of\n"
"       that seed, with no run directory: a LAVA job set's order.\n";

/* every unit is VARIANT:time or VARIANT:cost, or exit 2 */
static void check_units(const char *sub, char **units, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		const char *c = strrchr(units[i], ':');

		if (!c || c == units[i] || (strcmp(c, ":time") &&
					    strcmp(c, ":cost")))
			die_input("plan %s: unit \"%s\" is not VARIANT:time "
				  "or VARIANT:cost", sub, units[i]);
	}
}

/* the suite's top: rlstat is analysis/rlstat in it */
static char *suite_top(void)
{
	char *exe = realpath("/proc/self/exe", NULL);

	if (!exe)
		return xstrdup(".");
	return xstrdup(dirname(dirname(exe)));
}

static int plan_make(int argc, char **argv, bool resume)
{
	const char *pos[2] = { NULL }, *feat[64];
	struct plan_req q = { .features = feat };
	struct plan_set s;
	const struct cli_opt opts[] = {
		CLI("--runner", CLI_STRING, &q.runner),
		CLI("--top", CLI_STRING, &q.top),
		CLI("--results", CLI_STRING, &q.results),
		CLI("--run", CLI_STRING, &q.run),
		CLI("--matrix", CLI_STRING, &q.matrix),
		CLI("--mode", CLI_STRING, &q.mode),
		CLI("--iterations", CLI_STRING, &q.iterations),
		CLI("--budget", CLI_STRING, &q.budget),
		CLI("--profile", CLI_STRING, &q.profile),
		CLI("--stats", CLI_STRING, &q.stats),
		CLI("--seed", CLI_STRING, &q.seed),
		CLI("--accel", CLI_STRING, &q.accel),
		CLI("--name", CLI_STRING, &q.name),
		CLI("--kernel", CLI_STRING, &q.kernel),
		CLI("--baseline", CLI_STRING, &q.baseline),
		CLI("--variants", CLI_STRING, &q.variants),
		CLI("--rerun-of", CLI_STRING, &q.rerun_of),
		CLI("--debug", CLI_FLAG, &q.debug),
		CLI("--kcsan", CLI_FLAG, &q.kcsan),
		CLI("--check", CLI_FLAG, &q.check),
		CLI("--variant", CLI_STRING, &q.variant),
		CLI("--strategy", CLI_STRING, &q.strategy),
		CLI("--feature", CLI_STRINGS, feat, .count = &q.nfeatures),
		CLI("--scratch", CLI_STRING, &q.scratch),
		CLI("--fs", CLI_STRING, &q.fs),
		CLI("--topology", CLI_STRING, &q.topology),
		CLI("--binding", CLI_STRING, &q.binding),
		CLI("--matrix-sha", CLI_STRING, &q.matrix_sha),
		CLI("--commit", CLI_STRING, &q.commit),
		CLI("--kvm", CLI_STRING, &q.kvm),
		CLI("--kvm-why", CLI_STRING, &q.kvm_why),
		CLI_END
	};
	char *dir;
	int n;

	if (argc - 3 > 2 * 64)
		die_input("plan: too many arguments");
	n = cli_parse(argc, argv, 3, opts, pos, resume, "plan", usage);
	if (!q.top)
		q.top = suite_top();
	if (resume) {
		if (n != 1)
			die_input("plan resume: expected a run directory\n%s",
				  usage);
		q.run = pos[0];
		q.matrix = xasprintf("%s/matrix", q.run);
		q.mx = matrix_out_read(stdin);
		dir = plan_resume(&q, &s);
		plan_settings_print(stdout, dir, &s);
		return 0;
	}
	if (!q.runner || !q.matrix)
		die_input("plan create: needs --runner and --matrix\n%s", usage);
	if (!strcmp(q.runner, "qemu")) {
		q.mx = matrix_out_read(stdin);
		dir = plan_create_qemu(&q, &s);
		if (dir)
			plan_settings_print(stdout, dir, &s);
		return 0;
	}
	if (!q.run)
		die_input("plan create --runner %s: needs --run, the run "
			  "directory it made\n%s", q.runner, usage);
	if (!strcmp(q.runner, "bare")) {
		if (!q.variant)
			die_input("plan create --runner bare: needs --variant");
		plan_create_bare(&q);
	} else if (!strcmp(q.runner, "lava")) {
		plan_create_lava(&q, stdin);
	} else {
		die_input("plan create: --runner %s is not one of qemu, bare, "
			  "lava", q.runner);
	}
	return 0;
}

/* variant, skip, end, rerun, boot: a run's meta.json, opened or edited */
static int plan_edit(const char *sub, int argc, char **argv)
{
	const char *pos[6] = { NULL }, *feat[64], *strategy = "";
	const char *flavour = NULL, *runner = NULL, *accel = NULL;
	const char *commit = NULL;
	int nfeat = 0, n, want;
	const struct cli_opt opts[] = {
		CLI("--strategy", CLI_STRING, &strategy),
		CLI("--feature", CLI_STRINGS, feat, .count = &nfeat),
		CLI("--flavour", CLI_STRING, &flavour),
		CLI("--runner", CLI_STRING, &runner),
		CLI("--accel", CLI_STRING, &accel),
		CLI("--commit", CLI_STRING, &commit),
		CLI_END
	};
	json_t *meta;

	if (argc - 3 > 2 * 64)
		die_input("plan: too many arguments");
	n = cli_parse(argc, argv, 3, opts, pos, 5, "plan", usage);
	want = !strcmp(sub, "variant") || !strcmp(sub, "skip") ? 3 :
	       !strcmp(sub, "boot") ? 4 : 1;
	if (n < want || n > want + !strcmp(sub, "boot"))
		die_input("plan %s: wrong arguments\n%s", sub, usage);
	if (!strcmp(pos[0], "-") && !strcmp(sub, "boot")) {
		/* a LAVA job's plan: no run directory, the runner's facts */
		if (!runner || !accel)
			die_input("plan boot -: needs --runner and --accel\n%s",
				  usage);
		meta = json_pack("{s:s, s:{s:s}}", "runner", runner, "suite",
				 "commit", commit ?: "unknown");
	} else {
		meta = meta_open(pos[0]);
	}
	if (!strcmp(sub, "rerun")) {
		plan_rerun_args(stdout, pos[0], meta);
	} else if (!strcmp(sub, "boot")) {
		char *sel[256], *pts = xstrdup(n == 5 ? pos[4] : "-"), *t;
		char *save = NULL, *end;
		long it = strtol(pos[3], &end, 10);
		int ns = 0;

		if (*end || it < 1 || (strcmp(pos[2], "time") &&
				       strcmp(pos[2], "cost") &&
				       strcmp(pos[2], "stats")))
			die_input("plan boot: expected VARIANT time|cost|stats "
				  "N, got %s %s %s", pos[1], pos[2], pos[3]);
		for (t = strtok_r(pts, ",", &save); t && ns < 256;
		     t = strtok_r(NULL, ",", &save))
			if (strcmp(t, "-"))
				sel[ns++] = t;
		plan_boot_lines(stdout, meta, matrix_out_read(stdin), accel,
				pos[1], pos[2], it, sel, ns);
	} else if ((!strcmp(sub, "variant") &&
		    plan_add_variant(meta, pos[0], pos[1], pos[2], strategy,
				     feat, nfeat)) ||
		   (!strcmp(sub, "skip") &&
		    plan_add_skip(meta, pos[1], pos[2], flavour))) {
		plan_meta_write(pos[0], meta);
	} else if (!strcmp(sub, "end")) {
		plan_end(meta);
		plan_meta_write(pos[0], meta);
	}
	json_decref(meta);
	return 0;
}

static const char *const edits[] = {
	"variant", "skip", "end", "rerun", "boot", NULL
};

int cmd_plan(int argc, char **argv)
{
	const char **pos = xcalloc(argc + 1, sizeof(*pos));
	const char *sub = argc > 2 ? argv[2] : "";
	const char *accel = NULL, *mode = "time";
	double seconds = -1;
	int rounds = 0, n, rc = 1, it = 0, i, seed = 0, cost_rounds = 0;
	bool rounds_given = false, seed_given = false, cr_given = false;
	const struct cli_opt opts[] = {
		CLI("--rounds", CLI_INT, &rounds, .min = 1, .max = 99,
		    .given = &rounds_given),
		CLI("--cost-rounds", CLI_INT, &cost_rounds, .min = 1, .max = 99,
		    .given = &cr_given),
		CLI("--mode", CLI_STRING, &mode),
		CLI("--seconds", CLI_NUM, &seconds, .min = 0, .max = 1e7),
		CLI("--accel", CLI_STRING, &accel),
		CLI("--seed", CLI_INT, &seed, .min = 0, .max = 999999999,
		    .given = &seed_given),
		CLI_END
	};
	char msg[4096];
	json_t *meta;

	if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(sub, "create") || !strcmp(sub, "resume"))
		return plan_make(argc, argv, !strcmp(sub, "resume"));
	for (i = 0; edits[i]; i++)
		if (!strcmp(sub, edits[i]))
			return plan_edit(sub, argc, argv);
	if (strcmp(sub, "first") && strcmp(sub, "next") &&
	    strcmp(sub, "list") && strcmp(sub, "record") &&
	    strcmp(sub, "order"))
		die_input("plan: expected create, resume, variant, skip, end, "
			  "rerun, boot, first, next, list, record or order, "
			  "got \"%s\"\n%s", sub, usage);
	n = cli_parse(argc, argv, 3, opts, pos, argc, "plan", usage);
	if (!strcmp(sub, "order")) {
		if (!rounds_given || !seed_given || !n)
			die_input("plan order: needs --seed S, --rounds N and "
				  "the units\n%s", usage);
		check_units("order", (char **)pos, n);
		/* the order first writes, from a run of that seed alone */
		meta = json_pack("{s:i, s:[]}", "seed", seed, "boot_order");
		plan_first_rounds(meta, rounds, cr_given ? cost_rounds : rounds,
				  (char **)pos, n);
		plan_list(stdout, meta);
		json_decref(meta);
		return 0;
	}
	if (!n)
		die_input("plan %s: expected a run directory\n%s", sub, usage);
	meta = meta_load(pos[0]);
	if (!strcmp(sub, "list")) {
		plan_list(stdout, meta);
		return 0;
	}
	if (!strcmp(sub, "record")) {
		char *end;

		if (n == 4)
			it = strtol(pos[3], &end, 10);
		if (n != 4 || *end || it < 1)
			die_input("plan record: expected <rundir> VARIANT MODE "
				  "ITERATION\n%s", usage);
		if (plan_record(meta, pos[1], pos[2], it, seconds, accel))
			die_input("plan record: %s/meta.json has no boot %s "
				  "%s %d", pos[0], pos[1], pos[2], it);
		plan_meta_write(pos[0], meta);
		return 0;
	}
	if (!strcmp(sub, "first")) {
		if (!rounds_given || n < 2)
			die_input("plan first: needs --rounds N and the "
				  "units\n%s", usage);
		check_units("first", (char **)pos + 1, n - 1);
		if (plan_first_rounds(meta, rounds, cr_given ? cost_rounds :
				      rounds, (char **)pos + 1, n - 1))
			plan_meta_write(pos[0], meta);
		return 0;
	}
	if (!json_array_size(json_object_get(meta, "boot_order")))
		die_input("plan next: %s/meta.json has no boots yet (plan "
			  "first makes them)", pos[0]);
	if (strcmp(mode, "time") && strcmp(mode, "cost"))
		die_input("plan next: --mode '%s' is not one of time, cost",
			  mode);
	rc = !strcmp(mode, "cost") ?
	     plan_confirm_round(meta, (char **)pos + 1, n - 1, msg,
				sizeof(msg)) :
	     plan_next_round(pos[0], meta, (char **)pos + 1, n - 1, msg,
			     sizeof(msg));
	plan_meta_write(pos[0], meta);
	printf("%s\n", msg);
	return rc ? 0 : 1;
}
