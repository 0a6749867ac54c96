/* SPDX-License-Identifier: MIT */
/* The importers, one per input format (importer.h). */
#include "importer.h"

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
