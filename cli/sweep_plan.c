/* SPDX-License-Identifier: MIT */
/*
 * Sweep plans: a base point and axes whose cartesian product is the set of
 * points (docs/sweep-format.md, "Plans"). YAML, read as the topology is,
 * every complaint at its file, line and column:
 *
 *   base:
 *     topology: ../configs/h100-pcie5-400g.yaml
 *     trace: ../traces/llama2-7b-ddp.jsonl
 *   axes:
 *     nodes: 8..1024 x2
 *     path: [direct, staged]
 *     nics.rate: { values: [100, 200, 400, 800], unit: Gbit/s }
 *
 * An axis is a key of a point (nodes, path, backend, gdr_level, nccl,
 * algo, proto, topology, trace) or a dotted path into the topology file
 * whose values replace the file's (yaml_doc_override): each value is
 * checked against the base topology before anything runs, so a path the
 * topology lacks or a value it refuses is the plan's error, at the value.
 * The points go in nested order: the first axis slowest, the last fastest.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "cmd_gen.h"
#include "input_file.h"
#include "units.h"
#include "nccl_tuning.h"
#include "sweep.h"
#include "topology.h"
#include "tuner.h"
#include "yaml_doc.h"

#define PLAN_FILE_MAX (1 << 20)

struct plan_reader {
	struct yaml_doc y;
	const char *file;
	char dir[1024];
	struct point base;
	/* per axis and value: the base with that value set */
	struct sweep_axis *axis[SWEEP_MAX_AXES];
	yaml_node_t *axis_node[SWEEP_MAX_AXES]; /* each axis's values */
	struct point *variant[SWEEP_MAX_AXES];
	yaml_node_t *no_topology; /* base, where it names no topology: an
				   * axis of topologies must then */
	struct diag *d;
};

/* @out = the plan's folder / @name unless @name is absolute; where no
 * such file is there, a shipped one of that name (a topology's or a
 * trace's, by @key), as a sweep file's points and -t and -T take them. */
static int plan_path(const struct plan_reader *r, const yaml_node_t *n, const char *key,
		     const char *name, char *out, size_t len)
{
	int k = name[0] == '/' ? snprintf(out, len, "%s", name) :
				 snprintf(out, len, "%s/%s", r->dir, name);
	enum cli_shipped kind = strcmp(key, "trace") ? CLI_SHIPPED_TOPOLOGY : CLI_SHIPPED_TRACE;
	char shown[512], shipped[4096];
	FILE *f;

	if (k < 0 || (size_t)k >= len)
		return yaml_doc_fail(&r->y, n, key, "file name too long");
	if (access(out, F_OK) && cli_shipped_lookup(name, kind, shipped, sizeof(shipped)) > 0 &&
	    strlen(shipped) < len)
		strcpy(out, shipped);
	f = fopen(out, "r");
	if (!f)
		return yaml_doc_fail(&r->y, n, key, "cannot read %s: %s",
				     diag_printable(out, shown, sizeof(shown)), strerror(errno));
	fclose(f);
	return 0;
}

/* A shipped topology by name ("h100-pcie5-400g"): configs/NAME.yaml in
 * the data folder; a name of letters, digits, '-', '_' and '.', no path. */
static int preset_path(const struct plan_reader *r, const yaml_node_t *n, const char *name,
		       char *out, size_t len)
{
	char shown[128];
	int k;

	if (!name[0] || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") !=
				strlen(name) || name[0] == '.')
		return yaml_doc_fail(&r->y, n, "preset", "'%s': expected the name of a shipped topology "
				     "(configs/, e.g. h100-pcie5-400g)", diag_printable(name, shown, sizeof(shown)));
	/* where -t finds one: configs/ and configs/validation/ */
	k = cli_shipped_lookup(name, CLI_SHIPPED_TOPOLOGY, out, len);
	if (k <= 0 || access(out, R_OK))
		return yaml_doc_fail(&r->y, n, "preset", "'%s': no such shipped topology (%s/configs/*.yaml, configs/validation/*.yaml)",
				     name, cli_data_dir());
	return 0;
}

/* (declared in sweep.h: the point files' reader, cmd_sweep.c, takes it
 * too; here, so that the plan reader's fuzz target has it) */
int sweep_point_nccl(struct point *pt, const char *version)
{
	unsigned minor, patch;
	const struct nccl_release *r = nccl_release_for_version(version, &minor, &patch);

	if (!r)
		return -1;
	plan_options_set_nccl_release(&pt->opts, r, minor, patch);
	pt->opts.nccl_set = true;
	return 0;
}

int sweep_point_gdr_level(struct point *pt, const char *s, char *why, size_t len)
{
	int err = topo_gdr_level_parse(s, &pt->opts.gdr_level);

	if (err == -ERANGE)
		snprintf(why, len, "NCCL reads 0 as LOC, GPUDirect RDMA to no NIC; for that take path staged");
	else if (err)
		snprintf(why, len, "expected " TOPO_GDR_LEVEL_FORMS);
	if (err)
		return -1;
	pt->opts.gdr_level_set = true;
	return 0;
}

/* Set @key of @pt to the text @s (at node @n for complaints). */
static int set_key(struct plan_reader *r, struct point *pt, const char *key, const char *s,
		   const yaml_node_t *n)
{
	char why[DIAG_MSG_MAX] = "";
	struct diag d = { "" };
	struct tune_enable en;
	char *end;
	unsigned long v;

	if (!strcmp(key, "topology"))
		return plan_path(r, n, key, s, pt->topology, sizeof(pt->topology));
	if (!strcmp(key, "preset"))
		return preset_path(r, n, s, pt->topology, sizeof(pt->topology));
	if (!strcmp(key, "trace"))
		return plan_path(r, n, key, s, pt->trace, sizeof(pt->trace));
	if (!strcmp(key, "nodes")) {
		errno = 0;
		v = strtoul(s, &end, 10);
		if (*s < '1' || *s > '9' || *end || errno || v > TOPO_MAX_NODES)
			return yaml_doc_fail_got(&r->y, n, key, "expected a whole number from 1 to %d",
						 TOPO_MAX_NODES);
		pt->opts.nodes = (unsigned)v;
		return 0;
	}
	if (!strcmp(key, "path"))
		return plan_path_parse(s, &pt->opts.path) ?
			       yaml_doc_fail_got(&r->y, n, key,
						 "expected direct, staged, staged-memcpy or auto") : 0;
	if (!strcmp(key, "gdr_level"))
		return sweep_point_gdr_level(pt, s, why, sizeof(why)) ?
			       yaml_doc_fail_got(&r->y, n, key, "%s", why) : 0;
	if (!strcmp(key, "nccl"))
		return sweep_point_nccl(pt, s) ?
			       yaml_doc_fail_got(&r->y, n, key, "expected an NCCL 2 version from 2.7 on (2.18.5, 2.18); this build has the tables of %s",
						 nccl_release_list()) : 0;
	if (!strcmp(key, "backend")) {
		if (!backend_lookup(s, why, sizeof(why))) {
			char shown[DIAG_MSG_MAX];

			/* @why quotes the name as given */
			return yaml_doc_fail(&r->y, n, key, "%s", diag_printable(why, shown, sizeof(shown)));
		}
		snprintf(pt->backend, sizeof(pt->backend), "%s", s);
		return 0;
	}
	if (!strcmp(key, "algo") || !strcmp(key, "proto")) {
		bool algo = key[0] == 'a';

		tune_enable_default(&en);
		if (tune_enable_parse(&en, algo ? s : NULL, algo ? NULL : s, &d))
			return yaml_doc_fail(&r->y, n, key, "%s", d.msg);
		snprintf(algo ? pt->algo : pt->proto, sizeof(pt->algo), "%s", s);
		return 0;
	}
	return yaml_doc_fail(&r->y, n, key,
			     "unknown key (topology, preset, trace, nodes, path, backend, gdr_level, nccl, algo, proto)");
}

static const char *const point_keys[] = {
	"topology", "trace", "nodes", "path", "backend", "gdr_level", "nccl", "algo", "proto", "preset",
};

/* base's gen: { model: llama3-8b, tp: 8, ... }: gen llm's options, each
 * checked where it is written, the whole (the model) at the mapping. */
static int read_gen(struct plan_reader *r, yaml_node_t *n, struct point *pt)
{
	struct gen_llm_args args;
	struct diag d = { "" };
	char shown[SWEEP_VALUE_MAX * 4];

	if (n->type != YAML_MAPPING_NODE)
		return yaml_doc_fail(&r->y, n, "gen", "expected a mapping of gen llm's options "
				     "(model: llama3-8b, tp: 8, ...; 'gdrlab gen llm --help')");
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(&r->y.doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&r->y.doc, p->value);
		const char *key, *value;
		int err = yaml_doc_scalar(&r->y, k, "gen", &key);

		if (!err)
			err = yaml_doc_scalar(&r->y, v, key, &value);
		if (err)
			return err;
		/* gen llm's options are words: anything else is none of them */
		if (!key[0] || strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(key))
			return yaml_doc_fail(&r->y, k, "gen", "'%s': not an option of gen llm (see 'gdrlab gen llm --help')",
					     diag_printable(key, shown, sizeof(shown)));
		if (strlen(value) >= SWEEP_VALUE_MAX || sweep_gen_check(key, value, &d))
			return yaml_doc_fail(&r->y, v, key, "'%s': %s", diag_printable(value, shown, sizeof(shown)),
					     d.msg[0] ? d.msg : "too long");
		if (sweep_gen_put(pt->gen, sizeof(pt->gen), key, value))
			return yaml_doc_fail(&r->y, k, key, "more gen options than a point holds");
	}
	if (sweep_gen_args(pt->gen, &args, &d))
		return yaml_doc_fail(&r->y, n, "gen", "%s", d.msg);
	return 0;
}

static int read_base(struct plan_reader *r, yaml_node_t *n)
{
	enum { NKEYS = sizeof(point_keys) / sizeof(point_keys[0]), GEN = NKEYS };
	struct yaml_doc_key spec[NKEYS + 1];
	struct yaml_doc_found f[NKEYS + 1];
	int err;

	/* the node as a topology file or a preset; the trace as a file or
	 * what a generator makes */
	for (size_t i = 0; i < NKEYS; i++)
		spec[i] = (struct yaml_doc_key){ point_keys[i], false };
	spec[GEN] = (struct yaml_doc_key){ "gen", false };
	err = yaml_doc_read_map(&r->y, n, "base", spec, NKEYS + 1, f);
	if (!err && f[0].val && f[NKEYS - 1].val)
		return yaml_doc_fail(&r->y, f[NKEYS - 1].key, "base",
				     "needs a topology file or a preset, one of them");
	if (!err && !f[0].val && !f[NKEYS - 1].val)
		r->no_topology = n; /* unless an axis gives them (check_topology) */
	if (!err && !f[1].val == !f[GEN].val)
		return yaml_doc_fail(&r->y, f[1].val ? f[GEN].key : n, "base",
				     "needs a trace file or a generator (gen: { model: ... }), one of them");
	for (size_t i = 0; i < NKEYS && !err; i++) {
		const char *s;

		if (!f[i].val)
			continue;
		err = yaml_doc_scalar(&r->y, f[i].val, point_keys[i], &s);
		if (!err)
			err = set_key(r, &r->base, point_keys[i], s, f[i].val);
	}
	if (!err && f[GEN].val)
		err = read_gen(r, f[GEN].val, &r->base);
	return err;
}

/* "8..1024 x2" (times) or "8..64 +8" (plus): whole numbers. */
static int expand_range(struct plan_reader *r, struct sweep_axis *a, const yaml_node_t *n,
			const char *s)
{
	unsigned long lo, hi, step;
	char op = 0, tail;

	if (sscanf(s, "%lu..%lu %c%lu%c", &lo, &hi, &op, &step, &tail) != 4 ||
	    (op != 'x' && op != '+') || lo < 1 || hi < lo || hi > UINT_MAX ||
	    (op == 'x' && step < 2) || (op == '+' && step < 1))
		return yaml_doc_fail_got(&r->y, n, a->name,
					 "expected a list, or a range 'FIRST..LAST xFACTOR' or 'FIRST..LAST +STEP' of whole numbers");
	a->values = malloc(SWEEP_AXIS_VALUES * sizeof(*a->values));
	if (!a->values)
		return -ENOMEM;
	for (unsigned long v = lo; v <= hi; v = op == 'x' ? v * step : v + step) {
		if (a->nvalues == SWEEP_AXIS_VALUES)
			return yaml_doc_fail(&r->y, n, a->name, "more than %d values", SWEEP_AXIS_VALUES);
		snprintf(a->values[a->nvalues++], SWEEP_VALUE_MAX, "%lu", v);
		if (v > hi / (op == 'x' ? step : 1) && op == 'x')
			break;
	}
	return 0;
}

struct list_ctx {
	struct plan_reader *r;
	struct sweep_axis *a;
	const char *unit;
};

static int list_item(void *arg, yaml_node_t *n, unsigned i)
{
	struct list_ctx *c = arg;
	const char *s;
	int k, err = yaml_doc_scalar(&c->r->y, n, c->a->name, &s);

	(void)i;
	if (err)
		return err;
	k = snprintf(c->a->values[c->a->nvalues], SWEEP_VALUE_MAX, c->unit ? "%s %s" : "%s", s,
		     c->unit ? c->unit : "");
	if (k < 0 || k >= SWEEP_VALUE_MAX)
		return yaml_doc_fail(&c->r->y, n, c->a->name, "value longer than %d characters",
				     SWEEP_VALUE_MAX - 1);
	/* a value twice is the same points twice, rows a question's grid or
	 * series cannot tell apart: a slip, said at its line */
	for (unsigned j = 0; j < c->a->nvalues; j++)
		if (!strcmp(c->a->values[j], c->a->values[c->a->nvalues]))
			return yaml_doc_fail(&c->r->y, n, c->a->name,
					     "'%s' twice (it is the axis's value %u already)",
					     c->a->values[j], j + 1);
	c->a->nvalues++;
	return 0;
}

/* An axis's values: a list, a range, or { values: [...], unit: U }. */
static int read_values(struct plan_reader *r, struct sweep_axis *a, yaml_node_t *n)
{
	static const struct yaml_doc_key spec[] = { { "values", true }, { "unit", false } };
	struct list_ctx c = { r, a, NULL };
	struct yaml_doc_found f[2];
	const char *s;
	int err;

	if (n->type == YAML_SCALAR_NODE) {
		err = yaml_doc_scalar(&r->y, n, a->name, &s);
		return err ? err : expand_range(r, a, n, s);
	}
	if (n->type == YAML_MAPPING_NODE) {
		err = yaml_doc_read_map(&r->y, n, a->name, spec, 2, f);
		if (!err && f[1].val)
			err = yaml_doc_scalar(&r->y, f[1].val, "unit", &c.unit);
		if (err)
			return err;
		n = f[0].val;
	}
	a->values = malloc(SWEEP_AXIS_VALUES * sizeof(*a->values));
	if (!a->values)
		return -ENOMEM;
	return yaml_doc_read_list(&r->y, n, a->name, 1, SWEEP_AXIS_VALUES, list_item, &c);
}

/* The "values" list of an axis given as { values: [...], unit: U }. */
static yaml_node_t *values_of(struct plan_reader *r, yaml_node_t *n)
{
	if (n->type != YAML_MAPPING_NODE)
		return n;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(&r->y.doc, p->key);

		if (k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, "values"))
			return yaml_document_get_node(&r->y.doc, p->value);
	}
	return n;
}

/* The topology a topology path's values are tried on: the base's, or
 * where it names none, the first of the axis of topologies (into @pt). */
static int first_topology(struct plan_reader *r, const struct sweep *sw, struct point *pt)
{
	*pt = r->base;
	if (pt->topology[0])
		return 0;
	for (unsigned b = 0; b < sw->naxes; b++)
		if (!strcmp(sw->axes[b].name, "topology") || !strcmp(sw->axes[b].name, "preset"))
			return set_key(r, pt, sw->axes[b].name, sw->axes[b].values[0], r->axis_node[b]);
	return 0; /* check_topology says what is missing */
}

/* Each value of axis @a (the @k-th) as a point would take it: a bad one
 * is the plan's error, at the value's node. */
static int check_values(struct plan_reader *r, const struct sweep *sw, unsigned k, yaml_node_t *n)
{
	struct sweep_axis *a = NULL;
	yaml_node_t *list = values_of(r, n);
	yaml_node_item_t *it = list->type == YAML_SEQUENCE_NODE ? list->data.sequence.items.start : NULL;

	a = r->axis[k];
	r->variant[k] = calloc(a->nvalues, sizeof(*r->variant[k]));
	if (!r->variant[k])
		return -ENOMEM;
	for (unsigned i = 0; i < a->nvalues; i++) {
		/* a list's own items, or the axis's node for a range */
		yaml_node_t *at = it ? yaml_document_get_node(&r->y.doc, it[i]) : list;
		struct point *pt = &r->variant[k][i];
		int err;

		*pt = r->base;
		if (a->gen_option) {
			struct diag d = { "" };
			char shown[SWEEP_VALUE_MAX * 4];

			if (!r->base.gen[0])
				return yaml_doc_fail(&r->y, at, a->name, "the base has no gen to vary");
			if (sweep_gen_check(a->name + 4, a->values[i], &d) ||
			    sweep_gen_put(pt->gen, sizeof(pt->gen), a->name + 4, a->values[i]))
				return yaml_doc_fail(&r->y, at, a->name, "'%s': %s",
						     diag_printable(a->values[i], shown, sizeof(shown)),
						     d.msg[0] ? d.msg : "more gen options than a point holds");
			continue;
		}
		if (a->topology_path) {
			struct topo_override ov[SWEEP_MAX_AXES];
			struct topology t;
			struct diag d = { "" };
			struct point first;
			unsigned nov = 1;

			err = first_topology(r, sw, &first);
			if (err)
				return err;
			/* this value with the other topology axes' first ones:
			 * values meant together (fabric.attach: node with
			 * fabric.leaf.nodes: 0) are tried together */
			snprintf(ov[0].path, sizeof(ov[0].path), "%s", a->name);
			snprintf(ov[0].value, sizeof(ov[0].value), "%s", a->values[i]);
			for (unsigned b = 0; b < sw->naxes; b++)
				if (b != k && sw->axes[b].topology_path) {
					snprintf(ov[nov].path, sizeof(ov[nov].path), "%s", sw->axes[b].name);
					snprintf(ov[nov].value, sizeof(ov[nov].value), "%s", sw->axes[b].values[0]);
					nov++;
				}
			err = topology_load_with(first.topology, ov, nov, &t, &d);
			if (err) {
				char shown[SWEEP_VALUE_MAX * 4];

				return yaml_doc_fail(&r->y, at, a->name, "'%s': %s",
						     diag_printable(a->values[i], shown, sizeof(shown)), d.msg);
			}
			continue;
		}
		err = set_key(r, pt, a->name, a->values[i], at);
		if (err)
			return err;
	}
	return 0;
}

/* What axis @key set in @src, into @dst. */
static void copy_key(struct point *dst, const struct point *src, const char *key)
{
	char value[SWEEP_VALUE_MAX];

	if (!strncmp(key, "gen.", 4)) {
		/* checked to fit when the variant was made */
		if (sweep_gen_get(src->gen, key + 4, value, sizeof(value)))
			sweep_gen_put(dst->gen, sizeof(dst->gen), key + 4, value);
	} else if (!strcmp(key, "topology") || !strcmp(key, "preset"))
		memcpy(dst->topology, src->topology, sizeof(dst->topology));
	else if (!strcmp(key, "trace"))
		memcpy(dst->trace, src->trace, sizeof(dst->trace));
	else if (!strcmp(key, "nodes"))
		dst->opts.nodes = src->opts.nodes;
	else if (!strcmp(key, "path"))
		dst->opts.path = src->opts.path;
	else if (!strcmp(key, "gdr_level")) {
		dst->opts.gdr_level = src->opts.gdr_level;
		dst->opts.gdr_level_set = true;
	} else if (!strcmp(key, "nccl")) {
		/* the release's GDR level, unless a level was given */
		plan_options_set_nccl_release(&dst->opts, nccl_releases[src->opts.nccl],
					      src->opts.nccl_minor, src->opts.nccl_patch);
		dst->opts.nccl_set = true;
	} else if (!strcmp(key, "backend"))
		memcpy(dst->backend, src->backend, sizeof(dst->backend));
	else if (!strcmp(key, "algo"))
		memcpy(dst->algo, src->algo, sizeof(dst->algo));
	else if (!strcmp(key, "proto"))
		memcpy(dst->proto, src->proto, sizeof(dst->proto));
}

/* A base with no topology is whole only with an axis of them. */
static int check_topology(struct plan_reader *r, const struct sweep *sw)
{
	for (unsigned i = 0; i < sw->naxes; i++)
		if (!strcmp(sw->axes[i].name, "topology") || !strcmp(sw->axes[i].name, "preset"))
			return 0;
	if (!r->no_topology)
		return 0;
	return yaml_doc_fail(&r->y, r->no_topology, "base",
			     "needs a topology file or a preset, one of them, or an axis of them");
}

static int read_axes(struct plan_reader *r, yaml_node_t *n, struct sweep *sw)
{
	int err;

	if (!n || n->type != YAML_MAPPING_NODE || n->data.mapping.pairs.start == n->data.mapping.pairs.top)
		return yaml_doc_fail(&r->y, n ? n : yaml_doc_root(&r->y), "axes",
				     "expected a mapping of one to %d axes", SWEEP_MAX_AXES);
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(&r->y.doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&r->y.doc, p->value);
		struct sweep_axis *a;
		bool known = false;
		const char *name;
		err = yaml_doc_scalar(&r->y, k, "axes", &name);
		if (err)
			return err;
		if (sw->naxes == SWEEP_MAX_AXES)
			return yaml_doc_fail(&r->y, k, name, "more than %d axes", SWEEP_MAX_AXES);
		for (unsigned i = 0; i < sw->naxes; i++)
			if (!strcmp(sw->axes[i].name, name))
				return yaml_doc_fail(&r->y, k, name, "axis given twice");
		for (size_t i = 0; i < sizeof(point_keys) / sizeof(point_keys[0]); i++)
			known |= !strcmp(point_keys[i], name);
		known |= !strncmp(name, "gen.", 4) && name[4];
		if (!known && !strchr(name, '.'))
			return yaml_doc_fail(&r->y, k, name,
					     "not an axis: a key of a point (topology, preset, trace, nodes, path, backend, gdr_level, nccl, algo, proto), an option of the generator (gen.tp) or a dotted topology path (nics.rate)");
		a = &sw->axes[sw->naxes++];
		if (snprintf(a->name, sizeof(a->name), "%s", name) >= (int)sizeof(a->name))
			return yaml_doc_fail(&r->y, k, name, "axis name too long");
		a->topology_path = !known;
		a->gen_option = !strncmp(name, "gen.", 4);
		a->line = (unsigned)k->start_mark.line + 1;
		r->axis[sw->naxes - 1] = a;
		r->axis_node[sw->naxes - 1] = v;
		err = read_values(r, a, v);
		if (err)
			return err;
	}
	/* once all are read: a topology value is tried with the others' first */
	err = check_topology(r, sw);
	for (unsigned k = 0; k < sw->naxes && !err; k++)
		err = check_values(r, sw, k, r->axis_node[k]);
	return err;
}

static int axis_named(const struct plan_reader *r, const struct sweep *sw, const yaml_node_t *n,
		      const char *key, int *out)
{
	const char *s;
	int err = yaml_doc_scalar(&r->y, n, key, &s);

	if (err)
		return err;
	for (unsigned a = 0; a < sw->naxes; a++)
		if (!strcmp(sw->axes[a].name, s)) {
			*out = (int)a;
			return 0;
		}
	return yaml_doc_fail_got(&r->y, n, key, "expected one of the plan's axes");
}

/*
 * nic_speed's axis, where its values are all speeds, must run from the
 * slowest to the fastest: the answer is the first value at which the
 * communication hides, which in another order is not the slowest that
 * hides it (nics.rate [80, 20, 40, 60] Gbit/s answered 80 where 60 did).
 * Other values (node counts, files) are taken in the plan's order.
 */
static int nic_axis_ascending(const struct plan_reader *r, const yaml_node_t *n,
			      const struct sweep_axis *ax)
{
	double prev = 0, x;
	const char *why;

	for (unsigned v = 0; v < ax->nvalues; v++)
		if (units_parse_bandwidth(ax->values[v], &x, &why))
			return 0; /* not speeds: no order to hold it to */
	for (unsigned v = 0; v < ax->nvalues; v++, prev = x) {
		units_parse_bandwidth(ax->values[v], &x, &why);
		if (v && !(x > prev))
			return yaml_doc_fail(&r->y, n, "axis",
					     "%s's values must go from the slowest to the fastest, "
					     "the answer being the first that hides the communication: "
					     "'%s' after '%s'", ax->name, ax->values[v], ax->values[v - 1]);
	}
	return 0;
}

/*
 * scaling's axis must run from the fewest nodes (or replicas) to the
 * most: each efficiency is against the first value, and the verdict is
 * where it first falls below the threshold going up ([8, 4, 2] measured 2
 * and 4 against 8, 1.749 and 1.167, "never below", where 8 against 2 is
 * 0.571). Its values are whole numbers (set_key and gen llm checked each,
 * check_values). @what: "nodes" or "replicas".
 */
static int scaling_axis_ascending(const struct plan_reader *r, const yaml_node_t *n,
				  const struct sweep_axis *ax, const char *what)
{
	for (unsigned v = 1; v < ax->nvalues; v++)
		if (!(strtoul(ax->values[v], NULL, 10) > strtoul(ax->values[v - 1], NULL, 10)))
			return yaml_doc_fail(&r->y, n, "scaling",
					     "the %s axis must go from the fewest %s to the most, "
					     "the efficiency being against the first: '%s' after '%s'",
					     ax->name, what, ax->values[v], ax->values[v - 1]);
	return 0;
}

/*
 * Which axis scaling goes along (@key: the question's, for the errors).
 * A nodes axis, as for a trace file: the job fixed, the batch a GPU kept.
 * A generator's gen.dp axis: the job scaled out by replicas, each point
 * on the nodes its ranks fill, its tokens a second a GPU against the
 * first's (weak scaling: each replica keeps its batch).
 *
 * Refused: a generator with a nodes axis, whose points all run the one
 * job tp x cp x pp x dp ranks wide: too few nodes fail, more leave the
 * GPUs beyond its ranks idle (the same iteration, efficiency 1 or "not
 * its job scaled"): no node count scales it. And a gen.dp axis with the
 * base's nodes: every point on that many GPUs, a small job's idle ones
 * counted against it, which reads as poor scaling.
 */
static int scaling_axis(struct plan_reader *r, const yaml_node_t *key, struct sweep *sw)
{
	struct sweep_questions *q = &sw->questions;
	int an = sweep_axis_index(sw, "nodes"), ad = sweep_axis_index(sw, "gen.dp");

	if (an >= 0 && r->base.gen[0])
		return yaml_doc_fail(&r->y, key, "scaling",
				     "the generator's job is tp x cp x pp x dp ranks on every node "
				     "count, the GPUs beyond them idle: scale it by a gen.dp axis, "
				     "without a nodes axis");
	if (an >= 0) {
		q->scale_axis = an;
		return scaling_axis_ascending(r, key, &sw->axes[an], "nodes");
	}
	if (ad < 0)
		return yaml_doc_fail(&r->y, key, "scaling",
				     "needs a nodes axis, or a generator's gen.dp axis");
	if (r->base.opts.nodes)
		return yaml_doc_fail(&r->y, key, "scaling",
				     "over gen.dp each point runs on the nodes its ranks fill: "
				     "leave nodes out of the base (%u nodes leave a smaller job's "
				     "GPUs idle)", r->base.opts.nodes);
	q->scale_axis = ad;
	q->scale_dp = true;
	return scaling_axis_ascending(r, key, &sw->axes[ad], "replicas");
}

/* Whether axis @name has @value among its values. */
static bool axis_has(const struct sweep *sw, const char *name, const char *value)
{
	int a = sweep_axis_index(sw, name);

	return a >= 0 && sweep_value_index(&sw->axes[a], value) >= 0;
}

/*
 * questions:
 *   scaling: { threshold: 0.8 }          (needs a nodes axis, or a
 *                                          generator's gen.dp axis)
 *   gdr_speedup: { rows: AXIS, columns: AXIS }  (needs a path axis with
 *                                          direct and staged)
 */
/* cost: { gpu_hour: P, nic_hour: P, switch_port_hour: P,
 *         tokens_per_iteration: N | tokens_per_gpu: N } */
static int read_cost(struct plan_reader *r, yaml_node_t *n, struct sweep_questions *q)
{
	static const struct yaml_doc_key co[] = { { "gpu_hour", true }, { "nic_hour", false },
						  { "switch_port_hour", false },
						  { "tokens_per_iteration", false },
						  { "tokens_per_gpu", false } };
	static const char *const what[] = { "a price", "a price", "a price", "a number", "a number" };
	double *dst[] = { &q->gpu_hour, &q->nic_hour, &q->switch_port_hour, &q->tokens,
			  &q->tokens_per_gpu };
	struct yaml_doc_found g[5];
	int err = yaml_doc_read_map(&r->y, n, "cost", co, 5, g);

	for (size_t i = 0; i < 5 && !err; i++) {
		if (!g[i].val)
			continue;
		err = yaml_doc_read_decimal(&r->y, g[i].val, co[i].key, what[i], dst[i]);
		if (!err && *dst[i] < 0)
			err = yaml_doc_fail_got(&r->y, g[i].val, co[i].key, "expected %s, not negative",
						what[i]);
		/* a price may be 0 (NICs already paid for); tokens divide the
		 * cost, and 0 of them left the per-token column out unsaid */
		if (!err && i >= 3 && *dst[i] == 0)
			err = yaml_doc_fail_got(&r->y, g[i].val, co[i].key, "expected %s above 0",
						what[i]);
	}
	if (!err && g[3].val && g[4].val)
		err = yaml_doc_fail(&r->y, g[4].key, "tokens_per_gpu",
				    "give tokens_per_iteration or tokens_per_gpu, not both");
	/* a generated job's tokens are its own (sweep_run.c generate), and a
	 * number of the plan's stood in for them unsaid: tokens_per_gpu
	 * counted on every rank of a tensor- and pipeline-parallel job,
	 * whose tp x pp ranks share a batch */
	for (size_t i = 3; i < 5 && !err; i++)
		if (g[i].val && r->base.gen[0])
			err = yaml_doc_fail(&r->y, g[i].key, co[i].key,
					    "the plan's generator makes the job and counts its tokens "
					    "an iteration (dp x micro-batches x micro-batch size x "
					    "sequence): leave it out, or set them by gen's options");
	q->cost = !err;
	return err;
}

static int read_questions(struct plan_reader *r, yaml_node_t *n, struct sweep *sw)
{
	static const struct yaml_doc_key qs[] = { { "scaling", false }, { "gdr_speedup", false },
						  { "nic_speed", false }, { "breakdown", false },
						  { "cost", false } };
	static const struct yaml_doc_key sc[] = { { "threshold", true } };
	static const struct yaml_doc_key hm[] = { { "rows", true }, { "columns", true } };
	static const struct yaml_doc_key ns[] = { { "axis", true }, { "exposed_share", true } };
	struct yaml_doc_found f[5], g[2];
	struct sweep_questions *q = &sw->questions;
	int err = yaml_doc_read_map(&r->y, n, "questions", qs, 5, f);

	if (!err && f[0].val) {
		err = yaml_doc_read_map(&r->y, f[0].val, "scaling", sc, 1, g);
		if (!err)
			err = yaml_doc_read_decimal(&r->y, g[0].val, "threshold", "a number", &q->threshold);
		if (!err && !(q->threshold > 0 && q->threshold <= 1))
			err = yaml_doc_fail_got(&r->y, g[0].val, "threshold", "expected an efficiency in (0, 1]");
		if (!err)
			err = scaling_axis(r, f[0].key, sw);
		q->scaling = !err;
	}
	if (!err && f[1].val) {
		err = yaml_doc_read_map(&r->y, f[1].val, "gdr_speedup", hm, 2, g);
		if (!err)
			err = axis_named(r, sw, g[0].val, "rows", &q->rows);
		if (!err)
			err = axis_named(r, sw, g[1].val, "columns", &q->columns);
		if (!err && (q->rows == sweep_axis_index(sw, "path") ||
			     q->columns == sweep_axis_index(sw, "path")))
			err = yaml_doc_fail(&r->y, q->rows == sweep_axis_index(sw, "path") ? g[0].val :
					    g[1].val, q->rows == sweep_axis_index(sw, "path") ? "rows" : "columns",
					    "the heat map's axes cannot be the path: it compares the path's values");
		if (!err && q->rows == q->columns)
			err = yaml_doc_fail(&r->y, g[1].val, "columns", "must be another axis than rows");
		if (!err && (!axis_has(sw, "path", "direct") || !axis_has(sw, "path", "staged")))
			err = yaml_doc_fail(&r->y, f[1].key, "gdr_speedup",
					    "needs a path axis with direct and staged");
		q->speedup = !err;
	}
	if (!err && f[2].val) {
		err = yaml_doc_read_map(&r->y, f[2].val, "nic_speed", ns, 2, g);
		if (!err)
			err = axis_named(r, sw, g[0].val, "axis", &q->nic_axis);
		if (!err)
			err = nic_axis_ascending(r, g[0].val, &sw->axes[q->nic_axis]);
		if (!err)
			err = yaml_doc_read_decimal(&r->y, g[1].val, "exposed_share", "a number",
						    &q->exposed_share);
		if (!err && !(q->exposed_share >= 0 && q->exposed_share < 1))
			err = yaml_doc_fail_got(&r->y, g[1].val, "exposed_share",
						"expected a share of the iteration in [0, 1)");
		q->nic_speed = !err;
	}
	if (!err && f[3].val) {
		const char *s;

		err = yaml_doc_scalar(&r->y, f[3].val, "breakdown", &s);
		if (!err && strcmp(s, "true") && strcmp(s, "false"))
			err = yaml_doc_fail_got(&r->y, f[3].val, "breakdown", "expected true or false");
		q->breakdown = !err && !strcmp(s, "true");
	}
	if (!err && f[4].val)
		err = read_cost(r, f[4].val, q);
	return err;
}

/* The cartesian product, first axis slowest. */
static int make_points(struct plan_reader *r, struct sweep *sw, yaml_node_t *axes)
{
	size_t total = 1;

	for (unsigned a = 0; a < sw->naxes; a++) {
		if (total > SWEEP_MAX_POINTS / sw->axes[a].nvalues)
			return yaml_doc_fail(&r->y, axes, "axes", "more than %d points", SWEEP_MAX_POINTS);
		total *= sw->axes[a].nvalues;
	}
	sw->pts = calloc(total, sizeof(*sw->pts));
	sw->rows = calloc(total, sizeof(*sw->rows));
	if (!sw->pts || !sw->rows)
		return -ENOMEM;
	for (size_t i = 0; i < total; i++) {
		struct point *pt = &sw->pts[i];
		size_t rest = i;

		*pt = r->base;
		pt->line = sw->axes[0].line;
		for (unsigned a = sw->naxes; a-- > 0;) {
			struct sweep_axis *ax = &sw->axes[a];

			pt->axis_value[a] = (uint16_t)(rest % ax->nvalues);
			rest /= ax->nvalues;
		}
		/* in file order, so that nccl's GDR default yields to a level */
		for (unsigned a = 0; a < sw->naxes; a++)
			if (!sw->axes[a].topology_path)
				copy_key(pt, &r->variant[a][pt->axis_value[a]], sw->axes[a].name);
	}
	sw->n = total;
	return 0;
}

int sweep_plan_load(const char *file, struct sweep *sw, struct diag *d)
{
	static const struct yaml_doc_key top[] = { { "base", true }, { "axes", true },
						   { "questions", false }, { "title", false } };
	struct plan_reader *r = calloc(1, sizeof(*r));
	struct yaml_doc_found f[4];
	char *buf = NULL, *slash;
	size_t len = 0;
	FILE *fp;
	int err;

	memset(sw, 0, sizeof(*sw));
	if (!r)
		return diag_set(d, -ENOMEM, "out of memory"), EXIT_RUNTIME;
	fp = input_open(file, "r", &err, d);
	if (!fp) {
		free(r);
		return EXIT_USAGE;
	}
	buf = malloc(PLAN_FILE_MAX + 1);
	if (buf)
		len = fread(buf, 1, PLAN_FILE_MAX + 1, fp);
	fclose(fp);
	if (!buf || len > PLAN_FILE_MAX) {
		free(buf);
		free(r);
		diag_set(d, -EFBIG, "%s: %s", file, buf ? "larger than 1 MiB, not a sweep plan" : "out of memory");
		return EXIT_USAGE;
	}
	r->file = file;
	r->d = d;
	snprintf(sw->plan_file, sizeof(sw->plan_file), "%s", file);
	snprintf(r->dir, sizeof(r->dir), "%s", file);
	slash = strrchr(r->dir, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(r->dir, sizeof(r->dir), ".");
	plan_options_default(&r->base.opts);
	snprintf(r->base.backend, sizeof(r->base.backend), "analytic");
	err = yaml_doc_load(&r->y, buf, len, file, d);
	free(buf);
	if (!err) {
		yaml_node_t *root = yaml_doc_root(&r->y);

		err = root ? yaml_doc_read_map(&r->y, root, "plan", top, 4, f) :
			     diag_at(d, -EINVAL, file, 1, 1, "plan", "empty file, expected base and axes");
		if (!err && f[3].val)
			err = yaml_doc_read_name(&r->y, f[3].val, "title", sw->title, sizeof(sw->title),
						 false);
		if (!err)
			err = read_base(r, f[0].val);
		if (!err)
			err = read_axes(r, f[1].val, sw);
		if (!err && f[2].val)
			err = read_questions(r, f[2].val, sw);
		if (!err)
			err = make_points(r, sw, f[1].val);
		yaml_doc_destroy(&r->y);
	}
	for (unsigned a = 0; a < SWEEP_MAX_AXES; a++)
		free(r->variant[a]);
	free(r);
	if (err) {
		if (err == -ENOMEM)
			diag_set(d, err, "%s: out of memory", file);
		sweep_free(sw);
		return err == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
	}
	return 0;
}

void sweep_free(struct sweep *sw)
{
	for (unsigned a = 0; a < sw->naxes; a++)
		free(sw->axes[a].values);
	free(sw->pts);
	free(sw->rows);
	memset(sw, 0, sizeof(*sw));
}

void sweep_point_label(const struct sweep *sw, const struct point *p, char *buf, size_t len)
{
	size_t at = 0;

	if (!sw->naxes) {
		snprintf(buf, len, "%s", p->name);
		return;
	}
	buf[0] = '\0';
	for (unsigned a = 0; a < sw->naxes && at < len; a++) {
		int k = snprintf(buf + at, len - at, "%s%s=%s", a ? " " : "", sw->axes[a].name,
				 sw->axes[a].values[p->axis_value[a]]);

		if (k < 0)
			break;
		at += (size_t)k;
	}
}

int sweep_label_width(const struct sweep *sw, int min)
{
	char label[512];
	int w = min;

	for (size_t i = 0; i < sw->n; i++) {
		sweep_point_label(sw, &sw->pts[i], label, sizeof(label));
		if ((int)strlen(label) > w)
			w = (int)strlen(label);
	}
	return w;
}
