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

const struct backend_ops *cli_lookup_backend(const char *name, char *why,
					     size_t len)
{
	const struct backend_ops *b = backend_find(name);

	if (b)
		return b;
	for (size_t i = 0; gdrlab_backends_absent[i].name; i++)
		if (strcmp(gdrlab_backends_absent[i].name, name) == 0) {
			snprintf(why, len, "backend '%s' is not in this build: %s",
				 name, gdrlab_backends_absent[i].why);
			return NULL;
		}
	snprintf(why, len, "unknown backend '%s' (see 'gdrlab backends')", name);
	return NULL;
}

const struct backend_ops *cli_find_backend(const char *cmd, const char *opt,
					   const char *name)
{
	char why[256];
	const struct backend_ops *b = cli_lookup_backend(name, why, sizeof(why));

	if (!b)
		fprintf(stderr, "gdrlab %s: %s%s%s\n", cmd, opt ? opt : "",
			opt ? ": " : "", why);
	return b;
}
