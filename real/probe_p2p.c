/* SPDX-License-Identifier: MIT */
#include "probe_p2p.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "nccl_tuning.h"
#include "p2p_policy.h"
#include "probe_report.h"

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
	out->path = p2p_pair_class(t, a, b);
	out->why[0] = '\0';
	out->shm = p2p_refused(nccl_release_newest(), P2P_USER_UNSET, t, a, b, t->ngpus, out->why,
			       sizeof(out->why));
}
