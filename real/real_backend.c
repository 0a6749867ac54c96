/* SPDX-License-Identifier: MIT */
/*
 * The real backend: real bytes from CUDA memory over a real RDMA NIC,
 * GPUDirect (dma-buf or peermem, gpu_reg.c) or staged through pinned host
 * memory. It is emu's machinery (ranks, bootstrap, verbs data path,
 * collectives, data checks) with mem_cuda_ops in place of host memory.
 *
 * probe says why it cannot run here: "no NVIDIA GPU: ..." first (the
 * driver is dlopen'ed), then "no RDMA device: ...".
 */
#include "real_backend.h"

#include <errno.h>
#include <stdio.h>

#include "child_call.h"
#include "cuda_driver.h"
#include "gpu_reg.h"
#include "mem_cuda.h"
#include "emu_backend.h"
#include "emu_rank.h"
#include "verbs_path.h"

static int open_driver(void *arg, void *answer, size_t len, struct diag *d)
{
	struct cu_api *cu;
	int err = cu_open(&cu, d);

	(void)arg, (void)answer, (void)len;
	cu_close(cu);
	return err;
}

/* Whether the driver loads and sees a GPU, asked in a child: a process
 * that ran cuInit cannot use CUDA in the ranks it forks afterwards. */
static int check_gpu(struct diag *d)
{
	return child_call("real backend: probing the CUDA driver", open_driver,
			  NULL, NULL, 0, d);
}

static int check_nic(struct diag *d)
{
	struct diag ld = { "" };
	char **names = NULL;
	unsigned n = 0;
	int err = vp_list_devices(&names, &n, &ld);

	vp_free_names(names, n);
	if (err)
		return diag_set(d, -ENODEV, "no RDMA device: %s", ld.msg);
	return 0;
}

static int real_probe(char *why, size_t len)
{
	struct diag d = { "" };
	int err = check_gpu(&d);

	if (!err)
		err = check_nic(&d);
	if (err)
		snprintf(why, len, "%s", d.msg);
	return err;
}

int real_mem_open(void *arg, unsigned rank, unsigned local_rank,
		  const struct vp_mem_ops **ops, void **ctx, struct diag *d)
{
	struct mem_cuda *m;
	struct cu_api *cu;
	int n, err;

	err = cu_open(&cu, d);
	if (err)
		return err;
	n = cu->ndevices;
	cu_close(cu);
	err = mem_cuda_open(&m, (int)(local_rank % (unsigned)n), 0, d);
	if (err)
		return err;
	if (!m->red_ok) {
		mem_cuda_close(m);
		return diag_set(d, -ENOSYS,
				"rank %u: gdrlab was built without the CUDA toolkit: no reduction kernels",
				rank);
	}
	*ops = &mem_cuda_ops;
	*ctx = m;
	return 0;
}

void real_mem_close(void *ctx)
{
	mem_cuda_close(ctx);
}

/* Each rank opens its own CUDA context after the fork (CUDA state does
 * not survive fork), on GPU local_rank of its node. */
static const struct emu_mem real_mem = {
	.open = real_mem_open,
	.close = real_mem_close,
};

static int real_run(const struct plan *p, struct records *rec, struct diag *d)
{
	int err = check_gpu(d);

	if (!err)
		err = check_nic(d);
	if (err)
		return err;
	return emu_run_with(p, rec, &real_mem, d);
}

const struct backend_ops real_backend_ops = {
	.size = sizeof(struct backend_ops),
	.name = "real",
	.description = "real bytes from CUDA memory over RDMA NICs (GPUDirect via dma-buf or peermem, or staged)",
	.caps = BACKEND_CAP_WALL_CLOCK | BACKEND_CAP_GPU_MEMORY | BACKEND_CAP_DATA_CHECK,
	.probe = real_probe,
	.run = real_run,
};
