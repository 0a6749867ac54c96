/* SPDX-License-Identifier: MIT */
/*
 * P2P: send/receive and alltoall, NCCL's point-to-point path (not an
 * NCCL_ALGO; src/enqueue.cc, transport/net.cc). A send to a peer is cut
 * into parts on channels of their own (p2p_schedule.h), each moving
 * chunks of NCCL_P2P_NET_CHUNKSIZE (128 KiB) across nodes,
 * NCCL_P2P_NVL_CHUNKSIZE (512 KiB) over NVLink, NCCL_P2P_PCI_CHUNKSIZE
 * (128 KiB) over PCIe, through NCCL_STEPS slots; LL up to
 * NCCL_P2P_LL_THRESHOLD (16 KiB) a part on one node (tuner.c). An
 * alltoall is every rank's sends to every other rank at once, S / n to
 * each. NCCL's tuner has no latency for p2p; a send pays a ring hop's
 * latency for its protocol and the ring's launch.
 */
#include "algo.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "search_loads.h"
#include "topo_path.h"

/*
 * NCCL_NCHANNELS_PER_NET_PEER's default since 2.29 (paths.cc
 * ncclTopoGetNchannels, topo.cc ncclTopoGetLocalNetCountByBw): of the NICs
 * the GPU's p2p channels take in turn (channels_p2p_nic, the node's GPUs
 * sharing them), as many as it takes for their paths' bandwidth to reach
 * the GPU's own to its CPU, and one channel a NIC or one per
 * P2P_PER_CHANNEL_NET_BW (14 GB/s) of them, whichever is more. A PCIe
 * GPU's one link fills with its first NIC.
 */
unsigned algo_p2p_net_channels(const struct nccl_release *r, const struct topology *t,
			       unsigned g)
{
	struct route_end gpu = { ROUTE_GPU, (int)g }, cpu = { ROUTE_MEM, t->gpus[g].socket };
	unsigned all[TOPO_MAX_GPUS];
	int first;
	struct res_layout l;
	double gpu_bw, bw = 0;
	unsigned count = 0, by_bw;

	for (unsigned k = 0; k < t->ngpus && k < TOPO_MAX_GPUS; k++)
		all[k] = k;
	first = channels_p2p_nic(r, t, all, t->ngpus, g, 0);
	if (first < 0)
		return 2;
	res_layout_init(&l, t, 1);
	gpu_bw = search_path_bw(r, &l, t, gpu, cpu);
	for (unsigned c = 0; c < P2P_MAX_CHANNELS; c++) {
		int nic = channels_p2p_nic(r, t, all, t->ngpus, g, c);

		if (c && nic == first)
			break;
		bw += search_net_bw(r, &l, t, g, (unsigned)nic);
		count++;
		if (bw >= gpu_bw)
			break;
	}
	by_bw = ((unsigned)bw + 13) / 14;
	return by_bw > count ? by_bw : count;
}

bool algo_p2p_network(const struct plan *p, enum trace_op op, unsigned nnodes, int src,
		      int dst)
{
	if (op == TRACE_OP_SENDRECV)
		return plan_node_of(p, (unsigned)src) != plan_node_of(p, (unsigned)dst);
	return nnodes > 1;
}

/*
 * The chunk: the pipe's step (the LL step, or the communicator's
 * p2pChunkSize, set when it was built), a quarter of it for a send of
 * less than a step over the network and half for less than eight steps
 * (addP2pToPlan: "Tune chunk size for the network"; an alltoall's sends
 * to its own node keep the step).
 */
static uint64_t algo_p2p_chunk(const struct plan *p, const struct plan_pattern *pat,
			const struct plan_pipe *pp, uint64_t bytes, unsigned nchannels)
{
	const struct plan_conn *c = &pat->conns[pp->first_conn];
	uint64_t step = pp->chunk_bytes;
	uint64_t send = pat->op == TRACE_OP_ALLTOALL && pat->nranks ? bytes / pat->nranks : bytes;
	bool network = plan_node_of(p, c->src_rank) != plan_node_of(p, c->dst_rank);

	(void)nchannels;
	if (pat->proto == PROTO_LL)
		return step;
	if (network && send < step)
		return step / 4;
	if (network && send < 8 * step)
		return step / 2;
	return step;
}

static int p2p_pair(struct algo_build *b, unsigned src, unsigned dst,
		    unsigned channel, double share)
{
	uint32_t conn;
	int err;

	err = algo_pipe_begin(b, PIPE_CHAIN, channel, share);
	/* Simple's step is the communicator's p2pChunkSize (p2p_budget) */
	if (!err && b->pat->proto != PROTO_LL)
		algo_pipe(b)->chunk_bytes = b->t->p2p.step;
	if (!err)
		err = algo_conn(b, CONN_P2P, src, dst, channel, share, -1, &conn);
	if (!err)
		err = algo_hop(b, conn);
	return err;
}

/* Where @rank is in the pattern's sorted ranks. */
static unsigned rank_index(const struct plan_pattern *pat, unsigned rank)
{
	unsigned lo = 0, hi = pat->nranks;

	while (hi - lo > 1) {
		unsigned mid = lo + (hi - lo) / 2;

		if (pat->ranks[mid] <= rank)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * A rank's p2p work as NCCL's kernel takes it: on each channel in
 * batches of up to NCCL_MAX_DEV_WORK_P2P_PER_BATCH (8) sends, from one
 * group of 8 rounds, one batch after another (enqueue.cc
 * ncclAddWorkBatchToPlan). A send ends later by the batches before its
 * own on its channel, each its slowest send's latency; their bytes share
 * the links with its own, as if all moved at once (plan_pipe.delay).
 */
struct batches {
	int group[P2P_MAX_CHANNELS];  /* per channel: round / 8 of its batch,
				       * -1 none */
	unsigned n[P2P_MAX_CHANNELS]; /* sends in it */
	double start[P2P_MAX_CHANNELS], latency[P2P_MAX_CHANNELS];
};

/* When the batch of a send of round @round on channel @c, latency @lat,
 * starts: the latencies of those before it. */
static double batch_start(struct batches *w, unsigned c, unsigned round, double lat)
{
	int group = (int)(round / 8);

	if (w->group[c] >= 0 && (w->n[c] == 8 || w->group[c] != group)) {
		w->start[c] += w->latency[c];
		w->latency[c] = 0;
		w->n[c] = 0;
	}
	w->group[c] = group;
	w->n[c]++;
	if (lat > w->latency[c])
		w->latency[c] = lat;
	return w->start[c];
}

/* The parts of the send from ranks[@i] to ranks[@j] in round @round, on
 * the channels of that round; with @w, each delayed by the batches
 * before its own. */
static int p2p_send(struct algo_build *b, const struct p2p_rounds *r, unsigned i, unsigned j,
		    unsigned round, struct batches *w)
{
	struct plan_pattern *pat = b->pat;
	unsigned parts = pat->parts ? pat->parts : 1;
	double share = pat->op == TRACE_OP_ALLTOALL ? 1.0 / pat->nranks : 1.0;
	int err = 0;

	for (unsigned part = 0; part < parts && !err; part++) {
		unsigned c = p2p_part_channel(&b->t->p2p, r, round, part);

		err = p2p_pair(b, pat->ranks[i], pat->ranks[j], c, share / parts);
		if (!err && w && c < P2P_MAX_CHANNELS)
			algo_pipe(b)->delay = batch_start(w, c, round,
							  pat->conns[pat->nconns - 1].latency);
	}
	return err;
}

/*
 * An alltoall over whole nodes alike (each the same GPUs of its node),
 * with no switches between them (a crossbar: fabric tiers 0), moves the
 * same at every node. Each node's links carry its own sends and one
 * send from every other node for each of its own to a node, and NCCL's
 * rounds take a rank's peers by their distance from it (init.cc
 * ncclP2pSchedule: a round's channel and batch depend on the distance
 * alone), so what a node's links carry does not depend on where the
 * sending node sits. The sends are then planned from two nodes: each
 * rank of the first two sends to its own node as it would and, in the
 * same round, on the same channel, after the same batches, to the other
 * of the two nodes' GPU of the place its peer has on its node. Every
 * link of the two nodes carries the sends it carries in the whole
 * alltoall, one for one, and max-min fairness, whose shares are unique,
 * gives each the rate its own has there (tests/unit/test_alltoall_fold.c
 * against every send planned): 2 L (n - 1) sends instead of n (n - 1),
 * so an alltoall of any size is planned (8 192 ranks: 131 000 sends
 * where every peer's were 67 million). A switched fabric's ECMP gives
 * each pair of nodes its own uplinks: there every send is planned; so
 * it is where other calls may run beside it (plan.calls_alone), whose
 * sends on the nodes left out would meet none of its own.
 */
unsigned algo_alltoall_fold(const struct plan *p, const unsigned *ranks, unsigned n)
{
	unsigned local = 0;

	if (p->opts.alltoall_every_send || p->layout.fabric.tiers || !p->calls_alone || !n)
		return 0;
	while (local < n && plan_node_of(p, ranks[local]) == plan_node_of(p, ranks[0]))
		local++;
	if (n % local || n / local < 3)
		return 0;
	for (unsigned i = local; i < n; i++) {
		unsigned first = ranks[i - i % local];

		if (ranks[i] % p->gpus_per_node != ranks[i % local] % p->gpus_per_node ||
		    plan_node_of(p, ranks[i]) != plan_node_of(p, first) ||
		    plan_node_of(p, first) == plan_node_of(p, ranks[i - local]))
			return 0;
	}
	return local;
}

/* An alltoall: every rank's sends, round by round; folded onto the first
 * two nodes where it can be (algo_alltoall_fold). */
static int alltoall_build(struct algo_build *b, const struct p2p_rounds *r)
{
	const struct plan_pattern *pat = b->pat;
	unsigned n = pat->nranks, local = algo_alltoall_fold(b->p, pat->ranks, n);
	unsigned senders = local ? 2 * local : n;
	int err = 0;

	for (unsigned i = 0; i < senders && !err; i++) {
		struct batches w;

		memset(&w, 0, sizeof(w));
		memset(w.group, 0xff, sizeof(w.group));
		for (unsigned round = 1; round < n && !err; round++) {
			unsigned j = p2p_round_peer(r, i, round);

			/* another node's: the other of the two's */
			if (local && j / local != i / local)
				j = (1 - i / local) * local + j % local;
			err = p2p_send(b, r, i, j, round, &w);
		}
	}
	return err;
}

static int p2p_build(struct algo_build *b)
{
	struct plan_pattern *pat = b->pat;
	unsigned n = pat->nranks;
	struct p2p_rounds r;
	int err;

	pat->base_latency = 1e-6 * nccl_launch_latency(b->p->nccl, ALGO_RING, pat->proto);
	err = p2p_rounds_init(&r, b->p, pat->ranks, n);
	if (err)
		return err;
	if (pat->op == TRACE_OP_SENDRECV) {
		unsigned i = rank_index(pat, (unsigned)pat->root);
		unsigned j = rank_index(pat, (unsigned)pat->peer);

		err = p2p_send(b, &r, i, j, p2p_round_of(&r, i, j), NULL);
	} else {
		err = alltoall_build(b, &r);
	}
	p2p_rounds_destroy(&r);
	return err;
}

const struct algo_ops algo_p2p = {
	.name = "P2P",
	.build = p2p_build,
	.chunk = algo_p2p_chunk,
};
