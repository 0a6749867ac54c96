/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the trace reader: any input must either load or
 * fail with a one-line message, never crash or leak; what loads must also
 * survive trace_write and read back to the same number of entries.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_round_trip.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace t;
	struct diag d;

	d.msg[0] = '\0';
	if (trace_load_buffer((const char *)data, size, "fuzz", &t, &d)) {
		if (!d.msg[0] || strchr(d.msg, '\n') || t.entries)
			abort();
		return 0;
	}
	check_round_trip(&t);
	trace_destroy(&t);
	return 0;
}
