/* SPDX-License-Identifier: MIT */
/*
 * NCCL's p2p schedule (engine/p2p_schedule.c) against what its source
 * gives by hand (v2.30.7-1): the order of peers (init.cc ncclP2pSchedule,
 * whose comment lists the 16-rank sequence), the channel a round starts
 * at (channel.h ncclP2pChannelBaseForRound) and the parts of a send
 * (enqueue.cc addP2pToPlan).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "helpers.h"
#include "p2p_schedule.h"
#include "plan.h"

static struct plan cluster; /* only gpus_per_node is read */

static void rounds_of(struct p2p_rounds *r, unsigned nodes, unsigned gpus)
{
	unsigned ranks[256];

	cr_assert_leq(nodes * gpus, 256);
	memset(&cluster, 0, sizeof(cluster));
	cluster.gpus_per_node = gpus;
	for (unsigned i = 0; i < nodes * gpus; i++)
		ranks[i] = i;
	cr_assert_eq(p2p_rounds_init(r, &cluster, ranks, nodes * gpus), 0);
}

/* "Example sequence for 16 ranks: 0, 1, 3, 6, 10, 15, 5, 12, 4, 13, 7,
 * 2, 14, 11, 9, 8": 16 nodes of one GPU, a group a rank. */
Test(p2p_schedule, peers_come_in_nccls_quadratic_order)
{
	static const unsigned nccl[16] = { 0, 1, 3, 6, 10, 15, 5, 12, 4, 13, 7, 2, 14, 11, 9, 8 };
	struct p2p_rounds r;

	rounds_of(&r, 16, 1);
	cr_assert_eq(r.group, 1);
	for (unsigned k = 0; k < 16; k++) {
		cr_expect_eq(p2p_round_peer(&r, 0, k), nccl[k], "round %u", k);
		cr_expect_eq(p2p_round_peer(&r, 5, k), (5 + nccl[k]) % 16, "round %u", k);
	}
	p2p_rounds_destroy(&r);
}

/*
 * Every rank meets every peer once, round 0 itself, and the peer takes
 * the send in the same round (its receive from group - delta, local -
 * delta): p2p_round_of inverts p2p_round_peer. 3 nodes of 8 (groups of
 * 8, deltas 0, 1, 2 of 0, 1, 3, 2 mod 4) and 4 of 6 (groups of gcd(8, 6)
 * = 2 ranks).
 */
Test(p2p_schedule, every_peer_once_in_a_round_both_sides_agree_on)
{
	static const unsigned shapes[][3] = { { 3, 8, 8 }, { 4, 6, 2 }, { 1, 8, 8 }, { 5, 1, 1 } };

	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		unsigned n = shapes[s][0] * shapes[s][1];
		struct p2p_rounds r;

		rounds_of(&r, shapes[s][0], shapes[s][1]);
		cr_assert_eq(r.group, shapes[s][2], "%u x %u", shapes[s][0], shapes[s][1]);
		for (unsigned i = 0; i < n; i++) {
			bool seen[256] = { false };

			cr_assert_eq(p2p_round_peer(&r, i, 0), i);
			for (unsigned k = 0; k < n; k++) {
				unsigned j = p2p_round_peer(&r, i, k);

				cr_assert_lt(j, n);
				cr_assert(!seen[j], "%u x %u: rank %u meets %u twice",
					  shapes[s][0], shapes[s][1], i, j);
				seen[j] = true;
				cr_assert_eq(p2p_round_of(&r, i, j), k);
			}
		}
		p2p_rounds_destroy(&r);
	}
}

/*
 * The channel a round starts at: across nodes the round's group of 8
 * peers (round / 8), its bits reversed over the p2p channels; on one
 * node the round itself, reversed. Parts follow it, wrapping.
 */
Test(p2p_schedule, rounds_start_at_reversed_channels)
{
	struct p2p_budget b = { .channels = 16, .per_peer = 4, .min_parts = 1, .nnodes = 2 };
	struct p2p_rounds r;

	rounds_of(&r, 2, 8);
	for (unsigned k = 0; k < 8; k++)
		cr_expect_eq(p2p_part_channel(&b, &r, k, 0), 0, "round %u", k);
	for (unsigned k = 8; k < 16; k++)
		cr_expect_eq(p2p_part_channel(&b, &r, k, 1), 9, "round %u", k); /* 1 -> 8, + 1 */
	p2p_rounds_destroy(&r);

	b.channels = 8;
	b.nnodes = 1;
	rounds_of(&r, 1, 8);
	cr_expect_eq(p2p_part_channel(&b, &r, 1, 0), 4);
	cr_expect_eq(p2p_part_channel(&b, &r, 3, 0), 6);
	cr_expect_eq(p2p_part_channel(&b, &r, 3, 3), 1); /* 6 + 3 wraps */
	p2p_rounds_destroy(&r);
}

/*
 * Parts across nodes, 128 KiB steps, parts of 64 KiB to 128 KiB: from
 * nChannelsMin (1 here) while a part is over a step, doubling up to
 * p2pnChannelsPerPeer (4): 64 KiB 1; 200 KiB 1, 2 (100 KiB); 1 MiB 1, 2,
 * 4 (256 KiB, the most). On one node (512 KiB steps, parts of 64 KiB to
 * 16 MiB, nChannelsMin 2): 100 KiB min(2, 2) = 2; 64 MiB 2, 4.
 */
Test(p2p_schedule, a_send_takes_more_parts_as_it_grows)
{
	struct p2p_budget net = { .channels = 16, .per_peer = 4, .min_parts = 1, .nnodes = 2,
				  .step = 131072 };
	struct p2p_budget nvl = { .channels = 16, .per_peer = 8, .min_parts = 2, .nnodes = 1,
				  .step = 524288 };

	cr_expect_eq(p2p_parts(&net, 0), 1);
	cr_expect_eq(p2p_parts(&net, 65536), 1);
	cr_expect_eq(p2p_parts(&net, 204800), 2);
	cr_expect_eq(p2p_parts(&net, 1048576), 4);
	cr_expect_eq(p2p_parts(&nvl, 102400), 2);
	cr_expect_eq(p2p_parts(&nvl, 16777216), 2);
	cr_expect_eq(p2p_parts(&nvl, 67108864), 4);
}

static unsigned net_channels(const char *path, unsigned gpu)
{
	struct topology *t = malloc(sizeof(*t));
	struct diag d = { "" };
	unsigned n;

	cr_assert_not_null(t);
	cr_assert_eq(topology_load(path, t, &d), 0, "%s", d.msg);
	n = algo_p2p_net_channels(nccl_release_newest(), t, gpu);
	free(t);
	return n;
}

/*
 * The channels a send across nodes may take (ncclTopoGetNchannels,
 * ncclTopoGetLocalNetCountByBw): NICs in the GPU's channels' turn until
 * their paths' bandwidth reaches the GPU's own to its CPU, then at least
 * one per 14 GB/s of them. h100-pcie5-400g: a GPU's PCIe Gen5 x16 link,
 * 16 x 240 / 80 = 48 GB/s as NCCL counts it, is full with its first
 * 400 Gbit/s NIC (48 of its 50), so one NIC and ceil(48 / 14) = 4, not
 * the 8 both NICs' 100 GB/s would give. one-gpu-four-nics: a 200 GB/s
 * link takes all four 12.5 GB/s NICs, 50 GB/s: max(4, ceil(50 / 14)) = 4.
 */
Test(p2p_schedule, a_net_peer_takes_the_nics_the_gpu_can_fill)
{
	cr_expect_eq(net_channels(CONFIG("h100-pcie5-400g.yaml"), 0), 4);
	cr_expect_eq(net_channels(DATA("one-gpu-four-nics.yaml"), 0), 4);
}
