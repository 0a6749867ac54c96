/* SPDX-License-Identifier: MIT */
/*
 * gen_ddp: PyTorch DDP gradient buckets and the trace they make.
 *
 * The rule is compute_bucket_assignment_by_size() in
 * torch/csrc/distributed/c10d/reducer.cpp as Reducer::rebuild_buckets() calls
 * it after the first iteration, which is what every later (steady-state)
 * iteration uses: parameters in the order their gradients become ready
 * (taken here as reverse registration order), one open bucket per dtype,
 * a tensor is added and then, if the bucket has reached the current limit,
 * the bucket is closed and the limit advances from first_bucket_bytes
 * (1 MiB) to bucket_cap (25 MiB), where it stays. Whatever is left open at
 * the end becomes the last bucket. A tensor larger than the cap therefore
 * closes its bucket at once, alone or with what was already in it. Every
 * parameter of a layout has the trace's one dtype, so there is one open
 * bucket at a time.
 */
#include "gen_ddp.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* More than any run needs; keeps iterations * buckets far from overflow. */
#define GEN_DDP_ITERATIONS_MAX 1000000u

/*
 * fp32 gradients by default, as DDP all-reduces them for a model left as
 * built: DDP reduces each gradient in its parameter's dtype (reducer.cpp:
 * compute_bucket_assignment_by_size keys buckets by scalar type, and
 * Reducer::initialize_buckets makes a bucket's flat tensor with its
 * parameters' options), parameters are made in torch.get_default_dtype()
 * (float32), and torch.autocast mixed precision casts activations, not
 * the parameters, so their gradients stay fp32 too. bf16 or fp16 gradients need the model
 * itself cast (model.to(torch.bfloat16)): say so with --dtype.
 */
void gen_ddp_options_default(struct gen_ddp_options *o)
{
	*o = (struct gen_ddp_options){
		.dtype = TRACE_DTYPE_FP32,
		.first_bucket_bytes = 1024 * 1024,
		.bucket_cap_bytes = 25 * 1024 * 1024,
		.iterations = 1,
		.forward_us = 0,
		.backward_us = 0,
		.hook = GEN_DDP_HOOK_ALLREDUCE,
		.accumulate = 1,
	};
}

/*
 * fp16_compress_hook and bf16_compress_hook
 * (torch/distributed/algorithms/ddp_comm_hooks/default_hooks.py) cast the
 * bucket's flat buffer to float16 / bfloat16, all-reduce that and cast it
 * back: the buckets are still formed from the gradients' own sizes
 * (compute_bucket_assignment_by_size sees the parameters), only the wire
 * carries 2 bytes an element.
 */
enum trace_dtype gen_ddp_wire_dtype(const struct gen_ddp_options *o)
{
	switch (o->hook) {
	case GEN_DDP_HOOK_FP16:
		return TRACE_DTYPE_FP16;
	case GEN_DDP_HOOK_BF16:
		return TRACE_DTYPE_BF16;
	case GEN_DDP_HOOK_ALLREDUCE:
		break;
	}
	return o->dtype;
}

/*
 * Only floating-point (and complex) tensors can require grad: autograd
 * refuses requires_grad on an integer tensor ("Only Tensors of floating
 * point and complex dtype can require gradients", AutogradMeta::
 * set_requires_grad in torch/csrc/autograd/variable.h), and DDP buckets
 * the parameters that require grad (_build_params_for_reducer in
 * torch/nn/parallel/distributed.py). An int8 model is quantized
 * inference, with nothing for DDP to all-reduce.
 */
bool gen_ddp_dtype_ok(enum trace_dtype dt)
{
	return dt == TRACE_DTYPE_FP32 || dt == TRACE_DTYPE_FP16 ||
	       dt == TRACE_DTYPE_BF16 || dt == TRACE_DTYPE_FP64;
}

static int check_options(const struct gen_ddp_options *o)
{
	if (!gen_ddp_dtype_ok(o->dtype) || !o->first_bucket_bytes ||
	    !o->bucket_cap_bytes || o->hook > GEN_DDP_HOOK_BF16 ||
	    !o->accumulate || o->accumulate > GEN_DDP_ACCUMULATE_MAX)
		return -EINVAL;
	return 0;
}

/*
 * What backward progress is measured in: the layout's FLOPs where it has
 * them (the built-in models), else the parameters' element counts.
 * Backward does about twice a layer's forward FLOPs (the input's gradient
 * and the weight's), so FLOPs are what its time follows; parameters are
 * not: ResNet-50's fc holds 8% of the weights and does 0.05% of the work,
 * its 3x3 convolutions at 56x56 the reverse, and an embedding holds many
 * weights and does no matrix multiply. A weight's gradient is ready when
 * its layer's backward has run, so its work counts as done with it.
 */
static double backward_work(const struct model_layout *l, size_t i,
			    bool by_flops)
{
	return by_flops ? l->params[i].flops : (double)l->params[i].numel;
}

static bool layout_has_flops(const struct model_layout *l)
{
	size_t i;

	for (i = 0; i < l->nparams; i++)
		if (l->params[i].flops > 0)
			return true;
	return false;
}

/*
 * The steady-state buckets (find_unused_parameters=False, the default):
 * Reducer::rebuild_buckets after the first iteration, the parameters in the
 * order their gradients became ready, taken as reverse registration order.
 * A bucket is ready when its last tensor's gradient is: the share of
 * backward work (backward_work) done by then.
 */
static long assign_reverse(const struct model_layout *l,
			   const struct gen_ddp_options *o, bool by_flops,
			   double total, uint64_t *sz, double *frac)
{
	uint64_t limit = o->first_bucket_bytes, size = 0;
	unsigned dsize = trace_dtype_size(o->dtype);
	double done = 0;
	long n = 0;
	size_t i;

	for (i = l->nparams; i-- > 0;) {
		size += l->params[i].numel * dsize;
		done += backward_work(l, i, by_flops);
		if (size >= limit || i == 0) {
			sz[n] = size;
			frac[n] = i == 0 ? 1.0 : done / total;
			n++;
			size = 0;
			limit = o->bucket_cap_bytes;
		}
	}
	return n;
}

/*
 * find_unused_parameters=True: Reducer::should_rebuild_buckets is false,
 * so the buckets _ddp_init_helper (distributed.py) made stay: assigned in
 * registration order (compute_bucket_assignment_by_size with
 * [first bucket, cap], or [cap] alone where bucket_cap_mb was given, which
 * first_bucket_bytes already says), then reversed for the Reducer. The 1
 * MiB bucket holds the model's first parameters and goes out last; a
 * bucket is ready once backward has reached its first-registered tensor.
 */
static long assign_forward(const struct model_layout *l,
			   const struct gen_ddp_options *o, bool by_flops,
			   double total, uint64_t *sz, double *frac)
{
	uint64_t limit = o->first_bucket_bytes, size = 0;
	unsigned dsize = trace_dtype_size(o->dtype);
	double before = 0, t;
	long n = 0, a, b;
	size_t i, first = 0;

	for (i = 0; i < l->nparams; i++) {
		size += l->params[i].numel * dsize;
		if (size >= limit || i + 1 == l->nparams) {
			sz[n] = size;
			/* the work after its first tensor, of the whole */
			frac[n] = first == 0 ? 1.0 : (total - before) / total;
			n++;
			size = 0;
			limit = o->bucket_cap_bytes;
			for (; first <= i; first++)
				before += backward_work(l, first, by_flops);
		}
	}
	for (a = 0, b = n - 1; a < b; a++, b--) {
		uint64_t s = sz[a];

		sz[a] = sz[b];
		sz[b] = s;
		t = frac[a];
		frac[a] = frac[b];
		frac[b] = t;
	}
	return n;
}

long gen_ddp_buckets(const struct model_layout *l,
		     const struct gen_ddp_options *o, uint64_t **sizes,
		     double **ready_frac)
{
	uint64_t numel = 0, *sz = NULL;
	double *frac = NULL, total = 0;
	bool by_flops;
	long n = 0;
	size_t i;

	*sizes = NULL;
	if (ready_frac)
		*ready_frac = NULL;
	if (check_options(o) || !l->nparams)
		return -EINVAL;
	for (i = 0; i < l->nparams; i++) {
		if (!l->params[i].numel ||
		    l->params[i].numel > UINT64_MAX / 8 - numel ||
		    !isfinite(l->params[i].flops) || l->params[i].flops < 0)
			return -EINVAL;
		numel += l->params[i].numel;
	}
	by_flops = layout_has_flops(l);
	/* Summed in the walk's order, so the last bucket's done is total. */
	for (i = l->nparams; i-- > 0;)
		total += backward_work(l, i, by_flops);
	if (!isfinite(total))
		return -EINVAL;
	/* At most one bucket per tensor. */
	sz = malloc(l->nparams * sizeof(*sz));
	frac = malloc(l->nparams * sizeof(*frac));
	if (!sz || !frac) {
		free(sz);
		free(frac);
		return -ENOMEM;
	}
	if (o->find_unused_parameters)
		n = assign_forward(l, o, by_flops, total, sz, frac);
	else
		n = assign_reverse(l, o, by_flops, total, sz, frac);
	*sizes = sz;
	if (ready_frac)
		*ready_frac = frac;
	else
		free(frac);
	return n;
}

/*
 * An iteration's compute: every micro-step's forward and backward. Under
 * no_sync() (DistributedDataParallel.no_sync, distributed.py) a backward
 * accumulates into .grad and DDP's reducer launches nothing
 * (require_backward_grad_sync is false, so forward does not
 * prepare_for_backward), so only the last micro-step's buckets go out.
 */
static double iteration_compute(const struct gen_ddp_options *o)
{
	return o->accumulate * (o->forward_us + o->backward_us);
}

/*
 * The earlier micro-steps, then forward + frac * backward of the last,
 * rounded to the nanosecond (far below what the estimate is worth) so the
 * files stay readable, never past the end of backward; the last bucket
 * (frac exactly 1) is exactly the iteration's compute.
 */
static double ready_time(const struct gen_ddp_options *o, double frac)
{
	double end = iteration_compute(o);
	double before = (o->accumulate - 1) * (o->forward_us + o->backward_us);

	if (frac >= 1.0)
		return end;
	return fmin(round((before + o->forward_us + frac * o->backward_us) *
			  1e3) / 1e3,
		    end);
}

/*
 * With find_unused_parameters, once the last bucket is launched
 * (Reducer::mark_variable_ready, next_bucket_ == buckets_.size()) the
 * Reducer all-reduces local_used_map_, an int32 a parameter, to find the
 * parameters no rank used: written as fp32, the same 4 bytes an element.
 */
static void add_used_map(struct trace *t, const struct model_layout *l,
			 unsigned it, double compute)
{
	struct trace_entry *e = &t->entries[t->nentries++];

	e->iteration = it;
	e->op = TRACE_OP_ALLREDUCE;
	e->dtype = TRACE_DTYPE_FP32;
	e->bytes = (uint64_t)l->nparams * 4;
	e->ready_us = compute;
	e->compute_us = compute;
	e->root = -1;
	e->peer = -1;
}

/*
 * DDP's first iteration, where asked: _ddp_init_helper (distributed.py)
 * buckets with [sys.maxsize] when find_unused_parameters is False (or the
 * graph static), so everything is one bucket, all-reduced once backward
 * has produced every gradient; Reducer::rebuild_buckets makes the
 * steady-state buckets before the second forward. With
 * find_unused_parameters the construction-time buckets are the only ones,
 * the first iteration's too.
 */
static bool first_iteration_one_bucket(const struct gen_ddp_options *o)
{
	return o->first_iteration && !o->find_unused_parameters;
}

static void add_whole_model(struct trace *t, const struct gen_ddp_options *o,
			    const uint64_t *sizes, long n, double compute)
{
	enum trace_dtype wire = gen_ddp_wire_dtype(o);
	struct trace_entry *e = &t->entries[t->nentries++];
	uint64_t bytes = 0;
	long b;

	for (b = 0; b < n; b++)
		bytes += sizes[b];
	e->iteration = 0;
	e->op = TRACE_OP_ALLREDUCE;
	e->dtype = wire;
	e->bytes = bytes / trace_dtype_size(o->dtype) * trace_dtype_size(wire);
	e->ready_us = compute;
	e->compute_us = compute;
	e->root = -1;
	e->peer = -1;
}

int gen_ddp_trace(const struct model_layout *l, const struct gen_ddp_options *o,
		  struct trace *t)
{
	enum trace_dtype wire = gen_ddp_wire_dtype(o);
	double *frac, compute = iteration_compute(o);
	struct trace_entry *e;
	uint64_t *sizes;
	unsigned it;
	long n, b;

	memset(t, 0, sizeof(*t));
	if (check_options(o) || !o->iterations ||
	    o->iterations > GEN_DDP_ITERATIONS_MAX ||
	    !isfinite(o->forward_us) || !isfinite(o->backward_us) ||
	    o->forward_us < 0 || o->backward_us < 0 || !isfinite(compute))
		return -EINVAL;
	n = gen_ddp_buckets(l, o, &sizes, &frac);
	if (n < 0)
		return (int)n;
	t->entries = calloc((size_t)(n + o->find_unused_parameters) *
				    o->iterations,
			    sizeof(*t->entries));
	if (!t->entries) {
		free(sizes);
		free(frac);
		return -ENOMEM;
	}
	for (it = 0; it < o->iterations; it++) {
		if (it == 0 && first_iteration_one_bucket(o)) {
			add_whole_model(t, o, sizes, n, compute);
			continue;
		}
		for (b = 0; b < n; b++) {
			e = &t->entries[t->nentries++];
			e->iteration = it;
			e->op = TRACE_OP_ALLREDUCE;
			e->dtype = wire;
			e->bytes = sizes[b] / trace_dtype_size(o->dtype) *
				   trace_dtype_size(wire);
			e->ready_us = ready_time(o, frac[b]);
			e->compute_us = compute;
			e->root = -1;
			e->peer = -1;
		}
		if (o->find_unused_parameters)
			add_used_map(t, l, it, compute);
	}
	t->niterations = o->iterations;
	snprintf(t->file, sizeof(t->file), "gen-ddp:%s", l->name);
	free(sizes);
	free(frac);
	return 0;
}
