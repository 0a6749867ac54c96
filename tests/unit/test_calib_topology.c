/* SPDX-License-Identifier: MIT */
/*
 * The topology file `gdrlab calibrate` writes (real/calib_topology.c):
 * it parses, carries each measured figure where the docs say, and the
 * analytic backend on it reproduces the transfers it was fitted to.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "calib_topology.h"
#include "helpers.h"

static void load(const struct calib_result *r, struct topology *t)
{
	struct diag d = { "" };
	char *yaml = calib_topology_yaml(r);

	cr_assert_not_null(yaml);
	cr_assert_eq(topology_load_buffer(yaml, strlen(yaml), "calibrated.yaml", t, &d),
		     0, "%s\n%s", d.msg, yaml);
	free(yaml);
}

/* @r (its GPU named) written into the layout of an 8-GPU, 4-NIC A100
 * server (@layout, loaded here) and loaded back into @t: the YAML, which
 * the caller frees. */
static char *load_a100_layout(struct calib_result *r, struct topology *layout,
			      struct topology *t)
{
	struct diag d = { "" };
	char *yaml;

	snprintf(r->gpu, sizeof(r->gpu), "NVIDIA Test GPU");
	cr_assert_eq(topology_load(CONFIG("a100-pcie4-200g.yaml"), layout, &d), 0, "%s", d.msg);
	yaml = calib_layout_yaml(r, layout, "a100.yaml");
	cr_assert_not_null(yaml);
	cr_assert_eq(topology_load_buffer(yaml, strlen(yaml), "cal.yaml", t, &d), 0,
		     "%s\n%s", d.msg, yaml);
	return yaml;
}

/* Time (us) of one send/recv of @bytes on @t through analytic, from GPU 0
 * of node 0 to GPU 0 of node 1. */
static double sendrecv_us(const struct topology *t, unsigned long long bytes,
			  enum plan_path path)
{
	const struct backend_ops *b = backend_find("analytic");
	char jsonl[256];
	struct plan_options o;
	struct trace trace;
	struct plan plan;
	struct records rec;
	struct diag d = { "" };
	double us;

	snprintf(jsonl, sizeof(jsonl),
		 "{\"iteration\": 0, \"op\": \"sendrecv\", \"bytes\": %llu, \"dtype\": \"fp32\", "
		 "\"src\": 0, \"dst\": %u, \"ready_us\": 0}\n", bytes, t->ngpus);
	cr_assert_eq(trace_load_buffer(jsonl, strlen(jsonl), "inline.jsonl", &trace, &d), 0,
		     "%s", d.msg);
	plan_options_default(&o);
	o.path = path;
	o.nodes = 2;
	/* what calibrate measures: gdrlab's own verbs path, not NCCL's */
	o.ring_only = true;
	cr_assert_eq(backend_execute(b, t, &trace, &o, NULL, &plan, &rec, &d), 0, "%s", d.msg);
	us = rec.coll[0].time_us;
	records_destroy(&rec);
	plan_destroy(&plan);
	trace_destroy(&trace);
	return us;
}

static const struct topo_staging staging = {
	.chunk_bytes = 262144, .buffers = 4,
};

/* emu: calibrate fits lat = t_small / 2 and rate = size / (t_large -
 * t_small) (cli/cmd_calibrate.c); on the file the analytic send/recv must
 * give back t_small and t_large. */
Test(calib_topology, host_file_reproduces_the_fitted_sendrecv)
{
	const double t_small = 200e-6, t_large = 0.130, size = 1 << 20;
	struct calib_result r = {
		.backend = "emu", .reference = "configs/emu-vm.yaml",
		.copy_bw = 1.5e9, .copy_overhead = 1e-8,
		.lat = t_small / 2, .link_bw = size / (t_large - t_small),
		.lb = { .device = "rxe0", .host = 2e7 },
		.staging = staging,
	};
	struct topology t;

	load(&r, &t);
	/* the file gives MB/s to three decimals: 1 kB/s of 8 MB/s */
	assert_rel(t.nics[0].line_rate * t.nics[0].efficiency, r.link_bw, 1e-4);
	assert_rel(t.nics[0].latency, r.lat, 1e-6);
	assert_rel(t.staging.copy_bw, r.copy_bw, 1e-6);
	cr_assert_eq(t.staging.chunk_bytes, 262144);
	cr_assert_eq(t.staging.buffers, 4);
	/* a software NIC's loopback is not a cap: its link is the memcpy's */
	assert_rel(t.nics[0].dev.link.bw_down, r.copy_bw, 1e-6);
	cr_assert(isinf(t.gpus[0].p2p_read_bw) && isinf(t.gpus[0].p2p_write_bw));
	/* the fit takes the 8 B time as latency alone, the model adds its
	 * 8 B / rate; links and switch add well under 0.1% here */
	assert_rel(sendrecv_us(&t, 8, PLAN_PATH_DIRECT),
		   (t_small + 8 / r.link_bw) * 1e6, 1e-3);
	assert_rel(sendrecv_us(&t, (unsigned long long)size, PLAN_PATH_DIRECT),
		   t_large * 1e6, 1e-3);
}

/* real with a NIC: the loopback figures become the NIC's link and the
 * GPU's peer caps, so a large direct transfer runs at the slowest of
 * them, here the NIC reading GPU memory (11 GB/s against the wire's
 * 25 GB/s), while the staged path never meets those caps. */
Test(calib_topology, gpu_loopback_figures_limit_the_direct_path)
{
	const double B = 1 << 30;
	struct calib_result r = {
		.backend = "real", .reference = "configs/h100-pcie5-400g.yaml",
		.copy_bw = 24e9, .copy_overhead = 5e-6, .h2d = 25e9, .d2h = 24e9,
		.reduce_bw = 1e12, .lat = 2e-6, .link_bw = 25e9,
		.lb = { .device = "mlx5_0", .registration = "dmabuf", .host = 22e9,
			.gpu_read = 11e9, .gpu_write = 21e9 },
		.staging = { .chunk_bytes = 4 << 20, .buffers = 4 },
	};
	struct topology t;
	double direct, staged;

	snprintf(r.gpu, sizeof(r.gpu), "NVIDIA Test GPU");
	load(&r, &t);
	assert_rel(t.gpus[0].p2p_read_bw, 11e9, 1e-6);
	assert_rel(t.gpus[0].p2p_write_bw, 21e9, 1e-6);
	assert_rel(t.nics[0].dev.link.bw_down, 22e9, 1e-6);
	assert_rel(t.gpus[0].link.bw_up, 24e9, 1e-6);
	direct = sendrecv_us(&t, (unsigned long long)B, PLAN_PATH_DIRECT);
	assert_rel(direct, B / 11e9 * 1e6, 1e-3);
	/* staged: D2H at 24 GB/s, NIC at 22 GB/s, H2D at 24 GB/s pipelined
	 * in 4 MiB chunks: the NIC's link is the slowest stage */
	staged = sendrecv_us(&t, (unsigned long long)B, PLAN_PATH_STAGED);
	cr_assert(staged < direct, "staged %.0f us, direct %.0f us", staged, direct);
	assert_rel(staged, B / 22e9 * 1e6, 0.01);
}

/* real without a NIC here: no loopback, no caps; the NIC's link is the
 * copy bandwidth as before. */
Test(calib_topology, gpu_without_nic_has_no_caps)
{
	struct calib_result r = {
		.backend = "real", .reference = "configs/a100-pcie4-200g.yaml",
		.copy_bw = 20e9, .h2d = 21e9, .d2h = 20e9, .lat = 1e-6,
		.link_bw = 23e9, .link_from = "configs/a100-pcie4-200g.yaml",
		.staging = staging,
	};
	struct topology t;

	snprintf(r.gpu, sizeof(r.gpu), "NVIDIA Test GPU");
	load(&r, &t);
	cr_assert(isinf(t.gpus[0].p2p_read_bw) && isinf(t.gpus[0].p2p_write_bw));
	assert_rel(t.nics[0].dev.link.bw_down, 20e9, 1e-6);
}

/* real where the NIC cannot register GPU memory: host -> host is the
 * NIC's link, no GPU caps, and the file says why GPU memory was not
 * measured. */
Test(calib_topology, gpu_memory_not_registrable)
{
	struct calib_result r = {
		.backend = "real", .reference = "configs/a100-pcie4-200g.yaml",
		.copy_bw = 20e9, .h2d = 21e9, .d2h = 20e9, .lat = 1e-6,
		.link_bw = 23e9,
		.lb = { .device = "mlx5_0", .host = 22e9,
			.gpu_error = "registering 25165824 bytes of cuda memory: no dma-buf, no peermem" },
		.staging = staging,
	};
	struct topology t;
	char *yaml;

	snprintf(r.gpu, sizeof(r.gpu), "NVIDIA Test GPU");
	load(&r, &t);
	cr_assert(isinf(t.gpus[0].p2p_read_bw) && isinf(t.gpus[0].p2p_write_bw));
	assert_rel(t.nics[0].dev.link.bw_down, 22e9, 1e-6);
	yaml = calib_topology_yaml(&r);
	cr_assert(strstr(yaml, "(no GPUDirect RDMA here): registering 25165824 bytes"), "%s", yaml);
	free(yaml);
}

/* --layout: the figures go into every GPU and NIC of the machine's own
 * layout (an 8-GPU, 4-NIC A100 server here); a large direct transfer then
 * runs at the GPU read cap, 11 GB/s, below every link of that layout. */
Test(calib_topology, layout_gets_the_figures_everywhere)
{
	const double B = 1 << 30;
	struct calib_result r = {
		.backend = "real", .reference = "configs/a100-pcie4-200g.yaml",
		.copy_bw = 20e9, .copy_overhead = 4e-6, .h2d = 21e9, .d2h = 20e9,
		.lat = 1.5e-6, .link_bw = 23e9,
		.lb = { .device = "mlx5_0", .registration = "dmabuf", .host = 22e9,
			.gpu_read = 11e9, .gpu_write = 21e9 },
		.staging = staging,
	};
	struct topology layout, t;

	free(load_a100_layout(&r, &layout, &t));
	cr_assert_eq(t.ngpus, layout.ngpus);
	cr_assert_eq(t.nnics, layout.nnics);
	cr_assert_eq(t.staging.chunk_bytes, layout.staging.chunk_bytes);
	assert_rel(t.staging.copy_bw, 20e9, 1e-9);
	for (unsigned i = 0; i < t.nnics; i++) {
		assert_rel(t.nics[i].line_rate * t.nics[i].efficiency, 23e9, 1e-9);
		assert_rel(t.nics[i].latency, 1.5e-6, 1e-9);
		assert_rel(t.nics[i].dev.link.bw_up, 22e9, 1e-9);
	}
	for (unsigned i = 0; i < t.ngpus; i++) {
		assert_rel(t.gpus[i].p2p_read_bw, 11e9, 1e-9);
		assert_rel(t.gpus[i].p2p_write_bw, 21e9, 1e-9);
	}
	assert_rel(sendrecv_us(&t, (unsigned long long)B, PLAN_PATH_DIRECT),
		   B / 11e9 * 1e6, 1e-3);
}

/* emu into its own layout: a software NIC keeps its links, no GPU caps. */
Test(calib_topology, emu_layout_keeps_nic_links)
{
	struct calib_result r = {
		.backend = "emu", .reference = "configs/emu-vm.yaml",
		.copy_bw = 1.5e9, .copy_overhead = 1e-8, .lat = 1e-4, .link_bw = 2.4e7,
		.lb = { .device = "rxe0", .host = 3.3e7 },
		.staging = staging,
	};
	struct topology layout, t;

	cr_assert_eq(topology_load(CONFIG("emu-vm.yaml"), &layout, NULL), 0);
	t = layout;
	calib_apply(&r, &t);
	assert_rel(t.nics[0].line_rate, 2.4e7, 1e-12);
	cr_assert_eq(t.nics[0].dev.link.bw_up, layout.nics[0].dev.link.bw_up);
	cr_assert(isinf(t.gpus[0].p2p_read_bw));
}

/* --layout on a GPU host with no RDMA NIC: nothing was fitted, so the
 * layout's NICs keep their own rate, efficiency and latency, not the
 * --topology file's (emu-vm's 300 Mbit/s here), and the header says the
 * NIC figures are the layout's, not "fitted to send/recv". */
Test(calib_topology, layout_without_nic_keeps_its_nics)
{
	struct calib_result r = {
		.backend = "real", .reference = "configs/emu-vm.yaml",
		.copy_bw = 20e9, .copy_overhead = 4e-6, .h2d = 21e9, .d2h = 20e9,
		.lat = 9e-6, .link_bw = 37.5e6, .link_from = "configs/emu-vm.yaml",
		.staging = staging,
	};
	struct topology layout, t;
	char *yaml = load_a100_layout(&r, &layout, &t);

	for (unsigned i = 0; i < t.nnics; i++) {
		assert_rel(t.nics[i].line_rate, layout.nics[i].line_rate, 1e-9);
		assert_rel(t.nics[i].efficiency, layout.nics[i].efficiency, 1e-9);
		assert_rel(t.nics[i].latency, layout.nics[i].latency, 1e-9);
	}
	assert_rel(t.staging.copy_bw, 20e9, 1e-9);
	cr_assert_null(strstr(yaml, "fitted"), "%s", yaml);
	cr_assert_null(strstr(yaml, "37.500 MB/s"), "%s", yaml);
	cr_assert(strstr(yaml, "No NIC was\n# measured here: the NICs' rate, efficiency, latency "
			 "and links are\n# the layout's own, not configs/emu-vm.yaml's."), "%s", yaml);
	free(yaml);
}
