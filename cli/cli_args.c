/* SPDX-License-Identifier: MIT */
/* What the subcommands share in reading their command lines. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
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

int cli_parse_unsigned(const char *s, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v == 0 || v > max || s[0] == '-')
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

const struct backend_ops *cli_find_backend(const char *cmd, const char *opt,
					   const char *name)
{
	const struct backend_ops *b = backend_find(name);
	const char *sep = opt ? ": " : "";

	if (!opt)
		opt = "";
	if (b)
		return b;
	for (size_t i = 0; gdrlab_backends_absent[i].name; i++)
		if (strcmp(gdrlab_backends_absent[i].name, name) == 0) {
			fprintf(stderr, "gdrlab %s: %s%sbackend '%s' is not in this build: %s\n",
				cmd, opt, sep, name, gdrlab_backends_absent[i].why);
			return NULL;
		}
	fprintf(stderr, "gdrlab %s: %s%sunknown backend '%s' (see 'gdrlab backends')\n",
		cmd, opt, sep, name);
	return NULL;
}
