/* SPDX-License-Identifier: MIT */
/*
 * gen_ddp: make a DDP trace from a model's parameter layout, bucketing the
 * gradients as PyTorch's DistributedDataParallel does
 * (torch/csrc/distributed/c10d/reducer.cpp, compute_bucket_assignment_by_size):
 * parameters are taken in reverse order, a bucket is closed as soon as its
 * size reaches the current cap, the first cap is 1 MiB and the others
 * bucket_cap_mb (25 MiB by default).
 */
#ifndef GDRLAB_GEN_DDP_H
#define GDRLAB_GEN_DDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "trace.h"

struct model_param {
	const char *name; /* static or owned by the layout */
	uint64_t numel;
	/*
	 * Forward FLOPs of one sample whose backward runs between the previous
	 * parameter's gradient (walking backwards) and this one's: a weight's
	 * matrix multiply or convolution, 0 for a bias or a norm. 0 on every
	 * parameter when unknown (layout files): backward is then taken as
	 * proportional to the parameters.
	 */
	double flops;
};

struct model_layout {
	char name[64];
	size_t nparams;
	struct model_param *params; /* owned; in registration (forward) order */
	char *names;                /* owned storage behind params[].name, may be NULL */
	double flops_per_sample;    /* forward FLOPs for one sample, 0 if unknown;
				     * the sum of the params' flops */
};

/* Built-in layouts computed from the architecture: "resnet50",
 * "bert-large", "llama2-7b". Returns -ENOENT for an unknown name. */
int model_layout_builtin(const char *name, struct model_layout *l);
/* Names of the built-in layouts, NULL-terminated. */
extern const char *const model_layout_builtin_names[];
/* Read a layout file: one "name numel" per line, '#' comments. */
int model_layout_load(const char *path, struct model_layout *l,
		      struct diag *d);
uint64_t model_layout_numel(const struct model_layout *l);
void model_layout_destroy(struct model_layout *l);

/* The DDP communication hook run on each bucket (register_comm_hook). */
enum gen_ddp_hook {
	GEN_DDP_HOOK_ALLREDUCE, /* none: the bucket all-reduced as it is */
	GEN_DDP_HOOK_FP16,      /* default_hooks.fp16_compress_hook */
	GEN_DDP_HOOK_BF16,      /* default_hooks.bf16_compress_hook */
};

struct gen_ddp_options {
	enum trace_dtype dtype;
	uint64_t first_bucket_bytes; /* 1 MiB in PyTorch */
	uint64_t bucket_cap_bytes;   /* 25 MiB in PyTorch */
	unsigned iterations;
	double forward_us;  /* forward compute time per micro-step */
	double backward_us; /* backward compute time per micro-step */
	enum gen_ddp_hook hook;
	/* Micro-steps an iteration (gradient accumulation): all but the last
	 * under no_sync(), so only the last one's backward all-reduces. */
	unsigned accumulate;
	/* DDP's find_unused_parameters=True: the construction-time buckets,
	 * never rebuilt, and the used-parameter map all-reduced after them. */
	bool find_unused_parameters;
	/* Iteration 0 as DDP's first: one bucket of every gradient (before
	 * Reducer::rebuild_buckets); else every iteration is steady state. */
	bool first_iteration;
};

void gen_ddp_options_default(struct gen_ddp_options *o);
/* Most micro-steps an iteration: keeps the trace's sizes far from overflow. */
#define GEN_DDP_ACCUMULATE_MAX 65536u
/* The dtype a bucket goes on the wire in, after the hook. */
enum trace_dtype gen_ddp_wire_dtype(const struct gen_ddp_options *o);
/* Whether DDP can have gradients of @dt: floating point only. */
bool gen_ddp_dtype_ok(enum trace_dtype dt);

/*
 * Bucket sizes in bytes in the order DDP launches them (first = the last
 * parameters of the model). Returns the number of buckets, or a negative
 * errno. *sizes is malloc'ed; the caller frees it. @ready_frac receives,
 * per bucket, the fraction of backward compute done when it is ready
 * (may be NULL): by the parameters' FLOPs where the layout has them, else
 * by their element counts.
 */
long gen_ddp_buckets(const struct model_layout *l,
		     const struct gen_ddp_options *o, uint64_t **sizes,
		     double **ready_frac);

/* The whole trace: one allreduce per bucket per iteration. */
int gen_ddp_trace(const struct model_layout *l, const struct gen_ddp_options *o,
		  struct trace *t);

#endif
