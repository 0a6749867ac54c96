/* SPDX-License-Identifier: MIT */
/*
 * P2P: send/receive and alltoall, NCCL's point-to-point path (not an
 * NCCL_ALGO; src/enqueue.cc, transport/net.cc). A send is split over a
 * few channels per peer, each moving chunks of NCCL_P2P_NET_CHUNKSIZE
 * (128 KiB) across nodes, NCCL_P2P_NVL_CHUNKSIZE (512 KiB) over NVLink,
 * NCCL_P2P_PCI_CHUNKSIZE (128 KiB) over PCIe, through NCCL_STEPS slots;
 * LL up to NCCL_P2P_LL_THRESHOLD (16 KiB) a channel. An alltoall is
 * every rank's sends to every other rank at once, each peer on its own
 * channel. NCCL's tuner has no latency for p2p; a send pays a ring hop's
 * latency for its protocol and the ring's launch.
 */
#include "algo.h"

#include <errno.h>
#include <stdio.h>

#include "topo_path.h"

/* NCCL_NCHANNELS_PER_NET_PEER's default since 2.29 is max(NICs,
 * netBw / 14 GB/s) (paths.cc); over NVLink NCCL_NCHANNELS_PER_PEER is 2. */
unsigned algo_p2p_net_channels(const struct topology *t, unsigned g)
{
	unsigned nics = 0;
	double bw = 0;

	for (unsigned c = 0; c < t->nnics; c++) {
		int nic = channels_nic(t, g, c);
		bool seen = false;

		for (unsigned k = 0; k < c; k++)
			seen |= channels_nic(t, g, k) == nic;
		if (nic >= 0 && !seen) {
			nics++;
			bw += t->nics[nic].line_rate / 1e9;
		}
	}
	if (nics < (unsigned)(bw / 14 + 0.999))
		nics = (unsigned)(bw / 14 + 0.999);
	return nics ? nics : 1;
}

unsigned algo_p2p_channels(const struct plan *p, unsigned src, unsigned dst)
{
	if (plan_node_of(p, src) == plan_node_of(p, dst))
		return 2;
	return p->p2p_net_channels[src % p->gpus_per_node]; /* plan_build's */
}

static uint64_t algo_p2p_chunk(const struct plan *p, const struct plan_pattern *pat,
			uint64_t bytes, unsigned nchannels)
{
	(void)bytes;
	(void)nchannels;
	if (pat->proto == PROTO_LL)
		return proto_step_bytes(PROTO_LL);
	if (pat->nnodes > 1)
		return 131072;
	/* NCCL_P2P_NVL_CHUNKSIZE where every GPU reaches every other over
	 * NVLink, else NCCL_P2P_PCI_CHUNKSIZE (init.cc) */
	return p2p_all_nvlink(p->nccl, p->opts.p2p_level, &p->topo) ? 524288 : 131072;
}

static int p2p_pair(struct algo_build *b, unsigned src, unsigned dst,
		    unsigned channel, double share)
{
	uint32_t conn;
	int err;

	err = algo_pipe_begin(b, PIPE_CHAIN, channel, share);
	if (!err)
		err = algo_conn(b, CONN_P2P, src, dst, channel, share, -1, &conn);
	if (!err)
		err = algo_hop(b, conn);
	return err;
}

static int p2p_build(struct algo_build *b)
{
	struct plan_pattern *pat = b->pat;
	unsigned n = pat->nranks;
	int err = 0;

	pat->base_latency = 1e-6 * nccl_launch_latency(b->p->nccl, ALGO_RING, pat->proto);
	if (pat->op == TRACE_OP_SENDRECV) {
		for (unsigned c = 0; c < b->nch && !err; c++)
			err = p2p_pair(b, (unsigned)pat->root, (unsigned)pat->peer, c,
				       1.0 / b->nch);
		return err;
	}
	/* Alltoall: S/n to each peer; peers rotate over the channels. */
	for (unsigned i = 0; i < n && !err; i++)
		for (unsigned k = 1; k < n && !err; k++)
			err = p2p_pair(b, pat->ranks[i], pat->ranks[(i + k) % n],
				       k % (b->nch ? b->nch : 1), 1.0 / n);
	return err;
}

const struct algo_ops algo_p2p = {
	.name = "P2P",
	.build = p2p_build,
	.chunk = algo_p2p_chunk,
};
