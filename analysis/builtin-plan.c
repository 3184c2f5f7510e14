// SPDX-License-Identifier: GPL-2.0
/*
 * rlstat plan: the boots of a run, for runners/run, which executes them.
 * It owns meta.json's boot_order (the seeded ABBA rounds) and, under
 * ITERATIONS=auto, the decision to add a round: max_iterations, the
 * undecided points and the time budget.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"

static const char usage[] =
"usage: rlstat plan first <rundir> --rounds N VARIANT:MODE...\n"
"       rlstat plan next <rundir> [POINT...]\n"
"       rlstat plan list <rundir>\n"
"       rlstat plan record <rundir> VARIANT MODE ITERATION [--seconds S]\n"
"                          [--accel A]\n"
"       rlstat plan order --seed S --rounds N VARIANT:MODE...\n"
"\n"
"first  writes rounds 1..N of boots into meta.json's boot_order, every\n"
"       VARIANT:MODE once a round in an order drawn from meta.json's\n"
"       seed, every second round the one before backwards (ABBA);\n"
"       nothing when boot_order has boots (a RESUME).\n"
"next   ITERATIONS=auto: adds a round of time boots running POINT... (the\n"
"       undecided ones, from rlstat next) and exits 0, or adds none and\n"
"       exits 1, meta.json's auto_stop saying why (max_iterations, every\n"
"       point decided, the budget); prints what it did in one line.\n"
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

int cmd_plan(int argc, char **argv)
{
	const char **pos = xcalloc(argc + 1, sizeof(*pos));
	const char *sub = argc > 2 ? argv[2] : "";
	const char *accel = NULL;
	double seconds = -1;
	int rounds = 0, n, rc = 1, it = 0, seed = 0;
	bool rounds_given = false, seed_given = false;
	const struct cli_opt opts[] = {
		CLI("--rounds", CLI_INT, &rounds, .min = 1, .max = 99,
		    .given = &rounds_given),
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
	if (strcmp(sub, "first") && strcmp(sub, "next") &&
	    strcmp(sub, "list") && strcmp(sub, "record") &&
	    strcmp(sub, "order"))
		die_input("plan: expected first, next, list, record or order, "
			  "got \"%s\"\n%s", sub, usage);
	n = cli_parse(argc, argv, 3, opts, pos, argc, "plan", usage);
	if (!strcmp(sub, "order")) {
		if (!rounds_given || !seed_given || !n)
			die_input("plan order: needs --seed S, --rounds N and "
				  "the units\n%s", usage);
		check_units("order", (char **)pos, n);
		/* the order first writes, from a run of that seed alone */
		meta = json_pack("{s:i, s:[]}", "seed", seed, "boot_order");
		plan_first_rounds(meta, rounds, (char **)pos, n);
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
		if (plan_first_rounds(meta, rounds, (char **)pos + 1, n - 1))
			plan_meta_write(pos[0], meta);
		return 0;
	}
	if (!json_array_size(json_object_get(meta, "boot_order")))
		die_input("plan next: %s/meta.json has no boots yet (plan "
			  "first makes them)", pos[0]);
	rc = plan_next_round(pos[0], meta, (char **)pos + 1, n - 1, msg,
			     sizeof(msg));
	plan_meta_write(pos[0], meta);
	printf("%s\n", msg);
	return rc ? 0 : 1;
}
