/* SPDX-License-Identifier: MIT */
/*
 * The terminal report: a summary, the collectives grouped by op and size
 * (a DDP trace has hundreds of equal buckets), and where the time of the
 * slowest transfer goes, stage by stage.
 */
#include "report.h"

#include <math.h>

#include "algo.h"
#include "proto.h"
#include <stdlib.h>
#include <string.h>

/*
 * Calls of one op, size, rank count and path: one row. The path is part
 * of the key, so that a tensor-parallel all-reduce inside a node and a
 * data-parallel one of the same size across the network are two rows;
 * the row's bus bandwidth is its mean time's, as nccl-tests' is its
 * average's (it was the first call's, beside the mean of all: 476 GB/s,
 * the NVLink call's, beside a mean time that the network call doubled).
 */
struct size_group {
	enum trace_op op;
	uint64_t bytes;
	unsigned nranks;
	unsigned count;
	double time_us; /* sum */
	enum plan_path_used path;
};

static size_t group_by_size(const struct records *r, struct size_group *g,
			    size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->ncoll; i++) {
		const struct coll_record *c = &r->coll[i];
		size_t k;

		for (k = 0; k < n; k++)
			if (g[k].op == c->op && g[k].bytes == c->bytes &&
			    g[k].nranks == c->nranks && g[k].path == c->path)
				break;
		if (k == n) {
			if (n == max)
				continue;
			g[n++] = (struct size_group){ c->op, c->bytes, c->nranks, 0, 0, c->path };
		}
		g[k].count++;
		g[k].time_us += c->time_us;
	}
	return n;
}

/* A row's bus bandwidth, GB/s: nccl-tests' of its mean time
 * (schedule.c: algbw = S / t, busbw = algbw x the op's factor). */
static double group_busbw(const struct size_group *g)
{
	double mean_us = g->time_us / g->count;

	return mean_us > 0 ? g->bytes / (mean_us * 1e3) * plan_bus_factor(g->op, g->nranks) : 0;
}

static int cmp_group(const void *a, const void *b)
{
	const struct size_group *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->op != y->op)
		return (int)x->op - (int)y->op;
	if (x->nranks != y->nranks)
		return x->nranks < y->nranks ? 1 : -1;
	return (int)x->path - (int)y->path;
}

static void human_bytes(uint64_t b, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.2f %s" : "%.0f %s", v, unit[u]);
}

/* The first collective's note (its fallback, or with @shm its pair
 * through host memory), and in *@count how many have one. */
static const char *first_note(const struct records *r, bool shm, unsigned *count)
{
	const char *why = NULL;

	*count = 0;
	for (size_t i = 0; i < r->ncoll; i++) {
		const char *note = shm ? r->coll[i].shm : r->coll[i].fallback;

		if (note) {
			if (!why)
				why = note;
			(*count)++;
		}
	}
	return why;
}

static const char *first_fallback(const struct records *r, unsigned *count)
{
	return first_note(r, false, count);
}

/* Collectives whose copies inside a node go through host memory. */
static void print_shm(FILE *out, const struct records *r)
{
	unsigned n;
	const char *why = first_note(r, true, &n);

	if (why)
		fprintf(out, "shm        %u collective%s copy between GPUs through host memory (NCCL's SHM), %s\n",
			n, n == 1 ? "" : "s", why);
}

/* The switches, and the link whose flows get the least of it, when the
 * topology has them (a crossbar prints nothing, as it always did). */
static void print_fabric(FILE *out, const struct records *r)
{
	const struct fabric_geom *g = &r->fabric;
	const struct coll_record *worst = NULL;
	char size[32];

	if (!g->tiers)
		return;
	fprintf(out, "fabric     %u-tier, %s-attached: %u lea%s (%.3g:1), %u spine%s",
		g->tiers, r->attach == TOPO_ATTACH_RAIL ? "rail" : "node", g->leaves,
		g->leaves == 1 ? "f" : "ves", r->leaf_oversubscription, g->spines,
		g->spines == 1 ? "" : "s");
	if (g->tiers == 3)
		fprintf(out, " (%.3g:1) in %u pod%s, %u core%s", r->spine_oversubscription,
			g->pods, g->pods == 1 ? "" : "s", g->cores, g->cores == 1 ? "" : "s");
	fprintf(out, "; ECMP seed %llu\n", (unsigned long long)r->ecmp_seed);
	for (size_t i = 0; i < r->ncoll; i++) {
		const struct coll_record *c = &r->coll[i];

		if (c->fabric_link < r->nlink_names &&
		    (!worst || c->fabric_share < worst->fabric_share))
			worst = c;
	}
	if (!worst)
		return;
	human_bytes(worst->bytes, size, sizeof(size));
	fprintf(out, "busiest    %s: %u flow%s, %.3g of a NIC port each (%s of %s)\n",
		r->link_names[worst->fabric_link], worst->fabric_flows,
		worst->fabric_flows == 1 ? "" : "s", worst->fabric_share,
		trace_op_name(worst->op), size);
}

/* What the run forced of NCCL's choice (--algo, --proto, --channels,
 * --pxn off), in NCCL's variables: the algorithms line below is then
 * not the tuner's own pick. Nothing when nothing was. */
static void print_forced(FILE *out, const struct records *r, const struct plan_options *o)
{
	if (!o->algo && !o->proto && !o->nchannels && !o->pxn_off)
		return;
	fprintf(out, "forced    ");
	if (o->algo)
		fprintf(out, " NCCL_ALGO=%s", o->algo);
	if (o->proto)
		fprintf(out, " NCCL_PROTO=%s", o->proto);
	if (o->nchannels)
		fprintf(out, " --channels %u", o->nchannels);
	if (o->pxn_off)
		fprintf(out, " NCCL_PXN_DISABLE=1");
	/* emu and real run gdrlab's own verbs ring whatever is asked */
	if (o->ring_only)
		fprintf(out, " (ignored: %s runs gdrlab's own ring)\n", r->backend);
	else
		fprintf(out, " (not NCCL's own choice)\n");
}

/* @has_memcpy: a staged-memcpy run is in the table (run on it, compare) */
static void print_header(FILE *out, const struct report_context *ctx,
			 const struct records *r, bool has_memcpy)
{
	const struct plan *p = ctx->plan;

	fprintf(out, "topology   %s (%s)\n", p->topo.name, ctx->topology_file);
	fprintf(out, "trace      %s: %zu collective%s over %u iteration%s", ctx->trace_file,
		r->ncoll, r->ncoll == 1 ? "" : "s", r->niter, r->niter == 1 ? "" : "s");
	if (r->njobs > 1)
		fprintf(out, " of %u jobs, each on its own clock", r->njobs);
	fprintf(out, "\n");
	fprintf(out, "cluster    %u node%s x %u GPU%s, %u NIC%s per node\n",
		r->nodes, r->nodes == 1 ? "" : "s", r->gpus_per_node,
		r->gpus_per_node == 1 ? "" : "s", p->topo.nnics,
		p->topo.nnics == 1 ? "" : "s");
	fprintf(out, "backend    %s; NCCL %s; GDR level %s%s%s",
		r->backend, p->nccl->version, topo_path_name(p->opts.gdr_level),
		p->opts.p2p_level ? "; P2P level " : "", p2p_user_level_name(p->opts.p2p_level));
	/* the bounce buffers where a path copies through them: gdrlab's own
	 * ring's chunks (emu, real), staged-memcpy's slots of NCCL's slices;
	 * direct calls and NCCL's own staging have none */
	if (p->opts.ring_only)
		fprintf(out, "; staging %llu KiB x %u buffers",
			(unsigned long long)(p->topo.staging.chunk_bytes / 1024),
			p->topo.staging.buffers);
	else if (has_memcpy)
		fprintf(out, "; staged-memcpy through %u buffers a side", p->topo.staging.buffers);
	fputc('\n', out);
	print_forced(out, r, &p->opts);
	print_fabric(out, r);
}

/* "Ring/Simple x10 (8 ch), Tree/LL x2 (2-4 ch)": what NCCL's tuner chose,
 * most used first, with the channels its calls ran: a range where they
 * differ (a tensor-parallel group's 24 and a data-parallel pair's 4 were
 * "(24 ch)" for all of them, against --json's per call). */
static void print_algorithms(FILE *out, const char *label, const struct records *r)
{
	struct algo_use {
		enum algo_id a;
		enum proto_id p;
		unsigned n, ch, ch_min;
	} seen[ALGO_COUNT * PROTO_COUNT];
	size_t ns = 0;

	for (size_t i = 0; i < r->ncoll; i++) {
		size_t k;

		for (k = 0; k < ns; k++)
			if (seen[k].a == r->coll[i].algo && seen[k].p == r->coll[i].proto)
				break;
		if (k == ns)
			seen[ns++] = (struct algo_use){ r->coll[i].algo, r->coll[i].proto,
							0, r->coll[i].nchannels,
							r->coll[i].nchannels };
		seen[k].n++;
		if (r->coll[i].nchannels > seen[k].ch)
			seen[k].ch = r->coll[i].nchannels;
		if (r->coll[i].nchannels < seen[k].ch_min)
			seen[k].ch_min = r->coll[i].nchannels;
	}
	if (!ns)
		return;
	fprintf(out, "%s", label);
	for (unsigned done = 0; done < ns; done++) {
		size_t best = 0;

		for (size_t k = 1; k < ns; k++)
			if (seen[k].n > seen[best].n)
				best = k;
		fprintf(out, "%s%s/%s x%u (", done ? ", " : "", algo_name(seen[best].a),
			proto_name(seen[best].p), seen[best].n);
		if (seen[best].ch_min < seen[best].ch)
			fprintf(out, "%u-", seen[best].ch_min);
		fprintf(out, "%u ch)", seen[best].ch);
		seen[best].n = 0;
	}
	fprintf(out, "\n");
}

/* How many of @r's queues are pairs' own (a send outside a batch). */
static unsigned pair_queues(const struct records *r)
{
	bool *seen = calloc(r->nqueues ? r->nqueues : 1, sizeof(*seen));
	unsigned n = 0;

	for (size_t i = 0; seen && i < r->ncoll; i++)
		if (r->coll[i].pair_queue && !seen[r->coll[i].queue]) {
			seen[r->coll[i].queue] = true;
			n++;
		}
	free(seen);
	return n;
}

/* "communicators  3 (tp0, tp1, dp0) on 4 streams; ...": only when
 * collectives could run at once. */
static void print_comms(FILE *out, const char *label, const struct records *r)
{
	double stretch = 1;
	unsigned pairs;

	if (!records_concurrent(r))
		return;
	pairs = pair_queues(r);
	fprintf(out, "%s%zu (", label, r->ncomms);
	for (size_t k = 0; k < r->ncomms && k < 6; k++)
		fprintf(out, "%s%s", k ? ", " : "", r->comms[k].name);
	fprintf(out, "%s)", r->ncomms > 6 ? ", ..." : "");
	if (r->nqueues > pairs)
		fprintf(out, " on %u stream%s", r->nqueues - pairs, r->nqueues - pairs == 1 ? "" : "s");
	if (pairs)
		fprintf(out, ", sends outside a batch on %u rank pair%s own stream%s", pairs,
			pairs == 1 ? "'s" : "s'", pairs == 1 ? "" : "s");
	for (size_t i = 0; i < r->ncoll; i++)
		if (r->coll[i].alone_us > 0 && r->coll[i].time_us / r->coll[i].alone_us > stretch)
			stretch = r->coll[i].time_us / r->coll[i].alone_us;
	if (r->overlapped)
		fprintf(out, "; sharing links at once (%s), up to %.2fx their time alone\n",
			r->sharing == RECORDS_SHARED_SIMGRID ? "simulated together" : "fluid", stretch);
	else
		fprintf(out, "; none slowed another\n");
}

/* Whether the trace gives any compute to overlap. */
static bool has_compute(const struct records *r)
{
	for (unsigned i = 0; i < r->niter; i++)
		if (r->iter[i].compute_us > 0)
			return true;
	return false;
}

void report_table(FILE *out, const struct report_context *ctx,
		  const struct records *r)
{
	struct size_group groups[64];
	size_t ng = group_by_size(r, groups, 64);
	unsigned nfb;
	const char *why = first_fallback(r, &nfb);
	double stage_total = 0;
	double stage_us[STAGE_KIND_COUNT] = { 0 };

	print_header(out, ctx, r, ctx->plan->opts.path == PLAN_PATH_STAGED_MEMCPY);
	fprintf(out, "path       %s requested", plan_path_name(r->path));
	if (why)
		fprintf(out, "; %u collectives fell back to staged: %s", nfb, why);
	fprintf(out, "\n");
	print_shm(out, r);
	if (r->data_checked)
		fprintf(out, "data       %llu bytes verified, %llu wrong\n",
			(unsigned long long)r->verified_bytes,
			(unsigned long long)r->data_errors);
	if (r->link.device[0]) {
		fprintf(out, "rdma       %s port %u, %s GID %d, MTU %u%s", r->link.device,
			r->link.port, r->link.gid_type, r->link.gid_index, r->link.mtu,
			r->link.relaxed_ordering ? ", relaxed ordering" : "");
		if (r->link.latency_rounds)
			fprintf(out, "; 8 B one-way %.1f us (half the median of %u round trips, as ib_write_lat)",
				r->link.latency_us, r->link.latency_rounds);
		fprintf(out, "\n");
	}
	fprintf(out, "\n");
	/* an imported profile has no compute times: its iteration is its
	 * calls' ready times and their communication, not a training step */
	fprintf(out, "iteration time       %12.1f us%s\n", r->iteration_time_us,
		r->njobs > 1 ?  " (means over every job's iterations, here and below: each job's at the end)" :
		has_compute(r) ? "" : " (no compute in the trace: until its last call ends)");
	fprintf(out, "communication time   %12.1f us%s\n", r->comm_time_us,
		records_concurrent(r) ? " (every call's, summed: calls may run at once)" :
					"");
	/* the sum counts the same microseconds once per call at once, and
	 * may exceed the iteration: the span they cover does not */
	if (records_concurrent(r))
		fprintf(out, "comm in flight       %12.1f us (calls at once counted once)\n",
			r->comm_busy_us);
	fprintf(out, "exposed comm         %12.1f us\n", r->exposed_comm_us);
	print_algorithms(out, "algorithms           ", r);
	print_comms(out, "communicators        ", r);
	fprintf(out, "\n");

	qsort(groups, ng, sizeof(groups[0]), cmp_group);
	fprintf(out, "%-15s %12s %6s %6s %12s %11s  %s\n", "op", "bytes", "ranks",
		"count", "time_us", "busbw_GB/s", "path");
	for (size_t i = 0; i < ng; i++) {
		char b[32], near[32];

		human_bytes(groups[i].bytes, b, sizeof(b));
		/* two sizes that print alike (33587200 and 33589248 bytes:
		 * "32.03 MiB") are told apart in bytes */
		for (size_t j = i ? i - 1 : i + 1; j <= i + 1 && j < ng; j += 2) {
			human_bytes(groups[j].bytes, near, sizeof(near));
			if (groups[j].bytes != groups[i].bytes && !strcmp(near, b))
				snprintf(b, sizeof(b), "%llu B", (unsigned long long)groups[i].bytes);
		}
		fprintf(out, "%-15s %12s %6u %6u %12.1f %11.2f  %s\n",
			trace_op_name(groups[i].op), b, groups[i].nranks,
			groups[i].count, groups[i].time_us / groups[i].count,
			group_busbw(&groups[i]), plan_path_used_name(groups[i].path));
	}

	for (size_t i = 0; i < r->ncoll; i++)
		for (int k = 0; k < STAGE_KIND_COUNT; k++)
			stage_us[k] += r->coll[i].stage_us[k];
	for (int k = 0; k < STAGE_KIND_COUNT; k++)
		stage_total += stage_us[k];
	if (stage_total <= 0)
		return;
	fprintf(out, "\nstage busy time of the bottleneck connection, per iteration "
		     "(stages overlap when pipelined%s)\n",
		records_concurrent(r) ? "; summed over calls at once" : "");
	for (int k = 0; k < STAGE_KIND_COUNT; k++)
		if (stage_us[k] > 0)
			fprintf(out, "  %-14s %12.1f us\n", stage_kind_name(k),
				stage_us[k] / (r->niter ? r->niter : 1));
}

const enum plan_path report_path_plan[REPORT_PATHS] = {
	[REPORT_DIRECT] = PLAN_PATH_DIRECT,
	[REPORT_STAGED] = PLAN_PATH_STAGED,
	[REPORT_STAGED_MEMCPY] = PLAN_PATH_STAGED_MEMCPY,
};

static const char *const path_titles[REPORT_PATHS] = {
	[REPORT_DIRECT] = "direct",
	[REPORT_STAGED] = "staged",
	[REPORT_STAGED_MEMCPY] = "staged-memcpy",
};

/* Whether some collective of @r crossed the network (PLAN_USED_NONE: it
 * never left a node). */
static bool crosses_network(const struct records *r)
{
	for (size_t i = 0; i < r->ncoll; i++)
		if (r->coll[i].path != PLAN_USED_NONE)
			return true;
	return false;
}

/* "1.59x faster than", "1.21x slower than", or "as fast as" within half
 * a percent, which "1.00x slower" said. */
static void print_ratio(FILE *out, double x)
{
	if (fabs(x - 1) < REPORT_SAME_SPEED)
		fprintf(out, "as fast as");
	else
		fprintf(out, "%.2fx %s than", x >= 1 ? x : 1 / x, x >= 1 ? "faster" : "slower");
}

/*
 * Where direct is slower, the calls it ran otherwise than staged: NCCL's
 * tuner picks by its own estimates, and LL128 needs GPUDirect RDMA on
 * every network side, so direct may run LL128 where staged runs Simple,
 * and the estimate may not hold. Said so, that the data path is not
 * blamed for its protocol.
 */
static void print_choice_note(FILE *out, const struct records *direct, const struct records *staged)
{
	size_t n = direct->ncoll == staged->ncoll ? direct->ncoll : 0, other = 0, slower = 0;
	const struct coll_record *eg = NULL, *eg_staged = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct coll_record *d = &direct->coll[i], *st = &staged->coll[i];

		if (d->time_us <= st->time_us)
			continue;
		slower++;
		if (d->algo == st->algo && d->proto == st->proto)
			continue;
		other++;
		if (!eg) {
			eg = d;
			eg_staged = st;
		}
	}
	if (!other)
		return;
	fprintf(out, "         %zu of the %zu calls direct takes longer run another choice of NCCL's tuner\n"
		     "         (%s/%s where staged runs %s/%s): its estimates, not the data path;\n"
		     "         --algo/--proto fix the choice (NCCL_ALGO, NCCL_PROTO)\n",
		other, slower, algo_name(eg->algo), proto_name(eg->proto), algo_name(eg_staged->algo),
		proto_name(eg_staged->proto));
}

static void print_verdict(FILE *out, const struct records *const r[REPORT_PATHS])
{
	double comm = report_comm_speedup(r[REPORT_STAGED], r[REPORT_DIRECT]);
	double memcpy_comm = report_comm_speedup(r[REPORT_STAGED_MEMCPY], r[REPORT_DIRECT]);
	double iter = report_speedup(r[REPORT_STAGED], r[REPORT_DIRECT]);

	if (comm <= 0 && r[REPORT_STAGED]->comm_time_us <= 0) {
		fprintf(out, "\nverdict: no collective here moves data between GPUs (each is on "
			     "one rank): the paths cost the same\n");
		return;
	}
	if (!crosses_network(r[REPORT_DIRECT])) {
		fprintf(out, "\nverdict: no collective here leaves its node (NVLink or PCIe inside "
			     "it): GPUDirect RDMA\n         does not apply, and the paths cost the "
			     "same\n");
		return;
	}
	if (records_never_direct(r[REPORT_DIRECT])) {
		unsigned n;
		const char *why = first_fallback(r[REPORT_DIRECT], &n);

		fprintf(out, "\nverdict: GPUDirect RDMA cannot be used here: every collective that "
			     "leaves its node falls back\n         to host staging (%s), so the "
			     "paths cost the same\n", why ? why : "no GPU-NIC path allows it");
		return;
	}
	if (comm <= 0 || iter <= 0)
		return;
	fprintf(out, "\nverdict: direct (GPUDirect RDMA) communication is ");
	print_ratio(out, comm);
	fprintf(out, " NCCL's host staging");
	if (memcpy_comm > 0) {
		fprintf(out, "\n         (");
		print_ratio(out, memcpy_comm);
		fprintf(out, " staging with memcpy, as MPI does)");
	}
	if (fabs(1 - 1 / iter) < REPORT_SAME_ITERATION)
		fprintf(out, ";\n         the iteration takes as long either way\n");
	else
		fprintf(out, ";\n         %s the iteration is %.1f%% %s\n",
			has_compute(r[REPORT_DIRECT]) ? "with compute overlap" : "with no compute in the trace,",
			100 * fabs(1 - 1 / iter), iter >= 1 ? "shorter" : "longer");
	if (comm < 1 / (1 + REPORT_SAME_SPEED))
		print_choice_note(out, r[REPORT_DIRECT], r[REPORT_STAGED]);
}

/* Two speedups, "n/a" where one is undefined (0: nothing timed). */
static void speedup_row(FILE *out, const char *what, double staged, double memcpy_staged)
{
	fprintf(out, "%-22s", what);
	for (int k = 0; k < 2; k++) {
		double x = k ? memcpy_staged : staged;

		if (x > 0)
			fprintf(out, " %14.2fx", x);
		else
			fprintf(out, " %15s", "n/a");
	}
	fprintf(out, "\n");
}

static void compare_row(FILE *out, const char *what,
			const struct records *const r[REPORT_PATHS],
			double (*get)(const struct records *))
{
	fprintf(out, "%-22s", what);
	for (int k = 0; k < REPORT_PATHS; k++)
		fprintf(out, " %15.1f", get(r[k]));
	fprintf(out, "\n");
}

static double iteration_of(const struct records *r)
{
	return r->iteration_time_us;
}

static double comm_of(const struct records *r)
{
	return r->comm_time_us;
}

static double exposed_of(const struct records *r)
{
	return r->exposed_comm_us;
}

static double busy_of(const struct records *r)
{
	return r->comm_busy_us;
}

void report_compare_table(FILE *out, const struct report_context *ctx,
			  const struct records *const r[REPORT_PATHS])
{
	double st[REPORT_PATHS][STAGE_KIND_COUNT] = { { 0 } };
	unsigned nfb, ni = r[REPORT_DIRECT]->niter ? r[REPORT_DIRECT]->niter : 1;
	const char *why = first_fallback(r[REPORT_DIRECT], &nfb);
	bool concurrent = records_concurrent(r[REPORT_DIRECT]);

	print_header(out, ctx, r[REPORT_DIRECT], true);
	if (why)
		fprintf(out, "fallback   %u collectives could not go direct: %s\n",
			nfb, why);
	print_shm(out, r[REPORT_DIRECT]);
	/* Each path is tuned on its own (staged has no LL128, say), so each
	 * says what NCCL's tuner chose for it. */
	for (int k = 0; k < REPORT_PATHS; k++) {
		char label[40];

		snprintf(label, sizeof(label), "%-11s%-15s", k ? "" : "algorithm", path_titles[k]);
		print_algorithms(out, label, r[k]);
	}
	print_comms(out, "comms      ", r[REPORT_DIRECT]);
	fprintf(out, "\n%-22s", "per iteration");
	for (int k = 0; k < REPORT_PATHS; k++)
		fprintf(out, " %15s", path_titles[k]);
	fprintf(out, "\n");
	compare_row(out, "iteration time (us)", r, iteration_of);
	compare_row(out, "communication (us)", r, comm_of);
	if (concurrent)
		compare_row(out, "comm in flight (us)", r, busy_of);
	compare_row(out, "exposed comm (us)", r, exposed_of);
	if (concurrent)
		fprintf(out, "(communication: every call's, summed: calls may run at once; "
			     "in flight: calls at once counted once)\n");
	fprintf(out, "\n%-22s %15s %15s\n", "speedup of direct over", "staged", "staged-memcpy");
	speedup_row(out, "  communication", report_comm_speedup(r[REPORT_STAGED], r[REPORT_DIRECT]),
		    report_comm_speedup(r[REPORT_STAGED_MEMCPY], r[REPORT_DIRECT]));
	speedup_row(out, "  iteration", report_speedup(r[REPORT_STAGED], r[REPORT_DIRECT]),
		    report_speedup(r[REPORT_STAGED_MEMCPY], r[REPORT_DIRECT]));
	for (int p = 0; p < REPORT_PATHS; p++)
		for (size_t i = 0; i < r[p]->ncoll; i++)
			for (int k = 0; k < STAGE_KIND_COUNT; k++)
				st[p][k] += r[p]->coll[i].stage_us[k];
	for (int k = 0, head = 0; k < STAGE_KIND_COUNT; k++) {
		if (st[0][k] <= 0 && st[1][k] <= 0 && st[2][k] <= 0)
			continue;
		if (!head++) /* none when nothing moved (one rank each) */
			fprintf(out, "\nstage busy time of the bottleneck connection (us per iteration%s)\n",
				concurrent ? ", summed over calls at once" : "");
		fprintf(out, "  %-20s", stage_kind_name(k));
		for (int p = 0; p < REPORT_PATHS; p++)
			fprintf(out, " %15.1f", st[p][k] / ni);
		fprintf(out, "\n");
	}
	print_verdict(out, r);
}

/* Whether what GPUDirect RDMA buys can be read off @fast, the run asked
 * to go direct: not where it never did (two staged runs compared), nor
 * where nothing left a node (NVLink or PCIe inside it: the paths alike,
 * where the table said 1.00x and the JSON 1.0, and a sweep says "in
 * node"). */
static bool gdr_measured(const struct records *fast)
{
	enum plan_path_used u = records_path_used(fast);

	return u != PLAN_USED_NONE && !plan_path_used_never_direct(u);
}

/* Undefined (0) where gdr_measured is not. */
double report_speedup(const struct records *slow, const struct records *fast)
{
	return fast->iteration_time_us > 0 && gdr_measured(fast) ?
		       slow->iteration_time_us / fast->iteration_time_us : 0;
}

double report_comm_speedup(const struct records *slow, const struct records *fast)
{
	return fast->comm_time_us > 0 && gdr_measured(fast) ?
		       slow->comm_time_us / fast->comm_time_us : 0;
}
