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
