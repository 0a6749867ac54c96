/* SPDX-License-Identifier: MIT */
/*
 * The network between the nodes, as a topology file gives it: a crossbar
 * (switch_latency, hops, oversubscription: every file before the
 * switches were modelled reads as it did), or leaf, spine and core
 * switches with their ports (fabric.h wires them). A tier's latency
 * defaults to switch_latency, an uplink's speed to the tier's port speed.
 */
#include "topology_yaml_fabric.h"

#include "fabric.h"
#include "units.h"

enum {
	F_SWITCH_LATENCY, F_HOPS, F_OVERSUB, F_INR, F_ATTACH, F_LEAF, F_SPINE, F_CORE,
	F_SEED, F_NKEYS
};

static const struct yaml_doc_key fabric_keys[F_NKEYS] = {
	[F_SWITCH_LATENCY] = { "switch_latency", false },
	[F_HOPS] = { "hops", false },
	[F_OVERSUB] = { "oversubscription", false },
	[F_INR] = { "in_network_reduction", false },
	[F_ATTACH] = { "attach", false },
	[F_LEAF] = { "leaf", false },
	[F_SPINE] = { "spine", false },
	[F_CORE] = { "core", false },
	[F_SEED] = { "ecmp_seed", false },
};

enum { W_PORTS, W_UPLINKS, W_PORT_SPEED, W_UPLINK_SPEED, W_LATENCY, W_NODES, W_COUNT, W_NKEYS };

static const struct yaml_doc_key tier_keys[W_NKEYS] = {
	[W_PORTS] = { "ports", true },
	[W_UPLINKS] = { "uplinks", false },
	[W_PORT_SPEED] = { "port_speed", true },
	[W_UPLINK_SPEED] = { "uplink_speed", false },
	[W_LATENCY] = { "latency", false },
	[W_NODES] = { "nodes", false },
	[W_COUNT] = { "count", false },
};

static const char *const attach_names[TOPO_ATTACH_COUNT] = {
	[TOPO_ATTACH_RAIL] = "rail",
	[TOPO_ATTACH_NODE] = "node",
};

/* The largest switch we take: 64 ports today (QM9700), room to grow. */
#define TIER_MAX_PORTS 4096

/* What one tier holds, and the nodes of its keys for later complaints. */
struct tier_read {
	struct yaml_doc_found f[W_NKEYS];
	yaml_node_t *map;
};

static int read_tier(const struct yaml_doc *y, yaml_node_t *n, const char *what,
		     int tier, bool top, const struct topo_fabric *fab,
		     bool have_latency, struct topo_tier *out, struct tier_read *tr)
{
	struct yaml_doc_found *f = tr->f;
	int err;

	tr->map = n;
	err = yaml_doc_read_map(y, n, what, tier_keys, W_NKEYS, f);
	/* Nodes hang under leaves only; spines come in counts per pod. */
	if (!err && tier != 0 && f[W_NODES].key)
		err = yaml_doc_fail(y, f[W_NODES].key, "nodes", "only allowed in leaf");
	if (!err && tier != 1 && f[W_COUNT].key)
		err = yaml_doc_fail(y, f[W_COUNT].key, "count", "only allowed in spine");
	if (!err)
		err = yaml_doc_read_uint(y, f[W_PORTS].val, "ports", 2, TIER_MAX_PORTS,
					 &out->ports);
	if (!err && !top && !f[W_UPLINKS].val)
		err = yaml_doc_fail(y, n, "uplinks", "missing required key (%s has a tier above it)",
				    what);
	if (!err && top && f[W_UPLINKS].key)
		err = yaml_doc_fail(y, f[W_UPLINKS].key, "uplinks",
				    "only allowed below another tier (%s is the top)", what);
	if (!err && top && f[W_UPLINK_SPEED].key)
		err = yaml_doc_fail(y, f[W_UPLINK_SPEED].key, "uplink_speed",
				    "only allowed below another tier (%s is the top)", what);
	if (!err && f[W_UPLINKS].val)
		err = yaml_doc_read_uint(y, f[W_UPLINKS].val, "uplinks", 1, TIER_MAX_PORTS,
					 &out->uplinks);
	if (!err && out->uplinks >= out->ports)
		err = yaml_doc_fail_got(y, f[W_UPLINKS].val, "uplinks",
					"must be fewer than the %u ports, to leave some down",
					out->ports);
	if (!err)
		err = yaml_doc_read_unit(y, f[W_PORT_SPEED].val, "port_speed",
					 units_parse_bandwidth, &out->port_bw);
	out->uplink_bw = out->port_bw;
	if (!err && f[W_UPLINK_SPEED].val)
		err = yaml_doc_read_unit(y, f[W_UPLINK_SPEED].val, "uplink_speed",
					 units_parse_bandwidth, &out->uplink_bw);
	out->latency = fab->switch_latency;
	if (!err && f[W_LATENCY].val)
		err = yaml_doc_read_unit(y, f[W_LATENCY].val, "latency", units_parse_time,
					 &out->latency);
	else if (!err && !have_latency)
		err = yaml_doc_fail(y, n, "latency",
				    "missing required key (no switch_latency to default to)");
	if (!err && f[W_NODES].val)
		err = yaml_doc_read_uint(y, f[W_NODES].val, "nodes", 1, TOPO_MAX_NODES,
					 &out->nodes);
	if (!err && f[W_COUNT].val)
		err = yaml_doc_read_uint(y, f[W_COUNT].val, "count", 1, TIER_MAX_PORTS,
					 &out->count);
	return err;
}

/* The crossbar of every file before the switches: hops and a divisor. */
static int read_crossbar(const struct yaml_doc *y, const struct yaml_doc_found *f,
			 struct topology *t)
{
	struct topo_fabric *fab = &t->fabric;
	char why[160];
	int err = 0;

	/* 0 hops is two nodes cabled back to back: more have no switch to
	 * meet in (--nodes is checked as the plan is made, plan.c) */
	if (f[F_HOPS].val)
		err = yaml_doc_read_uint(y, f[F_HOPS].val, "hops", 0, 64, &fab->hops);
	if (!err && !topology_fabric_fits(t, t->nodes, why, sizeof(why)))
		err = yaml_doc_fail(y, f[F_HOPS].val, "hops", "%s", why);
	if (!err && f[F_OVERSUB].val) {
		err = yaml_doc_read_decimal(y, f[F_OVERSUB].val, "oversubscription",
					    "a number like 1 or 2.5", &fab->oversubscription);
		/* Below 1 would give a port more than its line rate. */
		if (!err && !(fab->oversubscription >= 1))
			err = yaml_doc_fail_got(y, f[F_OVERSUB].val, "oversubscription",
						"must be at least 1");
	}
	return err;
}

/* A problem fabric_check found, at the key it is about. */
static int place_problem(const struct yaml_doc *y, enum fabric_problem pr,
			 const struct tier_read *tr, const char *why)
{
	const struct tier_read *t = &tr[pr == FABRIC_LEAF_PORTS ? 0 :
					pr == FABRIC_CORE_PORTS ? 2 : 1];
	int key = pr == FABRIC_LEAF_PORTS && t->f[W_NODES].val ? W_NODES :
		  pr == FABRIC_SPINE_SPLIT ? (t->f[W_COUNT].val ? W_COUNT : -1) : W_PORTS;

	if (pr == FABRIC_SPINE_SPLIT && key < 0)
		return yaml_doc_fail(y, t->map, "count", "%s", why);
	return yaml_doc_fail(y, t->f[key].val, tier_keys[key].key, "%s", why);
}

static int read_switches(const struct yaml_doc *y, yaml_node_t *n,
			 const struct yaml_doc_found *f, struct topology *t)
{
	struct topo_fabric *fab = &t->fabric;
	struct tier_read tr[3] = { 0 };
	bool have_lat = f[F_SWITCH_LATENCY].val != NULL;
	enum fabric_problem pr;
	char why[200];
	unsigned attach;
	int err;

	err = yaml_doc_refuse_keys(y, fabric_keys, f, F_HOPS, F_OVERSUB,
				   "cannot be combined with leaf: the switches' ports give it");
	if (!err && !f[F_ATTACH].val)
		err = yaml_doc_fail(y, n, "attach", "missing required key (a leaf needs it: rail or node)");
	if (!err)
		err = yaml_doc_read_choice(y, f[F_ATTACH].val, "attach", attach_names,
					   TOPO_ATTACH_COUNT, &attach);
	if (!err && !f[F_SPINE].val)
		err = yaml_doc_fail(y, n, "spine", "missing required key (a leaf needs a spine above it)");
	if (err)
		return err;
	fab->attach = attach;
	fab->tiers = f[F_CORE].val ? 3 : 2;
	err = read_tier(y, f[F_LEAF].val, "leaf", 0, false, fab, have_lat, &fab->leaf, &tr[0]);
	if (!err)
		err = read_tier(y, f[F_SPINE].val, "spine", 1, fab->tiers == 2, fab, have_lat,
				&fab->spine, &tr[1]);
	if (!err && f[F_CORE].val)
		err = read_tier(y, f[F_CORE].val, "core", 2, true, fab, have_lat, &fab->core,
				&tr[2]);
	if (!err && f[F_SEED].val) {
		unsigned seed;

		err = yaml_doc_read_uint(y, f[F_SEED].val, "ecmp_seed", 0, 999999999, &seed);
		fab->ecmp_seed = seed;
	}
	if (err)
		return err;
	pr = fabric_check(t, t->nodes ? t->nodes : 1, why, sizeof(why));
	return pr == FABRIC_OK ? 0 : place_problem(y, pr, tr, why);
}

int topology_read_fabric(const struct yaml_doc *y, yaml_node_t *n, struct topology *t)
{
	struct topo_fabric *fab = &t->fabric;
	struct yaml_doc_found f[F_NKEYS];
	int err;

	err = yaml_doc_read_map(y, n, "fabric", fabric_keys, F_NKEYS, f);
	if (err)
		return err;
	fab->hops = 1;
	fab->oversubscription = 1;
	if (f[F_SWITCH_LATENCY].val)
		err = yaml_doc_read_unit(y, f[F_SWITCH_LATENCY].val, "switch_latency",
					 units_parse_time, &fab->switch_latency);
	else if (!f[F_LEAF].val)
		err = yaml_doc_fail(y, n, "switch_latency", "missing required key");
	if (!err && f[F_INR].val)
		err = yaml_doc_read_bool(y, f[F_INR].val, "in_network_reduction",
					 &fab->in_network_reduction);
	if (err)
		return err;
	if (f[F_LEAF].val)
		return read_switches(y, n, f, t);
	err = yaml_doc_refuse_keys(y, fabric_keys, f, F_ATTACH, F_SEED,
				   "only allowed with leaf");
	return err ? err : read_crossbar(y, f, t);
}

bool topology_fabric_fits(const struct topology *t, unsigned nodes, char *why, size_t len)
{
	if (t->fabric.tiers || t->fabric.hops || nodes <= 2)
		return true;
	snprintf(why, len, "0 is two nodes cabled back to back, with no switch: %u nodes need "
		 "one (hops: 1 or more)", nodes);
	return false;
}
