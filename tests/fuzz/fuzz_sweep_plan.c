/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the sweep-plan reader (cli/sweep_plan.c): any bytes
 * must give either the points or a one-line message, never a crash, a
 * leak or a hang. The reader takes a file (its relative names are the
 * plan's folder's), so each input is written to one in the build tree
 * first. Seeded with plans over the shipped topology and traces
 * (tests/fuzz/CMakeLists.txt writes them with absolute paths).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The data folder a plan's presets are found in (cli/main.c's, which this
 * target does not link): the source tree. */
const char *cli_data_dir(void)
{
	return GDRLAB_SOURCE_DIR;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char path[] = GDRLAB_FUZZ_DIR "/input.yaml";
	struct diag d = { "" };
	struct sweep sw;
	FILE *f = fopen(path, "wb");
	int rc;

	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	rc = sweep_plan_load(path, &sw, &d);
	if (rc && (!d.msg[0] || strchr(d.msg, '\n')))
		abort();
	if (!rc && !sw.n)
		abort(); /* a plan that loads has points */
	sweep_free(&sw);
	return 0;
}
