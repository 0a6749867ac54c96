/* SPDX-License-Identifier: MIT */
#include "channels_mesh.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "topo_path.h"

/* Orders tried at most per channel: a mesh of 8 GPUs takes a few hundred,
 * pairs of PCIe cards (any GPU after any over PCIe) far more; past it the
 * best order found so far stands. */
#define MESH_BUDGET (1u << 18)
#define MESH_MAX_CHANNELS 64

/* What an order costs: its hops over PCIe, its hops through a GPU
 * between, the fewest links a channel has of any pair it crosses, and
 * the fewest the pairs it crosses are wired with. */
struct mesh_score {
	unsigned pcie, via;
	double links;
	unsigned wired;
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
	if (a->pcie != b->pcie)
		return a->pcie < b->pcie;
	if (a->via != b->via)
		return a->via < b->via;
	if (a->links > b->links * (1 + 1e-12) || b->links > a->links * (1 + 1e-12))
		return a->links > b->links;
	return a->wired > b->wired;
}

struct mesh_search {
	const struct topology *t;
	const unsigned *gpus;
	unsigned n;
	int exit;      /* the last GPU of an open chain, or -1: a ring */
	const uint16_t *load; /* channels on each ordered pair so far */
	unsigned path[TOPO_MAX_GPUS], best_path[TOPO_MAX_GPUS];
	struct mesh_score best;
	bool found;
	unsigned long tries;
};

/* The links a channel gets of pair @a -> @b with the channels before it. */
static double share(const struct mesh_search *s, unsigned a, unsigned b)
{
	unsigned ng = s->t->ngpus;

	return (double)topo_pair_links(s->t, a, b) / (s->load[a * ng + b] + 1);
}

/* @sc with the hop from GPU index @a to @b (into @gpus) added. */
static struct mesh_score add_hop(const struct mesh_search *s, struct mesh_score sc,
				 unsigned a, unsigned b)
{
	unsigned ga = s->gpus[a], gb = s->gpus[b], via;
	double links;

	unsigned wired;

	switch (topo_nvlink_way(s->t, ga, gb, &via)) {
	case TOPO_NVLINK_DIRECT:
		links = share(s, ga, gb);
		wired = topo_pair_links(s->t, ga, gb);
		break;
	case TOPO_NVLINK_VIA:
		sc.via++;
		links = share(s, ga, via) < share(s, via, gb) ? share(s, ga, via) :
								 share(s, via, gb);
		wired = topo_pair_links(s->t, ga, via) < topo_pair_links(s->t, via, gb) ?
				topo_pair_links(s->t, ga, via) :
				topo_pair_links(s->t, via, gb);
		break;
	default:
		sc.pcie++;
		return sc;
	}
	if (links < sc.links)
		sc.links = links;
	if (wired < sc.wired)
		sc.wired = wired;
	return sc;
}

/* Depth-first over the orders from @path[0..k), next GPUs by index after
 * the last (the order NCCL's search tries them in where all are alike). */
static void dfs(struct mesh_search *s, unsigned k, uint64_t used, struct mesh_score sc)
{
	unsigned last = s->path[k - 1];

	if (s->found && !better(&sc, &s->best))
		return; /* hops only add to the counts and lower the links */
	if (s->tries++ > MESH_BUDGET)
		return;
	if (k == s->n) {
		if (s->exit < 0 && s->n > 1)
			sc = add_hop(s, sc, last, s->path[0]);
		if (!s->found || better(&sc, &s->best)) {
			s->best = sc;
			s->found = true;
			memcpy(s->best_path, s->path, s->n * sizeof(*s->path));
		}
		return;
	}
	for (unsigned d = 1; d < s->n; d++) {
		unsigned g = (last + d) % s->n;

		if (used >> g & 1)
			continue;
		/* an open chain ends at its exit */
		if ((int)g == s->exit && k + 1 < s->n)
			continue;
		s->path[k] = g;
		dfs(s, k + 1, used | 1ull << g, add_hop(s, sc, last, g));
	}
}

/* Charge channel @path's pairs to @load. */
static void charge(const struct topology *t, const unsigned *gpus, unsigned n, bool ring,
		   const unsigned *path, uint16_t *load)
{
	for (unsigned k = 0; k + 1 < n || (ring && n > 1 && k < n); k++) {
		unsigned a = gpus[path[k]], b = gpus[path[(k + 1) % n]], via;

		switch (topo_nvlink_way(t, a, b, &via)) {
		case TOPO_NVLINK_DIRECT:
			load[a * t->ngpus + b]++;
			break;
		case TOPO_NVLINK_VIA:
			load[a * t->ngpus + via]++;
			load[via * t->ngpus + b]++;
			break;
		default:
			break;
		}
	}
}

/* The last mesh asked about and its channels' orders so far. */
static struct {
	uint64_t key;
	bool network;
	unsigned n, nchannels;
	int entry[MESH_MAX_CHANNELS], exit[MESH_MAX_CHANNELS];
	unsigned order[MESH_MAX_CHANNELS][TOPO_MAX_GPUS];
	uint16_t load[TOPO_MAX_GPUS * TOPO_MAX_GPUS];
} cache;

/* FNV-1a over the node's wiring and the communicator's GPUs. */
static uint64_t mesh_key(const struct topology *t, const unsigned *gpus, unsigned n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const unsigned char *p;

	for (unsigned i = 0; i < t->ngpus; i++)
		for (unsigned j = 0; j < t->ngpus; j++) {
			h = (h ^ topo_pair_links(t, i, j)) * 0x100000001b3ULL;
		}
	h = (h ^ t->ngpus) * 0x100000001b3ULL;
	p = (const unsigned char *)gpus;
	for (size_t i = 0; i < n * sizeof(*gpus); i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/* Lay out channel @c after the cached ones: the best order from its
 * entry, each hop charged. */
static void lay_out(const struct topology *t, const unsigned *gpus, unsigned c, int entry,
		    int exit)
{
	struct mesh_search s = {
		.t = t, .gpus = gpus, .n = cache.n, .exit = exit, .load = cache.load,
		.best = { 0, 0, 0, 0 },
	};

	s.path[0] = (unsigned)entry;
	dfs(&s, 1, 1ull << entry, (struct mesh_score){ 0, 0, 1e300, UINT_MAX });
	memcpy(cache.order[c], s.best_path, cache.n * sizeof(*s.best_path));
	charge(t, gpus, cache.n, exit < 0, cache.order[c], cache.load);
	cache.entry[c] = entry;
	cache.exit[c] = exit;
}

void mesh_order(const struct topology *t, const unsigned *gpus, unsigned n,
		unsigned channel, bool network, mesh_ends_fn ends, unsigned *order)
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
		int entry, exit;

		ends(t, gpus, n, k, network, &entry, &exit);
		if (k < cache.nchannels && cache.entry[k] == entry && cache.exit[k] == exit)
			continue;
		if (k < cache.nchannels) {
			memset(cache.load, 0, sizeof(cache.load));
			for (unsigned j = 0; j < k; j++)
				charge(t, gpus, n, cache.exit[j] < 0, cache.order[j], cache.load);
		}
		lay_out(t, gpus, k, entry, exit);
		cache.nchannels = k + 1;
	}
	memcpy(order, cache.order[c], n * sizeof(*order));
}
