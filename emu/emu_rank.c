/* SPDX-License-Identifier: MIT */
#include "emu_rank.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "pingpong.h"
#include "records.h"
#include "verbs_path.h"

/*
 * Which GPU of its host a rank takes (real/ opens local_rank mod the GPUs
 * it sees). Under a launcher, the launcher knows which processes share a
 * host: srun -n 4 over 2 nodes for a plan of 4 one-GPU nodes puts two
 * ranks on each host, whose plan index rank % GPUs per node is 0 for both.
 * Forked, every rank is on this host and stands for its plan node.
 */
static unsigned local_rank(const struct emu_rank_args *a, const struct boot *b)
{
	return a->launched ? a->local_rank : b->rank % a->plan->gpus_per_node;
}

/* Whether some NIC side of the plan is on "GPU" memory: a direct side,
 * or a hop inside a node (gdrlab's ring takes it through the NIC, from
 * GPU memory to GPU memory). Where none is, the arena need not be
 * registered, and a GPU without GPUDirect RDMA runs the staged path. */
static bool nic_on_gpu_memory(const struct plan *p)
{
	for (size_t i = 0; i < p->npatterns; i++) {
		const struct plan_pattern *pat = &p->patterns[i];

		for (size_t r = 0; r < pat->nroutes; r++)
			if (pat->routes[r].intra || pat->routes[r].send_direct ||
			    pat->routes[r].recv_direct)
				return true;
	}
	return false;
}

/* Open the verbs path and connect every QP; every rank agrees on the
 * outcome. */
static int rank_open(const struct emu_rank_args *a, struct boot *b,
		     void **mem_ctx, struct vp_ctx **c, struct diag *d)
{
	const struct plan *p = a->plan;
	struct vp_config cfg = {
		.device = a->device,
		.ib = a->ib,
		.rank = b->rank,
		.nranks = b->size,
		.data_bytes = emu_coll_region(emu_coll_max_bytes(p)),
		.chunk = p->topo.staging.chunk_bytes,
		.slots = p->topo.staging.buffers,
		.timeout_ms = a->timeout_ms,
		.spin_us = a->spin_us,
		.abort_fd = b->abort_fd,
		.gpu_mr_optional = !nic_on_gpu_memory(p),
		.mem = &vp_host_mem_ops,
	};
	size_t isize = vp_peer_info_size(b->size);
	struct vp_peer_info *mine = calloc(1, isize);
	char *all = calloc(b->size, isize);
	const struct vp_peer_info **ptrs = calloc(b->size, sizeof(*ptrs));
	struct diag ld = { "" };
	int err = 0;

	if (!mine || !all || !ptrs)
		err = diag_set(&ld, -ENOMEM, "out of memory");
	if (!err && a->mem && a->mem->open)
		err = a->mem->open(a->mem->arg, b->rank, local_rank(a, b),
				   &cfg.mem, mem_ctx, &ld);
	cfg.mem_ctx = *mem_ctx;
	if (!err)
		err = vp_open(c, &cfg, mine, &ld);
	err = boot_sync(b, err, &ld, mine, all, isize, d);
	if (err)
		goto out;
	for (unsigned r = 0; r < b->size; r++)
		ptrs[r] = (const void *)(all + r * isize);
	err = vp_connect(*c, ptrs, &ld);
	/* nobody writes before every QP is ready to receive */
	err = boot_sync(b, err, &ld, NULL, NULL, 0, d);
out:
	free(ptrs);
	free(all);
	free(mine);
	return err;
}

static void note(struct emu_rank_coll *o, double t0, double t1,
		 const struct vp_times *t, uint64_t verified, uint64_t errors)
{
	o->time_us = t1 - t0;
	memcpy(o->stage_us, t->us, sizeof(o->stage_us));
	memcpy(o->stage_bytes, t->bytes, sizeof(o->stage_bytes));
	o->verified = verified;
	o->errors = errors;
}

/* Fault injection for the tests of the data check: GDRLAB_EMU_CORRUPT=K
 * spoils one output byte of collective K on every rank that checks it. */
static long corrupt_index(void)
{
	const char *s = getenv("GDRLAB_EMU_CORRUPT");

	return s && *s ? strtol(s, NULL, 10) : -1;
}

int emu_rank_main(const struct emu_rank_args *a, struct boot *b,
		  struct emu_rank_coll *out, struct diag *d)
{
	const struct plan *p = a->plan;
	struct vp_ctx *c = NULL;
	void *mem_ctx = NULL;
	struct diag ld = { "" };
	long corrupt = corrupt_index();
	double one_way = 0;
	int err, pre = 0;

	err = rank_open(a, b, &mem_ctx, &c, d);
	/* its error, if any, is carried by the first collective's sync */
	if (!err)
		pre = emu_pingpong(c, p, b->rank, a->pingpong_rounds, &one_way, &ld);
	/*
	 * One sync per collective, before it starts: it is the barrier that
	 * lines up the clocks, and where an error of any rank (carried from
	 * the collective before) stops every rank at the same point.
	 */
	for (size_t i = 0; !err && i <= p->ncollectives; i++) {
		const struct plan_collective *pc = &p->collectives[i < p->ncollectives ? i : 0];
		struct emu_coll ec = {
			.plan = p,
			.pat = &p->patterns[pc->pattern],
			.dtype = p->trace->entries[pc->entry].dtype,
			.bytes = pc->bytes,
			.salt = (unsigned)i,
			.rank = b->rank,
			.half = emu_coll_region(emu_coll_max_bytes(p)) / 2,
			.corrupt = corrupt == (long)i,
		};
		struct vp_times t;
		uint64_t verified = 0, errors = 0;
		double t0, t1;
		int lerr = 0;

		memset(&t, 0, sizeof(t));
		lerr = pre;
		pre = 0;
		if (!lerr && i < p->ncollectives)
			lerr = emu_coll_prepare(c, &ec, &ld);
		err = boot_sync(b, lerr, &ld, NULL, NULL, 0, d);
		if (err || i == p->ncollectives)
			break;
		t0 = vp_now_us();
		lerr = emu_coll_run(c, &ec, &t, &ld);
		t1 = vp_now_us();
		if (!lerr)
			lerr = emu_coll_check(c, &ec, &verified, &errors, &ld);
		note(&out[i], t0, t1, &t, verified, errors);
		snprintf(out[i].registration, sizeof(out[i].registration), "%s",
			 vp_registration(c));
		out[i].link = *vp_link(c);
		out[i].link.latency_us = one_way;
		out[i].link.latency_rounds = one_way > 0 ? a->pingpong_rounds : 0;
		if (a->progress)
			records_progress(a->progress, i + 1);
		if (lerr) {
			/* carried to the next sync, which every rank reaches:
			 * the others end their step by abort or time-out */
			err = boot_sync(b, lerr, &ld, NULL, NULL, 0, d);
			break;
		}
	}
	vp_close(c);
	if (mem_ctx && a->mem && a->mem->close)
		a->mem->close(mem_ctx);
	return err;
}
