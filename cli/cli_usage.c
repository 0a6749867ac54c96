/* SPDX-License-Identifier: MIT */
/* What every subcommand says when its command line is wrong. */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gdrlab %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'gdrlab %s --help')\n", cmd);
	return EXIT_USAGE;
}
