/* SPDX-License-Identifier: MIT */
#include "collectives.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"

/*
 * Element @e of rank @r's input. int8 gets an integer in [-8, 8], which
 * sums of up to 15 ranks keep in range. The floating types get one of 17
 * values 0.3 apart around 0.1: none a binary fraction, so each lands
 * rounded in its dtype, and every addition of the ring's reduction
 * rounds again, in fp16 and bf16 visibly: the check below must then
 * follow the ring's order of additions, rounding as the reduction does,
 * or it fails.
 */
static double elem_value(unsigned r, uint64_t e, unsigned salt,
			 enum trace_dtype t)
{
	double k = (double)((e * 7 + r * 3 + salt) % 17) - 8;

	return t == TRACE_DTYPE_INT8 ? k : k * 0.3 + 0.1;
}

/* Byte @i of what rank @r sends in a data-movement collective. */
static uint8_t byte_value(unsigned r, uint64_t i, unsigned salt)
{
	return (uint8_t)(i * 7 + r * 13 + salt * 5 + (i >> 8));
}

/* What a receive buffer holds before anything lands in it. */
static uint8_t poison(uint64_t i, unsigned salt)
{
	return (uint8_t)(0xa5 ^ (i * 3) ^ salt);
}

static bool is_reduction(enum trace_op op)
{
	return op == TRACE_OP_ALLREDUCE || op == TRACE_OP_REDUCE_SCATTER;
}

uint64_t emu_coll_max_bytes(const struct plan *p)
{
	uint64_t m = 0;

	for (size_t i = 0; i < p->ncollectives; i++)
		if (p->collectives[i].bytes > m)
			m = p->collectives[i].bytes;
	return m;
}

uint64_t emu_coll_region(uint64_t max_bytes)
{
	return 2 * ((max_bytes + 4095) & ~(uint64_t)4095);
}

static unsigned esize(const struct emu_coll *ec)
{
	return is_reduction(ec->pat->op) ? trace_dtype_size(ec->dtype) : 1;
}

/* Offset of block @b of @n over the buffer, on element boundaries. */
static uint64_t block_off(const struct emu_coll *ec, unsigned b, unsigned n)
{
	uint64_t count = ec->bytes / esize(ec);

	return count * b / n * esize(ec);
}

static int pos_of(const unsigned *order, unsigned n, unsigned rank)
{
	for (unsigned i = 0; i < n; i++)
		if (order[i] == rank)
			return (int)i;
	return -1;
}

void emu_step_paths(const struct plan_pattern *pat, unsigned rank,
		    struct vp_step *s)
{
	bool ss, sr, in;

	if (s->send_to >= 0) {
		plan_pair_sides(pat, rank, (unsigned)s->send_to, &ss, &sr, &in);
		s->staged_send = ss;
		s->staged_send_remote = sr;
		s->intra_send = in;
	}
	if (s->recv_from >= 0) {
		plan_pair_sides(pat, (unsigned)s->recv_from, rank, &ss, &sr, &in);
		s->staged_recv = sr;
		s->intra_recv = in;
	}
}

static int run_step(struct vp_ctx *c, const struct emu_coll *ec,
		    struct vp_step *s, struct vp_times *t, struct diag *d)
{
	s->dtype = ec->dtype;
	emu_step_paths(ec->pat, ec->rank, s);
	return vp_step_run(c, s, t, d);
}

int emu_coll_validate(const struct emu_coll *ec, struct diag *d)
{
	const struct plan_pattern *pat = ec->pat;
	unsigned es = trace_dtype_size(ec->dtype);

	if (is_reduction(pat->op)) {
		if (ec->bytes % es)
			return diag_set(d, -EINVAL,
					"emu: %s of %llu bytes is not a whole number of %s elements",
					trace_op_name(pat->op),
					(unsigned long long)ec->bytes,
					trace_dtype_name(ec->dtype));
		if (ec->dtype == TRACE_DTYPE_INT8 && 8 * pat->nranks > 127)
			return diag_set(d, -EINVAL,
					"emu: %s sums over %u ranks would overflow int8 (at most 15 ranks)",
					trace_op_name(pat->op), pat->nranks);
	}
	return 0;
}

/* The input of rank @r (at ring position @pos) as a host buffer. */
static void fill_input(const struct emu_coll *ec, unsigned r, int pos,
		       const unsigned *order, uint8_t *buf)
{
	const struct plan_pattern *pat = ec->pat;
	unsigned n = pat->nranks;

	if (is_reduction(pat->op)) {
		uint64_t count = ec->bytes / esize(ec);

		for (uint64_t e = 0; e < count; e++)
			dtype_set(buf, e, ec->dtype, elem_value(r, e, ec->salt, ec->dtype));
		return;
	}
	for (uint64_t i = 0; i < ec->bytes; i++)
		buf[i] = poison(i, ec->salt);
	switch (pat->op) {
	case TRACE_OP_ALL_GATHER:
		for (uint64_t i = block_off(ec, (unsigned)pos, n);
		     i < block_off(ec, (unsigned)pos + 1, n); i++)
			buf[i] = byte_value(r, i, ec->salt);
		break;
	case TRACE_OP_BROADCAST:
	case TRACE_OP_SENDRECV:
		if (r == (unsigned)pat->root)
			for (uint64_t i = 0; i < ec->bytes; i++)
				buf[i] = byte_value(r, i, ec->salt);
		break;
	case TRACE_OP_ALLTOALL:
		for (uint64_t i = 0; i < ec->bytes; i++)
			buf[i] = byte_value(r, i, ec->salt);
		break;
	default:
		break;
	}
	(void)order;
}

int emu_coll_prepare(struct vp_ctx *c, const struct emu_coll *ec,
		     struct diag *d)
{
	const struct plan_pattern *pat = ec->pat;
	unsigned n = pat->nranks, *order;
	uint8_t *buf;
	int pos, err = 0;

	order = malloc(n * sizeof(*order));
	buf = malloc(ec->bytes ? ec->bytes : 1);
	if (!order || !buf) {
		err = diag_set(d, -ENOMEM, "out of memory");
		goto out;
	}
	plan_pattern_ring(pat, order);
	pos = pos_of(order, n, ec->rank);
	if (pos < 0)
		goto out; /* not in the group */
	fill_input(ec, ec->rank, pos, order, buf);
	err = vp_data_write(c, 0, buf, ec->bytes);
	if (!err && pat->op == TRACE_OP_ALLTOALL) {
		for (uint64_t i = 0; i < ec->bytes; i++)
			buf[i] = poison(i, ec->salt);
		err = vp_data_write(c, ec->half, buf, ec->bytes);
	}
	if (err)
		diag_set(d, err, "rank %u: filling the input: %s", ec->rank,
			 strerror(-err));
out:
	free(buf);
	free(order);
	return err;
}

/* Reduce-scatter (first = pos) or all-gather rounds of the ring. */
static int ring_rounds(struct vp_ctx *c, const struct emu_coll *ec,
		       const unsigned *order, unsigned pos, unsigned first,
		       enum vp_consume how, struct vp_times *t, struct diag *d)
{
	unsigned n = ec->pat->nranks;
	int err = 0;

	for (unsigned s = 0; s + 1 < n && !err; s++) {
		unsigned sb = (first + n - s) % n, rb = (first + 2 * n - s - 1) % n;
		struct vp_step st = {
			.send_to = (int)order[(pos + 1) % n],
			.recv_from = (int)order[(pos + n - 1) % n],
			.send_off = block_off(ec, sb, n),
			.send_len = block_off(ec, sb + 1, n) - block_off(ec, sb, n),
			.recv_off = block_off(ec, rb, n),
			.recv_len = block_off(ec, rb + 1, n) - block_off(ec, rb, n),
			.consume = how,
		};

		err = run_step(c, ec, &st, t, d);
	}
	return err;
}

int emu_coll_run(struct vp_ctx *c, const struct emu_coll *ec,
		 struct vp_times *t, struct diag *d)
{
	const struct plan_pattern *pat = ec->pat;
	unsigned n = pat->nranks, *order;
	int pos, err = 0;

	/* one rank moves nothing, except an alltoall's own block, which
	 * it copies for itself (below): skipped, a one-rank job's alltoall
	 * failed its check with every byte wrong */
	if (n < 2 && pat->op != TRACE_OP_ALLTOALL)
		return 0;
	order = malloc(n * sizeof(*order));
	if (!order)
		return diag_set(d, -ENOMEM, "out of memory");
	plan_pattern_ring(pat, order);
	pos = pos_of(order, n, ec->rank);
	if (pos < 0)
		goto out;
	switch (pat->op) {
	case TRACE_OP_ALLREDUCE:
		err = ring_rounds(c, ec, order, (unsigned)pos, (unsigned)pos,
				  VP_REDUCE, t, d);
		if (!err)
			err = ring_rounds(c, ec, order, (unsigned)pos,
					  ((unsigned)pos + 1) % n, VP_COPY, t, d);
		break;
	case TRACE_OP_REDUCE_SCATTER:
		err = ring_rounds(c, ec, order, (unsigned)pos, (unsigned)pos,
				  VP_REDUCE, t, d);
		break;
	case TRACE_OP_ALL_GATHER:
		err = ring_rounds(c, ec, order, (unsigned)pos, (unsigned)pos,
				  VP_COPY, t, d);
		break;
	case TRACE_OP_BROADCAST: {
		struct vp_step st = {
			.send_to = pos + 1 < (int)n ? (int)order[pos + 1] : -1,
			.recv_from = pos > 0 ? (int)order[pos - 1] : -1,
			.send_len = ec->bytes, .recv_len = ec->bytes,
			.consume = VP_COPY, .forward = pos > 0,
		};

		err = run_step(c, ec, &st, t, d);
		break;
	}
	case TRACE_OP_ALLTOALL: {
		uint64_t blk = ec->bytes / n;

		/* the block a rank keeps for itself: a local copy */
		err = vp_data_copy(c, ec->half + pos * blk, pos * blk, blk);
		for (unsigned k = 1; k < n && !err; k++) {
			unsigned to = ((unsigned)pos + k) % n, from = ((unsigned)pos + n - k) % n;
			struct vp_step st = {
				.send_to = (int)pat->ranks[to],
				.recv_from = (int)pat->ranks[from],
				.send_off = to * blk, .send_len = blk,
				.recv_off = ec->half + from * blk, .recv_len = blk,
				.consume = VP_COPY,
			};

			err = run_step(c, ec, &st, t, d);
		}
		break;
	}
	case TRACE_OP_SENDRECV: {
		bool src = ec->rank == (unsigned)pat->root;
		bool dst = ec->rank == (unsigned)pat->peer;
		struct vp_step st = {
			.send_to = src ? pat->peer : -1,
			.recv_from = dst ? pat->root : -1,
			.send_len = ec->bytes, .recv_len = ec->bytes,
			.consume = VP_COPY,
		};

		err = run_step(c, ec, &st, t, d);
		break;
	}
	default:
		err = diag_set(d, -ENOTSUP, "emu: %s is not implemented",
			       trace_op_name(pat->op));
	}
out:
	free(order);
	return err;
}

/*
 * Element @e of block @b as the ring's reduction leaves it (ring_rounds):
 * the block starts at ring position b, raw, and each next position adds
 * its own element to what arrives and rounds it to the dtype, as the
 * memory's reduce (dtype_sum here, the kernels of real/) does, until
 * position b - 1 holds the sum; the all-gather then copies it.
 */
static void ring_sum(const struct emu_coll *ec, const unsigned *order,
		     unsigned n, unsigned b, uint64_t e, uint8_t *want)
{
	uint8_t acc[8], x[8];

	dtype_set(acc, 0, ec->dtype, elem_value(order[b], e, ec->salt, ec->dtype));
	for (unsigned k = 1; k < n; k++) {
		dtype_set(x, 0, ec->dtype,
			  elem_value(order[(b + k) % n], e, ec->salt, ec->dtype));
		dtype_sum(acc, x, 1, ec->dtype);
	}
	memcpy(want + e * esize(ec), acc, esize(ec));
}

/* Expected output of this rank, and the range of it that is checked. */
static void expected(const struct emu_coll *ec, const unsigned *order,
		     unsigned pos, uint8_t *want, uint64_t *lo, uint64_t *hi)
{
	const struct plan_pattern *pat = ec->pat;
	unsigned n = pat->nranks;

	*lo = 0;
	*hi = ec->bytes;
	switch (pat->op) {
	case TRACE_OP_ALLREDUCE:
	case TRACE_OP_REDUCE_SCATTER: {
		uint64_t count = ec->bytes / esize(ec);

		for (uint64_t e = 0, b = 0; e < count; e++) {
			while (block_off(ec, (unsigned)b + 1, n) <= e * esize(ec))
				b++;
			ring_sum(ec, order, n, (unsigned)b, e, want);
		}
		if (pat->op == TRACE_OP_REDUCE_SCATTER) {
			/* position p ends with block p + 1 (ring_rounds) */
			*lo = block_off(ec, (pos + 1) % n, n);
			*hi = block_off(ec, (pos + 1) % n + 1, n);
		}
		break;
	}
	case TRACE_OP_ALL_GATHER:
		for (unsigned b = 0; b < n; b++)
			for (uint64_t i = block_off(ec, b, n); i < block_off(ec, b + 1, n); i++)
				want[i] = byte_value(order[b], i, ec->salt);
		break;
	case TRACE_OP_BROADCAST:
	case TRACE_OP_SENDRECV:
		for (uint64_t i = 0; i < ec->bytes; i++)
			want[i] = byte_value((unsigned)pat->root, i, ec->salt);
		break;
	case TRACE_OP_ALLTOALL: {
		uint64_t blk = ec->bytes / n;

		/* block i of my output is block pos of rank i's input */
		for (unsigned i = 0; i < n; i++)
			for (uint64_t k = 0; k < blk; k++)
				want[i * blk + k] =
					byte_value(pat->ranks[i], pos * blk + k, ec->salt);
		*hi = n * blk;
		break;
	}
	default:
		*hi = 0;
	}
}

int emu_coll_check(struct vp_ctx *c, const struct emu_coll *ec,
		   uint64_t *verified, uint64_t *errors, struct diag *d)
{
	const struct plan_pattern *pat = ec->pat;
	unsigned n = pat->nranks, *order;
	uint8_t *got = NULL, *want = NULL;
	uint64_t lo, hi, off;
	int pos, err = 0;

	*verified = *errors = 0;
	order = malloc(n * sizeof(*order));
	if (!order)
		return diag_set(d, -ENOMEM, "out of memory");
	plan_pattern_ring(pat, order);
	pos = pos_of(order, n, ec->rank);
	/* send/recv: only the receiver has something to check */
	if (pos < 0 || (pat->op == TRACE_OP_SENDRECV && ec->rank != (unsigned)pat->peer))
		goto out;
	got = malloc(ec->bytes ? ec->bytes : 1);
	want = malloc(ec->bytes ? ec->bytes : 1);
	if (!got || !want) {
		err = diag_set(d, -ENOMEM, "out of memory");
		goto out;
	}
	expected(ec, order, (unsigned)pos, want, &lo, &hi);
	off = pat->op == TRACE_OP_ALLTOALL ? ec->half : 0;
	if (ec->corrupt && hi > lo) {
		/* what a torn or misordered NIC write would leave */
		uint8_t wrong = (uint8_t)~want[lo];

		err = vp_data_write(c, off + lo, &wrong, 1);
	}
	if (!err)
		err = vp_data_read(c, got, off, ec->bytes);
	if (err) {
		diag_set(d, err, "rank %u: reading the output: %s", ec->rank,
			 strerror(-err));
		goto out;
	}
	for (uint64_t i = lo; i < hi; i++)
		*errors += got[i] != want[i];
	*verified = hi - lo;
out:
	free(got);
	free(want);
	free(order);
	return err;
}
