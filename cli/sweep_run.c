/* SPDX-License-Identifier: MIT */
/*
 * gdrlab sweep's points, each in a forked process (a model point forks
 * again for SimGrid), at most -j at a time. A point's process sends one
 * fixed-size struct row back over a pipe and exits; the pipe turning
 * readable (the row, or end of file when the process died) is what the
 * loop waits for, so that a launched rank can also wake up to line up
 * with the others (struct sweep_tick).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "cmd_gen.h"
#include "fabric.h"
#include "fd_io.h"
#include "launch.h"
#include "sweep.h"

#define ROW_FD 3 /* the pipe's write end, in a point's process */

/*
 * The switch ports a node takes in the fabric. Where the topology names
 * its switches (fabric.h), every port of every switch @nodes nodes need,
 * shared out over them: whole switches are bought. Otherwise as a fat
 * tree is built (Al-Fares, Loukissas and Vahdat, "A Scalable, Commodity
 * Data Center Network Architecture", SIGCOMM 2008): each NIC a leaf port,
 * and each tier above the leaves (a path of @hops switches climbs (hops -
 * 1) / 2 of them) a port up from below and one down from above for every
 * NIC, divided by the oversubscription: 1 + (hops - 1) / o a NIC.
 */
static double switch_ports(const struct topology *t, unsigned nodes)
{
	double o = t->fabric.oversubscription >= 1 ? t->fabric.oversubscription : 1;
	unsigned hops = t->fabric.hops;
	struct fabric_geom g;

	fabric_geom_init(&g, t, nodes, 0);
	if (g.tiers && nodes) {
		/* the switches these nodes need, whole: their leaves; the
		 * spines of their pods where traffic leaves a leaf (more than
		 * one leaf, or on rails, more than one node); the cores where
		 * it leaves a pod. The geometry lays out every spine and core
		 * for routing whatever the nodes (a 1-node job paid for 1024
		 * cores of h100-roce-clos until 2026-12-06). */
		bool rail = t->fabric.attach == TOPO_ATTACH_RAIL;
		bool spines = rail ? nodes > 1 : g.leaves > 1;
		double ports = (double)g.leaves * t->fabric.leaf.ports;

		if (spines)
			ports += (double)g.spines * t->fabric.spine.ports;
		if (g.pods > 1)
			ports += (double)g.cores * t->fabric.core.ports;
		return ports / nodes;
	}
	if (!hops)
		return 0; /* back to back: no switch (topology-format.md) */
	return t->nnics * (1 + (hops - 1) / o);
}

/*
 * A plan's generated point: gen llm's trace of @pt's options (its compute
 * at the topology's GPU, topo_gpu_tflops, unless gpu_tflops is one of
 * them), on as many nodes as its ranks fill unless the point gives its nodes, and the
 * tokens an iteration trains (data-parallel ranks x micro-batches x
 * sequences x tokens: docs/gen-llm.md; context parallelism splits each
 * sequence over its ranks, adding none).
 */
static int generate(const struct point *pt, const struct topology *topo, struct plan_options *opts,
		    struct trace *trace, double *tokens, double *tflops, struct diag *d)
{
	struct gen_llm_args a;
	unsigned ranks;
	char given[SWEEP_VALUE_MAX];
	int err = sweep_gen_args(pt->gen, &a, d);

	if (err)
		return err;
	/* the point's own GPUs compute, unless the plan says how fast: an
	 * A100 cluster's iteration is not an H100's */
	if (!sweep_gen_get(pt->gen, "gpu_tflops", given, sizeof(given)))
		a.o.gpu_tflops = *tflops = topo_gpu_tflops(topo);
	ranks = a.o.tp * a.o.cp * a.o.pp * a.o.dp;
	if (!opts->nodes && topo->ngpus)
		opts->nodes = (ranks + topo->ngpus - 1) / topo->ngpus;
	*tokens = (double)a.o.dp * a.o.micro_batches * a.o.micro_batch_size * a.o.seq;
	return gen_llm_trace(&a.o, trace, d);
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* In the point's process: run it and fill @r. */
static void point_run(const struct sweep *sw, const struct point *pt, struct row *r)
{
	struct topo_override ov[SWEEP_MAX_AXES];
	struct plan_options opts = pt->opts;
	unsigned nov = 0;
	const struct backend_ops *b;
	struct topology topo;
	struct trace trace = { 0 };
	struct plan plan;
	struct records rec;
	struct diag d = { "" };
	double t0 = wall_now();
	unsigned used;
	int err;

	memset(r, 0, sizeof(*r));
	b = backend_lookup(pt->backend, r->error, sizeof(r->error));
	if (!b) {
		r->err = -EINVAL;
		return;
	}
	/* a plan's topology axes: the values its file gets instead */
	for (unsigned a = 0; a < sw->naxes; a++)
		if (sw->axes[a].topology_path) {
			snprintf(ov[nov].path, sizeof(ov[nov].path), "%s", sw->axes[a].name);
			snprintf(ov[nov].value, sizeof(ov[nov].value), "%s",
				 sw->axes[a].values[pt->axis_value[a]]);
			nov++;
		}
	opts.algo = pt->algo[0] ? pt->algo : NULL;
	opts.proto = pt->proto[0] ? pt->proto : NULL;
	err = topology_load_with(pt->topology, ov, nov, &topo, &d);
	if (!err && pt->gen[0])
		err = generate(pt, &topo, &opts, &trace, &r->tokens, &r->gen_tflops, &d);
	else if (!err)
		err = trace_load(pt->trace, &trace, &d);
	if (!err)
		err = backend_execute(b, &topo, &trace, &opts, NULL, &plan, &rec, &d);
	if (err) {
		r->err = err;
		snprintf(r->error, sizeof(r->error), "%s", d.msg[0] ? d.msg : strerror(-err));
		trace_destroy(&trace);
		return;
	}
	snprintf(r->topo_name, sizeof(r->topo_name), "%s", topo.name);
	r->nodes = plan.nodes;
	r->gpus = plan.nranks;
	r->path_used = records_path_used(&rec);
	used = trace_ranks_used(&trace);
	r->ranks_used = used < plan.nranks ? used : 0;
	r->iteration_us = rec.iteration_time_us;
	r->comm_us = rec.comm_time_us;
	r->busy_us = rec.comm_busy_us;
	r->exposed_us = rec.exposed_comm_us;
	r->nics = topo.nnics;
	r->switch_ports = switch_ports(&topo, plan.nodes);
	for (size_t i = 0; i < rec.ncoll; i++)
		for (int k = 0; k < STAGE_KIND_COUNT; k++)
			r->stage_us[k] += rec.coll[i].stage_us[k] / (rec.niter ? rec.niter : 1);
	r->concurrent = records_concurrent(&rec);
	r->wall_s = wall_now() - t0;
	records_destroy(&rec);
	plan_destroy(&plan);
	trace_destroy(&trace);
}

/* The point's process keeps stdio and its pipe, nothing else of its
 * parent's: a launched rank's bootstrap connection held open by a point
 * would hide that rank's death from the others until the point ends. */
static void point_fds(int fd)
{
	if (fd != ROW_FD && dup2(fd, ROW_FD) < 0)
		_exit(1);
	close_range(ROW_FD + 1, ~0U, 0); /* best effort: an old kernel keeps them */
}

struct running {
	pid_t pid;
	int fd;
	size_t idx;
};

static int point_start(const struct sweep *sw, size_t i, struct running *r)
{
	int fds[2];

	if (pipe(fds))
		return -errno;
	fflush(NULL);
	r->pid = fork();
	if (r->pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (r->pid == 0) {
		struct row row;

		point_fds(fds[1]);
		/* the sweep may be a launched rank; its points are not */
		emu_launch_forget();
		point_run(sw, &sw->pts[i], &row);
		_exit(fd_write_full(ROW_FD, &row, sizeof(row)) ? 1 : 0);
	}
	close(fds[1]);
	r->fd = fds[0];
	r->idx = i;
	return 0;
}

/* Read the row of a finished point (or make one saying why there is none). */
static void point_finish(struct sweep *sw, struct running *r)
{
	struct row *row = &sw->rows[r->idx];
	int err = fd_read_full(r->fd, row, sizeof(*row));
	int status = 0;

	close(r->fd);
	while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR)
		;
	if (err) {
		memset(row, 0, sizeof(*row));
		row->err = -EIO;
		if (WIFSIGNALED(status))
			snprintf(row->error, sizeof(row->error),
				 "the point's process died of signal %d", WTERMSIG(status));
		else
			snprintf(row->error, sizeof(row->error),
				 "the point's process gave no result");
	}
}

/* The sweep stops early (another rank failed): end what still runs. */
static void point_kill(struct running *r)
{
	kill(r->pid, SIGKILL);
	close(r->fd);
	while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
		;
}

static int64_t now_ms(void)
{
	return (int64_t)(wall_now() * 1000);
}

/* Wait until a point ends or @until_ms (-1: until a point ends); finish
 * those that ended. */
static void points_wait(struct sweep *sw, struct running *run, struct pollfd *pfd,
			size_t *active, int64_t until_ms)
{
	int timeout = -1, n;

	if (until_ms >= 0) {
		int64_t left = until_ms - now_ms();

		timeout = left < 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
	}
	for (size_t k = 0; k < *active; k++)
		pfd[k] = (struct pollfd){ .fd = run[k].fd, .events = POLLIN };
	n = poll(pfd, *active, timeout);
	/* backwards: a finished slot takes the last one's place */
	for (size_t k = *active; n > 0 && k-- > 0;) {
		if (!pfd[k].revents)
			continue;
		point_finish(sw, &run[k]);
		run[k] = run[--*active];
	}
}

int sweep_run(struct sweep *sw, unsigned jobs, size_t first, size_t stride,
	      const struct sweep_tick *tick)
{
	struct running *run = calloc(jobs, sizeof(*run));
	struct pollfd *pfd = calloc(jobs, sizeof(*pfd));
	int64_t due = now_ms() + SWEEP_TICK_MS;
	size_t next = first, active = 0;
	bool was_done = false;
	int err = 0;

	if (!run || !pfd) {
		err = -ENOMEM;
		goto out;
	}
	for (;;) {
		bool done;

		while (active < jobs && next < sw->n) {
			err = point_start(sw, next, &run[active]);
			if (err) {
				sw->rows[next].err = err;
				snprintf(sw->rows[next].error, sizeof(sw->rows[next].error),
					 "cannot start: %s", strerror(-err));
			} else {
				active++;
			}
			next += stride;
		}
		err = 0;
		done = next >= sw->n && !active;
		if (done && !tick)
			break;
		if (tick && (now_ms() >= due || (done && !was_done))) {
			err = tick->fn(tick->arg, done);
			if (err)
				break;
			was_done = done;
			due = now_ms() + SWEEP_TICK_MS;
			continue;
		}
		points_wait(sw, run, pfd, &active, tick ? due : -1);
		if (sw->progress) {
			size_t share = sw->n > first ? (sw->n - first + stride - 1) / stride : 0;
			size_t started = next > first ? (next - first + stride - 1) / stride : 0;

			progress_update(sw->progress, started - active, share);
		}
	}
	if (sw->progress)
		progress_done(sw->progress);
	if (err > 0)
		err = 0; /* every rank is done */
	while (active)
		point_kill(&run[--active]);
out:
	free(pfd);
	free(run);
	return err;
}
