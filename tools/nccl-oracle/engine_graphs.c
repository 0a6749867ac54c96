/* SPDX-License-Identifier: MIT */
/*
 * What `gdrlab busbw --json` does not report but the oracle needs, read
 * from gdrlab's own engine (libgdrlab_engine.a):
 * - the tree graph on one node: gdrlab costs a tree there, but the JSON's
 *   graphs.tree is null (cli/busbw_print.c, graphs_json), and the tree
 *   is not the ring's (channels.c, search_tree raises bw_intra);
 * - the topology's GPU architecture and CPU vendor (tuning.cc's tables
 *   are indexed by both), as topology_load resolves them, defaults
 *   included.
 * It also prints the ring so that compare.py can check this search is the
 * one busbw ran (same channels and bandwidths as the JSON's ring).
 *
 * With a sixth argument `channels` it prints instead each graph channel's
 * way through a node as search.cc's harness does with ORACLE_GRAPHS=1,
 * for search.sh to hold against NCCL's: the NIC it enters by, the GPUs in
 * order, the NIC it leaves by (a tree's chain as channels_tree_chain
 * orders it, both its NICs the entry's: "Trees are symmetric"). With `graphs`, the ring and tree
 * as search.sh compares them (the JSON's fields; the ring's channels the
 * communicator's first). A seventh, GPU, makes the communicator that GPU
 * alone on each node, as the tuner searches and lays out a data-parallel
 * group of one GPU a node (tuner.c: the search on ppn GPUs, the layout on
 * the group's own).
 *
 * NCCL_P2P_LEVEL in the environment is read as NCCL reads it (NCCL's
 * --p2p-level); PXN then as plan_uses_pxn decides.
 *
 * usage: engine-graphs TOPOLOGY RELEASE NNODES GDR_LEVEL PXN(0|1)
 *                      [channels|graphs [GPU]]
 * out:   arch NAME / vendor NAME / GRAPH nch bw_intra bw_inter nvlink
 *        type_inter pxn pattern  (GRAPH: ring, tree; pattern as NCCL names it)
 *        or, with `channels`: GRAPH C: NET IN -> G0 G1 ... -> NET OUT
 *        or, with `graphs`: GRAPH nch bw_intra bw_inter NVL|PCI inter pattern
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "channels.h"
#include "diag.h"
#include "nccl_tuning.h"
#include "search_loads.h"
#include "topo_path.h"
#include "topology.h"

static void print_graph(const char *name, const struct nccl_graph *g)
{
	printf("%s %u %.9g %.9g %d %s %d %s\n", name, g->nchannels, g->bw_intra,
	       g->bw_inter, g->nvlink, topo_path_name(g->type_inter), g->pxn,
	       nccl_pattern_name(g->pattern));
}

/* The graph's channels (those a communicator takes: its first), each laid
 * out as the engine's algorithms lay it out. */
static void print_channels(const char *name, const struct nccl_release *r,
			   const struct topology *t, bool network, const unsigned *gpus,
			   unsigned n, const struct nccl_channels *ch, const struct nccl_graph *g)
{
	for (unsigned c = 0; c < g->nchannels; c++) {
		struct channel_layout l;

		channels_layout(r, t, gpus, n, channels_copied(ch, g, c), network, &l);
		channels_far_nic(t, g, gpus, n, &l);
		channels_keep_nic(&ch->ring, &l);
		if (g == &ch->tree)
			channels_tree_chain(r, t, g->pattern, gpus, n, &l);
		/* NCCL's harness prints ranks: the communicator's, 0 .. n-1 */
		printf("%s %2u: NET %d ->", name, c, l.nic_in);
		for (unsigned k = 0; k < n; k++)
			printf(" %u", l.order[k]);
		printf(" -> NET %d\n", l.nic_out);
	}
}

/* As search.sh prints the JSON's graph (gdrlab busbw --json's "graphs"). */
static void print_compared(const char *name, const struct nccl_graph *g)
{
	printf("%s %u %g %g %s %s %s\n", name, g->nchannels, g->bw_intra, g->bw_inter,
	       g->nvlink || g->nvb ? "NVL" : "PCI", nccl_graph_inter_name(g),
	       nccl_pattern_name(g->pattern));
}

int main(int argc, char **argv)
{
	static struct topology t; /* large */
	const struct nccl_release *r;
	struct nccl_channels out;
	struct search_env env = { false, TOPO_PATH_PXB, P2P_USER_UNSET };
	enum topo_path_type gdr;
	unsigned gpus[TOPO_MAX_GPUS], n;
	struct diag d;

	if (argc < 6 || argc > 8 ||
	    (argc >= 7 && strcmp(argv[6], "channels") && strcmp(argv[6], "graphs"))) {
		fprintf(stderr,
			"usage: %s TOPOLOGY RELEASE NNODES GDR_LEVEL PXN [channels|graphs [GPU]]\n",
			argv[0]);
		return 2;
	}
	if (topology_load(argv[1], &t, &d)) {
		fprintf(stderr, "%s\n", d.msg);
		return 1;
	}
	n = t.ngpus;
	r = nccl_release_find(argv[2]);
	if (!r || topo_path_parse(argv[4], &gdr)) {
		fprintf(stderr, "unknown release %s or GDR level %s\n", argv[2],
			argv[4]);
		return 2;
	}
	/* As tuner.c's search_cached calls it for a world of NNODES x all the
	 * node's GPUs; PXN as plan_uses_pxn (plan.h) decides, which the caller
	 * passes in: the release's PXN, not switched off, not staged. */
	for (unsigned k = 0; k < t.ngpus; k++)
		gpus[k] = k;
	if (argc == 8) {
		gpus[0] = (unsigned)atoi(argv[7]);
		n = 1;
		if (gpus[0] >= t.ngpus) {
			fprintf(stderr, "%s: no GPU %s\n", argv[1], argv[7]);
			return 2;
		}
	}
	if (getenv("NCCL_P2P_LEVEL") &&
	    p2p_user_level_parse(getenv("NCCL_P2P_LEVEL"), &env.p2p_level)) {
		fprintf(stderr, "bad NCCL_P2P_LEVEL %s\n", getenv("NCCL_P2P_LEVEL"));
		return 2;
	}
	env.pxn = r->pxn && atoi(argv[5]) && p2p_nvlink_usable(env.p2p_level);
	env.gdr_level = gdr;
	channels_search(r, &env, &t, (unsigned)atoi(argv[3]), n, &out);
	if (argc >= 7 && !strcmp(argv[6], "channels")) {
		print_channels("ring", r, &t, atoi(argv[3]) > 1, gpus, n, &out, &out.ring);
		print_channels("tree", r, &t, atoi(argv[3]) > 1, gpus, n, &out, &out.tree);
		return 0;
	}
	if (argc >= 7) {
		print_compared("ring", &out.ring);
		print_compared("tree", &out.tree);
		return 0;
	}
	printf("arch %s\nvendor %s\n", topo_gpu_arch_name(t.gpu_arch),
	       topo_cpu_vendor_name(t.cpu_vendor));
	print_graph("ring", &out.ring);
	print_graph("tree", &out.tree);
	return 0;
}
