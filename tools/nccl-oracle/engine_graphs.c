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
 * usage: engine-graphs TOPOLOGY RELEASE NNODES GDR_LEVEL PXN(0|1)
 * out:   arch NAME / vendor NAME / GRAPH nch bw_intra bw_inter nvlink
 *        type_inter pxn pattern  (GRAPH: ring, tree; pattern as NCCL names it)
 */
#include <stdio.h>
#include <stdlib.h>

#include "channels.h"
#include "diag.h"
#include "nccl_tuning.h"
#include "topo_path.h"
#include "topology.h"

static void print_graph(const char *name, const struct nccl_graph *g)
{
	printf("%s %u %.9g %.9g %d %s %d %s\n", name, g->nchannels, g->bw_intra,
	       g->bw_inter, g->nvlink, topo_path_name(g->type_inter), g->pxn,
	       nccl_pattern_name(g->pattern));
}

int main(int argc, char **argv)
{
	static struct topology t; /* large */
	const struct nccl_release *r;
	struct nccl_channels out;
	enum topo_path_type gdr;
	struct diag d;

	if (argc != 6) {
		fprintf(stderr,
			"usage: %s TOPOLOGY RELEASE NNODES GDR_LEVEL PXN\n",
			argv[0]);
		return 2;
	}
	if (topology_load(argv[1], &t, &d)) {
		fprintf(stderr, "%s\n", d.msg);
		return 1;
	}
	r = nccl_release_find(argv[2]);
	if (!r || topo_path_parse(argv[4], &gdr)) {
		fprintf(stderr, "unknown release %s or GDR level %s\n", argv[2],
			argv[4]);
		return 2;
	}
	/* As tuner.c's search_cached calls it for a world of NNODES x all the
	 * node's GPUs; PXN as plan_uses_pxn (plan.h) decides, which the caller
	 * passes in: the release's PXN, not switched off, not staged. */
	channels_search(r, &t, (unsigned)atoi(argv[3]), t.ngpus,
			r->pxn && atoi(argv[5]), gdr, &out);
	printf("arch %s\nvendor %s\n", topo_gpu_arch_name(t.gpu_arch),
	       topo_cpu_vendor_name(t.cpu_vendor));
	print_graph("ring", &out.ring);
	print_graph("tree", &out.tree);
	return 0;
}
