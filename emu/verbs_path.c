/* SPDX-License-Identifier: MIT */
/*
 * verbs_path set-up and teardown: device, PD, CQ, RC QPs, registered
 * arenas, and the INIT -> RTR -> RTS transitions. Follows rdma-core's
 * libibverbs/examples/rc_pingpong.c (pp_init_ctx, pp_connect_ctx), with a
 * teardown that keeps going where pp_close_ctx stops at the first error.
 */
#define _GNU_SOURCE
#include "vp_internal.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The GID table of rxe fills asynchronously after `rdma link add`
 * (notes/softroce-vm.md): look for the RoCEv2 IPv4 entry this long. */
#define VP_GID_WAIT_MS 5000

double vp_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

size_t vp_peer_info_size(unsigned nranks)
{
	return sizeof(struct vp_peer_info) + nranks * sizeof(uint32_t);
}

int vp_data_write(struct vp_ctx *c, uint64_t off, const void *host, size_t len)
{
	return c->cfg.mem->copy_in(c->cfg.mem_ctx, (char *)c->gpu + off, host, len);
}

int vp_data_read(struct vp_ctx *c, void *host, uint64_t off, size_t len)
{
	return c->cfg.mem->copy_out(c->cfg.mem_ctx, host, (char *)c->gpu + off, len);
}

int vp_data_copy(struct vp_ctx *c, uint64_t dst, uint64_t src, size_t len)
{
	return c->cfg.mem->copy_dev(c->cfg.mem_ctx, (char *)c->gpu + dst,
				    (char *)c->gpu + src, len);
}

bool vp_aborted(const struct vp_ctx *c)
{
	return c->aborted;
}

const struct records_link *vp_link(const struct vp_ctx *c)
{
	return &c->link;
}

int vp_need_gpu_mr(const struct vp_ctx *c, struct diag *d)
{
	if (c->gpu_mr)
		return 0;
	return diag_set(d, -EOPNOTSUPP,
			"rank %u: a NIC side of this step is on GPU memory, which is not registered: %s",
			c->cfg.rank, c->gpu_reg_err);
}

const char *vp_registration(const struct vp_ctx *c)
{
	return c->reg_how;
}

const char *vp_mem_strerror(const struct vp_mem_ops *m, void *ctx, int err)
{
	const char *s = m->last_error ? m->last_error(ctx) : NULL;

	return s && *s ? s : strerror(-err);
}

/* The kernel may have devices that libibverbs cannot drive: say which. */
static int no_device(struct diag *d)
{
	DIR *dir = opendir("/sys/class/infiniband");
	struct dirent *e;
	char first[sizeof(e->d_name)] = "";

	while (dir && (e = readdir(dir)))
		if (e->d_name[0] != '.' && !first[0])
			snprintf(first, sizeof(first), "%s", e->d_name);
	if (dir)
		closedir(dir);
	if (first[0])
		return diag_set(d, -ENODEV,
				"the kernel has RDMA device %s but libibverbs lists none: is its provider installed? (Debian: ibverbs-providers)",
				first);
	return diag_set(d, -ENODEV,
			"no RDMA device found (SoftRoCE: run through emu/vm/run)");
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The verbs device list, or -ENODEV with the reason when it is empty. */
static int device_list(struct ibv_device ***list, int *n, struct diag *d)
{
	*n = 0;
	*list = ibv_get_device_list(n);
	if (!*list || *n <= 0) {
		if (*list)
			ibv_free_device_list(*list);
		*list = NULL;
		return no_device(d);
	}
	return 0;
}

int vp_list_devices(char ***names, unsigned *count, struct diag *d)
{
	struct ibv_device **list;
	char **out;
	int n, err;

	*names = NULL;
	*count = 0;
	err = device_list(&list, &n, d);
	if (err)
		return err;
	out = calloc((size_t)n, sizeof(*out));
	for (int i = 0; out && i < n; i++) {
		out[i] = strdup(ibv_get_device_name(list[i]));
		if (!out[i]) {
			vp_free_names(out, (unsigned)i);
			out = NULL;
		}
	}
	ibv_free_device_list(list);
	if (!out)
		return diag_set(d, -ENOMEM, "out of memory");
	/* sysfs order is not stable: node i -> device i must be */
	qsort(out, (size_t)n, sizeof(*out), cmp_name);
	*names = out;
	*count = (unsigned)n;
	return 0;
}

void vp_free_names(char **names, unsigned count)
{
	for (unsigned i = 0; names && i < count; i++)
		free(names[i]);
	free(names);
}

static int open_device(struct vp_ctx *c, struct diag *d)
{
	struct ibv_device **list;
	char have[256] = "";
	int n, err;

	err = device_list(&list, &n, d);
	if (err)
		return err;
	for (int i = 0; i < n; i++) {
		const char *name = ibv_get_device_name(list[i]);

		if (!strcmp(name, c->cfg.device)) {
			c->ctx = ibv_open_device(list[i]);
			if (!c->ctx) {
				err = errno ? -errno : -ENODEV;
				ibv_free_device_list(list);
				return diag_set(d, err, "ibv_open_device(%s): %s",
						c->cfg.device, strerror(-err));
			}
			break;
		}
		snprintf(have + strlen(have), sizeof(have) - strlen(have),
			 "%s%s", i ? ", " : "", name);
	}
	ibv_free_device_list(list);
	if (!c->ctx)
		return diag_set(d, -ENODEV, "RDMA device '%s' not found (have: %s)",
				c->cfg.device, have);
	return 0;
}

static bool gid_is_ipv4(const union ibv_gid *g)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(g->raw, prefix, sizeof(prefix));
}

/* NCCL's validGid(): configured (not all zero, not the bare fe80::
 * prefix) and not link-local, whose packets no router forwards. */
static bool gid_routable(const union ibv_gid *g)
{
	static const uint8_t link_local[8] = { 0xfe, 0x80 };
	static const uint8_t zero[16];

	return memcmp(g->raw, zero, sizeof(zero)) &&
	       memcmp(g->raw, link_local, sizeof(link_local));
}

static const char *gid_type_name(enum ibv_gid_type t, bool roce)
{
	if (!roce)
		return "IB";
	return t == IBV_GID_TYPE_ROCE_V2 ? "RoCEv2" : "RoCEv1";
}

static void note_gid(struct vp_ctx *c, const struct ibv_gid_entry *e, bool roce)
{
	c->gid_index = (int)e->gid_index;
	c->link.gid_index = c->gid_index;
	if (!inet_ntop(AF_INET6, e->gid.raw, c->link.gid, sizeof(c->link.gid)))
		c->link.gid[0] = '\0';
	snprintf(c->link.gid_type, sizeof(c->link.gid_type), "%s",
		 gid_type_name(e->gid_type, roce));
}

/*
 * RoCE: the GID the user named (NCCL_IB_GID_INDEX), else NCCL's choice
 * (ncclIbGetGidIndex): a routable RoCEv2 GID of the address family asked
 * for, IPv4 unless NCCL_IB_ADDR_FAMILY=AF_INET6. Looked up by value, not
 * by a fixed index, and waited for: rxe fills its table asynchronously
 * after `rdma link add` (notes/softroce-vm.md). InfiniBand: index 0.
 */
static int find_gid(struct vp_ctx *c, const struct ibv_port_attr *pa,
		    union ibv_gid *gid, struct diag *d)
{
	const struct ib_config *ib = c->cfg.ib;
	bool want_v6 = ib && ib->addr_family == AF_INET6;
	int fixed = ib ? ib->gid_index : -1;
	bool roce = pa->link_layer == IBV_LINK_LAYER_ETHERNET;
	struct ibv_gid_entry e;
	double t0 = vp_now_us();

	if (!roce || fixed >= 0) {
		int i = roce ? fixed : 0;

		if (i >= pa->gid_tbl_len || ibv_query_gid_ex(c->ctx, c->port, (uint32_t)i, &e, 0))
			return diag_set(d, -EADDRNOTAVAIL,
					"%s port %u: GID index %d (NCCL_IB_GID_INDEX) is empty or beyond its table of %d",
					c->cfg.device, c->port, i, pa->gid_tbl_len);
		*gid = e.gid;
		note_gid(c, &e, roce);
		return 0;
	}
	for (;;) {
		for (int i = 0; i < pa->gid_tbl_len; i++) {
			if (ibv_query_gid_ex(c->ctx, c->port, (uint32_t)i, &e, 0))
				continue; /* empty entry: ENODATA */
			if (e.gid_type == IBV_GID_TYPE_ROCE_V2 && gid_routable(&e.gid) &&
			    gid_is_ipv4(&e.gid) != want_v6) {
				*gid = e.gid;
				note_gid(c, &e, roce);
				return 0;
			}
		}
		if (vp_now_us() - t0 > VP_GID_WAIT_MS * 1e3)
			break;
		usleep(50000);
	}
	return diag_set(d, -EADDRNOTAVAIL,
			"%s port %u has no RoCEv2 %s GID after %d s (no %s address on its netdev? NCCL_IB_GID_INDEX picks one by hand)",
			c->cfg.device, c->port, want_v6 ? "IPv6" : "IPv4",
			VP_GID_WAIT_MS / 1000, want_v6 ? "global IPv6" : "IPv4");
}

/*
 * The access every arena is registered with. NCCL registers its buffers,
 * GPU and host, with PCIe relaxed ordering unless
 * NCCL_IB_PCI_RELAXED_ORDERING=0 (net_ib/reg.cc, init.cc
 * ncclIbRelaxedOrderingCapable, v2.30.7-1): a NIC's writes may then pass
 * one another on the way to memory, which on hosts whose root complex
 * orders them strictly is much of GPUDirect's bandwidth. It is an
 * optional flag (IBV_ACCESS_OPTIONAL_RANGE): ibv_reg_mr then goes through
 * ibv_reg_mr_iova2, and a device that cannot honour it ignores it (rxe
 * does). Nothing this side relies on order within a chunk: the
 * completion of the write with immediate that ends it comes after all of
 * its data (IB spec, C9-28), as NCCL relies too.
 */
static int arena_access(const struct vp_ctx *c)
{
	const struct ib_config *ib = c->cfg.ib;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

	if (!ib || ib->relaxed_ordering)
		access |= IBV_ACCESS_RELAXED_ORDERING;
	return access;
}

/* The port asked for (NCCL_IB_HCA's, GDRLAB_IB_PORT), else the first
 * active one; it must exist and be active. */
static int pick_port(struct vp_ctx *c, struct ibv_port_attr *pa,
		     struct diag *d)
{
	const struct ib_config *ib = c->cfg.ib;
	int want = 0;
	struct ibv_device_attr da;
	int ret = ibv_query_device(c->ctx, &da);

	if (ib)
		ib_config_device_ok(ib, c->cfg.device, &want);
	if (ret)
		return diag_set(d, -ret, "ibv_query_device(%s): %s", c->cfg.device,
				strerror(ret));
	if (want > da.phys_port_cnt)
		return diag_set(d, -ENODEV, "%s has %u port%s, no port %d (NCCL_IB_HCA or GDRLAB_IB_PORT)",
				c->cfg.device, da.phys_port_cnt,
				da.phys_port_cnt == 1 ? "" : "s", want);
	for (int p = want ? want : 1; p <= (want ? want : da.phys_port_cnt); p++) {
		ret = ibv_query_port(c->ctx, (uint8_t)p, pa);
		if (ret)
			return diag_set(d, -ret, "ibv_query_port(%s, %d): %s",
					c->cfg.device, p, strerror(ret));
		c->port = (uint8_t)p;
		if (pa->state == IBV_PORT_ACTIVE)
			break;
	}
	if (pa->state != IBV_PORT_ACTIVE)
		return diag_set(d, -ENETDOWN,
				"%s port %u is %s, not active: is its network link up? (ip link)",
				c->cfg.device, c->port, ibv_port_state_str(pa->state));
	snprintf(c->link.device, sizeof(c->link.device), "%s", c->cfg.device);
	c->link.port = c->port;
	c->link.tc = ib ? (unsigned)ib->tc : 0;
	c->link.sl = ib ? (unsigned)ib->sl : 0;
	c->link.relaxed_ordering = (arena_access(c) & IBV_ACCESS_RELAXED_ORDERING) != 0;
	return 0;
}

static int alloc_arenas(struct vp_ctx *c, struct diag *d)
{
	const struct vp_config *cfg = &c->cfg;
	size_t ring = (size_t)cfg->nranks * cfg->slots * cfg->chunk;
	int access = arena_access(c);
	int err;

	c->scratch_off = (cfg->data_bytes + 4095) & ~(size_t)4095;
	c->gpu_len = c->scratch_off + ring;
	err = cfg->mem->alloc(cfg->mem_ctx, c->gpu_len, &c->gpu);
	if (err) {
		c->gpu = NULL;
		return diag_set(d, err, "%s memory: cannot allocate %zu bytes: %s",
				cfg->mem->name, c->gpu_len,
				vp_mem_strerror(cfg->mem, cfg->mem_ctx, err));
	}
	c->host_len = 2 * ring;
	if (cfg->mem->host_alloc) {
		err = cfg->mem->host_alloc(cfg->mem_ctx, c->host_len, &c->host);
	} else {
		err = posix_memalign(&c->host, 4096, c->host_len) ? -ENOMEM : 0;
	}
	if (err) {
		c->host = NULL;
		return diag_set(d, err, "bounce buffers: cannot allocate %zu bytes: %s",
				c->host_len, vp_mem_strerror(cfg->mem, cfg->mem_ctx, err));
	}
	memset(c->host, 0, c->host_len);
	c->reg_how = "host";
	if (cfg->mem->reg_mr) {
		err = cfg->mem->reg_mr(cfg->mem_ctx, c->pd, c->gpu, c->gpu_len, access,
				       &c->gpu_mr, &c->reg_how);
		if (err) {
			c->gpu_mr = NULL;
			err = diag_set(d, err, "registering %zu bytes of %s memory: %s",
				       c->gpu_len, cfg->mem->name,
				       vp_mem_strerror(cfg->mem, cfg->mem_ctx, err));
			if (!cfg->gpu_mr_optional)
				return err;
			/* every NIC side of the plan is staged: the NIC
			 * never touches this memory, so go on without it
			 * (a step that would is refused: vp_need_gpu_mr) */
			snprintf(c->gpu_reg_err, sizeof(c->gpu_reg_err), "%.*s",
				 (int)sizeof(c->gpu_reg_err) - 1, d->msg);
			fprintf(stderr, "gdrlab: rank %u: %s; the plan stages every NIC side, so it runs without\n",
				cfg->rank, d->msg);
			c->reg_how = "none";
		}
	} else {
		c->gpu_mr = ibv_reg_mr(c->pd, c->gpu, c->gpu_len, access);
	}
	if (!c->gpu_mr && !c->gpu_reg_err[0])
		return diag_set(d, errno ? -errno : -EIO, "ibv_reg_mr(%s, %zu bytes): %s",
				cfg->mem->name, c->gpu_len, strerror(errno));
	c->host_mr = ibv_reg_mr(c->pd, c->host, c->host_len, access);
	if (!c->host_mr)
		return diag_set(d, errno ? -errno : -EIO,
				"ibv_reg_mr(bounce, %zu bytes): %s", c->host_len,
				strerror(errno));
	return 0;
}

int vp_post_recv(struct vp_ctx *c, unsigned peer, struct diag *d)
{
	struct ibv_recv_wr wr = { .wr_id = vp_wr_id(VP_WR_RECV, peer) }, *bad;
	int ret = ibv_post_recv(c->qp[peer], &wr, &bad);

	if (ret)
		return diag_set(d, -ret, "rank %u: ibv_post_recv (QP to rank %u): %s",
				c->cfg.rank, peer, strerror(ret));
	return 0;
}

static int create_qps(struct vp_ctx *c, struct vp_peer_info *mine,
		      struct diag *d)
{
	/* data writes in flight (slots), credits, and the unsignaled ones
	 * a signaled completion has not yet retired (post_write) */
	unsigned n = c->cfg.nranks, sq = 3 * c->cfg.slots + 4;

	c->rq_depth = 2 * c->cfg.slots + 4;
	for (unsigned r = 0; r < n; r++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = c->cq, .recv_cq = c->cq,
			.cap = { .max_send_wr = sq, .max_recv_wr = c->rq_depth,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.qp_type = IBV_QPT_RC,
		};
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_INIT, .pkey_index = 0,
			.port_num = c->port,
			.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
		};
		int ret;

		mine->qpn[r] = 0;
		if (r == c->cfg.rank)
			continue;
		/* small writes inline, as perftest's latency tests and NCCL's
		 * IB plugin (NCCL_IB_USE_INLINE) send them: the NIC takes the
		 * bytes from the work request, not by a DMA read of the
		 * buffer; a device that has no inline data gets none */
		ia.cap.max_inline_data = VP_INLINE_MAX;
		c->qp[r] = ibv_create_qp(c->pd, &ia);
		if (!c->qp[r]) {
			ia.cap.max_inline_data = 0;
			c->qp[r] = ibv_create_qp(c->pd, &ia);
		}
		if (!c->qp[r])
			return diag_set(d, errno ? -errno : -EIO,
					"ibv_create_qp(%s): %s", c->cfg.device,
					strerror(errno));
		c->max_inline = ia.cap.max_inline_data; /* every QP alike */
		ret = ibv_modify_qp(c->qp[r], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
		if (ret)
			return diag_set(d, -ret, "ibv_modify_qp(INIT): %s", strerror(ret));
		mine->qpn[r] = c->qp[r]->qp_num;
		/* Receives first: a write-with-immediate that finds none
		 * would wait for RNR retries. */
		for (unsigned i = 0; i < c->rq_depth; i++) {
			ret = vp_post_recv(c, r, d);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int vp_open(struct vp_ctx **out, const struct vp_config *cfg,
	    struct vp_peer_info *mine, struct diag *d)
{
	struct ibv_port_attr pa;
	union ibv_gid gid = { .raw = { 0 } };
	struct vp_ctx *c;
	unsigned n = cfg->nranks;
	int err;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return diag_set(d, -ENOMEM, "out of memory");
	c->cfg = *cfg;
	c->qp = calloc(n, sizeof(*c->qp));
	c->remote = calloc(n, sizeof(*c->remote));
	c->out = calloc(n, sizeof(*c->out));
	c->in = calloc(n, sizeof(*c->in));
	if (!c->qp || !c->remote || !c->out || !c->in) {
		err = diag_set(d, -ENOMEM, "out of memory");
		goto err_close;
	}
	err = open_device(c, d);
	if (err)
		goto err_close;
	err = pick_port(c, &pa, d);
	if (err)
		goto err_close;
	c->mtu = pa.active_mtu;
	if (cfg->chunk > pa.max_msg_sz) {
		err = diag_set(d, -EMSGSIZE,
			       "a chunk of %llu bytes is more than %s port %u carries in one message (max_msg_sz %u): use a smaller --chunk",
			       (unsigned long long)cfg->chunk, cfg->device, c->port,
			       pa.max_msg_sz);
		goto err_close;
	}
	err = find_gid(c, &pa, &gid, d);
	if (err)
		goto err_close;
	c->pd = ibv_alloc_pd(c->ctx);
	if (!c->pd) {
		err = diag_set(d, -EIO, "ibv_alloc_pd(%s): %s", cfg->device,
			       strerror(errno));
		goto err_close;
	}
	c->channel = ibv_create_comp_channel(c->ctx);
	if (!c->channel) {
		err = diag_set(d, -EIO, "ibv_create_comp_channel(%s): %s",
			       cfg->device, strerror(errno));
		goto err_close;
	}
	/* Every QP's sends (data and credits) and receives, all at once. */
	c->cq = ibv_create_cq(c->ctx, (int)(n * (6 * cfg->slots + 12)), NULL,
			      c->channel, 0);
	if (!c->cq) {
		err = diag_set(d, -EIO, "ibv_create_cq(%s): %s", cfg->device,
			       strerror(errno));
		goto err_close;
	}
	err = alloc_arenas(c, d);
	if (!err && cfg->mem->flush_attach && c->gpu_mr) {
		err = cfg->mem->flush_attach(cfg->mem_ctx, c->pd, c->gpu_mr, c->port,
					     c->gid_index, c->link.tc, c->link.sl);
		if (err)
			err = diag_set(d, err, "%s memory: the receive flush's queue pair on %s: %s",
				       cfg->mem->name, cfg->device,
				       vp_mem_strerror(cfg->mem, cfg->mem_ctx, err));
		c->flush_attached = !err;
	}
	if (err)
		goto err_close;
	err = create_qps(c, mine, d);
	if (err)
		goto err_close;
	c->psn = (uint32_t)(cfg->rank * 7919 + 1) & 0xffffff;
	memcpy(mine->gid, gid.raw, sizeof(mine->gid));
	mine->lid = pa.lid;
	mine->mtu = (uint8_t)c->mtu;
	/* RoCE has no LIDs; InfiniBand routes by LID inside a subnet, as
	 * rc_pingpong does without -g */
	mine->global = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
	mine->psn = c->psn;
	mine->gpu_addr = (uintptr_t)c->gpu + c->scratch_off;
	mine->gpu_rkey = c->gpu_mr ? c->gpu_mr->rkey : 0;
	mine->host_addr = (uintptr_t)c->host + c->host_len / 2;
	mine->host_rkey = c->host_mr->rkey;
	*out = c;
	return 0;

err_close:
	vp_close(c);
	return err;
}

/* The smaller of both ports' active MTUs, as NCCL's net_ib and perftest
 * take it: a larger one than the peer's port can receive is dropped. */
static enum ibv_mtu path_mtu(const struct vp_ctx *c,
			     const struct vp_peer_info *peer)
{
	enum ibv_mtu m = (enum ibv_mtu)peer->mtu;

	return m && m < c->mtu ? m : c->mtu;
}

static unsigned mtu_bytes(enum ibv_mtu m)
{
	return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? 128u << m : 0;
}

static int qp_to_rts(struct vp_ctx *c, unsigned r,
		     const struct vp_peer_info *peer, struct diag *d)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = path_mtu(c, peer),
		.dest_qp_num = peer->qpn[c->cfg.rank],
		.rq_psn = peer->psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = peer->global,
			.dlid = peer->lid,
			.port_num = c->port,
		},
	};
	int ret;

	a.ah_attr.sl = (uint8_t)c->link.sl;
	if (peer->global) {
		/* routed RoCEv2 crosses L3 switches: 1 would drop the
		 * packets at the first (NCCL's ncclIbQpRtr: 255) */
		a.ah_attr.grh.hop_limit = 255;
		a.ah_attr.grh.traffic_class = (uint8_t)c->link.tc;
		a.ah_attr.grh.sgid_index = (uint8_t)c->gid_index;
		memcpy(a.ah_attr.grh.dgid.raw, peer->gid, sizeof(peer->gid));
	}
	ret = ibv_modify_qp(c->qp[r], &a,
			    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (peer->global && (ret == ETIMEDOUT || ret == ENETUNREACH || ret == EHOSTUNREACH)) {
		/* RoCE resolves the peer's GID here (its route and MAC): a
		 * bare "Connection timed out" did not say that two devices
		 * on different networks were paired (rxe0 and rxe_lo,
		 * every device being the default) */
		char gid[INET6_ADDRSTRLEN];

		if (!inet_ntop(AF_INET6, peer->gid, gid, sizeof(gid)))
			snprintf(gid, sizeof(gid), "?");
		return diag_set(d, -ret, "rank %u: ibv_modify_qp(RTR, to rank %u): %s: %s (GID %s) cannot reach its GID %s: are both devices on one network? (--devices, NCCL_IB_HCA)",
				c->cfg.rank, r, strerror(ret), c->cfg.device,
				c->link.gid, gid);
	}
	if (ret)
		return diag_set(d, -ret, "rank %u: ibv_modify_qp(RTR, to rank %u): %s",
				c->cfg.rank, r, strerror(ret));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	/* 4.096 us * 2^14 = 67 ms per try, 7 tries: a dead peer or a
	 * link gone down shows as an error in about half a second. */
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = c->psn;
	a.max_rd_atomic = 1;
	ret = ibv_modify_qp(c->qp[r], &a,
			    IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				    IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				    IBV_QP_MAX_QP_RD_ATOMIC);
	if (ret)
		return diag_set(d, -ret, "rank %u: ibv_modify_qp(RTS, to rank %u): %s",
				c->cfg.rank, r, strerror(ret));
	return 0;
}

int vp_connect(struct vp_ctx *c, const struct vp_peer_info *const *all,
	       struct diag *d)
{
	unsigned path = 0;
	int ret;

	for (unsigned r = 0; r < c->cfg.nranks; r++) {
		if (r == c->cfg.rank)
			continue;
		c->remote[r].gpu_addr = all[r]->gpu_addr;
		c->remote[r].gpu_rkey = all[r]->gpu_rkey;
		c->remote[r].host_addr = all[r]->host_addr;
		c->remote[r].host_rkey = all[r]->host_rkey;
		c->out[r].credits = c->cfg.slots;
		ret = qp_to_rts(c, r, all[r], d);
		if (ret)
			return ret;
		if (!path || mtu_bytes(path_mtu(c, all[r])) < path)
			path = mtu_bytes(path_mtu(c, all[r]));
	}
	c->link.mtu = path ? path : mtu_bytes(c->mtu);
	if (ibv_req_notify_cq(c->cq, 0))
		return diag_set(d, -EIO, "ibv_req_notify_cq: %s", strerror(errno));
	return 0;
}

/* A teardown call's failure said: the ibv_destroy_* and ibv_dereg_mr
 * calls return the errno value itself (their man pages: "the value of
 * errno on failure"), ibv_close_device -1 with errno set. */
static void say_teardown(const char *what, int rc)
{
	if (rc)
		fprintf(stderr, "gdrlab: %s: %s\n", what, strerror(rc > 0 ? rc : errno));
}

void vp_close(struct vp_ctx *c)
{
	if (!c)
		return;
	/* its QP lives on our PD and reads our MR: first */
	if (c->flush_attached && c->cfg.mem->flush_detach)
		c->cfg.mem->flush_detach(c->cfg.mem_ctx, c->pd);
	for (unsigned r = 0; c->qp && r < c->cfg.nranks; r++)
		if (c->qp[r])
			say_teardown("ibv_destroy_qp", ibv_destroy_qp(c->qp[r]));
	if (c->host_mr)
		say_teardown("ibv_dereg_mr", ibv_dereg_mr(c->host_mr));
	if (c->gpu_mr)
		say_teardown("ibv_dereg_mr", ibv_dereg_mr(c->gpu_mr));
	if (c->cq)
		say_teardown("ibv_destroy_cq", ibv_destroy_cq(c->cq));
	if (c->channel)
		say_teardown("ibv_destroy_comp_channel", ibv_destroy_comp_channel(c->channel));
	if (c->pd)
		say_teardown("ibv_dealloc_pd", ibv_dealloc_pd(c->pd));
	if (c->ctx)
		say_teardown("ibv_close_device", ibv_close_device(c->ctx));
	if (c->gpu)
		c->cfg.mem->free(c->cfg.mem_ctx, c->gpu, c->gpu_len);
	if (c->host && c->cfg.mem->host_free)
		c->cfg.mem->host_free(c->cfg.mem_ctx, c->host, c->host_len);
	else
		free(c->host);
	free(c->qp);
	free(c->remote);
	free(c->out);
	free(c->in);
	free(c);
}
