/* SPDX-License-Identifier: MIT */
/*
 * records_fabric: the most loaded fabric link of each collective, from
 * the plan alone (the same in every backend): every connection of the
 * channels a call uses puts its volume on its route's links; the link
 * with the most of it per byte of capacity is the one the switches make
 * the bottleneck first (an uplink two ECMP flows collide on, a NIC's
 * cable into its leaf that an alltoall's flows all converge on: incast).
 */
#include "records.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"

struct scratch {
	double *load;      /* per resource: bytes per byte of the call */
	unsigned *flows;   /* per resource: connections crossing it */
	uint32_t *touched;
	size_t n, cap;
	const double *capacity;
};

static int add(struct scratch *s, uint32_t id, double bytes)
{
	if (!s->flows[id]) {
		int err = array_grow((void **)&s->touched, s->n, &s->cap, sizeof(*s->touched));

		if (err)
			return err;
		s->touched[s->n++] = id;
	}
	s->load[id] += bytes;
	s->flows[id]++;
	return 0;
}

/* Whether per-node resource @res is a NIC's port: its cable to the leaf. */
static bool is_port(const struct plan *p, uint32_t res)
{
	const struct res_layout *l = &p->layout;

	return res >= l->base[RES_PORT_TX] && res < l->base[RES_PORT_TX] + 2 * p->topo.nnics;
}

static int busiest(const struct plan *p, const struct plan_pattern *pat, unsigned nch,
		   struct scratch *s, struct coll_record *c)
{
	double scale = (double)pat->nchannels / (nch ? nch : 1), worst = 0, port = 0;
	uint32_t ids[FABRIC_PATH_MAX];
	int err = 0;

	c->fabric_link = RECORDS_NO_LINK;
	for (size_t i = 0; i < pat->nconns && !err; i++) {
		const struct plan_conn *k = &pat->conns[i];
		const struct plan_route *r = &pat->routes[k->route];
		unsigned src = plan_node_of(p, k->src_rank), dst = plan_node_of(p, k->dst_rank);
		unsigned n;

		if (!r->fabric || pat->pipes[k->pipe].channel >= nch)
			continue;
		for (unsigned u = 0; u < r->nuses && !err; u++)
			if (is_port(p, r->uses[u].res))
				err = add(s, plan_use_id(p, &r->uses[u], src, dst),
					  k->volume * scale * r->uses[u].weight);
		n = plan_conn_fabric(p, pat, k, ids);
		for (unsigned u = 0; u < n && !err; u++)
			err = add(s, ids[u], k->volume * scale);
	}
	for (unsigned i = 0; i < p->topo.nnics; i++)
		port = fmax(port, res_capacity(&p->topo, RES_PORT_TX, i));
	for (size_t k = 0; k < s->n; k++) {
		uint32_t id = s->touched[k];
		double t = s->load[id] / s->capacity[id];

		/* Ties go to the lowest id: the same answer every run. */
		if (!err && isfinite(t) &&
		    (t > worst * (1 + 1e-12) || (c->fabric_link != RECORDS_NO_LINK &&
						 t >= worst * (1 - 1e-12) && id < c->fabric_link))) {
			worst = t > worst ? t : worst;
			c->fabric_link = id;
			c->fabric_flows = s->flows[id];
			c->fabric_share = s->capacity[id] / s->flows[id] / port;
		}
		s->load[id] = 0;
		s->flows[id] = 0;
	}
	s->n = 0;
	return err;
}

/* Turn the collectives' link ids into indices into r->link_names. */
static int name_links(struct records *r, const struct plan *p)
{
	size_t cap = 0;

	for (size_t i = 0; i < r->ncoll; i++) {
		struct coll_record *c = &r->coll[i];
		char name[RECORDS_LINK_NAME];
		size_t k;

		if (c->fabric_link == RECORDS_NO_LINK)
			continue;
		res_name(&p->layout, &p->topo, c->fabric_link, name, sizeof(name));
		/* Few distinct links: a pattern's calls share theirs. */
		for (k = r->nlink_names; k-- > 0;)
			if (!strcmp(r->link_names[k], name))
				break;
		if (k == SIZE_MAX) {
			if (array_grow((void **)&r->link_names, r->nlink_names, &cap,
				       sizeof(*r->link_names)))
				return -ENOMEM;
			k = r->nlink_names++;
			snprintf(r->link_names[k], sizeof(r->link_names[k]), "%s", name);
		}
		c->fabric_link = (uint32_t)k;
	}
	return 0;
}

int records_fabric(struct records *r, const struct plan *p)
{
	struct scratch s = { 0 };
	size_t nres = res_total(&p->layout);
	double *cap = NULL;
	size_t *last = NULL; /* per pattern: the last call worked out, or SIZE_MAX */
	int err = -ENOMEM;

	for (size_t i = 0; i < r->ncoll; i++)
		r->coll[i].fabric_link = RECORDS_NO_LINK;
	r->fabric = p->layout.fabric;
	if (!p->layout.fabric.tiers)
		return 0;
	r->leaf_oversubscription = fabric_oversubscription(&p->layout.fabric, &p->topo, 0);
	r->spine_oversubscription = fabric_oversubscription(&p->layout.fabric, &p->topo, 1);
	r->attach = p->topo.fabric.attach;
	r->ecmp_seed = p->topo.fabric.ecmp_seed;
	s.load = calloc(nres, sizeof(*s.load));
	s.flows = calloc(nres, sizeof(*s.flows));
	cap = plan_capacities(p);
	last = malloc((p->npatterns ? p->npatterns : 1) * sizeof(*last));
	if (!s.load || !s.flows || !cap || !last)
		goto out;
	for (size_t k = 0; k < p->npatterns; k++)
		last[k] = SIZE_MAX;
	s.capacity = cap;
	err = 0;
	for (size_t i = 0; i < r->ncoll && !err; i++) {
		const struct plan_collective *pc = &p->collectives[i];
		size_t j = last[pc->pattern];

		/* Calls of one pattern on as many channels load it alike. */
		if (j < i && p->collectives[j].nchannels == pc->nchannels) {
			r->coll[i].fabric_link = r->coll[j].fabric_link;
			r->coll[i].fabric_flows = r->coll[j].fabric_flows;
			r->coll[i].fabric_share = r->coll[j].fabric_share;
			continue;
		}
		err = busiest(p, &p->patterns[pc->pattern], pc->nchannels, &s, &r->coll[i]);
		last[pc->pattern] = i;
	}
	if (!err)
		err = name_links(r, p);
out:
	free(last);
	free(cap);
	free(s.touched);
	free(s.flows);
	free(s.load);
	return err;
}
