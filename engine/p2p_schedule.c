/* SPDX-License-Identifier: MIT */
/*
 * p2p_schedule: NCCL's spreading of sends over channels (p2p_schedule.h),
 * from v2.30.7-1's paths.cc, init.cc, enqueue.cc and channel.h.
 */
#include "p2p_schedule.h"

#include <errno.h>
#include <stdlib.h>

#include "algo.h"
#include "channels.h"
#include "gcd.h"
#include "nccl_tuning.h"
#include "p2p_policy.h"
#include "plan.h"

#define P2P_PER_BATCH 8     /* NCCL_MAX_DEV_WORK_P2P_PER_BATCH (device.h) */

static unsigned pow2_up(unsigned x)
{
	unsigned p = 1;

	while (p < x)
		p <<= 1;
	return p;
}

/* The p2pChunkSize of the communicator of the sorted ranks @ranks (@n,
 * over @nnodes nodes), the bytes of a Simple step (init.cc):
 * NCCL_P2P_NET_CHUNKSIZE (128 KiB) across nodes, twice that on Arm CPUs
 * with Blackwell GPUs ("GBx platforms only have 4 GPUs per host"),
 * NCCL_P2P_NVL_CHUNKSIZE (512 KiB) where every two of its GPUs reach each
 * other over NVLink, else NCCL_P2P_PCI_CHUNKSIZE (128 KiB). */
static uint64_t p2p_chunk_size(const struct plan *p, const unsigned *ranks, unsigned n,
			       unsigned nnodes)
{
	unsigned gpus[TOPO_MAX_GPUS], m = 0;

	if (nnodes > 1)
		return p->topo.cpu_vendor == TOPO_CPU_ARM && p->topo.gpu_arch >= TOPO_GPU_BLACKWELL ?
			       262144 :
			       131072;
	for (unsigned i = 0; i < n && m < TOPO_MAX_GPUS; i++)
		gpus[m++] = ranks[i] % p->gpus_per_node;
	return p2p_all_nvlink(p->nccl, p->opts.p2p_level, &p->topo, gpus, m) ? 524288 : 131072;
}

/*
 * Channels a send from GPU @g to GPU @h of its node takes at most
 * (paths.cc ncclTopoGetNchannels): two per NVLink of their path, counted
 * as NCCL does (path bandwidth / its figure for one link, at least one);
 * two over PCIe.
 */
static unsigned intra_channels(const struct plan *p, unsigned g, unsigned h,
			       unsigned node_gpus)
{
	const struct topology *t = &p->topo;
	double link = p->nccl->nvlink_link_bw[t->gpu_arch];
	unsigned via, links;

	/* a pair refused peer to peer goes through the CPU (paths.cc) */
	if (!p2p_allowed(p->nccl, p->opts.p2p_level, t, g, h, node_gpus))
		return 2;
	switch (topo_nvlink_way(t, g, h, &via)) {
	case TOPO_NVLINK_NONE:
		return 2;
	case TOPO_NVLINK_VIA:
		links = topo_pair_links(t, g, via);
		if (topo_pair_links(t, via, h) < links)
			links = topo_pair_links(t, via, h);
		break;
	default:
		links = t->gpu_fabric.wired ? topo_pair_links(t, g, h) :
			t->gpu_fabric.links ? t->gpu_fabric.links :
					      (unsigned)(t->gpu_fabric.bw / 1e9 / link);
		break;
	}
	return 2 * (links ? links : 1);
}

void p2p_budget_init(struct p2p_budget *b, const struct plan *p, const unsigned *ranks,
		     unsigned n, unsigned nnodes, unsigned comm_channels)
{
	unsigned fewest = P2P_MAX_CHANNELS;

	b->nnodes = nnodes;
	b->step = p2p_chunk_size(p, ranks, n, nnodes);
	if (p->opts.ring_only) {
		b->channels = b->per_peer = b->min_parts = 1;
		return;
	}
	b->channels = pow2_up(comm_channels < P2P_MAX_CHANNELS ? comm_channels : P2P_MAX_CHANNELS);
	/* ncclTopoComputeP2pChannelsPerPeer: the fewest of any peer's */
	for (unsigned s = 0, e; s < n; s = e) {
		unsigned node = plan_node_of(p, ranks[s]);

		for (e = s; e < n && plan_node_of(p, ranks[e]) == node; e++)
			;
		for (unsigned i = s; i < e; i++) {
			unsigned g = ranks[i] % p->gpus_per_node;

			for (unsigned j = s; j < e; j++) {
				unsigned c = j == i ? fewest :
						      intra_channels(p, g, ranks[j] % p->gpus_per_node,
								     e - s);

				if (c < fewest)
					fewest = c;
			}
			if (nnodes > 1 && p->p2p_net_channels[g] < fewest)
				fewest = p->p2p_net_channels[g];
		}
	}
	b->per_peer = pow2_up(fewest);
	/* ncclTopoComputeP2pChannels: across nodes, fewer channels a peer
	 * until a round of every peer fits the channels */
	if (nnodes > 1)
		while (b->per_peer * ((n + P2P_PER_BATCH - 1) / P2P_PER_BATCH) > b->channels &&
		       b->per_peer > 1)
			b->per_peer /= 2;
	else if (b->per_peer > b->channels)
		b->per_peer = b->channels;
	/* scheduleP2pTasksToPlan: "one channel per operation" */
	b->min_parts = b->per_peer;
	while (b->min_parts * n > b->channels && b->min_parts > 1)
		b->min_parts /= 2;
}

unsigned p2p_parts(const struct p2p_budget *b, uint64_t bytes)
{
	uint64_t min_part = b->nnodes > 1 ? b->step / 2 : b->step / 8;
	uint64_t max_part = b->nnodes > 1 ? b->step : b->step * 32;
	uint64_t part;
	unsigned n;

	if (!bytes)
		return 1;
	n = (bytes + min_part - 1) / min_part < b->min_parts ?
		    (unsigned)((bytes + min_part - 1) / min_part) :
		    b->min_parts;
	part = (bytes + n - 1) / n;
	if (part < min_part)
		part = min_part;
	while (part > max_part && n <= b->per_peer / 2) {
		n *= 2;
		part = (bytes + n - 1) / n;
	}
	return n;
}

int p2p_rounds_init(struct p2p_rounds *r, const struct plan *p, const unsigned *ranks,
		    unsigned n)
{
	unsigned most = 0, pow2, taken = 0, d = 0;

	r->n = n;
	r->nnodes = 0;
	r->group = 0;
	/* p2pSchedGroupSize: 8 across nodes (NCCL_P2P_SCHEDULE_GROUP_SIZE),
	 * the node's ranks on one, down to what divides every node's */
	for (unsigned s = 0, e; s < n; s = e) {
		unsigned node = plan_node_of(p, ranks[s]);

		for (e = s; e < n && plan_node_of(p, ranks[e]) == node; e++)
			;
		r->nnodes++;
		if (e - s > most)
			most = e - s;
	}
	r->group = r->nnodes > 1 ? P2P_PER_BATCH : most;
	for (unsigned s = 0, e; s < n; s = e) {
		unsigned node = plan_node_of(p, ranks[s]);

		for (e = s; e < n && plan_node_of(p, ranks[e]) == node; e++)
			;
		if ((e - s) % r->group || e - s < r->group)
			r->group = (unsigned)gcd_u64(r->group, e - s);
	}
	if (!r->group)
		r->group = 1;
	r->ngroups = n / r->group;
	r->deltas = malloc(2 * (r->ngroups ? r->ngroups : 1) * sizeof(*r->deltas));
	if (!r->deltas)
		return -ENOMEM;
	/* (x^2 + x) / 2 mod a power of two, the deltas past the groups
	 * left out: every delta once */
	pow2 = pow2_up(r->ngroups);
	for (unsigned round = 0; round < pow2;) {
		if (d < r->ngroups) {
			r->deltas[r->ngroups + d] = taken;
			r->deltas[taken++] = d;
		}
		round++;
		d = (d + round) & (pow2 - 1);
	}
	return 0;
}

void p2p_rounds_destroy(struct p2p_rounds *r)
{
	free(r->deltas);
	r->deltas = NULL;
}

/* Since every node's ranks are a whole number of groups, in rank order,
 * group k is the ranks k x group .. k x group + group - 1. */
unsigned p2p_round_peer(const struct p2p_rounds *r, unsigned i, unsigned round)
{
	unsigned G = r->group;
	unsigned grp = (i / G + r->deltas[round / G]) % r->ngroups;

	return grp * G + (i % G + round % G) % G;
}

unsigned p2p_round_of(const struct p2p_rounds *r, unsigned i, unsigned peer)
{
	unsigned G = r->group;
	unsigned dg = (peer / G + r->ngroups - i / G) % r->ngroups;

	return r->deltas[r->ngroups + dg] * G + (peer % G + G - i % G) % G;
}

unsigned p2p_part_channel(const struct p2p_budget *b, const struct p2p_rounds *r,
			  unsigned round, unsigned part)
{
	unsigned base = round;

	if (r->nnodes > 1)
		base = round / r->group * ((r->group + P2P_PER_BATCH - 1) / P2P_PER_BATCH) +
		       round % r->group / P2P_PER_BATCH;
	return (channels_mirror_bits(base, b->channels) + part) & (b->channels - 1);
}
