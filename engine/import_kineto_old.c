/* SPDX-License-Identifier: MIT */
/* PyTorch profiler traces before 2.1 (import_kineto_old.h). */
#include "import_kineto_old.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "torch_dtype.h"

#define ELEMENTS_MAX ((uint64_t)INT64_MAX / 8) /* so that bytes fit */

/* ProcessGroupNCCL's record functions (collective()'s and
 * pointToPoint()'s profilingTitle) as the trace's ops; what the kineto
 * importer leaves out, left out the same way. */
static const struct {
	const char *name;
	enum trace_op op;
	int kind; /* 0 a collective, else enum kskip + 1: left out, as
		   * nothing before PyTorch 2.1 records a peer or a root */
	enum nccl_kernel_func kernel;
} calls[] = {
	{ "nccl:all_reduce", TRACE_OP_ALLREDUCE, 0, NCCL_KERNEL_ALLREDUCE },
	{ "nccl:all_reduce_coalesced", TRACE_OP_ALLREDUCE, 0, NCCL_KERNEL_ALLREDUCE },
	{ "nccl:all_gather", TRACE_OP_ALL_GATHER, 0, NCCL_KERNEL_ALLGATHER },
	{ "nccl:_all_gather_base", TRACE_OP_ALL_GATHER, 0, NCCL_KERNEL_ALLGATHER },
	{ "nccl:all_gather_into_tensor_coalesced", TRACE_OP_ALL_GATHER, 0, NCCL_KERNEL_ALLGATHER },
	{ "nccl:reduce_scatter", TRACE_OP_REDUCE_SCATTER, 0, NCCL_KERNEL_REDUCESCATTER },
	{ "nccl:_reduce_scatter_base", TRACE_OP_REDUCE_SCATTER, 0, NCCL_KERNEL_REDUCESCATTER },
	{ "nccl:reduce_scatter_tensor_coalesced", TRACE_OP_REDUCE_SCATTER, 0, NCCL_KERNEL_REDUCESCATTER },
	/* NCCL has no alltoall: PyTorch runs it as sends and receives */
	{ "nccl:all_to_all", TRACE_OP_ALLTOALL, 0, NCCL_KERNEL_SENDRECV },
	{ "nccl:send", TRACE_OP_SENDRECV, 1, NCCL_KERNEL_SENDRECV },
	{ "nccl:recv", TRACE_OP_SENDRECV, 1, NCCL_KERNEL_SENDRECV },
	{ "nccl:broadcast", TRACE_OP_BROADCAST, 3, NCCL_KERNEL_BROADCAST },
	{ "nccl:_broadcast_oop", TRACE_OP_BROADCAST, 3, NCCL_KERNEL_BROADCAST },
	{ "nccl:reduce", TRACE_OP_BROADCAST, 4, NCCL_KERNEL_REDUCE },
	{ "nccl:_reduce_oop", TRACE_OP_BROADCAST, 4, NCCL_KERNEL_REDUCE },
	{ "nccl:gather", TRACE_OP_BROADCAST, 4, NCCL_KERNEL_SENDRECV },
	{ "nccl:scatter", TRACE_OP_BROADCAST, 4, NCCL_KERNEL_SENDRECV },
};
#define NCALLS (sizeof(calls) / sizeof(calls[0]))

/* A nccl:* event, read now, judged at the file's end (a trace of 2.1 or
 * later has them too, and then they are not read). */
struct kold_call {
	double ts;
	uint64_t ext;      /* "External id" */
	uint64_t elements; /* of its "Input Dims" */
	unsigned line;
	int call;          /* in calls[], -1 when not one */
	bool has_ext, dims_ok;
	char name[40];     /* for messages */
	char type[40];     /* the first "Input type"; "" when none */
};

struct kold_kernel {
	uint64_t ext;
	unsigned line;
	int status;        /* nccl_kernel_parse's: 0, or -EINVAL (why) */
	struct nccl_kernel k;
	long stream;       /* -1 when not said */
	char why[96];
};

static int fail(struct import_calls *c, const struct kold_file *f, unsigned line, const char *key,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int fail(struct import_calls *c, const struct kold_file *f, unsigned line, const char *key,
		const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = diag_vat(c->d, -EINVAL, f->name, line, 0, key, fmt, ap);
	va_end(ap);
	return err;
}

/* "Input Dims": the input tensors' shapes; [] is a 0-dim tensor's. */
static bool count_elements(const json_t *dims, uint64_t *out)
{
	uint64_t sum = 0;

	if (!json_is_array(dims))
		return false;
	for (size_t i = 0; i < json_array_size(dims); i++) {
		const json_t *shape = json_array_get(dims, i);
		uint64_t prod = 1;

		if (!json_is_array(shape))
			return false;
		for (size_t j = 0; j < json_array_size(shape); j++) {
			json_int_t d = json_integer_value(json_array_get(shape, j));

			if (!json_is_integer(json_array_get(shape, j)) || d < 0)
				return false;
			if (d && prod > ELEMENTS_MAX / (uint64_t)d)
				return false;
			prod *= (uint64_t)d;
		}
		if (prod > ELEMENTS_MAX - sum)
			return false;
		sum += prod;
	}
	*out = sum;
	return true;
}

static bool get_id(const json_t *args, uint64_t *id)
{
	const json_t *v = json_object_get(args, "External id");

	if (!v)
		v = json_object_get(args, "external id"); /* kineto before 2022 */
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return false;
	*id = (uint64_t)json_integer_value(v);
	return true;
}

/* args.stream, else a tid of "stream 7" or 7 (GPU events' rows) */
static long stream_of(const json_t *e, const json_t *args)
{
	const json_t *v = json_object_get(args, "stream");
	const char *tid;

	if (json_is_integer(v) && json_integer_value(v) >= 0)
		return (long)json_integer_value(v);
	v = json_object_get(e, "tid");
	if (json_is_integer(v) && json_integer_value(v) >= 0)
		return (long)json_integer_value(v);
	tid = json_string_value(v);
	if (tid && !strncmp(tid, "stream ", 7) && tid[7] >= '0' && tid[7] <= '9')
		return strtol(tid + 7, NULL, 10);
	return -1;
}

static int on_call(struct kold *k, const json_t *args, const char *name, double ts, unsigned line,
		   const char *file, struct diag *d)
{
	struct kold_call *c;
	const json_t *types = json_object_get(args, "Input type");

	if (array_grow((void **)&k->calls, k->ncalls, &k->cap_calls, sizeof(*k->calls)))
		return diag_set(d, -ENOMEM, "%s: out of memory", file);
	c = &k->calls[k->ncalls++];
	memset(c, 0, sizeof(*c));
	c->ts = ts;
	c->line = line;
	c->call = -1;
	for (size_t i = 0; i < NCALLS; i++)
		if (!strcmp(calls[i].name, name))
			c->call = (int)i;
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->has_ext = get_id(args, &c->ext);
	c->dims_ok = count_elements(json_object_get(args, "Input Dims"), &c->elements);
	if (json_is_string(json_array_get(types, 0)))
		snprintf(c->type, sizeof(c->type), "%s", json_string_value(json_array_get(types, 0)));
	return 0;
}

int kold_event(struct kold *k, const json_t *e, const char *name, double ts, unsigned line,
	       const char *file, struct diag *d)
{
	const json_t *args = json_object_get(e, "args");
	struct kold_kernel kern = { .line = line };
	int r;

	if (!strncmp(name, "nccl:", 5))
		return on_call(k, args, name, ts, line, file, d);
	r = nccl_kernel_parse(name, &kern.k, kern.why, sizeof(kern.why));
	if (r == 1 || !get_id(args, &kern.ext))
		return 0; /* not an NCCL kernel, or one no call can be found by */
	kern.status = r;
	kern.stream = stream_of(e, args);
	if (array_grow((void **)&k->kernels, k->nkernels, &k->cap_kernels, sizeof(*k->kernels)))
		return diag_set(d, -ENOMEM, "%s: out of memory", file);
	k->kernels[k->nkernels++] = kern;
	return 0;
}

static int cmp_kernel(const void *a, const void *b)
{
	const struct kold_kernel *x = a, *y = b;

	if (x->ext != y->ext)
		return x->ext < y->ext ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/* The first kernel (in the file) with External id @ext, or NULL. */
static const struct kold_kernel *kernel_of(const struct kold *k, uint64_t ext)
{
	size_t lo = 0, hi = k->nkernels;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->kernels[mid].ext < ext)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k->nkernels && k->kernels[lo].ext == ext ? &k->kernels[lo] : NULL;
}

/* The call's element type: its reduction kernel's, else "Input type",
 * else --dtype. */
static int call_dtype(struct import_calls *ic, const struct kold_file *f, const struct kold_call *c,
		      const struct kold_kernel *kern, enum trace_dtype *t)
{
	char q[48];

	if (kern->k.has_dtype) {
		*t = kern->k.dtype;
		return 0;
	}
	if (c->type[0]) {
		if (!torch_cpp_type(c->type, strlen(c->type), t))
			return 0;
		return fail(ic, f, c->line, "Input type", "'%s' is not a type gdrlab knows (float, c10::Half, c10::BFloat16, ...)",
			    diag_printable(c->type, q, sizeof(q)));
	}
	if (f->o->has_dtype) {
		*t = f->o->dtype;
		return 0;
	}
	return fail(ic, f, c->line, "Input type", "missing, and its kernel (line %u) names no type: give --dtype",
		    kern->line);
}

/* One call: its kernel, type, bytes and group. 1 when it is left out. */
static int join(struct import_calls *ic, const struct kold_file *f, const struct kold *k,
		const struct kold_call *c, struct import_call *out, const struct kold_kernel **used)
{
	const struct kold_kernel *kern;
	char q[48];
	unsigned world = f->o->world;
	int err;

	if (c->call < 0)
		return fail(ic, f, c->line, "name", "'%s' is not a collective gdrlab's trace has",
			    diag_printable(c->name, q, sizeof(q)));
	if (calls[c->call].kind)
		return 1;
	if (!c->dims_ok)
		return fail(ic, f, c->line, "Input Dims", "expected its input tensors' shapes, like [[262144]] (record_shapes=True)");
	if (!c->has_ext)
		return fail(ic, f, c->line, "External id", "missing: the call's NCCL kernel is found by it");
	kern = kernel_of(k, c->ext);
	if (!kern)
		return fail(ic, f, c->line, "External id", "no NCCL kernel has External id %" PRIu64 " (profile with ProfilerActivity.CUDA)",
			    c->ext);
	if (kern->status)
		return fail(ic, f, kern->line, "name", "%s", kern->why);
	if (kern->k.func != calls[c->call].kernel && kern->k.func != NCCL_KERNEL_GENERIC)
		return fail(ic, f, kern->line, "name", "an NCCL %s kernel, for the %s on line %u",
			    nccl_kernel_func_name(kern->k.func), c->name, c->line);
	*used = kern;
	*out = (struct import_call){ .ts = c->ts, .where = c->line, .op = calls[c->call].op,
				     .rank = f->rank, .file = f->index };
	err = call_dtype(ic, f, c, kern, &out->dtype);
	if (err)
		return err;
	if (!world)
		return fail(ic, f, c->line, "group", "%s names no process group (PyTorch before 2.1): give --world N if every call is every rank's",
			    c->name);
	if (f->world > 0 && (unsigned)f->world != world)
		return fail(ic, f, c->line, "group", "--world %u, and distributedInfo's world_size is %d", world,
			    f->world);
	if (f->rank < 0)
		return fail(ic, f, c->line, "Rank", "neither distributedInfo nor the event says this file's rank");
	/* the whole buffer: an all-gather's input is one rank's share */
	out->bytes = c->elements * trace_dtype_size(out->dtype);
	if (out->op == TRACE_OP_ALL_GATHER && out->bytes > (uint64_t)INT64_MAX / world)
		return fail(ic, f, c->line, "Input Dims", "too many elements");
	if (out->op == TRACE_OP_ALL_GATHER)
		out->bytes *= world;
	return out->bytes ? 0 : 2;
}

int kold_end_file(struct kold *k, const struct kold_file *f, struct import_calls *ic,
		  unsigned skipped[KSKIP_N])
{
	const struct kold_kernel *first = NULL;
	unsigned world = 0;
	bool have_world = false;

	if (k->nkernels)
		qsort(k->kernels, k->nkernels, sizeof(*k->kernels), cmp_kernel);
	for (size_t i = 0; i < k->ncalls; i++) {
		const struct kold_kernel *kern = NULL;
		struct import_call c;
		int err = join(ic, f, k, &k->calls[i], &c, &kern);

		if (err < 0)
			return err;
		if (err) { /* left out, or no bytes */
			skipped[err == 2 ? KSKIP_NOTHING : calls[k->calls[i].call].kind - 1]++;
			continue;
		}
		if (kern->stream >= 0 && first && first->stream != kern->stream)
			return fail(ic, f, kern->line, "stream", "this file's NCCL kernels run on streams %ld and %ld (line %u), one a communicator, and a trace before PyTorch 2.1 does not say whose each call is: --world cannot stand for them",
				    kern->stream, first->stream, first->line);
		if (kern->stream >= 0 && !first)
			first = kern;
		if (!have_world) {
			err = import_calls_world_group(ic, f->o->world, &world, f->name);
			if (err)
				return err;
			have_world = true;
		}
		c.group = world;
		err = import_calls_add(ic, &c, "", f->name);
		if (err)
			return err;
	}
	return 0;
}

void kold_clear(struct kold *k)
{
	k->ncalls = 0;
	k->nkernels = 0;
}

void kold_free(struct kold *k)
{
	free(k->calls);
	free(k->kernels);
	memset(k, 0, sizeof(*k));
}
