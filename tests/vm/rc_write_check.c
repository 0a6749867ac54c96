// SPDX-License-Identifier: MIT
/*
 * rc_write_check: the smallest proof that real RDMA works between two rxe
 * devices. One process opens both devices, connects an RC queue pair on each
 * to the other (RoCE v2, GIDs looked up by IPv4 address), RDMA WRITEs a
 * pattern from A's buffer into B's and another back from B into A's, and
 * checks every byte.
 *
 *   rc_write_check [DEV_A IP_A DEV_B IP_B [BYTES]]
 *
 * Defaults come from the environment emu/vm/run sets (GDRLAB_RXE_A,
 * GDRLAB_IP_A, GDRLAB_RXE_B, GDRLAB_IP_B), else rxe0 10.3.0.1 rxe1 10.3.0.2;
 * BYTES defaults to 1 MiB. Exit status: 0 all bytes checked out, 1 data
 * mismatch, 2 set-up or transfer error, 77 a device is missing or the kernel
 * has no RDMA at all (skipped).
 *
 * Internal functions return 0 or a negative errno and print what failed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXIT_MISMATCH 1
#define EXIT_SETUP    2
#define EXIT_SKIP     77

#define PORT            1
#define GID_WAIT_MS     5000  /* the GID table fills asynchronously */
#define POLL_TIMEOUT_MS 60000 /* generous: software-emulated CPU in the VM */

struct endpoint {
	const char *name;          /* device name, borrowed from argv/env */
	const char *ip;            /* IPv4 address of its netdev, borrowed */
	struct ibv_context *ctx;   /* owned */
	struct ibv_pd *pd;         /* owned */
	struct ibv_cq *cq;         /* owned */
	struct ibv_qp *qp;         /* owned */
	struct ibv_mr *mr;         /* owned */
	unsigned char *buf;        /* owned, registered in mr */
	union ibv_gid gid;
	int gid_index;
	enum ibv_mtu mtu;
};

static const char *env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);

	return v && *v ? v : fallback;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Open the device called ep->name; -ENODEV when there is none. */
static int ep_open_device(struct endpoint *ep)
{
	struct ibv_device **list;
	int i, n, ret = -ENODEV;

	list = ibv_get_device_list(&n);
	if (!list) {
		fprintf(stderr, "rc_write_check: ibv_get_device_list: %s\n", strerror(errno));
		return -errno;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(list[i]), ep->name))
			continue;
		ep->ctx = ibv_open_device(list[i]);
		ret = ep->ctx ? 0 : -errno;
		if (ret)
			fprintf(stderr, "rc_write_check: open %s: %s\n", ep->name, strerror(-ret));
		break;
	}
	ibv_free_device_list(list);
	if (ret == -ENODEV)
		fprintf(stderr, "rc_write_check: no RDMA device %s\n", ep->name);
	return ret;
}

/* Find the RoCE v2 GID whose value is ep->ip mapped into IPv6 (::ffff:a.b.c.d). */
static int ep_find_gid(struct endpoint *ep)
{
	struct ibv_port_attr port;
	union ibv_gid want = { .raw = { [10] = 0xff, [11] = 0xff } };
	struct ibv_gid_entry entry;
	long deadline = now_ms() + GID_WAIT_MS;
	int i;

	if (inet_pton(AF_INET, ep->ip, &want.raw[12]) != 1) {
		fprintf(stderr, "rc_write_check: %s is not an IPv4 address\n", ep->ip);
		return -EINVAL;
	}
	if (ibv_query_port(ep->ctx, PORT, &port)) {
		fprintf(stderr, "rc_write_check: query port of %s failed\n", ep->name);
		return -EIO;
	}
	ep->mtu = port.active_mtu;
	do {
		for (i = 0; i < port.gid_tbl_len && i < 64; i++) {
			if (ibv_query_gid_ex(ep->ctx, PORT, i, &entry, 0))
				continue;
			if (entry.gid_type == IBV_GID_TYPE_ROCE_V2 &&
			    !memcmp(entry.gid.raw, want.raw, sizeof(want.raw))) {
				ep->gid = entry.gid;
				ep->gid_index = i;
				return 0;
			}
		}
		sleep_ms(100);
	} while (now_ms() < deadline);
	fprintf(stderr, "rc_write_check: %s has no RoCE v2 GID for %s\n", ep->name, ep->ip);
	return -ENOENT;
}

static int ep_create(struct endpoint *ep, size_t bytes)
{
	struct ibv_qp_init_attr qpa = {
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	int ret;

	ret = ep_open_device(ep);
	if (ret)
		return ret;
	ret = ep_find_gid(ep);
	if (ret)
		return ret;
	ep->pd = ibv_alloc_pd(ep->ctx);
	ep->cq = ep->pd ? ibv_create_cq(ep->ctx, 8, NULL, NULL, 0) : NULL;
	if (!ep->cq) {
		fprintf(stderr, "rc_write_check: %s: PD/CQ: %s\n", ep->name, strerror(errno));
		return -ENOMEM;
	}
	qpa.send_cq = ep->cq;
	qpa.recv_cq = ep->cq;
	ep->qp = ibv_create_qp(ep->pd, &qpa);
	ep->buf = calloc(1, bytes);
	if (!ep->qp || !ep->buf) {
		fprintf(stderr, "rc_write_check: %s: QP/buffer: %s\n", ep->name, strerror(errno));
		return -ENOMEM;
	}
	ep->mr = ibv_reg_mr(ep->pd, ep->buf, bytes,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!ep->mr) {
		fprintf(stderr, "rc_write_check: %s: ibv_reg_mr: %s\n", ep->name, strerror(errno));
		return -ENOMEM;
	}
	return 0;
}

/* Tear down whatever ep_create got to; keeps going past failures. */
static void ep_destroy(struct endpoint *ep)
{
	if (ep->mr)
		ibv_dereg_mr(ep->mr);
	if (ep->qp)
		ibv_destroy_qp(ep->qp);
	if (ep->cq)
		ibv_destroy_cq(ep->cq);
	if (ep->pd)
		ibv_dealloc_pd(ep->pd);
	if (ep->ctx)
		ibv_close_device(ep->ctx);
	free(ep->buf);
}

/* RESET -> INIT -> RTR -> RTS, connected to peer's QP. */
static int ep_connect(struct endpoint *ep, const struct endpoint *peer)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = PORT,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	int ret;

	ret = ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		goto fail;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = ep->mtu < peer->mtu ? ep->mtu : peer->mtu;
	a.dest_qp_num = peer->qp->qp_num;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = PORT;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = ep->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	ret = ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (ret)
		goto fail;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	ret = ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			    IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret)
		goto fail;
	return 0;
fail:
	fprintf(stderr, "rc_write_check: %s: modify QP to state %d: %s\n",
		ep->name, a.qp_state, strerror(ret));
	return -ret;
}

/* RDMA WRITE all of src's buffer into dst's and wait for the completion. */
static int ep_write(struct endpoint *src, const struct endpoint *dst, size_t bytes)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)src->buf,
		.length = (uint32_t)bytes,
		.lkey = src->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)dst->buf, .rkey = dst->mr->rkey },
	};
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	long deadline = now_ms() + POLL_TIMEOUT_MS;
	int ret, n;

	ret = ibv_post_send(src->qp, &wr, &bad);
	if (ret) {
		fprintf(stderr, "rc_write_check: post RDMA WRITE: %s\n", strerror(ret));
		return -ret;
	}
	while ((n = ibv_poll_cq(src->cq, 1, &wc)) == 0) {
		if (now_ms() > deadline) {
			fprintf(stderr, "rc_write_check: %s -> %s: no completion in %d ms\n",
				src->name, dst->name, POLL_TIMEOUT_MS);
			return -ETIMEDOUT;
		}
	}
	if (n < 0 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "rc_write_check: %s -> %s: completion: %s\n", src->name,
			dst->name, n < 0 ? "poll failed" : ibv_wc_status_str(wc.status));
		return -EIO;
	}
	return 0;
}

/* Deterministic, position-dependent bytes so shifted or stale data shows. */
static void fill(unsigned char *p, size_t n, uint32_t seed)
{
	uint32_t x = seed;
	size_t i;

	for (i = 0; i < n; i++) {
		x = x * 1664525u + 1013904223u;
		p[i] = (unsigned char)(x >> 24);
	}
}

/* Count bytes of got that differ from the pattern; report the first. */
static size_t check(const char *what, const unsigned char *got, size_t n, uint32_t seed)
{
	unsigned char *want = malloc(n);
	size_t i, bad = 0;

	if (!want)
		return n;
	fill(want, n, seed);
	for (i = 0; i < n; i++) {
		if (got[i] == want[i])
			continue;
		if (!bad++)
			fprintf(stderr, "rc_write_check: %s: first bad byte at %zu: 0x%02x, want 0x%02x\n",
				what, i, got[i], want[i]);
	}
	free(want);
	return bad;
}

int main(int argc, char **argv)
{
	struct endpoint a = { .name = env_or("GDRLAB_RXE_A", "rxe0"),
			      .ip = env_or("GDRLAB_IP_A", "10.3.0.1") };
	struct endpoint b = { .name = env_or("GDRLAB_RXE_B", "rxe1"),
			      .ip = env_or("GDRLAB_IP_B", "10.3.0.2") };
	size_t bytes = 1 << 20, bad_ab, bad_ba;
	long t0, t1;
	int ret, status = EXIT_SETUP;

	if (argc == 5 || argc == 6) {
		a.name = argv[1];
		a.ip = argv[2];
		b.name = argv[3];
		b.ip = argv[4];
		if (argc == 6)
			bytes = strtoul(argv[5], NULL, 0);
	} else if (argc != 1) {
		fprintf(stderr, "usage: rc_write_check [DEV_A IP_A DEV_B IP_B [BYTES]]\n");
		return EXIT_SETUP;
	}
	if (bytes == 0 || bytes > (1u << 30)) {
		fprintf(stderr, "rc_write_check: BYTES must be 1 to 1 GiB\n");
		return EXIT_SETUP;
	}

	ret = ep_create(&a, bytes);
	if (!ret)
		ret = ep_create(&b, bytes);
	if (ret == -ENODEV || ret == -ENOSYS) {
		fprintf(stderr, "rc_write_check: skipped: run it through emu/vm/run\n");
		status = EXIT_SKIP;
		goto out;
	}
	if (ret || ep_connect(&a, &b) || ep_connect(&b, &a))
		goto out;

	fill(a.buf, bytes, 1);
	fill(b.buf, bytes, 2);
	t0 = now_ms();
	if (ep_write(&a, &b, bytes))
		goto out;
	t1 = now_ms();
	bad_ab = check("A -> B", b.buf, bytes, 1);

	fill(b.buf, bytes, 3);
	if (ep_write(&b, &a, bytes))
		goto out;
	bad_ba = check("B -> A", a.buf, bytes, 3);

	printf("rc_write_check: %s (%s) <-> %s (%s): %zu bytes each way, "
	       "%zu + %zu bad bytes, A -> B in %ld ms\n",
	       a.name, a.ip, b.name, b.ip, bytes, bad_ab, bad_ba, t1 - t0);
	status = bad_ab || bad_ba ? EXIT_MISMATCH : EXIT_SUCCESS;
out:
	ep_destroy(&b);
	ep_destroy(&a);
	return status;
}
