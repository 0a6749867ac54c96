/* SPDX-License-Identifier: MIT */
#include "channels_mesh.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "topo_path.h"

/* Orders tried at most per channel: a mesh of 8 GPUs takes a few hundred,
 * pairs of PCIe cards (any GPU after any over PCIe) far more; past it the
 * best order found so far stands. */
#define MESH_BUDGET (1u << 18)
#define MESH_MAX_CHANNELS 64

/*
 * A hop's class in the order NCCL's search widens it: a pair's own links
 * (PATH_NVL), through a GPU between (PATH_NVB), then PCIe's classes.
 */
enum { LEVEL_NVL, LEVEL_NVB, LEVEL_PCIE };

static unsigned pcie_level(enum topo_path_type p)
{
	return LEVEL_PCIE + (unsigned)p;
}

/*
 * What an order costs, compared in this order:
 * - inter, its typeInter: across nodes NCCL widens typeInter from PIX and,
 *   for each, typeIntra up to it, no further (search.cc: maxTypeIntra is
 *   typeInter with a network), so a chain whose hops need PHB or SYS may
 *   leave by a GPU that far from the NIC too;
 * - intra, its typeIntra, the farthest of its hops;
 * - links, the fewest links a channel has of any pair it crosses (none
 *   over PCIe), and wired, the fewest the pairs are wired with (below);
 * - hops, the links it crosses, entry and exit included: at one
 *   bandwidth NCCL keeps the graph of fewer (ncclTopoCompareGraphs).
 * At a tie the first found stands: the GPUs after each by index, PCI
 * order, the reference NCCL's search tries first.
 */
struct mesh_score {
	unsigned inter, intra;
	double links;
	unsigned wired, hops;
};

/*
 * Whether @a is strictly better than @b. Where channels would get as
 * many links, the order over the more richly wired pairs: it keeps the
 * ring of the others whole for a later channel (on a DGX-1, after both
 * ways round the ring of 2-link pairs, channels 3 and 4 take it again,
 * and the ring of 1-link pairs stays free for 5 and 6: every link used,
 * as NCCL's backtracking search finds them; a mixed order taken early
 * would break both rings).
 */
static bool better(const struct mesh_score *a, const struct mesh_score *b)
{
	if (a->inter != b->inter)
		return a->inter < b->inter;
	if (a->intra != b->intra)
		return a->intra < b->intra;
	if (a->links > b->links * (1 + 1e-12) || b->links > a->links * (1 + 1e-12))
		return a->links > b->links;
	if (a->wired != b->wired)
		return a->wired > b->wired;
	return a->hops < b->hops;
}

struct mesh_search {
	const struct topology *t;
	const unsigned *gpus;
	unsigned n;
	int nic;       /* the NIC the chain leaves by, or -1: a ring */
	const uint16_t *load; /* channels on each ordered pair so far */
	unsigned path[TOPO_MAX_GPUS], best_path[TOPO_MAX_GPUS];
	struct mesh_score best;
	bool found;
	unsigned long tries;
};

/* @sc with the hop from GPU index @a to @b (into @gpus) added: over a
 * pair's own links or two through a GPU between, the links a channel
 * gets of each with the channels before it and the links it is wired
 * with; else over PCIe. */
static struct mesh_score add_hop(const struct mesh_search *s, struct mesh_score sc,
				 unsigned a, unsigned b)
{
	unsigned ga = s->gpus[a], gb = s->gpus[b], pairs[2], level, hops;
	unsigned npairs = topo_wired_pairs(s->t, ga, gb, pairs);

	for (unsigned i = 0; i < npairs; i++) {
		unsigned wired = topo_pair_links(s->t, pairs[i] / s->t->ngpus,
						 pairs[i] % s->t->ngpus);

		sc.links = fmin(sc.links, (double)wired / (s->load[pairs[i]] + 1));
		if (wired < sc.wired)
			sc.wired = wired;
	}
	if (npairs) {
		level = npairs == 1 ? LEVEL_NVL : LEVEL_NVB;
		hops = npairs;
	} else {
		level = pcie_level(topo_gpu_gpu_path(s->t, ga, gb, &hops));
		sc.links = 0;
		sc.wired = 0;
	}
	if (level > sc.intra)
		sc.intra = level;
	if (level > sc.inter)
		sc.inter = level;
	sc.hops += hops;
	return sc;
}

/* @sc with the chain's way out from GPU index @last to its NIC added. */
static struct mesh_score add_exit(const struct mesh_search *s, struct mesh_score sc,
				  unsigned last)
{
	unsigned level = pcie_level(topo_gpu_nic_path(s->t, (int)s->gpus[last], s->nic));

	if (level > sc.inter)
		sc.inter = level;
	sc.hops += topo_gpu_nic_links(s->t, s->gpus[last], (unsigned)s->nic);
	return sc;
}

/* Depth-first over the orders from @path[0..k), next GPUs by index after
 * the last (the order NCCL's search tries them in where all are alike). */
static void dfs(struct mesh_search *s, unsigned k, uint64_t used, struct mesh_score sc)
{
	unsigned last = s->path[k - 1];

	/* every component only worsens as hops are added */
	if (s->found && !better(&sc, &s->best))
		return;
	if (s->tries++ > MESH_BUDGET)
		return;
	if (k == s->n) {
		sc = s->nic < 0 ? add_hop(s, sc, last, s->path[0]) : add_exit(s, sc, last);
		if (!s->found || better(&sc, &s->best)) {
			s->best = sc;
			s->found = true;
			memcpy(s->best_path, s->path, s->n * sizeof(*s->path));
		}
		return;
	}
	/* the most promising next GPU first, as NCCL's search sorts them
	 * (ncclTopoSearchNextGpuSort, by bandwidth), so that a good order
	 * comes early and cuts the rest short; at a tie, by index after */
	unsigned next[TOPO_MAX_GPUS], count = 0;
	struct mesh_score hop[TOPO_MAX_GPUS], none = { 0, 0, 1e300, UINT_MAX, 0 };

	for (unsigned d = 1; d < s->n; d++) {
		unsigned g = (last + d) % s->n, at = count++;

		if (used >> g & 1) {
			count--;
			continue;
		}
		hop[g] = add_hop(s, none, last, g);
		while (at > 0 && better(&hop[g], &hop[next[at - 1]])) {
			next[at] = next[at - 1];
			at--;
		}
		next[at] = g;
	}
	for (unsigned i = 0; i < count; i++) {
		s->path[k] = next[i];
		dfs(s, k + 1, used | 1ull << next[i], add_hop(s, sc, last, next[i]));
	}
}

/* Charge channel @path's pairs to @load. */
static void charge(const struct topology *t, const unsigned *gpus, unsigned n, bool ring,
		   const unsigned *path, uint16_t *load)
{
	for (unsigned k = 0; k + 1 < n || (ring && n > 1 && k < n); k++) {
		unsigned pairs[2], npairs = topo_wired_pairs(t, gpus[path[k]],
							     gpus[path[(k + 1) % n]], pairs);

		for (unsigned i = 0; i < npairs; i++)
			load[pairs[i]]++;
	}
}

/* The last mesh asked about and its channels' orders so far. */
static struct {
	uint64_t key;
	bool network;
	unsigned n, nchannels;
	int entry[MESH_MAX_CHANNELS], nic[MESH_MAX_CHANNELS];
	unsigned order[MESH_MAX_CHANNELS][TOPO_MAX_GPUS];
	uint16_t load[TOPO_MAX_GPUS * TOPO_MAX_GPUS];
} cache;

static uint64_t fnv(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ULL;
}

/* FNV-1a over what an order's score reads: the node's wiring, the
 * communicator's GPUs, and their PCIe classes to each other and to the
 * NICs (two nodes wired alike may be cabled otherwise). */
static uint64_t mesh_key(const struct topology *t, const unsigned *gpus, unsigned n)
{
	uint64_t h = fnv(0xcbf29ce484222325ULL, t->ngpus);
	unsigned links;

	for (unsigned i = 0; i < t->ngpus; i++)
		for (unsigned j = 0; j < t->ngpus; j++)
			h = fnv(h, topo_pair_links(t, i, j));
	for (unsigned i = 0; i < n; i++) {
		h = fnv(h, gpus[i]);
		for (unsigned j = 0; j < n; j++)
			h = fnv(h, topo_gpu_gpu_path(t, gpus[i], gpus[j], &links) * 256u + links);
		for (unsigned j = 0; j < t->nnics; j++)
			h = fnv(h, topo_gpu_nic_path(t, (int)gpus[i], (int)j) * 256u +
					   topo_gpu_nic_links(t, gpus[i], j));
	}
	return h;
}

/* Lay out channel @c after the cached ones: the best order from its
 * entry, each hop charged. */
static void lay_out(const struct topology *t, const unsigned *gpus, unsigned c, int entry,
		    int nic)
{
	struct mesh_search s = {
		.t = t, .gpus = gpus, .n = cache.n, .nic = nic, .load = cache.load,
	};
	struct mesh_score start = { LEVEL_PCIE + TOPO_PATH_PIX, LEVEL_NVL, 1e300, UINT_MAX, 0 };

	/* a ring inside one node has no typeInter to widen */
	if (nic < 0)
		start.inter = 0;
	else
		start.hops = topo_gpu_nic_links(t, gpus[entry], (unsigned)nic);
	s.path[0] = (unsigned)entry;
	dfs(&s, 1, 1ull << entry, start);
	memcpy(cache.order[c], s.best_path, cache.n * sizeof(*s.best_path));
	charge(t, gpus, cache.n, nic < 0, cache.order[c], cache.load);
	cache.entry[c] = entry;
	cache.nic[c] = nic;
}

void mesh_order(const struct nccl_release *r, const struct topology *t, const unsigned *gpus,
		unsigned n, unsigned channel, bool network, mesh_ends_fn ends, unsigned *order)
{
	uint64_t key = mesh_key(t, gpus, n);
	unsigned c = channel % MESH_MAX_CHANNELS;

	if (cache.key != key || cache.n != n || cache.network != network) {
		memset(&cache, 0, sizeof(cache));
		cache.key = key;
		cache.n = n;
		cache.network = network;
	}
	/* the channels before keep their orders while their ends are the
	 * same; from the first that differs, all are laid out again */
	for (unsigned k = 0; k <= c; k++) {
		int entry, nic;

		ends(r, t, gpus, n, k, network, &entry, &nic);
		if (k < cache.nchannels && cache.entry[k] == entry && cache.nic[k] == nic)
			continue;
		if (k < cache.nchannels) {
			memset(cache.load, 0, sizeof(cache.load));
			for (unsigned j = 0; j < k; j++)
				charge(t, gpus, n, cache.nic[j] < 0, cache.order[j], cache.load);
		}
		lay_out(t, gpus, k, entry, nic);
		cache.nchannels = k + 1;
	}
	memcpy(order, cache.order[c], n * sizeof(*order));
}
