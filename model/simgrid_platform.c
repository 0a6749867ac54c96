/* SPDX-License-Identifier: MIT */
/*
 * The SimGrid platform of a plan, as XML (SimGrid 3.32 has no C call that
 * creates zones, hosts or links; ../shared/notes/simgrid.md).
 *
 * Every plan resource with a finite capacity becomes one SimGrid link of
 * that bandwidth, between two hosts of its own ("a" and "b") with a one-link
 * route. A stage that crosses resources r1..rk is then one parallel task
 * with its bytes on (a_r1 -> b_r1), ..., (a_rk -> b_rk): exactly the plan's
 * links, each counted as often as the stage uses it, and no routing table
 * to keep in step with engine/resources.c. Each node is a zone of its own
 * (Full routing inside a node only), so that routing tables grow with the
 * node type, not with the cluster.
 *
 * Copy engines are resources like the links (engine/resources.h
 * RES_CE_*): a GPU's engines of one direction are one link of their
 * summed bandwidth; each copy's own cap is a bound on its task.
 */
#include "simgrid_internal.h"

#include <errno.h>
#include <math.h>

void sgm_link_host_name(char *buf, size_t len, uint32_t res, char end)
{
	snprintf(buf, len, "%c%u", end, (unsigned)res);
}

bool sgm_link_host_parse(const char *name, uint32_t *res, char *end)
{
	unsigned long v = 0;
	const char *d = name + 1;

	if ((name[0] != 'a' && name[0] != 'b') || !*d)
		return false;
	for (; *d >= '0' && *d <= '9'; d++) {
		v = 10 * v + (unsigned long)(*d - '0');
		if (v > UINT32_MAX)
			return false;
	}
	if (*d)
		return false;
	*res = (uint32_t)v;
	*end = name[0];
	return true;
}

/*
 * Resource @id as SimGrid takes it: a link between two hosts of its own,
 * so that a task names exactly the links it crosses. Pass 0 writes the
 * hosts and the link, pass 1 the route (the DTD wants every host and link
 * of a zone before its routes).
 */
static void write_link(FILE *f, uint32_t id, double cap, int pass)
{
	char a[SGM_NAME_MAX], b[SGM_NAME_MAX];

	sgm_link_host_name(a, sizeof(a), id, 'a');
	sgm_link_host_name(b, sizeof(b), id, 'b');
	if (pass == 0)
		fprintf(f, "  <host id=\"%s\" speed=\"1Gf\"/><host id=\"%s\" speed=\"1Gf\"/>\n"
			   "  <link id=\"l%u\" bandwidth=\"%.17gBps\" latency=\"%.17gs\"/>\n",
			a, b, (unsigned)id, cap, SGM_LINK_LATENCY);
	else
		fprintf(f, "  <route src=\"%s\" dst=\"%s\" symmetrical=\"NO\">"
			   "<link_ctn id=\"l%u\"/></route>\n", a, b, (unsigned)id);
}

static void write_node(FILE *f, const struct plan *p, unsigned node)
{
	const struct res_layout *l = &p->layout;

	fprintf(f, " <zone id=\"node%u\" routing=\"Full\">\n", node);
	if (node == 0)
		fprintf(f, "  <host id=\"" SGM_CONTROL_HOST "\" speed=\"1Gf\"/>\n");
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < l->per_node; i++) {
			uint32_t id = node * l->per_node + i;
			double cap = res_capacity_of(l, &p->topo, id);

			if (isfinite(cap) && cap > 0)
				write_link(f, id, cap, pass);
		}
	fprintf(f, " </zone>\n");
}

/*
 * The switches' links (engine/fabric.h), one zone: like a node's, each
 * link between two hosts of its own, so that a hop's task names exactly
 * the uplinks its ECMP hash chose and flows colliding on one share it.
 */
static void write_fabric(FILE *f, const struct plan *p)
{
	const struct fabric_geom *g = &p->layout.fabric;

	fprintf(f, " <zone id=\"fabric\" routing=\"Full\">\n");
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t id = g->base; id < g->base + g->n; id++)
			write_link(f, id, fabric_capacity(g, &p->topo, id), pass);
	fprintf(f, " </zone>\n");
}

int sgm_platform_write(FILE *f, const struct plan *p, unsigned nodes)
{
	fprintf(f, "<?xml version='1.0'?>\n"
		"<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
		"<platform version=\"4.1\">\n"
		"<zone id=\"world\" routing=\"Full\">\n");
	for (unsigned n = 0; n < nodes; n++)
		write_node(f, p, n);
	/* No fold runs over switches (simgrid_fold.c): all nodes are here. */
	if (p->layout.fabric.tiers && nodes == p->nodes)
		write_fabric(f, p);
	fprintf(f, "</zone>\n</platform>\n");
	return ferror(f) ? -EIO : 0;
}
