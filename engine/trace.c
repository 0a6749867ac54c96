/* SPDX-License-Identifier: MIT */
/*
 * trace: the parts of a trace that are not its file format's reader: op
 * and dtype names (with the spellings other tools use), element sizes,
 * writing a trace back as JSON Lines, and freeing one.
 */
#include "trace.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[TRACE_OP_COUNT] = {
	[TRACE_OP_ALLREDUCE] = "allreduce",
	[TRACE_OP_REDUCE_SCATTER] = "reduce_scatter",
	[TRACE_OP_ALL_GATHER] = "all_gather",
	[TRACE_OP_BROADCAST] = "broadcast",
	[TRACE_OP_ALLTOALL] = "alltoall",
	[TRACE_OP_SENDRECV] = "sendrecv",
};

struct name_alias {
	const char *name;
	int value;
};

/* Spellings other tools use (NCCL, PyTorch), accepted on input only. */
static const struct name_alias op_aliases[] = {
	{ "all_reduce", TRACE_OP_ALLREDUCE },
	{ "reducescatter", TRACE_OP_REDUCE_SCATTER },
	{ "allgather", TRACE_OP_ALL_GATHER },
	{ "send_recv", TRACE_OP_SENDRECV },
};

static const char *const dtype_names[TRACE_DTYPE_COUNT] = {
	[TRACE_DTYPE_FP32] = "fp32", [TRACE_DTYPE_FP16] = "fp16",
	[TRACE_DTYPE_BF16] = "bf16", [TRACE_DTYPE_FP64] = "fp64",
	[TRACE_DTYPE_INT8] = "int8",
};

static const unsigned dtype_sizes[TRACE_DTYPE_COUNT] = {
	[TRACE_DTYPE_FP32] = 4, [TRACE_DTYPE_FP16] = 2, [TRACE_DTYPE_BF16] = 2,
	[TRACE_DTYPE_FP64] = 8, [TRACE_DTYPE_INT8] = 1,
};

static const struct name_alias dtype_aliases[] = {
	{ "float32", TRACE_DTYPE_FP32 }, { "float", TRACE_DTYPE_FP32 },
	{ "float16", TRACE_DTYPE_FP16 }, { "half", TRACE_DTYPE_FP16 },
	{ "bfloat16", TRACE_DTYPE_BF16 }, { "float64", TRACE_DTYPE_FP64 },
	{ "double", TRACE_DTYPE_FP64 },
};

static const char *const redop_names[TRACE_REDOP_COUNT] = {
	[TRACE_REDOP_SUM] = "sum", [TRACE_REDOP_PROD] = "prod", [TRACE_REDOP_MIN] = "min",
	[TRACE_REDOP_MAX] = "max", [TRACE_REDOP_AVG] = "avg",
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const char *trace_op_name(enum trace_op op)
{
	return (unsigned)op < TRACE_OP_COUNT ? op_names[op] : "unknown";
}

static int lookup(const char *s, const char *const *names, size_t nnames,
		  const struct name_alias *aliases, size_t naliases, int *out)
{
	size_t i;

	for (i = 0; i < nnames; i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = (int)i;
			return 0;
		}
	}
	for (i = 0; i < naliases; i++) {
		if (strcmp(s, aliases[i].name) == 0) {
			*out = aliases[i].value;
			return 0;
		}
	}
	return -EINVAL;
}

int trace_op_parse(const char *s, enum trace_op *op)
{
	int v;

	if (lookup(s, op_names, TRACE_OP_COUNT, op_aliases,
		   ARRAY_SIZE(op_aliases), &v))
		return -EINVAL;
	*op = (enum trace_op)v;
	return 0;
}

const char *trace_dtype_name(enum trace_dtype t)
{
	return (unsigned)t < TRACE_DTYPE_COUNT ? dtype_names[t] : "unknown";
}

int trace_dtype_parse(const char *s, enum trace_dtype *t)
{
	int v;

	if (lookup(s, dtype_names, TRACE_DTYPE_COUNT, dtype_aliases,
		   ARRAY_SIZE(dtype_aliases), &v))
		return -EINVAL;
	*t = (enum trace_dtype)v;
	return 0;
}

const char *trace_redop_name(enum trace_redop op)
{
	return (unsigned)op < TRACE_REDOP_COUNT ? redop_names[op] : "unknown";
}

int trace_redop_parse(const char *s, enum trace_redop *op)
{
	int v;

	if (lookup(s, redop_names, TRACE_REDOP_COUNT, NULL, 0, &v))
		return -EINVAL;
	*op = (enum trace_redop)v;
	return 0;
}

bool trace_op_reduces(enum trace_op op)
{
	return op == TRACE_OP_ALLREDUCE || op == TRACE_OP_REDUCE_SCATTER;
}

unsigned trace_dtype_size(enum trace_dtype t)
{
	return (unsigned)t < TRACE_DTYPE_COUNT ? dtype_sizes[t] : 0;
}

/* Shortest of %.15g / %.17g that reads back to the same double. */
static const char *fmt_num(double x, char *buf, size_t n)
{
	snprintf(buf, n, "%.15g", x);
	if (strtod(buf, NULL) != x)
		snprintf(buf, n, "%.17g", x);
	return buf;
}

static bool entry_writable(const struct trace_entry *e)
{
	return (unsigned)e->op < TRACE_OP_COUNT &&
	       (unsigned)e->dtype < TRACE_DTYPE_COUNT && e->bytes > 0 &&
	       (e->redop == TRACE_REDOP_SUM ||
		((unsigned)e->redop < TRACE_REDOP_COUNT && trace_op_reduces(e->op))) &&
	       e->bytes <= INT64_MAX && e->ready_us >= 0 && e->ready_us <= TRACE_TIME_MAX_US &&
	       !isnan(e->compute_us) && e->compute_us <= TRACE_TIME_MAX_US &&
	       (e->ngroup == 0 || e->group) &&
	       (e->op != TRACE_OP_BROADCAST || e->root >= 0) &&
	       (e->op != TRACE_OP_SENDRECV ||
		(e->root >= 0 && e->peer >= 0 && e->root != e->peer)) &&
	       memchr(e->algo, '\0', sizeof(e->algo)) && memchr(e->proto, '\0', sizeof(e->proto)) &&
	       e->stream <= TRACE_STREAM_MAX &&
	       (!e->batched || (e->op == TRACE_OP_SENDRECV && e->batch <= TRACE_BATCH_MAX));
}

static void write_entry(FILE *out, const struct trace *t, const struct trace_entry *e)
{
	char num[32];
	unsigned i;

	fprintf(out, "{\"iteration\": %u, \"op\": \"%s\", \"bytes\": %" PRIu64
		     ", \"dtype\": \"%s\", \"ready_us\": %s",
		e->iteration, trace_op_name(e->op), e->bytes,
		trace_dtype_name(e->dtype),
		fmt_num(e->ready_us, num, sizeof(num)));
	if (e->redop != TRACE_REDOP_SUM)
		fprintf(out, ", \"redop\": \"%s\"", trace_redop_name(e->redop));
	if (e->compute_us >= 0)
		fprintf(out, ", \"compute_us\": %s",
			fmt_num(e->compute_us, num, sizeof(num)));
	if (e->ngroup) {
		fputs(", \"group\": [", out);
		for (i = 0; i < e->ngroup; i++)
			fprintf(out, "%s%u", i ? ", " : "", e->group[i]);
		fputc(']', out);
	}
	if (e->op == TRACE_OP_BROADCAST)
		fprintf(out, ", \"root\": %d", e->root);
	if (e->op == TRACE_OP_SENDRECV)
		fprintf(out, ", \"src\": %d, \"dst\": %d", e->root, e->peer);
	if (e->comm < t->ncomms && t->comms[e->comm].named)
		fprintf(out, ", \"comm\": \"%s\"", t->comms[e->comm].name);
	if (e->stream)
		fprintf(out, ", \"stream\": %u", e->stream);
	if (e->batched)
		fprintf(out, ", \"batch\": %u", e->batch);
	if (e->algo[0])
		fprintf(out, ", \"algo\": \"%s\"", e->algo);
	if (e->proto[0])
		fprintf(out, ", \"proto\": \"%s\"", e->proto);
	fputs("}\n", out);
}

int trace_write(FILE *out, const struct trace *t)
{
	size_t i;

	for (i = 0; i < t->nentries; i++)
		if (!entry_writable(&t->entries[i]))
			return -EINVAL;
	for (i = 0; i < t->nentries; i++)
		write_entry(out, t, &t->entries[i]);
	return ferror(out) ? -EIO : 0;
}

unsigned trace_ranks_named(const struct trace *t)
{
	unsigned n = 0;

	for (size_t i = 0; i < t->nentries; i++) {
		const struct trace_entry *e = &t->entries[i];

		for (unsigned k = 0; k < e->ngroup; k++)
			n = e->group[k] >= n ? e->group[k] + 1 : n;
		if (e->root >= 0 && (unsigned)e->root >= n)
			n = (unsigned)e->root + 1;
		if (e->peer >= 0 && (unsigned)e->peer >= n)
			n = (unsigned)e->peer + 1;
	}
	return n;
}

unsigned trace_ranks_used(const struct trace *t)
{
	unsigned named = trace_ranks_named(t), used = 0;
	unsigned char *seen;

	for (size_t i = 0; i < t->nentries; i++)
		if (!t->entries[i].ngroup)
			return 0;
	seen = calloc(named ? named : 1, 1);
	if (!seen)
		return named; /* a bound, where the count cannot be taken */
	for (size_t i = 0; i < t->nentries; i++) {
		const struct trace_entry *e = &t->entries[i];

		for (unsigned k = 0; k < e->ngroup; k++)
			seen[e->group[k]] = 1;
		if (e->root >= 0)
			seen[e->root] = 1;
		if (e->peer >= 0)
			seen[e->peer] = 1;
	}
	for (unsigned r = 0; r < named; r++)
		used += seen[r];
	free(seen);
	return used;
}

void trace_destroy(struct trace *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nentries; i++)
		free(t->entries[i].group);
	free(t->entries);
	for (i = 0; i < t->ncomms; i++)
		free(t->comms[i].group);
	free(t->comms);
	free(t->comm_slots);
	memset(t, 0, sizeof(*t));
}

/* A batched line by its batch, then its place. */
struct batch_key {
	unsigned comm, stream, iteration, batch;
	size_t at;
};

static int cmp_batch_key(const void *pa, const void *pb)
{
	const struct batch_key *a = pa, *b = pb;

	if (a->comm != b->comm)
		return a->comm < b->comm ? -1 : 1;
	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	if (a->iteration != b->iteration)
		return a->iteration < b->iteration ? -1 : 1;
	if (a->batch != b->batch)
		return a->batch < b->batch ? -1 : 1;
	return (a->at > b->at) - (a->at < b->at);
}

static bool same_batch(const struct batch_key *a, const struct batch_key *b)
{
	return a->comm == b->comm && a->stream == b->stream && a->iteration == b->iteration &&
	       a->batch == b->batch;
}

/* A line's new place: its batch's last line's, then its own. */
struct place_key {
	size_t at, i;
};

static int cmp_place(const void *pa, const void *pb)
{
	const struct place_key *a = pa, *b = pb;

	if (a->at != b->at)
		return a->at < b->at ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

int trace_gather_batches(struct trace *t)
{
	size_t n = t->nentries ? t->nentries : 1, nb = 0;
	struct batch_key *b = malloc(n * sizeof(*b));
	struct place_key *p = malloc(n * sizeof(*p));
	struct trace_entry *e = malloc(n * sizeof(*e));

	if (!b || !p || !e) {
		free(b);
		free(p);
		free(e);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->nentries; i++) {
		const struct trace_entry *x = &t->entries[i];

		p[i] = (struct place_key){ i, i };
		if (x->batched)
			b[nb++] = (struct batch_key){ x->comm, x->stream, x->iteration, x->batch, i };
	}
	qsort(b, nb, sizeof(*b), cmp_batch_key);
	for (size_t k = nb; k-- > 1;)
		if (same_batch(&b[k], &b[k - 1])) /* its last's place */
			p[b[k - 1].at].at = p[b[k].at].at;
	qsort(p, t->nentries, sizeof(*p), cmp_place);
	for (size_t i = 0; i < t->nentries; i++)
		e[i] = t->entries[p[i].i];
	memcpy(t->entries, e, t->nentries * sizeof(*e));
	free(b);
	free(p);
	free(e);
	return 0;
}
