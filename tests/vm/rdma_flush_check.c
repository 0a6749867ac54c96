/* SPDX-License-Identifier: MIT */
/*
 * rdma_flush_check DEVICE GID_INDEX: real/rdma_flush.c on a real rxe
 * device, where no GPU is needed: the flush QP connected to itself reads
 * bytes of a registered buffer (host memory standing in for the GPU's),
 * at its first byte, at addresses across it and at its last, and refuses
 * one outside it; every READ must complete. On a GPU machine the same
 * code reads GPU memory (mem_cuda_flush.c); this is the verbs half of it,
 * which nothing else runs where no NVIDIA GPU is.
 * Exit: 0 all passed, 1 a check failed, 2 usage or set-up.
 */
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma_flush.h"

#define LEN (1u << 20)

static int n, failed;

static void check(int ok, const char *what, const char *msg)
{
	/* the diag's message only with a failure: it keeps the last one */
	printf("%sok %d - %s%s%s\n", ok ? "" : "not ", ++n, what,
	       !ok && msg && *msg ? ": " : "", !ok && msg ? msg : "");
	failed |= !ok;
}

static struct ibv_context *open_dev(const char *name)
{
	int count;
	struct ibv_device **list = ibv_get_device_list(&count);
	struct ibv_context *ctx = NULL;

	for (int i = 0; list && i < count && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct rdma_flush *f = NULL;
	struct rdma_flush_path path;
	struct diag d = { "" };
	unsigned char *buf;
	int reads_ok = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: rdma_flush_check DEVICE GID_INDEX\n");
		return 2;
	}
	ctx = open_dev(argv[1]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	buf = aligned_alloc(4096, LEN);
	mr = pd && buf ? ibv_reg_mr(pd, buf, LEN, IBV_ACCESS_LOCAL_WRITE |
					   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ) :
			 NULL;
	if (!mr) {
		fprintf(stderr, "rdma_flush_check: cannot open %s and register %u bytes\n",
			argv[1], LEN);
		return 2;
	}
	memset(buf, 0x5a, LEN);
	/* a traffic class and service level as a job's NCCL_IB_TC/_SL
	 * would give the data QPs, which the flush QP takes too */
	path = (struct rdma_flush_path){ 1, atoi(argv[2]), 106, 3 };
	check(rdma_flush_open(&f, pd, mr, NULL, 0, &path, &d) == 0,
	      "a flush QP connected to itself on port 1, class 106, level 3", d.msg);
	if (f) {
		check(rdma_flush_pd(f) == pd, "on the data path's PD", NULL);
		check(rdma_flush_read(f, NULL, &d) == 0, "READ of the first byte", d.msg);
		for (unsigned k = 0; k < 64 && reads_ok; k++)
			reads_ok = rdma_flush_read(f, buf + (size_t)k * (LEN / 64) + k, &d) == 0;
		check(reads_ok, "64 READs across the buffer, one in flight at a time", d.msg);
		check(rdma_flush_read(f, buf + LEN - 1, &d) == 0, "READ of the last byte", d.msg);
		check(!rdma_flush_covers(f, buf + LEN) &&
			      rdma_flush_read(f, buf + LEN, &d) == -22 &&
			      strstr(d.msg, "outside the registered GPU memory"),
		      "an address past the buffer refused", d.msg);
		check(rdma_flush_read(f, buf, &d) == 0, "the QP still good after that", d.msg);
	}
	rdma_flush_close(f);
	/* a range given explicitly, as for a dma-buf MR, whose addr is its
	 * dma-buf offset: READs address that range, not mr->addr */
	f = NULL;
	check(rdma_flush_open(&f, pd, mr, buf + 4096, LEN - 4096, &path, &d) == 0,
	      "a flush QP given the MR's range", d.msg);
	if (f) {
		check(!rdma_flush_covers(f, buf) && rdma_flush_covers(f, buf + 4096),
		      "covers the range given, not the MR's addr", NULL);
		check(rdma_flush_read(f, NULL, &d) == 0, "READ of the range's first byte", d.msg);
	}
	rdma_flush_close(f);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(buf);
	printf("1..%d\n", n);
	return failed;
}
