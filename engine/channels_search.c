/* SPDX-License-Identifier: MIT */
/*
 * NCCL's channel search (search.cc ncclTopoCompute) for the ring and tree
 * graphs, over the layouts channels.c lays out, and the communicator's
 * channels from them (channels.h channels_search). NVLS's graph is
 * channels_nvls.c's.
 */
#include "channels.h"

#include <stdlib.h>
#include <string.h>

#include "channels_nvls.h"
#include "nccl_tuning.h"
#include "p2p_policy.h"
#include "resources.h"
#include "search_loads.h"

/* GPUs 0..n-1: the node's first GPUs, which a communicator searches. */
static const unsigned identity[TOPO_MAX_GPUS] = {
	0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
	16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
	32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
	48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63,
};

/*
 * How many channels of @speed GB/s fit: the links each channel's ring
 * crosses inside the node (NVLink, or PCIe P2P between consecutive GPUs),
 * and with a network the NICs and PCIe paths of its entry and exit GPUs.
 * Channels are added one at a time, as their NICs rotate.
 */
static unsigned fit_channels(const struct nccl_release *r, const struct topology *t,
			     const struct res_layout *l, unsigned ppn,
			     bool network, const struct search_env *env,
			     const struct nccl_graph *g, double speed, double *use)
{
	unsigned c;

	memset(use, 0, l->per_node * sizeof(*use));
	for (c = 0; c < r->max_channels / 2; c++) {
		struct channel_layout lay;

		channels_layout(r, t, identity, ppn, c, network, &lay);
		channels_keep_nic(g, &lay);
		channels_far_nic(t, g, identity, ppn, &lay);
		if (network && (lay.nic_in < 0 || lay.nic_out < 0))
			return c;
		/* across nodes the network closes the ring: the entry GPU
		 * receives from its NIC, the exit GPU sends to one */
		search_add_chain(r, env, l, t, lay.order, ppn, !network, 1, use);
		if (network) {
			search_net_in(r, l, t, lay.nic_in, lay.order[0], use);
			search_net_out(r, l, t, env, lay.order[ppn - 1], lay.nic_out, 1, use);
		}
		if (!search_loads_fit(r, t, l, use, speed))
			return c;
	}
	return c;
}

/*
 * How many of @max tree channels of @speed GB/s fit with @pattern's
 * loads (search.cc ncclTopoSearchRecGpu, backToNet and the balanced
 * tree's halves): the network enters at the channel's first GPU and goes
 * back, through the same NIC ("Trees are symmetric"), from the first
 * (TREE), the second (SPLIT_TREE) or half from each (BALANCED_TREE). The
 * second is the GPU the ring's layout leaves by, one near the NIC where
 * there is one: search.cc sorts the GPUs it tries next by their path to
 * the network when the next goes back to it (ncclTopoSearchNextGpuSort).
 * The chain's loads are the tree's own order (channels_tree_chain).
 */
static unsigned fit_tree_channels(const struct nccl_release *r, const struct topology *t,
				  const struct res_layout *l, unsigned ppn,
				  enum nccl_pattern pattern, const struct search_env *env,
				  const struct nccl_graph *ring, double speed, double intra,
				  unsigned max, double *use)
{
	unsigned c;

	memset(use, 0, l->per_node * sizeof(*use));
	for (c = 0; c < max; c++) {
		struct channel_layout lay;
		unsigned first, second;

		channels_layout(r, t, identity, ppn, c, true, &lay);
		channels_far_nic(t, ring, identity, ppn, &lay);
		if (lay.nic_in < 0)
			return c;
		first = lay.order[0];
		second = lay.order[channels_tree_chain(r, t, pattern, identity, ppn, &lay)];
		search_add_chain(r, env, l, t, lay.order, ppn, false, intra / speed, use);
		search_net_in(r, l, t, lay.nic_in, first, use);
		if (pattern == NCCL_PATTERN_TREE || ppn == 1) {
			search_net_out(r, l, t, env, first, lay.nic_in, 1, use);
		} else if (pattern == NCCL_PATTERN_SPLIT_TREE) {
			search_net_out(r, l, t, env, second, lay.nic_in, 1, use);
		} else {
			search_net_out(r, l, t, env, first, lay.nic_in, 0.5, use);
			search_net_out(r, l, t, env, second, lay.nic_in, 0.5, use);
		}
		if (!search_loads_fit(r, t, l, use, speed))
			return c;
	}
	return c;
}

/* Widen @g's typeInter to a channel's way between @gpu and @nic (@out:
 * leaving, by a PXN relay where one applies: NCCL's PATH_PXN, NVLink
 * then the relay's own path). */
static void widen_type(const struct topology *t, const struct search_env *env, unsigned gpu,
		       int nic, bool out, struct nccl_graph *g)
{
	enum topo_path_type p = topo_gpu_nic_path(t, (int)gpu, nic);

	if (out && search_exit_relay(t, env, gpu, nic) >= 0) {
		g->pxn = true;
		p = TOPO_PATH_PIX;
	}
	if (p > g->type_inter)
		g->type_inter = p;
}

/*
 * @g's typeIntra: the farthest way between consecutive GPUs of its
 * channels' layouts (a ring's closing inside a node on one); a pair that
 * may not copy peer to peer goes through the CPU (p2p_policy.h). Across
 * nodes NCCL widens typeIntra no further than typeInter (search.cc:
 * maxTypeIntra is typeInter with a network), so a graph whose GPUs meet
 * over PCIe of class C has a typeInter of C at least, however near its
 * NICs are (LL128 then follows it): the class, or PIX.
 */
static enum topo_path_type intra_type(const struct nccl_release *r, const struct search_env *env,
				      const struct topology *t, unsigned ppn, bool network,
				      struct nccl_graph *g)
{
	enum topo_path_type farthest = TOPO_PATH_PIX;
	bool pcie = false, via = false;

	for (unsigned c = 0; c < g->nchannels && ppn > 1; c++) {
		struct channel_layout lay;

		channels_layout(r, t, identity, ppn, c, network, &lay);
		for (unsigned k = 0; k + 1 < ppn || (!network && k < ppn); k++) {
			unsigned a = lay.order[k], b = lay.order[(k + 1) % ppn], v, links;
			enum topo_nvlink_way w = topo_nvlink_way(t, a, b, &v);
			enum topo_path_type p;

			if (!p2p_allowed(r, env->p2p_level, t, a, b, ppn)) {
				p = p2p_refused_class(t, a, b);
			} else if (w != TOPO_NVLINK_NONE) {
				via |= w == TOPO_NVLINK_VIA;
				continue;
			} else {
				p = topo_gpu_gpu_path(t, a, b, &links);
			}
			pcie = true;
			if (p > farthest)
				farthest = p;
		}
	}
	g->nvlink = topo_has_nvlink(t) && ppn > 1 && !pcie && !via;
	g->nvb = topo_has_nvlink(t) && ppn > 1 && !pcie && via;
	return farthest;
}

/*
 * A lone GPU (GPU 0 searched alone) whose nearest NICs fit no channel of
 * @speed: the channels that fit on the first NIC farther away that fits
 * one, in NCCL's order (channels_far_nic), that NIC in *@far; 0 if none.
 */
static unsigned fit_far(const struct nccl_release *r, const struct topology *t,
			const struct res_layout *l, const struct search_env *env, double speed,
			double *use, struct nccl_graph *far)
{
	int near = topo_nearest_nic(t, 0);
	enum topo_path_type nearest = near >= 0 ? topo_gpu_nic_path(t, 0, near) : TOPO_PATH_SYS;

	for (unsigned cls = (unsigned)nearest + 1; cls < TOPO_PATH_COUNT; cls++)
		for (unsigned rank = 0; topo_nic_at_class(t, 0, (enum topo_path_type)cls, rank) >= 0;
		     rank++) {
			unsigned c;

			far->far_nic.on = true;
			far->far_nic.cls = (enum topo_path_type)cls;
			far->far_nic.rank = rank;
			c = fit_channels(r, t, l, 1, true, env, far, speed, use);
			if (c)
				return c;
		}
	far->far_nic.on = false;
	return 0;
}

static void search_ring(const struct nccl_release *r, const struct topology *t,
			unsigned nnodes, unsigned ppn, const struct search_env *env,
			struct nccl_graph *g)
{
	struct res_layout l;
	double *use;
	bool network = nnodes > 1;
	const double *speeds;
	size_t nspeeds;
	double best = 0;

	res_layout_init(&l, t, 1);
	speeds = nccl_search_speeds(r, t->gpu_arch, network, &nspeeds);
	memset(g, 0, sizeof(*g));
	/* Per-node loads of the channels so far, in multiples of a speed. */
	use = calloc(l.per_node ? l.per_node : 1, sizeof(*use));
	/*
	 * NCCL tries the speeds fastest first and, once it has a solution,
	 * goes on down only while the next speed is above half of the
	 * solution's (speedArray[i + 1] / bwInter > .49), keeping the most
	 * bandwidth and, at a tie, the faster channels.
	 */
	for (size_t i = 0; use && i < nspeeds; i++) {
		static const struct nccl_graph keep = { .keep_nic = true }, cross = { 0 };
		struct nccl_graph far = { 0 };
		unsigned c, kept = 0;

		if (g->nchannels && speeds[i] / g->bw_inter <= 0.49)
			break;
		/* crossNic 0 first; crossing NICs only for more channels */
		if (network)
			kept = fit_channels(r, t, &l, ppn, network, env, &keep, speeds[i], use);
		c = fit_channels(r, t, &l, ppn, network, env, &cross, speeds[i], use);
		if (kept && kept >= c)
			c = kept;
		if (!c && network && ppn == 1)
			c = fit_far(r, t, &l, env, speeds[i], use, &far);
		if (c && c * speeds[i] > best * (1 + 1e-9)) {
			best = c * speeds[i];
			g->nchannels = c;
			g->bw_intra = g->bw_inter = speeds[i];
			g->keep_nic = kept && kept == c;
			g->far_nic = far.far_nic;
		}
	}
	free(use);
	if (!g->nchannels) {
		/* NCCL's fallback: one channel in GPU order at 0.1 GB/s. */
		g->nchannels = 1;
		g->bw_intra = g->bw_inter = 0.1;
	}
	g->distinct = g->nchannels;
	g->pattern = NCCL_PATTERN_RING;
	g->type_inter = intra_type(r, env, t, ppn, network, g);
	for (unsigned c = 0; network && c < g->nchannels; c++) {
		struct channel_layout lay;

		channels_layout(r, t, identity, ppn, c, network, &lay);
		channels_keep_nic(g, &lay);
		channels_far_nic(t, g, identity, ppn, &lay);
		widen_type(t, env, lay.order[0], lay.nic_in, false, g);
		widen_type(t, env, lay.order[ppn - 1], lay.nic_out, true, g);
	}
}

/*
 * Whether a balanced tree's channel finds, beside its first GPU, the next
 * or previous one by index reaching the same NIC as near: search.cc
 * offers only those two after the first GPU when the GPUs share an
 * NVSwitch (ncclTopoSearchNextGpuSort, v2.30.7-1:303-323), and a balanced
 * tree's second GPU must send to and receive from the channel's NIC at
 * its type (ncclTopoFollowPath checks both ways for trees, :149-154; a
 * neighbour's way back from another GPU's NIC is PHB or worse). Every
 * NIC the channels take must have such a pair of near GPUs.
 */
static bool balanced_tree_fits(const struct topology *t, unsigned ppn)
{
	for (unsigned i = 0; i < t->nnics; i++) {
		bool used = false, pair = false;

		for (unsigned g = 0; g < ppn; g++)
			used |= topo_nic_is_nearest(t, g, (int)i);
		for (unsigned g = 0; used && !pair && g < ppn; g++)
			pair = topo_nic_is_nearest(t, g, (int)i) && topo_nic_is_nearest(t, (g + 1) % ppn, (int)i);
		if (used && !pair)
			return false;
	}
	return true;
}

/* Whether @n channels of a node's tree chains fit the intra-node links
 * at @speed: each channel's GPUs in its chain's order (@pattern's:
 * channels_tree_chain), each sending to the next. */
static bool tree_chains_fit(const struct nccl_release *r, const struct search_env *env,
			    const struct topology *t, unsigned ppn, bool network,
			    enum nccl_pattern pattern, unsigned n, double speed)
{
	struct res_layout l;
	double *use;
	bool ok;

	res_layout_init(&l, t, 1);
	use = calloc(l.per_node ? l.per_node : 1, sizeof(*use));
	if (!use)
		return false;
	for (unsigned c = 0; c < n; c++) {
		struct channel_layout lay;

		channels_layout(r, t, identity, ppn, c, network, &lay);
		channels_tree_chain(r, t, pattern, identity, ppn, &lay);
		search_add_chain(r, env, &l, t, lay.order, ppn, false, 1, use);
	}
	ok = search_loads_fit(r, t, &l, use, speed);
	free(use);
	return ok;
}

/* ncclTopoDupChannels: twice the channels at half the speed, when a
 * channel is fast (since 2.1x not on Hopper+ with 4+ channels under 50
 * GB/s), up to @max: the graph's maxChannels. */
static void dup_channels(const struct nccl_release *r, enum topo_gpu_arch arch,
			 unsigned max, struct nccl_graph *g)
{
	unsigned dup;

	if (g->bw_intra < 25.0)
		return;
	if (r->dup_skips_hopper && arch > TOPO_GPU_AMPERE && g->bw_intra < 50.0 &&
	    g->nchannels > 4)
		return;
	dup = 2 * g->nchannels < max ? 2 * g->nchannels : max;
	if (dup <= g->nchannels)
		return;
	g->bw_intra /= (dup + g->nchannels - 1) / g->nchannels;
	g->bw_inter /= (dup + g->nchannels - 1) / g->nchannels;
	g->nchannels = dup;
}

/*
 * The pattern NCCL's search starts a tree from: one GPU a node is a
 * simple tree (search.cc: v2.30.7-1 :1133, v2.8.4-1 :677); 2.5 - 2.9 ask
 * for it on one or two nodes and split a balanced one before Ampere
 * (init.cc v2.8.4-1:652, search.cc :682); later releases ask for a
 * balanced tree, which on Hopper and later with an NVSwitch falls back
 * to a simple one where it does not fit ("Try a simpler tree",
 * v2.30.7-1 search.cc:1215-1219, v2.19.3-1 :951-953): where each PCIe
 * switch holds one GPU and its NIC (balanced_tree_fits).
 */
static enum nccl_pattern tree_pattern(const struct nccl_release *r, const struct topology *t,
				      unsigned nnodes, unsigned ppn)
{
	if (ppn == 1)
		return NCCL_PATTERN_TREE;
	if (r->tree_pattern_by_nodes)
		return nnodes <= 2		       ? NCCL_PATTERN_TREE :
		       t->gpu_arch < TOPO_GPU_AMPERE ? NCCL_PATTERN_SPLIT_TREE :
						       NCCL_PATTERN_BALANCED_TREE;
	if (r->tree_simpler_fallback && t->gpu_arch >= TOPO_GPU_HOPPER &&
	    t->gpu_fabric.kind == TOPO_GPU_FABRIC_NVSWITCH && !balanced_tree_fits(t, ppn))
		return NCCL_PATTERN_TREE;
	return NCCL_PATTERN_BALANCED_TREE;
}

/*
 * The tree's channels and network speed across nodes, searched as the
 * ring's are (the speeds fastest first, the most channels x speed, the
 * .49 rule) with the tree's own loads (fit_tree_channels): at most the
 * ring's channels and, from 2.18, exactly as many (init.cc
 * treeGraph.minChannels: 1 before, v2.19.3-1:927 the ring's). A split
 * tree that does not fit tries a simple one at the same speed ("Try a
 * simpler tree", search.cc v2.8.4-1:742-746). Where nothing fits, the
 * ring's graph stands (NCCL would fall back to one channel at 0.1 GB/s;
 * gdrlab's layouts do not backtrack over GPU orders as its search does,
 * so a miss here need not be NCCL's).
 */
static bool search_tree_net(const struct nccl_release *r, const struct topology *t,
			    unsigned nnodes, unsigned ppn, const struct search_env *env,
			    const struct nccl_graph *ring, struct nccl_graph *g)
{
	enum nccl_pattern want = tree_pattern(r, t, nnodes, ppn);
	unsigned max = ring->nchannels, min = r->tree_min_channels_one ? 1 : max;
	struct res_layout l;
	const double *speeds;
	size_t n;
	double best = 0, *use;
	struct nccl_graph found = { 0 };

	res_layout_init(&l, t, 1);
	speeds = nccl_search_speeds(r, t->gpu_arch, true, &n);
	use = calloc(l.per_node ? l.per_node : 1, sizeof(*use));
	for (size_t i = 0; use && i < n; i++) {
		enum nccl_pattern pattern = want;
		unsigned c;

		if (found.nchannels && speeds[i] / found.bw_inter <= 0.49)
			break;
		c = fit_tree_channels(r, t, &l, ppn, pattern, env, ring, speeds[i], speeds[i], max,
				      use);
		if (c < max && pattern == NCCL_PATTERN_SPLIT_TREE) {
			unsigned simple = fit_tree_channels(r, t, &l, ppn, NCCL_PATTERN_TREE, env,
							    ring, speeds[i], speeds[i], max, use);

			if (simple > c) {
				c = simple;
				pattern = NCCL_PATTERN_TREE;
			}
		}
		if (c >= min && c && c * speeds[i] > best * (1 + 1e-9)) {
			best = c * speeds[i];
			found.nchannels = c;
			found.bw_intra = found.bw_inter = speeds[i];
			found.pattern = pattern;
		}
	}
	free(use);
	if (!found.nchannels) {
		g->pattern = want;
		return false;
	}
	/* a lone GPU's tree leaves by the ring's NIC: the same loads */
	found.far_nic = ring->far_nic;
	found.type_inter = intra_type(r, env, t, ppn, true, &found);
	for (unsigned c = 0; c < found.nchannels; c++) {
		struct channel_layout lay;
		unsigned first, second;

		channels_layout(r, t, identity, ppn, c, true, &lay);
		channels_far_nic(t, &found, identity, ppn, &lay);
		first = lay.order[0];
		second = lay.order[channels_tree_chain(r, t, found.pattern, identity, ppn,
							 &lay)];
		widen_type(t, env, first, lay.nic_in, false, &found);
		if (found.pattern != NCCL_PATTERN_SPLIT_TREE)
			widen_type(t, env, first, lay.nic_in, true, &found);
		if (found.pattern != NCCL_PATTERN_TREE)
			widen_type(t, env, second, lay.nic_in, true, &found);
	}
	*g = found;
	return true;
}

/* Whether @g's channels still fit with bwIntra raised to @intra: its
 * chains at @intra, across nodes its network loads at bwInter too (the
 * search's pass 2 searches the whole graph again). */
static bool tree_intra_fits(const struct nccl_release *r, const struct topology *t,
			    unsigned ppn, const struct search_env *env, bool whole,
			    bool network, const struct nccl_graph *g, double intra)
{
	struct res_layout l;
	double *use;
	bool ok;

	if (!whole)
		return tree_chains_fit(r, env, t, ppn, network, g->pattern, g->nchannels, intra);
	res_layout_init(&l, t, 1);
	use = calloc(l.per_node ? l.per_node : 1, sizeof(*use));
	ok = use && fit_tree_channels(r, t, &l, ppn, g->pattern, env, g, g->bw_inter, intra,
				      g->nchannels, use) >= g->nchannels;
	free(use);
	return ok;
}

/*
 * The tree graph (treeGraph), then search.cc's pass 2, which raises
 * bwIntra alone, a speed of the list at a time, while it is under twice
 * bwInter and the chains still fit (v2.30.7-1 search.cc:1275-1279,
 * v2.19.3-1 likewise, v2.8.4-1 :780-785): the tuner's tree speed on one
 * and two nodes (tuning.cc: nNodes <= 2 ? bwIntra : bwInter). Before
 * 2.18 the search then duplicates a fast tree's channels as a ring's, up
 * to the ring's (search.cc v2.8.4-1:799-806, v2.12.12-1:893-900).
 */
static void search_tree(const struct nccl_release *r, const struct topology *t,
			unsigned nnodes, unsigned ppn, const struct search_env *env,
			const struct nccl_graph *ring, struct nccl_graph *g)
{
	bool network = nnodes > 1, whole = false;
	const double *speeds;
	size_t n, i;

	*g = *ring;
	g->pattern = NCCL_PATTERN_BALANCED_TREE;
	if (network)
		whole = search_tree_net(r, t, nnodes, ppn, env, ring, g);
	speeds = nccl_search_speeds(r, t->gpu_arch, network, &n);
	/* pass 2 starts at the first speed not above bwInter; with one GPU a
	 * node too, whose chain has no hop to hold it (NCCL's own search of
	 * one GPU: 48/24 on 400G, 20/10 on a V100's Gen3 link) */
	for (i = 0; i < n && speeds[i] > g->bw_inter * (1 + 1e-9); i++)
		;
	while (i > 0 && g->bw_intra < 2 * g->bw_inter &&
	       tree_intra_fits(r, t, ppn, env, whole, network, g, speeds[i - 1]))
		g->bw_intra = speeds[--i];
	/* its channels as fit_tree_channels laid them out, then copies */
	g->distinct = g->nchannels;
	if (r->tree_min_channels_one)
		dup_channels(r, t->gpu_arch, ring->nchannels, g);
}

void channels_search(const struct nccl_release *r, const struct search_env *env,
		     const struct topology *t, unsigned nnodes, unsigned ppn,
		     struct nccl_channels *out)
{
	struct search_env e = *env;
	unsigned comm;

	if (ppn < 1)
		ppn = 1;
	if (ppn > t->ngpus)
		ppn = t->ngpus;
	/* PXN relays through a peer GPU of the communicator on the node:
	 * with one GPU a node there is none (paths.cc: the peer is a rank) */
	e.pxn = env->pxn && ppn > 1;
	memset(out, 0, sizeof(*out));
	search_ring(r, t, nnodes, ppn, &e, &out->ring);
	dup_channels(r, t->gpu_arch, r->max_channels / 2, &out->ring);
	search_tree(r, t, nnodes, ppn, &e, &out->ring, &out->tree);
	/* init.cc: both take the fewer of their channels (v2.30.7-1:1280,
	 * v2.8.4-1:695) */
	if (out->tree.nchannels < out->ring.nchannels)
		out->ring.nchannels = out->tree.nchannels;
	/* connect.cc: every graph channel twice (tree 0 and tree 1), then on
	 * Hopper and later across nodes twice again when channels are fast
	 * and few (releases that do). */
	comm = 2 * out->ring.nchannels;
	if (r->comm_x2_hopper && t->gpu_arch >= TOPO_GPU_HOPPER &&
	    !(r->newest_gpu_hopper && t->gpu_arch > TOPO_GPU_HOPPER) && nnodes > 1 &&
	    out->ring.bw_intra > 45.0 && comm < r->comm_x2_below)
		comm *= 2;
	out->comm_channels = comm < r->max_channels ? comm : r->max_channels;
	channels_search_nvls(r, &e, t, identity, nnodes, ppn, &out->nvls);
	out->min_net_bw = nnodes > 1 ? channels_min_net_bw(r, t, ppn) : 0;
	channels_nvls_tuning(r, t, nnodes, ppn, out);
}
