/* SPDX-License-Identifier: MIT */
/*
 * route: one connection's stages, each a list of the node's resources
 * (resources.h) on the source's or the destination's node.
 *
 * Across nodes the send side is the NIC reading GPU memory (direct), or
 * the GPU putting the data in host memory first: with its own threads'
 * stores over PCIe, as NCCL does without GPUDirect RDMA (its kernels
 * write the proxy's host FIFO, transport/net.cc), or with a copy engine,
 * as MPI and UCX pipeline cudaMemcpyAsync through bounce buffers
 * (../shared/notes/nccl-algorithms.md §3). The receive side mirrors it.
 * Host buffers live in the NIC's NUMA node, where NCCL's proxy allocates
 * them. Each hand-over between GPU and host memory ends a segment: the
 * next segment starts once the whole slice is there.
 */
#include "route.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "channels.h"
#include "gdr_policy.h"
#include "nccl_tuning.h"
#include "p2p_policy.h"

_Static_assert(4 * TOPO_MAX_SWITCH_DEPTH + 16 <= PLAN_MAX_USES,
	       "a connection through the deepest switch tree must fit its uses");

struct rb {
	const struct plan *p;
	struct plan_route *r;
	unsigned segment;
};

static void stage_begin(struct rb *b, enum stage_kind kind)
{
	struct plan_route *r = b->r;
	struct plan_stage *s = &r->stages[r->nstages++];

	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->segment = b->segment;
	s->bandwidth = INFINITY;
	s->private_cap = INFINITY;
	s->first_use = r->nuses;
}

/* The stage being built. */
static struct plan_stage *stage(struct rb *b)
{
	return &b->r->stages[b->r->nstages - 1];
}

static void use_weighted(struct rb *b, uint32_t res, bool at_dst, double weight)
{
	struct plan_route *r = b->r;
	struct plan_stage *s = stage(b);
	double c = res_capacity_of(&b->p->layout, &b->p->topo, res) / weight;

	if (r->nuses >= PLAN_MAX_USES)
		return;
	r->uses[r->nuses++] = (struct plan_use){ res, at_dst, weight };
	s->nuses++;
	if (c < s->bandwidth)
		s->bandwidth = c;
}

static void use(struct rb *b, enum res_kind kind, unsigned index, bool at_dst)
{
	use_weighted(b, b->p->layout.base[kind] + index, at_dst, 1);
}

static void use_route(struct rb *b, bool at_dst, struct route_end from,
		      struct route_end to, enum res_kind p2p)
{
	struct route rt;

	route_build(&b->p->layout, &b->p->topo, from, to, p2p, &rt);
	for (unsigned i = 0; i < rt.n; i++)
		use_weighted(b, rt.res[i], at_dst, 1);
	stage(b)->latency += rt.latency;
}

/* A copy engine's copy: shared engines, a private cap, per-slice work. */
static void use_copy_engine(struct rb *b, enum res_kind kind, unsigned gpu,
			    bool at_dst)
{
	const struct topo_staging *stg = &b->p->topo.staging;
	struct plan_stage *s;

	use(b, kind, gpu, at_dst);
	s = stage(b);
	s->chunk_overhead = stg->chunk_overhead;
	if (stg->copy_bw > 0)
		s->private_cap = stg->copy_bw;
	if (s->private_cap < s->bandwidth)
		s->bandwidth = s->private_cap;
	if (s->private_cap < b->r->private_cap)
		b->r->private_cap = s->private_cap;
}

static void note(struct route_notes *n, bool direct, const char *why)
{
	if (direct) {
		n->direct_sides++;
		return;
	}
	n->staged_sides++;
	if (why && why[0] && !n->why[0])
		snprintf(n->why, sizeof(n->why), "%s", why);
}

/*
 * May this side move GPU memory directly? The path option first, then
 * NCCL's GDR level, and for sends NCCL_NET_GDR_READ's default: off
 * before Ampere unless the GPUs have NVLink (paths.cc ncclTopoCheckGdr).
 */
static bool side_direct(const struct plan *p, unsigned gpu, int nic, bool send,
			struct route_notes *n)
{
	char why[200];

	if (p->opts.path == PLAN_PATH_STAGED || p->opts.path == PLAN_PATH_STAGED_MEMCPY) {
		note(n, false, NULL);
		return false;
	}
	if (!gdr_allowed(&p->topo, (int)gpu, nic, p->opts.gdr_level, why, sizeof(why))) {
		note(n, false, why);
		return false;
	}
	/* paths.cc ncclTopoCheckGdr: reads need a GPU with a PATH_NVL peer */
	if (send && p->topo.gpu_arch < TOPO_GPU_AMPERE &&
	    (!topo_has_nvlink(&p->topo) || !p2p_nvlink_usable(p->opts.p2p_level))) {
		snprintf(why, sizeof(why),
			 "GPUDirect RDMA reads are off before Ampere without NVLink (NCCL_NET_GDR_READ)");
		note(n, false, why);
		return false;
	}
	note(n, true, NULL);
	return true;
}

static struct route_end gpu_end(unsigned g)
{
	return (struct route_end){ ROUTE_GPU, (int)g };
}

static struct route_end nic_end(int n)
{
	return (struct route_end){ ROUTE_NIC, n };
}

/* Socket @s's host memory as a route's end. */
static struct route_end socket_mem(int s)
{
	return (struct route_end){ ROUTE_MEM, s };
}

static struct route_end mem_end(const struct plan *p, int nic)
{
	return socket_mem(p->topo.nics[nic].dev.socket);
}

/* GPU memory into the NIC: read directly, or through host memory. */
/* Staging with copies: MPI's way, and gdrlab's own verbs path (emu and
 * real copy into their bounce buffers). */
static bool memcpy_way(const struct plan *p)
{
	return p->opts.path == PLAN_PATH_STAGED_MEMCPY || p->opts.ring_only;
}

static void send_side(struct rb *b, unsigned gpu, int nic, bool direct,
		      bool host_fifo)
{
	if (direct && !host_fifo) {
		stage_begin(b, STAGE_NIC_READ);
		use(b, RES_GPU_P2P_READ, gpu, false);
		use_route(b, false, gpu_end(gpu), nic_end(nic), RES_P2P_READ);
		stage(b)->gpu_memory = true;
		return;
	}
	stage_begin(b, STAGE_D2H);
	use_route(b, false, gpu_end(gpu), mem_end(b->p, nic), RES_P2P_WRITE);
	if (memcpy_way(b->p))
		use_copy_engine(b, RES_CE_D2H, gpu, false);
	b->segment++;
	stage_begin(b, STAGE_NIC_READ);
	use_route(b, false, mem_end(b->p, nic), nic_end(nic), RES_P2P_READ);
}

/* The NIC into GPU memory, directly or through host memory. */
static void recv_side(struct rb *b, unsigned gpu, int nic, bool direct,
		      bool at_dst)
{
	if (direct) {
		stage_begin(b, STAGE_NIC_WRITE);
		use_route(b, at_dst, nic_end(nic), gpu_end(gpu), RES_P2P_WRITE);
		use(b, RES_GPU_P2P_WRITE, gpu, at_dst);
		stage(b)->gpu_memory = true;
		return;
	}
	stage_begin(b, STAGE_NIC_WRITE);
	use_route(b, at_dst, nic_end(nic), mem_end(b->p, nic), RES_P2P_WRITE);
	b->segment++;
	stage_begin(b, STAGE_H2D);
	use_route(b, at_dst, mem_end(b->p, nic), gpu_end(gpu), RES_P2P_WRITE);
	if (memcpy_way(b->p))
		use_copy_engine(b, RES_CE_H2D, gpu, at_dst);
}

/* The NIC ports: out of @nic_src on the source node, into @nic_dst on
 * the node @rx_at_dst says (the source's own for CollNet's way back). */
static void wire(struct rb *b, bool tx, bool rx, int nic_src, int nic_dst,
		 bool rx_at_dst, unsigned switches)
{
	const struct topology *t = &b->p->topo;
	struct plan_stage *s;

	stage_begin(b, STAGE_WIRE);
	s = stage(b);
	if (tx) {
		use(b, RES_PORT_TX, (unsigned)nic_src, false);
		s->latency += t->nics[nic_src].latency;
	}
	if (rx) {
		use(b, RES_PORT_RX, (unsigned)nic_dst, rx_at_dst);
		s->latency += t->nics[nic_dst].latency;
	}
	s->latency += fabric_latency(t, switches);
}

/*
 * @node_gpus: the communicator's GPUs on the node, for NCCL's P2P level
 * (p2p_policy.h); beyond it NCCL's SHM transport carries the data: the
 * GPU's threads store into a host buffer the receiver allocated
 * (NCCL_SHM_LOCALITY's default, the receive side; NCCL binds each rank to
 * its GPU's NUMA node, so the pages are there: shm.cc), and the peer's
 * threads load it once the slice is whole.
 */
static void intra(struct rb *b, unsigned src, unsigned dst, unsigned node_gpus,
		  struct route_notes *n)
{
	const struct topology *t = &b->p->topo;
	unsigned via, pairs[2], npairs = topo_wired_pairs(t, src, dst, pairs);
	char why[200];

	stage_begin(b, STAGE_INTRA);
	if (p2p_refused(b->p->nccl, b->p->opts.p2p_level, t, src, dst, node_gpus, why,
			sizeof(why))) {
		/* SHM, as above: stored into the receiver's socket memory,
		 * loaded out of it once whole; the collective says why */
		if (n && !n->shm[0])
			snprintf(n->shm, sizeof(n->shm), "%s-%s: %s", t->gpus[src].name,
				 t->gpus[dst].name, why);
		use_route(b, false, gpu_end(src), socket_mem(t->gpus[dst].socket), RES_P2P_WRITE);
		b->segment++;
		stage_begin(b, STAGE_INTRA);
		use_route(b, false, socket_mem(t->gpus[dst].socket), gpu_end(dst), RES_P2P_WRITE);
	} else if (npairs) {
		/* A wired mesh's pairs, one hop each; through a GPU wired to
		 * both (PATH_NVB), NCCL's P2P transport keeps the buffer in
		 * that GPU's memory (p2p.cc's intermediate rank): both pairs
		 * carry the data. */
		for (unsigned i = 0; i < npairs; i++) {
			use(b, RES_NVLINK_PAIR, pairs[i], false);
			stage(b)->latency += t->gpu_fabric.latency;
		}
	} else if (topo_nvlink_way(t, src, dst, &via) != TOPO_NVLINK_NONE) {
		use(b, RES_NVLINK_TX, src, false);
		use(b, RES_NVLINK_RX, dst, false);
		stage(b)->latency += t->gpu_fabric.latency;
	} else {
		/* A GPU copies to a peer over PCIe by writing into it. */
		use_route(b, false, gpu_end(src), gpu_end(dst), RES_P2P_WRITE);
		use(b, RES_GPU_P2P_WRITE, dst, false);
	}
}

static unsigned recv_judged_gpu(const struct plan *p, unsigned gpu, int nic,
				unsigned node_gpus)
{
	int relay = plan_pxn_for(p, node_gpus) ?
			    gdr_pxn_relay(&p->topo, (int)gpu, nic, p->opts.gdr_level) : -1;

	return relay >= 0 ? (unsigned)relay : gpu;
}

static void network(struct rb *b, enum proto_id proto,
		    const struct route_req *q, struct route_notes *n)
{
	struct plan_route *r = b->r;
	unsigned sender = q->relay_gpu >= 0 ? (unsigned)q->relay_gpu : q->src_gpu;
	bool sd, rd;

	if (q->relay_gpu >= 0) {
		/* PXN: over NVLink into the relay GPU's buffer; its proxy
		 * sends from there. */
		intra(b, q->src_gpu, sender, q->node_gpus, n);
		b->segment++;
	}
	sd = side_direct(b->p, sender, q->nic_src, true, n);
	/* Receives stay local; NCCL judges their GPUDirect RDMA by the
	 * receiver's PXN relay, when it has one, and lets the NIC write. */
	rd = side_direct(b->p, recv_judged_gpu(b->p, q->dst_gpu, q->nic_dst, q->node_gpus),
			 q->nic_dst, false, n);
	/* LL's send FIFO stays in host memory even with GPUDirect RDMA:
	 * the proxy polls its flags there (transport/net.cc). */
	send_side(b, sender, q->nic_src, sd, proto == PROTO_LL && !memcpy_way(b->p));
	wire(b, true, true, q->nic_src, q->nic_dst, true, q->switches);
	/* Its way through the switches depends on the nodes it joins: each
	 * connection's own (plan_conn_fabric). */
	r->fabric = b->p->layout.fabric.tiers > 0;
	recv_side(b, q->dst_gpu, q->nic_dst, rd, true);
	r->send_direct = sd;
	r->recv_direct = rd;
}

/* A head GPU's slice to the reducing switches and the result back. */
static void collnet(struct rb *b, const struct route_req *q,
		    struct route_notes *n)
{
	struct plan_route *r = b->r;
	bool sd = side_direct(b->p, q->src_gpu, q->nic_src, true, n);
	bool rd = side_direct(b->p, q->src_gpu, q->nic_src, false, n);

	send_side(b, q->src_gpu, q->nic_src, sd, false);
	wire(b, true, false, q->nic_src, q->nic_src, false, q->switches);
	/* The fabric reduces a slice once all nodes' have arrived. */
	b->segment++;
	wire(b, false, true, q->nic_src, q->nic_src, false, q->switches);
	recv_side(b, q->src_gpu, q->nic_src, rd, false);
	r->send_direct = sd;
	r->recv_direct = rd;
}

/*
 * NVLS: a GPU's slice goes into the NVSwitch, which reduces it with the
 * others' (multimem.ld_reduce) and hands the owner its 1/ppn part; the
 * owner's result goes back in (multimem.st) and the switch multicasts it
 * to every GPU. Per payload byte a GPU sends 1 + 1/ppn and receives as
 * much: the NVLink traffic is half a ring's.
 */
static void nvls(struct rb *b, const struct route_req *q, bool reduce)
{
	double ppn = b->p->gpus_per_node;
	/* the switch moves NVLS bytes at NCCL's nvlsEfficiency of the
	 * links' rate, in NVLS and NVLS-tree alike (the tree's NIC hops are
	 * not NVLS and run at the links' own), under every release's
	 * tables: it is the machine's, not the tuner's */
	double w = 1 / nccl_nvls_hw_efficiency(b->p->topo.gpu_arch);
	unsigned g = q->src_gpu;

	stage_begin(b, STAGE_INTRA);
	use_weighted(b, b->p->layout.base[reduce ? RES_NVLINK_TX : RES_NVLINK_RX] + g,
		     false, w);
	use_weighted(b, b->p->layout.base[reduce ? RES_NVLINK_RX : RES_NVLINK_TX] + g,
		     false, w / ppn);
	stage(b)->latency += b->p->topo.gpu_fabric.latency;
}

/* The NIC channel @channel takes at local GPU @gpu: a p2p connection's
 * (channels_p2p_nic, @gpu among the communicator's @n @gpus of its node;
 * -1 where it is not one of them) or, with @gpus NULL, a collective's. */
static int p2p_or_channel_nic(const struct plan *p, const unsigned *gpus, unsigned n,
			      unsigned gpu, unsigned channel)
{
	if (!gpus)
		return channels_nic(&p->topo, gpu, channel);
	for (unsigned k = 0; k < n; k++)
		if (gpus[k] == gpu)
			return channels_p2p_nic(p->nccl, &p->topo, gpus, n, k, channel);
	return -1;
}

void route_pick_nics(const struct plan *p, struct route_req *q,
		     unsigned channel)
{
	const struct topology *t = &p->topo;

	bool chosen = q->nic_src >= 0;

	q->relay_gpu = -1;
	if (q->kind == CONN_COLLNET) {
		if (!chosen)
			q->nic_src = channels_nic(t, q->src_gpu, channel);
		q->nic_dst = q->nic_src;
		return;
	}
	if (q->intra || q->kind != CONN_P2P) {
		q->nic_src = q->nic_dst = -1;
		return;
	}
	if (q->nic_src < 0)
		q->nic_src = p2p_or_channel_nic(p, q->src_gpus, q->nsrc_gpus, q->src_gpu, channel);
	if (q->nic_dst < 0)
		q->nic_dst = p2p_or_channel_nic(p, q->dst_gpus, q->ndst_gpus, q->dst_gpu, channel);
	if (!plan_pxn_for(p, q->node_gpus) || q->nic_src < 0)
		return;
	/* A send/receive leaves by the receiver's rail when the sender's
	 * own NIC is beyond PXB and that rail's is not (a collective's
	 * layout put its channels on their NICs already). With switches
	 * modelled, where rails decide which leaf a hop ends on, always:
	 * NCCL_P2P_PXN_LEVEL's default 2 ("always use PXN", NCCL 2.12+;
	 * ../shared/notes/nccl-algorithms.md §2); the crossbar keeps the
	 * narrower rule it always had. */
	if (!chosen && topo_has_nvlink(t) && q->dst_gpu != q->src_gpu &&
	    q->dst_gpu < t->ngpus &&
	    (p->layout.fabric.tiers ||
	     topo_gpu_nic_path(t, (int)q->src_gpu, q->nic_src) > TOPO_PATH_PXB)) {
		/* the NIC the GPU of the receiver's place on the sender's
		 * node takes, none where the communicator has no such GPU
		 * there (search.cc ncclTopoGetNetDev) */
		int rail = p2p_or_channel_nic(p, q->src_gpus, q->nsrc_gpus, q->dst_gpu, channel);

		/* in a wired mesh only where the sender has NVLinks to the
		 * rail's GPU (paths.cc: PXN needs PATH_NVL to the peer) */
		if (rail >= 0 && topo_gpu_nic_path(t, (int)q->dst_gpu, rail) <= TOPO_PATH_PXB &&
		    (!t->gpu_fabric.wired ||
		     topo_gpu_nic_path(t, (int)q->src_gpu, rail) <= TOPO_PATH_PXB ||
		     gdr_pxn_relay(t, (int)q->src_gpu, rail, p->opts.gdr_level) >= 0))
			q->nic_src = rail;
	}
	q->relay_gpu = gdr_pxn_relay(t, (int)q->src_gpu, q->nic_src, p->opts.gdr_level);
}

void route_make(const struct plan *p, enum proto_id proto,
		const struct route_req *q, struct plan_route *r,
		struct route_notes *notes)
{
	struct rb b = { .p = p, .r = r };
	unsigned via;

	memset(r, 0, sizeof(*r));
	r->private_cap = INFINITY;
	r->nic_src = q->nic_src;
	r->nic_dst = q->nic_dst;
	r->pxn_gpu = q->relay_gpu >= 0 ? (unsigned)q->relay_gpu : q->src_gpu;
	switch (q->kind) {
	case CONN_NVLS_REDUCE:
	case CONN_NVLS_MCAST:
		r->intra = true;
		r->hop = HOP_NVLINK;
		nvls(&b, q, q->kind == CONN_NVLS_REDUCE);
		break;
	case CONN_COLLNET:
		r->hop = HOP_NET;
		collnet(&b, q, notes);
		break;
	case CONN_P2P:
		if (q->intra) {
			r->intra = true;
			r->hop = topo_nvlink_way(&p->topo, q->src_gpu, q->dst_gpu, &via) ==
						 TOPO_NVLINK_DIRECT &&
					 p2p_nvlink_usable(p->opts.p2p_level) ?
					 HOP_NVLINK :
					 HOP_PCI;
			intra(&b, q->src_gpu, q->dst_gpu, q->node_gpus, notes);
		} else {
			r->hop = HOP_NET;
			network(&b, proto, q, notes);
		}
		break;
	}
	r->cut_through = q->kind == CONN_P2P && q->intra && proto != PROTO_SIMPLE;
	for (unsigned i = 0; i < r->nstages; i++) {
		r->latency += r->stages[i].latency;
		/* Staged the memcpy way where a side copies. */
		r->memcpy |= r->stages[i].chunk_overhead > 0 ||
			     isfinite(r->stages[i].private_cap);
	}
}
