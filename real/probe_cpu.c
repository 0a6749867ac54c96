/* SPDX-License-Identifier: MIT */
/*
 * probe_cpu: the CPU vendor, which NCCL's tuner reads (its network overhead
 * and LL limits are per vendor: tuning.cc). NCCL asks cpuid 0 on x86 and
 * takes arm64 from the build (xml.cc ncclTopoGetXmlFromCpu); the kernel
 * writes cpuid 0's string as /proc/cpuinfo's vendor_id, and an Arm CPU
 * shows a "CPU implementer" there instead. On Intel, NCCL also reads cpuid
 * 1's family and model (the same function), which the kernel writes as
 * "cpu family" and "model": its topology counts the link between two
 * sockets by the class they give (topo.cc ncclTopoAddCpu,
 * ncclTopoGetInterCpuBw).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_sysfs.h"
#include "topology.h"

/* The key of a "key<tabs>: value" line is @key. */
static bool key_is(const char *line, const char *key)
{
	size_t n = strlen(key);

	return !strncmp(line, key, n) && (line[n] == '\t' || line[n] == ' ' || line[n] == ':');
}

/* An Intel CPU's class from the first processor's cpu family and model. */
static void cpu_model_of(struct probe *p, long family, long model)
{
	enum topo_cpu_model m;

	if (family < 0 || model < 0) {
		snprintf(p->cpu_model_why, sizeof(p->cpu_model_why),
			 "no cpu family or model line: Skylake's class taken");
		return;
	}
	m = topo_cpu_model_of_cpuid((unsigned)family, (unsigned)model);
	snprintf(p->cpu_model, sizeof(p->cpu_model), "%s", topo_cpu_model_name(m));
	snprintf(p->cpu_model_why, sizeof(p->cpu_model_why), "cpu family %ld, model %ld (0x%lx)",
		 family, model, model);
}

void probe_cpu_vendor(struct probe *p, const char *cpuinfo)
{
	char line[256];
	long family = -1, model = -1;
	bool intel = false;
	FILE *f = fopen(cpuinfo, "r");

	p->cpu_vendor[0] = '\0';
	p->cpu_model[0] = '\0';
	snprintf(p->cpu_model_why, sizeof(p->cpu_model_why), "not an Intel CPU");
	if (!f) {
		snprintf(p->cpu_vendor_why, sizeof(p->cpu_vendor_why), "%s unreadable", cpuinfo);
		snprintf(p->cpu_model_why, sizeof(p->cpu_model_why), "%s unreadable", cpuinfo);
		return;
	}
	snprintf(p->cpu_vendor_why, sizeof(p->cpu_vendor_why),
		 "%s has neither vendor_id nor CPU implementer", cpuinfo);
	/* the first processor's block: its lines end at the first blank one */
	while (fgets(line, sizeof(line), f) && line[0] != '\n') {
		const char *v = strchr(line, ':');

		if (!v)
			continue;
		for (v++; *v == ' ' || *v == '\t'; v++)
			;
		if (key_is(line, "vendor_id")) {
			const char *name = !strncmp(v, "GenuineIntel", 12) ? "intel" :
					   !strncmp(v, "AuthenticAMD", 12) ? "amd" : NULL;

			snprintf(p->cpu_vendor, sizeof(p->cpu_vendor), "%s", name ? name : "");
			snprintf(p->cpu_vendor_why, sizeof(p->cpu_vendor_why), "vendor_id %.12s%s", v,
				 name ? "" : ": not a vendor NCCL's tables have");
			intel = name && !strcmp(name, "intel");
		} else if (key_is(line, "cpu family") && family < 0) {
			family = strtol(v, NULL, 10);
		} else if (key_is(line, "model") && model < 0) {
			model = strtol(v, NULL, 10);
		} else if (key_is(line, "CPU implementer")) {
			snprintf(p->cpu_vendor, sizeof(p->cpu_vendor), "arm");
			snprintf(p->cpu_vendor_why, sizeof(p->cpu_vendor_why), "Arm (CPU implementer)");
			break;
		}
	}
	fclose(f);
	if (intel)
		cpu_model_of(p, family, model);
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
