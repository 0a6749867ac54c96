/* SPDX-License-Identifier: MIT */
/* gpu_reg: dma-buf, else peermem (see gpu_reg.h). */
#define _GNU_SOURCE /* RTLD_NOLOAD */
#include "gpu_reg.h"

#include <dlfcn.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mem_cuda.h"

typedef struct ibv_mr *(*reg_dmabuf_fn)(struct ibv_pd *, uint64_t, size_t,
					uint64_t, int, int);

/*
 * ibv_reg_dmabuf_mr is IBVERBS_1.12 (rdma-core >= 34): looked up at run
 * time in the libibverbs already loaded, so that gdrlab still starts with
 * an older one and says why dma-buf is out.
 */
static reg_dmabuf_fn find_reg_dmabuf(void)
{
	void *h = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_NOLOAD);
	void *f = h ? dlsym(h, "ibv_reg_dmabuf_mr") : NULL;
	reg_dmabuf_fn fn;

	if (h)
		dlclose(h); /* RTLD_NOLOAD took a reference; the library stays */
	memcpy(&fn, &f, sizeof(fn));
	return fn;
}

/* The same list as probe_sysfs.c's scan_peermem. */
const char *gpu_reg_peermem(const char *sys, char *buf, size_t len)
{
	static const char *const paths[] = {
		"module/nvidia_peermem", "module/nv_peer_mem",
		"kernel/mm/memory_peers/nv_mem",
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		snprintf(buf, len, "%s/%s", sys, paths[i]);
		if (!access(buf, F_OK))
			return buf;
	}
	return NULL;
}

static int reg_dmabuf(struct mem_cuda *m, struct ibv_pd *pd, void *ptr,
		      size_t len, int access, struct ibv_mr **mr,
		      struct diag *d)
{
	reg_dmabuf_fn fn = find_reg_dmabuf();
	size_t off;
	int fd, err;

	if (!fn)
		return diag_set(d, -EOPNOTSUPP,
				"libibverbs lacks ibv_reg_dmabuf_mr (rdma-core < 34)");
	err = mem_cuda_dmabuf_export(m, ptr, len, &fd, &off, d);
	if (err)
		return err;
	*mr = fn(pd, off, len, (uint64_t)(uintptr_t)ptr, fd, access);
	if (!*mr)
		err = diag_set(d, errno ? -errno : -EIO,
			       "ibv_reg_dmabuf_mr(%zu bytes): %s%s", len, strerror(errno),
			       errno == EOPNOTSUPP || errno == EPROTONOSUPPORT ?
			       " (NIC driver or kernel < 5.12 without dma-buf)" : "");
	close(fd); /* the MR holds its own reference to the dma-buf */
	return err;
}

int gpu_reg_mr(struct mem_cuda *m, struct ibv_pd *pd, void *ptr, size_t len,
	       int access, struct ibv_mr **mr, const char **how,
	       struct diag *d)
{
	struct diag dd = { "" };
	char path[128];
	unsigned one = 1;
	int gdr = 0, err;

	*mr = NULL;
	*how = NULL;
	/* The READ flush reads this memory back over a loopback QP
	 * (rdma_flush.c); NCCL registers every buffer with REMOTE_READ
	 * (net_ib/reg.cc), gdrlab only when it flushes that way. */
	if (m->flush == MEM_CUDA_FLUSH_READ)
		access |= IBV_ACCESS_REMOTE_READ;
	/* A GPU without GPUDirect RDMA (GeForce, some workstation cards)
	 * says so, and NCCL asks this before anything else
	 * (src/plugin/net.cc ncclGpuGdrSupport, v2.30.7-1): give that
	 * reason rather than the EFAULT/EINVAL ibv_reg_mr would answer. A
	 * driver < 11.3 has no such attribute: then try. */
	if (!m->cu->DeviceGetAttribute(&gdr, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED,
				       m->dev) && !gdr)
		return diag_set(d, -EOPNOTSUPP,
				"cannot register GPU memory with the NIC: %s has no GPUDirect RDMA (CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED = 0): only the staged path works here",
				m->name);
	err = cu_check(m->cu, m->cu->CtxSetCurrent(m->ctx), "cuCtxSetCurrent", d);
	if (!err)
		err = cu_check(m->cu,
			       m->cu->PointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
							  (CUdeviceptr)(uintptr_t)ptr),
			       "cuPointerSetAttribute(SYNC_MEMOPS)", d);
	if (err)
		return err;
	err = reg_dmabuf(m, pd, ptr, len, access, mr, &dd);
	if (!err) {
		/* for the READ flush: the MR does not say its iova */
		mem_cuda_reg_note(m, pd, *mr, ptr, len);
		*how = GPU_REG_DMABUF;
		return 0;
	}
	if (!gpu_reg_peermem("/sys", path, sizeof(path)))
		return diag_set(d, err,
				"cannot register GPU memory with the NIC: %s; and nvidia-peermem is not loaded (modprobe nvidia-peermem)",
				dd.msg);
	*mr = ibv_reg_mr(pd, ptr, len, access);
	if (!*mr)
		return diag_set(d, errno ? -errno : -EIO,
				"cannot register GPU memory with the NIC: %s; ibv_reg_mr with %s: %s",
				dd.msg, path, strerror(errno));
	mem_cuda_reg_note(m, pd, *mr, ptr, len);
	*how = GPU_REG_PEERMEM;
	return 0;
}

int gpu_reg_mr_op(void *ctx, struct ibv_pd *pd, void *ptr, size_t len,
		  int access, struct ibv_mr **mr, const char **how)
{
	struct mem_cuda *m = ctx;

	return gpu_reg_mr(m, pd, ptr, len, access, mr, how, &m->err);
}
