/* SPDX-License-Identifier: MIT */
/* mem_cuda internals shared by mem_cuda.c, mem_cuda_copy.c and
 * mem_cuda_flush.c. Not for use outside them. */
#ifndef GDRLAB_MEM_CUDA_PRIV_H
#define GDRLAB_MEM_CUDA_PRIV_H

#include <stdint.h>

#include "mem_cuda.h"

static inline CUdeviceptr mem_cuda_dptr(const void *p)
{
	return (CUdeviceptr)(uintptr_t)p;
}

/* A CUresult into -errno, with CUDA's message in m->err. */
static inline int mem_cuda_check(struct mem_cuda *m, CUresult rc, const char *what)
{
	return cu_check(m->cu, rc, what, &m->err);
}

/* Every op makes the context current first: the data path may call from
 * a thread that did not open it. */
static inline int mem_cuda_current(struct mem_cuda *m)
{
	return mem_cuda_check(m, m->cu->CtxSetCurrent(m->ctx), "cuCtxSetCurrent");
}

/* The copy streams and their events (mem_cuda_copy.c); close waits for
 * copies still in flight. */
int mem_cuda_copies_open(struct mem_cuda *m, struct diag *d);
void mem_cuda_copies_close(struct mem_cuda *m);
/* Make @s wait, on the GPU, for the in-flight copies (other than @self,
 * -1 for none) whose GPU range overlaps [@p, @p + @len). */
int mem_cuda_order_after(struct mem_cuda *m, CUstream s, CUdeviceptr p,
			 size_t len, int self);

/* Decide m->flush from the device (mem_cuda_flush.c); close the QPs. */
void mem_cuda_flush_init(struct mem_cuda *m);
void mem_cuda_flush_close(struct mem_cuda *m);

#endif
