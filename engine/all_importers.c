/* SPDX-License-Identifier: MIT */
/* The importers, one per input format (importer.h). */
#include "importer.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const struct importer_ops *const importer_table[] = {
	&importer_nccl_log,
	&importer_kineto,
	&importer_chakra,
	NULL,
};

const struct importer_ops *importer_find(const char *name)
{
	for (size_t i = 0; importer_table[i]; i++)
		if (!strcmp(importer_table[i]->name, name))
			return importer_table[i];
	return NULL;
}

void import_notes_add(struct import_notes *n, const char *fmt, ...)
{
	size_t at = strlen(n->line);
	va_list ap;

	if (at && at + 2 < sizeof(n->line)) {
		memcpy(n->line + at, "; ", 3);
		at += 2;
	}
	if (at + 1 >= sizeof(n->line))
		return;
	va_start(ap, fmt);
	vsnprintf(n->line + at, sizeof(n->line) - at, fmt, ap);
	va_end(ap);
}
