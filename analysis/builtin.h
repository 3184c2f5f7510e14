/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What rlstat's subcommands see: every layer below them. Each is one
 * builtin-<cmd>.c defining cmd_<cmd>(), declared and dispatched by the
 * commands[] table in rlstat.c; it gets main's argc and argv (argv[1] is
 * its own name, its options start at argv[2]), parses them with
 * cli_parse() and returns the exit status.
 */
#ifndef RLSTAT_BUILTIN_H
#define RLSTAT_BUILTIN_H

#include "report/report.h"

#endif
