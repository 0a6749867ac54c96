/* SPDX-License-Identifier: MIT */
/*
 * Twin components: max-min fairness splits over the sets of connections
 * that share limited links, and a set whose connections all stay inside
 * one node is, in every other node, the same set moved by a node: routes
 * are written relative to their nodes (plan.h), a node's links are
 * numbered node * per_node + the link's own (plan_use_id), and every node
 * has the same links at the same capacities (res_fill_capacities). So two
 * such sets whose connections take, in order, the same routes between the
 * same GPUs of their nodes, on the same pipes, at the same volume, make
 * the same max-min problem. A solve that selects the same of their
 * connections in both keeps one: max-min's rounds rise by the smallest
 * step any link or cap allows, and a twin set's links give the same steps
 * and fill in the same rounds as its twin's, each link's arithmetic its
 * own, so the one kept gets the rates to the bit it would get with the
 * other there, and the other gets them too. On a 4096-node Clos, a tree's
 * 917 504 NVLink hops are 4096 nodes' twins; its network hops, which ECMP
 * joins into one set, are solved as they were.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytic_internal.h"
#include "splitmix.h"
#include "union_find.h"

/* What makes a set's connection the same as its twin's, in its order. */
static bool same_conn(const struct plan *p, const struct plan_conn *a, const struct plan_conn *b)
{
	return a->route == b->route && a->pipe == b->pipe && a->volume == b->volume &&
	       a->src_rank % p->gpus_per_node == b->src_rank % p->gpus_per_node &&
	       a->dst_rank % p->gpus_per_node == b->dst_rank % p->gpus_per_node;
}

static uint64_t conn_hash(const struct plan *p, const struct plan_conn *c, uint64_t h)
{
	uint64_t vol;

	memcpy(&vol, &c->volume, sizeof(vol));
	h = splitmix_in(h, c->route);
	h = splitmix_in(h, c->pipe);
	h = splitmix_in(h, vol);
	h = splitmix_in(h, c->src_rank % p->gpus_per_node);
	return splitmix_in(h, c->dst_rank % p->gpus_per_node);
}

void twins_destroy(struct twins *t)
{
	free(t->slot);
	free(t->slot_conn);
	free(t->slot_set);
	free(t->set_first);
	free(t->set_class);
	free(t->set_words);
	free(t->others);
	memset(t, 0, sizeof(*t));
}

/*
 * The sets of @l's connections joined through limited links, as roots of
 * @up; whether each root's set stays inside one node, in @inside: its
 * connections' ends in one node, and every limited link the node's own
 * (not a switch's, which another node's connection might cross).
 */
static void join_sets(const struct solver *sv, const struct plan_pattern *pat,
		      const struct conn_links *l, uint32_t *up, uint32_t *owner, bool *inside)
{
	size_t per_node = sv->p->layout.per_node;

	for (size_t r = 0; r < sv->nres; r++)
		owner[r] = UINT32_MAX;
	for (size_t i = 0; i < pat->nconns; i++) {
		up[i] = (uint32_t)i;
		inside[i] = true;
	}
	for (size_t i = 0; i < pat->nconns; i++) {
		const struct plan_conn *c = &pat->conns[i];
		unsigned node = plan_node_of(sv->p, c->src_rank);
		size_t lo = (size_t)node * per_node, hi = lo + per_node;
		bool own = node == plan_node_of(sv->p, c->dst_rank);

		for (size_t u = l->first[i]; u < l->first[i + 1]; u++) {
			uint32_t r = l->uses[u].resource;

			if (r >= sv->nres) {
				own = false;
				continue;
			}
			if (!isfinite(sv->cap[r]))
				continue;
			own = own && r >= lo && r < hi;
			if (owner[r] == UINT32_MAX)
				owner[r] = (uint32_t)i;
			else
				uf32_join(up, (uint32_t)i, owner[r]);
		}
		if (!own)
			inside[i] = false; /* moved to its root below */
	}
	for (size_t i = 0; i < pat->nconns; i++)
		if (!inside[i])
			inside[uf32_root(up, (uint32_t)i)] = false;
}

/* Each set's class: the first set like it (same_conn, in order), found
 * through a table of their hashes. */
static int classify(const struct plan *p, const struct plan_pattern *pat, struct twins *t)
{
	size_t room = 2;
	uint32_t *table;

	while (room < 2 * (size_t)t->nsets)
		room *= 2;
	table = malloc(room * sizeof(*table));
	if (!table)
		return -ENOMEM;
	for (size_t k = 0; k < room; k++)
		table[k] = UINT32_MAX;
	for (uint32_t s = 0; s < t->nsets; s++) {
		uint32_t a = t->set_first[s], n = t->set_first[s + 1] - a;
		uint64_t h = n;
		size_t k;

		for (uint32_t j = a; j < a + n; j++)
			h = conn_hash(p, &pat->conns[t->slot_conn[j]], h);
		for (k = h & (room - 1);; k = (k + 1) & (room - 1)) {
			uint32_t o = table[k], b;
			bool same;

			if (o == UINT32_MAX) {
				table[k] = s;
				t->set_class[s] = s;
				break;
			}
			b = t->set_first[o];
			same = t->set_first[o + 1] - b == n;
			for (uint32_t j = 0; same && j < n; j++)
				same = same_conn(p, &pat->conns[t->slot_conn[a + j]],
						 &pat->conns[t->slot_conn[b + j]]);
			if (same) {
				t->set_class[s] = o;
				break;
			}
		}
	}
	free(table);
	return 0;
}

int twins_build(const struct solver *sv, const struct plan_pattern *pat,
		const struct conn_links *l, struct twins *t)
{
	size_t n = pat->nconns ? pat->nconns : 1;
	uint32_t *up = malloc(n * sizeof(*up));
	uint32_t *owner = malloc((sv->nres ? sv->nres : 1) * sizeof(*owner));
	bool *inside = malloc(n * sizeof(*inside));
	uint32_t *set_of = malloc(n * sizeof(*set_of)); /* per root */
	int err = -ENOMEM;

	memset(t, 0, sizeof(*t));
	t->slot = calloc(n, sizeof(*t->slot));
	if (!up || !owner || !inside || !set_of || !t->slot)
		goto out;
	join_sets(sv, pat, l, up, owner, inside);
	/* the sets inside a node numbered by their first connection, their
	 * connections placed in order (slot) */
	for (size_t i = 0; i < pat->nconns; i++) {
		size_t r = uf32_root(up, (uint32_t)i);

		if (!inside[r]) {
			t->slot[i] = TWIN_NONE;
			continue;
		}
		if (r == i)
			set_of[i] = t->nsets++;
		t->slot[r]++; /* the set's size, at its root, until placed */
		t->nslots++;
	}
	t->set_first = malloc((t->nsets + 1) * sizeof(*t->set_first));
	t->set_words = malloc((t->nsets + 1) * sizeof(*t->set_words));
	t->set_class = malloc((t->nsets ? t->nsets : 1) * sizeof(*t->set_class));
	t->slot_conn = malloc((t->nslots ? t->nslots : 1) * sizeof(*t->slot_conn));
	t->slot_set = malloc((t->nslots ? t->nslots : 1) * sizeof(*t->slot_set));
	if (!t->set_first || !t->set_words || !t->set_class || !t->slot_conn || !t->slot_set)
		goto out;
	t->set_first[0] = t->set_words[0] = 0;
	for (size_t i = 0; i < pat->nconns; i++)
		if (t->slot[i] != TWIN_NONE && uf32_root(up, (uint32_t)i) == i) {
			uint32_t s = set_of[i], size = t->slot[i];

			t->set_first[s + 1] = t->set_first[s] + size;
			if (size > t->most)
				t->most = size;
			t->set_words[s + 1] = t->set_words[s] + (size + 63) / 64;
			t->slot[i] = t->set_first[s]; /* where its next goes */
		}
	for (size_t i = 0; i < pat->nconns; i++) {
		size_t r;
		uint32_t s;

		if (t->slot[i] == TWIN_NONE)
			continue;
		r = uf32_root(up, (uint32_t)i);
		s = set_of[r];
		/* the root's count became its set's next place (it is its set's
		 * first connection, so it comes first) */
		t->slot_conn[t->slot[r]] = (uint32_t)i;
		t->slot_set[t->slot[r]] = s;
		t->slot[r]++;
	}
	/* each connection's own place, the roots' moved past their sets */
	for (uint32_t j = 0; j < t->nslots; j++)
		t->slot[t->slot_conn[j]] = j;
	t->others = malloc((pat->nconns - t->nslots ? pat->nconns - t->nslots : 1) *
			   sizeof(*t->others));
	if (!t->others)
		goto out;
	for (size_t i = 0; i < pat->nconns; i++)
		if (t->slot[i] == TWIN_NONE)
			t->others[t->nothers++] = (uint32_t)i;
	err = classify(sv->p, pat, t);
out:
	free(set_of);
	free(inside);
	free(owner);
	free(up);
	if (err)
		twins_destroy(t);
	else
		t->found = true;
	return err;
}

int twin_marks_init(struct twin_marks *m, const struct twins *t)
{
	size_t nsets = t->nsets ? t->nsets : 1, room = 2;

	while (room < 2 * nsets)
		room *= 2;
	memset(m, 0, sizeof(*m));
	m->room = room;
	m->stamp = calloc(nsets, sizeof(*m->stamp));
	m->rep = malloc(nsets * sizeof(*m->rep));
	m->touched = malloc(nsets * sizeof(*m->touched));
	m->mask = malloc((t->set_words[t->nsets] ? t->set_words[t->nsets] : 1) * sizeof(*m->mask));
	m->table = malloc(room * sizeof(*m->table));
	return m->stamp && m->rep && m->touched && m->mask && m->table ? 0 : -ENOMEM;
}

void twin_marks_destroy(struct twin_marks *m)
{
	free(m->stamp);
	free(m->rep);
	free(m->touched);
	free(m->mask);
	free(m->table);
	memset(m, 0, sizeof(*m));
}

/* Whether sets @a and @b are alike and select the same connections. */
static bool same_pick(const struct twins *t, const struct twin_marks *m, uint32_t a, uint32_t b)
{
	uint32_t wa = t->set_words[a], wb = t->set_words[b], nw = t->set_words[a + 1] - wa;

	return t->set_class[a] == t->set_class[b] &&
	       !memcmp(&m->mask[wa], &m->mask[wb], nw * sizeof(*m->mask));
}

void twins_pick(const struct twins *t, struct twin_marks *m, const uint32_t *sel, size_t n)
{
	if (!++m->now) {
		memset(m->stamp, 0, t->nsets * sizeof(*m->stamp));
		m->now = 1;
	}
	m->ntouched = 0;
	for (size_t j = 0; j < n; j++) {
		uint32_t at = t->slot[sel[j]], s, b;

		if (at == TWIN_NONE)
			continue;
		s = t->slot_set[at];
		if (m->stamp[s] != m->now) {
			m->stamp[s] = m->now;
			memset(&m->mask[t->set_words[s]], 0,
			       (t->set_words[s + 1] - t->set_words[s]) * sizeof(*m->mask));
			m->touched[m->ntouched++] = s;
		}
		b = at - t->set_first[s];
		m->mask[t->set_words[s] + b / 64] |= 1ull << (b % 64);
	}
	for (size_t k = 0; k < m->room; k++)
		m->table[k] = UINT32_MAX;
	for (size_t i = 0; i < m->ntouched; i++) {
		uint32_t s = m->touched[i];
		uint64_t h = splitmix_words(t->set_class[s], &m->mask[t->set_words[s]],
					    t->set_words[s + 1] - t->set_words[s]);

		for (size_t k = h & (m->room - 1);; k = (k + 1) & (m->room - 1)) {
			uint32_t o = m->table[k];

			if (o == UINT32_MAX) {
				m->table[k] = s;
				m->rep[s] = s;
				break;
			}
			if (same_pick(t, m, o, s)) {
				m->rep[s] = o;
				break;
			}
		}
	}
}

void twins_copy(const struct twins *t, const struct twin_marks *m, double *rate)
{
	for (size_t i = 0; i < m->ntouched; i++) {
		uint32_t s = m->touched[i], r = m->rep[s];

		if (r == s)
			continue;
		for (uint32_t w = t->set_words[s]; w < t->set_words[s + 1]; w++)
			for (uint64_t bits = m->mask[w]; bits; bits &= bits - 1) {
				uint32_t b = (w - t->set_words[s]) * 64 + (uint32_t)__builtin_ctzll(bits);

				rate[t->slot_conn[t->set_first[s] + b]] =
					rate[t->slot_conn[t->set_first[r] + b]];
			}
	}
}
