/* SPDX-License-Identifier: MIT */
/*
 * probe_cpu_vendor: /proc/cpuinfo as the kernel writes it on an Intel, an
 * AMD, an Arm and a POWER machine (the lines that matter, copied from
 * each format), and the vendor the emitted topology then carries.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe_report.h"
#include "topology.h"

static struct probe *probe_of(const char *cpuinfo)
{
	struct probe_options opt = { GDRLAB_SOURCE_DIR "/tests/data/sysfs/dgx-8gpu", false };
	char path[] = "/tmp/gdrlab-cpuinfo-XXXXXX";
	struct diag d = { "" };
	struct probe *p;
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, cpuinfo, strlen(cpuinfo)), (ssize_t)strlen(cpuinfo));
	close(fd);
	cr_assert_eq(probe_run(&opt, &p, &d), 0, "%s", d.msg);
	probe_cpu_vendor(p, path);
	unlink(path);
	return p;
}

static enum topo_cpu_vendor emitted_vendor(const struct probe *p)
{
	struct topology *t = malloc(sizeof(*t));
	struct diag d = { "" };
	enum topo_cpu_vendor v;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	cr_assert_not_null(t);
	cr_assert_eq(probe_emit_topology(p, fp, &d), 0, "%s", d.msg);
	fclose(fp);
	cr_assert_eq(topology_load_buffer(buf, len, "emitted.yaml", t, &d), 0, "%s", d.msg);
	v = t->cpu_vendor;
	free(buf);
	free(t);
	return v;
}

Test(probe_cpu, intel)
{
	struct probe *p = probe_of("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n");

	cr_expect_str_eq(p->cpu_vendor, "intel");
	cr_expect_eq(emitted_vendor(p), TOPO_CPU_INTEL);
	probe_destroy(p);
}

Test(probe_cpu, amd_as_a_dgx_a100)
{
	struct probe *p = probe_of("processor\t: 0\nvendor_id\t: AuthenticAMD\n"
				   "model name\t: AMD EPYC 7742 64-Core Processor\n");

	cr_expect_str_eq(p->cpu_vendor, "amd");
	cr_expect_str_eq(p->cpu_vendor_why, "vendor_id AuthenticAMD");
	cr_expect_eq(emitted_vendor(p), TOPO_CPU_AMD);
	probe_destroy(p);
}

Test(probe_cpu, arm_as_grace)
{
	struct probe *p = probe_of("processor\t: 0\nBogoMIPS\t: 2000.00\n"
				   "CPU implementer\t: 0x41\nCPU architecture: 8\n");

	cr_expect_str_eq(p->cpu_vendor, "arm");
	cr_expect_eq(emitted_vendor(p), TOPO_CPU_ARM);
	probe_destroy(p);
}

/* No vendor NCCL's tables have: a placeholder, and the file still loads. */
Test(probe_cpu, power_is_a_placeholder)
{
	struct probe *p = probe_of("processor\t: 0\ncpu\t\t: POWER9, altivec supported\n");

	cr_expect_str_eq(p->cpu_vendor, "");
	cr_expect_not_null(strstr(p->cpu_vendor_why, "neither vendor_id nor CPU implementer"));
	cr_expect_eq(emitted_vendor(p), TOPO_CPU_INTEL);
	probe_destroy(p);
}

Test(probe_cpu, unreadable)
{
	struct probe *p = probe_of("");

	probe_cpu_vendor(p, "/nonexistent/cpuinfo");
	cr_expect_str_eq(p->cpu_vendor, "");
	cr_expect_str_eq(p->cpu_vendor_why, "/nonexistent/cpuinfo unreadable");
	probe_destroy(p);
}
