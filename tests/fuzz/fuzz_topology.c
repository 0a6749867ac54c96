/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the topology reader: any bytes must give either a
 * topology or a one-line message, never a crash, a leak or a hang, read
 * as they are and with --set's overrides, whose walk copies the nodes a
 * file aliases (yaml_override.c). Seed it with configs/ and
 * tests/data/bad-topology/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct topology t;
	struct diag d;
	int err;

	static const struct topo_override sets[] = {
		{ "nics.rate", "100 Gbit/s" },
		{ "switches.link.bandwidth", "5 GB/s" },
		{ "gpus.gdr", "false" },
	};

	for (size_t n = 0; n <= sizeof(sets) / sizeof(sets[0]); n++) {
		d.msg[0] = '\0';
		err = topology_load_buffer_with((const char *)data, size, "fuzz", sets, n, &t, &d);
		/* Failure must say why, on one line; success must name the file. */
		if (err && (!d.msg[0] || strchr(d.msg, '\n')))
			abort();
		if (!err && strcmp(t.file, "fuzz") != 0)
			abort();
	}
	return 0;
}
