/* SPDX-License-Identifier: MIT */
/*
 * probe_nvlink: NVLinks as NVML would report them, link by link, fed to
 * the probe of a captured tree (NVML itself needs a GPU; probe_driver.c
 * asks it on the live /sys), then classified, and the topology `probe`
 * writes from them read back by the topology loader. The expected
 * fabrics are the machines' own: DGX-1's hybrid cube-mesh as
 * tests/data/dgx1-wired-mesh.yaml has it (written by hand), and DGX A100's
 * twelve NVLinks a GPU into NVSwitches at NCCL's 20 GB/s a link.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe_helpers.h"
#include "probe_nvlink.h"

#define DATA(name) GDRLAB_SOURCE_DIR "/tests/data/" name

/* DGX-1 (V100): each GPU's six NVLinks, one or two to each of four peers. */
Test(probe_nvlink, dgx1_cube_mesh_as_the_hand_written_file)
{
	struct probe *p = probe_load(SYSFS("pxb-8gpu"));
	struct topology *hand = malloc(sizeof(*hand));
	struct diag d = { "" };
	struct probe_fabric f;
	struct topology *t;
	char *text = NULL;
	json_t *j, *l;

	cr_assert_eq(p->ngpus, 8);
	wire_dgx1_mesh(p);
	cr_expect_eq(p->gpus[0].nnvlinks, 4, "gpu0's four peers, each counted once");
	cr_expect_eq(p->gpus[0].nvlinks[2].gpu, 3);
	cr_expect_eq(p->gpus[0].nvlinks[2].links, 2);
	cr_expect_str_eq(p->gpus[0].nvlinks[2].target, p->gpus[3].pci.bdf,
			 "NVML's bus id in sysfs' spelling");
	probe_nvlink_fabric(p, &f);
	cr_expect_eq(f.kind, PROBE_FABRIC_NVLINK);

	j = probe_json(p);
	cr_assert_not_null(j);
	l = json_array_get(json_object_get(json_array_get(json_object_get(j, "gpus"), 0),
					   "nvlinks"), 2);
	cr_expect_str_eq(json_string_value(json_object_get(l, "peer")), "gpu");
	cr_expect_str_eq(json_string_value(json_object_get(l, "gpu")), "gpu3");
	cr_expect_eq(json_integer_value(json_object_get(l, "links")), 2);
	cr_expect_str_eq(json_string_value(json_object_get(json_array_get(
		json_object_get(j, "gpus"), 0), "compute_capability")), "7.0");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(j, "gpu_fabric"),
							   "kind")), "nvlink");
	json_decref(j);

	t = probe_emitted(p, &text);
	cr_assert_not_null(hand);
	cr_assert_eq(topology_load(DATA("dgx1-wired-mesh.yaml"), hand, &d), 0, "%s", d.msg);
	cr_expect_eq(t->gpu_arch, TOPO_GPU_VOLTA, "%s", text);
	cr_expect_eq(t->gpu_fabric.kind, TOPO_GPU_FABRIC_NVLINK);
	cr_expect(t->gpu_fabric.wired);
	cr_expect_float_eq(t->gpu_fabric.link_bw, 20e9, 1, "NCCL's SM70_NVLINK_BW");
	cr_expect_eq(t->gpu_fabric.links, 6, "the most a V100 has in its pairs");
	for (unsigned a = 0; a < 8; a++)
		for (unsigned b = 0; b < 8; b++)
			cr_expect_eq(topo_pair_links(t, a, b), topo_pair_links(hand, a, b),
				     "gpu%u-gpu%u", a, b);
	free(text);
	free(hand);
	free(t);
	probe_destroy(p);
}

/*
 * DGX A100: twelve NVLinks a GPU, two to each of six NVSwitches. The tree
 * holds one of them (0000:21:00.0, class 0x068000); NVML names the others
 * too, and a switch it cannot see by an empty bus id: all are switches.
 */
Test(probe_nvlink, dgx_a100_nvswitch)
{
	static const char *const switches[] = {
		"00000000:21:00.0", "00000000:22:00.0", "00000000:23:00.0",
		"00000000:24:00.0", "00000000:25:00.0", "",
	};
	struct probe *p = probe_load(SYSFS("dgx-8gpu"));
	struct probe_fabric f;
	struct topology *t;
	char *text = NULL;

	read_all(p, 80, PROBE_NO);
	for (unsigned g = 0; g < p->ngpus; g++)
		for (unsigned s = 0; s < 6; s++)
			for (unsigned k = 0; k < 2; k++)
				cr_assert_eq(probe_nvlink_add(&p->gpus[g], switches[s]), 0);
	probe_nvlink_classify(p);
	for (unsigned s = 0; s < 6; s++) {
		cr_expect_eq(p->gpus[5].nvlinks[s].peer, PROBE_NVL_SWITCH, "%s", switches[s]);
		cr_expect_eq(p->gpus[5].nvlinks[s].links, 2);
	}
	probe_nvlink_fabric(p, &f);
	cr_expect_eq(f.kind, PROBE_FABRIC_NVSWITCH);
	cr_expect_eq(f.links, 12);
	cr_expect_not(f.uneven);
	cr_expect_not(f.nvls, "no multicast on Ampere");

	t = probe_emitted(p, &text);
	cr_expect_eq(t->gpu_arch, TOPO_GPU_AMPERE, "%s", text);
	cr_expect_eq(t->gpu_fabric.kind, TOPO_GPU_FABRIC_NVSWITCH);
	cr_expect_eq(t->gpu_fabric.links, 12);
	cr_expect_float_eq(t->gpu_fabric.bw, 240e9, 1, "12 x NCCL's SM80_NVLINK_BW");
	cr_expect_not(t->gpu_fabric.nvls);
	free(text);
	free(t);
	probe_destroy(p);
}

/* H100 (sm 9.0) with multicast on every GPU: NVLink SHARP; one GPU with a
 * link down makes the counts uneven and the file takes the fewest. */
Test(probe_nvlink, hopper_nvls_and_a_link_down)
{
	struct probe *p = probe_load(SYSFS("dgx-8gpu"));
	struct probe_fabric f;
	struct topology *t;
	char *text = NULL;

	read_all(p, 90, PROBE_YES);
	for (unsigned g = 0; g < p->ngpus; g++)
		for (unsigned k = 0; k < (g == 3 ? 17u : 18u); k++)
			cr_assert_eq(probe_nvlink_add(&p->gpus[g], "00000000:21:00.0"), 0);
	probe_nvlink_classify(p);
	probe_nvlink_fabric(p, &f);
	cr_expect_eq(f.kind, PROBE_FABRIC_NVSWITCH);
	cr_expect_eq(f.links, 17);
	cr_expect(f.uneven);
	cr_expect(f.nvls);
	t = probe_emitted(p, &text);
	cr_expect_eq(t->gpu_arch, TOPO_GPU_HOPPER, "%s", text);
	cr_expect_float_eq(t->gpu_fabric.bw, 17 * 20.6e9, 1, "NCCL's SM90_NVLINK_BW");
	cr_expect(t->gpu_fabric.nvls);
	cr_expect_not_null(strstr(text, "GPUs differ, the fewest: 17"), "%s", text);
	free(text);
	free(t);
	probe_destroy(p);
}

/* A far end that is an IBM NPU (class 0x068001) is the CPU, as NCCL takes
 * it: not a GPU fabric. The tree here is a copy whose one device says so. */
Test(probe_nvlink, npu_is_the_cpu)
{
	char dir[] = "/tmp/gdrlab-npu-XXXXXX", path[256];
	struct probe *p = probe_load(SYSFS("dgx-8gpu"));
	struct probe_fabric f;
	FILE *fp;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/bus", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/bus/pci", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/bus/pci/devices", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/0004:04:00.0", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/0004:04:00.0/class", dir);
	fp = fopen(path, "w");
	cr_assert_not_null(fp);
	fputs("0x068001\n", fp);
	fclose(fp);
	snprintf(p->sysfs, sizeof(p->sysfs), "%s", dir);
	read_all(p, 70, PROBE_NO);
	for (unsigned k = 0; k < 3; k++)
		cr_assert_eq(probe_nvlink_add(&p->gpus[0], "00000004:04:00.0"), 0);
	probe_nvlink_classify(p);
	cr_expect_eq(p->gpus[0].nvlinks[0].peer, PROBE_NVL_CPU);
	cr_expect_eq(p->gpus[0].nvlinks[0].gpu, -1);
	probe_nvlink_fabric(p, &f);
	cr_expect_eq(f.kind, PROBE_FABRIC_PCIE, "NVLinks to the CPU join no GPUs");
	unlink(path);
	for (int up = 0; up < 4; up++) {
		char *slash = strrchr(path, '/');

		*slash = '\0';
		rmdir(path);
	}
	rmdir(dir);
	probe_destroy(p);
}

/* A captured tree: NVML not asked, so the file says placeholder. */
Test(probe_nvlink, not_read_is_a_placeholder)
{
	struct probe *p = probe_load(SYSFS("dgx-8gpu"));
	struct probe_fabric f;
	struct topology *t;
	char *text = NULL;

	probe_nvlink_fabric(p, &f);
	cr_expect_eq(f.kind, PROBE_FABRIC_UNKNOWN);
	t = probe_emitted(p, &text);
	cr_expect_eq(t->gpu_fabric.kind, TOPO_GPU_FABRIC_PCIE);
	cr_expect_not_null(strstr(text, "# PLACEHOLDER: NVML did not give the NVLinks"), "%s", text);
	cr_expect_not_null(strstr(text, "# PLACEHOLDER: the CUDA driver did not give"), "%s", text);
	free(text);
	free(t);
	probe_destroy(p);
}

/* Read, and no NVLink: PCIe, said as a finding. */
Test(probe_nvlink, none_active_is_pcie)
{
	struct probe *p = probe_load(SYSFS("ws-2socket"));
	struct topology *t;
	char *text = NULL;

	read_all(p, 89, PROBE_NO);
	t = probe_emitted(p, &text);
	cr_expect_eq(t->gpu_fabric.kind, TOPO_GPU_FABRIC_PCIE);
	cr_expect_eq(t->gpu_arch, TOPO_GPU_AMPERE, "8.9 takes NCCL's Ampere tables");
	cr_expect_not_null(strstr(text, "From NVML: no GPU has an active NVLink"), "%s", text);
	free(text);
	free(t);
	probe_destroy(p);
}

Test(probe_nvlink, eighteen_far_ends_at_most)
{
	struct probe_gpu g = { 0 };
	char bdf[32];

	for (unsigned k = 0; k < PROBE_MAX_NVLINK_PEERS; k++) {
		snprintf(bdf, sizeof(bdf), "0000:%02x:00.0", k + 1);
		cr_assert_eq(probe_nvlink_add(&g, bdf), 0);
	}
	cr_expect_eq(probe_nvlink_add(&g, "0000:01:00.0"), 0, "a known far end counts again");
	cr_expect_eq(g.nvlinks[0].links, 2);
	cr_expect_eq(probe_nvlink_add(&g, "0000:99:00.0"), -E2BIG);
	cr_expect_eq(probe_nvlink_add(&g, "\x01\x02"), -E2BIG, "unprintable: the hidden end, new");
}

/* NCCL's figures: topo.h ncclTopoNVLinkBw, tuning.cc compCapIndex. */
Test(probe_nvlink, nccl_figures_by_compute_capability)
{
	static const struct {
		int sm;
		double bw;
		const char *arch;
	} rows[] = {
		{ 60, 18.0, "volta" },	{ 70, 20.0, "volta" },	{ 75, 20.0, "volta" },
		{ 80, 20.0, "ampere" }, { 86, 12.0, "ampere" }, { 90, 20.6, "hopper" },
		{ 100, 40.1, "blackwell" }, { 120, 40.1, "blackwell" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		cr_expect_float_eq(probe_nvlink_bw(rows[i].sm), rows[i].bw, 1e-9, "sm %d", rows[i].sm);
		cr_expect_str_eq(probe_gpu_arch(rows[i].sm), rows[i].arch, "sm %d", rows[i].sm);
	}
	cr_expect_null(probe_gpu_arch(0));
}
