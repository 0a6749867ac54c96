/* SPDX-License-Identifier: MIT */
/*
 * What the importers' libFuzzer targets share: any input, read as one
 * file and as two (split at its half), told nothing and told what an
 * importer may ask, must import or fail with a one-line message and
 * nothing kept, never crash or leak; what imports must be a trace that
 * writes and reads back with as many entries.
 */
#ifndef GDRLAB_FUZZ_IMPORT_H
#define GDRLAB_FUZZ_IMPORT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_round_trip.h"
#include "importer.h"

static void fuzz_one(const struct importer_ops *imp, const uint8_t *data, size_t size,
		     size_t split, const char *const names[2], const struct import_options *o)
{
	struct import_input in[2];
	struct import_notes notes;
	struct trace t;
	struct diag d;
	size_t n = split ? 2 : 1;

	in[0].name = names[0];
	in[0].fp = fmemopen((void *)data, split ? split : size, "r");
	in[1].name = names[1];
	in[1].fp = split ? fmemopen((void *)(data + split), size - split, "r") : NULL;
	if (!in[0].fp || (split && !in[1].fp))
		goto out;
	d.msg[0] = '\0';
	if (imp->import(in, n, o, &t, &notes, &d)) {
		if (!d.msg[0] || strchr(d.msg, '\n') || t.entries)
			abort();
	} else {
		check_round_trip(&t);
		trace_destroy(&t);
	}
out:
	for (size_t i = 0; i < n; i++)
		if (in[i].fp)
			fclose(in[i].fp);
}

/*
 * The files named @names (an importer may read a rank in a name), told
 * nothing, and (for an importer that reads them) told a world of 4 ranks
 * (the fixtures') and a type, so that what comes after asking is fuzzed
 * too.
 */
static void fuzz_importer_named(const struct importer_ops *imp, const uint8_t *data, size_t size,
				const char *const names[2])
{
	static const struct import_options none = { 0 },
		told = { .world = 4, .has_dtype = true, .dtype = TRACE_DTYPE_FP32 };

	if (!size)
		return; /* fmemopen wants a buffer */
	for (int i = 0; i < (imp->takes_options ? 2 : 1); i++) {
		fuzz_one(imp, data, size, 0, names, i ? &told : &none);
		if (size > 1)
			fuzz_one(imp, data, size, size / 2, names, i ? &told : &none);
	}
}

static inline void fuzz_importer(const struct importer_ops *imp, const uint8_t *data, size_t size)
{
	static const char *const names[2] = { "a.log", "b.log" };

	fuzz_importer_named(imp, data, size, names);
}

#endif
