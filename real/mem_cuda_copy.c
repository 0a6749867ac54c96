/* SPDX-License-Identifier: MIT */
/*
 * mem_cuda_copy: staged copies between pinned host memory and the GPU on
 * two streams taken in turn, each copy between two events of its own
 * (see mem_cuda.h).
 *
 * Copies on one stream run one after the other; on two, an H2D and a D2H
 * run at once on their own copy engines, and two of one direction hide
 * each other's fixed cost (about 2 us each: notes/real-gpudirect.md).
 * The end event of a copy is what says its bounce buffer is free
 * (cuEventQuery), as an application keeps an event per buffer. Streams
 * do not order each other: a copy whose GPU range overlaps one still in
 * flight on the other stream first waits for it with cuStreamWaitEvent,
 * so the data path gets the order in which it issued them.
 */
#include "mem_cuda_priv.h"

#include <errno.h>
#include <string.h>

static bool overlaps(CUdeviceptr a, size_t alen, CUdeviceptr b, size_t blen)
{
	return a < b + blen && b < a + alen;
}

int mem_cuda_order_after(struct mem_cuda *m, CUstream s, CUdeviceptr p,
			 size_t len, int self)
{
	for (int i = 0; i < MEM_CUDA_COPIES; i++) {
		struct mem_cuda_copy *c = &m->copies[i];
		int err;

		if (i == self || !c->busy || m->copy_stream[c->stream] == s ||
		    !overlaps(p, len, c->gpu, c->len))
			continue;
		err = mem_cuda_check(m, m->cu->StreamWaitEvent(s, c->done, 0),
				     "cuStreamWaitEvent");
		if (err)
			return err;
	}
	return 0;
}

/* A free copy slot on the next stream in turn; -EBUSY when none. */
static int take(struct mem_cuda *m, CUdeviceptr gpu, size_t len,
		unsigned *ticket)
{
	for (unsigned i = 0; i < MEM_CUDA_COPIES; i++) {
		struct mem_cuda_copy *c = &m->copies[i];

		if (c->busy)
			continue;
		c->busy = true;
		c->stream = m->next_stream++ % MEM_CUDA_STREAMS;
		c->gpu = gpu;
		c->len = len;
		*ticket = i;
		return 0;
	}
	return diag_set(&m->err, -EBUSY,
			"%d staged copies in flight: wait for one first (mem_cuda_copy_test)",
			MEM_CUDA_COPIES);
}

/* Enqueue one copy between its events: H2D when @to_gpu. */
static int start(struct mem_cuda *m, bool to_gpu, void *gpu, void *host,
		 size_t len, unsigned *ticket)
{
	CUdeviceptr g = mem_cuda_dptr(gpu);
	struct mem_cuda_copy *c;
	CUstream s;
	int err = mem_cuda_current(m);

	if (!err)
		err = take(m, g, len, ticket);
	if (err)
		return err;
	c = &m->copies[*ticket];
	s = m->copy_stream[c->stream];
	err = mem_cuda_order_after(m, s, g, len, (int)*ticket);
	if (!err)
		err = mem_cuda_check(m, m->cu->EventRecord(c->start, s), "cuEventRecord");
	if (!err && to_gpu)
		err = mem_cuda_check(m, m->cu->MemcpyHtoDAsync(g, host, len, s),
				     "cuMemcpyHtoDAsync");
	else if (!err)
		err = mem_cuda_check(m, m->cu->MemcpyDtoHAsync(host, g, len, s),
				     "cuMemcpyDtoHAsync");
	if (!err)
		err = mem_cuda_check(m, m->cu->EventRecord(c->done, s), "cuEventRecord");
	if (err)
		c->busy = false;
	return err;
}

int mem_cuda_copy_in_start(void *ctx, void *gpu, const void *host, size_t len,
			   unsigned *ticket)
{
	return start(ctx, true, gpu, (void *)host, len, ticket);
}

int mem_cuda_copy_out_start(void *ctx, void *host, const void *gpu, size_t len,
			    unsigned *ticket)
{
	return start(ctx, false, (void *)gpu, host, len, ticket);
}

/* The copy ended (@rc of its end event): free the slot, keep its time. */
static int finished(struct mem_cuda *m, struct mem_cuda_copy *c, CUresult rc)
{
	float ms = 0;
	int err = mem_cuda_check(m, rc, "staged copy");

	c->busy = false;
	if (!err)
		err = mem_cuda_check(m, m->cu->EventElapsedTime(&ms, c->start, c->done),
				     "cuEventElapsedTime");
	m->last_copy_us = err ? 0 : ms * 1e3;
	return err;
}

/* Copy @ticket, in flight, with the device's context current; NULL with
 * the error in *@err otherwise. */
static struct mem_cuda_copy *busy_copy(struct mem_cuda *m, unsigned ticket, int *err)
{
	if (ticket >= MEM_CUDA_COPIES || !m->copies[ticket].busy) {
		*err = diag_set(&m->err, -EINVAL, "no staged copy %u in flight", ticket);
		return NULL;
	}
	*err = mem_cuda_current(m);
	return *err ? NULL : &m->copies[ticket];
}

int mem_cuda_copy_test(void *ctx, unsigned ticket)
{
	struct mem_cuda *m = ctx;
	int err;
	struct mem_cuda_copy *c = busy_copy(m, ticket, &err);
	CUresult rc;

	if (!c)
		return err;
	rc = m->cu->EventQuery(c->done);
	if (rc == CUDA_ERROR_NOT_READY)
		return -EAGAIN;
	return finished(m, c, rc);
}

int mem_cuda_copy_wait(void *ctx, unsigned ticket)
{
	struct mem_cuda *m = ctx;
	int err;
	struct mem_cuda_copy *c = busy_copy(m, ticket, &err);

	if (!c)
		return err;
	return finished(m, c, m->cu->EventSynchronize(c->done));
}

int mem_cuda_copy_in(void *ctx, void *gpu, const void *host, size_t len)
{
	unsigned t = 0;
	int err = mem_cuda_copy_in_start(ctx, gpu, host, len, &t);

	return err ? err : mem_cuda_copy_wait(ctx, t);
}

int mem_cuda_copy_out(void *ctx, void *host, const void *gpu, size_t len)
{
	unsigned t = 0;
	int err = mem_cuda_copy_out_start(ctx, host, gpu, len, &t);

	return err ? err : mem_cuda_copy_wait(ctx, t);
}

int mem_cuda_copies_open(struct mem_cuda *m, struct diag *d)
{
	const struct cu_api *cu = m->cu;
	int err = 0;

	for (unsigned s = 0; !err && s < MEM_CUDA_STREAMS; s++)
		err = cu_check(cu, cu->StreamCreate(&m->copy_stream[s], CU_STREAM_NON_BLOCKING),
			       "cuStreamCreate (copies)", d);
	for (unsigned i = 0; !err && i < MEM_CUDA_COPIES; i++) {
		err = cu_check(cu, cu->EventCreate(&m->copies[i].start, CU_EVENT_DEFAULT),
			       "cuEventCreate", d);
		if (!err)
			err = cu_check(cu, cu->EventCreate(&m->copies[i].done, CU_EVENT_DEFAULT),
				       "cuEventCreate", d);
	}
	return err;
}

/* Keeps going after a failure; the context is current. */
void mem_cuda_copies_close(struct mem_cuda *m)
{
	const struct cu_api *cu = m->cu;

	for (unsigned s = 0; s < MEM_CUDA_STREAMS; s++)
		if (m->copy_stream[s])
			cu->StreamSynchronize(m->copy_stream[s]);
	for (unsigned i = 0; i < MEM_CUDA_COPIES; i++) {
		if (m->copies[i].done)
			cu->EventDestroy(m->copies[i].done);
		if (m->copies[i].start)
			cu->EventDestroy(m->copies[i].start);
	}
	for (unsigned s = 0; s < MEM_CUDA_STREAMS; s++)
		if (m->copy_stream[s])
			cu->StreamDestroy(m->copy_stream[s]);
	memset(m->copies, 0, sizeof(m->copies));
}
