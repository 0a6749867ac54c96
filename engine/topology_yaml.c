/* SPDX-License-Identifier: MIT */
/*
 * topology_yaml: the topology schema (docs/topology-format.md): sockets,
 * switches, GPUs, NICs, their links, the GPU fabric, the network fabric
 * and staging, read into a struct topology through yaml_doc.
 *
 * yaml_doc places every complaint at a line and column; this file decides
 * what the keys mean. Input is untrusted (a fuzz target drives this file):
 * every list is bounded by a TOPO_MAX_* and the schema is walked to a
 * fixed depth, never by following the graph, so aliases are harmless.
 */
#include "topology.h"
#include "input_file.h"
#include "topo_path.h"
#include "topology_yaml_fabric.h"
#include "units.h"
#include "yaml_doc.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A topology file is a page or two; anything bigger is a wrong file. */
#define TOPO_FILE_MAX (1 << 20)
#define TOPO_NAMES_MAX (TOPO_MAX_SOCKETS + TOPO_MAX_SWITCHES + \
			TOPO_MAX_GPUS + TOPO_MAX_NICS)

/*
 * nvbandwidth#42 measured an A100 on PCIe Gen4 x16 at about 25 GB/s of the
 * 31.5 GB/s the link carries after encoding: TLP headers, flow control and
 * DMA engine limits cost about a fifth.
 */
#define LINK_EFFICIENCY_DEFAULT 0.8

struct name_ref {
	const char *name;
	const yaml_node_t *node;
};

/* Parse state for one load; on the heap, it is some twenty kilobytes. */
struct ctx {
	struct yaml_doc y;
	struct topology *t;
	/* Every name in the node, for the duplicate check. */
	struct name_ref names[TOPO_NAMES_MAX];
	unsigned nnames;
	/* Where each parent was written, to point at it once resolved. */
	const yaml_node_t *switch_parent[TOPO_MAX_SWITCHES];
	/* The line each pair of gpu_fabric.pairs was first listed on (0:
	 * not yet), to point at it when the pair comes again. */
	unsigned pair_line[TOPO_MAX_GPUS][TOPO_MAX_GPUS];
};

/* Read a device name into @dst and remember it for the duplicate check. */
static int read_unique_name(struct ctx *c, const yaml_node_t *n, char *dst)
{
	unsigned i;
	int err;

	err = yaml_doc_read_name(&c->y, n, "name", dst, TOPO_NAME_MAX, true);
	if (err)
		return err;
	for (i = 0; i < c->nnames; i++)
		if (strcmp(c->names[i].name, dst) == 0)
			return yaml_doc_fail(&c->y, n, "name",
					     "duplicate name '%s' (first on line %u)",
					     dst,
					     (unsigned)c->names[i].node->start_mark.line + 1);
	if (c->nnames >= TOPO_NAMES_MAX)
		return yaml_doc_fail(&c->y, n, "name", "too many names");
	c->names[c->nnames].name = dst;
	c->names[c->nnames].node = n;
	c->nnames++;
	return 0;
}

enum {
	L_GEN,
	L_WIDTH,
	L_EFFICIENCY,
	L_BANDWIDTH,
	L_UP,
	L_DOWN,
	L_LATENCY,
	L_KIND,
	L_NKEYS,
};

static const struct yaml_doc_key link_keys[L_NKEYS] = {
	[L_GEN] = { "gen", false },
	[L_WIDTH] = { "width", false },
	[L_EFFICIENCY] = { "efficiency", false },
	[L_BANDWIDTH] = { "bandwidth", false },
	[L_UP] = { "bandwidth_up", false },
	[L_DOWN] = { "bandwidth_down", false },
	[L_LATENCY] = { "latency", true },
	[L_KIND] = { "kind", false },
};

static const char *const link_kind_names[] = {
	[TOPO_LINK_PCIE] = "pcie",
	[TOPO_LINK_C2C] = "c2c",
};

static int read_pcie_link(const struct yaml_doc *y, yaml_node_t *n,
			  const struct yaml_doc_found *f, struct topo_link *l)
{
	unsigned gen, width;
	double lane, eff = LINK_EFFICIENCY_DEFAULT;
	int err;

	if (!f[L_GEN].val)
		return yaml_doc_fail(y, n, "gen", "missing required key (a link with width needs gen)");
	if (!f[L_WIDTH].val)
		return yaml_doc_fail(y, n, "width", "missing required key (a link with gen needs width)");
	err = yaml_doc_refuse_keys(y, link_keys, f, L_BANDWIDTH, L_DOWN,
				   "cannot be combined with gen and width");
	if (err)
		return err;
	err = yaml_doc_read_uint(y, f[L_GEN].val, "gen", 1, 6, &gen);
	if (err)
		return err;
	err = yaml_doc_read_uint(y, f[L_WIDTH].val, "width", 1, 32, &width);
	if (err)
		return err;
	if (width & (width - 1))
		return yaml_doc_fail_got(y, f[L_WIDTH].val, "width",
					 "must be 1, 2, 4, 8, 16 or 32");
	if (f[L_EFFICIENCY].val) {
		err = yaml_doc_read_unit(y, f[L_EFFICIENCY].val, "efficiency",
					 units_parse_fraction, &eff);
		if (err)
			return err;
	}
	units_pcie_lane_rate(gen, &lane);
	l->bw_up = lane * width * eff;
	l->bw_down = l->bw_up;
	l->pcie_gen = gen;
	l->pcie_width = width;
	return 0;
}

/*
 * A link: {gen, width[, efficiency]}, {bandwidth} or {bandwidth_up,
 * bandwidth_down}, always with a latency.
 */
static int read_link(const struct yaml_doc *y, yaml_node_t *n,
		     const char *key, struct topo_link *l)
{
	struct yaml_doc_found f[L_NKEYS];
	int err;

	err = yaml_doc_read_map(y, n, key, link_keys, L_NKEYS, f);
	if (err)
		return err;
	/* A measured bandwidth already includes whatever efficiency is lost. */
	if (f[L_EFFICIENCY].key && !f[L_GEN].val && !f[L_WIDTH].val)
		return yaml_doc_fail(y, f[L_EFFICIENCY].key, "efficiency",
				     "only goes with gen and width");
	if (f[L_GEN].val || f[L_WIDTH].val) {
		err = read_pcie_link(y, n, f, l);
	} else if (f[L_BANDWIDTH].val) {
		err = yaml_doc_refuse_keys(y, link_keys, f, L_UP, L_DOWN,
					   "cannot be combined with bandwidth");
		if (!err)
			err = yaml_doc_read_unit(y, f[L_BANDWIDTH].val,
						 "bandwidth",
						 units_parse_bandwidth,
						 &l->bw_up);
		l->bw_down = l->bw_up;
	} else if (f[L_UP].val || f[L_DOWN].val) {
		if (!f[L_UP].val)
			return yaml_doc_fail(y, n, "bandwidth_up", "missing required key (bandwidth_down needs it)");
		if (!f[L_DOWN].val)
			return yaml_doc_fail(y, n, "bandwidth_down", "missing required key (bandwidth_up needs it)");
		err = yaml_doc_read_unit(y, f[L_UP].val, "bandwidth_up",
					 units_parse_bandwidth, &l->bw_up);
		if (!err)
			err = yaml_doc_read_unit(y, f[L_DOWN].val,
						 "bandwidth_down",
						 units_parse_bandwidth,
						 &l->bw_down);
	} else {
		return yaml_doc_fail(y, n, key,
				     "needs gen and width, or bandwidth, or bandwidth_up and bandwidth_down");
	}
	l->kind = TOPO_LINK_PCIE;
	if (!err && f[L_KIND].val) {
		unsigned k;

		err = yaml_doc_read_choice(y, f[L_KIND].val, "kind",
					   link_kind_names, 2, &k);
		l->kind = k;
		/* NVLink-C2C is no PCIe link: lanes and generations are not its. */
		if (!err && l->kind == TOPO_LINK_C2C && f[L_GEN].val)
			err = yaml_doc_fail(y, f[L_KIND].key, "kind",
					    "a c2c link takes bandwidth, not gen and width");
	}
	if (err)
		return err;
	return yaml_doc_read_unit(y, f[L_LATENCY].val, "latency",
				  units_parse_time, &l->latency);
}

enum { S_NAME, S_MEM, S_P2P_READ, S_P2P_WRITE, S_NKEYS };

static const struct yaml_doc_key socket_keys[S_NKEYS] = {
	[S_NAME] = { "name", true },
	[S_MEM] = { "memory_bandwidth", true },
	[S_P2P_READ] = { "p2p_read", false },
	[S_P2P_WRITE] = { "p2p_write", false },
};

static int read_socket(void *arg, yaml_node_t *n, unsigned i)
{
	struct ctx *c = arg;
	struct topo_socket *s = &c->t->sockets[i];
	struct yaml_doc_found f[S_NKEYS];
	int err;

	err = yaml_doc_read_map(&c->y, n, "sockets", socket_keys, S_NKEYS, f);
	if (!err)
		err = read_unique_name(c, f[S_NAME].val, s->name);
	if (!err)
		err = yaml_doc_read_unit(&c->y, f[S_MEM].val,
					 "memory_bandwidth",
					 units_parse_bandwidth, &s->mem_bw);
	/* Absent caps mean only the links limit peer-to-peer traffic. */
	s->p2p_read_bw = INFINITY;
	s->p2p_write_bw = INFINITY;
	if (!err && f[S_P2P_READ].val)
		err = yaml_doc_read_unit(&c->y, f[S_P2P_READ].val, "p2p_read",
					 units_parse_bandwidth,
					 &s->p2p_read_bw);
	if (!err && f[S_P2P_WRITE].val)
		err = yaml_doc_read_unit(&c->y, f[S_P2P_WRITE].val,
					 "p2p_write", units_parse_bandwidth,
					 &s->p2p_write_bw);
	if (!err)
		c->t->nsockets = i + 1;
	return err;
}

/* Keys of switches and NICs; the first three are common to all devices. */
enum { D_NAME, D_PARENT, D_LINK, D_RATE, D_EFFICIENCY, D_LATENCY, D_NKEYS };

static const struct yaml_doc_key device_keys[D_NKEYS] = {
	[D_NAME] = { "name", true },
	[D_PARENT] = { "parent", true },
	[D_LINK] = { "link", true },
	[D_RATE] = { "rate", true },
	[D_EFFICIENCY] = { "efficiency", false },
	[D_LATENCY] = { "latency", true },
};

/* A GPU's keys: the common three, then its peer-to-peer caps and what
 * CUDA refuses it. */
enum { U_P2P_READ = D_LINK + 1, U_P2P_WRITE, U_GDR, U_PEER_ACCESS, U_NKEYS };

static const struct yaml_doc_key gpu_keys[U_NKEYS] = {
	[D_NAME] = { "name", true },
	[D_PARENT] = { "parent", true },
	[D_LINK] = { "link", true },
	[U_P2P_READ] = { "p2p_read", false },
	[U_P2P_WRITE] = { "p2p_write", false },
	[U_GDR] = { "gdr", false },
	[U_PEER_ACCESS] = { "peer_access", false },
};

/*
 * Resolve @n, a parent name, to a socket or a switch. For a switch parent
 * *socket is that switch's socket, which is only right once
 * resolve_switches() has run: switches fix theirs up there.
 */
static int resolve_parent(const struct ctx *c, const yaml_node_t *n,
			  int *socket, int *parent_switch)
{
	char buf[YAML_DOC_SHOW_BUF];
	const char *s;
	int i, err;

	err = yaml_doc_scalar(&c->y, n, "parent", &s);
	if (err)
		return err;
	i = topology_find_socket(c->t, s);
	if (i != TOPO_NONE) {
		*socket = i;
		*parent_switch = TOPO_NONE;
		return 0;
	}
	i = topology_find_switch(c->t, s);
	if (i != TOPO_NONE) {
		*socket = c->t->switches[i].socket;
		*parent_switch = i;
		return 0;
	}
	return yaml_doc_fail(&c->y, n, "parent",
			     "unknown socket or switch '%s'",
			     yaml_doc_show(buf, sizeof(buf), s));
}

/* Only a GPU's own link can be NVLink-C2C. */
static int refuse_c2c(const struct ctx *c, const yaml_node_t *n,
		      const struct topo_link *l)
{
	if (l->kind != TOPO_LINK_C2C)
		return 0;
	return yaml_doc_fail(&c->y, n, "kind", "only a GPU's link can be c2c");
}

static int read_switch(void *arg, yaml_node_t *n, unsigned i)
{
	struct ctx *c = arg;
	struct topo_switch *sw = &c->t->switches[i];
	struct yaml_doc_found f[D_NKEYS];
	int err;

	err = yaml_doc_read_map(&c->y, n, "switches", device_keys, D_LINK + 1,
				f);
	if (!err)
		err = read_unique_name(c, f[D_NAME].val, sw->name);
	if (!err)
		err = read_link(&c->y, f[D_LINK].val, "link", &sw->uplink);
	if (!err)
		err = refuse_c2c(c, f[D_LINK].val, &sw->uplink);
	if (!err) {
		/* Parents are resolved once all switches are known. */
		c->switch_parent[i] = f[D_PARENT].val;
		c->t->nswitches = i + 1;
	}
	return err;
}

/*
 * Find a cycle among switch parents and report it, starting from its
 * lowest-indexed member so the message does not depend on where the walk
 * began. Called when switch @start did not reach a socket in nswitches
 * steps, so @start leads into a cycle.
 */
static int report_cycle(const struct ctx *c, int start)
{
	const struct topology *t = c->t;
	char chain[256];
	int i, m = start, first;
	unsigned k;
	size_t len;

	/* After nswitches steps the walk is inside the cycle. */
	for (k = 0; k < t->nswitches; k++)
		m = t->switches[m].parent_switch;
	first = m;
	for (i = t->switches[m].parent_switch, k = 0;
	     i != m && k < t->nswitches; i = t->switches[i].parent_switch, k++)
		if (i < first)
			first = i;
	len = (size_t)snprintf(chain, sizeof(chain), "%s",
			       t->switches[first].name);
	i = first;
	for (k = 0; k < t->nswitches && len < sizeof(chain); k++) {
		i = t->switches[i].parent_switch;
		len += (size_t)snprintf(chain + len, sizeof(chain) - len,
					" -> %s", t->switches[i].name);
		if (i == first)
			break;
	}
	return yaml_doc_fail(&c->y, c->switch_parent[first], "parent",
			     "switch cycle: %s", chain);
}

/* Resolve every switch's parent, then find the socket at the top. */
static int resolve_switches(struct ctx *c)
{
	struct topology *t = c->t;
	unsigned i, k;
	int err, j;

	for (i = 0; i < t->nswitches; i++) {
		err = resolve_parent(c, c->switch_parent[i],
				     &t->switches[i].socket,
				     &t->switches[i].parent_switch);
		if (err)
			return err;
	}
	for (i = 0; i < t->nswitches; i++) {
		j = (int)i;
		for (k = 0; k <= t->nswitches &&
			    t->switches[j].parent_switch != TOPO_NONE; k++)
			j = t->switches[j].parent_switch;
		if (t->switches[j].parent_switch != TOPO_NONE)
			return report_cycle(c, (int)i);
		if (k >= TOPO_MAX_SWITCH_DEPTH)
			return yaml_doc_fail(&c->y, c->switch_parent[i], "parent",
					     "switches nested %u deep (at most %d)",
					     k + 1, TOPO_MAX_SWITCH_DEPTH);
		t->switches[i].socket = t->switches[j].socket;
	}
	return 0;
}

/*
 * The keys a GPU and a NIC share. @keys starts with name, parent and link
 * (D_NAME..D_LINK); @f receives all @nkeys found.
 */
static int read_device(struct ctx *c, yaml_node_t *n, const char *list,
		       const struct yaml_doc_key *keys, size_t nkeys,
		       struct topo_device *dev, struct yaml_doc_found *f)
{
	int err;

	/* No cap unless a GPU's entry gives one; a NIC's never can. */
	dev->p2p_read_bw = INFINITY;
	dev->p2p_write_bw = INFINITY;
	err = yaml_doc_read_map(&c->y, n, list, keys, nkeys, f);
	if (!err)
		err = read_unique_name(c, f[D_NAME].val, dev->name);
	if (!err)
		err = resolve_parent(c, f[D_PARENT].val, &dev->socket,
				     &dev->parent_switch);
	if (!err)
		err = read_link(&c->y, f[D_LINK].val, "link", &dev->link);
	return err;
}

/* A GPU's "gdr: false" or "peer_access: false" (absent: true) as @no. */
static int read_refusal(struct ctx *c, const yaml_node_t *n, const char *key, bool *no)
{
	bool yes = true;
	int err = n ? yaml_doc_read_bool(&c->y, n, key, &yes) : 0;

	*no = !yes;
	return err;
}

static int read_gpu(void *arg, yaml_node_t *n, unsigned i)
{
	struct ctx *c = arg;
	struct topo_device *gpu = &c->t->gpus[i];
	struct yaml_doc_found f[U_NKEYS];
	int err;

	err = read_device(c, n, "gpus", gpu_keys, U_NKEYS, gpu, f);
	/* NVLink-C2C joins a GPU to its CPU, never to a PCIe switch. */
	if (!err && gpu->link.kind == TOPO_LINK_C2C && gpu->parent_switch != TOPO_NONE)
		err = yaml_doc_fail(&c->y, f[D_PARENT].val, "parent",
				    "a GPU with a c2c link hangs under its socket, not under switch '%s'",
				    c->t->switches[gpu->parent_switch].name);
	/* What a peer gets reading or writing this GPU's memory through its
	 * BAR, as calibrate --backend real measures it; absent: no cap. */
	if (!err && f[U_P2P_READ].val)
		err = yaml_doc_read_unit(&c->y, f[U_P2P_READ].val, "p2p_read",
					 units_parse_bandwidth,
					 &gpu->p2p_read_bw);
	if (!err && f[U_P2P_WRITE].val)
		err = yaml_doc_read_unit(&c->y, f[U_P2P_WRITE].val,
					 "p2p_write", units_parse_bandwidth,
					 &gpu->p2p_write_bw);
	if (!err)
		err = read_refusal(c, f[U_GDR].val, "gdr", &gpu->no_gdr);
	if (!err)
		err = read_refusal(c, f[U_PEER_ACCESS].val, "peer_access", &gpu->no_peer_access);
	if (!err)
		c->t->ngpus = i + 1;
	return err;
}

static int read_nic(void *arg, yaml_node_t *n, unsigned i)
{
	struct ctx *c = arg;
	struct topo_nic *nic = &c->t->nics[i];
	struct yaml_doc_found f[D_NKEYS];
	int err;

	err = read_device(c, n, "nics", device_keys, D_NKEYS, &nic->dev, f);
	if (!err)
		err = refuse_c2c(c, f[D_LINK].val, &nic->dev.link);
	if (!err)
		err = yaml_doc_read_unit(&c->y, f[D_RATE].val, "rate",
					 units_parse_bandwidth,
					 &nic->line_rate);
	/* Without a measured efficiency, the NIC runs at its line rate. */
	nic->efficiency = 1.0;
	if (!err && f[D_EFFICIENCY].val)
		err = yaml_doc_read_unit(&c->y, f[D_EFFICIENCY].val,
					 "efficiency", units_parse_fraction,
					 &nic->efficiency);
	if (!err)
		err = yaml_doc_read_unit(&c->y, f[D_LATENCY].val, "latency",
					 units_parse_time, &nic->latency);
	if (!err)
		c->t->nnics = i + 1;
	return err;
}

enum {
	G_KIND,
	G_BANDWIDTH,
	G_LINKS,
	G_LINK_BW,
	G_LATENCY,
	G_NVLS,
	G_PAIRS,
	G_NKEYS,
};

static const struct yaml_doc_key gpu_fabric_keys[G_NKEYS] = {
	[G_KIND] = { "kind", true },
	[G_BANDWIDTH] = { "bandwidth", false },
	[G_LINKS] = { "links", false },
	[G_LINK_BW] = { "link_bandwidth", false },
	[G_LATENCY] = { "latency", false },
	[G_NVLS] = { "nvls", false },
	[G_PAIRS] = { "pairs", false },
};

static const char *const gpu_fabric_names[] = {
	[TOPO_GPU_FABRIC_PCIE] = "pcie",
	[TOPO_GPU_FABRIC_NVLINK] = "nvlink",
	[TOPO_GPU_FABRIC_NVSWITCH] = "nvswitch",
};

/* NVLinks a GPU has: 6 on V100, 12 on A100, 18 on H100 and B200; the
 * bound leaves room and keeps a typo from meaning a thousand. */
#define NVLINKS_GPU_MAX 64
/* NVLinks between one pair of GPUs: at most all of a GPU's (H100's 18). */
#define NVLINKS_PAIR_MAX 18
/* Every unordered pair once; a pair listed again fails before this. */
#define PAIRS_MAX (TOPO_MAX_GPUS * (TOPO_MAX_GPUS - 1) / 2)

/* One entry of gpu_fabric.pairs: { gpus: [a, b], links: n }. */
enum { P_GPUS, P_LINKS, P_NKEYS };

static const struct yaml_doc_key pair_keys[P_NKEYS] = {
	[P_GPUS] = { "gpus", true },
	[P_LINKS] = { "links", true },
};

/* The two ends of the pair being read, as read_pair_gpu() finds them. */
struct pair_ends {
	const struct ctx *c;
	int gpu[2];
};

/*
 * One name of a pair's gpus. read_top() reads gpu_fabric after gpus,
 * whatever the order in the file, so every GPU is known here.
 */
static int read_pair_gpu(void *arg, yaml_node_t *n, unsigned i)
{
	struct pair_ends *p = arg;
	const struct ctx *c = p->c;
	char buf[YAML_DOC_SHOW_BUF];
	const char *s;
	int err;

	err = yaml_doc_scalar(&c->y, n, "gpus", &s);
	if (err)
		return err;
	p->gpu[i] = topology_find_gpu(c->t, s);
	if (p->gpu[i] == TOPO_NONE)
		return yaml_doc_fail(&c->y, n, "gpus", "unknown GPU '%s'",
				     yaml_doc_show(buf, sizeof(buf), s));
	if (i == 1 && p->gpu[1] == p->gpu[0])
		return yaml_doc_fail(&c->y, n, "gpus", "%s paired with itself",
				     c->t->gpus[p->gpu[0]].name);
	return 0;
}

static int read_pair(void *arg, yaml_node_t *n, unsigned i)
{
	struct ctx *c = arg;
	struct topo_gpu_fabric *g = &c->t->gpu_fabric;
	struct yaml_doc_found f[P_NKEYS];
	struct pair_ends p = { .c = c };
	unsigned links, *first;
	int a, b, err;

	(void)i;
	err = yaml_doc_read_map(&c->y, n, "pairs", pair_keys, P_NKEYS, f);
	if (!err)
		err = yaml_doc_read_list(&c->y, f[P_GPUS].val, "gpus", 2, 2,
					 read_pair_gpu, &p);
	if (!err)
		err = yaml_doc_read_uint(&c->y, f[P_LINKS].val, "links", 1,
					 NVLINKS_PAIR_MAX, &links);
	if (err)
		return err;
	a = p.gpu[0];
	b = p.gpu[1];
	/* [b, a] names the same pair: either order counts as listed. */
	first = &c->pair_line[a][b];
	if (*first)
		return yaml_doc_fail(&c->y, f[P_GPUS].val, "gpus",
				     "pair %s, %s listed twice (first on line %u)",
				     c->t->gpus[a].name, c->t->gpus[b].name,
				     *first);
	*first = (unsigned)f[P_GPUS].val->start_mark.line + 1;
	c->pair_line[b][a] = *first;
	g->pair_links[a][b] = (uint8_t)links;
	g->pair_links[b][a] = (uint8_t)links;
	return 0;
}

/*
 * No GPU may have more NVLinks in its pairs than links says it has;
 * without links, the most any GPU has is its links (the GPU's bandwidth
 * is then all of its links at once).
 */
static int check_pair_sums(const struct ctx *c, const struct yaml_doc_found *f)
{
	struct topo_gpu_fabric *g = &c->t->gpu_fabric;
	unsigned sum, most = 0;
	int who = 0;

	for (unsigned i = 0; i < c->t->ngpus; i++) {
		sum = topo_gpu_pair_links(c->t, i);
		if (f[G_LINKS].val && sum > g->links)
			return yaml_doc_fail(&c->y, f[G_LINKS].val, "links",
					     "%s has %u NVLinks in pairs, more than links (%u)",
					     c->t->gpus[i].name, sum, g->links);
		if (sum > most) {
			most = sum;
			who = (int)i;
		}
	}
	if (f[G_LINKS].val)
		return 0;
	/* links is written back (topology_write): it must read back. */
	if (most > NVLINKS_GPU_MAX)
		return yaml_doc_fail(&c->y, f[G_PAIRS].key, "pairs",
				     "%s has %u NVLinks in pairs, more than a GPU has (at most %d)",
				     c->t->gpus[who].name, most, NVLINKS_GPU_MAX);
	g->links = most;
	return 0;
}

/*
 * A mesh as wired: link_bandwidth a link, the pairs, and links a GPU if
 * given (else the pairs give it). A whole bandwidth cannot say how much
 * of it each pair gets.
 */
static int read_wired(struct ctx *c, yaml_node_t *n,
		      const struct yaml_doc_found *f)
{
	const struct yaml_doc *y = &c->y;
	struct topo_gpu_fabric *g = &c->t->gpu_fabric;
	int err = 0;

	if (f[G_BANDWIDTH].val)
		return yaml_doc_fail(y, f[G_BANDWIDTH].key, "bandwidth",
				     "pairs need link_bandwidth: NVLinks are counted per pair");
	if (!f[G_LINK_BW].val)
		return yaml_doc_fail(y, n, "link_bandwidth",
				     "missing required key (pairs need it)");
	if (f[G_LINKS].val)
		err = yaml_doc_read_uint(y, f[G_LINKS].val, "links", 1,
					 NVLINKS_GPU_MAX, &g->links);
	if (!err)
		err = yaml_doc_read_unit(y, f[G_LINK_BW].val, "link_bandwidth",
					 units_parse_bandwidth, &g->link_bw);
	if (!err)
		err = yaml_doc_read_list(y, f[G_PAIRS].val, "pairs", 1,
					 PAIRS_MAX, read_pair, c);
	if (!err)
		err = check_pair_sums(c, f);
	if (err)
		return err;
	g->wired = true;
	g->bw = g->links * g->link_bw;
	return 0;
}

/* NVLink bandwidth: the whole per GPU, links x per-link bandwidth, or
 * per-link bandwidth and the pairs as wired. */
static int read_nvlink_bw(struct ctx *c, yaml_node_t *n,
			  const struct yaml_doc_found *f)
{
	const struct yaml_doc *y = &c->y;
	struct topo_gpu_fabric *g = &c->t->gpu_fabric;
	int err;

	if (f[G_PAIRS].val)
		return read_wired(c, n, f);
	if (f[G_BANDWIDTH].val) {
		err = yaml_doc_refuse_keys(y, gpu_fabric_keys, f, G_LINKS, G_LINK_BW,
					   "cannot be combined with bandwidth");
		if (!err)
			err = yaml_doc_read_unit(y, f[G_BANDWIDTH].val, "bandwidth",
						 units_parse_bandwidth, &g->bw);
		return err;
	}
	if (!f[G_LINKS].val && !f[G_LINK_BW].val)
		return yaml_doc_fail(y, n, "bandwidth",
				     "missing required key (NVLink needs bandwidth, or links and link_bandwidth)");
	if (!f[G_LINKS].val)
		return yaml_doc_fail(y, n, "links", "missing required key (link_bandwidth needs it)");
	if (!f[G_LINK_BW].val)
		return yaml_doc_fail(y, n, "link_bandwidth", "missing required key (links needs it)");
	err = yaml_doc_read_uint(y, f[G_LINKS].val, "links", 1, NVLINKS_GPU_MAX,
				 &g->links);
	if (!err)
		err = yaml_doc_read_unit(y, f[G_LINK_BW].val, "link_bandwidth",
					 units_parse_bandwidth, &g->link_bw);
	if (!err)
		g->bw = g->links * g->link_bw;
	return err;
}

static int read_gpu_fabric(struct ctx *c, yaml_node_t *n)
{
	const struct yaml_doc *y = &c->y;
	struct topo_gpu_fabric *g = &c->t->gpu_fabric;
	struct yaml_doc_found f[G_NKEYS];
	unsigned kind;
	int err;

	err = yaml_doc_read_map(y, n, "gpu_fabric", gpu_fabric_keys, G_NKEYS,
				f);
	if (!err)
		err = yaml_doc_read_choice(y, f[G_KIND].val, "kind", gpu_fabric_names,
					   3, &kind);
	if (err)
		return err;
	g->kind = kind;
	/* NVSwitches join every pair: only a mesh has a wiring to give. */
	if (g->kind != TOPO_GPU_FABRIC_NVLINK && f[G_PAIRS].key)
		return yaml_doc_fail(y, f[G_PAIRS].key, "pairs",
				     "only allowed with kind: nvlink");
	if (g->kind == TOPO_GPU_FABRIC_PCIE)
		return yaml_doc_refuse_keys(y, gpu_fabric_keys, f, G_BANDWIDTH,
					    G_NVLS, "only allowed with kind: nvlink or nvswitch");
	/* NVLink SHARP lives in the switch. */
	if (g->kind == TOPO_GPU_FABRIC_NVLINK && f[G_NVLS].key)
		return yaml_doc_fail(y, f[G_NVLS].key, "nvls",
				     "only allowed with kind: nvswitch");
	if (!f[G_LATENCY].val)
		return yaml_doc_fail(y, n, "latency",
				     "missing required key (NVLink needs it)");
	err = read_nvlink_bw(c, n, f);
	if (!err)
		err = yaml_doc_read_unit(y, f[G_LATENCY].val, "latency",
					 units_parse_time, &g->latency);
	if (!err && f[G_NVLS].val)
		err = yaml_doc_read_bool(y, f[G_NVLS].val, "nvls", &g->nvls);
	return err;
}

enum { T_CHUNK, T_BUFFERS, T_COPY_BW, T_OVERHEAD, T_ENGINES, T_NKEYS };

static const struct yaml_doc_key staging_keys[T_NKEYS] = {
	[T_CHUNK] = { "chunk", true },
	[T_BUFFERS] = { "buffers", true },
	[T_COPY_BW] = { "copy_bandwidth", true },
	[T_OVERHEAD] = { "chunk_overhead", true },
	[T_ENGINES] = { "copy_engines", false },
};

static int read_staging(const struct yaml_doc *y, yaml_node_t *n,
			struct topo_staging *s)
{
	struct yaml_doc_found f[T_NKEYS];
	int err;

	err = yaml_doc_read_map(y, n, "staging", staging_keys, T_NKEYS, f);
	if (!err)
		err = yaml_doc_read_size(y, f[T_CHUNK].val, "chunk",
					 &s->chunk_bytes);
	if (!err)
		err = yaml_doc_read_uint(y, f[T_BUFFERS].val, "buffers", 1, 64,
					 &s->buffers);
	if (!err)
		err = yaml_doc_read_unit(y, f[T_COPY_BW].val, "copy_bandwidth",
					 units_parse_bandwidth, &s->copy_bw);
	if (!err)
		err = yaml_doc_read_unit(y, f[T_OVERHEAD].val,
					 "chunk_overhead", units_parse_time,
					 &s->chunk_overhead);
	/* cudaMemcpyAsync on one stream uses one engine per direction. */
	s->copy_engines = 1;
	if (!err && f[T_ENGINES].val)
		err = yaml_doc_read_uint(y, f[T_ENGINES].val, "copy_engines", 1,
					 64, &s->copy_engines);
	return err;
}

enum {
	K_NAME,
	K_NODES,
	K_SOCKETS,
	K_INTER_SOCKET,
	K_SWITCHES,
	K_GPUS,
	K_NICS,
	K_GPU_FABRIC,
	K_FABRIC,
	K_STAGING,
	K_GPU_ARCH,
	K_GPU_CC,
	K_GPU_TFLOPS,
	K_CPU_VENDOR,
	K_CPU_MODEL,
	K_NKEYS,
};

static const struct yaml_doc_key top_keys[K_NKEYS] = {
	[K_NAME] = { "name", true },
	[K_NODES] = { "nodes", false },
	[K_SOCKETS] = { "sockets", true },
	[K_INTER_SOCKET] = { "inter_socket", false },
	[K_SWITCHES] = { "switches", false },
	[K_GPUS] = { "gpus", true },
	[K_NICS] = { "nics", true },
	[K_GPU_FABRIC] = { "gpu_fabric", false },
	[K_FABRIC] = { "fabric", true },
	[K_STAGING] = { "staging", true },
	[K_GPU_ARCH] = { "gpu_arch", false },
	[K_GPU_CC] = { "compute_capability", false },
	[K_GPU_TFLOPS] = { "gpu_tflops", false },
	[K_CPU_VENDOR] = { "cpu_vendor", false },
	[K_CPU_MODEL] = { "cpu_model", false },
};

static const char *const gpu_arch_names[TOPO_GPU_ARCH_COUNT] = {
	[TOPO_GPU_VOLTA] = "volta",
	[TOPO_GPU_AMPERE] = "ampere",
	[TOPO_GPU_HOPPER] = "hopper",
	[TOPO_GPU_BLACKWELL] = "blackwell",
};

/* A generation's own compute capability x 10. */
static const unsigned gpu_arch_cc[TOPO_GPU_ARCH_COUNT] = {
	[TOPO_GPU_VOLTA] = 70,
	[TOPO_GPU_AMPERE] = 80,
	[TOPO_GPU_HOPPER] = 90,
	[TOPO_GPU_BLACKWELL] = 100,
};

static const char *const cpu_vendor_names[TOPO_CPU_VENDOR_COUNT] = {
	[TOPO_CPU_INTEL] = "intel",
	[TOPO_CPU_AMD] = "amd",
	[TOPO_CPU_ARM] = "arm",
};

static const char *const cpu_model_names[TOPO_CPU_MODEL_COUNT] = {
	[TOPO_CPU_MODEL_UNSET] = "",
	[TOPO_CPU_MODEL_BROADWELL] = "broadwell",
	[TOPO_CPU_MODEL_SKYLAKE] = "skylake",
	[TOPO_CPU_MODEL_SAPPHIRE_RAPIDS] = "sapphire_rapids",
	[TOPO_CPU_MODEL_EMERALD_RAPIDS] = "emerald_rapids",
};

const char *topo_gpu_arch_name(enum topo_gpu_arch a)
{
	return (unsigned)a < TOPO_GPU_ARCH_COUNT ? gpu_arch_names[a] : "?";
}

unsigned topo_gpu_cc(const struct topology *t)
{
	if (t->gpu_cc)
		return t->gpu_cc;
	return (unsigned)t->gpu_arch < TOPO_GPU_ARCH_COUNT ? gpu_arch_cc[t->gpu_arch] : 0;
}

/*
 * The dense BF16 tensor peak (FP16 on Volta) of each compute capability's
 * flagship, from NVIDIA's datasheets: V100 SXM2 125 (Tesla V100
 * datasheet), A100 SXM 312 (A100 datasheet), A40 149.7 (8.6), L40S 362
 * (8.9), H100 SXM 989.5 (H100 datasheet; GH200's GPU the same), B200
 * 2250 (HGX B200: 36 PFLOPS BF16 with sparsity for 8, half dense).
 * Another part of a generation (A30, H100 NVL) sets gpu_tflops.
 */
double topo_gpu_tflops(const struct topology *t)
{
	static const struct { unsigned cc; double tflops; } flagship[] = {
		{ 70, 125 }, { 80, 312 }, { 86, 149.7 }, { 89, 362 }, { 90, 989.5 }, { 100, 2250 },
	};
	unsigned cc = topo_gpu_cc(t);
	double best = flagship[0].tflops;

	if (t->gpu_tflops > 0)
		return t->gpu_tflops;
	for (size_t i = 0; i < sizeof(flagship) / sizeof(flagship[0]); i++)
		if (flagship[i].cc <= cc)
			best = flagship[i].tflops;
	return best;
}

const char *topo_cpu_vendor_name(enum topo_cpu_vendor v)
{
	return (unsigned)v < TOPO_CPU_VENDOR_COUNT ? cpu_vendor_names[v] : "?";
}

const char *topo_cpu_model_name(enum topo_cpu_model m)
{
	return (unsigned)m < TOPO_CPU_MODEL_COUNT ? cpu_model_names[m] : "?";
}

/*
 * NCCL's thresholds on CPUID family 6's model (v2.30.7-1 topo.cc:748-751;
 * 2.8 to 2.25 stop at the first, SKL from 0x55: v2.25.1-1 topo.cc:514).
 * NCCL's family is the base plus the extended family shifted (xml.cc
 * ncclTopoGetXmlFromCpu), the kernel's the two added: both are 6 for
 * family 6 alone, whose extended family is 0. Its model is the base plus
 * the extended model x 16, as the kernel's for family 6.
 */
enum topo_cpu_model topo_cpu_model_of_cpuid(unsigned family, unsigned model)
{
	if (family != 6)
		return TOPO_CPU_MODEL_BROADWELL;
	return model >= 0xCF ? TOPO_CPU_MODEL_EMERALD_RAPIDS :
	       model >= 0x8F ? TOPO_CPU_MODEL_SAPPHIRE_RAPIDS :
	       model >= 0x55 ? TOPO_CPU_MODEL_SKYLAKE :
			       TOPO_CPU_MODEL_BROADWELL;
}

/* The generation NCCL's tables take a compute capability x 10 for
 * (tuning.cc compCapIndex: Ampere from 8.0, Hopper from 9.0, ...). */
static enum topo_gpu_arch arch_of_cc(unsigned cc)
{
	return cc >= 100 ? TOPO_GPU_BLACKWELL : cc >= 90 ? TOPO_GPU_HOPPER :
	       cc >= 80 ? TOPO_GPU_AMPERE : TOPO_GPU_VOLTA;
}

/* gpu_arch ("ada" too: Ampere's tables, 8.9) and compute_capability
 * ("8.6", "8.9": where it is not the generation's own). */
static int read_gpu_model(const struct yaml_doc *y, const struct yaml_doc_found *f,
		    struct topology *t)
{
	static const char *const names[] = { "volta", "ampere", "ada", "hopper", "blackwell" };
	static const unsigned cc_of_name[] = { 70, 80, 89, 90, 100 };
	double cc;
	unsigned v;
	int err;

	if (f[K_GPU_ARCH].val) {
		err = yaml_doc_read_choice(y, f[K_GPU_ARCH].val, "gpu_arch", names,
					   sizeof(names) / sizeof(names[0]), &v);
		if (err)
			return err;
		t->gpu_cc = cc_of_name[v];
		t->gpu_arch = arch_of_cc(t->gpu_cc);
	}
	if (!f[K_GPU_CC].val)
		return 0;
	err = yaml_doc_read_decimal(y, f[K_GPU_CC].val, "compute_capability",
				    "a compute capability (8.9)", &cc);
	if (err)
		return err;
	v = (unsigned)lround(cc * 10);
	if (v < 70 || v > 129 || fabs(cc * 10 - v) > 1e-9)
		return yaml_doc_fail(y, f[K_GPU_CC].val, "compute_capability",
				     "%g is no compute capability NCCL runs on (7.0 to 12.9, one decimal)", cc);
	if (f[K_GPU_ARCH].val && arch_of_cc(v) != t->gpu_arch)
		return yaml_doc_fail(y, f[K_GPU_CC].val, "compute_capability",
				     "%g is %s to NCCL's tables (tuning.cc), where gpu_arch says %s", cc,
				     gpu_arch_names[arch_of_cc(v)], gpu_arch_names[t->gpu_arch]);
	t->gpu_cc = v;
	t->gpu_arch = arch_of_cc(v);
	return 0;
}

/* cpu_model: an Intel CPU's class, which NCCL reads from CPUID on Intel
 * alone (topo.cc ncclTopoAddCpu). */
static int read_cpu_model(const struct yaml_doc *y, const yaml_node_t *n,
			  struct topology *t)
{
	unsigned v;
	int err;

	err = yaml_doc_read_choice(y, n, "cpu_model", cpu_model_names + 1,
				   TOPO_CPU_MODEL_COUNT - 1, &v);
	if (err)
		return err;
	if (t->cpu_vendor != TOPO_CPU_INTEL)
		return yaml_doc_fail(y, n, "cpu_model",
				     "only with cpu_vendor: intel (NCCL tells Intel's CPU "
				     "models apart alone), where cpu_vendor is %s",
				     cpu_vendor_names[t->cpu_vendor]);
	t->cpu_model = v + 1;
	return 0;
}

/* gpu_arch and cpu_vendor: NCCL's tuning tables are indexed by both. */
static int read_platform(const struct yaml_doc *y,
			 const struct yaml_doc_found *f, struct topology *t)
{
	unsigned v;
	int err;

	/* Defaults: the generation and CPU of most presets (A100, EPYC
	 * aside) and of NCCL's own first column of each table. */
	t->gpu_arch = TOPO_GPU_AMPERE;
	t->gpu_cc = gpu_arch_cc[TOPO_GPU_AMPERE];
	t->cpu_vendor = TOPO_CPU_INTEL;
	err = read_gpu_model(y, f, t);
	if (!err && f[K_GPU_TFLOPS].val) {
		err = yaml_doc_read_decimal(y, f[K_GPU_TFLOPS].val, "gpu_tflops",
					    "a GPU's dense peak in TFLOP/s (989.5)", &t->gpu_tflops);
		if (!err && !(t->gpu_tflops > 0))
			err = yaml_doc_fail(y, f[K_GPU_TFLOPS].val, "gpu_tflops", "must be > 0");
	}
	if (!err && f[K_CPU_VENDOR].val) {
		err = yaml_doc_read_choice(y, f[K_CPU_VENDOR].val, "cpu_vendor",
					   cpu_vendor_names, TOPO_CPU_VENDOR_COUNT,
					   &v);
		t->cpu_vendor = v;
	}
	if (!err && f[K_CPU_MODEL].val)
		err = read_cpu_model(y, f[K_CPU_MODEL].val, t);
	return err;
}

/* The sections in dependency order: parents before their children. */
static int read_top(struct ctx *c, yaml_node_t *root)
{
	const struct yaml_doc *y = &c->y;
	struct topology *t = c->t;
	struct yaml_doc_found f[K_NKEYS];
	int err;

	err = yaml_doc_read_map(y, root, "topology", top_keys, K_NKEYS, f);
	if (!err)
		err = yaml_doc_read_name(y, f[K_NAME].val, "name", t->name,
					 sizeof(t->name), false);
	t->nodes = 1;
	if (!err && f[K_NODES].val)
		err = yaml_doc_read_uint(y, f[K_NODES].val, "nodes", 1,
					 TOPO_MAX_NODES, &t->nodes);
	if (!err)
		err = yaml_doc_read_list(y, f[K_SOCKETS].val, "sockets", 1,
					 TOPO_MAX_SOCKETS, read_socket, c);
	if (!err && !f[K_INTER_SOCKET].val && t->nsockets > 1)
		err = yaml_doc_fail(y, root, "inter_socket",
				    "missing required key (needed with %u sockets)",
				    t->nsockets);
	if (!err && f[K_INTER_SOCKET].val)
		err = read_link(y, f[K_INTER_SOCKET].val, "inter_socket",
				&t->inter_socket);
	if (!err && f[K_INTER_SOCKET].val)
		err = refuse_c2c(c, f[K_INTER_SOCKET].val, &t->inter_socket);
	if (!err && f[K_SWITCHES].val)
		err = yaml_doc_read_list(y, f[K_SWITCHES].val, "switches", 0,
					 TOPO_MAX_SWITCHES, read_switch, c);
	if (!err)
		err = resolve_switches(c);
	if (!err)
		err = yaml_doc_read_list(y, f[K_GPUS].val, "gpus", 1,
					 TOPO_MAX_GPUS, read_gpu, c);
	if (!err)
		err = yaml_doc_read_list(y, f[K_NICS].val, "nics", 1,
					 TOPO_MAX_NICS, read_nic, c);
	t->gpu_fabric.kind = TOPO_GPU_FABRIC_PCIE;
	if (!err && f[K_GPU_FABRIC].val)
		err = read_gpu_fabric(c, f[K_GPU_FABRIC].val);
	if (!err)
		err = topology_read_fabric(y, f[K_FABRIC].val, t);
	if (!err)
		err = read_staging(y, f[K_STAGING].val, &t->staging);
	if (!err)
		err = read_platform(y, f, t);
	return err;
}

static int load_buffer_with(const char *buf, size_t len, const char *name,
			    const struct topo_override *ov, size_t nov,
			    struct topology *topo, struct diag *d)
{
	yaml_node_t *root;
	struct ctx *c;
	int err;

	memset(topo, 0, sizeof(*topo));
	if (!name)
		name = "<buffer>";
	/* The context is a few kilobytes: keep it off small stacks. */
	c = calloc(1, sizeof(*c));
	if (!c)
		return diag_set(d, -ENOMEM, "%s: out of memory", name);
	err = yaml_doc_load(&c->y, buf, len, name, d);
	if (err)
		goto out_free_ctx;
	c->t = topo;
	for (size_t i = 0; i < nov && !err; i++) {
		char why[160];

		err = yaml_doc_override(&c->y, ov[i].path, ov[i].value, why, sizeof(why));
		if (err)
			err = diag_set(d, err == -ENOMEM ? -ENOMEM : -EINVAL, "%s: %s: %s", name,
				       ov[i].path, why);
	}
	root = yaml_doc_root(&c->y);
	if (err)
		goto out_doc;
	if (!root)
		err = diag_at(d, -EINVAL, name, 1, 1, "topology",
			      "empty file, expected a mapping with name, sockets, gpus, nics, fabric and staging");
	else
		err = read_top(c, root);
	if (!err) {
		snprintf(topo->file, sizeof(topo->file), "%s", name);
		topo_cache_paths(topo);
	}
out_doc:
	yaml_doc_destroy(&c->y);
out_free_ctx:
	free(c);
	if (err)
		memset(topo, 0, sizeof(*topo));
	return err;
}

int topology_load_buffer(const char *buf, size_t len, const char *name,
			 struct topology *topo, struct diag *d)
{
	return load_buffer_with(buf, len, name, NULL, 0, topo, d);
}

int topology_load_buffer_with(const char *buf, size_t len, const char *name,
			      const struct topo_override *ov, size_t nov,
			      struct topology *topo, struct diag *d)
{
	return load_buffer_with(buf, len, name, ov, nov, topo, d);
}

/* Read all of @path into a NUL-terminated heap buffer. */
static int read_file(const char *path, char **out, size_t *len,
		     struct diag *d)
{
	char *buf;
	size_t n;
	FILE *f;
	int err;

	f = input_open(path, "rb", &err, d);
	if (!f)
		return err;
	buf = malloc(TOPO_FILE_MAX + 1);
	if (!buf) {
		err = diag_set(d, -ENOMEM, "%s: out of memory", path);
		goto out_close;
	}
	n = fread(buf, 1, TOPO_FILE_MAX + 1, f);
	if (ferror(f)) {
		err = -(errno ? errno : EIO);
		diag_set(d, err, "%s: cannot read: %s", path, strerror(-err));
		goto out_free;
	}
	if (n > TOPO_FILE_MAX) {
		err = diag_set(d, -EFBIG,
			       "%s: cannot read: larger than %d bytes, not a topology file",
			       path, TOPO_FILE_MAX);
		goto out_free;
	}
	buf[n] = '\0';
	fclose(f);
	*out = buf;
	*len = n;
	return 0;

out_free:
	free(buf);
out_close:
	fclose(f);
	return err;
}

int topology_load(const char *path, struct topology *topo, struct diag *d)
{
	return topology_load_with(path, NULL, 0, topo, d);
}

int topology_load_with(const char *path, const struct topo_override *ov, size_t nov,
		       struct topology *topo, struct diag *d)
{
	size_t len = 0;
	char *buf = NULL;
	int err;

	memset(topo, 0, sizeof(*topo));
	if (strlen(path) >= sizeof(topo->file))
		return diag_set(d, -ENAMETOOLONG, "%s: path too long (at most %zu bytes)",
				path, sizeof(topo->file) - 1);
	err = read_file(path, &buf, &len, d);
	if (err)
		return err;
	err = load_buffer_with(buf, len, path, ov, nov, topo, d);
	free(buf);
	return err;
}

static int find_name(const char *base, size_t stride, unsigned n,
		     const char *name)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (strcmp(base + i * stride, name) == 0)
			return (int)i;
	return TOPO_NONE;
}

/* The counts are bounded so that a corrupt struct cannot walk off it. */
#define FIND(arr, field, count, max)                                        \
	find_name((const char *)&(arr)[0].field, sizeof((arr)[0]),           \
		  (count) < (max) ? (count) : (max), name)

int topology_find_gpu(const struct topology *topo, const char *name)
{
	return FIND(topo->gpus, name, topo->ngpus, TOPO_MAX_GPUS);
}

int topology_find_nic(const struct topology *topo, const char *name)
{
	return FIND(topo->nics, dev.name, topo->nnics, TOPO_MAX_NICS);
}

int topology_find_switch(const struct topology *topo, const char *name)
{
	return FIND(topo->switches, name, topo->nswitches, TOPO_MAX_SWITCHES);
}

int topology_find_socket(const struct topology *topo, const char *name)
{
	return FIND(topo->sockets, name, topo->nsockets, TOPO_MAX_SOCKETS);
}
