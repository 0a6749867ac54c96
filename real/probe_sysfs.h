/* SPDX-License-Identifier: MIT */
/*
 * probe: what this machine (or a captured sysfs tree) offers GPUDirect RDMA.
 *
 * GPUs are found in sysfs by PCI vendor and class, so the probe works
 * without a driver; RDMA devices from class/infiniband. Each device's PCI
 * path is walked up to its root complex, tied to a CPU by numa_node, and
 * every GPU x NIC pair gets NCCL's path class (src/graph/topo.cc, paths.cc),
 * the ACS settings of the bridges between them, and a verdict per GDR level.
 * Driver facts (dma-buf, BAR1, C2C) come from libcuda, NVML and libibverbs,
 * loaded with dlopen (probe_driver.c) and only for the live /sys.
 *
 * A probe is one heap object with fixed arrays: probe_run() fills it,
 * probe_destroy() frees it.
 */
#ifndef GDRLAB_PROBE_SYSFS_H
#define GDRLAB_PROBE_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "topo_path.h"

#define PROBE_MAX_GPUS 64
#define PROBE_MAX_NICS 64
#define PROBE_MAX_CPUS 16
#define PROBE_MAX_SWITCHES 128
#define PROBE_MAX_BRIDGES 256
#define PROBE_MAX_DEPTH 16 /* PCI path components below a root complex */
#define PROBE_MAX_PORTS 4
#define PROBE_MAX_PAIR_BRIDGES 16
#define PROBE_BDF_MAX 24
#define PROBE_NAME_MAX 32
#define PROBE_WHY_MAX 160
#define PROBE_MAX_NVLINK_PEERS 18 /* an H100's NVLinks, each to a peer of its own at most */

enum probe_tri { PROBE_UNKNOWN, PROBE_NO, PROBE_YES };

const char *probe_tri_name(enum probe_tri t); /* "unknown", "no", "yes" */

/* PCIe generation (1..6) and lanes; 0 when sysfs does not say. */
struct probe_link {
	int max_gen, max_width;
	int cur_gen, cur_width;
};

struct probe_pcidev {
	char bdf[PROBE_BDF_MAX];  /* "0000:17:00.0" */
	char root[PROBE_BDF_MAX]; /* root complex, "pci0000:00" */
	/* Bridges from the root port down to the device's parent. */
	char path[PROBE_MAX_DEPTH][PROBE_BDF_MAX];
	unsigned depth;
	int numa;   /* numa_node as read; -1 when the kernel has none */
	int cpu;    /* index into probe.cpus */
	int parent; /* index into probe.switches; -1: on the CPU itself */
	unsigned vendor, device, class_code;
	struct probe_link link;
};

/* What is at the far end of a GPU's NVLinks (NCCL's tclass: xml.cc). */
enum probe_nvl_peer { PROBE_NVL_SWITCH, PROBE_NVL_GPU, PROBE_NVL_CPU };

/*
 * A GPU's active NVLinks to one device, as NCCL's XML records them (xml.cc
 * ncclTopoGetXmlFromGpu: <nvlink target="BUSID" count="N" tclass="...">).
 */
struct probe_nvlink {
	char target[PROBE_BDF_MAX]; /* far end's bus id, "0000:17:00.0"; "" not visible */
	unsigned links;
	enum probe_nvl_peer peer;
	int gpu; /* the far GPU's index when @peer is a GPU, else -1 */
};

struct probe_gpu {
	char name[PROBE_NAME_MAX]; /* gpu0, gpu1, ... in bus-id order */
	struct probe_pcidev pci;
	bool c2c;                       /* reaches its CPU over NVLink-C2C */
	char c2c_why[PROBE_WHY_MAX];    /* how that was decided */
	enum probe_tri dmabuf;          /* CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED */
	char dmabuf_why[PROBE_WHY_MAX];
	bool bar1_known;
	uint64_t bar1_total, bar1_free; /* bytes, from NVML */
	int sm;                   /* compute capability x 10 (CUDA driver); 0 not known */
	int id_sm;                /* the same, as the PCI id implies (a known C2C part); 0 */
	enum probe_tri multicast; /* CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED: NVLink SHARP */
	enum probe_tri gdr_support; /* CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED */
	enum probe_tri peer_access; /* cuDeviceCanAccessPeer to some other GPU */
	bool nvlinks_read;        /* NVML was asked for its NVLinks (probe_nvlink.c) */
	unsigned nnvlinks;
	struct probe_nvlink nvlinks[PROBE_MAX_NVLINK_PEERS];
};

struct probe_port {
	unsigned num;
	char state[32];      /* "4: ACTIVE" */
	char rate[48];       /* "200 Gb/sec (4X HDR)" */
	char link_layer[16]; /* "InfiniBand", "Ethernet" */
	double gbit;         /* parsed rate, Gbit/s; 0 when unknown */
};

struct probe_nic {
	char name[PROBE_NAME_MAX]; /* the RDMA device name, mlx5_0 */
	bool is_pci;               /* false: software device or outside the tree */
	struct probe_pcidev pci;
	unsigned nports;
	struct probe_port ports[PROBE_MAX_PORTS];
	enum probe_tri dmabuf; /* ibv_reg_dmabuf_mr(pd, 0, 0, 0, -1, 0) */
	char dmabuf_why[PROBE_WHY_MAX];
};

/*
 * A PCIe switch as NCCL sees it: it walks up two sysfs levels at a time
 * (xml.cc, ncclTopoGetXmlFromSys), so a switch is keyed by its upstream
 * port and the downstream port is folded into it. A Broadcom PEX switch
 * that shows itself as two levels is then flattened into one, as NCCL's
 * ncclTopoFlattenBcmSwitches does (probe_bcm.c).
 */
struct probe_switch {
	char name[PROBE_NAME_MAX]; /* sw0, ... */
	char bdf[PROBE_BDF_MAX];   /* upstream port */
	int cpu;
	int parent; /* switch index, or -1: on the CPU */
	unsigned vendor, device;
	unsigned subsys_vendor, subsys_device; /* 0 when sysfs has none */
	unsigned folded; /* Broadcom sub-switches flattened into this one */
	struct probe_link link; /* the upstream port's link */
};

struct probe_cpu {
	char name[PROBE_NAME_MAX]; /* cpu0, ... */
	int numa;                  /* NUMA node; -1 folded into 0 */
};

/* ACS extended capability (PCIe base spec 7.7.8), control register bits. */
#define PROBE_ACS_SV 0x01 /* source validation */
#define PROBE_ACS_TB 0x02 /* translation blocking */
#define PROBE_ACS_RR 0x04 /* P2P request redirect: breaks P2P */
#define PROBE_ACS_CR 0x08 /* P2P completion redirect: breaks P2P */
#define PROBE_ACS_UF 0x10 /* upstream forwarding */
#define PROBE_ACS_EC 0x20 /* P2P egress control */
#define PROBE_ACS_DT 0x40 /* direct translated P2P */
#define PROBE_ACS_ID 0x0d

enum probe_acs_state {
	PROBE_ACS_NEEDS_ROOT, /* config read returned only 64 bytes */
	PROBE_ACS_UNREADABLE, /* no config file, or a read error */
	PROBE_ACS_NO_EXT,     /* no extended config space (256 bytes) */
	PROBE_ACS_ABSENT,     /* extended space, no ACS capability */
	PROBE_ACS_CLEAR,      /* ACS present, neither RR nor CR */
	PROBE_ACS_REDIRECT,   /* RR or CR set */
};

const char *probe_acs_state_name(enum probe_acs_state s);

struct probe_bridge {
	char bdf[PROBE_BDF_MAX];
	enum probe_acs_state acs;
	uint16_t ctrl; /* ACS control register, when read */
};

/*
 * Find the ACS capability in a config-space image. Returns 0 and *ctrl, or
 * -EACCES (64 bytes: what a non-root read gets), -ENODATA (no extended
 * space), -ENOENT (no ACS capability), -EINVAL (broken capability list).
 */
int probe_acs_parse(const uint8_t *cfg, size_t len, uint16_t *ctrl);
/* "SrcValid+ TransBlk- ReqRedir+ ..." as lspci -vvv writes ACSCtl. */
void probe_acs_flags(uint16_t ctrl, char *buf, size_t len);

/* NCCL's class of a GPU-NIC pair: P2C is a PHB path whose GPU side is C2C. */
struct probe_class {
	enum topo_path_type type;
	bool p2c;
};

const char *probe_class_name(struct probe_class c); /* PIX ... P2C ... SYS */

struct probe_pair {
	struct probe_class cls;
	unsigned nbridges;
	int bridges[PROBE_MAX_PAIR_BRIDGES]; /* index into probe.bridges */
	bool acs_redirect; /* RR/CR on a bridge where P2P would turn around */
	bool acs_unknown;  /* some bridge's ACS could not be read */
};

struct probe {
	char sysfs[4096]; /* the tree read, as given */
	bool live;        /* the drivers of this machine were asked too */
	char cuda[PROBE_WHY_MAX], nvml[PROBE_WHY_MAX], verbs[PROBE_WHY_MAX];
	enum probe_tri peermem;
	char peermem_why[PROBE_WHY_MAX];
	char cpu_vendor[8]; /* "intel", "amd", "arm"; "" not known */
	char cpu_vendor_why[PROBE_WHY_MAX];
	bool cpu_vendor_c2c; /* told by a GPU's NVLink-C2C, not by /proc/cpuinfo */
	/* An Intel CPU's class as NCCL takes it from CPUID family and model
	 * (topology's cpu_model: "broadwell", ..., "emerald_rapids"); ""
	 * not known, or not Intel. */
	char cpu_model[24];
	char cpu_model_why[PROBE_WHY_MAX];

	unsigned ncpus, nswitches, ngpus, nnics, nbridges;
	struct probe_cpu cpus[PROBE_MAX_CPUS];
	struct probe_switch switches[PROBE_MAX_SWITCHES];
	struct probe_gpu gpus[PROBE_MAX_GPUS];
	struct probe_nic nics[PROBE_MAX_NICS];
	struct probe_bridge bridges[PROBE_MAX_BRIDGES];
	struct probe_pair pairs[PROBE_MAX_GPUS][PROBE_MAX_NICS]; /* PCI NICs only */
	unsigned nwarnings;
	char warnings[8][PROBE_WHY_MAX]; /* what was skipped, and why */
};

struct probe_options {
	const char *sysfs; /* NULL: "/sys" */
	bool drivers;      /* ask libcuda/NVML/libibverbs (only for the live /sys) */
};

/*
 * Read the tree and classify. Returns 0, or -ENOENT/-ENOTDIR/-EACCES with
 * "DIR: problem" in @d when the tree cannot be read, -ENOMEM. A tree with
 * no GPU or no RDMA device is not an error.
 */
int probe_run(const struct probe_options *opt, struct probe **out,
	      struct diag *d);
void probe_destroy(struct probe *p);

/* The CPU vendor as NCCL's tuner takes it, and an Intel CPU's class as its
 * topology does (cpu family and model), from @cpuinfo ("/proc/cpuinfo" of
 * the live machine; probe_cpu.c); never fails, says why instead. */
void probe_cpu_vendor(struct probe *p, const char *cpuinfo);

/* Where /proc/cpuinfo did not say (a captured tree), a GPU on NVLink-C2C
 * does: the CPU is a Grace, an Arm CPU (probe_cpu.c). */
void probe_c2c_cpu_vendor(struct probe *p);

/* Fill the driver facts (probe_driver.c); never fails, says why instead. */
void probe_drivers(struct probe *p);

/* Whether a pair of class @c is within GDR level @level; with @allow_p2c,
 * P2C is within it too (NCCL's default on C2C systems, NCCL_NET_GDR_C2C). */
bool probe_class_within(struct probe_class c, enum topo_path_type level,
			bool allow_p2c);

enum probe_gdr { PROBE_GDR_NO, PROBE_GDR_MAYBE, PROBE_GDR_YES };

const char *probe_gdr_name(enum probe_gdr v); /* "no", "maybe", "yes" */

/*
 * Would GPUDirect RDMA be used between GPU @g and NIC @n at @level? NO
 * names the first reason (distance, ACS redirect, no peermem or dma-buf);
 * MAYBE names what could not be found out (ACS needs root, no driver).
 */
enum probe_gdr probe_gdr_verdict(const struct probe *p, unsigned g,
				 unsigned n, enum topo_path_type level,
				 bool allow_p2c, char *why, size_t len);

/* The NIC is part of the GPU x NIC matrix (it sits on PCI in this tree). */
static inline bool probe_nic_in_matrix(const struct probe *p, unsigned n)
{
	return n < p->nnics && p->nics[n].is_pci;
}

#endif
