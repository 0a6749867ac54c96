/* SPDX-License-Identifier: MIT */
/*
 * Per-GPU peer-to-peer caps (p2p_read, p2p_write on gpus entries) on
 * tests/data/gpu-p2p.yaml: tests/data/round-numbers.yaml with three GPUs
 * under the switch. Ranks are node * 3 + GPU.
 *
 * A send of S = 64 MiB between nodes is NCCL's p2p path: one channel (the
 * node has one 10 GB/s NIC: max(1 NIC, ceil(10 / 14)), NCCL 2.29+), the
 * Simple protocol, 128 KiB chunks (NCCL_P2P_NET_CHUNKSIZE), 512 of them.
 * A hop costs NCCL's Simple network latency, 14 us (longer than the
 * links' own 9 us), after the ring's 8.4 us launch; with 8 slots a chunk
 * every S / B: T = 8.4 + 14 + S / B, B the slowest share on the way.
 * Staged the NCCL way the chunk also crosses GPU -> host and host -> GPU
 * at the GPU's 20 GB/s link, once each before the pipe runs: + 2 x
 * 128 KiB / 20 GB/s. Inside a node a send is two channels over PCIe
 * (NCCL_NCHANNELS_PER_PEER), 14.1 us: 8.4 + NCCL's Simple PCIe hop 5.7.
 *
 * gpu0 serves peer reads at 4 GB/s, so a direct send from it takes
 * S / 4 GB/s; gpu1 takes peer writes at 5 GB/s, so a direct receive into
 * it, or a PCIe copy into it from another GPU, runs at 5 GB/s. Host
 * staging is the GPU's own threads writing and reading host memory, not a
 * peer's access: the staged path keeps its 10 GB/s. gpu2's caps (1 TB/s)
 * are above everything else and change nothing.
 *
 * The model backend must give the same times within the 1% the
 * conformance suite allows (test_conformance.c); skipped, with the reason,
 * without SimGrid.
 */
#include <math.h>
#include <stdio.h>

#include "helpers.h"

#define MiB 1048576.0
#define S (64 * MiB)
#define TOL 0.01
#define NET_US (8.4 + 14)
#define PCI_US (8.4 + 5.7)
#define FILL_US (2 * 131072 / 20e9 * 1e6)

struct p2p_case {
	const char *what;
	unsigned src, dst;
	enum plan_path path;
	double want_us;
};

static const struct p2p_case cases[] = {
	{ "direct send from gpu0: its p2p_read", 0, 3, PLAN_PATH_DIRECT,
	  NET_US + S / 4e9 * 1e6 },
	{ "direct receive into gpu1: its p2p_write", 1, 4, PLAN_PATH_DIRECT,
	  NET_US + S / 5e9 * 1e6 },
	{ "gpu1 sends, gpu0 receives: neither cap is in the way", 1, 3,
	  PLAN_PATH_DIRECT, NET_US + S / 10e9 * 1e6 },
	{ "caps above every other capacity", 2, 5, PLAN_PATH_DIRECT,
	  NET_US + S / 10e9 * 1e6 },
	{ "staged send from gpu0", 0, 3, PLAN_PATH_STAGED,
	  NET_US + S / 10e9 * 1e6 + FILL_US },
	{ "staged receive into gpu1", 1, 4, PLAN_PATH_STAGED,
	  NET_US + S / 10e9 * 1e6 + FILL_US },
	{ "PCIe copy gpu0 -> gpu1: gpu1's p2p_write", 0, 1, PLAN_PATH_DIRECT,
	  PCI_US + S / 5e9 * 1e6 },
	{ "PCIe copy gpu1 -> gpu0: a copy writes, gpu0's p2p_read stays out",
	  1, 0, PLAN_PATH_DIRECT, PCI_US + S / 20e9 * 1e6 },
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

static struct plan_options opts_path(enum plan_path path)
{
	struct plan_options o;

	plan_options_default(&o);
	o.path = path;
	return o;
}

static void run_sendrecv(struct run *r, const char *backend,
			 const char *topo, unsigned src, unsigned dst,
			 enum plan_path path)
{
	struct plan_options o = opts_path(path);
	char line[200];

	snprintf(line, sizeof(line),
		 "{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":%.0f,"
		 "\"dtype\":\"fp32\",\"src\":%u,\"dst\":%u}\n", S, src, dst);
	run_trace(r, backend, topo, line, &o);
}

static double sendrecv_us(const char *backend, const char *topo,
			  unsigned src, unsigned dst, enum plan_path path)
{
	struct run r;
	double t;

	run_sendrecv(&r, backend, topo, src, dst, path);
	t = r.rec.coll[0].time_us;
	run_destroy(&r);
	return t;
}

Test(gpu_p2p, analytic_times_by_hand)
{
	for (size_t i = 0; i < NCASES; i++) {
		const struct p2p_case *c = &cases[i];
		double got = sendrecv_us("analytic", DATA("gpu-p2p.yaml"),
					 c->src, c->dst, c->path);

		cr_assert(fabs(got - c->want_us) <= 1e-3 * c->want_us,
			  "%s: %.3f us, expected %.3f", c->what, got, c->want_us);
	}
}

/* The same hops with no caps at all: not a hair of difference. */
Test(gpu_p2p, high_caps_match_round_numbers)
{
	double capped, plain;

	capped = sendrecv_us("analytic", DATA("gpu-p2p.yaml"), 2, 5,
			     PLAN_PATH_DIRECT);
	plain = sendrecv_us("analytic", DATA("round-numbers.yaml"), 0, 1,
			    PLAN_PATH_DIRECT);
	assert_rel(capped, plain, 1e-12);
	capped = sendrecv_us("analytic", DATA("gpu-p2p.yaml"), 2, 5,
			     PLAN_PATH_STAGED);
	plain = sendrecv_us("analytic", DATA("round-numbers.yaml"), 0, 1,
			    PLAN_PATH_STAGED);
	assert_rel(capped, plain, 1e-12);
}

Test(gpu_p2p, model_agrees_with_analytic)
{
	if (!backend_find("model")) {
		printf("test_gpu_p2p: skipped: the model backend is not in this "
		       "build (SimGrid not found)\n");
		cr_skip_test("no model backend");
	}
	for (size_t i = 0; i < NCASES; i++) {
		const struct p2p_case *c = &cases[i];
		double model = sendrecv_us("model", DATA("gpu-p2p.yaml"),
					   c->src, c->dst, c->path);
		double analytic = sendrecv_us("analytic", DATA("gpu-p2p.yaml"),
					      c->src, c->dst, c->path);

		cr_assert(fabs(model - analytic) <= TOL * analytic,
			  "%s: model %.3f us, analytic %.3f", c->what, model,
			  analytic);
		cr_assert(fabs(model - c->want_us) <= TOL * c->want_us,
			  "%s: model %.3f us, expected %.3f", c->what, model,
			  c->want_us);
	}
}

/* The route of the pattern's first connection. */
static const struct plan_route *first_route(const struct plan *p)
{
	const struct plan_pattern *pat = &p->patterns[0];

	cr_assert(pat->nconns > 0);
	return &pat->routes[pat->conns[0].route];
}

/* Whether stage @sk of @r uses resource (@kind, @gpu) on the source's
 * node, or on the destination's with @at_dst. */
static bool stage_uses(const struct plan *p, const struct plan_route *r,
		       enum stage_kind sk, bool at_dst, enum res_kind kind,
		       unsigned gpu)
{
	uint32_t want = res_id(&p->layout, 0, kind, gpu);

	for (unsigned s = 0; s < r->nstages; s++) {
		const struct plan_stage *st = &r->stages[s];

		if (st->kind != sk)
			continue;
		for (unsigned u = st->first_use; u < st->first_use + st->nuses; u++)
			if (r->uses[u].res == want && r->uses[u].at_dst == at_dst)
				return true;
	}
	return false;
}

/* Whether any stage of @r uses a GPU peer-to-peer cap. */
static bool uses_gpu_p2p(const struct plan *p, const struct plan_route *r)
{
	for (unsigned u = 0; u < r->nuses; u++) {
		unsigned node, index;
		enum res_kind kind;

		res_locate(&p->layout, r->uses[u].res, &node, &kind, &index);
		if (kind == RES_GPU_P2P_READ || kind == RES_GPU_P2P_WRITE)
			return true;
	}
	return false;
}

/* Direct: the NIC reads the sender's GPU and writes the receiver's. */
Test(gpu_p2p, direct_stages_use_the_gpus_caps)
{
	struct run r;
	const struct plan *p;
	const struct plan_route *t;

	run_sendrecv(&r, "analytic", DATA("gpu-p2p.yaml"), 0, 4, PLAN_PATH_DIRECT);
	p = &r.plan;
	t = first_route(p);
	cr_assert(stage_uses(p, t, STAGE_NIC_READ, false, RES_GPU_P2P_READ, 0));
	cr_assert(stage_uses(p, t, STAGE_NIC_WRITE, true, RES_GPU_P2P_WRITE, 1));
	cr_assert(!stage_uses(p, t, STAGE_NIC_READ, false, RES_GPU_P2P_WRITE, 0));
	cr_assert(!stage_uses(p, t, STAGE_NIC_WRITE, true, RES_GPU_P2P_READ, 1));
	run_destroy(&r);
}

/* Staged: the GPUs' own threads and host memory only, no peer touches a
 * GPU. */
Test(gpu_p2p, staged_stages_do_not)
{
	struct run r;

	run_sendrecv(&r, "analytic", DATA("gpu-p2p.yaml"), 0, 4, PLAN_PATH_STAGED);
	cr_assert(!uses_gpu_p2p(&r.plan, first_route(&r.plan)));
	run_destroy(&r);
}

/* PCIe P2P inside a node: the destination GPU's write cap, nothing else. */
Test(gpu_p2p, intra_node_pcie_uses_the_destination_write_cap)
{
	struct run r;
	const struct plan *p;
	const struct plan_route *t;

	run_sendrecv(&r, "analytic", DATA("gpu-p2p.yaml"), 0, 1, PLAN_PATH_DIRECT);
	p = &r.plan;
	t = first_route(p);
	cr_assert(stage_uses(p, t, STAGE_INTRA, false, RES_GPU_P2P_WRITE, 1));
	cr_assert(!stage_uses(p, t, STAGE_INTRA, false, RES_GPU_P2P_READ, 0));
	cr_assert(!stage_uses(p, t, STAGE_INTRA, false, RES_GPU_P2P_WRITE, 0));
	run_destroy(&r);
}

/* Over NVLink no GPU's PCIe BAR is involved. */
Test(gpu_p2p, nvlink_uses_no_cap)
{
	struct run r;

	run_sendrecv(&r, "analytic", CONFIG("a100-pcie4-200g.yaml"), 0, 1,
		     PLAN_PATH_DIRECT);
	cr_assert(topo_has_nvlink(&r.plan.topo));
	cr_assert(!uses_gpu_p2p(&r.plan, first_route(&r.plan)));
	run_destroy(&r);
}

Test(gpu_p2p, resource_names_and_capacities)
{
	struct run r;
	const struct plan *p;
	char name[64];
	uint32_t id;

	run_sendrecv(&r, "analytic", DATA("gpu-p2p.yaml"), 0, 3, PLAN_PATH_DIRECT);
	p = &r.plan;
	id = res_id(&p->layout, 1, RES_GPU_P2P_READ, 0);
	res_name(&p->layout, &p->topo, id, name, sizeof(name));
	cr_assert_str_eq(name, "node1/gpu0.p2p_read");
	cr_assert_eq(res_capacity_of(&p->layout, &p->topo, id), 4e9);
	id = res_id(&p->layout, 0, RES_GPU_P2P_WRITE, 1);
	res_name(&p->layout, &p->topo, id, name, sizeof(name));
	cr_assert_str_eq(name, "node0/gpu1.p2p_write");
	cr_assert_eq(res_capacity_of(&p->layout, &p->topo, id), 5e9);
	/* Absent: no cap. */
	cr_assert(isinf(res_capacity_of(&p->layout, &p->topo,
					res_id(&p->layout, 0, RES_GPU_P2P_WRITE, 0))));
	/* The last kinds of the node; the socket's caps keep their names. */
	res_name(&p->layout, &p->topo, res_id(&p->layout, 0, RES_P2P_READ, 0),
		 name, sizeof(name));
	cr_assert_str_eq(name, "node0/cpu0.p2p_read");
	cr_assert_eq(p->layout.per_node,
		     res_id(&p->layout, 0, RES_CE_H2D, 2) + 1);
	run_destroy(&r);
}
