/* SPDX-License-Identifier: MIT */
/*
 * Symmetry: fold a homogeneous step onto a small neighbourhood of nodes.
 *
 * A step is homogeneous when every node sends the same transfers, seen from
 * the sender: same local GPUs, same stages, same resources at the same node
 * offsets (relative to the sender, modulo the node count). The ring steps
 * of a collective over the whole cluster are (every node is a link of every
 * ring). Then node x of a cluster of N nodes carries its own transfers'
 * sending side and, for each offset d, the receiving side of the transfers
 * of node x - d. Keep the transfers of nodes 0..M-1 and wrap every resource
 * to node (src + offset) mod M: node x of the fold carries exactly the same
 * load, as long as no two distinct offsets wrap onto the same node. The
 * step then costs the same on M nodes as on N. A ring needs M = 2.
 *
 * The test tests/unit/test_model.c checks the fold against the replay of
 * every node at 8, 16 and 64 nodes.
 */
#include "simgrid_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct sig {
	unsigned node;
	uint64_t hash;
};

static uint64_t fnv(uint64_t h, const void *data, size_t len)
{
	const unsigned char *b = data;

	for (size_t i = 0; i < len; i++) {
		h ^= b[i];
		h *= 1099511628211ull;
	}
	return h;
}

static unsigned node_of(const struct plan *p, uint32_t res)
{
	return res / p->layout.per_node;
}

static unsigned offset_of(const struct plan *p, unsigned src_node, uint32_t res)
{
	return (node_of(p, res) + p->nodes - src_node) % p->nodes;
}

/* What a transfer looks like from its sender's node. */
static uint64_t transfer_signature(const struct plan *p,
				   const struct plan_transfer *t)
{
	unsigned G = p->gpus_per_node, src = t->src_rank / G;
	uint64_t h = 14695981039346656037ull;
	unsigned v[4] = { t->src_rank % G, t->dst_rank % G,
			  (t->dst_rank / G + p->nodes - src) % p->nodes,
			  t->chunked };

	h = fnv(h, v, sizeof(v));
	h = fnv(h, &t->share, sizeof(t->share));
	h = fnv(h, &t->nstages, sizeof(t->nstages));
	for (unsigned i = 0; i < t->nstages; i++) {
		const struct plan_stage *s = &t->stages[i];

		h = fnv(h, &s->kind, sizeof(s->kind));
		h = fnv(h, &s->segment, sizeof(s->segment));
		h = fnv(h, &s->latency, sizeof(s->latency));
		h = fnv(h, &s->nuses, sizeof(s->nuses));
	}
	for (unsigned i = 0; i < t->nuses; i++) {
		uint32_t r = t->uses[i].resource;
		uint32_t u[3] = { offset_of(p, src, r), r % p->layout.per_node,
				  t->uses[i].weight };

		h = fnv(h, u, sizeof(u));
	}
	return h;
}

static int cmp_sig(const void *a, const void *b)
{
	const struct sig *x = a, *y = b;

	if (x->node != y->node)
		return (x->node > y->node) - (x->node < y->node);
	return (x->hash > y->hash) - (x->hash < y->hash);
}

/* Every node's sorted signatures equal node 0's? */
static bool homogeneous(const struct plan *p, struct sig *s, size_t n)
{
	size_t per;

	if (n % p->nodes)
		return false;
	per = n / p->nodes;
	qsort(s, n, sizeof(*s), cmp_sig);
	for (size_t i = 0; i < n; i++)
		if (s[i].node != i / per || s[i].hash != s[i % per].hash)
			return false;
	return true;
}

/* The smallest M that keeps distinct node offsets distinct. */
static unsigned fold_nodes(const struct plan *p, const struct plan_pattern *pat,
			   const struct plan_step *st)
{
	bool *used = calloc(p->nodes, sizeof(*used));
	unsigned m;

	if (!used)
		return p->nodes;
	for (size_t i = 0; i < st->ntransfers; i++) {
		const struct plan_transfer *t = &pat->transfers[st->first_transfer + i];
		unsigned src = t->src_rank / p->gpus_per_node;

		for (unsigned k = 0; k < t->nuses; k++)
			used[offset_of(p, src, t->uses[k].resource)] = true;
	}
	for (m = 2; m < p->nodes; m++) {
		bool *seen = calloc(m, sizeof(*seen));
		bool ok = seen != NULL;

		for (unsigned o = 0; o < p->nodes && ok; o++) {
			if (!used[o])
				continue;
			ok = !seen[o % m];
			seen[o % m] = true;
		}
		free(seen);
		if (ok)
			break;
	}
	free(used);
	return m < p->nodes ? m : p->nodes;
}

int sgm_fold_step(const struct plan *p, const struct plan_pattern *pat,
		  const struct plan_step *st, bool replay, struct sgm_fold *f)
{
	struct sig *s = NULL;
	unsigned G = p->gpus_per_node;

	memset(f, 0, sizeof(*f));
	f->nodes = p->nodes;
	if (!replay && p->nodes > 2 && st->kind == PLAN_STEP_PARALLEL &&
	    st->ntransfers) {
		s = malloc(st->ntransfers * sizeof(*s));
		if (!s)
			return -ENOMEM;
		for (size_t i = 0; i < st->ntransfers; i++) {
			const struct plan_transfer *t =
				&pat->transfers[st->first_transfer + i];

			s[i].node = t->src_rank / G;
			s[i].hash = transfer_signature(p, t);
		}
		if (homogeneous(p, s, st->ntransfers))
			f->nodes = fold_nodes(p, pat, st);
		free(s);
	}
	f->kept = malloc((st->ntransfers ? st->ntransfers : 1) * sizeof(*f->kept));
	if (!f->kept)
		return -ENOMEM;
	for (size_t i = 0; i < st->ntransfers; i++) {
		size_t k = st->first_transfer + i;

		if (pat->transfers[k].src_rank / G < f->nodes)
			f->kept[f->nkept++] = k;
	}
	return 0;
}

void sgm_fold_destroy(struct sgm_fold *f)
{
	free(f->kept);
	memset(f, 0, sizeof(*f));
}

uint32_t sgm_fold_resource(const struct plan *p, const struct sgm_fold *f,
			   unsigned src_node, uint32_t res)
{
	unsigned node;

	if (f->nodes == p->nodes)
		return res;
	node = (src_node + offset_of(p, src_node, res)) % f->nodes;
	return node * p->layout.per_node + res % p->layout.per_node;
}
