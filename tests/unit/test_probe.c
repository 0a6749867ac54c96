/* SPDX-License-Identifier: MIT */
/*
 * probe: the six captured sysfs trees of tests/data/sysfs (built by
 * make-fixtures.sh, whose comments describe each layout), worked out by
 * hand from those layouts: path classes, ACS findings, verdicts, and the
 * emitted topology; then the real /sys of whatever machine runs the test.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_helpers.h"
#include "topo_path.h"

/* @rows: one string per GPU, the class of each NIC separated by spaces. */
static void check_matrix(const struct probe *p, const char *const *rows)
{
	char got[256];
	unsigned g, n;
	size_t off;

	for (g = 0; g < p->ngpus; g++) {
		off = 0;
		got[0] = '\0';
		for (n = 0; n < p->nnics; n++)
			off += (size_t)snprintf(got + off, sizeof(got) - off, "%s%s",
						n ? " " : "",
						probe_class_name(p->pairs[g][n].cls));
		cr_expect_str_eq(got, rows[g], "%s: %s", p->sysfs, p->gpus[g].name);
	}
}

/* @want per pair, GPU-major: five letters for pix pxb phb sys nccl-default,
 * y(es) n(o) m(aybe). */
static void check_verdicts(const struct probe *p, const char *const *want)
{
	static const char letter[] = { [PROBE_GDR_NO] = 'n', [PROBE_GDR_MAYBE] = 'm',
				       [PROBE_GDR_YES] = 'y' };
	char got[6], why[PROBE_WHY_MAX];
	unsigned g, n, l, k = 0;

	for (g = 0; g < p->ngpus; g++) {
		for (n = 0; n < p->nnics; n++, k++) {
			for (l = 0; l < 5; l++)
				got[l] = letter[probe_gdr_verdict(p, g, n,
					l < 4 ? topo_pcie_levels[l] : TOPO_PATH_PXB,
					l == 4, why, sizeof(why))];
			got[5] = '\0';
			cr_expect_str_eq(got, want[k], "%s: %s-%s", p->sysfs,
					 p->gpus[g].name, p->nics[n].name);
		}
	}
}

static const struct probe_bridge *bridge(const struct probe *p, const char *bdf)
{
	unsigned i;

	for (i = 0; i < p->nbridges; i++)
		if (!strcmp(p->bridges[i].bdf, bdf))
			return &p->bridges[i];
	cr_assert_fail("%s: no bridge %s on any GPU-NIC path", p->sysfs, bdf);
	return NULL;
}

static void why_of(const struct probe *p, unsigned g, unsigned n,
		   enum topo_path_type level, char *why)
{
	probe_gdr_verdict(p, g, n, level, false, why, PROBE_WHY_MAX);
}

/* Emit the topology, load it back, and hold its classes against the probe's
 * (P2C too: a C2C GPU is written with its link's kind, c2c). */
static void check_emit(const struct probe *p, unsigned sockets, unsigned switches)
{
	char *buf = NULL;
	struct topology *t = probe_emitted(p, &buf);
	unsigned g, n;

	cr_expect_eq(t->nsockets, sockets);
	cr_expect_eq(t->nswitches, switches);
	cr_expect_eq(t->ngpus, p->ngpus);
	cr_expect_eq(t->nnics, p->nnics);
	for (g = 0; g < p->ngpus; g++)
		for (n = 0; n < p->nnics; n++)
			cr_expect_eq(topo_gpu_nic_path(t, (int)g, (int)n),
				     p->pairs[g][n].cls.p2c ? TOPO_PATH_P2C :
							      p->pairs[g][n].cls.type, "%s-%s",
				     p->gpus[g].name, p->nics[n].name);
	free(buf);
	free(t);
}

Test(probe, dgx_8gpu)
{
	static const char *const rows[] = {
		"PIX PHB SYS SYS", "PIX PHB SYS SYS", "PHB PIX SYS SYS", "PHB PIX SYS SYS",
		"SYS SYS PXB PHB", "SYS SYS PXB PHB", "SYS SYS PHB PIX", "SYS SYS PHB PIX",
	};
	/* PIX: everywhere; PXB: from pxb; PHB: from phb; SYS: only sys.
	 * nvidia-peermem is loaded, ACS is cleared on the switch ports. */
	static const char *const v[] = {
		"yyyyy", "nnyyn", "nnnyn", "nnnyn", "yyyyy", "nnyyn", "nnnyn", "nnnyn",
		"nnyyn", "yyyyy", "nnnyn", "nnnyn", "nnyyn", "yyyyy", "nnnyn", "nnnyn",
		"nnnyn", "nnnyn", "nyyyy", "nnyyn", "nnnyn", "nnnyn", "nyyyy", "nnyyn",
		"nnnyn", "nnnyn", "nnyyn", "yyyyy", "nnnyn", "nnnyn", "nnyyn", "yyyyy",
	};
	struct probe *p = probe_load(SYSFS("dgx-8gpu"));
	char why[PROBE_WHY_MAX];

	/* The NVSwitch (class 0680) and nothing else is left out. */
	cr_assert_eq(p->ngpus, 8);
	cr_assert_eq(p->nnics, 4);
	cr_expect_eq(p->ncpus, 2);
	cr_expect_eq(p->nswitches, 5); /* 4 + the nested one on socket 1 */
	cr_expect_str_eq(p->gpus[4].pci.bdf, "0000:85:00.0");
	cr_expect_str_eq(p->switches[p->gpus[4].pci.parent].bdf, "0000:83:00.0");
	cr_expect_str_eq(p->switches[3].name, "sw3");
	cr_expect_eq(p->switches[3].parent, 2);
	cr_expect_eq(p->gpus[0].pci.link.max_gen, 4);
	cr_expect_eq(p->gpus[0].pci.link.cur_gen, 1);
	cr_expect_eq(p->gpus[0].pci.link.max_width, 16);
	cr_expect_eq(p->nics[0].ports[0].gbit, 200.0);
	cr_expect_eq(p->peermem, PROBE_YES);
	check_matrix(p, rows);
	check_verdicts(p, v);
	/* 4 root ports, 5 upstream and 13 downstream switch ports. */
	cr_expect_eq(p->nbridges, 22);
	cr_expect_eq(bridge(p, "0000:00:01.1")->acs, PROBE_ACS_REDIRECT);
	cr_expect_eq(bridge(p, "0000:00:01.1")->ctrl, 0x1d);
	cr_expect_eq(bridge(p, "0000:02:00.0")->acs, PROBE_ACS_CLEAR);
	cr_expect_eq(bridge(p, "0000:01:00.0")->acs, PROBE_ACS_ABSENT);
	/* gpu0-mlx5_0 turns around in sw0: its two downstream ports and the
	 * upstream port; root-port ACS does not count on a PHB path. */
	cr_expect_eq(p->pairs[0][0].nbridges, 3);
	cr_expect_not(p->pairs[0][1].acs_redirect);
	cr_expect_eq(p->pairs[4][2].nbridges, 5); /* 81, 82:00, 83, 84:00 + 82:01 */
	why_of(p, 0, 2, TOPO_PATH_PHB, why);
	cr_expect(strstr(why, "path SYS (across CPU sockets) is beyond GDR level PHB"), "%s", why);
	why_of(p, 0, 0, TOPO_PATH_PIX, why);
	cr_expect_str_eq(why, "via nvidia-peermem");
	check_emit(p, 2, 5);
	probe_destroy(p);
}

Test(probe, ws_2socket)
{
	static const char *const rows[] = { "SYS" };
	static const char *const v[] = { "nnnmn" };
	struct probe *p = probe_load(SYSFS("ws-2socket"));
	char why[PROBE_WHY_MAX];

	/* The GPU's HDMI audio function (10de, class 0403) is not a GPU. */
	cr_assert_eq(p->ngpus, 1);
	cr_assert_eq(p->nnics, 1);
	cr_expect_eq(p->nswitches, 0);
	cr_expect_eq(p->ncpus, 2);
	cr_expect_eq(p->gpus[0].pci.class_code, 0x030000);
	cr_expect_eq(p->gpus[0].pci.parent, -1);
	cr_expect_eq(p->peermem, PROBE_NO);
	check_matrix(p, rows);
	check_verdicts(p, v);
	cr_expect_eq(p->nbridges, 2);
	cr_expect_eq(bridge(p, "0000:00:01.0")->acs, PROBE_ACS_NEEDS_ROOT);
	cr_expect_eq(bridge(p, "0000:80:01.0")->acs, PROBE_ACS_NEEDS_ROOT);
	why_of(p, 0, 0, TOPO_PATH_SYS, why);
	cr_expect(strstr(why, "cannot tell: peermem no, dma-buf GPU unknown NIC unknown"),
		  "%s", why);
	check_emit(p, 2, 0);
	probe_destroy(p);
}

Test(probe, acs_redirect)
{
	static const char *const rows[] = { "PIX PHB", "PHB PIX" };
	static const char *const v[] = { "nnnnn", "nnyyn", "nnyyn", "yyyyy" };
	struct probe *p = probe_load(SYSFS("acs-redirect"));
	char why[PROBE_WHY_MAX], *buf = NULL;
	struct topology *t;

	cr_assert_eq(p->ngpus, 2);
	cr_assert_eq(p->nnics, 2);
	cr_expect_eq(p->nswitches, 2);
	cr_expect_eq(p->peermem, PROBE_YES); /* from memory_peers/nv_mem */
	cr_expect(strstr(p->peermem_why, "memory_peers"), "%s", p->peermem_why);
	cr_expect_str_eq(p->nics[0].ports[0].link_layer, "Ethernet");
	check_matrix(p, rows);
	check_verdicts(p, v);
	cr_expect(p->pairs[0][0].acs_redirect);
	cr_expect_not(p->pairs[1][1].acs_redirect);
	cr_expect_eq(bridge(p, "0000:02:08.0")->acs, PROBE_ACS_REDIRECT);
	cr_expect_eq(bridge(p, "0000:02:10.0")->acs, PROBE_ACS_REDIRECT);
	cr_expect_eq(bridge(p, "0000:06:08.0")->acs, PROBE_ACS_CLEAR);
	why_of(p, 0, 0, TOPO_PATH_SYS, why);
	cr_expect_str_eq(why, "ACS redirect on bridge 0000:02:08.0 sends P2P up to the root complex");
	check_emit(p, 1, 2);
	/* gpu0's only NIC within NCCL's level is behind the redirect: the file
	 * says which pair and why, and takes GPUDirect from gpu0 alone. */
	t = probe_emitted(p, &buf);
	cr_expect(t->gpus[0].no_gdr, "%s", buf);
	cr_expect_not(t->gpus[1].no_gdr, "%s", buf);
	cr_expect(strstr(buf, "# gpu0-mlx5_0: no GPUDirect RDMA: ACS redirect on bridge "
			 "0000:02:08.0 sends P2P up to the root complex.\n"), "%s", buf);
	free(buf);
	free(t);
	probe_destroy(p);
}

Test(probe, gh200_c2c)
{
	static const char *const rows[] = { "P2C SYS", "SYS P2C" };
	/* P2C: not at pix/pxb, yes from phb and at NCCL's default. */
	static const char *const v[] = { "nnyyy", "nnnyn", "nnnyn", "nnyyy" };
	struct probe *p = probe_load(SYSFS("gh200-c2c"));
	struct topology *t;
	char *buf = NULL;

	cr_assert_eq(p->ngpus, 2);
	cr_assert_eq(p->nnics, 2);
	cr_expect_eq(p->ncpus, 2);
	cr_expect_eq(p->nswitches, 0);
	cr_expect(p->gpus[0].c2c);
	cr_expect(p->gpus[1].c2c);
	cr_expect_str_eq(p->gpus[1].pci.bdf, "0019:01:00.0");
	check_matrix(p, rows);
	check_verdicts(p, v);
	cr_expect_eq(p->pairs[0][0].cls.type, TOPO_PATH_PHB);
	cr_expect_not(p->pairs[0][0].acs_redirect); /* root ports only */
	cr_expect_eq(p->nics[0].ports[0].gbit, 400.0);
	check_emit(p, 2, 0);
	/* No driver asked, yet the PCI id names a Hopper and C2C a Grace. */
	cr_expect_eq(p->gpus[0].id_sm, 90);
	cr_expect_str_eq(p->cpu_vendor, "arm");
	cr_expect(p->cpu_vendor_c2c);
	t = probe_emitted(p, &buf);
	cr_expect_eq(t->gpu_arch, TOPO_GPU_HOPPER, "%s", buf);
	cr_expect_eq(t->cpu_vendor, TOPO_CPU_ARM, "%s", buf);
	cr_expect_eq(t->gpus[0].link.kind, TOPO_LINK_C2C, "%s", buf);
	free(buf);
	free(t);
	probe_destroy(p);
}

/* NCCL's switch id of switch @bdf, or the test fails. */
static const struct probe_switch *sw(const struct probe *p, const char *bdf)
{
	unsigned i;

	for (i = 0; i < p->nswitches; i++)
		if (!strcmp(p->switches[i].bdf, bdf))
			return &p->switches[i];
	cr_assert_fail("%s: no switch %s", p->sysfs, bdf);
	return NULL;
}

/*
 * bcm-pex (make-fixtures.sh, 5): with NCCL's flattening the sub-switches
 * 03:00.0 and 07:00.0 (socket 0, PEX88096) go into 01:00.0, and 83:00.0
 * and 86:00.0 (socket 1, PEX89144, subsystem 100b) into 81:00.0; 89:00.0
 * has the upper-level subsystem 0144 and stays. By hand:
 *   gpu0 05:00.0, gpu1 06:00.0  under 01:00.0 (was 03:00.0), as mlx5_0
 *                               (09:00.0, was 07:00.0): PIX; mlx5_1 SYS
 *   gpu2 85:00.0                under 81:00.0 (was 83:00.0), as mlx5_1
 *                               (88:00.0, was 86:00.0): PIX; mlx5_0 SYS
 *   gpu3 8b:00.0                under 89:00.0, itself under 81:00.0:
 *                               PXB to mlx5_1; mlx5_0 SYS
 * Unflattened (the next test) the three PIX pairs would be PXB.
 */
Test(probe, bcm_pex_flattened_as_nccl)
{
	static const char *const rows[] = { "PIX SYS", "PIX SYS", "SYS PIX", "SYS PXB" };
	/* PIX: at every level; PXB: not at pix; SYS: only at sys. Peermem
	 * loaded, ACS cleared on the switch ports. */
	static const char *const v[] = {
		"yyyyy", "nnnyn", "yyyyy", "nnnyn", "nnnyn", "yyyyy", "nnnyn", "nyyyy",
	};
	struct probe *p = probe_load(SYSFS("bcm-pex"));
	json_t *j, *js;
	char why[PROBE_WHY_MAX];

	cr_assert_eq(p->ngpus, 4);
	cr_assert_eq(p->nnics, 2);
	cr_expect_eq(p->ncpus, 2);
	cr_assert_eq(p->nswitches, 3); /* 7 before: 01 03 07 81 83 86 89 */
	cr_expect_str_eq(p->switches[0].bdf, "0000:01:00.0");
	cr_expect_str_eq(p->switches[1].bdf, "0000:81:00.0");
	cr_expect_str_eq(p->switches[2].bdf, "0000:89:00.0");
	cr_expect_str_eq(p->switches[2].name, "sw2");
	cr_expect_eq(p->switches[0].folded, 2);
	cr_expect_eq(p->switches[1].folded, 2);
	cr_expect_eq(p->switches[2].folded, 0);
	cr_expect_eq(p->switches[2].parent, 1); /* 89:00.0 now hangs from 81:00.0 */
	cr_expect_eq(p->switches[0].parent, -1);
	cr_expect_eq(p->switches[1].subsys_device, 0x0144);
	cr_expect_eq(p->gpus[0].pci.parent, 0);
	cr_expect_eq(p->gpus[2].pci.parent, 1);
	cr_expect_eq(p->gpus[3].pci.parent, 2);
	cr_expect_eq(p->nics[0].pci.parent, 0);
	cr_expect_eq(p->nics[1].pci.parent, 1);
	check_matrix(p, rows);
	check_verdicts(p, v);
	/* The bridges stay the physical ones: gpu0-mlx5_0 turns around in
	 * 01:00.0, crossing 02:00.0 03:00.0 04:00.0 and 02:01.0 07:00.0
	 * 08:00.0 on the way; 9 bridges on socket 0, 11 on socket 1. */
	cr_expect_eq(p->nbridges, 20);
	cr_expect_eq(p->pairs[0][0].nbridges, 7);
	cr_expect_not(p->pairs[0][0].acs_redirect);
	why_of(p, 0, 0, TOPO_PATH_PIX, why);
	cr_expect_str_eq(why, "via nvidia-peermem");
	why_of(p, 3, 1, TOPO_PATH_PIX, why);
	cr_expect(strstr(why, "path PXB"), "%s", why);
	cr_expect_eq(p->nwarnings, 1);
	cr_expect_str_eq(p->warnings[0],
			 "4 Broadcom PEX sub-switches folded into 2 switches, as NCCL does (topo.cc ncclTopoFlattenBcmSwitches)");
	/* What --json prints: the PIX pair and the folded count. */
	j = probe_json(p);
	cr_assert_not_null(j);
	cr_expect_str_eq(json_string_value(json_object_get(
		json_array_get(json_object_get(j, "pairs"), 0), "path")), "PIX");
	js = json_array_get(json_object_get(j, "switches"), 0);
	cr_expect_eq(json_integer_value(json_object_get(js, "folded")), 2);
	cr_expect_str_eq(json_string_value(json_object_get(js, "subsystem_device")), "0xa096");
	json_decref(j);
	check_emit(p, 2, 3);
	probe_destroy(p);
}

/*
 * The same tree without subsystem ids, as a kernel that hides them (or a
 * capture that left them out) would show it: NCCL's ids no longer match,
 * nothing is folded, and the pairs are PXB as the raw tree says (each GPU
 * and its NIC hang from different sub-switches of one chip).
 */
Test(probe, bcm_pex_without_subsystem_ids_stays_pxb)
{
	static const char *const rows[] = { "PXB SYS", "PXB SYS", "SYS PXB", "SYS PXB" };
	char dir[] = "/tmp/gdrlab-bcm-XXXXXX", cmd[512], tree[64];
	struct probe *p;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(tree, sizeof(tree), "%s/t", dir);
	snprintf(cmd, sizeof(cmd),
		 "cp -a '%s' '%s' && find '%s' -name 'subsystem_*' -delete",
		 SYSFS("bcm-pex"), tree, tree);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	p = probe_load(tree);
	cr_expect_eq(p->nswitches, 7);
	cr_expect_eq(p->nwarnings, 0);
	cr_expect_str_eq(sw(p, "0000:03:00.0")->name, "sw1");
	cr_expect_str_eq(p->switches[p->gpus[0].pci.parent].bdf, "0000:03:00.0");
	check_matrix(p, rows);
	cr_expect_eq(probe_gdr_verdict(p, 0, 0, TOPO_PATH_PIX, false, cmd, sizeof(cmd)),
		     PROBE_GDR_NO);
	probe_destroy(p);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

/*
 * pxb-8gpu (make-fixtures.sh, 6): every root port has a switch T whose
 * ports lead to a switch G with two GPUs and to the NIC, through a third
 * switch N (shape A) or directly (shape B). Switchtec (11f8) and PLX
 * (10b5): not Broadcom, nothing folded, 10 switches. By hand, with NCCL's
 * nodes (every other sysfs level from the device up):
 *   gpu0 05 gpu1 06   under G 03:00.0 < T 01:00.0; mlx5_0 (09) under
 *                     N 07:00.0 < T 01:00.0: common T, not the parent: PXB
 *   gpu2 15 gpu3 16   under G 13:00.0 < T 11:00.0; mlx5_1 (17) under
 *                     T 11:00.0 itself: PXB
 *   gpu4..7           the same on socket 1 with mlx5_2 (89), mlx5_3 (97)
 *   other root port of the socket: PHB; other socket: SYS.
 */
Test(probe, pxb_8gpu_two_levels_not_broadcom)
{
	static const char *const rows[] = {
		"PXB PHB SYS SYS", "PXB PHB SYS SYS", "PHB PXB SYS SYS", "PHB PXB SYS SYS",
		"SYS SYS PXB PHB", "SYS SYS PXB PHB", "SYS SYS PHB PXB", "SYS SYS PHB PXB",
	};
	/* PXB: from pxb and at NCCL's default; PHB: from phb; SYS: at sys. */
	static const char *const v[] = {
		"nyyyy", "nnyyn", "nnnyn", "nnnyn", "nyyyy", "nnyyn", "nnnyn", "nnnyn",
		"nnyyn", "nyyyy", "nnnyn", "nnnyn", "nnyyn", "nyyyy", "nnnyn", "nnnyn",
		"nnnyn", "nnnyn", "nyyyy", "nnyyn", "nnnyn", "nnnyn", "nyyyy", "nnyyn",
		"nnnyn", "nnnyn", "nnyyn", "nyyyy", "nnnyn", "nnnyn", "nnyyn", "nyyyy",
	};
	struct probe *p = probe_load(SYSFS("pxb-8gpu"));
	char why[PROBE_WHY_MAX];

	cr_assert_eq(p->ngpus, 8);
	cr_assert_eq(p->nnics, 4);
	cr_expect_eq(p->ncpus, 2);
	cr_expect_eq(p->nswitches, 10); /* T G N, T G per socket */
	cr_expect_eq(p->nwarnings, 0);
	cr_expect_str_eq(p->gpus[2].pci.bdf, "0000:15:00.0");
	cr_expect_str_eq(p->switches[p->gpus[2].pci.parent].bdf, "0000:13:00.0");
	cr_expect_str_eq(p->switches[p->nics[1].pci.parent].bdf, "0000:11:00.0");
	cr_expect_str_eq(p->switches[p->nics[2].pci.parent].bdf, "0000:87:00.0");
	cr_expect_eq(sw(p, "0000:83:00.0")->parent, p->switches[p->nics[2].pci.parent].parent);
	cr_expect_eq(sw(p, "0000:81:00.0")->vendor, 0x10b5);
	cr_expect_eq(sw(p, "0000:01:00.0")->folded, 0);
	check_matrix(p, rows);
	check_verdicts(p, v);
	/* 9 bridges per shape A root port, 7 per shape B; gpu0-mlx5_0 turns
	 * around in T: 01:00.0 02:00.0 03:00.0 04:00.0 + 02:01.0 07:00.0
	 * 08:00.0; gpu2-mlx5_1: 11:00.0 12:00.0 13:00.0 14:00.0 + 12:01.0. */
	cr_expect_eq(p->nbridges, 32);
	cr_expect_eq(p->pairs[0][0].nbridges, 7);
	cr_expect_eq(p->pairs[2][1].nbridges, 5);
	why_of(p, 0, 0, TOPO_PATH_PIX, why);
	cr_expect_str_eq(why, "path PXB (across PCIe switches) is beyond GDR level PIX");
	check_emit(p, 2, 10);
	probe_destroy(p);
}

Test(probe, json_keys)
{
	struct probe *p = probe_load(SYSFS("acs-redirect"));
	json_t *j = probe_json(p), *pair;

	cr_assert_not_null(j);
	cr_expect_eq(json_array_size(json_object_get(j, "gpus")), 2);
	cr_expect_eq(json_array_size(json_object_get(j, "pairs")), 4);
	pair = json_array_get(json_object_get(j, "pairs"), 0);
	cr_expect_str_eq(json_string_value(json_object_get(pair, "path")), "PIX");
	cr_expect_str_eq(json_string_value(json_object_get(pair, "acs")), "redirect");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(
		json_object_get(pair, "gdr"), "nccl_default"), "verdict")), "no");
	cr_expect_str_eq(json_string_value(json_object_get(json_object_get(j, "peermem"),
							   "state")), "yes");
	json_decref(j);
	probe_destroy(p);
}

Test(probe, acs_parse)
{
	uint8_t cfg[4096] = { 0 };
	uint16_t ctrl = 0;

	cr_expect_eq(probe_acs_parse(cfg, 64, &ctrl), -EACCES);
	cr_expect_eq(probe_acs_parse(cfg, 256, &ctrl), -ENODATA);
	cr_expect_eq(probe_acs_parse(cfg, sizeof(cfg), &ctrl), -ENOENT);
	/* AER at 0x100 -> ACS at 0x200, control 0x0004 (RR). */
	cfg[0x100] = 0x01; cfg[0x102] = 0x02; cfg[0x103] = 0x20;
	cfg[0x200] = 0x0d; cfg[0x202] = 0x01; cfg[0x206] = 0x04;
	cr_expect_eq(probe_acs_parse(cfg, sizeof(cfg), &ctrl), 0);
	cr_expect_eq(ctrl, PROBE_ACS_RR);
	/* A list that points back at itself ends, as broken. */
	cfg[0x200] = 0x01; cfg[0x203] = 0x10;
	cr_expect_eq(probe_acs_parse(cfg, sizeof(cfg), &ctrl), -EINVAL);
}

Test(probe, bad_trees)
{
	struct probe_options opt = { "/nonexistent/sysfs", false };
	struct diag d = { "" };
	struct probe *p = NULL;

	cr_expect_eq(probe_run(&opt, &p, &d), -ENOENT);
	cr_expect_str_eq(d.msg, "/nonexistent/sysfs: No such file or directory");
	opt.sysfs = SYSFS("make-fixtures.sh");
	cr_expect_eq(probe_run(&opt, &p, &d), -ENOTDIR);
	opt.sysfs = SYSFS("");
	cr_expect_eq(probe_run(&opt, &p, &d), -ENOENT);
	cr_expect(strstr(d.msg, "not a sysfs tree (no bus/pci/devices)"), "%s", d.msg);
	cr_expect_null(p);
}

/* Whatever this machine is: the probe must read its /sys and ask its
 * drivers without failing; with no GPU (CI) it says so. */
Test(probe, this_machine)
{
	struct probe_options opt = { NULL, true };
	struct diag d = { "" };
	struct probe *p;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	int err;

	cr_assert_eq(probe_run(&opt, &p, &d), 0, "%s", d.msg);
	cr_expect(p->live);
	fp = open_memstream(&buf, &len);
	err = probe_emit_topology(p, fp, &d);
	fclose(fp);
	if (!p->ngpus || !p->nnics) {
		cr_expect_eq(err, -ENODEV);
		cr_expect(strstr(d.msg, "a topology needs at least one GPU and one RDMA NIC"),
			  "%s", d.msg);
		fprintf(stderr, "probe: this machine has %u GPU(s), %u RDMA device(s): %s\n",
			p->ngpus, p->nnics, d.msg);
	} else {
		cr_expect_eq(err, 0, "%s", d.msg);
	}
	free(buf);
	probe_destroy(p);
}
