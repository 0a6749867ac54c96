/* SPDX-License-Identifier: MIT */
/*
 * The terminal report: a summary, the collectives grouped by op and size
 * (a DDP trace has hundreds of equal buckets), and where the time of the
 * slowest transfer goes, stage by stage.
 */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct size_group {
	enum trace_op op;
	uint64_t bytes;
	unsigned nranks;
	unsigned count;
	double time_us; /* sum */
	double busbw;   /* of the first */
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
			    g[k].nranks == c->nranks)
				break;
		if (k == n) {
			if (n == max)
				continue;
			g[n++] = (struct size_group){ c->op, c->bytes, c->nranks,
						      0, 0, c->busbw_gbps, c->path };
		}
		g[k].count++;
		g[k].time_us += c->time_us;
	}
	return n;
}

static int cmp_group(const void *a, const void *b)
{
	const struct size_group *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return (int)x->op - (int)y->op;
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

static const char *first_fallback(const struct records *r, unsigned *count)
{
	const char *why = NULL;

	*count = 0;
	for (size_t i = 0; i < r->ncoll; i++)
		if (r->coll[i].fallback) {
			if (!why)
				why = r->coll[i].fallback;
			(*count)++;
		}
	return why;
}

static void print_header(FILE *out, const struct report_context *ctx,
			 const struct records *r)
{
	const struct plan *p = ctx->plan;

	fprintf(out, "topology   %s (%s)\n", p->topo.name, ctx->topology_file);
	fprintf(out, "trace      %s: %zu collectives over %u iterations\n",
		ctx->trace_file, r->ncoll, r->niter);
	fprintf(out, "cluster    %u node%s x %u GPU%s, %u NIC%s per node\n",
		r->nodes, r->nodes == 1 ? "" : "s", r->gpus_per_node,
		r->gpus_per_node == 1 ? "" : "s", p->topo.nnics,
		p->topo.nnics == 1 ? "" : "s");
	fprintf(out, "backend    %s; GDR level %s; staging %llu KiB x %u buffers\n",
		r->backend, topo_path_name(p->opts.gdr_level),
		(unsigned long long)(p->topo.staging.chunk_bytes / 1024),
		p->topo.staging.buffers);
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

	print_header(out, ctx, r);
	fprintf(out, "path       %s requested", plan_path_name(r->path));
	if (why)
		fprintf(out, "; %u collectives fell back to staged: %s", nfb, why);
	fprintf(out, "\n");
	if (r->data_checked)
		fprintf(out, "data       %llu bytes verified, %llu wrong\n",
			(unsigned long long)r->verified_bytes,
			(unsigned long long)r->data_errors);
	fprintf(out, "\n");
	fprintf(out, "iteration time       %12.1f us\n", r->iteration_time_us);
	fprintf(out, "communication time   %12.1f us\n", r->comm_time_us);
	fprintf(out, "exposed comm         %12.1f us\n\n", r->exposed_comm_us);

	qsort(groups, ng, sizeof(groups[0]), cmp_group);
	fprintf(out, "%-15s %12s %6s %6s %12s %11s  %s\n", "op", "bytes", "ranks",
		"count", "time_us", "busbw_GB/s", "path");
	for (size_t i = 0; i < ng; i++) {
		char b[32];

		human_bytes(groups[i].bytes, b, sizeof(b));
		fprintf(out, "%-15s %12s %6u %6u %12.1f %11.2f  %s\n",
			trace_op_name(groups[i].op), b, groups[i].nranks,
			groups[i].count, groups[i].time_us / groups[i].count,
			groups[i].busbw, plan_path_used_name(groups[i].path));
	}

	for (size_t i = 0; i < r->ncoll; i++)
		for (int k = 0; k < STAGE_KIND_COUNT; k++)
			stage_us[k] += r->coll[i].stage_us[k];
	for (int k = 0; k < STAGE_KIND_COUNT; k++)
		stage_total += stage_us[k];
	if (stage_total <= 0)
		return;
	fprintf(out, "\nstage busy time of the slowest transfer, per iteration "
		     "(stages overlap when pipelined)\n");
	for (int k = 0; k < STAGE_KIND_COUNT; k++)
		if (stage_us[k] > 0)
			fprintf(out, "  %-14s %12.1f us\n", stage_kind_name(k),
				stage_us[k] / (r->niter ? r->niter : 1));
}

static void print_verdict(FILE *out, const struct records *staged,
			  const struct records *direct)
{
	double comm = direct->comm_time_us > 0 ?
			      staged->comm_time_us / direct->comm_time_us : 0;
	double iter = report_speedup(staged, direct);

	if (comm <= 0 || iter <= 0)
		return;
	fprintf(out, "\nverdict: direct (GPUDirect RDMA) communication is %.2fx %s than "
		     "staged;\n         with compute overlap the iteration is %.1f%% %s\n",
		comm >= 1 ? comm : 1 / comm, comm >= 1 ? "faster" : "slower",
		100 * fabs(1 - 1 / iter), iter >= 1 ? "shorter" : "longer");
}

static void compare_row(FILE *out, const char *what, double s, double d)
{
	fprintf(out, "%-22s %14.1f %14.1f %9.2fx\n", what, s, d,
		d > 0 ? s / d : 0);
}

void report_compare_table(FILE *out, const struct report_context *ctx,
			  const struct records *staged,
			  const struct records *direct)
{
	double ss[STAGE_KIND_COUNT] = { 0 }, ds[STAGE_KIND_COUNT] = { 0 };
	unsigned nfb;
	const char *why = first_fallback(direct, &nfb);
	unsigned ni = staged->niter ? staged->niter : 1;

	print_header(out, ctx, staged);
	if (why)
		fprintf(out, "fallback   %u collectives could not go direct: %s\n",
			nfb, why);
	fprintf(out, "\n%-22s %14s %14s %10s\n", "per iteration", "staged",
		"direct", "speedup");
	compare_row(out, "iteration time (us)", staged->iteration_time_us,
		    direct->iteration_time_us);
	compare_row(out, "communication (us)", staged->comm_time_us,
		    direct->comm_time_us);
	compare_row(out, "exposed comm (us)", staged->exposed_comm_us,
		    direct->exposed_comm_us);
	for (size_t i = 0; i < staged->ncoll; i++)
		for (int k = 0; k < STAGE_KIND_COUNT; k++) {
			ss[k] += staged->coll[i].stage_us[k];
			ds[k] += direct->coll[i].stage_us[k];
		}
	fprintf(out, "\nstage busy time of the slowest transfer (us per iteration)\n");
	for (int k = 0; k < STAGE_KIND_COUNT; k++)
		if (ss[k] > 0 || ds[k] > 0)
			fprintf(out, "  %-20s %14.1f %14.1f\n", stage_kind_name(k),
				ss[k] / ni, ds[k] / ni);
	print_verdict(out, staged, direct);
}

double report_speedup(const struct records *staged, const struct records *direct)
{
	return direct->iteration_time_us > 0 ?
		       staged->iteration_time_us / direct->iteration_time_us : 0;
}
