// SPDX-License-Identifier: GPL-2.0
/* rlstat validate: result documents against rlbench-result/1. */
#include <stdio.h>

#include "builtin.h"

static const char usage[] =
"usage: rlstat validate <file.result.json>...\n"
"\n"
"Checks result documents against rlbench-result/1 (docs/formats.md); the\n"
"first that fails exits 2 naming the file and the field.\n";

int cmd_validate(int argc, char **argv)
{
	const char **files = xcalloc(argc, sizeof(*files));
	const struct cli_opt opts[] = { CLI_END };
	int i, n;

	n = cli_parse(argc, argv, 2, opts, files, argc, "validate", usage);
	if (!n)
		die_input("validate: expected result files\n%s", usage);
	for (i = 0; i < n; i++) {
		validate_file(files[i]);
		printf("%s: ok\n", files[i]);
	}
	return 0;
}
