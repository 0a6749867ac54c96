/* SPDX-License-Identifier: MIT */
/*
 * calib_topology: the topology file `gdrlab calibrate` writes, from what
 * it measured: two nodes of one GPU (or host memory standing for one)
 * and one NIC under one PCIe switch, so that the analytic and model
 * backends run on the same description as the wall-clock backend.
 *
 *   staging copy_bandwidth, chunk_overhead   the copies (memcpy, or the
 *                                            GPU's pinned H2D/D2H)
 *   nic rate, latency                        fitted to the backend's own
 *                                            send/recv times
 *   nic link                                 the NIC's loopback host ->
 *                                            host RDMA WRITE rate (real)
 *   gpu p2p_read, p2p_write                  the NIC reading and writing
 *                                            GPU memory over loopback
 */
#ifndef GDRLAB_CALIB_TOPOLOGY_H
#define GDRLAB_CALIB_TOPOLOGY_H

#include "nic_measure.h"
#include "topology.h"

struct calib_result {
	const char *backend;     /* "emu", "real" */
	const char *reference;   /* the --topology file staging comes from */
	char hostname[64];
	char gpu[96];            /* the GPU measured; "": host memory */
	double copy_bw;          /* bytes/s: memcpy, or min(H2D, D2H) */
	double copy_overhead;    /* seconds per copy */
	double h2d, d2h;         /* bytes/s, GPU only */
	double reduce_bw;        /* bytes/s of the fp32 sum kernel; 0: none */
	double link_bw, lat;     /* NIC rate (bytes/s), latency (s) */
	const char *link_from;   /* NULL: measured; else the file they came from */
	struct nic_loopback lb;  /* lb.host 0: not measured */
	struct topo_staging staging;
};

/* The YAML text (malloc'd), or NULL when out of memory. Fields not
 * measured yet (0) get placeholders, which emu does not read. */
char *calib_topology_yaml(const struct calib_result *r);

/*
 * Put what was measured into @layout, a machine's own topology (from
 * `gdrlab probe --emit-topology`, or a preset), assuming its GPUs and its
 * NICs are alike: every NIC's rate, efficiency 1 and latency, unless no
 * NIC was measured (@r->link_from set: the layout's NICs stay); the
 * staging copy bandwidth and per-chunk cost; on a GPU (real), every NIC's
 * link from the host loopback and every GPU's p2p_read/p2p_write from the
 * GPU loopback. Chunk, buffers and everything else stay the layout's.
 */
void calib_apply(const struct calib_result *r, struct topology *layout);

/* @layout after calib_apply, as YAML with a header saying what was
 * measured and where it went (malloc'd; NULL when out of memory). */
char *calib_layout_yaml(const struct calib_result *r,
			const struct topology *layout, const char *layout_file);

#endif
