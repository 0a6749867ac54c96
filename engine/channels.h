/* SPDX-License-Identifier: MIT */
/*
 * channels: how many channels NCCL gives a communicator on this node type,
 * at what bandwidth each, and which NIC each channel uses.
 *
 * NCCL's channel search (src/graph/search.cc, ncclTopoCompute) tries the
 * speeds of a fixed list, fastest first, and keeps the most channels x
 * speed that the node's links carry: NVLink or PCIe between the GPUs, and
 * with a network one NIC in and out per channel, channels rotating over
 * the NICs. It then duplicates channels (ncclTopoDupChannels, connect.cc)
 * and, per call, drops channels while a call has fewer bytes than its
 * threads want (enqueue.cc, topoGetAlgoInfo; tuner.c does that part).
 * This is a simplified search over gdrlab's topology: it counts, for each
 * speed, how many channels fit the GPU links and the NICs, each link
 * charged and counted as NCCL's search does (search_loads.h), without
 * NCCL's backtracking over GPU orders (on a mesh wired pair by pair each
 * channel's order is searched: channels_mesh.h). docs/model.md says where it
 * differs; tools/nccl-oracle/search.sh holds its graphs against NCCL's
 * own search.
 *
 * channels.c lays a channel out (its NICs, entry and exit GPUs),
 * channels_search.c searches the ring and tree graphs over such layouts,
 * channels_nvls.c NVLS's.
 */
#ifndef GDRLAB_CHANNELS_H
#define GDRLAB_CHANNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "topo_path.h"

struct nccl_release;
struct search_env;

/* A graph's pattern (NCCL_TOPO_PATTERN_*, src/graph/topo.h). Inside a
 * node each is a chain of GPUs from the one the network enters by; what
 * differs is which GPU sends back to the network. */
enum nccl_pattern {
	NCCL_PATTERN_RING,          /* the chain's last GPU */
	NCCL_PATTERN_BALANCED_TREE, /* the first and second, half each */
	NCCL_PATTERN_SPLIT_TREE,    /* the second */
	NCCL_PATTERN_TREE,          /* the first: all through one GPU */
	NCCL_PATTERN_NVLS,          /* one channel a GPU, its head */
};

/* "RING", "BALANCED_TREE", "SPLIT_TREE", "TREE", "NVLS" */
const char *nccl_pattern_name(enum nccl_pattern p);

/* A graph as NCCL's search returns it (struct ncclTopoGraph). */
struct nccl_graph {
	unsigned nchannels;        /* the graph's channels */
	unsigned distinct;         /* of them, those the search laid out; the
				    * rest copy them in turn
				    * (ncclTopoDupChannels) */
	double bw_intra, bw_inter; /* GB/s per channel, as NCCL counts */
	bool nvlink;               /* every hop inside a node over a pair's
				    * own NVLinks (NCCL's typeIntra PATH_NVL) */
	bool nvb;                  /* else no hop over PCIe, some through a
				    * GPU between (PATH_NVB: wired meshes) */
	enum topo_path_type type_inter; /* farthest GPU-NIC class it uses */
	bool pxn;                  /* some channel leaves through a PXN relay
				    * (NCCL's typeInter PATH_PXN) */
	bool keep_nic;             /* a ring's channels leave a node by the
				    * NIC they came in by (NCCL's crossNic 0),
				    * where the layout's exit GPU is not near
				    * it: channels_keep_nic */
	enum nccl_pattern pattern; /* what the search ended at */
	/* A lone GPU's channels (one GPU a node) leave by a NIC beyond its
	 * nearest, where those carry a lower speed (channels_far_nic): the
	 * rank-th NIC (by index) at class cls from the GPU, where on. */
	struct {
		bool on;
		enum topo_path_type cls;
		unsigned rank;
	} far_nic;
};

/* @g's typeInter as NCCL names it: PATH_PXN, between PXB and P2C, where
 * a channel leaves through a PXN relay and nothing is farther. */
const char *nccl_graph_inter_name(const struct nccl_graph *g);

struct nccl_channels {
	struct nccl_graph ring;    /* also CollNet's */
	/* The tree's (treeGraph, also PAT's: init.cc graphs[]): the ring's
	 * channels, or fewer in 2.8.4,
	 * at the speed its pattern's loads carry, bwIntra raised by
	 * search.cc's pass 2. */
	struct nccl_graph tree;
	struct nccl_graph nvls;    /* nchannels 0: no NVLS here */
	unsigned comm_channels;    /* the communicator's (after duplication) */
	/* ncclNvlsTuning's (nccl_tuning.h), where the NVLS graph has
	 * channels, else 0: NVLS's channels and largest chunk, and
	 * NVLS-tree's chunk before a call's cuts (bytes). */
	unsigned nvls_channels;
	uint64_t nvls_chunk, nvls_tree_chunk;
	double min_net_bw;         /* comm->minNetBw, GB/s; 0 on one node */
};

/*
 * The graphs of a communicator of @ppn GPUs per node (GPUs 0..ppn-1 of
 * the node type) over @nnodes nodes, as NCCL release @r searches them
 * under the variables @env (search_loads.h: PXN, the GDR and P2P levels).
 */
void channels_search(const struct nccl_release *r, const struct search_env *env,
		     const struct topology *t, unsigned nnodes, unsigned ppn,
		     struct nccl_channels *out);

/*
 * A channel's way through a node, as NCCL's ring search lays it out: the
 * channel takes the NICs in turn (channel c the (c mod nics)-th NIC that
 * is nearest to some GPU); it enters the node at a GPU near that NIC and,
 * where another GPU shares the NIC, leaves from that one, so that it goes
 * in and out through one NIC; else from the other GPU nearest to that NIC
 * (its socket's), by its own NIC unless the graph keeps the channel's
 * (channels_keep_nic). The other GPUs lie between, in order; on a mesh
 * wired pair by pair, in the order channels_mesh.h finds along the pairs.
 * Without a network the GPUs are only turned by the channel.
 */
struct channel_layout {
	unsigned order[TOPO_MAX_GPUS]; /* indices into the GPUs, entry first */
	int nic_in, nic_out;           /* -1 without a network */
};

/*
 * NCCL's ring search keeps a channel on the NIC it came in by (crossNic 0)
 * at every GPU-NIC path type, PXN among them from 2.12, before it lets it
 * leave by another (search.cc ncclTopoCompute: typeInter widens before
 * crossNic does; v2.12.12-1 and on). A graph that does (@g's keep_nic)
 * leaves by @l's entry NIC from its exit GPU, through a PXN relay where
 * one applies (search_loads.h). Nothing changes where the exit GPU is
 * near the entry NIC already.
 */
void channels_keep_nic(const struct nccl_graph *g, struct channel_layout *l);

/*
 * A tree graph's chain through a node (connect.cc: each GPU's tree.up is
 * the one before it in the graph's intra order, down the one after): NCCL
 * searches it from the GPU the network enters by, then (a balanced or
 * split tree, @p) the GPU that sends back to the network, one near the
 * NIC (ncclTopoSearchNextGpuSort, backToNet), then the others in index
 * order from the entry, or down from the second where it is the entry's
 * previous on an NVSwitch, from 2.19 (@r's nvswitch_neighbors_first); a
 * simple tree (TREE) only sends back from its entry, so its chain is
 * index order from there. @l, laid out for a ring
 * (channels_layout: entry, the others, the exit GPU), becomes that chain;
 * both its NICs the entry's ("Trees are symmetric"). A wired mesh's
 * chain stays as its pairs ordered it, its exit last, unless every pair
 * of @gpus (the layout's GPUs) is wired alike; on one node (no NIC) it
 * stays as it is. Returns where in the chain the GPU that sends back to
 * the network is (a balanced tree's one child, a split tree's both:
 * connect.cc treeToChild0/1 at intra[1]); 0 for a simple tree.
 */
unsigned channels_tree_chain(const struct nccl_release *r, const struct topology *t,
			     enum nccl_pattern p, const unsigned *gpus, unsigned n,
			     struct channel_layout *l);

/*
 * NCCL's search tries a GPU's own NICs first, then the others by class
 * and index (search.cc ncclTopoSelectNets), at each speed before the
 * next lower one: a lone GPU whose nearest NIC carries less than a
 * farther one does leaves by that one (one V100 of ABCI: 9 GB/s through
 * the root complex to its own NIC, with Intel's overhead, against 10
 * across the sockets to the other). Where @g says so (far_nic.on) and the
 * layout @l is of one GPU, @gpus[0], its NICs become that one. gdrlab's
 * search tries this for one GPU a node only.
 */
void channels_far_nic(const struct topology *t, const struct nccl_graph *g,
		      const unsigned *gpus, unsigned n, struct channel_layout *l);

/*
 * NVLS's heads (search.cc): on one node (@network false) every one of the
 * @n GPUs @gpus; across nodes one a NIC, the NIC's local GPU, as many as
 * NICs up to the GPUs. Channel @c's head (an index into @gpus; channels
 * beyond the heads take them in turn, connect.cc), and its NIC in @nic
 * (-1 on one node).
 */
unsigned channels_nvls_head(const struct topology *t, const unsigned *gpus, unsigned n,
			    bool network, unsigned c, int *nic);

/*
 * The channel of graph @g (@ch's ring or tree) whose layout communicator
 * channel @c takes. NCCL copies channels rather than laying out new ones:
 * the search its graph's (ncclTopoDupChannels: channel c + n is channel
 * c), the communicator its own, twice over and more (connect.cc
 * ncclTopoPostset: channel c + nChannels is channel c, copyChannels
 * channel c - start). So @c is the graph's channel c mod the
 * communicator's first channels (the ring's count, the fewer of the two
 * graphs'), that one's mod those the search laid out.
 */
unsigned channels_copied(const struct nccl_channels *ch, const struct nccl_graph *g, unsigned c);

/* The layout of channel @channel over the @n local GPUs @gpus of a node. */
void channels_layout(const struct nccl_release *r, const struct topology *t,
		     const unsigned *gpus, unsigned n, unsigned channel, bool network,
		     struct channel_layout *l);

/*
 * The NIC channel @channel uses at local GPU @gpu: one of the NICs
 * nearest to it, the channels rotating over all of them (so that a GPU
 * with four equally near NICs drives all four).
 */
int channels_nic(const struct topology *t, unsigned gpu, unsigned channel);

/*
 * The NIC channel @channel of a p2p connection (a send/receive, an
 * alltoall's send) uses at GPU @gpus[@g], the @n @gpus the communicator's
 * on that node: ncclTopoGetLocalNet, which NCCL's p2p transport asks
 * without a graph (net.cc ncclTopoGetNetDev; topo.cc v2.30.7-1:2039-2079).
 * From the NIC release @r starts the GPU at, its channels turn over
 * ceil(NICs / GPUs sharing them) of its nearest NICs (2.19 on,
 * NCCL_NETDEVS_POLICY's AUTO), where a collective's channels take all of
 * them (channels_nic): two GPUs under one switch with two NICs keep one
 * each. 2.12 keeps one a GPU (topo.cc v2.12.12-1:678-703), 2.8.4 turns
 * every GPU over all of them from the first (v2.8.4-1:588-607). -1: no
 * NIC.
 */
int channels_p2p_nic(const struct nccl_release *r, const struct topology *t,
		     const unsigned *gpus, unsigned n, unsigned g, unsigned channel);

/* NCCL's mirrorBits and reverseBits: @val's low log2(@pow2) bits in
 * reverse order (@pow2 a power of two). */
unsigned channels_mirror_bits(unsigned val, unsigned pow2);

/*
 * The NIC channel @channel of graph @g uses at local GPU @gpu, in a
 * communicator of @ppn GPUs a node: channels_nic's, or the farther NIC
 * a lone GPU's graph took (channels_far_nic).
 */
int channels_graph_nic(const struct topology *t, const struct nccl_graph *g, unsigned gpu,
		       unsigned ppn, unsigned channel);

#endif
