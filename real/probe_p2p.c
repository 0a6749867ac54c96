/* SPDX-License-Identifier: MIT */
#include "probe_p2p.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "nccl_tuning.h"
#include "p2p_policy.h"
#include "probe_report.h"
#include "topo_path.h"

struct topology *probe_topology(const struct probe *p, struct diag *d)
{
	struct topology *t = malloc(sizeof(*t));
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	int err = !t || !fp ? diag_set(d, -ENOMEM, "out of memory") : 0;

	if (!err)
		err = probe_emit_topology(p, fp, d);
	if (fp && fclose(fp) && !err)
		err = diag_set(d, -ENOMEM, "out of memory");
	if (!err)
		err = topology_load_buffer(text, len, "the probed machine", t, d);
	free(text);
	if (err) {
		free(t);
		return NULL;
	}
	return t;
}

void probe_p2p_pair(const struct topology *t, unsigned a, unsigned b, struct probe_p2p *out)
{
	const struct nccl_release *r = nccl_release_newest();
	enum topo_path_type cls, level;
	unsigned via, links;

	switch (topo_nvlink_way(t, a, b, &via)) {
	case TOPO_NVLINK_DIRECT:
		out->path = "NVL";
		break;
	case TOPO_NVLINK_VIA:
		out->path = "NVB";
		break;
	case TOPO_NVLINK_NONE:
		out->path = topo_path_name(topo_gpu_gpu_path(t, a, b, &links));
		break;
	}
	out->shm = !p2p_allowed(r, P2P_USER_UNSET, t, a, b, t->ngpus);
	out->why[0] = '\0';
	if (!out->shm)
		return;
	if (t->gpus[a].no_peer_access || t->gpus[b].no_peer_access) {
		snprintf(out->why, sizeof(out->why), "CUDA refuses %s peer access (cuDeviceCanAccessPeer)",
			 t->gpus[a].no_peer_access ? t->gpus[a].name : t->gpus[b].name);
		return;
	}
	cls = topo_gpu_gpu_path(t, a, b, &links);
	level = p2p_release_level(r, t, t->ngpus);
	/* the rule's inputs in brackets: the vendor, and on AMD the count */
	snprintf(out->why, sizeof(out->why),
		 "%s is beyond NCCL %s's P2P level here, %s (%s CPUs, %u GPUs); NCCL_P2P_LEVEL=%s would allow it",
		 topo_path_name(cls), r->version, topo_path_name(level),
		 topo_cpu_vendor_name(t->cpu_vendor), t->ngpus, topo_path_name(cls));
}
