/* SPDX-License-Identifier: MIT */
/*
 * gdrlab sweep: many runs from one file, in parallel processes.
 *
 * The sweep file is JSON Lines, one point a line (docs/sweep-format.md):
 *   {"name": "a100-8", "topology": "../configs/a100-pcie4-200g.yaml",
 *    "trace": "../traces/llama2-7b-ddp.jsonl", "nodes": 8,
 *    "path": "direct", "backend": "model", "gdr_level": "pxb"}
 * Relative file names are taken from the sweep file's folder. Each point
 * runs in a forked process (a model point forks again for SimGrid), at
 * most -j at a time, and sends one fixed-size row back over a pipe; rows
 * are printed in file order. A point that fails gives a row with its
 * error; the exit status is then 1.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "cmd_sweep.h"

#define SWEEP_MAX_POINTS 100000

struct point {
	char name[64], topology[1024], trace[1024], backend[32];
	struct plan_options opts;
	unsigned line;
};

struct row {
	int err;                    /* 0 or a negative errno */
	char error[512];    /* as struct diag's message */
	char topo_name[64];
	unsigned nodes, gpus;
	char path_used[16];
	double iteration_us, comm_us, exposed_us, wall_s;
};

struct sweep {
	size_t n;
	struct point *pts;  /* owned */
	struct row *rows;   /* owned */
};

static int sweep_error(const char *fmt, const char *a, unsigned line, const char *b)
{
	fprintf(stderr, "gdrlab sweep: ");
	fprintf(stderr, fmt, a, line, b);
	fprintf(stderr, "\n");
	return EXIT_USAGE;
}

/* @out = @dir/@name unless @name is absolute. */
static int join_path(char *out, size_t len, const char *dir, const char *name)
{
	int n = name[0] == '/' ? snprintf(out, len, "%s", name) :
				 snprintf(out, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int point_parse(json_t *o, const char *file, unsigned line,
		       const char *dir, struct point *pt)
{
	const char *key;
	json_t *v;

	memset(pt, 0, sizeof(*pt));
	plan_options_default(&pt->opts);
	strcpy(pt->backend, "analytic");
	pt->line = line;
	snprintf(pt->name, sizeof(pt->name), "line%u", line);
	if (!json_is_object(o))
		return sweep_error("%s:%u: expected one JSON object per line%s", file, line, "");
	json_object_foreach(o, key, v) {
		const char *s = json_string_value(v);
		int bad = 0;

		if (!strcmp(key, "nodes")) {
			json_int_t n = json_integer_value(v);

			if (!json_is_integer(v) || n < 1 || n > TOPO_MAX_NODES)
				return sweep_error("%s:%u: nodes: expected a whole number from 1 to 65536%s",
						   file, line, "");
			pt->opts.nodes = (unsigned)n;
			continue;
		}
		if (!s)
			return sweep_error("%s:%u: %s: expected a string", file, line, key);
		if (!strcmp(key, "name"))
			snprintf(pt->name, sizeof(pt->name), "%s", s);
		else if (!strcmp(key, "topology"))
			bad = join_path(pt->topology, sizeof(pt->topology), dir, s);
		else if (!strcmp(key, "trace"))
			bad = join_path(pt->trace, sizeof(pt->trace), dir, s);
		else if (!strcmp(key, "backend"))
			bad = snprintf(pt->backend, sizeof(pt->backend), "%s", s) >=
			      (int)sizeof(pt->backend);
		else if (!strcmp(key, "path"))
			bad = plan_path_parse(s, &pt->opts.path);
		else if (!strcmp(key, "gdr_level"))
			bad = topo_path_parse(s, &pt->opts.gdr_level);
		else
			return sweep_error("%s:%u: unknown key '%s' (name, topology, trace, nodes, path, backend, gdr_level)",
					   file, line, key);
		if (bad)
			return sweep_error("%s:%u: %s: bad value", file, line, key);
	}
	if (!pt->topology[0] || !pt->trace[0])
		return sweep_error("%s:%u: %s are required", file, line, "topology and trace");
	return 0;
}

static int sweep_load(const char *file, struct sweep *sw)
{
	char *dir, *nl, *slash, *buf = NULL;
	size_t cap = 0, np = 0;
	unsigned line = 0;
	FILE *f = fopen(file, "r");
	int rc = 0;

	memset(sw, 0, sizeof(*sw));
	if (!f) {
		fprintf(stderr, "gdrlab sweep: %s: %s\n", file, strerror(errno));
		return EXIT_USAGE;
	}
	dir = strdup(file);
	if (!dir) {
		fclose(f);
		return EXIT_RUNTIME;
	}
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	while (!rc && getline(&buf, &cap, f) > 0) {
		json_error_t je;
		json_t *o;
		struct point *p;

		line++;
		nl = buf + strspn(buf, " \t\r\n");
		if (!*nl || *nl == '#')
			continue;
		o = json_loads(buf, 0, &je);
		if (!o) {
			rc = sweep_error("%s:%u: %s", file, line, je.text);
			break;
		}
		if (sw->n == np) {
			np = np ? 2 * np : 16;
			p = np <= SWEEP_MAX_POINTS ? realloc(sw->pts, np * sizeof(*p)) : NULL;
			if (!p) {
				json_decref(o);
				rc = sweep_error("%s:%u: too many points%s", file, line, "");
				break;
			}
			sw->pts = p;
		}
		rc = point_parse(o, file, line, dir, &sw->pts[sw->n]);
		json_decref(o);
		if (!rc)
			sw->n++;
	}
	free(buf);
	free(dir);
	fclose(f);
	if (!rc && !sw->n)
		rc = sweep_error("%s:%u: no points%s", file, line, "");
	if (!rc) {
		sw->rows = calloc(sw->n, sizeof(*sw->rows));
		if (!sw->rows)
			rc = EXIT_RUNTIME;
	}
	return rc;
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const char *path_used(const struct records *rec)
{
	enum plan_path_used u = PLAN_USED_NONE;

	for (size_t i = 0; i < rec->ncoll; i++) {
		enum plan_path_used c = rec->coll[i].path;

		if (c == PLAN_USED_NONE || c == u)
			continue;
		u = u == PLAN_USED_NONE ? c : PLAN_USED_MIXED;
	}
	return plan_path_used_name(u);
}

/* In the point's process: run it and fill @r. */
static void point_run(const struct point *pt, struct row *r)
{
	const struct backend_ops *b;
	struct topology topo;
	struct trace trace = { 0 };
	struct plan plan;
	struct records rec;
	struct diag d = { "" };
	double t0 = wall_now();
	int err;

	memset(r, 0, sizeof(*r));
	b = cli_lookup_backend(pt->backend, r->error, sizeof(r->error));
	if (!b) {
		r->err = -EINVAL;
		return;
	}
	err = topology_load(pt->topology, &topo, &d);
	if (!err)
		err = trace_load(pt->trace, &trace, &d);
	if (!err)
		err = backend_execute(b, &topo, &trace, &pt->opts, NULL, &plan, &rec, &d);
	if (err) {
		r->err = err;
		snprintf(r->error, sizeof(r->error), "%s", d.msg[0] ? d.msg : strerror(-err));
		trace_destroy(&trace);
		return;
	}
	snprintf(r->topo_name, sizeof(r->topo_name), "%s", topo.name);
	r->nodes = plan.nodes;
	r->gpus = plan.nranks;
	snprintf(r->path_used, sizeof(r->path_used), "%s", path_used(&rec));
	r->iteration_us = rec.iteration_time_us;
	r->comm_us = rec.comm_time_us;
	r->exposed_us = rec.exposed_comm_us;
	r->wall_s = wall_now() - t0;
	records_destroy(&rec);
	plan_destroy(&plan);
	trace_destroy(&trace);
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
		const char *b = (const char *)&row;
		size_t left = sizeof(row);

		close(fds[0]);
		point_run(&sw->pts[i], &row);
		while (left) {
			ssize_t w = write(fds[1], b, left);

			if (w <= 0)
				_exit(1);
			b += w;
			left -= (size_t)w;
		}
		_exit(0);
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
	size_t got = 0;
	int status = 0;

	while (got < sizeof(*row)) {
		ssize_t n = read(r->fd, (char *)row + got, sizeof(*row) - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(r->fd);
	while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got != sizeof(*row)) {
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

static int sweep_run(struct sweep *sw, unsigned jobs)
{
	struct running *run = calloc(jobs, sizeof(*run));
	size_t next = 0, active = 0;

	if (!run)
		return -ENOMEM;
	while (next < sw->n || active) {
		pid_t pid;
		bool ours = false;

		while (active < jobs && next < sw->n) {
			int err = point_start(sw, next, &run[active]);

			if (err) {
				sw->rows[next].err = err;
				snprintf(sw->rows[next].error, sizeof(sw->rows[next].error),
					 "cannot start: %s", strerror(-err));
				next++;
				continue;
			}
			next++;
			active++;
		}
		if (!active)
			break;
		/* Wait for any point to end, without reaping it: its row is
		 * read first, then it is reaped in point_finish. */
		{
			siginfo_t si;

			memset(&si, 0, sizeof(si));
			if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT) < 0 && errno != EINTR)
				break;
			pid = si.si_pid;
		}
		for (size_t k = 0; k < active; k++) {
			if (run[k].pid != pid)
				continue;
			point_finish(sw, &run[k]);
			run[k] = run[--active];
			ours = true;
			break;
		}
		if (!ours && pid > 0)
			waitpid(pid, NULL, 0); /* not a point: reap it, go on */
	}
	free(run);
	return 0;
}

static void print_table(const struct sweep *sw)
{
	printf("%-20s %-22s %6s %6s %-8s %-8s %-6s %14s %14s %12s %8s\n", "point",
	       "topology", "nodes", "gpus", "backend", "path", "gdr", "iteration_us",
	       "comm_us", "exposed_us", "wall_s");
	for (size_t i = 0; i < sw->n; i++) {
		const struct point *p = &sw->pts[i];
		const struct row *r = &sw->rows[i];

		if (r->err) {
			printf("%-20s error: %s\n", p->name, r->error);
			continue;
		}
		printf("%-20s %-22s %6u %6u %-8s %-8s %-6s %14.3f %14.3f %12.3f %8.3f\n",
		       p->name, r->topo_name, r->nodes, r->gpus, p->backend, r->path_used,
		       topo_path_name(p->opts.gdr_level), r->iteration_us, r->comm_us,
		       r->exposed_us, r->wall_s);
	}
}

static void print_csv(const struct sweep *sw)
{
	printf("point,line,topology,nodes,gpus,backend,path,path_used,gdr_level,"
	       "iteration_us,comm_us,exposed_us,wall_s,error\n");
	for (size_t i = 0; i < sw->n; i++) {
		const struct point *p = &sw->pts[i];
		const struct row *r = &sw->rows[i];

		printf("\"%s\",%u,\"%s\",%u,%u,%s,%s,%s,%s,%.3f,%.3f,%.3f,%.3f,\"%s\"\n",
		       p->name, p->line, r->topo_name, r->nodes, r->gpus, p->backend,
		       plan_path_name(p->opts.path), r->path_used,
		       topo_path_name(p->opts.gdr_level), r->iteration_us, r->comm_us,
		       r->exposed_us, r->wall_s, r->error);
	}
}

static int print_json(const struct sweep *sw)
{
	json_t *arr = json_array();
	int err = 0;

	for (size_t i = 0; arr && i < sw->n; i++) {
		const struct point *p = &sw->pts[i];
		const struct row *r = &sw->rows[i];
		json_t *o = json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:s}",
				      "point", p->name, "line", (int)p->line,
				      "topology_file", p->topology, "trace_file", p->trace,
				      "backend", p->backend, "path", plan_path_name(p->opts.path),
				      "gdr_level", topo_path_name(p->opts.gdr_level));

		if (!o)
			continue;
		if (r->err)
			json_object_set_new(o, "error", json_string(r->error));
		else
			json_object_update_new(o, json_pack("{s:s, s:i, s:i, s:s, s:f, s:f, s:f, s:f}",
				"topology", r->topo_name, "nodes", (int)r->nodes,
				"gpus", (int)r->gpus, "path_used", r->path_used,
				"iteration_time_us", r->iteration_us, "comm_time_us", r->comm_us,
				"exposed_comm_us", r->exposed_us, "wall_s", r->wall_s));
		json_array_append_new(arr, o);
	}
	if (!arr || json_dumpf(arr, stdout, JSON_INDENT(2)))
		err = -EIO;
	printf("\n");
	json_decref(arr);
	return err;
}

static const char sweep_usage[] =
	"usage: gdrlab sweep FILE [-j N] [--json | --csv]\n"
	"\n"
	"Run every point of a sweep file (JSON Lines, one point a line: name,\n"
	"topology, trace, nodes, path, backend, gdr_level; docs/sweep-format.md)\n"
	"in parallel processes and print one row per point, in file order.\n"
	"\n"
	"  -j, --jobs N   points run at once (default 2)\n"
	"      --json     rows as a JSON array on stdout\n"
	"      --csv      rows as CSV on stdout\n"
	"  -q, --quiet    accepted for symmetry with run (a sweep shows no progress)\n"
	"  -h, --help     this help\n"
	"\n"
	"Exit status: 0 ok, 1 a point failed (its row says why), 2 bad input or usage.\n";

int cmd_sweep(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "json", no_argument, NULL, 'J' },
		{ "csv", no_argument, NULL, 'C' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum { TABLE, JSON, CSV } fmt = TABLE;
	unsigned jobs = 2;
	struct sweep sw;
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":j:qh", longopts, NULL)) != -1) {
		char *end;
		unsigned long v;

		switch (c) {
		case 'j':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || v < 1 || v > 256 || optarg[0] == '-') {
				fprintf(stderr, "gdrlab sweep: --jobs: expected 1 to 256, got '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			jobs = (unsigned)v;
			break;
		case 'J':
			fmt = JSON;
			break;
		case 'C':
			fmt = CSV;
			break;
		case 'q':
			break; /* a sweep shows no progress; accepted as run does */
		case 'h':
			fputs(sweep_usage, stdout);
			return 0;
		case ':':
			return cli_usage_error("sweep", "%s needs a value",
					       argv[optind - 1]);
		default:
			return cli_usage_error("sweep", "unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind + 1 != argc) {
		return cli_usage_error("sweep", "expected one sweep file");
	}
	rc = sweep_load(argv[optind], &sw);
	if (!rc && sweep_run(&sw, jobs))
		rc = EXIT_RUNTIME;
	if (!rc) {
		if (fmt == JSON)
			rc = print_json(&sw) ? EXIT_RUNTIME : 0;
		else if (fmt == CSV)
			print_csv(&sw);
		else
			print_table(&sw);
		for (size_t i = 0; !rc && i < sw.n; i++)
			if (sw.rows[i].err)
				rc = EXIT_RUNTIME;
	}
	free(sw.pts);
	free(sw.rows);
	return rc;
}
