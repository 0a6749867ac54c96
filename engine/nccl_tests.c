/* SPDX-License-Identifier: MIT */
/*
 * nccl_tests: the rules both nccl-tests readers apply (nccl_tests_text.c,
 * nccl_tests_json.c), the collectives and data types nccl-tests names, and
 * the public entry points. Sizes, counts and names below are those of
 * NVIDIA/nccl-tests src/common.cu and src/<collective>.cu.
 */
#include "nccl_tests.h"
#include "array_grow.h"
#include "input_file.h"
#include "nccl_tests_read.h"
#include "trace.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * How the size nccl-tests prints relates to its count: the larger of the
 * send and receive buffers over the elements each rank passes to NCCL.
 * A gather-like collective moves count x nranks elements into one buffer;
 * alltoallv sizes its buffers from a random pattern, so nothing is fixed.
 */
enum nt_factor { NT_ONE, NT_RANKS, NT_ANY };

struct nt_coll {
	const char *name;   /* as in "<name>_perf" */
	enum trace_op op;   /* TRACE_OP_COUNT: the trace has no such op */
	enum nt_factor factor;
};

static const struct nt_coll colls[] = {
	{ "all_reduce", TRACE_OP_ALLREDUCE, NT_ONE },
	{ "all_gather", TRACE_OP_ALL_GATHER, NT_RANKS },
	{ "reduce_scatter", TRACE_OP_REDUCE_SCATTER, NT_RANKS },
	{ "broadcast", TRACE_OP_BROADCAST, NT_ONE },
	{ "alltoall", TRACE_OP_ALLTOALL, NT_RANKS },
	{ "sendrecv", TRACE_OP_SENDRECV, NT_ONE },
	{ "reduce", TRACE_OP_COUNT, NT_ONE },
	{ "gather", TRACE_OP_COUNT, NT_RANKS },
	{ "scatter", TRACE_OP_COUNT, NT_RANKS },
	{ "hypercube", TRACE_OP_COUNT, NT_RANKS },
	{ "alltoallv", TRACE_OP_COUNT, NT_ANY },
};

/* test_typenames[] of both branches of common.cu (NCCL 1 and NCCL 2). */
static const struct {
	const char *name;
	unsigned size;
} types[] = {
	{ "int8", 1 },	   { "uint8", 1 },  { "int32", 4 },	{ "uint32", 4 },
	{ "int64", 8 },	   { "uint64", 8 }, { "half", 2 },	{ "float", 4 },
	{ "double", 8 },   { "bfloat16", 2 }, { "f8e4m3", 1 }, { "f8e5m2", 1 },
	{ "char", 1 },	   { "int", 4 },
};

#define TYPE_NAMES "int8, uint8, int32, uint32, int64, uint64, half, float, " \
		   "double, bfloat16, f8e4m3, f8e5m2"

static const struct nt_coll *coll_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(colls); i++)
		if (strcmp(colls[i].name, name) == 0)
			return &colls[i];
	return NULL;
}

static unsigned type_size(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(types); i++)
		if (strcmp(types[i].name, name) == 0)
			return types[i].size;
	return 0;
}

const char *nccl_tests_op_to_trace(const char *op)
{
	const struct nt_coll *c = op ? coll_find(op) : NULL;

	if (!c || c->op == TRACE_OP_COUNT)
		return NULL;
	return trace_op_name(c->op);
}

void nt_program_op(const char *program, char *out, size_t n)
{
	const char *base = program, *p, *end;
	size_t len, i;

	out[0] = '\0';
	for (p = program; *p; p++)
		if (*p == '/' || *p == '\\')
			base = p + 1;
	/* all_reduce_perf, all_reduce_perf_mpi, ... */
	end = strstr(base, "_perf");
	len = end ? (size_t)(end - base) : strlen(base);
	if (!len || len >= n)
		return;
	for (i = 0; i < len; i++) {
		char c = base[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return; /* not a collective's name: say nothing */
	}
	memcpy(out, base, len);
	out[len] = '\0';
}

void nt_init(struct nt_reader *r, const char *name, struct nccl_tests_file *f,
	     enum nccl_tests_format format)
{
	memset(r, 0, sizeof(*r));
	memset(f, 0, sizeof(*f));
	r->name = name;
	r->f = f;
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->format = format;
	f->avg_busbw = NAN;
}

void nt_set_nccl_version(struct nt_reader *r, unsigned long long code)
{
	if (code >= 1000 && code < 1000000)
		r->f->nccl_version = (unsigned)code;
}

void nt_set_program(struct nt_reader *r, const char *program)
{
	nt_program_op(program, r->f->op, sizeof(r->f->op));
	r->coll = coll_find(r->f->op);
}

/* A new run of hosts when @host is not the last one's. */
static int host_run(struct nt_reader *r, const char *host)
{
	if (r->nhost_runs && !strcmp(r->hosts[r->nhost_runs - 1], host))
		return 0;
	if (array_grow((void **)&r->hosts, r->nhost_runs, &r->hosts_cap, sizeof(*r->hosts)))
		return -ENOMEM;
	r->hosts[r->nhost_runs] = strdup(host);
	if (!r->hosts[r->nhost_runs])
		return -ENOMEM;
	r->nhost_runs++;
	return 0;
}

/* The same for groups: counted at the end, as the hosts are. */
static int group_run(struct nt_reader *r, long long group)
{
	if (r->ngroup_runs && r->groups[r->ngroup_runs - 1] == group)
		return 0;
	if (array_grow((void **)&r->groups, r->ngroup_runs, &r->groups_cap, sizeof(*r->groups)))
		return -ENOMEM;
	r->groups[r->ngroup_runs++] = group;
	return 0;
}

/* Rank 0's group's ranks' hosts and devices, for nccl_tests_file.devices. */
static int keep_rank_devs(struct nt_reader *r, unsigned n, long long device)
{
	for (unsigned k = 0; k < n; k++) {
		if (array_grow((void **)&r->rank_devs, r->nrank_devs, &r->rank_devs_cap,
			       sizeof(*r->rank_devs)))
			return -ENOMEM;
		r->rank_devs[r->nrank_devs++] = (struct nt_rank_dev){
			r->hosts[r->nhost_runs - 1], device < 0 ? -1 : device + k
		};
	}
	return 0;
}

int nt_add_devices(struct nt_reader *r, long long rank, unsigned n,
		   long long group, const char *host, long long device, const char *gpu,
		   const struct nt_dev_at *at, struct diag *d)
{
	struct nccl_tests_file *f = r->f;
	bool ours;
	int err;

	if (n > NCCL_TESTS_DEVICES_MAX - r->ndev)
		return diag_at(d, -EINVAL, r->name, at->line, at->col, at->key,
			       "more than %u devices", NCCL_TESTS_DEVICES_MAX);
	/*
	 * nccl-tests lists ranks once, in order: a restart is a second run.
	 * Built without MPI and started as N processes, it runs N tests of
	 * one rank each, every one listing its rank 0.
	 */
	if (rank == 0 && r->ndev)
		return diag_at(d, -EINVAL, r->name, at->line, at->col, at->key,
			       "rank 0 again (the list began on line %u): " NT_SECOND_RUN,
			       r->dev_line);
	if (rank >= 0 && rank != r->ndev)
		return diag_at(d, -EINVAL, r->name, at->line, at->col, at->key,
			       "rank %lld where rank %u was due (each rank once, in order; one run per file)",
			       rank, r->ndev);
	if (!r->ndev) {
		r->group0 = group;
		r->dev_line = at->line;
		snprintf(f->gpu, sizeof(f->gpu), "%s", gpu);
	}
	/* other groups ran beside rank 0's: not the rows' communicator */
	ours = group == r->group0;
	err = group_run(r, group);
	if (!err && ours)
		err = host_run(r, host);
	if (!err && ours)
		err = keep_rank_devs(r, n, device);
	if (err)
		return diag_set(d, -ENOMEM, "%s:%u: out of memory", r->name,
				at->line);
	r->ndev += n;
	if (ours)
		f->nranks += n;
	return 0;
}

/* "file:line:col: key: what" for a field of a row. */
static int row_err(const struct nt_reader *r, const struct nt_at *at,
		   enum nt_field fld, struct diag *d, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int row_err(const struct nt_reader *r, const struct nt_at *at,
		   enum nt_field fld, struct diag *d, const char *fmt, ...)
{
	static const char *const names[NT_F_N] = {
		[NT_F_SIZE] = "size", [NT_F_COUNT] = "count",
		[NT_F_TYPE] = "type", [NT_F_REDOP] = "redop",
		[NT_F_ROOT] = "root",
	};
	char key[64];
	va_list ap;
	int err;

	snprintf(key, sizeof(key), "%s%s", at->prefix, names[fld]);
	va_start(ap, fmt);
	err = diag_vat(d, -EINVAL, r->name, at->line, at->col[fld], key, fmt, ap);
	va_end(ap);
	return err;
}

/* "on line 12" or "in results[0]", for a message about an earlier row. */
static const char *place(const struct nt_place *p, char *buf, size_t n)
{
	if (p->index >= 0)
		snprintf(buf, n, "in results[%ld]", p->index);
	else
		snprintf(buf, n, "on line %u", p->line);
	return buf;
}

/*
 * -d all, -o all and a rootless -r run one series after another, sizes
 * starting over each time: say so rather than "size out of order".
 */
static int check_series(const struct nt_reader *r,
			const struct nccl_tests_row *row,
			const struct nt_at *at, struct diag *d)
{
	const struct nccl_tests_row *first = r->f->rows;
	char a[32], b[32], p[40];

	if (!r->f->nrows)
		return 0;
	place(&r->first, p, sizeof(p));
	if (strcmp(row->type, first->type))
		return row_err(r, at, NT_F_TYPE, d,
			       "'%s' after '%s' %s: one data type per file (run nccl-tests with one -d)",
			       diag_printable(row->type, a, sizeof(a)),
			       first->type, p);
	if (strcmp(row->redop, first->redop))
		return row_err(r, at, NT_F_REDOP, d,
			       "'%s' after '%s' %s: one reduction per file (run nccl-tests with one -o)",
			       diag_printable(row->redop, a, sizeof(a)),
			       diag_printable(first->redop, b, sizeof(b)), p);
	if (row->root != first->root)
		return row_err(r, at, NT_F_ROOT, d,
			       "%d after %d %s: one root per file (run nccl-tests with one -r)",
			       row->root, first->root, p);
	return 0;
}

/*
 * size = count x type size x k, where k is 1 or the number of ranks as
 * the collective goes, and the same for every row of the file.
 */
static int check_size(struct nt_reader *r, const struct nccl_tests_row *row,
		      unsigned tsize, const struct nt_at *at, struct diag *d)
{
	const struct nt_coll *c = r->coll;
	unsigned long long size = row->size, count = row->count, unit, k;
	unsigned long long want = 0;
	unsigned n = r->f->nranks;
	char how[96] = "", p[40];

	if (c && c->factor == NT_ANY)
		return 0;
	if (!count)
		return row_err(r, at, NT_F_COUNT, d,
			       "0 elements in a row of %llu bytes", size);
	if (count > UINT64_MAX / tsize)
		return row_err(r, at, NT_F_COUNT, d,
			       "%llu elements of %u bytes are more than 2^64 bytes",
			       count, tsize);
	unit = count * tsize;
	if (size % unit)
		return row_err(r, at, NT_F_SIZE, d,
			       "%llu bytes is not a whole multiple of count %llu x %u-byte %s (%llu bytes)",
			       size, count, tsize, row->type, unit);
	k = size / unit;
	if (c && c->factor == NT_ONE) {
		want = 1;
	} else if (c && n) {
		want = n;
		snprintf(how, sizeof(how), " x %u ranks", n);
	} else if (r->factor) {
		want = r->factor;
		snprintf(how, sizeof(how), " x %llu as %s",
			 (unsigned long long)r->factor,
			 place(&r->first, p, sizeof(p)));
	} else if (n && k != 1 && k != n) {
		return row_err(r, at, NT_F_SIZE, d,
			       "%llu bytes disagrees with count %llu x %u-byte %s: neither %llu bytes nor that x %u ranks",
			       size, count, tsize, row->type, unit, n);
	}
	if (want && k != want)
		return row_err(r, at, NT_F_SIZE, d,
			       "%llu bytes disagrees with count %llu x %u-byte %s%s (%llu bytes%s)",
			       size, count, tsize, row->type, how,
			       unit <= UINT64_MAX / want ? unit * want : 0,
			       unit <= UINT64_MAX / want ? "" : " overflowed");
	r->factor = k;
	return 0;
}

static int check_order(const struct nt_reader *r,
		       const struct nccl_tests_row *row,
		       const struct nt_at *at, struct diag *d)
{
	const struct nccl_tests_row *last;
	char p[40];

	if (!r->f->nrows)
		return 0;
	last = &r->f->rows[r->f->nrows - 1];
	place(&r->last, p, sizeof(p));
	if (row->size == last->size)
		return row_err(r, at, NT_F_SIZE, d,
			       "%llu bytes again (as %s): sizes must increase (one run per file, no -N)",
			       (unsigned long long)row->size, p);
	/* src/common.cu TimeTest: -N N prints the whole size loop N times */
	if (row->size < last->size && row->size <= r->f->rows[0].size)
		return row_err(r, at, NT_F_SIZE, d,
			       "%llu bytes after %llu %s: the sizes start over (nccl-tests -N repeats them, or a second run): one series per file",
			       (unsigned long long)row->size,
			       (unsigned long long)last->size, p);
	if (row->size < last->size)
		return row_err(r, at, NT_F_SIZE, d,
			       "%llu bytes after %llu %s: sizes must increase",
			       (unsigned long long)row->size,
			       (unsigned long long)last->size, p);
	if (r->f->nrows >= NCCL_TESTS_ROWS_MAX)
		return row_err(r, at, NT_F_SIZE, d, "more than %d rows",
			       NCCL_TESTS_ROWS_MAX);
	return 0;
}

static int append(struct nt_reader *r, const struct nccl_tests_row *row,
		  struct diag *d)
{
	struct nccl_tests_file *f = r->f;

	if (array_grow((void **)&f->rows, f->nrows, &r->cap, sizeof(*f->rows)))
		return diag_set(d, -ENOMEM, "%s:%u: out of memory", r->name, row->line);
	f->rows[f->nrows++] = *row;
	return 0;
}

/* A half whose time column was the host's cputime (nccl_tests_file
 * cputime): its time from its algbw, or unmeasured. */
static void time_from_algbw(uint64_t size, struct nccl_tests_result *h)
{
	if (!h->valid)
		return;
	if (!(h->algbw_gbps >= 1.0)) {
		h->valid = false;
		h->time_us = NAN;
		return;
	}
	h->time_us = (double)size / (h->algbw_gbps * 1e3); /* GB/s: 1e3 B/us */
}

int nt_add_row(struct nt_reader *r, const struct nccl_tests_row *given,
	       const struct nt_at *at, struct diag *d)
{
	char buf[32];
	struct nccl_tests_row copy = *given, *row = &copy;
	unsigned tsize = type_size(row->type);
	int err;

	if (r->f->cputime) {
		time_from_algbw(row->size, &row->oop);
		time_from_algbw(row->size, &row->ip);
	}

	if (!tsize)
		return row_err(r, at, NT_F_TYPE, d,
			       "unknown data type '%s' (" TYPE_NAMES ")",
			       diag_printable(row->type, buf, sizeof(buf)));
	err = check_series(r, row, at, d);
	if (err)
		return err;
	if (!row->size) {
		if (row->count)
			return row_err(r, at, NT_F_COUNT, d,
				       "%llu elements in a row of 0 bytes",
				       (unsigned long long)row->count);
		r->skipped_empty = true;
		return 0;
	}
	err = check_size(r, row, tsize, at, d);
	if (!err)
		err = check_order(r, row, at, d);
	if (err)
		return err;
	err = append(r, row, d);
	if (err)
		return err;
	r->last.line = at->line;
	r->last.index = at->index;
	if (r->f->nrows == 1)
		r->first = r->last;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* Distinct values among @n runs, sorted here. */
static unsigned count_hosts(char **v, size_t n)
{
	unsigned k = 1;

	if (!n)
		return 0; /* no array to sort: qsort wants one */
	qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 1; i < n; i++)
		if (strcmp(v[i], v[i - 1]))
			k++;
	return k;
}

static unsigned count_groups(long long *v, size_t n)
{
	unsigned k = 1;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_ll);
	for (size_t i = 1; i < n; i++)
		if (v[i] != v[i - 1])
			k++;
	return k;
}

static int cmp_rank_dev(const void *a, const void *b)
{
	const struct nt_rank_dev *x = a, *y = b;
	int c = strcmp(x->host, y->host);

	return c ? c : (x->device > y->device) - (x->device < y->device);
}

/* The devices of each host, where every host lists the same ones, each
 * once and each known (nccl_tests_file.devices); else none. */
static void host_devices(struct nt_reader *r)
{
	struct nccl_tests_file *f = r->f;
	const struct nt_rank_dev *v = r->rank_devs;
	size_t n = r->nrank_devs, per = 0;

	f->ndevices = 0;
	if (!n)
		return;
	/* by host, then device: the first host's devices, ascending, first */
	qsort(r->rank_devs, n, sizeof(*r->rank_devs), cmp_rank_dev);
	for (size_t at = 0, end; at < n; at = end) {
		for (end = at + 1; end < n && !strcmp(v[end].host, v[at].host); end++)
			;
		if (!at || end - at < f->host_ranks_min)
			f->host_ranks_min = (unsigned)(end - at);
		if (end - at > f->host_ranks_max)
			f->host_ranks_max = (unsigned)(end - at);
	}
	while (per < n && !strcmp(v[per].host, v[0].host))
		per++;
	if (per > sizeof(f->devices) / sizeof(f->devices[0]) || n % per)
		return;
	for (size_t k = 0; k < per; k++)
		if (v[k].device < 0 || (k && v[k].device == v[k - 1].device))
			return; /* unknown, or one device twice */
	/* every host a block of the same devices, as many as the first's */
	for (size_t at = per; at < n; at += per) {
		if (!strcmp(v[at].host, v[at - 1].host))
			return; /* the host before has more */
		for (size_t k = 0; k < per; k++)
			if (strcmp(v[at + k].host, v[at].host) || v[at + k].device != v[k].device)
				return;
	}
	for (size_t k = 0; k < per; k++)
		f->devices[k] = (unsigned)v[k].device;
	f->ndevices = (unsigned)per;
}

int nt_finish(struct nt_reader *r, int err)
{
	size_t i;

	if (!err) {
		host_devices(r);
		r->f->nhosts = count_hosts(r->hosts, r->nhost_runs);
		/* the device lines in rank order: a host in two runs or more
		 * has ranks between which another host's are */
		r->f->hosts_in_blocks = r->nhost_runs == r->f->nhosts;
		r->f->ngroups = count_groups(r->groups, r->ngroup_runs);
	}
	free(r->rank_devs);
	r->rank_devs = NULL;
	r->nrank_devs = 0;
	for (i = 0; i < r->nhost_runs; i++)
		free(r->hosts[i]);
	free(r->hosts);
	free(r->groups);
	r->hosts = NULL;
	r->groups = NULL;
	r->nhost_runs = r->ngroup_runs = 0;
	if (err)
		nccl_tests_destroy(r->f);
	return err;
}

void nccl_tests_destroy(struct nccl_tests_file *f)
{
	free(f->rows);
	memset(f, 0, sizeof(*f));
}

/* JSON starts with '{' after blanks (and a UTF-8 byte-order mark). */
static bool looks_json(const char *buf, size_t len)
{
	size_t i = 0;

	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' ||
			   buf[i] == '\r'))
		i++;
	return i < len && buf[i] == '{';
}

int nccl_tests_load_buffer(const char *buf, size_t len, const char *name,
			   struct nccl_tests_file *f, struct diag *d)
{
	struct nt_reader r;
	bool json;
	int err;

	if (!len)
		buf = ""; /* no arithmetic on a NULL buffer */
	json = looks_json(buf, len);

	nt_init(&r, name ? name : "<nccl-tests>", f,
		json ? NCCL_TESTS_JSON : NCCL_TESTS_TEXT);
	if (len > NCCL_TESTS_FILE_MAX)
		err = diag_set(d, -EINVAL,
			       "%s: file: larger than %u MiB, not an nccl-tests output",
			       r.name, NCCL_TESTS_FILE_MAX >> 20);
	else if (json)
		err = nt_load_json(&r, buf, len, d);
	else
		err = nt_load_text(&r, buf, len, d);
	return nt_finish(&r, err);
}

/* All of @path, up to one byte more than the loaders take. */
static int read_all(const char *path, char **out, size_t *len,
		    struct diag *d)
{
	size_t cap = 0, n = 0, got;
	char *buf = NULL, *nb;
	FILE *fp;
	int err = 0;

	fp = input_open(path, "rb", &err, d);
	if (!fp)
		return err;
	do {
		if (n == cap) {
			cap = cap ? 2 * cap : 64 << 10;
			nb = realloc(buf, cap);
			if (!nb) {
				err = diag_set(d, -ENOMEM, "%s: out of memory",
					       path);
				goto out;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, fp);
		n += got;
	} while (got && n <= NCCL_TESTS_FILE_MAX);
	if (ferror(fp))
		err = diag_set(d, -EIO, "%s: read error", path);
out:
	fclose(fp);
	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	*len = n;
	return 0;
}

int nccl_tests_load(const char *path, struct nccl_tests_file *f,
		    struct diag *d)
{
	char *buf = NULL;
	size_t len = 0;
	int err;

	memset(f, 0, sizeof(*f));
	err = read_all(path, &buf, &len, d);
	if (err)
		return err;
	err = nccl_tests_load_buffer(buf ? buf : "", len, path, f, d);
	free(buf);
	return err;
}
