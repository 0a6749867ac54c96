/* SPDX-License-Identifier: MIT */
/* probe_json: the probe for tools. Keys are documented in docs/cli.md and
 * only ever added. */
#include <stdio.h>
#include <stdlib.h>

#include "json_util.h"
#include "probe_nvlink.h"
#include "probe_p2p.h"
#include "probe_report.h"

static const char *const level_keys[] = { "pix", "pxb", "phb", "sys" };

static json_t *link_json(const struct probe_link *l)
{
	return json_pack("{s:i, s:i, s:i, s:i}", "max_gen", l->max_gen,
			 "max_width", l->max_width, "cur_gen", l->cur_gen,
			 "cur_width", l->cur_width);
}

static const char *parent_name(const struct probe *p, const struct probe_pcidev *d)
{
	return d->parent >= 0 ? p->switches[d->parent].name : p->cpus[d->cpu].name;
}

static json_t *pci_json(const struct probe *p, const struct probe_pcidev *d)
{
	char vendor[8], device[8];

	snprintf(vendor, sizeof(vendor), "0x%04x", d->vendor);
	snprintf(device, sizeof(device), "0x%04x", d->device);
	return json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:o}", "bdf", d->bdf,
			 "numa_node", d->numa, "cpu", p->cpus[d->cpu].name,
			 "parent", parent_name(p, d), "vendor", vendor,
			 "device", device, "link", link_json(&d->link));
}

static const char *const peer_names[] = {
	[PROBE_NVL_SWITCH] = "nvswitch", [PROBE_NVL_GPU] = "gpu", [PROBE_NVL_CPU] = "cpu",
};

/* One entry a far device: NCCL's <nvlink target count tclass>; null when
 * NVML was not asked. */
static json_t *nvlinks_json(const struct probe *p, const struct probe_gpu *g)
{
	json_t *a;

	if (!g->nvlinks_read)
		return json_null();
	a = json_array();
	for (unsigned k = 0; k < g->nnvlinks; k++) {
		const struct probe_nvlink *l = &g->nvlinks[k];

		json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:i}",
			"target", l->target, "peer", peer_names[l->peer],
			"gpu", l->gpu >= 0 ? json_string(p->gpus[l->gpu].name) : json_null(),
			"links", (int)l->links));
	}
	return a;
}

/* What the emitted topology's gpu_fabric says (probe_nvlink_fabric). */
static json_t *fabric_json(const struct probe *p)
{
	static const char *const kinds[] = {
		[PROBE_FABRIC_UNKNOWN] = "unknown", [PROBE_FABRIC_PCIE] = "pcie",
		[PROBE_FABRIC_NVSWITCH] = "nvswitch", [PROBE_FABRIC_NVLINK] = "nvlink",
	};
	struct probe_fabric f;

	probe_nvlink_fabric(p, &f);
	return json_pack("{s:s, s:i, s:b, s:b}", "kind", kinds[f.kind],
			 "links", (int)f.links, "uneven", f.uneven, "nvls", f.nvls);
}

static json_t *gpu_json(const struct probe *p, const struct probe_gpu *g)
{
	json_t *o = pci_json(p, &g->pci);

	json_object_set_new(o, "name", json_string(g->name));
	json_object_set_new(o, "cpu_link", json_string(g->c2c ? "c2c" : "pcie"));
	json_object_set_new(o, "cpu_link_why", json_string(g->c2c_why));
	json_object_set_new(o, "dma_buf", json_string(probe_tri_name(g->dmabuf)));
	json_object_set_new(o, "dma_buf_why", json_string(g->dmabuf_why));
	json_object_set_new(o, "bar1", g->bar1_known ?
			    json_pack("{s:I, s:I}", "total", (json_int_t)g->bar1_total,
				      "free", (json_int_t)g->bar1_free) :
			    json_null());
	json_object_set_new(o, "compute_capability", g->sm ?
			    json_sprintf("%d.%d", g->sm / 10, g->sm % 10) : json_null());
	json_object_set_new(o, "multicast", json_string(probe_tri_name(g->multicast)));
	json_object_set_new(o, "gpudirect_rdma", json_string(probe_tri_name(g->gdr_support)));
	json_object_set_new(o, "peer_access", json_string(probe_tri_name(g->peer_access)));
	json_object_set_new(o, "nvlinks", nvlinks_json(p, g));
	return o;
}

static json_t *nic_json(const struct probe *p, const struct probe_nic *n)
{
	json_t *o = n->is_pci ? pci_json(p, &n->pci) : json_object();
	json_t *ports = json_array();
	unsigned i;

	for (i = 0; i < n->nports; i++) {
		const struct probe_port *pp = &n->ports[i];

		json_array_append_new(ports, json_pack("{s:i, s:s, s:s, s:f, s:s}",
			"port", (int)pp->num, "state", pp->state, "rate", pp->rate,
			"rate_gbit", pp->gbit, "link_layer", pp->link_layer));
	}
	json_object_set_new(o, "name", json_string(n->name));
	json_object_set_new(o, "pci", json_boolean(n->is_pci));
	json_object_set_new(o, "ports", ports);
	json_object_set_new(o, "dma_buf", json_string(probe_tri_name(n->dmabuf)));
	json_object_set_new(o, "dma_buf_why", json_string(n->dmabuf_why));
	return o;
}

static json_t *bridge_json(const struct probe_bridge *b)
{
	char ctrl[8], flags[128] = "";
	bool read = b->acs == PROBE_ACS_CLEAR || b->acs == PROBE_ACS_REDIRECT;

	snprintf(ctrl, sizeof(ctrl), "0x%04x", b->ctrl);
	if (read)
		probe_acs_flags(b->ctrl, flags, sizeof(flags));
	return json_pack("{s:s, s:s, s:o, s:o}", "bdf", b->bdf, "acs",
			 probe_acs_state_name(b->acs), "acs_ctrl",
			 read ? json_string(ctrl) : json_null(), "acs_flags",
			 read ? json_string(flags) : json_null());
}

static json_t *verdict_json(const struct probe *p, unsigned g, unsigned n,
			    enum topo_path_type level, bool allow_p2c)
{
	char why[PROBE_WHY_MAX];
	enum probe_gdr v = probe_gdr_verdict(p, g, n, level, allow_p2c, why,
					     sizeof(why));

	return json_pack("{s:s, s:s}", "verdict", probe_gdr_name(v), "why", why);
}

static json_t *pair_json(const struct probe *p, unsigned g, unsigned n)
{
	const struct probe_pair *pr = &p->pairs[g][n];
	json_t *bridges = json_array(), *gdr = json_object();
	unsigned i;

	for (i = 0; i < pr->nbridges; i++)
		json_array_append_new(bridges,
				      json_string(p->bridges[pr->bridges[i]].bdf));
	for (i = 0; i < 4; i++)
		json_object_set_new(gdr, level_keys[i],
				    verdict_json(p, g, n, topo_pcie_levels[i], false));
	json_object_set_new(gdr, "nccl_default",
			    verdict_json(p, g, n, TOPO_PATH_PXB, true));
	return json_pack("{s:s, s:s, s:s, s:o, s:s, s:o}", "gpu", p->gpus[g].name,
			 "nic", p->nics[n].name, "path", probe_class_name(pr->cls),
			 "bridges", bridges, "acs",
			 pr->acs_redirect ? "redirect" :
			 pr->acs_unknown ? "unknown" : "clear",
			 "gdr", gdr);
}

/* Each two GPUs, as NCCL would copy between them (probe_p2p.h); null
 * where the machine cannot be written as a topology (no RDMA device). */
static json_t *gpu_pairs_json(const struct probe *p)
{
	struct diag d = { "" };
	struct topology *t = p->ngpus > 1 ? probe_topology(p, &d) : NULL;
	json_t *a;

	if (!t)
		return json_null();
	a = json_array();
	for (unsigned i = 0; a && i < t->ngpus; i++)
		for (unsigned k = i + 1; k < t->ngpus; k++) {
			struct probe_p2p x;

			probe_p2p_pair(t, i, k, &x);
			json_array_append_new(a, json_pack("{s:[s,s], s:s, s:s, s:o}", "gpus",
							   p->gpus[i].name, p->gpus[k].name, "path",
							   x.path, "transport", x.shm ? "shm" : "p2p",
							   "why", x.shm ? json_string(x.why) : json_null()));
		}
	free(t);
	return a ? a : json_null();
}

json_t *probe_json(const struct probe *p)
{
	json_t *root, *a;
	unsigned i, k;

	/* --sysfs is any bytes (json_util.h) */
	root = json_pack("{s:o, s:b, s:{s:s, s:s, s:s}, s:{s:s, s:s}}",
			 "sysfs", json_file_name(p->sysfs), "live", p->live, "drivers", "cuda",
			 p->cuda, "nvml", p->nvml, "verbs", p->verbs, "peermem",
			 "state", probe_tri_name(p->peermem), "why", p->peermem_why);
	if (!root)
		return NULL;
	a = json_array();
	for (i = 0; i < p->ncpus; i++)
		json_array_append_new(a, json_pack("{s:s, s:i}", "name", p->cpus[i].name,
						   "numa_node", p->cpus[i].numa));
	json_object_set_new(root, "cpus", a);
	a = json_array();
	for (i = 0; i < p->nswitches; i++) {
		const struct probe_switch *s = &p->switches[i];
		char vendor[8], device[8], svendor[8], sdevice[8];

		snprintf(vendor, sizeof(vendor), "0x%04x", s->vendor);
		snprintf(device, sizeof(device), "0x%04x", s->device);
		snprintf(svendor, sizeof(svendor), "0x%04x", s->subsys_vendor);
		snprintf(sdevice, sizeof(sdevice), "0x%04x", s->subsys_device);
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:o}",
			"name", s->name, "bdf", s->bdf, "cpu", p->cpus[s->cpu].name,
			"parent", s->parent >= 0 ? p->switches[s->parent].name :
						   p->cpus[s->cpu].name,
			"vendor", vendor, "device", device,
			"subsystem_vendor", svendor, "subsystem_device", sdevice,
			"folded", (int)s->folded, "link", link_json(&s->link)));
	}
	json_object_set_new(root, "switches", a);
	a = json_array();
	for (i = 0; i < p->ngpus; i++)
		json_array_append_new(a, gpu_json(p, &p->gpus[i]));
	json_object_set_new(root, "gpus", a);
	json_object_set_new(root, "gpu_fabric", fabric_json(p));
	json_object_set_new(root, "cpu_vendor", json_pack("{s:o, s:s}", "name",
			    p->cpu_vendor[0] ? json_string(p->cpu_vendor) : json_null(),
			    "why", p->cpu_vendor_why));
	json_object_set_new(root, "cpu_model", json_pack("{s:o, s:s}", "name",
			    p->cpu_model[0] ? json_string(p->cpu_model) : json_null(),
			    "why", p->cpu_model_why));
	a = json_array();
	for (i = 0; i < p->nnics; i++)
		json_array_append_new(a, nic_json(p, &p->nics[i]));
	json_object_set_new(root, "nics", a);
	a = json_array();
	for (i = 0; i < p->nbridges; i++)
		json_array_append_new(a, bridge_json(&p->bridges[i]));
	json_object_set_new(root, "bridges", a);
	a = json_array();
	for (i = 0; i < p->ngpus; i++)
		for (k = 0; k < p->nnics; k++)
			if (probe_nic_in_matrix(p, k))
				json_array_append_new(a, pair_json(p, i, k));
	json_object_set_new(root, "pairs", a);
	json_object_set_new(root, "gpu_pairs", gpu_pairs_json(p));
	a = json_array();
	for (i = 0; i < p->nwarnings; i++)
		json_array_append_new(a, json_string(p->warnings[i]));
	json_object_set_new(root, "warnings", a);
	return root;
}
