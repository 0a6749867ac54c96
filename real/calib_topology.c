/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "calib_topology.h"

#include "topology_write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void comment_measured(FILE *f, const struct calib_result *r)
{
	const struct nic_loopback *lb = &r->lb;

	if (r->gpu[0])
		fprintf(f,
			"# Two nodes of one GPU and one NIC under one switch. Measured on\n"
			"# %s: pinned H2D %.3f MB/s, D2H %.3f MB/s (copy_bandwidth: the\n"
			"# lower; events, median of 3), per-copy cost (chunk_overhead), fp32\n"
			"# sum kernel %.3f MB/s (0: not measured). NIC rate and latency %s%s.\n"
			"# PCIe links of the GPU and the switch are given the copy bandwidth.\n",
			r->gpu, r->h2d / 1e6, r->d2h / 1e6, r->reduce_bw / 1e6,
			r->link_from ? "from " : "measured (fitted to send/recv)",
			r->link_from ? r->link_from : "");
	else
		fprintf(f,
			"# Two nodes of one \"GPU\" (host memory) and one NIC under one switch, as\n"
			"# configs/emu-vm.yaml. Measured: the NIC rate and latency (fitted to\n"
			"# the backend's send/recv times), host memcpy bandwidth and per-copy\n"
			"# cost; PCIe links are given the copy bandwidth, since the NIC and the\n"
			"# copies read the same host memory.\n");
	if (lb->host > 0 && lb->gpu_error[0])
		fprintf(f,
			"# NIC loopback on %s (RDMA WRITE, %u KiB x %u in flight, median of 3):\n"
			"# host -> host %.3f MB/s (the NIC's link). GPU memory not measured, the\n"
			"# NIC cannot register it (no GPUDirect RDMA here): %s\n",
			lb->device, NIC_MEASURE_MSG >> 10, NIC_MEASURE_DEPTH,
			lb->host / 1e6, lb->gpu_error);
	else if (lb->host > 0 && r->gpu[0])
		fprintf(f,
			"# NIC loopback on %s (RDMA WRITE, %u KiB x %u in flight, median of 3):\n"
			"# host -> host %.3f MB/s (the NIC's link), GPU -> host %.3f MB/s\n"
			"# (gpu0 p2p_read), host -> GPU %.3f MB/s (gpu0 p2p_write); GPU memory\n"
			"# registered with %s.\n",
			lb->device, NIC_MEASURE_MSG >> 10, NIC_MEASURE_DEPTH,
			lb->host / 1e6, lb->gpu_read / 1e6, lb->gpu_write / 1e6,
			lb->registration);
	else if (lb->host > 0)
		fprintf(f,
			"# NIC loopback on %s (RDMA WRITE, %u KiB x %u in flight, median of 3):\n"
			"# host -> host %.3f MB/s; not written as a cap: a software NIC's DMA\n"
			"# is the CPU's, already in the fitted rate.\n",
			lb->device, NIC_MEASURE_MSG >> 10, NIC_MEASURE_DEPTH, lb->host / 1e6);
	else if (r->gpu[0])
		fprintf(f, "# No NIC measured here: the NIC's link is given the copy bandwidth.\n");
}

static void gpu_entry(FILE *f, const struct calib_result *r, double copy)
{
	fprintf(f, "  - { name: gpu0, parent: sw0, link: { bandwidth: %.3f MB/s, latency: 0.01 us }",
		copy / 1e6);
	if (r->lb.gpu_read > 0)
		fprintf(f, ", p2p_read: %.3f MB/s", r->lb.gpu_read / 1e6);
	if (r->lb.gpu_write > 0)
		fprintf(f, ", p2p_write: %.3f MB/s", r->lb.gpu_write / 1e6);
	fprintf(f, " }\n");
}

char *calib_topology_yaml(const struct calib_result *r)
{
	double bw = r->link_bw > 0 ? r->link_bw : 1e8;
	double lat = r->lat > 0 ? r->lat : 1e-5;
	double copy = r->copy_bw > 0 ? r->copy_bw : 1e9;
	/* emu: the NIC's DMA is host memcpy; real: what loopback measured */
	double nic_link = r->gpu[0] && r->lb.host > 0 ? r->lb.host : copy;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fprintf(f, "# calibrated: written by `gdrlab calibrate --backend %s` on %s.\n",
		r->backend, r->hostname[0] ? r->hostname : "this host");
	comment_measured(f, r);
	fprintf(f, "# Staging (chunk, buffers) from %s.\n", r->reference);
	fprintf(f,
		"name: calibrated\n"
		"nodes: 2\n"
		"sockets:\n"
		"  - { name: cpu0, memory_bandwidth: %.3f MB/s }\n"
		"switches:\n"
		"  - { name: sw0, parent: cpu0, link: { bandwidth: %.3f MB/s, latency: 0.01 us } }\n"
		"gpus:\n",
		2 * copy / 1e6, fmax(copy, nic_link) / 1e6);
	gpu_entry(f, r, copy);
	fprintf(f,
		"nics:\n"
		"  - name: nic0\n"
		"    parent: sw0\n"
		"    link: { bandwidth: %.3f MB/s, latency: 0.01 us }\n"
		"    rate: %.3f MB/s\n"
		"    efficiency: 1\n"
		"    latency: %.4f us\n"
		"gpu_fabric: { kind: pcie }\n"
		"fabric: { switch_latency: 0.01 us, hops: 1, oversubscription: 1 }\n"
		"staging: { chunk: %llu B, buffers: %u, copy_bandwidth: %.3f MB/s, chunk_overhead: %.4f us }\n",
		nic_link / 1e6, bw / 1e6, lat * 1e6,
		(unsigned long long)r->staging.chunk_bytes, r->staging.buffers,
		copy / 1e6, fmax(r->copy_overhead, 1e-8) * 1e6);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

void calib_apply(const struct calib_result *r, struct topology *t)
{
	bool gpu = r->gpu[0] != '\0';

	t->staging.copy_bw = r->copy_bw;
	t->staging.chunk_overhead = fmax(r->copy_overhead, 1e-8);
	/* no NIC measured here (link_from): the layout's own NICs stay,
	 * not --topology's, which describe another machine */
	for (unsigned i = 0; !r->link_from && i < t->nnics; i++) {
		struct topo_nic *n = &t->nics[i];

		n->line_rate = r->link_bw;
		n->efficiency = 1;
		n->latency = r->lat;
		/* emu's NIC is software: its DMA is the CPU's, in the rate */
		if (gpu && r->lb.host > 0)
			n->dev.link.bw_up = n->dev.link.bw_down = r->lb.host;
	}
	for (unsigned i = 0; gpu && i < t->ngpus; i++) {
		if (r->lb.gpu_read > 0)
			t->gpus[i].p2p_read_bw = r->lb.gpu_read;
		if (r->lb.gpu_write > 0)
			t->gpus[i].p2p_write_bw = r->lb.gpu_write;
	}
}

/* What calib_apply put into the layout, and where the NICs' figures come
 * from: fitted here, or, with no NIC measured, the layout's own. */
static void layout_header(FILE *f, const struct calib_result *r, const char *layout_file)
{
	const char *on = r->gpu[0] ? r->gpu : "host memory";
	double overhead = fmax(r->copy_overhead, 1e-8) * 1e6;

	if (r->link_from) {
		fprintf(f, "# The layout is %s's; measured on %s and put into it: staging\n"
			   "# copy_bandwidth %.3f MB/s and chunk_overhead %.4f us. No NIC was\n"
			   "# measured here: the NICs' rate, efficiency, latency and links are\n"
			   "# the layout's own, not %s's.\n",
			layout_file, on, r->copy_bw / 1e6, overhead, r->link_from);
		return;
	}
	fprintf(f, "# The layout is %s's; measured on %s and put into every GPU and NIC\n"
		   "# of it: NIC rate %.3f MB/s and latency %.4f us (fitted to send/recv),\n"
		   "# staging copy_bandwidth %.3f MB/s and chunk_overhead %.4f us%s.\n",
		layout_file, on, r->link_bw / 1e6, r->lat * 1e6, r->copy_bw / 1e6, overhead,
		r->gpu[0] && r->lb.host > 0 ? "; NIC links from the host loopback" : "");
}

char *calib_layout_yaml(const struct calib_result *r,
			const struct topology *layout, const char *layout_file)
{
	struct topology t = *layout;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return NULL;
	calib_apply(r, &t);
	fprintf(f, "# calibrated: written by `gdrlab calibrate --backend %s --layout %s` on %s.\n",
		r->backend, layout_file, r->hostname[0] ? r->hostname : "this host");
	layout_header(f, r, layout_file);
	if (r->gpu[0] && r->lb.gpu_read > 0)
		fprintf(f, "# GPU p2p_read %.3f MB/s, p2p_write %.3f MB/s: the NIC reading and\n"
			   "# writing GPU memory over loopback (%s).\n",
			r->lb.gpu_read / 1e6, r->lb.gpu_write / 1e6, r->lb.registration);
	else if (r->lb.gpu_error[0])
		fprintf(f, "# GPU memory not measured, no GPUDirect RDMA here: %s\n",
			r->lb.gpu_error);
	err = topology_write(f, &t);
	if (fclose(f) || err) {
		free(buf);
		return NULL;
	}
	return buf;
}
