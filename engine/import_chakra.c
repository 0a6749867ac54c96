/* SPDX-License-Identifier: MIT */
/*
 * chakra: Chakra execution traces (mlcommons/chakra; the schema is
 * schema/protobuf/et_def.proto, checked in as chakra/et_def.proto and
 * compiled by protoc-c), one file per rank, `<prefix>.<rank>.et`.
 *
 * A file is a sequence of protobuf messages, each after its length as a
 * varint (protobuf's writeDelimited; Chakra writes with
 * src/third_party/utils/protolib.py, encodeMessage): one GlobalMetadata,
 * then Nodes. They are read one at a time into one buffer and unpacked
 * alone, so a trace of any size takes the memory of its largest message
 * and of the collectives found.
 *
 * The collectives are the COMM_COLL_NODE nodes and their attributes
 * comm_type, comm_size (one rank's input, in bytes: Chakra's
 * src/converter/pytorch_node.py, comm_size) and pg_name; the element type
 * is in the node's inputs.types ("['Tensor(float)']") or its name (a
 * reduction's NCCL kernel), the groups' ranks in the METADATA_NODE "## process_group:init ##" that PyTorch's
 * execution trace records and Chakra's converter keeps (inputs.values:
 * PyTorch's pg_config_info, torch/distributed/distributed_c10d.py). What
 * a file does not say is asked for (--dtype, --group, --world), never
 * guessed. The calls are then what the kineto importer makes of the
 * same run (import_calls.h): the same ops left out, the same bytes, the
 * same steps.
 */
#include "importer.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "chakra_pg.h"
#include "et_def.pb-c.h"
#include "import_calls.h"
#include "nccl_kernel.h"
#include "torch_dtype.h"

typedef ChakraProtoMsg__Node et_node;
typedef ChakraProtoMsg__AttributeProto et_attr;

#define MSG_MAX (32u << 20) /* bytes of one message: far above a node's */
#define READ_CHUNK (1u << 16)

struct et_file {
	FILE *fp;
	const char *name;
	uint64_t offset; /* bytes read so far */
	uint8_t *buf;    /* the message being read; owned */
	size_t cap;
	struct diag *d;
};

static int et_fail(struct et_file *f, uint64_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int et_fail(struct et_file *f, uint64_t at, const char *fmt, ...)
{
	char msg[DIAG_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diag_set(f->d, -EINVAL, "%s: byte %" PRIu64 ": %s", f->name, at, msg);
}

/* Room for @n bytes in the buffer. */
static int et_room(struct et_file *f, size_t n)
{
	size_t nc = f->cap ? f->cap : 4096;
	uint8_t *nb;

	if (n <= f->cap)
		return 0;
	while (nc < n)
		nc *= 2;
	nb = realloc(f->buf, nc);
	if (!nb)
		return diag_set(f->d, -ENOMEM, "%s: out of memory", f->name);
	f->buf = nb;
	f->cap = nc;
	return 0;
}

/*
 * The next message into f->buf: its length in *@len, where its length
 * starts in *@at. 1 when one is read, 0 at the end of the file, or a
 * negative errno. The bytes are read as they come (a length past the
 * file's end costs no more than the file).
 */
static int et_next(struct et_file *f, size_t *len, uint64_t *at)
{
	uint64_t v = 0, got = 0;

	*at = f->offset;
	for (unsigned i = 0;; i++) {
		int c = getc(f->fp);

		if (c == EOF) {
			if (ferror(f->fp))
				return diag_set(f->d, -EIO, "%s: read error", f->name);
			if (!i)
				return 0;
			return et_fail(f, *at, "length: the file ends inside a message's length");
		}
		f->offset++;
		if (i == 9 && c > 1) /* a 64-bit varint's tenth byte holds one bit */
			return et_fail(f, *at, "length: a bad varint (more than 64 bits)");
		v |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80))
			break;
	}
	if (v > MSG_MAX)
		return et_fail(f, *at, "length: a message of %" PRIu64 " bytes, more than the %u a Chakra node may take (not a Chakra trace?)",
				v, MSG_MAX);
	while (got < v) {
		size_t want = v - got < READ_CHUNK ? (size_t)(v - got) : READ_CHUNK, n;

		if (et_room(f, (size_t)got + want))
			return -ENOMEM;
		n = fread(f->buf + got, 1, want, f->fp);
		got += n;
		f->offset += n;
		if (n < want) {
			if (ferror(f->fp))
				return diag_set(f->d, -EIO, "%s: read error", f->name);
			return et_fail(f, *at, "length: a message of %" PRIu64 " bytes, and the file ends %" PRIu64 " bytes into it",
					v, got);
		}
	}
	*len = (size_t)v;
	return 1;
}

/* comm_type (CollectiveCommType) as the trace's ops, and what is left
 * out as the kineto importer leaves it out. */
static const struct {
	const char *name;
	enum trace_op op;
	int kind; /* 0 a collective, 1 nothing to time, 2 a rooted call
		   * (broadcast, reduce, gather, scatter), whose root the
		   * node does not name */
} comm_types[] = {
	[CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE] = { "ALL_REDUCE", TRACE_OP_ALLREDUCE, 0 },
	[CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__REDUCE] = { "REDUCE", TRACE_OP_BROADCAST, 2 },
	[CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_GATHER] = { "ALL_GATHER", TRACE_OP_ALL_GATHER, 0 },
	[CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__GATHER] = { "GATHER", TRACE_OP_BROADCAST, 2 },
	[CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__SCATTER] = { "SCATTER", TRACE_OP_BROADCAST, 2 },
	[CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__BROADCAST] = { "BROADCAST", TRACE_OP_BROADCAST, 2 },
	[CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_TO_ALL] = { "ALL_TO_ALL", TRACE_OP_ALLTOALL, 0 },
	[CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__REDUCE_SCATTER] = { "REDUCE_SCATTER", TRACE_OP_REDUCE_SCATTER, 0 },
	/* equal blocks: PyTorch's reduce_scatter_tensor */
	[CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__REDUCE_SCATTER_BLOCK] = { "REDUCE_SCATTER_BLOCK", TRACE_OP_REDUCE_SCATTER, 0 },
	[CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__BARRIER] = { "BARRIER", TRACE_OP_ALLREDUCE, 1 },
};
#define NCOMM_TYPES (sizeof(comm_types) / sizeof(comm_types[0]))

struct cstate {
	struct import_calls calls;
	const struct import_options *o;
	struct chakra_pgs pgs; /* the file's process groups */
	unsigned world;        /* the default group's ranks; 0 unknown */
	int rank;              /* the file's, from its name; -1 unknown */
	bool merged;           /* several files, merged by the ranks their
				* names give */
	unsigned file;
	int timed;             /* the file's nodes have start times: 1, none:
				* 0, not seen yet: -1 */
	uint64_t timed_node;   /* the node that decided */
	uint64_t ncalls;       /* the file's calls so far */
	unsigned skipped[3];   /* point-to-point, nothing to time, rooted */
	bool steps;            /* some file had ProfilerStep nodes */
	bool untimed;          /* some file had calls without times */
};

static int node_fail(struct et_file *f, uint64_t at, const et_node *n, const char *key,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int node_fail(struct et_file *f, uint64_t at, const et_node *n, const char *key,
		     const char *fmt, ...)
{
	char msg[DIAG_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return et_fail(f, at, "node %" PRIu64 ": %s: %s", n->id, key, msg);
}

static const et_attr *attr_find(const et_node *n, const char *name)
{
	for (size_t i = 0; i < n->n_attr; i++)
		if (n->attr[i]->name && !strcmp(n->attr[i]->name, name))
			return n->attr[i];
	return NULL;
}

/* An attribute of any of protobuf's integer kinds, as an int64. */
static int attr_int(const et_attr *a, int64_t *v)
{
	switch (a->value_case) {
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL:
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT32_VAL:
		*v = a->int32_val;
		return 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED32_VAL:
		*v = a->sfixed32_val;
		return 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL:
		*v = a->uint32_val;
		return 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED32_VAL:
		*v = a->fixed32_val;
		return 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL:
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT64_VAL:
		*v = a->int64_val;
		return 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED64_VAL:
		*v = a->sfixed64_val;
		return 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL:
		*v = (int64_t)a->uint64_val;
		return a->uint64_val > INT64_MAX ? -ERANGE : 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED64_VAL:
		*v = (int64_t)a->fixed64_val;
		return a->fixed64_val > INT64_MAX ? -ERANGE : 0;
	default:
		return -EINVAL;
	}
}

/*
 * The element type: the first "Tensor(...)" in inputs.types, else the
 * NCCL kernel's name a reduction's node has (nccl_kernel.h), else
 * --dtype.
 */
static int node_dtype(struct cstate *k, struct et_file *f, uint64_t at, const et_node *n,
		      enum trace_dtype *t)
{
	const char *types = n->inputs ? n->inputs->types : NULL;
	const char *p = types ? strstr(types, "Tensor(") : NULL, *end;
	struct nccl_kernel kern;
	char why[96];
	int r;

	if (!p) {
		r = nccl_kernel_parse(n->name ? n->name : "", &kern, why, sizeof(why));
		if (r < 0)
			return node_fail(f, at, n, "name", "%s", why);
		if (!r && kern.has_dtype) {
			*t = kern.dtype;
			return 0;
		}
		if (k->o->has_dtype) {
			*t = k->o->dtype;
			return 0;
		}
		return node_fail(f, at, n, "inputs.types", "no 'Tensor(...)' to say the element type, nor a reduction's NCCL kernel name: give --dtype");
	}
	p += strlen("Tensor(");
	end = strchr(p, ')');
	if (end && !torch_cpp_type(p, (size_t)(end - p), t))
		return 0;
	snprintf(why, sizeof(why), "%.*s", end && end - p < 64 ? (int)(end - p) : 64, p);
	return node_fail(f, at, n, "inputs.types", "'Tensor(%s)' is not a type gdrlab knows (float, c10::Half, c10::BFloat16, double, ...)",
			 diag_printable(why, why, sizeof(why)));
}

/* A node with a time or none, as the file's others (proto3 has no
 * "absent": a start time of 0 is none). */
static int check_timing(struct cstate *k, struct et_file *f, uint64_t at, const et_node *n)
{
	int has = n->start_time_micros != 0;

	if (k->timed < 0) {
		k->timed = has;
		k->timed_node = n->id;
		return 0;
	}
	if (has == k->timed)
		return 0;
	return node_fail(f, at, n, "start_time_micros", "%s, where node %" PRIu64 " %s (a file's nodes have times or none)",
			 has ? "set" : "0 (none)", k->timed_node, has ? "has none" : "has one");
}

static int on_coll(struct cstate *k, struct et_file *f, uint64_t at, const et_node *n)
{
	const et_attr *type = attr_find(n, "comm_type"), *size = attr_find(n, "comm_size");
	const et_attr *pg = attr_find(n, "pg_name");
	struct import_call c = { .rank = k->rank, .file = k->file, .where = at };
	int64_t v;
	int err;

	if (!type)
		return node_fail(f, at, n, "comm_type", "missing (a COMM_COLL_NODE says which collective)");
	if (attr_int(type, &v))
		return node_fail(f, at, n, "comm_type", "expected an integer (CollectiveCommType)");
	if (v < 0 || (uint64_t)v >= NCOMM_TYPES)
		return node_fail(f, at, n, "comm_type", "unknown value %" PRId64 " (0-%zu: ALL_REDUCE .. BARRIER)",
				 v, NCOMM_TYPES - 1);
	if (comm_types[v].kind) {
		k->skipped[comm_types[v].kind]++;
		return 0;
	}
	c.op = comm_types[v].op;
	if (!size)
		return node_fail(f, at, n, "comm_size", "missing (the call's bytes)");
	err = attr_int(size, &v);
	if (err || v < 0)
		return node_fail(f, at, n, "comm_size", "expected a whole number of bytes");
	if (!v) {
		k->skipped[1]++;
		return 0;
	}
	c.bytes = (uint64_t)v;
	err = node_dtype(k, f, at, n, &c.dtype);
	if (err)
		return err;
	if (c.bytes % trace_dtype_size(c.dtype))
		return node_fail(f, at, n, "comm_size", "%" PRIu64 " bytes is not a whole number of %s elements",
				 c.bytes, trace_dtype_name(c.dtype));
	if (pg && (pg->value_case != CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL ||
		   strlen(pg->string_val) >= CHAKRA_PG_NAME_MAX))
		return node_fail(f, at, n, "pg_name", "expected a process group's name, a string of at most %d bytes",
				 CHAKRA_PG_NAME_MAX - 1);
	err = check_timing(k, f, at, n);
	if (err)
		return err;
	/* no times: its place in the file is its clock (import_calls.h) */
	c.ts = k->timed ? (double)n->start_time_micros : (double)k->ncalls;
	k->ncalls++;
	c.group = UINT32_MAX; /* the file's groups come at its end */
	return import_calls_add(&k->calls, &c, pg ? pg->string_val : "", f->name);
}

static int on_node(struct cstate *k, struct et_file *f, uint64_t at, const et_node *n)
{
	const char *name = n->name ? n->name : "";
	int err;

	switch (n->type) {
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE:
		return on_coll(k, f, at, n);
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE:
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE:
		k->skipped[0]++; /* as the kineto importer: no peer said */
		return 0;
	case CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE:
		if (strstr(name, "process_group:init")) {
			char why[160];

			err = chakra_pgs_parse(&k->pgs, &k->calls, n->inputs ? n->inputs->values : "",
					       why, sizeof(why), f->name);
			if (err == -EINVAL)
				return node_fail(f, at, n, "inputs.values", "%s", why);
			return err;
		}
		return 0;
	default:
		if (strncmp(name, "ProfilerStep#", 13))
			return 0;
		err = check_timing(k, f, at, n);
		k->steps = true;
		/* its span is not read (duration_micros is not used): a step
		 * reaches the next one's start */
		return err ? err : import_calls_step(&k->calls, k->timed ? (double)n->start_time_micros : (double)k->ncalls,
						      -1, f->name);
	}
}

static int read_file(struct cstate *k, struct et_file *f)
{
	ChakraProtoMsg__GlobalMetadata *meta;
	uint64_t at;
	size_t len;
	int r = et_next(f, &len, &at);

	if (r <= 0)
		return r ? r : diag_set(f->d, -EINVAL, "%s: chakra: an empty file (a Chakra trace starts with its GlobalMetadata)",
					f->name);
	meta = chakra_proto_msg__global_metadata__unpack(NULL, len, f->buf);
	if (!meta)
		return et_fail(f, at, "GlobalMetadata: does not unpack (not a Chakra execution trace?)");
	chakra_proto_msg__global_metadata__free_unpacked(meta, NULL);
	while ((r = et_next(f, &len, &at)) > 0) {
		et_node *n = chakra_proto_msg__node__unpack(NULL, len, f->buf);
		int err;

		if (!n)
			return et_fail(f, at, "node: a message of %zu bytes that does not unpack as a Node", len);
		err = on_node(k, f, at, n);
		chakra_proto_msg__node__free_unpacked(n, NULL);
		if (err)
			return err;
	}
	return r;
}

/*
 * The file's calls' groups, once its process groups are all read: the
 * file's own list, else --group NAME=RANKS, else --world; an
 * all-gather's bytes, one rank's share, then times the group's size.
 */
static int resolve_groups(struct cstate *k, const char *file)
{
	for (size_t i = k->calls.first_of_file; i < k->calls.n; i++) {
		struct import_call *c = &k->calls.c[i];
		const char *name = k->calls.pgs[c->pg].name;
		const struct chakra_pg *pg = chakra_pgs_find(&k->pgs, name);
		const struct import_group *g = import_options_find_group(k->o, name);
		unsigned size;
		int err = 0;

		if (pg) {
			c->group = pg->group;
			size = pg->size;
		} else if (g && *name) {
			err = import_calls_group(&k->calls, g->ranks, g->n, &c->group, file);
			size = g->n;
		} else if (k->o->world) {
			err = import_calls_world_group(&k->calls, k->o->world, &c->group, file);
			size = k->o->world;
		} else if (*name) {
			char q[CHAKRA_PG_NAME_MAX];

			diag_printable(name, q, sizeof(q));
			return diag_set(k->calls.d, -EINVAL, "%s: byte %" PRIu64 ": pg_name: process group '%s' has no ranks in this file (no process_group:init node lists it): give --group %s=RANKS, or --world N if its calls are every rank's",
					file, c->where, q, q);
		} else {
			return diag_set(k->calls.d, -EINVAL, "%s: byte %" PRIu64 ": pg_name: missing, so the call's group is not said: give --world N if the calls are every rank's",
					file, c->where);
		}
		if (err)
			return err;
		/* A rank records only its own groups' calls: one that is not
		 * in this one is another rank's file under this name (a
		 * renamed copy), which the merge would count as this rank's.
		 * A file read alone may have digits in its name that are no
		 * rank (trace_2024.et): only the merge tells ranks by names. */
		if (k->merged && !import_calls_in_group(&k->calls, c->group, k->rank)) {
			char q[CHAKRA_PG_NAME_MAX];

			diag_printable(name, q, sizeof(q));
			return diag_set(k->calls.d, -EINVAL, "%s: byte %" PRIu64 ": pg_name: process group '%s' (%u ranks from %u) does not hold rank %d, the file's by its name: is it another rank's file?",
					file, c->where, q, size, k->calls.groups[c->group].ranks[0],
					k->rank);
		}
		if (c->op != TRACE_OP_ALL_GATHER)
			continue;
		if (c->bytes > (uint64_t)INT64_MAX / size)
			return diag_set(k->calls.d, -EINVAL, "%s: byte %" PRIu64 ": comm_size: %" PRIu64 " bytes from each of %u ranks is too many",
					file, c->where, c->bytes, size);
		c->bytes *= size;
	}
	return 0;
}

/* The rank in a name like "trace.3.et" or "rank3.et": the digits just
 * before ".et" (or at its end); -1 when none. */
static int rank_of_name(const char *name)
{
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	size_t end = strlen(base), start;
	long r = 0;

	if (end >= 3 && !strcmp(base + end - 3, ".et"))
		end -= 3;
	for (start = end; start && isdigit((unsigned char)base[start - 1]); start--)
		;
	if (start == end || end - start > 9)
		return -1;
	for (size_t i = start; i < end; i++)
		r = r * 10 + (base[i] - '0');
	return (int)r;
}

static int read_one(struct cstate *k, const struct import_input *in, size_t n)
{
	struct et_file f = { .fp = in->fp, .name = in->name, .d = k->calls.d };
	int err;

	k->rank = rank_of_name(in->name);
	k->merged = n > 1;
	if (k->rank < 0 && n > 1)
		return diag_set(f.d, -EINVAL, "%s: file name: no rank in it (Chakra names a rank's trace <prefix>.<rank>.et), and %zu files are merged by rank",
				in->name, n);
	import_calls_begin_file(&k->calls);
	err = import_calls_file_rank(&k->calls, k->rank, in->name);
	if (err)
		return err;
	chakra_pgs_clear(&k->pgs);
	k->timed = -1;
	k->ncalls = 0;
	err = read_file(k, &f);
	free(f.buf);
	if (!err)
		err = chakra_pgs_world(&k->pgs, &k->world, k->o->world, in->name, f.d);
	if (!err)
		err = resolve_groups(k, in->name);
	if (!err)
		err = import_calls_end_file(&k->calls, k->timed != 0, in->name, "start_time_micros");
	if (k->timed == 0)
		k->untimed = true;
	return err;
}

static void write_notes(const struct cstate *k, struct import_notes *notes)
{
	notes->line[0] = '\0';
	if (k->skipped[0] || k->skipped[1] || k->skipped[2])
		import_notes_add(notes, "left out, counted on each rank that recorded them: %u point-to-point calls, %u broadcasts, reduces, gathers and scatters (no peer or root), %u barriers and empty calls",
				 k->skipped[0], k->skipped[2], k->skipped[1]);
	if (!k->steps)
		import_notes_add(notes, "no ProfilerStep nodes: one iteration");
	if (k->untimed)
		import_notes_add(notes, "no start_time_micros: calls ready at 0, in file order");
}

static int chakra_import(const struct import_input *in, size_t n, const struct import_options *o,
			 struct trace *t, struct import_notes *notes, struct diag *d)
{
	struct cstate k = { .o = o, .world = 0 };
	int err = 0;

	memset(t, 0, sizeof(*t));
	import_calls_init(&k.calls, true, "file name", "comm_type", d);
	for (k.file = 0; k.file < n && !err; k.file++)
		err = read_one(&k, &in[k.file], n);
	if (!err && !k.calls.n)
		err = diag_set(d, -EINVAL, "%s: chakra: no collectives (COMM_COLL_NODE nodes with a comm_type)",
			       in[0].name);
	if (!err)
		err = import_calls_build(&k.calls, in, k.world ? k.world : o->world, t);
	if (!err) {
		write_notes(&k, notes);
		import_calls_note_uneven(&k.calls, notes);
		import_calls_note_partial(&k.calls, in, notes);
		notes->world = k.world ? k.world : o->world;
	}
	chakra_pgs_free(&k.pgs);
	import_calls_free(&k.calls);
	return err;
}

const struct importer_ops importer_chakra = {
	.name = "chakra",
	.what = "Chakra execution traces (protobuf), one <prefix>.<rank>.et a rank",
	.takes_options = true,
	.import = chakra_import,
};
