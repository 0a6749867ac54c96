/* SPDX-License-Identifier: MIT */
/*
 * probe_cpu_vendor: /proc/cpuinfo as the kernel writes it on an Intel, an
 * AMD, an Arm and a POWER machine (the lines that matter, in each one's
 * format), and the vendor the emitted topology then carries.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe_helpers.h"

static struct probe *probe_of(const char *cpuinfo)
{
	char path[] = "/tmp/gdrlab-cpuinfo-XXXXXX";
	struct probe *p = probe_load(SYSFS("dgx-8gpu"));
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, cpuinfo, strlen(cpuinfo)), (ssize_t)strlen(cpuinfo));
	close(fd);
	probe_cpu_vendor(p, path);
	unlink(path);
	return p;
}

/* Each machine's lines, the vendor read, and what the emitted file says
 * (a vendor NCCL's tables lack is a placeholder: intel, and it loads). */
Test(probe_cpu, each_vendor_into_the_topology)
{
	static const struct {
		const char *cpuinfo, *vendor;
		enum topo_cpu_vendor emitted;
	} rows[] = {
		{ "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n", "intel",
		  TOPO_CPU_INTEL },
		{ "processor\t: 0\nvendor_id\t: AuthenticAMD\n"
		  "model name\t: AMD EPYC 7742 64-Core Processor\n", /* DGX A100 */
		  "amd", TOPO_CPU_AMD },
		{ "processor\t: 0\nBogoMIPS\t: 2000.00\nCPU implementer\t: 0x41\n"
		  "CPU architecture: 8\n", /* Grace */
		  "arm", TOPO_CPU_ARM },
		{ "processor\t: 0\ncpu\t\t: POWER9, altivec supported\n", "", TOPO_CPU_INTEL },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct probe *p = probe_of(rows[i].cpuinfo);
		char *text = NULL;
		struct topology *t = probe_emitted(p, &text);

		cr_expect_str_eq(p->cpu_vendor, rows[i].vendor, "row %zu", i);
		cr_expect_eq(t->cpu_vendor, rows[i].emitted, "row %zu:\n%s", i, text);
		cr_expect_eq(!rows[i].vendor[0], strstr(text, "PLACEHOLDER: CPU vendor") != NULL,
			     "row %zu", i);
		free(text);
		free(t);
		probe_destroy(p);
	}
}

Test(probe_cpu, the_reasons)
{
	struct probe *p = probe_of("processor\t: 0\nvendor_id\t: AuthenticAMD\n");

	cr_expect_str_eq(p->cpu_vendor_why, "vendor_id AuthenticAMD");
	probe_cpu_vendor(p, "/nonexistent/cpuinfo");
	cr_expect_str_eq(p->cpu_vendor, "");
	cr_expect_str_eq(p->cpu_vendor_why, "/nonexistent/cpuinfo unreadable");
	probe_destroy(p);
	p = probe_of("processor\t: 0\n");
	cr_expect_not_null(strstr(p->cpu_vendor_why, "has neither vendor_id nor CPU implementer"),
			   "%s", p->cpu_vendor_why);
	probe_destroy(p);
}

/* An Intel CPU's cpu family and model (cpuid 1, which NCCL reads:
 * xml.cc ncclTopoGetXmlFromCpu) give its class, as topo.cc's
 * ncclTopoAddCpu does, into the emitted topology: a DGX-1's Xeon E5-2698
 * v4 (model 79, 0x4F), a DGX H100's Xeon Platinum 8480C (143, 0x8F), an
 * Emerald Rapids (207, 0xCF); no class without the lines, nor on AMD. */
Test(probe_cpu, intel_class_into_the_topology)
{
	static const struct {
		const char *cpuinfo, *model;
		enum topo_cpu_model emitted;
	} rows[] = {
		{ "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 79\n"
		  "model name\t: Intel(R) Xeon(R) CPU E5-2698 v4 @ 2.20GHz\n",
		  "broadwell", TOPO_CPU_MODEL_BROADWELL },
		{ "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
		  "model name\t: Intel(R) Xeon(R) Platinum 8480C\n\nprocessor\t: 1\nmodel\t\t: 85\n",
		  "sapphire_rapids", TOPO_CPU_MODEL_SAPPHIRE_RAPIDS },
		{ "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 207\n",
		  "emerald_rapids", TOPO_CPU_MODEL_EMERALD_RAPIDS },
		{ "processor\t: 0\nvendor_id\t: GenuineIntel\n", "", TOPO_CPU_MODEL_UNSET },
		{ "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 23\nmodel\t\t: 49\n", "",
		  TOPO_CPU_MODEL_UNSET },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct probe *p = probe_of(rows[i].cpuinfo);
		char *text = NULL;
		struct topology *t = probe_emitted(p, &text);

		cr_expect_str_eq(p->cpu_model, rows[i].model, "row %zu: %s", i, p->cpu_model_why);
		cr_expect_eq(t->cpu_model, rows[i].emitted, "row %zu:\n%s", i, text);
		free(text);
		free(t);
		probe_destroy(p);
	}
}
