/* SPDX-License-Identifier: MIT */
/*
 * What the simulation runs instead of the whole cluster, where symmetry or
 * linearity allow (simgrid_internal.h): a ring folded onto the smallest
 * neighbourhood of nodes that sees the same load, and a collective over
 * many nodes run on fewer and extended. tests/unit/test_model.c checks the
 * fold against a replay of every node, and the scaling against full runs.
 */
#include "simgrid_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"

static unsigned offset_of(const struct plan *p, unsigned from, unsigned to)
{
	return (to + p->nodes - from) % p->nodes;
}

/* Every node's connections, seen from it, the same as node 0's? A ring
 * over whole identical nodes is (its layout is the same on every node);
 * the check is on what timing depends on. */
static bool homogeneous(const struct plan *p, const struct plan_pattern *pat,
			unsigned nch)
{
	unsigned G = p->gpus_per_node;

	if (pat->nranks != p->nranks || p->nodes < 3)
		return false;
	for (size_t i = 0; i < pat->npipes; i++)
		if (pat->pipes[i].shape != PIPE_RING)
			return false;
	for (size_t i = 0; i < pat->nconns; i++) {
		const struct plan_conn *c = &pat->conns[i];
		const struct plan_conn *ref;
		const struct plan_pipe *pp = &pat->pipes[c->pipe];
		size_t k = i - pp->first_conn;

		if (pp->channel >= nch)
			continue;
		/* Node x's k-th connection of a channel against node 0's. */
		ref = &pat->conns[pp->first_conn + k % G];
		if (c->route != ref->route || c->volume != ref->volume ||
		    c->latency != ref->latency || c->src_rank % G != ref->src_rank % G ||
		    c->dst_rank % G != ref->dst_rank % G ||
		    offset_of(p, plan_node_of(p, c->src_rank), plan_node_of(p, c->dst_rank)) !=
			    offset_of(p, plan_node_of(p, ref->src_rank),
				      plan_node_of(p, ref->dst_rank)))
			return false;
	}
	return true;
}

/* The smallest neighbourhood keeping a connection's two nodes apart. */
static unsigned fold_nodes(const struct plan *p, const struct plan_pattern *pat)
{
	unsigned m = 1;

	for (size_t i = 0; i < pat->nconns; i++) {
		unsigned off = offset_of(p, plan_node_of(p, pat->conns[i].src_rank),
					 plan_node_of(p, pat->conns[i].dst_rank));

		if (off + 1 > m)
			m = off + 1;
	}
	return m < 2 ? 2 : m;
}

unsigned sgm_fold_node(const struct plan *p, const struct sgm_fold *f,
		       const struct plan_conn *c, bool at_dst)
{
	unsigned src = plan_node_of(p, c->src_rank), dst = plan_node_of(p, c->dst_rank);

	if (f->nodes == p->nodes)
		return at_dst ? dst : src;
	return at_dst ? (src + offset_of(p, src, dst)) % f->nodes : src % f->nodes;
}

/* The folded rank a connection delivers to. */
static unsigned folded_dst(const struct plan *p, const struct sgm_fold *f,
			   const struct plan_conn *c)
{
	return sgm_fold_node(p, f, c, true) * p->gpus_per_node +
	       c->dst_rank % p->gpus_per_node;
}

int sgm_fold_pattern(const struct plan *p, const struct plan_pattern *pat,
		     unsigned nchannels, bool replay, struct sgm_sym_cache *sym,
		     struct sgm_fold *f)
{
	size_t n = pat->nconns ? pat->nconns : 1;
	uint32_t *index = NULL;
	int err = -ENOMEM;

	memset(f, 0, sizeof(*f));
	f->nodes = p->nodes;
	/* Switches tell the nodes apart (fabric.h): no fold over them. */
	if (!replay && !p->layout.fabric.tiers && homogeneous(p, pat, nchannels)) {
		unsigned m = fold_nodes(p, pat);

		if (m < p->nodes)
			f->nodes = m;
	}
	f->kept = malloc(n * sizeof(*f->kept));
	f->dep = malloc(n * PLAN_MAX_DEPS * sizeof(*f->dep));
	index = malloc(n * sizeof(*index));
	if (!f->kept || !f->dep || !index)
		goto fail;
	for (size_t i = 0; i < pat->nconns; i++) {
		const struct plan_conn *c = &pat->conns[i];

		index[i] = UINT32_MAX;
		if (pat->pipes[c->pipe].channel >= nchannels ||
		    plan_node_of(p, c->src_rank) >= f->nodes)
			continue;
		index[i] = (uint32_t)f->nkept;
		f->kept[f->nkept++] = i;
	}
	for (size_t k = 0; k < f->nkept; k++) {
		const struct plan_conn *c = &pat->conns[f->kept[k]];
		const struct plan_pipe *pp = &pat->pipes[c->pipe];

		for (unsigned d = 0; d < c->ndeps; d++) {
			uint32_t dep = index[c->deps[d]];

			/* Folded away: the kept connection of the same pipe
			 * that delivers to this one's source in the view. */
			for (size_t j = pp->first_conn; dep == UINT32_MAX &&
			     j < pp->first_conn + pp->nconns; j++)
				if (index[j] != UINT32_MAX &&
				    folded_dst(p, f, &pat->conns[j]) == c->src_rank)
					dep = index[j];
			if (dep == UINT32_MAX) {
				err = -EINVAL; /* a fold that lost a dependency */
				goto fail;
			}
			f->dep[k * PLAN_MAX_DEPS + d] = dep;
		}
	}
	free(index);
	index = NULL;
	/* Switches' links are laid out for every node (fabric.h) */
	f->span = p->layout.fabric.tiers ? f->nodes : 1;
	for (size_t k = 0; k < f->nkept && !p->layout.fabric.tiers; k++) {
		const struct plan_conn *c = &pat->conns[f->kept[k]];
		unsigned a = sgm_fold_node(p, f, c, false) + 1, b = sgm_fold_node(p, f, c, true) + 1;

		if (a > f->span)
			f->span = a;
		if (b > f->span)
			f->span = b;
	}
	/* Switches tell the connections apart as they do the nodes. */
	if (!replay && sym && !p->layout.fabric.tiers) {
		err = sgm_fold_symmetry(p, pat, sym, f);
		if (err)
			goto fail;
	}
	return 0;
fail:
	free(index);
	sgm_fold_destroy(f);
	return err;
}

void sgm_fold_destroy(struct sgm_fold *f)
{
	free(f->kept);
	free(f->dep);
	free(f->canon);
	memset(f, 0, sizeof(*f));
}

/*
 * A ring needs no scaling: folded onto two nodes it carries the whole
 * ring's slices, exactly (its time is no line in the nodes: bandwidth-
 * bound rings keep 2(n-1)/n S/B, latency-bound ones grow with n). Trees,
 * NVLS-trees, CollNet and PAT grow by levels: each level adds its hops'
 * latency and fill, and every node above the leaves carries the same
 * load, so their time is a line in log2 of the nodes.
 */
bool sgm_scales(const struct plan *p, const struct plan_pattern *pat,
		bool replay)
{
	return !replay && !p->layout.fabric.tiers && pat->algo != ALGO_P2P &&
	       pat->algo != ALGO_RING &&
	       pat->nranks == p->nranks && p->nodes > SGM_SCALE_NODES;
}

double sgm_scale_variable(const struct plan_pattern *pat, unsigned nodes)
{
	(void)pat;
	return log2((double)nodes);
}

int sgm_scaled_plan(const struct plan *p, const struct plan_pattern *pat,
		    uint64_t bytes, unsigned nchannels, unsigned nodes,
		    struct trace *t, struct plan *out)
{
	struct plan_options o = p->opts;
	struct diag d = { "" };

	memset(t, 0, sizeof(*t));
	t->entries = calloc(1, sizeof(*t->entries));
	if (!t->entries)
		return -ENOMEM;
	t->nentries = 1;
	t->niterations = 1;
	t->entries[0].op = pat->op;
	t->entries[0].bytes = bytes;
	t->entries[0].root = pat->root >= 0 ? pat->root % (int)(nodes * p->gpus_per_node) : -1;
	t->entries[0].peer = -1;
	t->entries[0].compute_us = -1;
	o.nodes = nodes;
	o.algo = algo_name(pat->algo);
	o.proto = proto_name(pat->proto);
	o.nchannels = nchannels;
	return plan_build(out, &p->topo, t, &o, &d);
}
