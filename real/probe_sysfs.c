/* SPDX-License-Identifier: MIT */
/*
 * probe_sysfs: GPUs, RDMA devices and the PCIe tree between them, from a
 * sysfs tree. The walk follows NCCL's (src/graph/xml.cc,
 * ncclTopoGetXmlFromSys; src/graph/topo.cc; src/graph/paths.cc): realpath
 * of the device, up the parents to a component not in BDF form (the root
 * complex), which is tied to a CPU by numa_node.
 */
/* realpath() is an XSI interface in glibc. */
#define _XOPEN_SOURCE 700

#include "probe_sysfs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "probe_read.h"

#define PCI_VENDOR_NVIDIA 0x10de

/* Grace-coupled GPUs whose only data path to the CPU is NVLink-C2C (PCI
 * ids from pci.ids: GH100 [GH200 120GB / 480GB], [GH200 144G HBM3e]).
 * sysfs has no C2C attribute; NVML's C2C mode replaces this guess when the
 * driver is there (probe_driver.c). The id names the GPU too: a GH200's
 * is a Hopper, compute capability 9.0 (NVIDIA's CUDA GPUs list), which a
 * captured tree cannot ask the CUDA driver. */
static const struct {
	unsigned device;
	int sm;
} c2c_parts[] = { { 0x2342, 90 }, { 0x2348, 90 } };

const char *probe_tri_name(enum probe_tri t)
{
	return t == PROBE_YES ? "yes" : t == PROBE_NO ? "no" : "unknown";
}

/* "DDDD:BB:DD.F" with a 4 to 8 digit domain (VMD domains have 5). */
static bool is_bdf(const char *s)
{
	size_t n = 0, i;

	while (isxdigit((unsigned char)s[n]))
		n++;
	if (n < 4 || n > 8 || s[n] != ':')
		return false;
	s += n + 1;
	for (i = 0; i < 2; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	if (s[2] != ':' || !isxdigit((unsigned char)s[3]) ||
	    !isxdigit((unsigned char)s[4]) || s[5] != '.' || s[6] < '0' ||
	    s[6] > '7' || s[7])
		return false;
	return true;
}

/* A note on what was skipped; a long name just shortens the note. */
static void warn(struct probe *p, const char *fmt, const char *a, const char *b)
{
	char *slot;

	if (p->nwarnings == sizeof(p->warnings) / sizeof(p->warnings[0]))
		return;
	slot = p->warnings[p->nwarnings++];
	probe_fmt(slot, PROBE_WHY_MAX, fmt, a, b);
}

static void read_link(const char *dir, struct probe_link *l)
{
	char buf[64];
	long v;

	if (!probe_read_line(dir, "max_link_speed", buf, sizeof(buf)))
		l->max_gen = probe_speed_gen(buf);
	if (!probe_read_line(dir, "current_link_speed", buf, sizeof(buf)))
		l->cur_gen = probe_speed_gen(buf);
	if (!probe_read_long(dir, "max_link_width", 10, &v) && v > 0 && v <= 32)
		l->max_width = (int)v;
	if (!probe_read_long(dir, "current_link_width", 10, &v) && v > 0 && v <= 32)
		l->cur_width = (int)v;
}

/*
 * Fill @dev from the device directory @link points to. Returns 0, or
 * -ENOENT when it is not a PCI device inside the tree @real_root.
 */
static int read_pcidev(const char *real_root, const char *link,
		       struct probe_pcidev *dev)
{
	char real[PATH_MAX], devices[PATH_MAX + 16];
	char *rest, *tok, *save = NULL;
	char comps[PROBE_MAX_DEPTH + 2][PROBE_BDF_MAX];
	unsigned n = 0, i;
	long v;

	if (!realpath(link, real))
		return -errno;
	snprintf(devices, sizeof(devices), "%s/devices/", real_root);
	if (strncmp(real, devices, strlen(devices)))
		return -ENOENT;
	rest = real + strlen(devices);
	for (tok = strtok_r(rest, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (n == PROBE_MAX_DEPTH + 2 || strlen(tok) >= PROBE_BDF_MAX)
			return -E2BIG;
		snprintf(comps[n++], PROBE_BDF_MAX, "%s", tok);
	}
	/* pciDDDD:BB, then BDFs only, the last one the device itself. */
	if (n < 2 || strncmp(comps[0], "pci", 3) || is_bdf(comps[0]))
		return -ENOENT;
	for (i = 1; i < n; i++)
		if (!is_bdf(comps[i]))
			return -ENOENT;
	memset(dev, 0, sizeof(*dev));
	memcpy(dev->root, comps[0], PROBE_BDF_MAX);
	memcpy(dev->bdf, comps[n - 1], PROBE_BDF_MAX);
	dev->depth = n - 2;
	for (i = 0; i < dev->depth; i++)
		memcpy(dev->path[i], comps[i + 1], PROBE_BDF_MAX);
	dev->parent = -1;
	dev->numa = -1;
	/* The root port carries the root complex's node; the device's own
	 * numa_node is the fallback (a device directly on the complex). */
	snprintf(real, sizeof(real), "%s/devices/%s/%s", real_root, dev->root,
		 dev->depth ? dev->path[0] : dev->bdf);
	if (!probe_read_long(real, "numa_node", 10, &v) ||
	    !probe_read_long(link, "numa_node", 10, &v))
		dev->numa = (int)v;
	if (!probe_read_long(link, "vendor", 16, &v))
		dev->vendor = (unsigned)v;
	if (!probe_read_long(link, "device", 16, &v))
		dev->device = (unsigned)v;
	if (!probe_read_long(link, "class", 16, &v))
		dev->class_code = (unsigned)v;
	read_link(link, &dev->link);
	return 0;
}

static int scan_gpus(struct probe *p, const char *real_root)
{
	char dir[PATH_MAX], link[PATH_MAX + 256];
	struct dirent *e;
	DIR *dp;
	long vendor, cls;
	int err;

	if (probe_fmt(dir, sizeof(dir), "%s/bus/pci/devices", real_root))
		return -ENAMETOOLONG;
	dp = opendir(dir);
	if (!dp)
		return -errno;
	while ((e = readdir(dp))) {
		struct probe_gpu *g;

		if (e->d_name[0] == '.')
			continue;
		if (probe_fmt(link, sizeof(link), "%s/%s", dir, e->d_name) ||
		    probe_read_long(link, "vendor", 16, &vendor) ||
		    probe_read_long(link, "class", 16, &cls))
			continue;
		/* VGA (0x0300xx) or 3D controller (0x0302xx): what NCCL and
		 * nvidia-smi count as GPUs; NVSwitches and audio are not. */
		if (vendor != PCI_VENDOR_NVIDIA ||
		    ((cls >> 8) != 0x0300 && (cls >> 8) != 0x0302))
			continue;
		if (p->ngpus == PROBE_MAX_GPUS) {
			warn(p, "%s: more than 64 GPUs, the rest skipped%s", e->d_name, "");
			break;
		}
		g = &p->gpus[p->ngpus];
		err = read_pcidev(real_root, link, &g->pci);
		if (err) {
			warn(p, "%s: GPU not under a PCI root complex (%s), skipped",
			     e->d_name, strerror(-err));
			continue;
		}
		p->ngpus++;
	}
	closedir(dp);
	return 0;
}

static void read_ports(const char *ibdir, struct probe_nic *nic)
{
	char dir[PATH_MAX], port[PATH_MAX + 256];
	struct dirent **list;
	int n, i;

	if (probe_fmt(dir, sizeof(dir), "%s/ports", ibdir))
		return;
	n = scandir(dir, &list, NULL, alphasort);
	if (n < 0)
		return;
	for (i = 0; i < n; i++) {
		struct probe_port *pp;
		char *end;
		unsigned long num = strtoul(list[i]->d_name, &end, 10);

		if (*end || end == list[i]->d_name || nic->nports == PROBE_MAX_PORTS)
			continue;
		pp = &nic->ports[nic->nports++];
		pp->num = (unsigned)num;
		if (probe_fmt(port, sizeof(port), "%s/%s", dir, list[i]->d_name))
			continue;
		probe_read_line(port, "state", pp->state, sizeof(pp->state));
		probe_read_line(port, "link_layer", pp->link_layer,
				sizeof(pp->link_layer));
		/* "200 Gb/sec (4X HDR)": the kernel's ib_sysfs rate_show. */
		if (!probe_read_line(port, "rate", pp->rate, sizeof(pp->rate)) &&
		    strstr(pp->rate, "Gb/sec"))
			pp->gbit = strtod(pp->rate, NULL);
	}
	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

static int scan_nics(struct probe *p, const char *real_root)
{
	char dir[PATH_MAX], ib[PATH_MAX + 256], link[PATH_MAX + 512];
	struct dirent *e;
	DIR *dp;
	int err;

	if (probe_fmt(dir, sizeof(dir), "%s/class/infiniband", real_root))
		return -ENAMETOOLONG;
	dp = opendir(dir);
	if (!dp)
		return errno == ENOENT ? 0 : -errno; /* no RDMA stack loaded */
	while ((e = readdir(dp))) {
		struct probe_nic *nic;

		if (e->d_name[0] == '.')
			continue;
		if (p->nnics == PROBE_MAX_NICS) {
			warn(p, "%s: more than 64 RDMA devices, the rest skipped%s",
			     e->d_name, "");
			break;
		}
		nic = &p->nics[p->nnics];
		if (probe_fmt(nic->name, sizeof(nic->name), "%s", e->d_name) ||
		    probe_fmt(ib, sizeof(ib), "%s/%s", dir, e->d_name) ||
		    probe_fmt(link, sizeof(link), "%s/device", ib)) {
			warn(p, "%.64s...: RDMA device name too long%s, skipped",
			     e->d_name, "");
			memset(nic, 0, sizeof(*nic));
			continue;
		}
		p->nnics++;
		err = read_pcidev(real_root, link, &nic->pci);
		nic->is_pci = !err;
		if (err)
			warn(p, "%s: not a PCI device in this tree (%s): left out of the matrix",
			     nic->name, strerror(-err));
		read_ports(ib, nic);
		nic->dmabuf = PROBE_UNKNOWN;
	}
	closedir(dp);
	return 0;
}

/*
 * nvidia-peermem (or the older nv_peer_mem) lets ibv_reg_mr take GPU
 * memory. The same three places NCCL looks (src/transport/net_ib/gdr.cc);
 * memory_peers is gone on kernels >= 6.6.
 */
static void scan_peermem(struct probe *p, const char *real_root)
{
	static const char *const where[] = {
		"module/nvidia_peermem", "module/nv_peer_mem",
		"kernel/mm/memory_peers/nv_mem",
	};
	char path[PATH_MAX + 64];
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", real_root, where[i]);
		if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
			p->peermem = PROBE_YES;
			snprintf(p->peermem_why, sizeof(p->peermem_why),
				 "loaded (%s)", where[i]);
			return;
		}
	}
	snprintf(path, sizeof(path), "%s/module", real_root);
	if (stat(path, &st)) {
		p->peermem = PROBE_UNKNOWN;
		snprintf(p->peermem_why, sizeof(p->peermem_why),
			 "unknown (no module/ in this tree)");
		return;
	}
	p->peermem = PROBE_NO;
	snprintf(p->peermem_why, sizeof(p->peermem_why),
		 "not loaded (no module/nvidia_peermem or nv_peer_mem)");
}

static int cmp_gpu(const void *a, const void *b)
{
	return strcmp(((const struct probe_gpu *)a)->pci.bdf,
		      ((const struct probe_gpu *)b)->pci.bdf);
}

static int cmp_nic(const void *a, const void *b)
{
	return strcmp(((const struct probe_nic *)a)->name,
		      ((const struct probe_nic *)b)->name);
}

static int numa_of(const struct probe_pcidev *d)
{
	return d->numa < 0 ? 0 : d->numa; /* -1: no NUMA info, one node */
}

static void add_cpu(struct probe *p, int numa)
{
	unsigned i, k;

	for (i = 0; i < p->ncpus; i++)
		if (p->cpus[i].numa == numa)
			return;
	if (p->ncpus == PROBE_MAX_CPUS)
		return;
	for (k = p->ncpus; k > 0 && p->cpus[k - 1].numa > numa; k--)
		p->cpus[k] = p->cpus[k - 1];
	p->cpus[k].numa = numa;
	p->ncpus++;
}

static int cpu_index(const struct probe *p, int numa)
{
	unsigned i;

	for (i = 0; i < p->ncpus; i++)
		if (p->cpus[i].numa == numa)
			return (int)i;
	return 0;
}

/* Component @i of a device's sysfs path: root, bridges, the device. */
static const char *comp(const struct probe_pcidev *d, unsigned i)
{
	if (i == 0)
		return d->root;
	if (i <= d->depth)
		return d->path[i - 1];
	return d->bdf;
}

/*
 * The PCI nodes NCCL builds above a device, nearest first, as component
 * indices: from the device go up two sysfs levels at a time, stopping at
 * the root complex (xml.cc: "Rewind two '/' and follow the upper PCI
 * switch, or stop if we reach a CPU root complex").
 */
static unsigned nccl_nodes(const struct probe_pcidev *d, unsigned *idx)
{
	unsigned cur = d->depth + 1, n = 0;

	for (;;) {
		if (--cur == 0 || --cur == 0)
			return n;
		idx[n++] = cur;
	}
}

static int find_switch(const struct probe *p, const char *bdf)
{
	unsigned i;

	for (i = 0; i < p->nswitches; i++)
		if (!strcmp(p->switches[i].bdf, bdf))
			return (int)i;
	return -1;
}

static int cmp_switch(const void *a, const void *b)
{
	return strcmp(((const struct probe_switch *)a)->bdf,
		      ((const struct probe_switch *)b)->bdf);
}

/* Register the switches above @d (pass 1), or resolve parents (pass 2). */
static void link_switches(struct probe *p, const char *real_root,
			  struct probe_pcidev *d, int pass)
{
	unsigned idx[PROBE_MAX_DEPTH], n = nccl_nodes(d, idx), i, k;
	char dir[PATH_MAX + PROBE_MAX_DEPTH * PROBE_BDF_MAX];
	struct probe_switch *s;
	size_t off;
	long v;

	if (pass == 2) {
		d->parent = n ? find_switch(p, comp(d, idx[0])) : -1;
		for (i = 0; i < n; i++) {
			s = &p->switches[find_switch(p, comp(d, idx[i]))];
			s->parent = i + 1 < n ? find_switch(p, comp(d, idx[i + 1])) : -1;
		}
		return;
	}
	for (i = 0; i < n; i++) {
		if (find_switch(p, comp(d, idx[i])) >= 0)
			continue;
		if (p->nswitches == PROBE_MAX_SWITCHES)
			return;
		s = &p->switches[p->nswitches++];
		snprintf(s->bdf, sizeof(s->bdf), "%s", comp(d, idx[i]));
		s->cpu = d->cpu;
		off = (size_t)snprintf(dir, sizeof(dir), "%s/devices", real_root);
		for (k = 0; k <= idx[i]; k++)
			off += (size_t)snprintf(dir + off, sizeof(dir) - off, "/%s",
						comp(d, k));
		if (!probe_read_long(dir, "vendor", 16, &v))
			s->vendor = (unsigned)v;
		if (!probe_read_long(dir, "device", 16, &v))
			s->device = (unsigned)v;
		/* NCCL's switch id has them too (topo.cc, ncclTopoGetIntDevice):
		 * they tell a Broadcom PEX switch's levels apart. */
		if (!probe_read_long(dir, "subsystem_vendor", 16, &v))
			s->subsys_vendor = (unsigned)v;
		if (!probe_read_long(dir, "subsystem_device", 16, &v))
			s->subsys_device = (unsigned)v;
		read_link(dir, &s->link);
	}
}

static void build_tree(struct probe *p, const char *real_root)
{
	unsigned i;
	int pass;

	for (i = 0; i < p->ngpus; i++)
		add_cpu(p, numa_of(&p->gpus[i].pci));
	for (i = 0; i < p->nnics; i++)
		if (p->nics[i].is_pci)
			add_cpu(p, numa_of(&p->nics[i].pci));
	for (i = 0; i < p->ncpus; i++)
		snprintf(p->cpus[i].name, sizeof(p->cpus[i].name), "cpu%u", i);
	for (i = 0; i < p->ngpus; i++)
		p->gpus[i].pci.cpu = cpu_index(p, numa_of(&p->gpus[i].pci));
	for (i = 0; i < p->nnics; i++)
		p->nics[i].pci.cpu = cpu_index(p, numa_of(&p->nics[i].pci));
	for (pass = 1; pass <= 2; pass++) {
		for (i = 0; i < p->ngpus; i++)
			link_switches(p, real_root, &p->gpus[i].pci, pass);
		for (i = 0; i < p->nnics; i++)
			if (p->nics[i].is_pci)
				link_switches(p, real_root, &p->nics[i].pci, pass);
		if (pass == 1) {
			qsort(p->switches, p->nswitches, sizeof(p->switches[0]),
			      cmp_switch);
			for (i = 0; i < p->nswitches; i++)
				snprintf(p->switches[i].name,
					 sizeof(p->switches[i].name), "sw%u", i);
		}
	}
	/* NCCL flattens before it computes paths (topo.cc,
	 * ncclTopoGetSystemFromXml). */
	probe_flatten_bcm(p);
}

static void guess_c2c(struct probe_gpu *g)
{
	size_t i;

	for (i = 0; i < sizeof(c2c_parts) / sizeof(c2c_parts[0]); i++) {
		if (g->pci.device == c2c_parts[i].device) {
			g->c2c = true;
			g->id_sm = c2c_parts[i].sm;
			snprintf(g->c2c_why, sizeof(g->c2c_why),
				 "PCI id 10de:%04x is a Grace Hopper superchip",
				 g->pci.device);
			return;
		}
	}
	snprintf(g->c2c_why, sizeof(g->c2c_why), "PCIe (not a known C2C part)");
}

int probe_run(const struct probe_options *opt, struct probe **out,
	      struct diag *d)
{
	const char *sysfs = opt && opt->sysfs ? opt->sysfs : "/sys";
	char real_root[PATH_MAX], dir[PATH_MAX + 32];
	struct probe *p;
	struct stat st;
	unsigned i;
	int err;

	*out = NULL;
	if (stat(sysfs, &st))
		return diag_set(d, -errno, "%s: %s", sysfs, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return diag_set(d, -ENOTDIR, "%s: not a directory", sysfs);
	if (!realpath(sysfs, real_root))
		return diag_set(d, -errno, "%s: %s", sysfs, strerror(errno));
	snprintf(dir, sizeof(dir), "%s/bus/pci/devices", real_root);
	if (stat(dir, &st))
		return diag_set(d, -ENOENT,
				"%s: not a sysfs tree (no bus/pci/devices)", sysfs);
	p = calloc(1, sizeof(*p));
	if (!p)
		return diag_set(d, -ENOMEM, "%s: out of memory", sysfs);
	snprintf(p->sysfs, sizeof(p->sysfs), "%s", sysfs);
	err = scan_gpus(p, real_root);
	if (!err)
		err = scan_nics(p, real_root);
	if (err) {
		diag_set(d, err, "%s: cannot read: %s", sysfs, strerror(-err));
		goto fail;
	}
	qsort(p->gpus, p->ngpus, sizeof(p->gpus[0]), cmp_gpu);
	qsort(p->nics, p->nnics, sizeof(p->nics[0]), cmp_nic);
	for (i = 0; i < p->ngpus; i++) {
		snprintf(p->gpus[i].name, sizeof(p->gpus[i].name), "gpu%u", i);
		p->gpus[i].dmabuf = PROBE_UNKNOWN;
		guess_c2c(&p->gpus[i]);
	}
	scan_peermem(p, real_root);
	build_tree(p, real_root);
	snprintf(p->cuda, sizeof(p->cuda), "not asked (captured tree)");
	snprintf(p->nvml, sizeof(p->nvml), "not asked (captured tree)");
	snprintf(p->verbs, sizeof(p->verbs), "not asked (captured tree)");
	for (i = 0; i < p->ngpus; i++)
		snprintf(p->gpus[i].dmabuf_why, PROBE_WHY_MAX, "unknown (%s)",
			 "driver not asked");
	for (i = 0; i < p->nnics; i++)
		snprintf(p->nics[i].dmabuf_why, PROBE_WHY_MAX, "unknown (%s)",
			 "driver not asked");
	snprintf(p->cpu_vendor_why, sizeof(p->cpu_vendor_why), "not asked (captured tree)");
	snprintf(p->cpu_model_why, sizeof(p->cpu_model_why), "not asked (captured tree)");
	if (opt && opt->drivers) {
		p->live = true;
		probe_cpu_vendor(p, "/proc/cpuinfo");
		probe_drivers(p);
	}
	probe_c2c_cpu_vendor(p);
	probe_classify(p, real_root);
	*out = p;
	return 0;
fail:
	free(p);
	return err;
}

void probe_destroy(struct probe *p)
{
	free(p);
}
