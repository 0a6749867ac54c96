/* SPDX-License-Identifier: MIT */
/*
 * p2p_schedule: how NCCL spreads a communicator's sends over its channels
 * (2.29 - 2.30). Each send to a peer is cut into parts, one channel a
 * part: between nChannelsMin and p2pnChannelsPerPeer parts, more for a
 * larger send (enqueue.cc scheduleP2pTasksToPlan, addP2pToPlan). Peers
 * are taken in rounds, node group by node group in a quadratic order
 * (init.cc ncclP2pSchedule), and a round's parts start at a channel of
 * their own, the round's group index with its bits reversed, so that
 * consecutive rounds use channels far apart (channel.h
 * ncclP2pChannelBaseForRound; device.h ncclP2pChannelForPart). A
 * channel's NIC is then its GPU's p2p NIC for that channel
 * (channels_p2p_nic), so the parts of one send spread over the NICs the
 * GPU has to itself.
 */
#ifndef GDRLAB_P2P_SCHEDULE_H
#define GDRLAB_P2P_SCHEDULE_H

#include <stdint.h>

struct plan;

#define P2P_MAX_CHANNELS 64 /* MAXCHANNELS (device.h) */

/* A communicator's p2p channels (paths.cc ncclTopoComputeP2pChannels,
 * ncclTopoComputeP2pChannelsPerPeer, v2.30.7-1). */
struct p2p_budget {
	unsigned channels;  /* p2pnChannels: a power of 2 */
	unsigned per_peer;  /* p2pnChannelsPerPeer: most parts of a send */
	unsigned min_parts; /* nChannelsMin: fewest parts of a large send */
	unsigned nnodes;
	uint64_t step;      /* p2pChunkSize: bytes a Simple step */
};

/*
 * The budget of the communicator of the sorted ranks @ranks (@n of them,
 * over @nnodes nodes) of @p, whose collectives run on @comm_channels
 * channels. With the plan's ring_only, one channel and one part.
 */
void p2p_budget_init(struct p2p_budget *b, const struct plan *p, const unsigned *ranks,
		     unsigned n, unsigned nnodes, unsigned comm_channels);

/* The parts a send of @bytes to one peer is cut into (addP2pToPlan's
 * nChannels). */
unsigned p2p_parts(const struct p2p_budget *b, uint64_t bytes);

/* The communicator's rounds: @n ranks, over nodes of @local ranks each
 * in rank order (@nnodes of them), as ncclP2pSchedule lays them out. */
struct p2p_rounds {
	unsigned n, nnodes;
	unsigned group;   /* ranks a group: p2pSchedGroupSize */
	unsigned ngroups;
	unsigned *deltas; /* owned: the group deltas in the order taken */
};

/* The rounds of the sorted ranks @ranks (@n) of @p. 0 or -ENOMEM. */
int p2p_rounds_init(struct p2p_rounds *r, const struct plan *p, const unsigned *ranks,
		    unsigned n);
void p2p_rounds_destroy(struct p2p_rounds *r);

/* The index (into the ranks) rank index @i sends to in round @round, of
 * 0 .. n - 1 (round 0: itself). */
unsigned p2p_round_peer(const struct p2p_rounds *r, unsigned i, unsigned round);
/* The round in which rank index @i sends to rank index @peer. */
unsigned p2p_round_of(const struct p2p_rounds *r, unsigned i, unsigned peer);

/* The channel part @part of a send in round @round takes. */
unsigned p2p_part_channel(const struct p2p_budget *b, const struct p2p_rounds *r,
			  unsigned round, unsigned part);

#endif
