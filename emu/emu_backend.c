/* SPDX-License-Identifier: MIT */
/*
 * The emu backend: real bytes over SoftRoCE (rdma_rxe) with rdma-core
 * verbs, one process per rank, "GPU memory" in host memory.
 *
 * Started plainly, gdrlab forks the ranks itself (emu_hub.c); started by
 * mpirun or srun (launch.h), each process is one rank and MPI (mpirun) or
 * gdrlab's TCP bootstrap (srun) only bootstraps. Node i of the plan uses
 * RDMA device i mod count of --devices / $GDRLAB_EMU_DEVICES (default:
 * every device, in order).
 */
#define _GNU_SOURCE
#include "emu_backend.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectives.h"
#include "emu_memory.h"
#include "emu_rank.h"
#include "launch.h"
#include "pingpong.h"
#include "topo_path.h"
#include "verbs_path.h"

#define EMU_TIMEOUT_S 10 /* default: no RDMA progress for this long fails */
/*
 * Default busy-poll before sleeping: about what a sleep costs, the bound
 * of competitive spinning (spinning as long as a block and wake-up
 * would cost is within 2x of the best choice made knowing the wait:
 * Karlin, Li, Manasse, Owicki, SOSP 1991). Under TCG a wake-up from the
 * completion channel costs 300 us (8 B ping-pong one-way 332-341 us
 * sleeping at once, 27-29 us spinning), a small message's round trip
 * 40-80 us. Spinning longer takes the CPUs that rxe's own kernel work
 * needs during bulk transfers (measured in the VM, 64 MiB send/recv in
 * 1 MiB slots against ib_write_bw's 39.8-41.7 MiB/s in the same boot:
 * 37.1-38.9 spinning 1 ms, 39.0-39.3 spinning 300 us, 37.8-41.1
 * sleeping at once; 2026-12-04, docs/performance.md).
 */
#define EMU_SPIN_US 300

struct devices {
	char **names;
	unsigned count;
};

static void devices_free(struct devices *v)
{
	vp_free_names(v->names, v->count);
	v->names = NULL;
	v->count = 0;
}

/* Leave out what NCCL_IB_HCA leaves out; none left is an error. The kept
 * names move to the front, the others are freed once the error (which
 * names the first device) is no longer possible. */
static int devices_filter(char **have, unsigned *nhave,
			  const struct ib_config *ib, struct diag *d)
{
	unsigned k = 0;
	int port;

	for (unsigned i = 0; i < *nhave; i++)
		if (ib_config_device_ok(ib, have[i], &port)) {
			char *keep = have[i];

			have[i] = have[k];
			have[k++] = keep;
		}
	if (!k)
		return diag_set(d, -ENODEV, "NCCL_IB_HCA=%s leaves none of the RDMA devices (%s%s)",
				getenv("NCCL_IB_HCA"), have[0], *nhave > 1 ? ", ..." : "");
	for (unsigned i = k; i < *nhave; i++)
		free(have[i]);
	*nhave = k;
	return 0;
}

/* The devices to use, each checked to exist. */
static int devices_get(struct devices *v, const struct ib_config *ib,
		       struct diag *d)
{
	const char *env = getenv("GDRLAB_EMU_DEVICES");
	char **have;
	unsigned nhave;
	char *list, *tok, *save = NULL;
	int err;

	memset(v, 0, sizeof(*v));
	err = vp_list_devices(&have, &nhave, d);
	if (err)
		return err;
	err = devices_filter(have, &nhave, ib, d);
	if (err) {
		vp_free_names(have, nhave);
		return err;
	}
	if (!env || !*env) {
		v->names = have;
		v->count = nhave;
		return 0;
	}

	list = strdup(env);
	v->names = calloc(strlen(env) / 2 + 1, sizeof(char *));
	if (!list || !v->names) {
		err = diag_set(d, -ENOMEM, "out of memory");
		goto out;
	}
	for (tok = strtok_r(list, ",", &save); tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		bool found = false;

		for (unsigned i = 0; i < nhave; i++)
			found |= !strcmp(have[i], tok);
		if (!found) {
			char all[256] = "";
			int port;

			for (unsigned i = 0; i < nhave; i++)
				snprintf(all + strlen(all), sizeof(all) - strlen(all),
					 "%s%s", i ? ", " : "", have[i]);
			/* @have is what NCCL_IB_HCA leaves: "not found" of a
			 * device it left out sent users looking for a device
			 * that is there */
			if (!ib_config_device_ok(ib, tok, &port))
				err = diag_set(d, -ENODEV, "RDMA device '%s' is not among those NCCL_IB_HCA=%s leaves (%s)",
					       tok, getenv("NCCL_IB_HCA"), all);
			else
				err = diag_set(d, -ENODEV, "RDMA device '%s' not found (have: %s)",
					       tok, all);
			break;
		}
		v->names[v->count] = strdup(tok);
		if (!v->names[v->count++])
			err = diag_set(d, -ENOMEM, "out of memory");
	}
	if (!err && !v->count)
		err = diag_set(d, -EINVAL, "GDRLAB_EMU_DEVICES names no device");
out:
	free(list);
	vp_free_names(have, nhave);
	if (err)
		devices_free(v);
	return err;
}

static int emu_probe(char *why, size_t len)
{
	struct devices v = { 0 };
	struct ib_config ib;
	struct diag d = { "" };
	int err = ib_config_from_env(&ib, &d);

	if (!err)
		err = devices_get(&v, &ib, &d);

	if (err)
		snprintf(why, len, "%s", d.msg);
	devices_free(&v);
	return err;
}

/*
 * GDRLAB_EMU_TIMEOUT: seconds, read as GDRLAB_BOOT_TIMEOUT is
 * (emu_env_seconds_ms). A bad value is an error: atof took "abc" for the
 * default, unsaid, and above 2^31 ms (25 days) the conversion wrapped
 * negative, so that every step failed at once with "no RDMA progress for
 * -2147484 s".
 */
static int timeout_ms(int *ms, struct diag *d)
{
	return emu_env_seconds_ms("GDRLAB_EMU_TIMEOUT", EMU_TIMEOUT_S, ms, d);
}

/*
 * A count from the environment variable @name, 0 to @max, into *@v;
 * unset or empty keeps @dflt. Anything else is an error that names the
 * variable: a bad value used to keep the default, unsaid
 * (GDRLAB_EMU_BIND=no left the ranks bound, GDRLAB_EMU_CORRUPT=no
 * spoiled collective 0).
 */
static int env_count(const char *name, long max, long dflt, long *v,
		     struct diag *d)
{
	const char *s = getenv(name);
	char *end;
	long x;

	*v = dflt;
	if (!s || !*s)
		return 0;
	errno = 0;
	x = strtol(s, &end, 10);
	if (errno || end == s || *end || x < 0 || x > max)
		return diag_set(d, -EINVAL, "%s is '%s': expected a whole number from 0 to %ld",
				name, s, max);
	*v = x;
	return 0;
}

/*
 * The data path's settings from the environment:
 *   GDRLAB_EMU_SPIN_US: 0 sleeps as soon as nothing moves (many ranks on
 *   few CPUs).
 *   GDRLAB_EMU_BIND: 1 binds forked ranks a CPU each, 0 leaves them to
 *   the scheduler. Default: bound for host memory (emu), as Open MPI's
 *   mpirun binds 2 ranks to cores: unbound, the kernel often runs both
 *   ends of a ping-pong on one CPU of two, where each round trip waits
 *   for a yield (270 us one-way against 20-30 us bound, rxe under TCG).
 *   Not for GPU memory (real): CPU r is not GPU r's nearest; its
 *   launcher binds.
 *   GDRLAB_EMU_PINGPONG: round trips of the latency measurement before
 *   the first collective (emu/pingpong.h); 0 leaves it out.
 *   GDRLAB_EMU_CORRUPT: the collective whose output each checking rank
 *   spoils (emu_rank.c reads it); only checked here.
 */
static int env_settings(struct emu_rank_args *a, const struct emu_mem *mem,
			struct diag *d)
{
	long spin, bind, rounds, corrupt;
	int err;

	err = env_count("GDRLAB_EMU_SPIN_US", 60000000, EMU_SPIN_US, &spin, d);
	if (!err)
		err = env_count("GDRLAB_EMU_BIND", 1, mem ? 0 : 1, &bind, d);
	if (!err)
		err = env_count("GDRLAB_EMU_PINGPONG", 1000000, EMU_PINGPONG_ROUNDS,
				&rounds, d);
	if (!err)
		err = env_count("GDRLAB_EMU_CORRUPT", 1L << 30, -1, &corrupt, d);
	if (err)
		return err;
	a->spin_us = (int)spin;
	a->bind_cpus = bind == 1;
	a->pingpong_rounds = (unsigned)rounds;
	return 0;
}

/* The records hold static strings: map what a rank sent back to one. */
static const char *registration_name(const char *s)
{
	static const char *const known[] = { "host", "dmabuf", "peermem", "none" };

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(s, known[i]))
			return known[i];
	return s[0] ? "other" : NULL;
}

/* Every collective: the slowest rank's time and stages; bytes checked
 * summed over ranks. */
static void merge(const struct plan *p, unsigned nranks,
		  const struct emu_rank_coll *all, struct records *rec)
{
	size_t n = p->ncollectives;

	rec->data_checked = true;
	rec->verified_bytes = rec->data_errors = 0;
	for (size_t i = 0; i < n; i++) {
		struct coll_record *c = &rec->coll[i];
		const struct emu_rank_coll *slow = NULL;

		c->data_errors = 0;
		for (unsigned r = 0; r < nranks; r++) {
			const struct emu_rank_coll *x = &all[r * n + i];

			if (!slow || x->time_us > slow->time_us)
				slow = x;
			rec->verified_bytes += x->verified;
			rec->data_errors += x->errors;
			c->data_errors += x->errors;
		}
		if (!rec->gpu_registration)
			rec->gpu_registration = registration_name(slow->registration);
		if (i == 0)
			rec->link = all[0].link; /* rank 0's */
		c->time_us = slow->time_us;
		memcpy(c->stage_us, slow->stage_us, sizeof(c->stage_us));
		memcpy(c->stage_bytes, slow->stage_bytes, sizeof(c->stage_bytes));
		c->nspans = 0;
	}
}

/*
 * The chunk is what one RDMA write carries and what a receiver reduces
 * at once: a whole number of elements of every dtype it carries (a
 * fraction of one would be summed as garbage), and below 4 GiB, since a
 * work request's scatter/gather length is 32 bits (struct ibv_sge). The
 * device's own limit (max_msg_sz) is checked when it is opened.
 */
static int check_chunk(const struct plan *p, struct diag *d)
{
	uint64_t chunk = p->topo.staging.chunk_bytes;

	if (chunk > UINT32_MAX)
		return diag_set(d, -EINVAL,
				"emu: a staging chunk of %llu bytes (--chunk, or the topology's staging.chunk) is 4 GiB or more: one RDMA write carries at most 4 GiB - 1 (ibv_sge.length is 32 bits)",
				(unsigned long long)chunk);
	for (size_t i = 0; i < p->ncollectives; i++) {
		enum trace_dtype t = p->trace->entries[p->collectives[i].entry].dtype;
		unsigned esize = trace_dtype_size(t);

		if (esize && chunk % esize)
			return diag_set(d, -EINVAL,
					"emu: a staging chunk of %llu bytes (--chunk, or the topology's staging.chunk) is not a whole number of %s elements (%u bytes each): collective %zu would be summed from split elements",
					(unsigned long long)chunk, trace_dtype_name(t),
					esize, i);
	}
	return 0;
}

static int check_plan(const struct plan *p, struct diag *d)
{
	for (size_t i = 0; i < p->ncollectives; i++) {
		const struct plan_collective *pc = &p->collectives[i];
		struct emu_coll ec = {
			.plan = p, .pat = &p->patterns[pc->pattern],
			.dtype = p->trace->entries[pc->entry].dtype,
			.bytes = pc->bytes,
		};
		int err = emu_coll_validate(&ec, d);

		if (err)
			return err;
	}
	if (p->nranks > 64)
		return diag_set(d, -EINVAL,
				"emu: %u ranks is too many processes for one host (at most 64)",
				p->nranks);
	if (!p->topo.staging.chunk_bytes || !p->topo.staging.buffers)
		return diag_set(d, -EINVAL, "emu: the staging chunk and buffers must be set");
	return check_chunk(p, d);
}

/*
 * The RDMA device of @rank. On one host (forked ranks, or a launch whose
 * ranks all share this host) each plan node stands for a server of its
 * own: node i takes device i mod count, so that traffic crosses between
 * devices (rxe0 and rxe1 in the VM). Across hosts every host has its own
 * devices: a rank takes the NIC the plan gives its GPU (the nearest, as
 * NCCL picks), so that GPU k of every host uses the same rail.
 */
static const char *device_of(const struct plan *p, const struct devices *v,
			     unsigned rank, bool one_host)
{
	unsigned gpn = p->gpus_per_node;

	if (one_host)
		return v->names[(rank / gpn) % v->count];
	return v->names[(unsigned)topo_nearest_nic(&p->topo, (int)(rank % gpn)) % v->count];
}

/* One report per run: the other ranks have the same records and write
 * the same files, but keep quiet on stdout. */
static void quiet_stdout(void)
{
	int null = open("/dev/null", O_WRONLY);

	fflush(stdout);
	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		close(null);
	}
}

/* Under mpirun or srun: this process is one rank. */
static int run_launched(const struct emu_launch *l,
			const struct emu_rank_args *a, const struct devices *v,
			struct emu_rank_coll *all, struct diag *d)
{
	const struct plan *p = a->plan;
	size_t n = p->ncollectives;
	struct emu_rank_args ra = *a;
	struct emu_rank_coll *mine;
	struct boot b;
	int err;

	if (l->size != p->nranks)
		return diag_set(d, -EINVAL,
				"%s started %u %s but the plan has %u (nodes x GPUs per node): use %s %s %u",
				l->name, l->size, l->unit, p->nranks, l->name,
				l->count_opt, p->nranks);
	err = emu_launch_boot(l, &b, d);
	if (err)
		return err;
	if (b.size != l->size || b.rank != l->rank) {
		b.ops->close(&b);
		return diag_set(d, -EPROTO, "%s says rank %u of %u, its bootstrap %u of %u",
				l->name, l->rank, l->size, b.rank, b.size);
	}
	mine = calloc(n + 1, sizeof(*mine));
	if (!mine) {
		b.ops->close(&b);
		return diag_set(d, -ENOMEM, "out of memory");
	}
	ra.device = device_of(p, v, b.rank, l->one_host);
	ra.launched = true;
	ra.local_rank = l->local_rank;
	if (b.rank != 0)
		ra.progress = NULL;
	err = emu_rank_main(&ra, &b, mine, d);
	if (!err)
		err = b.ops->results(&b, mine, all, n * sizeof(*mine), d);
	free(mine);
	b.ops->close(&b);
	if (!err && b.rank != 0)
		quiet_stdout();
	return err;
}

int emu_run_with(const struct plan *p, struct records *rec,
		 const struct emu_mem *mem, struct diag *d)
{
	struct emu_rank_args a = { .plan = p, .mem = mem, .progress = rec };
	struct ib_config ib;
	struct emu_rank_coll *all = NULL;
	const char **devs = NULL;
	struct emu_launch l;
	struct devices v;
	int err;

	err = check_plan(p, d);
	if (!err)
		err = env_settings(&a, mem, d);
	if (!err)
		err = timeout_ms(&a.timeout_ms, d);
	if (!err)
		err = emu_boot_timeout_ms(&a.barrier_ms, d);
	if (!err)
		err = ib_config_from_env(&ib, d);
	if (!err)
		err = emu_launch_detect(&l, d);
	if (err)
		return err;
	a.ib = &ib;
	err = devices_get(&v, &ib, d);
	if (err)
		return err;
	all = calloc((size_t)p->nranks * p->ncollectives + 1, sizeof(*all));
	devs = calloc(p->nranks, sizeof(*devs));
	if (!all || !devs) {
		err = diag_set(d, -ENOMEM, "out of memory");
		goto out;
	}
	for (unsigned r = 0; r < p->nranks; r++)
		devs[r] = device_of(p, &v, r, true);
	/* forked, or launched all on this host: every rank is here (each
	 * launched rank checks alike, so that none waits for another) */
	if (l.kind == EMU_LAUNCH_NONE || l.one_host)
		err = emu_memory_check(p, p->nranks, d);
	if (err)
		goto out;
	if (l.kind != EMU_LAUNCH_NONE)
		err = run_launched(&l, &a, &v, all, d);
	else
		err = emu_hub_run(&a, devs, all, d);
	if (!err) {
		merge(p, p->nranks, all, rec);
		records_progress(rec, p->ncollectives);
	}
out:
	free(devs);
	free(all);
	devices_free(&v);
	return err;
}

static int emu_run(const struct plan *p, struct records *rec, struct diag *d)
{
	return emu_run_with(p, rec, NULL, d);
}

const struct backend_ops emu_backend_ops = {
	.size = sizeof(struct backend_ops),
	.name = "emu",
	.description = "real bytes over SoftRoCE (rdma_rxe) verbs, host memory as GPU memory",
	.caps = BACKEND_CAP_WALL_CLOCK | BACKEND_CAP_DATA_CHECK,
	.probe = emu_probe,
	.run = emu_run,
};
