/* SPDX-License-Identifier: MIT */
/*
 * A channel's way through a node, as NCCL's search lays it out: its NICs
 * (channels_nic, the first NIC by each release's rule), its entry and exit
 * GPUs and the order between (channels.h channels_layout). The search
 * that counts such channels is channels_search.c.
 */
#include "channels.h"

#include "channels_mesh.h"
#include "nccl_tuning.h"

int channels_nic(const struct topology *t, unsigned gpu, unsigned channel)
{
	return topo_nearest_nic_rotated(t, (int)gpu, channel);
}

const char *nccl_pattern_name(enum nccl_pattern p)
{
	static const char *const names[] = {
		[NCCL_PATTERN_RING] = "RING",
		[NCCL_PATTERN_BALANCED_TREE] = "BALANCED_TREE",
		[NCCL_PATTERN_SPLIT_TREE] = "SPLIT_TREE",
		[NCCL_PATTERN_TREE] = "TREE",
		[NCCL_PATTERN_NVLS] = "NVLS",
	};

	return (unsigned)p < sizeof(names) / sizeof(names[0]) ? names[p] : "?";
}

const char *nccl_graph_inter_name(const struct nccl_graph *g)
{
	return g->pxn && g->type_inter <= TOPO_PATH_PXB ? "PXN" : topo_path_name(g->type_inter);
}

/*
 * Of the @n GPUs but @entry, the one with the shortest path to @nic, the
 * GPU before @entry first at a tie: the way back to the NIC a channel came
 * in by, as NCCL's search orders the GPUs it tries last by their path to
 * the network (search.cc ncclTopoSearchNextGpuSort). On a node of a NIC
 * per GPU, one on the NIC's socket (PHB), not across the sockets.
 */
static unsigned nearest_other(const struct topology *t, const unsigned *gpus,
			      unsigned n, unsigned entry, int nic)
{
	unsigned best = (entry + n - 1) % n;

	for (unsigned k = 2; k < n; k++) {
		unsigned g = (entry + n - k) % n;

		if (topo_gpu_nic_path(t, (int)gpus[g], nic) <
		    topo_gpu_nic_path(t, (int)gpus[best], nic))
			best = g;
	}
	return best;
}

unsigned channels_mirror_bits(unsigned val, unsigned pow2)
{
	unsigned m = 0;

	for (unsigned b = 1, mb = pow2 >> 1; b < pow2; b <<= 1, mb >>= 1)
		if (val & b)
			m |= mb;
	return m;
}

/*
 * GPU @g's (an index into @gpus) nearest NICs, index order, into @local
 * (their count returned), in @start the one of them it tries first, by
 * @r's rule (enum nccl_first_net, topo.cc ncclTopoGetLocalNet), and in
 * @shared (where not NULL) how many of @gpus have the first of them
 * among their nearest.
 */
static unsigned gpu_nics(const struct nccl_release *r, const struct topology *t,
			 const unsigned *gpus, unsigned n, unsigned g, int *local,
			 unsigned *start, unsigned *shared)
{
	unsigned m = 0, sharing = 0, dev = gpus[g];

	*start = 0;
	if (shared)
		*shared = 0;
	for (unsigned i = 0; i < t->nnics; i++)
		if (topo_nic_is_nearest(t, gpus[g], (int)i))
			local[m++] = (int)i;
	if (!m)
		return 0;
	for (unsigned k = 0; k < n; k++)
		sharing += topo_nic_is_nearest(t, gpus[k], local[0]);
	if (shared)
		*shared = sharing;
	if (r && r->first_net == NCCL_FIRST_NET_DEV_MOD_GPUS)
		dev %= sharing;
	if (r && r->first_net == NCCL_FIRST_NET_DEV)
		*start = dev % m;
	else if (r && r->first_net != NCCL_FIRST_NET_INDEX)
		*start = (m & (m - 1)) ? dev % m : channels_mirror_bits(dev, m);
	return m;
}

int channels_p2p_nic(const struct nccl_release *r, const struct topology *t,
		     const unsigned *gpus, unsigned n, unsigned g, unsigned channel)
{
	int local[TOPO_MAX_NICS];
	unsigned start, sharing, per_gpu, m = gpu_nics(r, t, gpus, n, g, local, &start, &sharing);

	if (!m)
		return -1;
	if (!r || r->first_net == NCCL_FIRST_NET_INDEX)
		per_gpu = m;
	else if (r->first_net == NCCL_FIRST_NET_DEV)
		per_gpu = 1;
	else
		per_gpu = sharing ? (m + sharing - 1) / sharing : m;
	return local[(start + channel % per_gpu) % m];
}

/*
 * The NICs a communicator's channels take in turn (channel c the (c mod
 * count)-th), in NCCL's order: GPU by GPU, its nearest NICs from the one
 * @r starts it at, each NIC once (search.cc ncclTopoSelectNets; the
 * search's channel c starts at its c-th). On a whole node every release
 * lists the NICs in index order; a GPU alone of its switch's in a
 * communicator starts at the first NIC in 2.8.4 and 2.30.7, at one by its
 * index in 2.12 - 2.30.4. @first[g]: the NIC GPU @g starts at, -1 for none.
 */
static unsigned channel_nics(const struct nccl_release *r, const struct topology *t,
			     const unsigned *gpus, unsigned n, int *nics, int *first)
{
	unsigned nn = 0;

	for (unsigned g = 0; g < n; g++) {
		int local[TOPO_MAX_NICS];
		unsigned start, m = gpu_nics(r, t, gpus, n, g, local, &start, NULL);

		first[g] = m ? local[start] : -1;
		for (unsigned k = 0; k < m; k++) {
			int nic = local[(start + k) % m];
			bool listed = false;

			for (unsigned j = 0; j < nn; j++)
				listed |= nics[j] == nic;
			if (!listed)
				nics[nn++] = nic;
		}
	}
	return nn;
}

/*
 * Channel @channel's NIC (channel_nics) and the GPUs it enters and leaves
 * the node by, indices into @gpus. From 2.12 it enters by the NIC's own
 * GPU, the first of its near GPUs that tries it first (2.30.7's
 * net.localGpu, tried before the others: search.cc ncclTopoSearchRecNet),
 * and leaves by the next of them. 2.8.4 tries first a GPU no channel
 * uses yet either way ("avoid using GPUs in both directions between
 * channels"), which NICs sharing their GPUs get by taking turns at them.
 * Channels past the NICs' count take turns at those GPUs.
 */
static int layout_ends(const struct nccl_release *r, const struct topology *t,
		       const unsigned *gpus, unsigned n, unsigned channel, unsigned *entry,
		       unsigned *exit)
{
	int nics[TOPO_MAX_NICS], first[TOPO_MAX_GPUS];
	unsigned nn = channel_nics(r, t, gpus, n, nics, first);
	unsigned near_gpus[TOPO_MAX_GPUS], ng = 0, own = 0;
	bool found = false;
	int nic = nics[channel % nn];

	for (unsigned g = 0; g < n; g++) {
		if (!topo_nic_is_nearest(t, gpus[g], nic))
			continue;
		if (!found && first[g] == nic) {
			own = ng;
			found = true;
		}
		near_gpus[ng++] = g;
	}
	if (!r || r->first_net == NCCL_FIRST_NET_INDEX)
		own = channel; /* 2.8.4: in turns */
	*entry = near_gpus[(own + channel / nn) % ng];
	*exit = ng > 1 ? near_gpus[(own + channel / nn + 1) % ng] :
			 nearest_other(t, gpus, n, *entry, nic);
	return nic;
}

/* A wired mesh's channel ends (channels_mesh.h): its entry and NIC, or a
 * ring turned by the channel inside one node. */
static void mesh_ends(const struct nccl_release *r, const struct topology *t,
		      const unsigned *gpus, unsigned n, unsigned c, bool network, int *entry,
		      int *nic)
{
	unsigned in, out;

	if (!network || !t->nnics) {
		*entry = (int)(c % n);
		*nic = -1;
		return;
	}
	*nic = layout_ends(r, t, gpus, n, c, &in, &out);
	*entry = (int)in;
}

void channels_layout(const struct nccl_release *r, const struct topology *t,
		     const unsigned *gpus, unsigned n, unsigned channel, bool network,
		     struct channel_layout *l)
{
	bool mesh = t->gpu_fabric.wired && n > 1;
	unsigned entry, exit, at = 0;
	int nic;

	l->nic_in = l->nic_out = -1;
	/* a wired mesh's channels go along its pairs, as searched */
	if (mesh)
		mesh_order(r, t, gpus, n, channel, network, mesh_ends, l->order);
	if (!network || !t->nnics || !n) {
		for (unsigned k = 0; !mesh && k < n; k++)
			l->order[k] = (k + channel) % n;
		return;
	}
	nic = layout_ends(r, t, gpus, n, channel, &entry, &exit);
	if (mesh) {
		exit = l->order[n - 1]; /* where the mesh's search left it */
	} else {
		l->order[at++] = entry;
		for (unsigned k = 1; k < n; k++) {
			unsigned g = (entry + k) % n;

			if (g != exit)
				l->order[at++] = g;
		}
		if (n > 1)
			l->order[at++] = exit;
	}
	l->nic_in = nic;
	l->nic_out = topo_nic_is_nearest(t, gpus[exit], nic) ? nic :
							      channels_nic(t, gpus[exit], channel);
}

unsigned channels_copied(const struct nccl_channels *ch, const struct nccl_graph *g, unsigned c)
{
	if (ch->ring.nchannels)
		c %= ch->ring.nchannels;
	return g->distinct ? c % g->distinct : c;
}

void channels_keep_nic(const struct nccl_graph *g, struct channel_layout *l)
{
	if (g->keep_nic && l->nic_in >= 0)
		l->nic_out = l->nic_in;
}

/* Whether the @n GPUs @gpus are wired all to all, alike: any order of
 * them crosses the same links (ABCI's four V100), as on an NVSwitch. */
static bool wired_alike(const struct topology *t, const unsigned *gpus, unsigned n)
{
	unsigned links = topo_pair_links(t, gpus[0], gpus[1]);

	for (unsigned a = 0; a < n; a++)
		for (unsigned b = a + 1; b < n; b++)
			if (topo_pair_links(t, gpus[a], gpus[b]) != links)
				return false;
	return links > 0;
}

unsigned channels_tree_chain(const struct nccl_release *r, const struct topology *t,
			     enum nccl_pattern p, const unsigned *gpus, unsigned n,
			     struct channel_layout *l)
{
	unsigned entry = l->order[0], exit = l->order[n - 1], at = 1;
	unsigned back = p == NCCL_PATTERN_TREE || n < 2 ? 0 : 1;

	if (l->nic_in < 0)
		return back; /* on one node the chain is the ring's, turned */
	l->nic_out = l->nic_in;
	if (n < 3)
		return back;
	/* a mesh's pairs ordered its chain as the search found it (NCCL's
	 * tree there is its own search's: docs/model.md, Known limits) */
	if (t->gpu_fabric.wired && !wired_alike(t, gpus, n))
		return back ? n - 1 : 0;
	/* the way it went to the second, the others after it: down the
	 * indices from a second just below the entry where NCCL tries an
	 * NVSwitch's neighbours first (1 0 7 6 ... 2), else on up from the
	 * entry (1 0 2 3 ... 7) */
	if (back && exit == (entry + n - 1) % n && r && r->nvswitch_neighbors_first &&
	    t->gpu_fabric.kind == TOPO_GPU_FABRIC_NVSWITCH) {
		for (unsigned k = 1; k < n; k++)
			l->order[at++] = (entry + n - k) % n;
		return back;
	}
	if (back)
		l->order[at++] = exit;
	for (unsigned k = 1; k < n; k++) {
		unsigned g = (entry + k) % n;

		if (!back || g != exit)
			l->order[at++] = g;
	}
	return back;
}

/* The NIC graph @g takes for a lone GPU @gpu beyond its nearest, where
 * it takes one (@n 1 and far_nic.on), else -1. */
static int far_nic(const struct topology *t, const struct nccl_graph *g, unsigned gpu,
		   unsigned n)
{
	if (!g->far_nic.on || n != 1)
		return -1;
	return topo_nic_at_class(t, gpu, g->far_nic.cls, g->far_nic.rank);
}

void channels_far_nic(const struct topology *t, const struct nccl_graph *g,
		      const unsigned *gpus, unsigned n, struct channel_layout *l)
{
	int nic = l->nic_in >= 0 ? far_nic(t, g, gpus[0], n) : -1;

	if (nic >= 0)
		l->nic_in = l->nic_out = nic;
}

int channels_graph_nic(const struct topology *t, const struct nccl_graph *g, unsigned gpu,
		       unsigned ppn, unsigned channel)
{
	int nic = channels_nic(t, gpu, channel), far = nic >= 0 ? far_nic(t, g, gpu, ppn) : -1;

	return far >= 0 ? far : nic;
}
