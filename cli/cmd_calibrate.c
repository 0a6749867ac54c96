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
 * CUDA runs only in a child process (engine/child_call.h): the ranks the
 * backend forks afterwards could not use it if this process had.
 *
 *   NIC loopback         RDMA WRITE host -> host, and with a GPU, GPU ->
 *                        host and host -> GPU, over two queue pairs of
 *                        node 0's device (real/nic_measure.h)
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
#include "calib_topology.h"
#include "child_call.h"
#include "cli.h"
#include "gpu_measure.h"
#include "nic_measure.h"
#include "output_file.h"
#include "sort_doubles.h"
#include "units.h"

struct calib {
	const char *topology, *trace, *output, *devices, *backend, *layout;
	bool trace_given; /* --trace: loaded before measuring */
	uint64_t size;
	struct calib_result r; /* what is measured, and the file it gives */
};

static const char calib_usage[] =
	"usage: gdrlab calibrate [--backend emu|real] [options]\n"
	"\n"
	"Measure this host's RDMA link (bandwidth, latency), the NIC's RDMA WRITE\n"
	"bandwidth over a loopback queue pair (host memory; with real, from and to\n"
	"GPU memory too) and the copy bandwidth with a wall-clock backend, write a\n"
	"topology file describing this host, and print the analytic backend's\n"
	"prediction error per path for a trace.\n"
	"\n"
	"  -b, --backend NAME      a wall-clock backend (default emu); real measures\n"
	"                          the copies on GPU 0 (pinned H2D/D2H, per-copy cost)\n"
	"  -t, --topology FILE     where the staging chunk and buffers come from\n"
	"                          (default the shipped emu-vm, configs/emu-vm.yaml);\n"
	"                          real with no NIC here: the NIC's rate and latency\n"
	"                          too\n"
	"  -T, --trace FILE        trace for the prediction check (or a shipped one\n"
	"                          by name)\n"
	"                          (default the shipped emu-small,\n"
	"                          traces/emu-small.jsonl)\n"
	"  -o, --output FILE       topology file to write (default calibrated.yaml)\n"
	"      --layout FILE       write the measured figures into this machine's own\n"
	"                          layout (gdrlab probe --emit-topology, or a preset,\n"
	"                          a file or a shipped one by name)\n"
	"                          instead of two nodes of one GPU and one NIC\n"
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

/* Host memcpy: bandwidth of a large copy and the cost of a small one. */
static int measure_copy(struct calib_result *r)
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
	r->copy_bw = len / best;
	r->copy_overhead = fmax(small - 4096 / r->copy_bw, 1e-8);
	free(a);
	free(b);
	return 0;
}

static void print_loopback(const struct nic_loopback *lb)
{
	printf("measured   NIC loopback on %s (RDMA WRITE, %u KiB x %u in flight, median of 3):\n"
	       "           host -> host %.1f MB/s",
	       lb->device, NIC_MEASURE_MSG >> 10, NIC_MEASURE_DEPTH, lb->host / 1e6);
	if (lb->gpu_read > 0)
		printf(", GPU -> host %.1f MB/s (%.0f%%), host -> GPU %.1f MB/s (%.0f%%); %s",
		       lb->gpu_read / 1e6, 100 * lb->gpu_read / lb->host,
		       lb->gpu_write / 1e6, 100 * lb->gpu_write / lb->host,
		       lb->registration);
	printf("\n");
	if (lb->gpu_error[0])
		printf("           GPU memory not measured: the NIC cannot register it, so no GPUDirect RDMA here: %s\n",
		       lb->gpu_error);
}

/* Host memory as the "GPU": memcpy, then the NIC from and to host memory. */
static int measure_host(struct calib_result *r, struct diag *d)
{
	int err = measure_copy(r);

	if (err)
		return diag_set(d, err, "out of memory");
	printf("measured   host memcpy %.1f MB/s (%.2f us per small copy)\n",
	       r->copy_bw / 1e6, r->copy_overhead * 1e6);
	err = nic_measure_device(r->lb.device, sizeof(r->lb.device), d);
	if (!err)
		err = nic_measure_loopback(&r->lb, NULL, NULL, false, d);
	if (!err)
		print_loopback(&r->lb);
	return err;
}

/* What the GPU child measures and answers. */
struct gpu_answer {
	char name[96];
	struct gpu_copy_costs copy;
	struct nic_loopback lb;
};

/* In the child: the GPU's copies and sum kernel on GPU 0, then (when
 * lb->device is set) the NIC reading and writing its memory. */
static int gpu_child(void *arg, void *answer, size_t len, struct diag *d)
{
	const struct nic_loopback *want = arg;
	struct gpu_answer *a = answer;
	struct mem_cuda *m;
	int err;

	(void)len;
	/* one arena for all: copies 2 x 64 MiB, loopback 2 x 24 MiB */
	err = mem_cuda_open(&m, 0, 3 * (64u << 20), d);
	if (err)
		return err;
	snprintf(a->name, sizeof(a->name), "%s", m->name);
	err = gpu_measure_costs(m, 64u << 20, &a->copy);
	if (err)
		diag_set(d, err, "%s", mem_cuda_error(m));
	a->lb = *want;
	if (!err && want->device[0])
		err = nic_measure_loopback(&a->lb, &mem_cuda_ops, m, true, d);
	mem_cuda_close(m);
	return err;
}

/* The GPU's copies and sum kernel, and the NIC on its memory unless
 * @no_nic: -ENODEV "no NVIDIA GPU: ..." where there is none. */
static int measure_gpu(struct calib_result *r, bool no_nic, struct diag *d)
{
	struct gpu_answer a;
	struct nic_loopback want = { .device = "" };
	int err = 0;

	if (!no_nic)
		err = nic_measure_device(want.device, sizeof(want.device), d);
	if (!err)
		err = child_call("calibrate: measuring GPU 0", gpu_child, &want,
				 &a, sizeof(a), d);
	if (err)
		return err;
	snprintf(r->gpu, sizeof(r->gpu), "%s", a.name);
	r->h2d = a.copy.h2d;
	r->d2h = a.copy.d2h;
	r->reduce_bw = a.copy.reduce_fp32;
	r->copy_bw = fmin(a.copy.h2d, a.copy.d2h);
	r->copy_overhead = fmax(a.copy.overhead_us * 1e-6, 1e-8);
	r->lb = a.lb;
	printf("measured   %s: pinned H2D %.2f GB/s, D2H %.2f GB/s (64 MiB, events, median of 3),\n"
	       "           %.2f us per copy (64 B, median of 3 x 200); fp32 sum ",
	       r->gpu, a.copy.h2d / 1e9, a.copy.d2h / 1e9, a.copy.overhead_us);
	if (a.copy.reduce_fp32 > 0)
		printf("%.1f GB/s\n", a.copy.reduce_fp32 / 1e9);
	else
		printf("not measured (built without nvcc)\n");
	if (r->lb.host > 0)
		print_loopback(&r->lb);
	return 0;
}

/* A GPU backend with no NIC here: the link comes from the reference file,
 * or, into a --layout, stays the layout's own (calib_apply). */
static void link_from_reference(struct calib_result *r, const struct topology *ref,
				const char *layout, const char *why)
{
	r->link_from = r->reference;
	if (ref->nnics) {
		r->link_bw = ref->nics[0].line_rate * ref->nics[0].efficiency;
		r->lat = ref->nics[0].latency;
	}
	if (layout)
		printf("link       not measured: %s; the NICs of %s keep their own rate and latency\n",
		       why, layout);
	else
		printf("link       not measured: %s; rate %.1f MB/s and latency %.1f us from %s\n",
		       why, r->link_bw / 1e6, r->lat * 1e6, r->reference);
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
	sort_doubles(out, n);
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
	char *yaml = calib_topology_yaml(&c->r);
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
	c->r.lat = fmax(t_small / 2, 1e-8);
	c->r.link_bw = c->size / fmax(t_large - t_small, 1e-9);
	printf("measured   link %.1f MB/s (%llu B send/recv, median of 5: %.0f us), "
	       "latency %.1f us per NIC (8 B send/recv, best of 20: %.1f us)\n",
	       c->r.link_bw / 1e6, (unsigned long long)c->size, large[2],
	       c->r.lat * 1e6, small[0]);
	return 0;
}

/* Analytic vs measured, per path, for the trace. */
static int compare_paths(const struct backend_ops *b, const struct calib *c,
			 const struct topology *topo, const struct trace *trace,
			 struct diag *d)
{
	const struct backend_ops *model = backend_find("analytic");
	static const enum plan_path paths[] = { PLAN_PATH_STAGED, PLAN_PATH_DIRECT };
	const char *bad_path = NULL;
	uint64_t bad = 0, checked = 0;
	int err = 0;

	printf("\nprediction for %s (communication time per iteration)\n", c->trace);
	printf("%-8s %14s %14s %10s\n", "path", "measured_us", "analytic_us", "error");
	for (size_t i = 0; !err && i < 2; i++) {
		struct plan_options o;
		struct plan pm, pa;
		struct records rm, ra;

		plan_options_default(&o);
		o.path = paths[i];
		err = backend_execute(b, topo, trace, &o, NULL, &pm, &rm, d);
		if (err)
			break;
		err = backend_execute(model, topo, trace, &o, NULL, &pa, &ra, d);
		if (!err)
			printf("%-8s %14.1f %14.1f %+9.1f%%%s\n", plan_path_name(paths[i]),
			       rm.comm_time_us, ra.comm_time_us,
			       100 * (ra.comm_time_us - rm.comm_time_us) / rm.comm_time_us,
			       rm.data_checked && rm.data_errors ? "  (data errors!)" : "");
		if (!err && rm.data_checked && rm.data_errors && !bad_path) {
			bad_path = plan_path_name(paths[i]);
			bad = rm.data_errors;
			checked = rm.verified_bytes;
		}
		if (!err) {
			records_destroy(&ra);
			plan_destroy(&pa);
		}
		records_destroy(&rm);
		plan_destroy(&pm);
	}
	/* bytes that arrived wrong fail calibrate, as they fail gdrlab run
	 * (it printed "(data errors!)" and exited 0); both rows first */
	if (!err && bad_path)
		err = diag_set(d, -EIO, "data corrupted on %s: %llu of %llu bytes checked arrived wrong running %s on the %s path",
			       b->name, (unsigned long long)bad,
			       (unsigned long long)checked, c->trace, bad_path);
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
		{ "layout", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":b:t:T:o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			c->backend = optarg;
			break;
		case 't':
			if (cli_shipped_file("calibrate", "--topology", optarg, CLI_SHIPPED_TOPOLOGY, &c->topology))
				return EXIT_USAGE;
			break;
		case 'T':
			if (cli_shipped_file("calibrate", "--trace", optarg, CLI_SHIPPED_TRACE, &c->trace))
				return EXIT_USAGE;
			c->trace_given = true;
			break;
		case 'o':
			c->output = optarg;
			break;
		case 's':
			if (cli_parse_size(optarg, UINT64_MAX, &c->size) || c->size < 4096) {
				fprintf(stderr, "gdrlab calibrate: --size: expected a size from 4K to 1024G, got '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'D':
			c->devices = optarg;
			break;
		case 'L':
			if (cli_shipped_file("calibrate", "--layout", optarg, CLI_SHIPPED_TOPOLOGY, &c->layout))
				return EXIT_USAGE;
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
	/* the defaults are shipped files, found from any folder */
	struct calib c = { .backend = "emu", .topology = NULL, .trace = NULL,
			   .output = "calibrated.yaml", .size = 8u << 20 };
	const struct backend_ops *b;
	struct output_file out;
	struct topology ref, topo, layout;
	struct trace trace;
	struct diag d = { "" };
	char *yaml = NULL, why[256] = "";
	bool no_nic = false, have_trace = false;
	int rc, err;

	rc = parse(argc, argv, &c);
	if (rc >= 0)
		return rc;
	rc = cli_check_outputs("calibrate", (const char *[]){ c.output }, 1);
	if (rc)
		return rc;
	if (!c.topology &&
	    cli_shipped_file("calibrate", "--topology", "emu-vm", CLI_SHIPPED_TOPOLOGY, &c.topology))
		return EXIT_USAGE;
	if (!c.trace &&
	    cli_shipped_file("calibrate", "--trace", "emu-small", CLI_SHIPPED_TRACE, &c.trace))
		return EXIT_USAGE;
	b = cli_find_backend("calibrate", "--backend", c.backend);
	if (!b)
		return EXIT_USAGE;
	if (!(b->caps & BACKEND_CAP_WALL_CLOCK)) {
		fprintf(stderr, "gdrlab calibrate: --backend: '%s' is not a wall-clock backend "
			"(emu or real measure; see 'gdrlab backends')\n", c.backend);
		return EXIT_USAGE;
	}
	if (c.devices && setenv("GDRLAB_EMU_DEVICES", c.devices, 1))
		return EXIT_RUNTIME;
	/* every input file before any measuring, which takes a while */
	err = topology_load(c.topology, &ref, &d);
	if (!err && c.layout)
		err = topology_load(c.layout, &layout, &d);
	/* a --trace given; the default (relative to the shipped tree) only
	 * where it is needed, after the measurements */
	if (!err && c.trace_given) {
		err = trace_load(c.trace, &trace, &d);
		have_trace = !err;
	}
	if (err)
		return cli_fail("calibrate", CLI_LOADING, err, &d);
	c.r.backend = c.backend;
	c.r.reference = c.topology;
	c.r.staging = ref.staging;
	gethostname(c.r.hostname, sizeof(c.r.hostname) - 1);
	if (b->caps & BACKEND_CAP_GPU_MEMORY) {
		/* "no NVIDIA GPU" says more than "no RDMA device": the GPU
		 * part first; without a NIC, the link from --topology */
		no_nic = backend_probe(b, why, sizeof(why)) != 0;
		err = measure_gpu(&c.r, no_nic, &d);
		if (!err && no_nic)
			link_from_reference(&c.r, &ref, c.layout, why);
	} else {
		err = measure_host(&c.r, &d);
	}
	if (!err && !no_nic)
		err = measure_link(b, &c, &d);
	if (!err) {
		yaml = c.layout ? calib_layout_yaml(&c.r, &layout, c.layout) :
				  calib_topology_yaml(&c.r);
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
		if (!no_nic && !have_trace) {
			err = trace_load(c.trace, &trace, &d);
			have_trace = !err;
		}
		if (!err && !no_nic)
			err = compare_paths(b, &c, &topo, &trace, &d);
	}
	free(yaml);
	if (have_trace)
		trace_destroy(&trace);
	if (err)
		return cli_fail("calibrate", CLI_RUNNING, err, &d);
	return 0;
}
