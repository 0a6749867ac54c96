/* SPDX-License-Identifier: MIT */
/*
 * probe_cpu: the CPU vendor, which NCCL's tuner reads (its network overhead
 * and LL limits are per vendor: tuning.cc). NCCL asks cpuid 0 on x86 and
 * takes arm64 from the build (xml.cc ncclTopoGetXmlFromCpu); the kernel
 * writes cpuid 0's string as /proc/cpuinfo's vendor_id, and an Arm CPU
 * shows a "CPU implementer" there instead.
 */
#include <stdio.h>
#include <string.h>

#include "probe_sysfs.h"

void probe_cpu_vendor(struct probe *p, const char *cpuinfo)
{
	char line[256];
	FILE *f = fopen(cpuinfo, "r");

	p->cpu_vendor[0] = '\0';
	if (!f) {
		snprintf(p->cpu_vendor_why, sizeof(p->cpu_vendor_why), "%s unreadable", cpuinfo);
		return;
	}
	snprintf(p->cpu_vendor_why, sizeof(p->cpu_vendor_why),
		 "%s has neither vendor_id nor CPU implementer", cpuinfo);
	while (fgets(line, sizeof(line), f)) {
		const char *v = strchr(line, ':');

		if (!v)
			continue;
		for (v++; *v == ' ' || *v == '\t'; v++)
			;
		if (!strncmp(line, "vendor_id", 9)) {
			const char *name = !strncmp(v, "GenuineIntel", 12) ? "intel" :
					   !strncmp(v, "AuthenticAMD", 12) ? "amd" : NULL;

			snprintf(p->cpu_vendor, sizeof(p->cpu_vendor), "%s", name ? name : "");
			snprintf(p->cpu_vendor_why, sizeof(p->cpu_vendor_why), "vendor_id %.12s%s", v,
				 name ? "" : ": not a vendor NCCL's tables have");
			break;
		}
		if (!strncmp(line, "CPU implementer", 15)) {
			snprintf(p->cpu_vendor, sizeof(p->cpu_vendor), "arm");
			snprintf(p->cpu_vendor_why, sizeof(p->cpu_vendor_why), "Arm (CPU implementer)");
			break;
		}
	}
	fclose(f);
}

/*
 * NVLink-C2C joins a GPU to NVIDIA's Grace (GH200, GB200), an Arm CPU
 * (72 Neoverse V2 cores, GH200 datasheet), and to no x86 CPU; NCCL built
 * for arm64 takes the ARM vendor's tables. So a C2C GPU tells the vendor
 * a captured tree's missing /proc/cpuinfo would have.
 */
void probe_c2c_cpu_vendor(struct probe *p)
{
	unsigned i;

	if (p->cpu_vendor[0])
		return;
	for (i = 0; i < p->ngpus && !p->gpus[i].c2c; i++)
		;
	if (i == p->ngpus)
		return;
	snprintf(p->cpu_vendor, sizeof(p->cpu_vendor), "arm");
	snprintf(p->cpu_vendor_why, sizeof(p->cpu_vendor_why),
		 "%s reaches it over NVLink-C2C, which only NVIDIA's Arm Grace CPUs have",
		 p->gpus[i].name);
	p->cpu_vendor_c2c = true;
}
