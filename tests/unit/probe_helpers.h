/* SPDX-License-Identifier: MIT */
/* Shared by the probe tests: a captured tree read, and the topology file
 * `probe --emit-topology` writes from a probe, read back. */
#ifndef GDRLAB_TEST_PROBE_HELPERS_H
#define GDRLAB_TEST_PROBE_HELPERS_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "probe_nvlink.h"
#include "probe_report.h"
#include "topology.h"

#define SYSFS(name) GDRLAB_SOURCE_DIR "/tests/data/sysfs/" name

/* The captured tree @dir, its drivers not asked. */
static inline struct probe *probe_load(const char *dir)
{
	struct probe_options opt = { dir, false };
	struct diag d = { "" };
	struct probe *p;

	cr_assert_eq(probe_run(&opt, &p, &d), 0, "%s", d.msg);
	return p;
}

/* @p's emitted topology, loaded; its text in *@text (both to be freed). */
static inline struct topology *probe_emitted(const struct probe *p, char **text)
{
	struct topology *t = malloc(sizeof(*t));
	struct diag d = { "" };
	size_t len = 0;
	FILE *fp = open_memstream(text, &len);

	cr_assert_not_null(t);
	cr_assert_not_null(fp);
	cr_assert_eq(probe_emit_topology(p, fp, &d), 0, "%s", d.msg);
	fclose(fp);
	cr_assert_eq(topology_load_buffer(*text, len, "emitted.yaml", t, &d), 0, "%s\n%s",
		     d.msg, *text);
	return t;
}

/* NVML's spelling of GPU @g's bus id: eight digits of domain, upper case. */
static inline void nvml_bdf(const struct probe *p, unsigned g, char *out, size_t len)
{
	unsigned dom, bus, dev, fn;

	cr_assert_eq(sscanf(p->gpus[g].pci.bdf, "%x:%x:%x.%x", &dom, &bus, &dev, &fn), 4);
	snprintf(out, len, "%08X:%02X:%02X.%X", dom, bus, dev, fn);
}

/* @n NVLinks between GPUs @a and @b, as each GPU's NVML reports its own. */
static inline void wire(struct probe *p, unsigned a, unsigned b, unsigned n)
{
	char bdf[32];

	for (unsigned k = 0; k < n; k++) {
		nvml_bdf(p, b, bdf, sizeof(bdf));
		cr_assert_eq(probe_nvlink_add(&p->gpus[a], bdf), 0);
		nvml_bdf(p, a, bdf, sizeof(bdf));
		cr_assert_eq(probe_nvlink_add(&p->gpus[b], bdf), 0);
	}
}

/* NVML read on every GPU, of compute capability @sm / 10 and @multicast. */
static inline void read_all(struct probe *p, int sm, enum probe_tri multicast)
{
	for (unsigned i = 0; i < p->ngpus; i++) {
		p->gpus[i].nvlinks_read = true;
		p->gpus[i].sm = sm;
		p->gpus[i].multicast = multicast;
	}
}

/* pxb-8gpu (a DGX-1's PCIe) wired as DGX-1V's hybrid cube-mesh, six
 * NVLinks a V100, one or two to each of four peers (nvidia-smi topo -m's
 * NV1 and NV2; tests/data/dgx1-wired-mesh.yaml), NVML read, classified. */
static inline void wire_dgx1_mesh(struct probe *p)
{
	static const unsigned mesh[][3] = {
		{ 0, 1, 1 }, { 0, 2, 1 }, { 0, 3, 2 }, { 0, 4, 2 }, { 1, 2, 2 }, { 1, 3, 1 },
		{ 1, 5, 2 }, { 2, 3, 2 }, { 2, 6, 1 }, { 3, 7, 1 }, { 4, 5, 1 }, { 4, 6, 1 },
		{ 4, 7, 2 }, { 5, 6, 2 }, { 5, 7, 1 }, { 6, 7, 2 },
	};

	read_all(p, 70, PROBE_NO);
	for (size_t i = 0; i < sizeof(mesh) / sizeof(mesh[0]); i++)
		wire(p, mesh[i][0], mesh[i][1], mesh[i][2]);
	probe_nvlink_classify(p);
}

#endif
