/* SPDX-License-Identifier: MIT */
/*
 * topology_yaml: read a topology file (docs/topology-format.md) with
 * libyaml's document API.
 *
 * The document API keeps each node's position, so every complaint can name
 * the line and column of the offending key or value. Input is untrusted (a
 * fuzz target drives this file): every node's type is checked before its
 * data is touched, every loop is bounded by a list's length or a fixed
 * maximum, and aliases are harmless because the schema is walked to a fixed
 * depth, never by following the graph.
 */
#include "topology.h"
#include "units.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* A topology file is a page or two; anything bigger is a wrong file. */
#define TOPO_FILE_MAX (1 << 20)
#define TOPO_NAMES_MAX (TOPO_MAX_SOCKETS + TOPO_MAX_SWITCHES + \
			TOPO_MAX_GPUS + TOPO_MAX_NICS)
/* How much of a bad value to echo back: enough to recognise it. */
#define SHOW_MAX 40

/*
 * nvbandwidth#42 measured an A100 on PCIe Gen4 x16 at about 25 GB/s of the
 * 31.5 GB/s the link carries after encoding: TLP headers, flow control and
 * DMA engine limits cost about a fifth.
 */
#define LINK_EFFICIENCY_DEFAULT 0.8

struct key_spec {
	const char *key;
	bool required;
};

/* What map_read() found for one key_spec: the key node and its value. */
struct found {
	yaml_node_t *key;
	yaml_node_t *val;
};

struct name_ref {
	const char *name;
	const yaml_node_t *node;
};

/* Parse state for one load; on the heap, it is a few kilobytes. */
struct ctx {
	const char *file;
	yaml_document_t *doc;
	struct topology *t;
	struct diag *d;
	/* Every name in the node, for the duplicate check. */
	struct name_ref names[TOPO_NAMES_MAX];
	unsigned nnames;
	/* Where each parent was written, to point at it once resolved. */
	const yaml_node_t *switch_parent[TOPO_MAX_SWITCHES];
};

/* Copy @s for a one-line message: bounded, control characters replaced. */
static const char *show(char *buf, size_t cap, const char *s)
{
	size_t i, n = 0;

	for (i = 0; s[i] && n + 4 < cap && i < SHOW_MAX; i++) {
		unsigned char ch = (unsigned char)s[i];

		buf[n++] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
	}
	if (s[i]) {
		/* Do not leave half a UTF-8 sequence before the ellipsis. */
		while (n && ((unsigned char)buf[n - 1] & 0xc0) == 0x80)
			n--;
		if (n && ((unsigned char)buf[n - 1] & 0xc0) == 0xc0)
			n--;
		buf[n++] = '.';
		buf[n++] = '.';
		buf[n++] = '.';
	}
	buf[n] = '\0';
	return buf;
}

static int fail(const struct ctx *c, const yaml_node_t *n, const char *key,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Report a problem at node @n, under @key; returns -EINVAL. */
static int fail(const struct ctx *c, const yaml_node_t *n, const char *key,
		const char *fmt, ...)
{
	char what[DIAG_MSG_MAX];
	char k[SHOW_MAX + 8];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return diag_at(c->d, -EINVAL, c->file, (unsigned)n->start_mark.line + 1,
		       (unsigned)n->start_mark.column + 1,
		       show(k, sizeof(k), key), "%s", what);
}

static yaml_node_t *node(const struct ctx *c, yaml_node_item_t i)
{
	return yaml_document_get_node(c->doc, i);
}

/* "a list", "a mapping" or the scalar quoted, for "expected X, got Y". */
static const char *describe(const yaml_node_t *n, char *buf, size_t cap)
{
	char v[SHOW_MAX + 8];

	if (n->type == YAML_SEQUENCE_NODE)
		return "a list";
	if (n->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.length == 0)
		return "nothing";
	snprintf(buf, cap, "'%s'",
		 show(v, sizeof(v), (const char *)n->data.scalar.value));
	return buf;
}

static int expect_type(const struct ctx *c, const yaml_node_t *n,
		       const char *key, yaml_node_type_t type)
{
	static const char *const name[] = {
		[YAML_SCALAR_NODE] = "a value",
		[YAML_SEQUENCE_NODE] = "a list",
		[YAML_MAPPING_NODE] = "a mapping",
	};
	char buf[SHOW_MAX + 16];

	if (n->type == type)
		return 0;
	return fail(c, n, key, "expected %s, got %s", name[type],
		    describe(n, buf, sizeof(buf)));
}

/*
 * The text of a scalar. libyaml allows NUL inside quoted scalars ("\0"),
 * which would silently cut the string short for every C parser after us.
 */
static int scalar(const struct ctx *c, const yaml_node_t *n, const char *key,
		  const char **s)
{
	int err = expect_type(c, n, key, YAML_SCALAR_NODE);

	if (err)
		return err;
	*s = (const char *)n->data.scalar.value;
	if (strlen(*s) != n->data.scalar.length)
		return fail(c, n, key, "contains a NUL character");
	return 0;
}

/*
 * Match the keys of mapping @n against @spec: unknown and repeated keys are
 * errors pointing at the key, a missing required key points at the mapping.
 */
static int map_read(const struct ctx *c, yaml_node_t *n, const char *what,
		    const struct key_spec *spec, size_t nspec, struct found *f)
{
	yaml_node_pair_t *p;
	const char *k;
	size_t i;
	int err;

	memset(f, 0, nspec * sizeof(*f));
	err = expect_type(c, n, what, YAML_MAPPING_NODE);
	if (err)
		return err;
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *kn = node(c, p->key), *vn = node(c, p->value);

		if (!kn || !vn)
			return fail(c, n, what, "malformed mapping");
		/* A list or mapping as a key ("? [a]: b") fails here. */
		err = scalar(c, kn, what, &k);
		if (err)
			return err;
		for (i = 0; i < nspec; i++)
			if (strcmp(k, spec[i].key) == 0)
				break;
		if (i == nspec)
			return fail(c, kn, k, "unknown key");
		if (f[i].key)
			return fail(c, kn, k, "duplicate key (first on line %u)",
				    (unsigned)f[i].key->start_mark.line + 1);
		f[i].key = kn;
		f[i].val = vn;
	}
	for (i = 0; i < nspec; i++)
		if (spec[i].required && !f[i].val)
			return fail(c, n, spec[i].key, "missing required key");
	return 0;
}

typedef int (*unit_parser)(const char *s, double *v, const char **why);

/* A value with a unit (bandwidth, time, fraction) from node @n. */
static int read_unit(const struct ctx *c, const yaml_node_t *n,
		     const char *key, unit_parser parse, double *out)
{
	const char *s, *why = "is not valid";
	char buf[SHOW_MAX + 8];
	int err;

	err = scalar(c, n, key, &s);
	if (err)
		return err;
	if (parse(s, out, &why))
		return fail(c, n, key, "%s, got '%s'", why,
			    show(buf, sizeof(buf), s));
	return 0;
}

static int read_size(const struct ctx *c, const yaml_node_t *n,
		     const char *key, uint64_t *out)
{
	const char *s, *why = "is not valid";
	char buf[SHOW_MAX + 8];
	int err;

	err = scalar(c, n, key, &s);
	if (err)
		return err;
	if (units_parse_size(s, out, &why))
		return fail(c, n, key, "%s, got '%s'", why,
			    show(buf, sizeof(buf), s));
	return 0;
}

/*
 * A plain decimal ("2", "1.5"): counts and ratios. Digits only, so that
 * "0x10", "1e3" or "inf" cannot slip in; at most 9 integer digits.
 */
static int read_decimal(const struct ctx *c, const yaml_node_t *n,
			const char *key, const char *expected, double *out)
{
	char buf[SHOW_MAX + 8];
	const char *s, *p;
	size_t ndig = 0;
	int err;

	err = scalar(c, n, key, &s);
	if (err)
		return err;
	p = s;
	if (*p == '-')
		p++;
	for (; *p >= '0' && *p <= '9'; p++)
		ndig++;
	if (*p == '.' && ndig)
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	if (!ndig || *p || ndig > 9)
		return fail(c, n, key, "expected %s, got '%s'", expected,
			    show(buf, sizeof(buf), s));
	*out = strtod(s, NULL);
	return 0;
}

static int read_uint(const struct ctx *c, const yaml_node_t *n,
		     const char *key, unsigned min, unsigned max,
		     unsigned *out)
{
	char buf[SHOW_MAX + 8];
	double v;
	int err;

	err = read_decimal(c, n, key, "a whole number", &v);
	if (err)
		return err;
	if (v != floor(v))
		return fail(c, n, key, "expected a whole number, got '%s'",
			    show(buf, sizeof(buf),
				 (const char *)n->data.scalar.value));
	if (v < min || v > max)
		return fail(c, n, key, "must be between %u and %u, got '%s'",
			    min, max,
			    show(buf, sizeof(buf),
				 (const char *)n->data.scalar.value));
	*out = (unsigned)v;
	return 0;
}

/*
 * A name: non-empty, shorter than @cap, and made of characters that are
 * safe in SimGrid host names, CSV cells and file names.
 */
static int read_name(const struct ctx *c, const yaml_node_t *n,
		     const char *key, char *dst, size_t cap, bool strict)
{
	char buf[SHOW_MAX + 8];
	const char *s;
	size_t i, len;
	int err;

	err = scalar(c, n, key, &s);
	if (err)
		return err;
	len = strlen(s);
	if (!len)
		return fail(c, n, key, "must not be empty");
	if (len >= cap)
		return fail(c, n, key, "name too long (at most %zu characters), got '%s'",
			    cap - 1, show(buf, sizeof(buf), s));
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		bool ok = strict ? (ch >= 'a' && ch <= 'z') ||
					   (ch >= 'A' && ch <= 'Z') ||
					   (ch >= '0' && ch <= '9') ||
					   ch == '_' || ch == '-' || ch == '.' :
				   ch >= 0x20 && ch < 0x7f;

		if (!ok)
			return fail(c, n, key, strict ?
				    "use letters, digits, '_', '-' or '.', got '%s'" :
				    "use printable ASCII, got '%s'",
				    show(buf, sizeof(buf), s));
	}
	memcpy(dst, s, len + 1);
	return 0;
}

/* Read a device name into @dst and remember it for the duplicate check. */
static int read_unique_name(struct ctx *c, const yaml_node_t *n, char *dst)
{
	unsigned i;
	int err;

	err = read_name(c, n, "name", dst, TOPO_NAME_MAX, true);
	if (err)
		return err;
	for (i = 0; i < c->nnames; i++)
		if (strcmp(c->names[i].name, dst) == 0)
			return fail(c, n, "name",
				    "duplicate name '%s' (first on line %u)",
				    dst,
				    (unsigned)c->names[i].node->start_mark.line + 1);
	if (c->nnames >= TOPO_NAMES_MAX)
		return fail(c, n, "name", "too many names");
	c->names[c->nnames].name = dst;
	c->names[c->nnames].node = n;
	c->nnames++;
	return 0;
}

/*
 * The items of list @n, which must hold @min..@max entries; each entry's
 * node is handed to @item with its index.
 */
static int read_list(struct ctx *c, yaml_node_t *n, const char *key,
		     unsigned min, unsigned max,
		     int (*item)(struct ctx *c, yaml_node_t *n, unsigned i))
{
	yaml_node_item_t *it;
	unsigned i = 0;
	int err;

	err = expect_type(c, n, key, YAML_SEQUENCE_NODE);
	if (err)
		return err;
	for (it = n->data.sequence.items.start;
	     it < n->data.sequence.items.top; it++, i++) {
		yaml_node_t *e = node(c, *it);

		if (!e)
			return fail(c, n, key, "malformed list");
		if (i >= max)
			return fail(c, e, key, "too many entries (at most %u)",
				    max);
		err = item(c, e, i);
		if (err)
			return err;
	}
	if (i < min)
		return fail(c, n, key, "needs at least %u %s", min,
			    min == 1 ? "entry" : "entries");
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
	L_NKEYS,
};

static const struct key_spec link_keys[L_NKEYS] = {
	[L_GEN] = { "gen", false },
	[L_WIDTH] = { "width", false },
	[L_EFFICIENCY] = { "efficiency", false },
	[L_BANDWIDTH] = { "bandwidth", false },
	[L_UP] = { "bandwidth_up", false },
	[L_DOWN] = { "bandwidth_down", false },
	[L_LATENCY] = { "latency", true },
};

/* Refuse any of keys @from..@to of @f: they do not go with @with. */
static int refuse_keys(const struct ctx *c, const struct found *f, int from,
		       int to, const char *with)
{
	int i;

	for (i = from; i <= to; i++)
		if (f[i].key)
			return fail(c, f[i].key, link_keys[i].key,
				    "cannot be combined with %s", with);
	return 0;
}

static int read_pcie_link(const struct ctx *c, yaml_node_t *n,
			  const struct found *f, struct topo_link *l)
{
	unsigned gen, width;
	double lane, eff = LINK_EFFICIENCY_DEFAULT;
	char buf[SHOW_MAX + 8];
	int err;

	if (!f[L_GEN].val)
		return fail(c, n, "gen", "missing required key (a link with width needs gen)");
	if (!f[L_WIDTH].val)
		return fail(c, n, "width", "missing required key (a link with gen needs width)");
	err = refuse_keys(c, f, L_BANDWIDTH, L_DOWN, "gen and width");
	if (err)
		return err;
	err = read_uint(c, f[L_GEN].val, "gen", 1, 6, &gen);
	if (err)
		return err;
	err = read_uint(c, f[L_WIDTH].val, "width", 1, 32, &width);
	if (err)
		return err;
	if (width & (width - 1))
		return fail(c, f[L_WIDTH].val, "width",
			    "must be 1, 2, 4, 8, 16 or 32, got '%s'",
			    show(buf, sizeof(buf),
				 (const char *)f[L_WIDTH].val->data.scalar.value));
	if (f[L_EFFICIENCY].val) {
		err = read_unit(c, f[L_EFFICIENCY].val, "efficiency",
				units_parse_fraction, &eff);
		if (err)
			return err;
	}
	units_pcie_lane_rate(gen, &lane);
	l->bw_up = lane * width * eff;
	l->bw_down = l->bw_up;
	return 0;
}

/*
 * A link: {gen, width[, efficiency]}, {bandwidth} or {bandwidth_up,
 * bandwidth_down}, always with a latency.
 */
static int read_link(const struct ctx *c, yaml_node_t *n, const char *key,
		     struct topo_link *l)
{
	struct found f[L_NKEYS];
	int err;

	err = map_read(c, n, key, link_keys, L_NKEYS, f);
	if (err)
		return err;
	/* A measured bandwidth already includes whatever efficiency is lost. */
	if (f[L_EFFICIENCY].key && !f[L_GEN].val && !f[L_WIDTH].val)
		return fail(c, f[L_EFFICIENCY].key, "efficiency",
			    "only goes with gen and width");
	if (f[L_GEN].val || f[L_WIDTH].val) {
		err = read_pcie_link(c, n, f, l);
	} else if (f[L_BANDWIDTH].val) {
		err = refuse_keys(c, f, L_UP, L_DOWN, "bandwidth");
		if (!err)
			err = read_unit(c, f[L_BANDWIDTH].val, "bandwidth",
					units_parse_bandwidth, &l->bw_up);
		l->bw_down = l->bw_up;
	} else if (f[L_UP].val || f[L_DOWN].val) {
		if (!f[L_UP].val)
			return fail(c, n, "bandwidth_up", "missing required key (bandwidth_down needs it)");
		if (!f[L_DOWN].val)
			return fail(c, n, "bandwidth_down", "missing required key (bandwidth_up needs it)");
		err = read_unit(c, f[L_UP].val, "bandwidth_up",
				units_parse_bandwidth, &l->bw_up);
		if (!err)
			err = read_unit(c, f[L_DOWN].val, "bandwidth_down",
					units_parse_bandwidth, &l->bw_down);
	} else {
		return fail(c, n, key,
			    "needs gen and width, or bandwidth, or bandwidth_up and bandwidth_down");
	}
	if (err)
		return err;
	return read_unit(c, f[L_LATENCY].val, "latency", units_parse_time,
			 &l->latency);
}

enum { S_NAME, S_MEM, S_P2P_READ, S_P2P_WRITE, S_NKEYS };

static const struct key_spec socket_keys[S_NKEYS] = {
	[S_NAME] = { "name", true },
	[S_MEM] = { "memory_bandwidth", true },
	[S_P2P_READ] = { "p2p_read", false },
	[S_P2P_WRITE] = { "p2p_write", false },
};

static int read_socket(struct ctx *c, yaml_node_t *n, unsigned i)
{
	struct topo_socket *s = &c->t->sockets[i];
	struct found f[S_NKEYS];
	int err;

	err = map_read(c, n, "sockets", socket_keys, S_NKEYS, f);
	if (!err)
		err = read_unique_name(c, f[S_NAME].val, s->name);
	if (!err)
		err = read_unit(c, f[S_MEM].val, "memory_bandwidth",
				units_parse_bandwidth, &s->mem_bw);
	/* Absent caps mean only the links limit peer-to-peer traffic. */
	s->p2p_read_bw = INFINITY;
	s->p2p_write_bw = INFINITY;
	if (!err && f[S_P2P_READ].val)
		err = read_unit(c, f[S_P2P_READ].val, "p2p_read",
				units_parse_bandwidth, &s->p2p_read_bw);
	if (!err && f[S_P2P_WRITE].val)
		err = read_unit(c, f[S_P2P_WRITE].val, "p2p_write",
				units_parse_bandwidth, &s->p2p_write_bw);
	if (!err)
		c->t->nsockets = i + 1;
	return err;
}

/* Keys of switches, GPUs and NICs; the first three are common to all. */
enum { D_NAME, D_PARENT, D_LINK, D_RATE, D_EFFICIENCY, D_LATENCY, D_NKEYS };

static const struct key_spec device_keys[D_NKEYS] = {
	[D_NAME] = { "name", true },
	[D_PARENT] = { "parent", true },
	[D_LINK] = { "link", true },
	[D_RATE] = { "rate", true },
	[D_EFFICIENCY] = { "efficiency", false },
	[D_LATENCY] = { "latency", true },
};

/*
 * Resolve @n, a parent name, to a socket or a switch. For a switch parent
 * *socket is that switch's socket, which is only right once
 * resolve_switches() has run: switches fix theirs up there.
 */
static int resolve_parent(const struct ctx *c, const yaml_node_t *n,
			  int *socket, int *parent_switch)
{
	char buf[SHOW_MAX + 8];
	const char *s;
	int i, err;

	err = scalar(c, n, "parent", &s);
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
	return fail(c, n, "parent", "unknown socket or switch '%s'",
		    show(buf, sizeof(buf), s));
}

static int read_switch(struct ctx *c, yaml_node_t *n, unsigned i)
{
	struct topo_switch *sw = &c->t->switches[i];
	struct found f[D_NKEYS];
	int err;

	err = map_read(c, n, "switches", device_keys, D_LINK + 1, f);
	if (!err)
		err = read_unique_name(c, f[D_NAME].val, sw->name);
	if (!err)
		err = read_link(c, f[D_LINK].val, "link", &sw->uplink);
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
	return fail(c, c->switch_parent[first], "parent",
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
		t->switches[i].socket = t->switches[j].socket;
	}
	return 0;
}

/* The keys a GPU and a NIC share; @f receives all @nkeys found. */
static int read_device(struct ctx *c, yaml_node_t *n, const char *list,
		       size_t nkeys, struct topo_device *dev, struct found *f)
{
	int err;

	err = map_read(c, n, list, device_keys, nkeys, f);
	if (!err)
		err = read_unique_name(c, f[D_NAME].val, dev->name);
	if (!err)
		err = resolve_parent(c, f[D_PARENT].val, &dev->socket,
				     &dev->parent_switch);
	if (!err)
		err = read_link(c, f[D_LINK].val, "link", &dev->link);
	return err;
}

static int read_gpu(struct ctx *c, yaml_node_t *n, unsigned i)
{
	struct found f[D_NKEYS];
	int err;

	err = read_device(c, n, "gpus", D_LINK + 1, &c->t->gpus[i], f);
	if (!err)
		c->t->ngpus = i + 1;
	return err;
}

static int read_nic(struct ctx *c, yaml_node_t *n, unsigned i)
{
	struct topo_nic *nic = &c->t->nics[i];
	struct found f[D_NKEYS];
	int err;

	err = read_device(c, n, "nics", D_NKEYS, &nic->dev, f);
	if (!err)
		err = read_unit(c, f[D_RATE].val, "rate",
				units_parse_bandwidth, &nic->line_rate);
	/* Without a measured efficiency, the NIC runs at its line rate. */
	nic->efficiency = 1.0;
	if (!err && f[D_EFFICIENCY].val)
		err = read_unit(c, f[D_EFFICIENCY].val, "efficiency",
				units_parse_fraction, &nic->efficiency);
	if (!err)
		err = read_unit(c, f[D_LATENCY].val, "latency",
				units_parse_time, &nic->latency);
	if (!err)
		c->t->nnics = i + 1;
	return err;
}

enum { G_KIND, G_BANDWIDTH, G_LATENCY, G_NKEYS };

static const struct key_spec gpu_fabric_keys[G_NKEYS] = {
	[G_KIND] = { "kind", true },
	[G_BANDWIDTH] = { "bandwidth", false },
	[G_LATENCY] = { "latency", false },
};

static int read_gpu_fabric(const struct ctx *c, yaml_node_t *n)
{
	struct topo_gpu_fabric *g = &c->t->gpu_fabric;
	struct found f[G_NKEYS];
	char buf[SHOW_MAX + 8];
	const char *kind;
	int err, i;

	err = map_read(c, n, "gpu_fabric", gpu_fabric_keys, G_NKEYS, f);
	if (!err)
		err = scalar(c, f[G_KIND].val, "kind", &kind);
	if (err)
		return err;
	if (strcmp(kind, "pcie") == 0) {
		g->kind = TOPO_GPU_FABRIC_PCIE;
		for (i = G_BANDWIDTH; i <= G_LATENCY; i++)
			if (f[i].key)
				return fail(c, f[i].key, gpu_fabric_keys[i].key,
					    "only allowed with kind: nvlink");
		return 0;
	}
	if (strcmp(kind, "nvlink") != 0)
		return fail(c, f[G_KIND].val, "kind",
			    "expected 'nvlink' or 'pcie', got '%s'",
			    show(buf, sizeof(buf), kind));
	g->kind = TOPO_GPU_FABRIC_NVLINK;
	for (i = G_BANDWIDTH; i <= G_LATENCY; i++)
		if (!f[i].val)
			return fail(c, n, gpu_fabric_keys[i].key,
				    "missing required key (kind: nvlink needs it)");
	err = read_unit(c, f[G_BANDWIDTH].val, "bandwidth",
			units_parse_bandwidth, &g->bw);
	if (!err)
		err = read_unit(c, f[G_LATENCY].val, "latency",
				units_parse_time, &g->latency);
	return err;
}

enum { F_SWITCH_LATENCY, F_HOPS, F_OVERSUB, F_NKEYS };

static const struct key_spec fabric_keys[F_NKEYS] = {
	[F_SWITCH_LATENCY] = { "switch_latency", true },
	[F_HOPS] = { "hops", false },
	[F_OVERSUB] = { "oversubscription", false },
};

static int read_fabric(const struct ctx *c, yaml_node_t *n)
{
	struct topo_fabric *fab = &c->t->fabric;
	struct found f[F_NKEYS];
	char buf[SHOW_MAX + 8];
	int err;

	err = map_read(c, n, "fabric", fabric_keys, F_NKEYS, f);
	if (!err)
		err = read_unit(c, f[F_SWITCH_LATENCY].val, "switch_latency",
				units_parse_time, &fab->switch_latency);
	fab->hops = 1;
	/* 0 hops is two nodes cabled back to back. */
	if (!err && f[F_HOPS].val)
		err = read_uint(c, f[F_HOPS].val, "hops", 0, 64, &fab->hops);
	fab->oversubscription = 1;
	if (!err && f[F_OVERSUB].val) {
		err = read_decimal(c, f[F_OVERSUB].val, "oversubscription",
				   "a number like 1 or 2.5",
				   &fab->oversubscription);
		/* Below 1 would give a port more than its line rate. */
		if (!err && !(fab->oversubscription >= 1))
			err = fail(c, f[F_OVERSUB].val, "oversubscription",
				   "must be at least 1, got '%s'",
				   show(buf, sizeof(buf),
					(const char *)f[F_OVERSUB].val->data.scalar.value));
	}
	return err;
}

enum { T_CHUNK, T_BUFFERS, T_COPY_BW, T_OVERHEAD, T_NKEYS };

static const struct key_spec staging_keys[T_NKEYS] = {
	[T_CHUNK] = { "chunk", true },
	[T_BUFFERS] = { "buffers", true },
	[T_COPY_BW] = { "copy_bandwidth", true },
	[T_OVERHEAD] = { "chunk_overhead", true },
};

static int read_staging(const struct ctx *c, yaml_node_t *n)
{
	struct topo_staging *s = &c->t->staging;
	struct found f[T_NKEYS];
	int err;

	err = map_read(c, n, "staging", staging_keys, T_NKEYS, f);
	if (!err)
		err = read_size(c, f[T_CHUNK].val, "chunk", &s->chunk_bytes);
	if (!err)
		err = read_uint(c, f[T_BUFFERS].val, "buffers", 1, 64,
				&s->buffers);
	if (!err)
		err = read_unit(c, f[T_COPY_BW].val, "copy_bandwidth",
				units_parse_bandwidth, &s->copy_bw);
	if (!err)
		err = read_unit(c, f[T_OVERHEAD].val, "chunk_overhead",
				units_parse_time, &s->chunk_overhead);
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
	K_NKEYS,
};

static const struct key_spec top_keys[K_NKEYS] = {
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
};

/* The sections in dependency order: parents before their children. */
static int read_top(struct ctx *c, yaml_node_t *root)
{
	struct topology *t = c->t;
	struct found f[K_NKEYS];
	int err;

	err = map_read(c, root, "topology", top_keys, K_NKEYS, f);
	if (!err)
		err = read_name(c, f[K_NAME].val, "name", t->name,
				sizeof(t->name), false);
	t->nodes = 1;
	if (!err && f[K_NODES].val)
		err = read_uint(c, f[K_NODES].val, "nodes", 1, TOPO_MAX_NODES,
				&t->nodes);
	if (!err)
		err = read_list(c, f[K_SOCKETS].val, "sockets", 1,
				TOPO_MAX_SOCKETS, read_socket);
	if (!err && !f[K_INTER_SOCKET].val && t->nsockets > 1)
		err = fail(c, root, "inter_socket",
			   "missing required key (needed with %u sockets)",
			   t->nsockets);
	if (!err && f[K_INTER_SOCKET].val)
		err = read_link(c, f[K_INTER_SOCKET].val, "inter_socket",
				&t->inter_socket);
	if (!err && f[K_SWITCHES].val)
		err = read_list(c, f[K_SWITCHES].val, "switches", 0,
				TOPO_MAX_SWITCHES, read_switch);
	if (!err)
		err = resolve_switches(c);
	if (!err)
		err = read_list(c, f[K_GPUS].val, "gpus", 1, TOPO_MAX_GPUS,
				read_gpu);
	if (!err)
		err = read_list(c, f[K_NICS].val, "nics", 1, TOPO_MAX_NICS,
				read_nic);
	t->gpu_fabric.kind = TOPO_GPU_FABRIC_PCIE;
	if (!err && f[K_GPU_FABRIC].val)
		err = read_gpu_fabric(c, f[K_GPU_FABRIC].val);
	if (!err)
		err = read_fabric(c, f[K_FABRIC].val);
	if (!err)
		err = read_staging(c, f[K_STAGING].val);
	return err;
}

/* Line and column (1-based) of byte @off of @buf, for reader errors. */
static void locate(const char *buf, size_t len, size_t off, unsigned *line,
		   unsigned *col)
{
	size_t i, bol = 0;

	*line = 1;
	if (off > len)
		off = len;
	for (i = 0; i < off; i++) {
		if (buf[i] == '\n') {
			(*line)++;
			bol = i + 1;
		}
	}
	*col = (unsigned)(off - bol) + 1;
}

static int syntax_error(const yaml_parser_t *p, const char *buf, size_t len,
			const char *name, struct diag *d)
{
	unsigned line, col;

	if (p->error == YAML_MEMORY_ERROR)
		return diag_set(d, -ENOMEM, "%s: out of memory", name);
	if (p->error == YAML_READER_ERROR) {
		locate(buf, len, p->problem_offset, &line, &col);
		return diag_at(d, -EINVAL, name, line, col, "syntax error",
			       "%s", p->problem ? p->problem : "unreadable");
	}
	if (p->context)
		return diag_at(d, -EINVAL, name,
			       (unsigned)p->problem_mark.line + 1,
			       (unsigned)p->problem_mark.column + 1,
			       "syntax error", "%s (%s on line %u)",
			       p->problem ? p->problem : "invalid YAML",
			       p->context, (unsigned)p->context_mark.line + 1);
	return diag_at(d, -EINVAL, name, (unsigned)p->problem_mark.line + 1,
		       (unsigned)p->problem_mark.column + 1, "syntax error",
		       "%s", p->problem ? p->problem : "invalid YAML");
}

int topology_load_buffer(const char *buf, size_t len, const char *name,
			 struct topology *topo, struct diag *d)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	struct ctx *c;
	int err;

	memset(topo, 0, sizeof(*topo));
	if (!name)
		name = "<buffer>";
	if (!buf)
		len = 0;
	/* The context is a few kilobytes: keep it off small stacks. */
	c = calloc(1, sizeof(*c));
	if (!c)
		return diag_set(d, -ENOMEM, "%s: out of memory", name);
	if (!yaml_parser_initialize(&parser)) {
		err = diag_set(d, -ENOMEM, "%s: out of memory", name);
		goto out_free_ctx;
	}
	yaml_parser_set_input_string(&parser,
				     (const unsigned char *)(buf ? buf : ""),
				     len);
	if (!yaml_parser_load(&parser, &doc)) {
		/* yaml_parser_load() has already freed the document. */
		err = syntax_error(&parser, buf, len, name, d);
		goto out_delete_parser;
	}
	c->file = name;
	c->doc = &doc;
	c->t = topo;
	c->d = d;
	root = yaml_document_get_root_node(&doc);
	if (!root)
		err = diag_at(d, -EINVAL, name, 1, 1, "topology",
			      "empty file, expected a mapping with name, sockets, gpus, nics, fabric and staging");
	else
		err = read_top(c, root);
	if (!err)
		snprintf(topo->file, sizeof(topo->file), "%s", name);
	yaml_document_delete(&doc);
out_delete_parser:
	yaml_parser_delete(&parser);
out_free_ctx:
	free(c);
	if (err)
		memset(topo, 0, sizeof(*topo));
	return err;
}

/* Read all of @path into a NUL-terminated heap buffer. */
static int read_file(const char *path, char **out, size_t *len,
		     struct diag *d)
{
	char *buf;
	size_t n;
	FILE *f;
	int err;

	f = fopen(path, "rb");
	if (!f)
		return diag_set(d, -errno, "%s: cannot read: %s", path,
				strerror(errno));
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
	err = topology_load_buffer(buf, len, path, topo, d);
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
