/* SPDX-License-Identifier: MIT */
/*
 * probe_driver: what only the drivers can say, asked through libraries
 * loaded at run time (dlopen), as NCCL, perftest and UCX do, so that one
 * binary runs where they are missing:
 *   libcuda.so.1      per GPU: CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, the
 *                     compute capability, multicast (NVLink SHARP),
 *                     GPUDirect RDMA support; peer access between GPUs
 *   libnvidia-ml.so.1 BAR1 total/free; C2C mode (what NCCL's xml.cc asks
 *                     with nvmlDeviceGetC2cModeInfoV); each GPU's NVLinks
 *                     and their far ends, as xml.cc reads them
 *   libibverbs.so.1   the dma-buf probe NCCL and UCX use:
 *                     ibv_reg_dmabuf_mr(pd, 0, 0, 0, -1, 0) fails with
 *                     EOPNOTSUPP/EPROTONOSUPPORT when unsupported, with
 *                     something else (EBADF) when supported.
 * The vendor types are declared here, opaque or as the few fields used, so
 * that no vendor header is needed to build.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "probe_nvlink.h"
#include "probe_read.h"
#include "probe_sysfs.h"

/* cuda.h's CUdevice_attribute values */
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED 116 /* CUDA >= 11.3 */
#define CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED 124 /* CUDA >= 11.7 */
#define CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED 132 /* CUDA >= 12.0 */

typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_count_fn)(int *);
typedef int (*cu_get_fn)(int *, int);
typedef int (*cu_busid_fn)(char *, int, int);
typedef int (*cu_attr_fn)(int *, int, int);
typedef int (*cu_peer_fn)(int *, int, int);

typedef struct nvml_device *nvml_device_t;
struct nvml_bar1 {
	unsigned long long total, free, used; /* nvmlBAR1Memory_t */
};
struct nvml_c2c {
	unsigned int enabled; /* nvmlC2cModeInfo_v1_t.isC2cEnabled */
};
/* nvmlPciInfo_t as NCCL declares it for the unversioned calls (nvmlwrap.h):
 * the legacy 16-byte bus id first; room to spare past its end. */
struct nvml_pci {
	char bus_id[16];
	unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
	unsigned int reserved[4];
	unsigned char spare[64];
};
/* nvmlFieldValue_t (nvml.h), for NVML_FI_DEV_NVLINK_GET_STATE */
struct nvml_field {
	unsigned int field_id, scope_id;
	long long timestamp, latency_usec;
	int value_type, nvml_return;
	union {
		double d;
		unsigned int ui;
		unsigned long long ull;
	} value;
};
#define NVML_NVLINK_CAP_P2P_SUPPORTED 0
#define NVML_FI_DEV_NVLINK_GET_STATE 165
typedef int (*nvml_init_fn)(void);
typedef int (*nvml_handle_fn)(const char *, nvml_device_t *);
typedef int (*nvml_bar1_fn)(nvml_device_t, struct nvml_bar1 *);
typedef int (*nvml_c2c_fn)(nvml_device_t, struct nvml_c2c *);
typedef int (*nvml_link_cap_fn)(nvml_device_t, unsigned int, int, unsigned int *);
typedef int (*nvml_link_state_fn)(nvml_device_t, unsigned int, int *);
typedef int (*nvml_link_pci_fn)(nvml_device_t, unsigned int, struct nvml_pci *);
typedef int (*nvml_fields_fn)(nvml_device_t, int, struct nvml_field *);

struct ibv_device;
struct ibv_context;
struct ibv_pd;
struct ibv_mr;
typedef struct ibv_device **(*ibv_list_fn)(int *);
typedef void (*ibv_free_list_fn)(struct ibv_device **);
typedef const char *(*ibv_name_fn)(struct ibv_device *);
typedef struct ibv_context *(*ibv_open_fn)(struct ibv_device *);
typedef int (*ibv_close_fn)(struct ibv_context *);
typedef struct ibv_pd *(*ibv_pd_fn)(struct ibv_context *);
typedef int (*ibv_dealloc_fn)(struct ibv_pd *);
typedef struct ibv_mr *(*ibv_dmabuf_fn)(struct ibv_pd *, uint64_t, size_t,
					uint64_t, int, int);
typedef int (*ibv_dereg_fn)(struct ibv_mr *);

static struct probe_gpu *gpu_by_bdf(struct probe *p, const char *bdf)
{
	int i = probe_gpu_at(p, bdf);

	return i >= 0 ? &p->gpus[i] : NULL;
}

static void set_gpus_dmabuf_why(struct probe *p, const char *why)
{
	unsigned i;

	for (i = 0; i < p->ngpus; i++)
		snprintf(p->gpus[i].dmabuf_why, PROBE_WHY_MAX, "unknown (%s)", why);
}

/* What the CUDA driver says of GPU @g, device @dev. */
static void cuda_gpu_facts(cu_attr_fn attr, int dev, struct probe_gpu *g)
{
	int v, minor;

	if (!attr(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) &&
	    !attr(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
		g->sm = v * 10 + minor;
	/* what NCCL asks before NVLS (nvls.cc ncclNvlsInit) */
	if (!attr(&v, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, dev))
		g->multicast = v ? PROBE_YES : PROBE_NO;
	/* and before it lets a NIC touch GPU memory (ncclGpuGdrSupport) */
	if (!attr(&v, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, dev))
		g->gdr_support = v ? PROBE_YES : PROBE_NO;
	if (attr(&v, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, dev)) {
		snprintf(g->dmabuf_why, PROBE_WHY_MAX, "unknown (driver too old for the attribute)");
		return;
	}
	g->dmabuf = v ? PROBE_YES : PROBE_NO;
	snprintf(g->dmabuf_why, PROBE_WHY_MAX, "%s (CUDA driver attribute)", v ? "yes" : "no");
}

/*
 * Peer access as NCCL's P2P transport asks it (p2p.cc p2pCanConnect,
 * cudaDeviceCanAccessPeer): a GPU no other GPU can reach is "no" (GeForce
 * cards from the 40 series), one some can is "yes"; @devs[i] is GPU i's
 * device, -1 where CUDA does not list it.
 */
static void cuda_peer_access(struct probe *p, cu_peer_fn can, const int *devs)
{
	for (unsigned i = 0; i < p->ngpus; i++) {
		unsigned asked = 0, yes = 0;

		for (unsigned j = 0; j < p->ngpus; j++) {
			int v = 0;

			if (j == i || devs[i] < 0 || devs[j] < 0 || can(&v, devs[i], devs[j]))
				continue;
			asked++;
			yes += v != 0;
		}
		if (asked)
			p->gpus[i].peer_access = yes ? PROBE_YES : PROBE_NO;
	}
}

static void probe_cuda(struct probe *p)
{
	cu_init_fn init;
	cu_count_fn count;
	cu_get_fn get;
	cu_busid_fn busid;
	cu_attr_fn attr;
	cu_peer_fn peer;
	char bdf[64];
	int n = 0, i, dev, rc, devs[PROBE_MAX_GPUS];
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(p->cuda, sizeof(p->cuda), "libcuda.so.1 not found");
		set_gpus_dmabuf_why(p, "no driver");
		return;
	}
	init = (cu_init_fn)dlsym(h, "cuInit");
	count = (cu_count_fn)dlsym(h, "cuDeviceGetCount");
	get = (cu_get_fn)dlsym(h, "cuDeviceGet");
	busid = (cu_busid_fn)dlsym(h, "cuDeviceGetPCIBusId");
	attr = (cu_attr_fn)dlsym(h, "cuDeviceGetAttribute");
	peer = (cu_peer_fn)dlsym(h, "cuDeviceCanAccessPeer");
	if (!init || !count || !get || !busid || !attr) {
		snprintf(p->cuda, sizeof(p->cuda), "libcuda.so.1 lacks the driver API");
		set_gpus_dmabuf_why(p, "no driver");
		goto out_close;
	}
	rc = init(0);
	if (rc) {
		/* CUresult; 100 is CUDA_ERROR_NO_DEVICE. */
		snprintf(p->cuda, sizeof(p->cuda), "cuInit failed: CUresult %d", rc);
		set_gpus_dmabuf_why(p, "cuInit failed");
		goto out_close;
	}
	if (count(&n))
		n = 0;
	snprintf(p->cuda, sizeof(p->cuda), "libcuda.so.1: %d device(s)", n);
	for (unsigned k = 0; k < PROBE_MAX_GPUS; k++)
		devs[k] = -1;
	for (i = 0; i < n; i++) {
		struct probe_gpu *g;

		if (get(&dev, i) || busid(bdf, sizeof(bdf), dev))
			continue;
		g = gpu_by_bdf(p, bdf);
		if (!g)
			continue;
		devs[g - p->gpus] = dev;
		cuda_gpu_facts(attr, dev, g);
	}
	if (peer)
		cuda_peer_access(p, peer, devs);
out_close:
	dlclose(h);
}

struct nvml_links {
	nvml_link_cap_fn cap;
	nvml_link_state_fn state;
	nvml_link_pci_fn remote;
	nvml_fields_fn fields;
};

/* The links NCCL asks about, by compute capability (xml.cc maxNvLinks);
 * all an H100 has when the CUDA driver did not say. */
static unsigned max_nvlinks(int sm)
{
	return !sm ? 18 : sm < 60 ? 0 : sm < 70 ? 4 : sm < 80 ? 6 : sm < 90 ? 12 : 18;
}

/* NCCL's test: from Hopper the NVLINK_GET_STATE field, before it
 * nvmlDeviceGetNvLinkState (xml.cc). */
static bool link_active(const struct nvml_links *n, nvml_device_t dev, int sm, unsigned l)
{
	int active = 0;

	if (sm >= 90 && n->fields) {
		struct nvml_field fv = { .field_id = NVML_FI_DEV_NVLINK_GET_STATE, .scope_id = l };

		return !n->fields(dev, 1, &fv) && !fv.nvml_return && fv.value.ui == 1;
	}
	return !n->state(dev, l, &active) && active == 1;
}

/* @g's active NVLinks that carry P2P, counted by far end (probe_nvlink.c). */
static void read_nvlinks(const struct nvml_links *n, nvml_device_t dev, struct probe_gpu *g)
{
	for (unsigned l = 0; l < max_nvlinks(g->sm); l++) {
		unsigned int p2p = 0;
		struct nvml_pci pci;

		if (n->cap(dev, l, NVML_NVLINK_CAP_P2P_SUPPORTED, &p2p) || !p2p ||
		    !link_active(n, dev, g->sm, l))
			continue;
		memset(&pci, 0, sizeof(pci));
		if (n->remote(dev, l, &pci))
			continue;
		pci.bus_id[sizeof(pci.bus_id) - 1] = '\0';
		if (probe_nvlink_add(g, pci.bus_id))
			break;
	}
	g->nvlinks_read = true;
}

static void probe_nvml(struct probe *p)
{
	struct nvml_links links;
	nvml_init_fn init, shutdown;
	nvml_handle_fn handle;
	nvml_bar1_fn bar1;
	nvml_c2c_fn c2c;
	nvml_device_t dev;
	struct nvml_bar1 b;
	struct nvml_c2c c;
	unsigned i;
	int rc;
	void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(p->nvml, sizeof(p->nvml), "libnvidia-ml.so.1 not found");
		return;
	}
	init = (nvml_init_fn)dlsym(h, "nvmlInit_v2");
	shutdown = (nvml_init_fn)dlsym(h, "nvmlShutdown");
	handle = (nvml_handle_fn)dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2");
	bar1 = (nvml_bar1_fn)dlsym(h, "nvmlDeviceGetBAR1MemoryInfo");
	c2c = (nvml_c2c_fn)dlsym(h, "nvmlDeviceGetC2cModeInfoV"); /* optional */
	/* the unversioned names, as NCCL's nvmlwrap.cc */
	links.cap = (nvml_link_cap_fn)dlsym(h, "nvmlDeviceGetNvLinkCapability");
	links.state = (nvml_link_state_fn)dlsym(h, "nvmlDeviceGetNvLinkState");
	links.remote = (nvml_link_pci_fn)dlsym(h, "nvmlDeviceGetNvLinkRemotePciInfo");
	links.fields = (nvml_fields_fn)dlsym(h, "nvmlDeviceGetFieldValues");
	if (!init || !shutdown || !handle || !bar1) {
		snprintf(p->nvml, sizeof(p->nvml), "libnvidia-ml.so.1 lacks the calls used");
		goto out_close;
	}
	rc = init();
	if (rc) {
		snprintf(p->nvml, sizeof(p->nvml), "nvmlInit failed: nvmlReturn_t %d", rc);
		goto out_close;
	}
	snprintf(p->nvml, sizeof(p->nvml), "libnvidia-ml.so.1%s",
		 links.cap && links.state && links.remote ? "" :
		 " (NVLinks not read: it lacks the NVLink calls)");
	for (i = 0; i < p->ngpus; i++) {
		struct probe_gpu *g = &p->gpus[i];

		if (handle(g->pci.bdf, &dev))
			continue;
		if (!bar1(dev, &b)) {
			g->bar1_known = true;
			g->bar1_total = b.total;
			g->bar1_free = b.free;
		}
		if (c2c && !c2c(dev, &c)) {
			g->c2c = c.enabled != 0;
			snprintf(g->c2c_why, PROBE_WHY_MAX, "NVML C2C mode %s",
				 c.enabled ? "enabled" : "disabled");
		}
		if (links.cap && links.state && links.remote)
			read_nvlinks(&links, dev, g);
	}
	probe_nvlink_classify(p);
	shutdown();
out_close:
	dlclose(h);
}

struct verbs {
	ibv_list_fn list;
	ibv_free_list_fn free_list;
	ibv_name_fn name;
	ibv_open_fn open;
	ibv_close_fn close;
	ibv_pd_fn alloc_pd;
	ibv_dealloc_fn dealloc_pd;
	ibv_dmabuf_fn reg_dmabuf;
	ibv_dereg_fn dereg;
};

/* NCCL's probe (net_ib/init.cc, ncclIbDmaBufSupport); UCX does the same. */
static void dmabuf_probe(const struct verbs *v, struct ibv_device *d,
			 struct probe_nic *nic)
{
	struct ibv_context *ctx = v->open(d);
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	int err;

	if (!ctx) {
		snprintf(nic->dmabuf_why, PROBE_WHY_MAX, "unknown (cannot open: %s)",
			 strerror(errno));
		return;
	}
	pd = v->alloc_pd(ctx);
	if (!pd) {
		snprintf(nic->dmabuf_why, PROBE_WHY_MAX,
			 "unknown (cannot allocate a PD: %s)", strerror(errno));
		goto out_close;
	}
	errno = 0;
	mr = v->reg_dmabuf(pd, 0, 0, 0, -1, 0);
	err = errno;
	if (mr)
		v->dereg(mr);
	nic->dmabuf = err == EOPNOTSUPP || err == EPROTONOSUPPORT ? PROBE_NO : PROBE_YES;
	snprintf(nic->dmabuf_why, PROBE_WHY_MAX, "%s (ibv_reg_dmabuf_mr probe: %s)",
		 probe_tri_name(nic->dmabuf), err ? strerror(err) : "registered");
	v->dealloc_pd(pd);
out_close:
	v->close(ctx);
}

static void probe_verbs(struct probe *p)
{
	struct ibv_device **list;
	struct verbs v;
	unsigned k;
	int n = 0, i;
	void *h;

	if (!p->nnics) {
		snprintf(p->verbs, sizeof(p->verbs), "not asked (no RDMA device)");
		return;
	}
	h = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(p->verbs, sizeof(p->verbs), "libibverbs.so.1 not found");
		for (k = 0; k < p->nnics; k++)
			snprintf(p->nics[k].dmabuf_why, PROBE_WHY_MAX,
				 "unknown (no libibverbs)");
		return;
	}
	v.list = (ibv_list_fn)dlsym(h, "ibv_get_device_list");
	v.free_list = (ibv_free_list_fn)dlsym(h, "ibv_free_device_list");
	v.name = (ibv_name_fn)dlsym(h, "ibv_get_device_name");
	v.open = (ibv_open_fn)dlsym(h, "ibv_open_device");
	v.close = (ibv_close_fn)dlsym(h, "ibv_close_device");
	v.alloc_pd = (ibv_pd_fn)dlsym(h, "ibv_alloc_pd");
	v.dealloc_pd = (ibv_dealloc_fn)dlsym(h, "ibv_dealloc_pd");
	v.reg_dmabuf = (ibv_dmabuf_fn)dlsym(h, "ibv_reg_dmabuf_mr");
	v.dereg = (ibv_dereg_fn)dlsym(h, "ibv_dereg_mr");
	if (!v.list || !v.free_list || !v.name || !v.open || !v.close ||
	    !v.alloc_pd || !v.dealloc_pd || !v.dereg) {
		snprintf(p->verbs, sizeof(p->verbs), "libibverbs.so.1 lacks the calls used");
		goto out_close;
	}
	if (!v.reg_dmabuf) {
		/* rdma-core < 34: no dma-buf at all, whatever the kernel has. */
		snprintf(p->verbs, sizeof(p->verbs),
			 "libibverbs.so.1 has no ibv_reg_dmabuf_mr (rdma-core too old)");
		for (k = 0; k < p->nnics; k++) {
			p->nics[k].dmabuf = PROBE_NO;
			snprintf(p->nics[k].dmabuf_why, PROBE_WHY_MAX,
				 "no (libibverbs without ibv_reg_dmabuf_mr)");
		}
		goto out_close;
	}
	list = v.list(&n);
	if (!list) {
		snprintf(p->verbs, sizeof(p->verbs), "ibv_get_device_list: %s",
			 strerror(errno));
		goto out_close;
	}
	snprintf(p->verbs, sizeof(p->verbs), "libibverbs.so.1: %d device(s)", n);
	for (i = 0; i < n; i++)
		for (k = 0; k < p->nnics; k++)
			if (!strcmp(v.name(list[i]), p->nics[k].name))
				dmabuf_probe(&v, list[i], &p->nics[k]);
	v.free_list(list);
out_close:
	dlclose(h);
}

void probe_drivers(struct probe *p)
{
	if (p->ngpus) {
		probe_cuda(p);
		probe_nvml(p);
	} else {
		snprintf(p->cuda, sizeof(p->cuda), "not asked (no GPU)");
		snprintf(p->nvml, sizeof(p->nvml), "not asked (no GPU)");
	}
	probe_verbs(p);
}
