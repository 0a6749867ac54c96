/* SPDX-License-Identifier: MIT */
/*
 * gdrlab calibrate --backend emu: measure this host's data path with a
 * wall-clock backend and write a topology file that describes it, so that
 * the analytic and model backends run on the same description; then print
 * how far the analytic prediction lands from the measurement, per path.
 *
 * With a backend that moves GPU memory (--backend real) the copy part is
 * the GPU's instead (real/gpu_measure.h, as gdrlab-gpu-check reports it):
 * pinned H2D and D2H bandwidth and per-copy overhead, median of three, and
 * the fp32 sum kernel's throughput. Where that backend has no NIC to
 * measure, the link is taken from --topology and the file still written.
 *
 *   host copy bandwidth  memcpy of 64 MiB, best of 5 (the "GPU" <-> host
 *                        copy of the staged path, since emu's GPU memory
 *                        is host memory)
 *   link latency         send/recv of 8 bytes through the backend, fastest
 *                        of 20: the time the backend reports for the
 *                        smallest transfer, split over the two NICs
 *   link bandwidth       send/recv of --size bytes on the direct path,
 *                        median of 5, less the small-message time
 *
 * The numbers are fitted to the backend's own definition of a transfer's
 * time, so that the analytic backend, given the same file, reproduces a
 * lone send/recv; what remains in the comparison is what the model does
 * not capture (protocol, credits, copies overlapping, CPU contention).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cli.h"
#include "gpu_measure.h"
#include "output_file.h"
#include "units.h"

struct calib {
	const char *backend, *topology, *trace, *output, *devices;
	uint64_t size;
	/* measured */
	double copy_bw, copy_overhead, lat, link_bw;
	double h2d, d2h, reduce_bw; /* GPU copies and sum, bytes/s */
	char gpu[96];               /* GPU measured, "" for host memcpy */
	const char *link_from;      /* NULL measured, else the file it came from */
	struct topo_staging staging; /* from --topology */
};

static const char calib_usage[] =
	"usage: gdrlab calibrate [--backend emu|real] [options]\n"
	"\n"
	"Measure this host's RDMA link (bandwidth, latency) and host copy bandwidth\n"
	"with a wall-clock backend, write a topology file describing this host, and\n"
	"print the analytic backend's prediction error per path for a trace.\n"
	"\n"
	"  -b, --backend NAME      a wall-clock backend (default emu); real measures\n"
	"                          the copies on GPU 0 (pinned H2D/D2H, per-copy cost)\n"
	"  -t, --topology FILE     where the staging chunk and buffers come from\n"
	"                          (default configs/emu-vm.yaml); real with no NIC\n"
	"                          here: the NIC's rate and latency too\n"
	"  -T, --trace FILE        trace for the prediction check\n"
	"                          (default traces/emu-small.jsonl)\n"
	"  -o, --output FILE       topology file to write (default calibrated.yaml)\n"
	"      --size SIZE         bytes for the bandwidth transfer (default 8MiB)\n"
	"      --devices LIST      RDMA devices of the two nodes (e.g. rxe0,rxe1)\n"
	"  -h, --help              this help\n"
	"\n"
	"Exit status: 0 ok, 1 runtime failure, 2 bad input or usage.\n";

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Host memcpy: bandwidth of a large copy and the cost of a small one. */
static int measure_copy(struct calib *c)
{
	size_t len = 64u << 20;
	char *a = malloc(len), *b = malloc(len);
	double best = INFINITY, small = INFINITY;

	if (!a || !b) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	memset(a, 1, len);
	memset(b, 2, len);
	for (int i = 0; i < 5; i++) {
		double t0 = now_s();

		memcpy(b, a, len);
		best = fmin(best, now_s() - t0);
	}
	for (int i = 0; i < 1000; i++) {
		double t0 = now_s();

		memcpy(b + (i % 64) * 4096, a, 4096);
		small = fmin(small, now_s() - t0);
	}
	c->copy_bw = len / best;
	c->copy_overhead = fmax(small - 4096 / c->copy_bw, 1e-8);
	free(a);
	free(b);
	return 0;
}

/* The GPU's copies and sum kernel, on GPU 0: -ENODEV "no NVIDIA GPU: ..."
 * where there is none. */
static int measure_gpu_copy(struct calib *c, struct diag *d)
{
	struct gpu_copy_costs g;
	struct mem_cuda *m;
	int err;

	err = mem_cuda_open(&m, 0, 2 * (64u << 20), d);
	if (err)
		return err;
	err = gpu_measure_costs(m, 64u << 20, &g);
	if (err)
		diag_set(d, err, "%s", mem_cuda_error(m));
	snprintf(c->gpu, sizeof(c->gpu), "%s", m->name);
	mem_cuda_close(m);
	if (err)
		return err;
	c->h2d = g.h2d;
	c->d2h = g.d2h;
	c->reduce_bw = g.reduce_fp32;
	c->copy_bw = fmin(g.h2d, g.d2h);
	c->copy_overhead = fmax(g.overhead_us * 1e-6, 1e-8);
	printf("measured   %s: pinned H2D %.2f GB/s, D2H %.2f GB/s (64 MiB, events, median of 3),\n"
	       "           %.2f us per copy (64 B, median of 3 x 200); fp32 sum ",
	       c->gpu, g.h2d / 1e9, g.d2h / 1e9, g.overhead_us);
	if (g.reduce_fp32 > 0)
		printf("%.1f GB/s\n", g.reduce_fp32 / 1e9);
	else
		printf("not measured (built without nvcc)\n");
	return 0;
}

/* A GPU backend with no NIC here: the link comes from the reference file. */
static void link_from_reference(struct calib *c, const struct topology *ref,
				const char *why)
{
	c->link_from = c->topology;
	if (ref->nnics) {
		c->link_bw = ref->nics[0].line_rate * ref->nics[0].efficiency;
		c->lat = ref->nics[0].latency;
	}
	printf("link       not measured: %s; rate %.1f MB/s and latency %.1f us from %s\n",
	       why, c->link_bw / 1e6, c->lat * 1e6, c->topology);
}

/* The topology file this host is described by. With nothing measured yet
 * (link_bw 0) it carries placeholders: emu ignores them. */
static char *topology_yaml(const struct calib *c)
{
	double bw = c->link_bw > 0 ? c->link_bw : 1e8;
	double lat = c->lat > 0 ? c->lat : 1e-5;
	double copy = c->copy_bw > 0 ? c->copy_bw : 1e9;
	char host[64] = "this-host";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	gethostname(host, sizeof(host) - 1);
	if (c->gpu[0])
		fprintf(f,
			"# calibrated: written by `gdrlab calibrate --backend %s` on %s.\n"
			"# Two nodes of one GPU and one NIC under one switch. Measured on\n"
			"# %s: pinned H2D %.3f MB/s, D2H %.3f MB/s (copy_bandwidth: the\n"
			"# lower; events, median of 3), per-copy cost (chunk_overhead), fp32\n"
			"# sum kernel %.3f MB/s (0: not measured). NIC rate and latency %s%s.\n"
			"# PCIe links are given the copy bandwidth. Staging from %s.\n",
			c->backend, host, c->gpu, c->h2d / 1e6, c->d2h / 1e6,
			c->reduce_bw / 1e6, c->link_from ? "from " : "measured",
			c->link_from ? c->link_from : "", c->topology);
	else
		fprintf(f,
		"# calibrated: written by `gdrlab calibrate --backend %s` on %s.\n"
		"# Two nodes of one \"GPU\" (host memory) and one NIC under one switch, as\n"
		"# configs/emu-vm.yaml. Measured: the NIC rate and latency (fitted to\n"
		"# the backend's send/recv times), host memcpy bandwidth and per-copy\n"
		"# cost; PCIe links are given the copy bandwidth, since the NIC and the\n"
		"# copies read the same host memory. Staging from %s.\n",
		c->backend, host, c->topology);
	fprintf(f,
		"name: calibrated\n"
		"nodes: 2\n"
		"sockets:\n"
		"  - { name: cpu0, memory_bandwidth: %.3f MB/s }\n"
		"switches:\n"
		"  - { name: sw0, parent: cpu0, link: { bandwidth: %.3f MB/s, latency: 0.01 us } }\n"
		"gpus:\n"
		"  - { name: gpu0, parent: sw0, link: { bandwidth: %.3f MB/s, latency: 0.01 us } }\n"
		"nics:\n"
		"  - name: nic0\n"
		"    parent: sw0\n"
		"    link: { bandwidth: %.3f MB/s, latency: 0.01 us }\n"
		"    rate: %.3f MB/s\n"
		"    efficiency: 1\n"
		"    latency: %.4f us\n"
		"gpu_fabric: { kind: pcie }\n"
		"fabric: { switch_latency: 0.01 us, hops: 1, oversubscription: 1 }\n"
		"staging: { chunk: %llu B, buffers: %u, copy_bandwidth: %.3f MB/s, chunk_overhead: %.4f us }\n",
		2 * copy / 1e6, copy / 1e6, copy / 1e6,
		copy / 1e6, bw / 1e6, lat * 1e6,
		(unsigned long long)c->staging.chunk_bytes, c->staging.buffers,
		copy / 1e6, fmax(c->copy_overhead, 1e-8) * 1e6);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Run @jsonl on the topology of @c through @b on @path. */
static int run_buffer(const struct backend_ops *b, const struct calib *c,
		      const struct topology *topo, const char *jsonl,
		      enum plan_path path, struct plan *plan,
		      struct records *rec, struct trace *trace, struct diag *d)
{
	struct plan_options o;
	int err;

	plan_options_default(&o);
	o.path = path;
	err = trace_load_buffer(jsonl, strlen(jsonl), "calibration.jsonl", trace, d);
	if (err)
		return err;
	err = backend_execute(b, topo, trace, &o, NULL, plan, rec, d);
	if (err)
		trace_destroy(trace);
	return err;
}

/* Times (us) of @n send/recv of @bytes from rank 0 to rank 1, sorted. */
static int time_sendrecv(const struct backend_ops *b, const struct calib *c,
			 const struct topology *topo, uint64_t bytes, unsigned n,
			 double *out, struct diag *d)
{
	char *jsonl = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&jsonl, &len);
	struct plan plan;
	struct records rec;
	struct trace trace;
	int err;

	if (!f)
		return diag_set(d, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "{\"iteration\": %u, \"op\": \"sendrecv\", \"bytes\": %llu, "
			"\"dtype\": \"fp32\", \"src\": 0, \"dst\": 1, \"ready_us\": 0}\n",
			i, (unsigned long long)bytes);
	fclose(f);
	err = run_buffer(b, c, topo, jsonl, PLAN_PATH_DIRECT, &plan, &rec, &trace, d);
	free(jsonl);
	if (err)
		return err;
	if (rec.data_checked && rec.data_errors)
		err = diag_set(d, -EIO, "calibration transfer: %llu bytes corrupted",
			       (unsigned long long)rec.data_errors);
	for (unsigned i = 0; i < n; i++)
		out[i] = rec.coll[i].time_us;
	qsort(out, n, sizeof(*out), cmp_double);
	records_destroy(&rec);
	plan_destroy(&plan);
	trace_destroy(&trace);
	return err;
}

static int load_yaml(const char *yaml, struct topology *topo, struct diag *d)
{
	return topology_load_buffer(yaml, strlen(yaml), "calibrated.yaml", topo, d);
}

static int measure_link(const struct backend_ops *b, struct calib *c,
			struct diag *d)
{
	double small[20], large[5], t_small, t_large;
	struct topology topo;
	char *yaml = topology_yaml(c);
	int err;

	if (!yaml)
		return diag_set(d, -ENOMEM, "out of memory");
	err = load_yaml(yaml, &topo, d);
	free(yaml);
	if (!err)
		err = time_sendrecv(b, c, &topo, 8, 20, small, d);
	if (!err)
		err = time_sendrecv(b, c, &topo, c->size, 5, large, d);
	if (err)
		return err;
	t_small = small[0] * 1e-6;
	t_large = large[2] * 1e-6;
	/* analytic send/recv: 2 NIC latencies + links + bytes / rate */
	c->lat = fmax(t_small / 2, 1e-8);
	c->link_bw = c->size / fmax(t_large - t_small, 1e-9);
	if (!c->gpu[0])
		printf("measured   host memcpy %.1f MB/s (%.2f us per small copy)\n",
		       c->copy_bw / 1e6, c->copy_overhead * 1e6);
	printf("%s link %.1f MB/s (%llu B send/recv, median of 5: %.0f us), "
	       "latency %.1f us per NIC (8 B send/recv, best of 20: %.1f us)\n",
	       c->gpu[0] ? "measured  " : "          ",
	       c->link_bw / 1e6, (unsigned long long)c->size, large[2],
	       c->lat * 1e6, small[0]);
	return 0;
}

/* Analytic vs measured, per path, for the trace. */
static int compare_paths(const struct backend_ops *b, const struct calib *c,
			 const struct topology *topo, struct diag *d)
{
	const struct backend_ops *model = backend_find("analytic");
	static const enum plan_path paths[] = { PLAN_PATH_STAGED, PLAN_PATH_DIRECT };
	struct trace trace;
	int err;

	err = trace_load(c->trace, &trace, d);
	if (err)
		return err;
	printf("\nprediction for %s (communication time per iteration)\n", c->trace);
	printf("%-8s %14s %14s %10s\n", "path", "measured_us", "analytic_us", "error");
	for (size_t i = 0; !err && i < 2; i++) {
		struct plan_options o;
		struct plan pm, pa;
		struct records rm, ra;

		plan_options_default(&o);
		o.path = paths[i];
		err = backend_execute(b, topo, &trace, &o, NULL, &pm, &rm, d);
		if (err)
			break;
		err = backend_execute(model, topo, &trace, &o, NULL, &pa, &ra, d);
		if (!err)
			printf("%-8s %14.1f %14.1f %+9.1f%%%s\n", plan_path_name(paths[i]),
			       rm.comm_time_us, ra.comm_time_us,
			       100 * (ra.comm_time_us - rm.comm_time_us) / rm.comm_time_us,
			       rm.data_checked && rm.data_errors ? "  (data errors!)" : "");
		if (!err) {
			records_destroy(&ra);
			plan_destroy(&pa);
		}
		records_destroy(&rm);
		plan_destroy(&pm);
	}
	trace_destroy(&trace);
	return err;
}

static int parse(int argc, char **argv, struct calib *c)
{
	static const struct option longopts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "topology", required_argument, NULL, 't' },
		{ "trace", required_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, 's' },
		{ "devices", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *why;
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":b:t:T:o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			c->backend = optarg;
			break;
		case 't':
			c->topology = optarg;
			break;
		case 'T':
			c->trace = optarg;
			break;
		case 'o':
			c->output = optarg;
			break;
		case 's':
			if (units_parse_size(optarg, &c->size, &why) || c->size < 4096) {
				fprintf(stderr, "gdrlab calibrate: --size: expected a size of at least 4KiB, got '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'D':
			c->devices = optarg;
			break;
		case 'h':
			fputs(calib_usage, stdout);
			return 0;
		case ':':
			return cli_usage_error("calibrate", "%s needs a value",
					       argv[optind - 1]);
		default:
			return cli_usage_error("calibrate", "unknown option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gdrlab calibrate: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	return -1;
}

int cmd_calibrate(int argc, char **argv)
{
	struct calib c = { .backend = "emu", .topology = "configs/emu-vm.yaml",
			   .trace = "traces/emu-small.jsonl",
			   .output = "calibrated.yaml", .size = 8u << 20 };
	const struct backend_ops *b;
	struct output_file out;
	struct topology ref, topo;
	struct diag d = { "" };
	char *yaml = NULL, why[256] = "";
	bool gpu, no_nic = false;
	int rc, err;

	rc = parse(argc, argv, &c);
	if (rc >= 0)
		return rc;
	b = backend_find(c.backend);
	if (!b || !(b->caps & BACKEND_CAP_WALL_CLOCK)) {
		fprintf(stderr, "gdrlab calibrate: '%s' is not a wall-clock backend in this build "
			"(see 'gdrlab backends')\n", c.backend);
		return EXIT_USAGE;
	}
	if (c.devices && setenv("GDRLAB_EMU_DEVICES", c.devices, 1))
		return EXIT_RUNTIME;
	err = topology_load(c.topology, &ref, &d);
	if (err) {
		fprintf(stderr, "gdrlab calibrate: %s\n", d.msg);
		return EXIT_USAGE;
	}
	c.staging = ref.staging;
	gpu = b->caps & BACKEND_CAP_GPU_MEMORY;
	err = gpu ? measure_gpu_copy(&c, &d) : measure_copy(&c);
	if (!err && gpu && backend_probe(b, why, sizeof(why))) {
		no_nic = true;
		link_from_reference(&c, &ref, why);
	} else if (!err) {
		err = measure_link(b, &c, &d);
	}
	if (!err) {
		yaml = topology_yaml(&c);
		err = yaml ? load_yaml(yaml, &topo, &d) : diag_set(&d, -ENOMEM, "out of memory");
	}
	if (!err)
		err = output_file_open(&out, c.output, &d);
	if (!err) {
		fputs(yaml, out.fp);
		err = output_file_commit(&out, &d);
	}
	if (!err) {
		printf("wrote      %s\n", c.output);
		if (!no_nic)
			err = compare_paths(b, &c, &topo, &d);
	}
	free(yaml);
	if (err) {
		fprintf(stderr, "gdrlab calibrate: %s\n", d.msg[0] ? d.msg : strerror(-err));
		return err == -EINVAL || err == -ENOENT ? EXIT_USAGE : EXIT_RUNTIME;
	}
	return 0;
}
