/* SPDX-License-Identifier: MIT */
/*
 * import_kineto_old: the kineto importer's reading of PyTorch profiler
 * traces from before PyTorch 2.1, whose collectives carry no arguments
 * of their own. A call is then the record function ProcessGroupNCCL
 * opens around it, "nccl:all_reduce", "nccl:_all_gather_base", ...
 * (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp, collective()'s
 * profilingTitle), with its input tensors' "Input Dims" (the elements:
 * the sum over the tensors of the product of their dims) and "Input
 * type"; its element type is in the NCCL kernel it launched
 * (nccl_kernel.h), the GPU event whose "External id" is the call's (as
 * the profiler links a kernel to the op that launched it; pytorch/kineto
 * tb_plugin/test/test_profiler.py, test_distributed_nccl, has such a
 * pair). A copy's kernel (all-gather) names no type: "Input type", else
 * --dtype. Nothing names a call's process group: --world N says every
 * call is every rank's, and calls whose kernels run on more than one
 * stream of a rank (one a communicator) are refused.
 *
 * Traces of PyTorch 2.1 and later have such events too, copies of their
 * record_param_comms calls: a file's events are read this way only when
 * it has no record_param_comms with a "Collective name".
 */
#ifndef GDRLAB_IMPORT_KINETO_OLD_H
#define GDRLAB_IMPORT_KINETO_OLD_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "import_calls.h"
#include "nccl_kernel.h"

struct kold_call;
struct kold_kernel;

/* One file's nccl:* calls and NCCL kernels, until its end. */
struct kold {
	struct kold_call *calls;
	size_t ncalls, cap_calls;
	struct kold_kernel *kernels;
	size_t nkernels, cap_kernels;
};

/* What the end of a file needs to know of it. */
struct kold_file {
	const char *name;
	unsigned index;   /* among the import's files */
	int rank;         /* distributedInfo's; -1 when absent */
	int world;        /* distributedInfo's world_size; -1 when absent */
	const struct import_options *o;
};

/* What a trace leaves out, counted for its header's note: a call's kind
 * in the importers' tables less one (0 is a collective, read). */
enum kskip {
	KSKIP_P2P,       /* a send or receive whose peer is not recorded */
	KSKIP_NOTHING,   /* barrier, wait, no bytes: nothing to time */
	KSKIP_BROADCAST, /* a broadcast whose root is not recorded */
	KSKIP_ROOTED,    /* reduce, gather, scatter: no op of the trace */
	KSKIP_N
};

/* An event named @name (at @line, @ts): kept when it is a nccl:* call or
 * an NCCL kernel. 0 or -ENOMEM. */
int kold_event(struct kold *k, const json_t *e, const char *name, double ts, unsigned line,
	       const char *file, struct diag *d);
/*
 * The file's calls, each joined to its kernel, into @calls (ready for
 * import_calls_end_file); what is left out counted in @skipped as the
 * kineto importer counts (enum kskip: point-to-point, nothing to time,
 * broadcasts, other rooted calls).
 * 0, or -EINVAL with @calls' diag "file:line: key: problem".
 */
int kold_end_file(struct kold *k, const struct kold_file *f, struct import_calls *calls,
		  unsigned skipped[KSKIP_N]);
void kold_clear(struct kold *k); /* for the next file */
void kold_free(struct kold *k);

#endif
