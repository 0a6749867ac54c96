/* SPDX-License-Identifier: MIT */
/*
 * The explicit list of backends, as rdma-core's libibverbs/all_providers.c:
 * adding a backend is adding a line here and a library in CMake.
 */
#include <stdio.h>
#include <string.h>

#include "analytic.h"
#include "backend.h"
#include "emu_backend.h"
#include "real_backend.h"
#include "simgrid.h"

const struct backend_ops *const gdrlab_backends[] = {
	&analytic_backend_ops,
	MODEL_BACKEND_ENTRY
	EMU_BACKEND_ENTRY
	REAL_BACKEND_ENTRY
	NULL,
};

const struct backend_ops *backend_find(const char *name)
{
	for (size_t i = 0; gdrlab_backends[i]; i++)
		if (strcmp(gdrlab_backends[i]->name, name) == 0)
			return gdrlab_backends[i];
	return NULL;
}

/* Backends this build does not have, with the reason, so that asking for
 * one says why instead of "unknown backend". */
const struct backend_absent gdrlab_backends_absent[] = {
	MODEL_BACKEND_ABSENT_ENTRY
	EMU_BACKEND_ABSENT_ENTRY
	REAL_BACKEND_ABSENT_ENTRY
	{ NULL, NULL },
};

const struct backend_ops *backend_lookup(const char *name, char *why, size_t len)
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
