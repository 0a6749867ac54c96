/* SPDX-License-Identifier: MIT */
/* probe_report: a probe as JSON (keys in docs/cli.md) and as a gdrlab
 * topology file (docs/topology-format.md). */
#ifndef GDRLAB_PROBE_REPORT_H
#define GDRLAB_PROBE_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "probe_sysfs.h"

/* New reference, or NULL when out of memory. */
json_t *probe_json(const struct probe *p);

/*
 * Write the topology of the probed machine to @out. -ENODEV with a message
 * in @d when there is no GPU or no PCI RDMA device (a topology needs one of
 * each), -E2BIG when it has more than a topology can hold, -EIO.
 */
int probe_emit_topology(const struct probe *p, FILE *out, struct diag *d);

#endif
