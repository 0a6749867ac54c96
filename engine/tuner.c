/* SPDX-License-Identifier: MIT */
#include "tuner.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gdr_policy.h"
#include "search_loads.h"

/* NCCL_SIMPLE_MAX_NTHREADS etc. (src/include/device.h): threads a
 * channel runs per algorithm and protocol, and PCI_BW (topo.h). */
#define NCCL_MAX_NTHREADS 640
#define PCI_BW 12.0
/* NCCL_P2P_LL_THRESHOLD */
#define P2P_LL_THRESHOLD 16384

void tune_enable_default(struct tune_enable *e)
{
	for (unsigned o = 0; o < TRACE_OP_COUNT; o++) {
		for (unsigned a = 0; a < ALGO_NCCL_COUNT; a++)
			e->algo[o][a] = true;
		for (unsigned p = 0; p < PROTO_COUNT; p++)
			e->proto[o][p] = p == PROTO_LL128 ? 2 : 1;
	}
}

/* NCCL's function names as NCCL_ALGO prefixes take them, and ours;
 * Reduce, which gdrlab does not time, as TRACE_OP_COUNT. */
static int op_prefix(const char *s, size_t len, enum trace_op *op)
{
	static const struct {
		const char *name;
		enum trace_op op;
	} names[] = {
		{ "allreduce", TRACE_OP_ALLREDUCE },
		{ "allgather", TRACE_OP_ALL_GATHER },
		{ "all_gather", TRACE_OP_ALL_GATHER },
		{ "reducescatter", TRACE_OP_REDUCE_SCATTER },
		{ "reduce_scatter", TRACE_OP_REDUCE_SCATTER },
		{ "broadcast", TRACE_OP_BROADCAST },
		{ "reduce", TRACE_OP_COUNT },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == len && !strncasecmp(s, names[i].name, len)) {
			*op = names[i].op;
			return 0;
		}
	return -EINVAL;
}

/* Set one element by name in the rows @ops of @e. */
static int set_elem(struct tune_enable *e, bool proto, const bool *ops,
		    const char *name, int value)
{
	enum algo_id a;
	enum proto_id p;

	if (proto ? proto_parse(name, &p) : algo_parse(name, &a))
		return -EINVAL;
	for (unsigned o = 0; o < TRACE_OP_COUNT; o++) {
		if (!ops[o])
			continue;
		if (proto)
			e->proto[o][p] = value;
		else
			e->algo[o][a] = value;
	}
	return 0;
}

/* One "prefix:list" of NCCL_ALGO or NCCL_PROTO. */
static int parse_entry(struct tune_enable *e, bool proto, const char *opt,
		       char *entry, bool first, struct diag *d)
{
	char *colon = strchr(entry, ':'), *list = entry, *tok, *save;
	bool ops[TRACE_OP_COUNT];
	char shown[64];
	int on = 1;

	for (unsigned o = 0; o < TRACE_OP_COUNT; o++)
		ops[o] = true;
	if (colon) {
		enum trace_op op;

		if (op_prefix(entry, (size_t)(colon - entry), &op)) {
			*colon = '\0'; /* the name alone, quoted safely */
			return diag_set(d, -EINVAL, "%s: unknown collective '%s' (allreduce, allgather, reducescatter, broadcast, reduce)",
					opt, diag_printable(entry, shown, sizeof(shown)));
		}
		for (unsigned o = 0; o < TRACE_OP_COUNT; o++)
			ops[o] = o == op;
		list = colon + 1;
	} else if (!first) {
		return diag_set(d, -EINVAL, "%s: every list after the first needs a 'collective:' prefix, got '%s'",
				opt, diag_printable(entry, shown, sizeof(shown)));
	}
	if (*list == '^') {
		on = 0;
		list++;
	}
	/* Those named get @on, the others of these ops the opposite. */
	for (unsigned o = 0; o < TRACE_OP_COUNT; o++) {
		if (!ops[o])
			continue;
		for (unsigned i = 0; !proto && i < ALGO_NCCL_COUNT; i++)
			e->algo[o][i] = !on;
		for (unsigned i = 0; proto && i < PROTO_COUNT; i++)
			e->proto[o][i] = !on;
	}
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		/* NCCL compares each name whole (strcasecmp): before 2.24 a
		 * name with a space matches nothing and is dropped, from 2.24
		 * on it fails NCCL's init */
		if (isspace((unsigned char)tok[0]) || isspace((unsigned char)tok[strlen(tok) - 1]))
			return diag_set(d, -EINVAL, "%s: '%s' has a space, which NCCL takes as part of the name (no such %s): write the list without spaces",
					opt, diag_printable(tok, shown, sizeof(shown)),
					proto ? "protocol" : "algorithm");
		if (set_elem(e, proto, ops, tok, on))
			return diag_set(d, -EINVAL, proto ?
					"%s: unknown protocol '%s' (LL, LL128, Simple)" :
					"%s: unknown algorithm '%s' (Tree, Ring, CollnetDirect, CollnetChain, NVLS, NVLSTree, PAT)",
					opt, diag_printable(tok, shown, sizeof(shown)));
	}
	return 0;
}

static int parse_spec(struct tune_enable *e, bool proto, const char *opt,
		      const char *spec, struct diag *d)
{
	char *copy, *entry, *save;
	bool first = true;
	int err = 0;

	if (!spec)
		return 0;
	if (!*spec)
		return diag_set(d, -EINVAL, "%s: empty list", opt);
	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	for (entry = strtok_r(copy, ";", &save); entry && !err;
	     entry = strtok_r(NULL, ";", &save), first = false)
		err = parse_entry(e, proto, opt, entry, first, d);
	free(copy);
	return err;
}

int tune_enable_parse(struct tune_enable *e, const char *algo,
		      const char *proto, struct diag *d)
{
	int err = parse_spec(e, false, "--algo", algo, d);

	return err ? err : parse_spec(e, true, "--proto", proto, d);
}

/*
 * Whether the @n GPUs of a communicator of @ppn a node on its first node
 * (@ranks' first @n, or the node's first GPUs where @ranks is NULL) read
 * and write GPU memory at the NICs graph @g's channels give them: each at
 * its own, or through a PXN relay where the communicator has a peer on
 * the node to relay through (NCCL judges each rank's GPUDirect RDMA by
 * its GPU and NIC: transport/net.cc).
 */
static bool network_gdr(const struct plan *p, const struct nccl_graph *g, const unsigned *ranks,
			unsigned n, unsigned ppn)
{
	if (p->opts.path == PLAN_PATH_STAGED || p->opts.path == PLAN_PATH_STAGED_MEMCPY)
		return false;
	for (unsigned i = 0; i < n; i++) {
		unsigned gpu = (ranks ? ranks[i] : i) % p->gpus_per_node;

		for (unsigned c = 0; c < p->topo.nnics || c == 0; c++) {
			int nic = channels_graph_nic(&p->topo, g, gpu, ppn, c);

			if (nic < 0)
				return false;
			if (!gdr_allowed(&p->topo, (int)gpu, nic, p->opts.gdr_level, NULL, 0) &&
			    (!plan_pxn_for(p, ppn) ||
			     gdr_pxn_relay(&p->topo, (int)gpu, nic, p->opts.gdr_level) < 0))
				return false;
		}
	}
	return true;
}

static void search_cached(const struct plan *p, unsigned nnodes, unsigned ppn,
			  struct channels_cache *cache, struct nccl_channels *out)
{
	struct search_env env = { plan_uses_pxn(p), p->opts.gdr_level, p->opts.p2p_level };

	for (unsigned i = 0; cache && i < cache->n; i++)
		if (cache->e[i].nnodes == nnodes && cache->e[i].ppn == ppn) {
			*out = cache->e[i].ch;
			return;
		}
	channels_search(p->nccl, &env, &p->topo, nnodes, ppn, out);
	if (cache && cache->n < sizeof(cache->e) / sizeof(cache->e[0])) {
		cache->e[cache->n].nnodes = nnodes;
		cache->e[cache->n].ppn = ppn;
		cache->e[cache->n++].ch = *out;
	}
}

/* @out, searched for @nnodes x @ppn, as NCCL logs it. Without GPUDirect
 * RDMA NCCL routes a GPU's NIC path through its CPU (paths.cc,
 * v2.21.5-1:626-635): its graphs' typeInter is PHB at least, as the
 * tuner's LL128 rule already takes it. */
static void as_logged(unsigned nnodes, bool net_gdr, struct nccl_channels *out)
{
	struct nccl_graph *g[] = { &out->ring, &out->tree, &out->nvls };

	if (nnodes < 2 || net_gdr)
		return;
	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++)
		if (g[i]->type_inter < TOPO_PATH_PHB)
			g[i]->type_inter = TOPO_PATH_PHB;
}

void tune_world_graphs(const struct plan *p, struct nccl_channels *out)
{
	search_cached(p, p->nodes, p->gpus_per_node, NULL, out);
	as_logged(p->nodes, p->nodes > 1 && network_gdr(p, &out->ring, NULL, p->gpus_per_node,
						      p->gpus_per_node),
		  out);
}

void tune_group_graphs(const struct plan *p, const unsigned *ranks, unsigned n,
		       struct nccl_channels *out)
{
	struct tune_ctx t;

	/* the group's nodes, GPUs a node and graphs, searched once */
	tune_ctx_init(&t, p, TRACE_OP_ALLREDUCE, ranks, n, NULL);
	*out = t.ch;
	as_logged(t.nnodes, t.net_gdr, out);
}

void tune_ctx_init(struct tune_ctx *t, const struct plan *p, enum trace_op op,
		   const unsigned *ranks, unsigned n, struct channels_cache *cache)
{
	unsigned most = 0, first = 0;

	memset(t, 0, sizeof(*t));
	t->p = p;
	t->op = op;
	t->nranks = n;
	t->regular = true;
	for (unsigned i = 0; i < n;) {
		unsigned node = plan_node_of(p, ranks[i]), j = i;

		while (j < n && plan_node_of(p, ranks[j]) == node)
			j++;
		if (!t->nnodes)
			first = j - i;
		if (t->nnodes && j - i != most)
			t->regular = false;
		if (j - i > most)
			most = j - i;
		t->nnodes++;
		i = j;
	}
	t->ppn = t->regular && t->nnodes ? n / t->nnodes : most;
	search_cached(p, t->nnodes, t->ppn, cache, &t->ch);
	t->net_gdr = t->nnodes > 1 && network_gdr(p, &t->ch.ring, ranks, first, t->ppn);
	t->in_network = p->topo.fabric.in_network_reduction;
	if (op == TRACE_OP_SENDRECV || op == TRACE_OP_ALLTOALL)
		p2p_budget_init(&t->p2p, p, ranks, n, t->nnodes,
				p->opts.nchannels ? p->opts.nchannels : t->ch.comm_channels);
}

/* tuning.cc: LL128 by default only where NCCL has validated it; where
 * not, false and why in @why. */
static bool ll128_default(const struct tune_ctx *t, char *why, size_t len)
{
	const struct nccl_channels *ch = &t->ch;
	bool hopper = t->p->topo.gpu_arch >= TOPO_GPU_HOPPER;
	enum topo_path_type farthest = hopper && t->p->nccl->ll128_hopper_p2c ? TOPO_PATH_P2C :
										  TOPO_PATH_PXB;
	unsigned cc = topo_gpu_cc(&t->p->topo);

	/* before 2.27 a switch on the compute capability itself (2.8.4:
	 * 70 or 80; 2.19.3 - 2.26: case 70, 80, 90): 8.6 and 8.9 are
	 * Ampere's tables without its LL128 (v2.25.1-1 tuning.cc:430-436;
	 * 2.27 takes any from 7.0, v2.27.3-1:463) */
	if (plan_nccl_minor(t->p) < 27 && cc % 10) {
		snprintf(why, len, "NCCL before 2.27 enables LL128 on compute capabilities 7.0, 8.0 and 9.0 alone, not %u.%u",
			 cc / 10, cc % 10);
		return false;
	}
	if (t->ppn > 1 && !ch->ring.nvlink && !ch->ring.nvb)
		goto refused; /* typeIntra <= PATH_NVB */
	if (t->nnodes > 1 && (ch->ring.type_inter > farthest || !t->net_gdr))
		goto refused; /* typeInter <= PXB, or P2C on Hopper+ (2.27 on) */
	if (t->nnodes > 1 && ch->ring.pxn && !hopper)
		goto refused; /* PATH_PXN on Hopper and later only */
	if (t->p->nccl->ll128_volta_ampere_only && t->p->topo.gpu_arch != TOPO_GPU_VOLTA &&
	    t->p->topo.gpu_arch != TOPO_GPU_AMPERE)
		goto refused;
	if (t->p->nccl->newest_gpu_hopper && t->p->topo.gpu_arch > TOPO_GPU_HOPPER)
		goto refused; /* 2.19.3: case 70, 80, 90 */
	return true;
refused:
	snprintf(why, len, "NCCL enables LL128 only with NVLink inside nodes and GPUDirect RDMA within PXB (P2C on Hopper from 2.27)");
	return false;
}

/*
 * enqueue.cc: nvlsSupport needs ncclNvlsSupported(op, type) but for an
 * all-gather (v2.30.7-1:425-426; include/device.h:587-601, in step with
 * the kernels generate.py builds): sums of 32- and 64-bit integers and
 * floats, fp16 and bf16, and min/max of all but the 32- and 64-bit
 * floats; no 8-bit type, which a trace's int8 stands for (int8, uint8,
 * fp8). A product is ncclDevProd, an average a sum after a
 * multiplication (ncclDevPreMulSum for floats, ncclDevSumPostDiv for
 * integers: hostToDevRedOp), neither of which the switch does. A trace's
 * fp32 and fp64 stand for 32- and 64-bit integers too (nccl-tests' int32
 * and int64 are timed as their sizes' floats), whose min/max the switch
 * would reduce: refused here.
 */
static bool nvls_reduces(enum trace_redop op, enum trace_dtype type, char *why, size_t len)
{
	if (type == TRACE_DTYPE_INT8) {
		snprintf(why, len, "NVLS does not reduce 8-bit types (int8, uint8, fp8)");
		return false;
	}
	if (op == TRACE_REDOP_SUM)
		return true;
	if ((op == TRACE_REDOP_MIN || op == TRACE_REDOP_MAX) &&
	    (type == TRACE_DTYPE_FP16 || type == TRACE_DTYPE_BF16))
		return true;
	snprintf(why, len, "NVLS does not reduce a %s of %s (ncclNvlsSupported)",
		 trace_redop_name(op), trace_dtype_name(type));
	return false;
}

/*
 * NCCL 2.24 and later make a ring of fp8 on more than 8 ranks the last
 * choice: its reduction's rounding compounds with the ring's depth, so
 * the table's entry is multiplied by 1024, "any factor large enough to
 * act as a partition between lossy and non-lossy algos" (v2.24.3-1
 * enqueue.cc:1606-1611, v2.30.7-1:2015-2020, for every collective of an
 * fp8 type). Its estimate (the TUNING lines) carries the factor too.
 */
#define FP8_RING_FACTOR 1024.0

static bool fp8_relegated(const struct tune_ctx *t, enum algo_id a)
{
	return a == ALGO_RING && t->p->opts.fp8 && t->dtype == TRACE_DTYPE_INT8 &&
	       t->nranks > 8 && plan_nccl_minor(t->p) >= 24;
}

double tune_entry(const struct tune_ctx *t, const struct tune_enable *e,
		  enum algo_id a, enum proto_id p, uint64_t bytes, char *why,
		  size_t len)
{
	const struct algo_ops *ops = algo_table[a];
	double lat, bw;

	why[0] = '\0';
	if (!algo_serves(a, t->op)) {
		snprintf(why, len, "does not run %s", trace_op_name(t->op));
		return -1;
	}
	if (!t->p->nccl->has[a]) {
		snprintf(why, len, "not in NCCL %s", t->p->nccl->version);
		return -1;
	}
	if (!e->algo[t->op][a] || !e->proto[t->op][p]) {
		snprintf(why, len, "disabled by --%s", e->algo[t->op][a] ? "proto" : "algo");
		return -1;
	}
	if (a != ALGO_RING && !t->regular) {
		snprintf(why, len, "needs the same number of ranks on every node");
		return -1;
	}
	if ((a == ALGO_NVLS || a == ALGO_NVLS_TREE) && t->op != TRACE_OP_ALL_GATHER &&
	    !nvls_reduces(t->redop, t->dtype, why, len))
		return -1;
	/* enqueue.cc "Tree reduceScatter doesn't support scaling yet": no PAT
	 * for ncclDevPreMulSum or ncclDevSumPostDiv, which an average of any
	 * type is (hostToDevRedOp; v2.23.4-1:1798-1800, v2.30.7-1:2009-2012) */
	if (a == ALGO_PAT && t->op == TRACE_OP_REDUCE_SCATTER && t->redop == TRACE_REDOP_AVG) {
		snprintf(why, len, "NCCL's PAT reduce-scatter does not scale: no average");
		return -1;
	}
	if (p == PROTO_LL128 && e->proto[t->op][p] == 2 && !ll128_default(t, why, len))
		return -1;
	ops->cost(t, p, &lat, &bw, why, len);
	if (bw <= 0) {
		if (!why[0])
			snprintf(why, len, "not available here");
		return -1;
	}
	if (ops->refine)
		ops->refine(t, p, bytes, t->ch.comm_channels, &lat, &bw);
	return (lat + bytes / (1000.0 * bw)) * (fp8_relegated(t, a) ? FP8_RING_FACTOR : 1);
}

/* topoGetAlgoInfo: threads a channel runs for the choice. */
static unsigned max_threads(const struct tune_ctx *t, enum algo_id a,
			    enum proto_id p)
{
	if (a != ALGO_RING && a != ALGO_TREE)
		return NCCL_MAX_NTHREADS;
	if (p == PROTO_SIMPLE && a == ALGO_RING &&
	    t->ch.ring.bw_intra * t->ch.ring.nchannels <= PCI_BW)
		return 256;
	return proto_get(p)->max_threads;
}

static unsigned call_channels(const struct tune_ctx *t, enum algo_id a,
			      enum proto_id p, uint64_t bytes)
{
	unsigned nc = t->ch.comm_channels, nt = max_threads(t, a, p);
	uint64_t thr = proto_get(p)->thread_threshold;

	if (a == ALGO_NVLS || a == ALGO_NVLS_TREE)
		return t->ch.nvls_channels;
	if (a == ALGO_RING && p == PROTO_LL)
		thr *= t->nranks;
	if (a == ALGO_COLLNET_DIRECT || a == ALGO_COLLNET_CHAIN)
		thr = 512;
	while (bytes < (uint64_t)nc * nt * thr && nc >= 2)
		nc--;
	return nc;
}

/*
 * Send/receive and alltoall: NCCL's p2p path over the communicator's p2p
 * channels, each send to a peer cut into parts (p2p_schedule.h). LL for a
 * small send of at most NCCL_P2P_LL_THRESHOLD a part where its
 * connections have LL buffers: not over the network, whose p2p
 * connections get none (NCCL_ALLOC_P2P_NET_LL_BUFFERS=0, net.cc since
 * 2.14), and not before 2.14, which had no p2p LL (v2.12.12-1's enqueue.cc
 * has no NCCL_P2P_LL_THRESHOLD). An alltoall with a peer on another node
 * is Simple: its slowest sends are.
 */
static int choose_p2p(const struct tune_ctx *t, uint64_t bytes,
		      struct tune_choice *c)
{
	const struct plan *p = t->p;
	uint64_t per_peer = t->op == TRACE_OP_ALLTOALL && t->nranks ? bytes / t->nranks : bytes;
	bool network = algo_p2p_network(p, t->op, t->nnodes, t->src, t->dst);

	c->algo = ALGO_P2P;
	c->estimate_us = NAN;
	c->nchannels = t->p2p.channels;
	c->parts = p2p_parts(&t->p2p, per_peer);
	c->proto = !network && plan_nccl_minor(p) >= 14 && !p->opts.ring_only &&
				   per_peer <= (uint64_t)c->parts * P2P_LL_THRESHOLD ?
			   PROTO_LL :
			   PROTO_SIMPLE;
	return 0;
}

static int choose(const struct tune_ctx *t, const struct tune_enable *e,
		  uint64_t bytes, struct tune_choice *c, struct diag *d)
{
	const struct plan *p = t->p;
	double best = INFINITY;
	char why[200], refused[256] = "";
	int refused_algo = -1, refused_proto = -1;

	memset(c, 0, sizeof(*c));
	if (t->op == TRACE_OP_SENDRECV || t->op == TRACE_OP_ALLTOALL)
		return choose_p2p(t, bytes, c);
	if (p->opts.ring_only) {
		/* The backend runs one ring of its own (emu, real). */
		c->algo = ALGO_RING;
		c->proto = PROTO_SIMPLE;
		c->nchannels = 1;
		c->estimate_us = tune_entry(t, e, ALGO_RING, PROTO_SIMPLE, bytes, why,
					    sizeof(why));
		return 0;
	}
	for (unsigned a = 0; a < ALGO_NCCL_COUNT; a++)
		for (unsigned pr = 0; pr < PROTO_COUNT; pr++) {
			double time = tune_entry(t, e, a, pr, bytes, why, sizeof(why));

			if (time >= 0 && time < best) {
				best = time;
				c->algo = a;
				c->proto = pr;
			} else if (time < 0 && e->algo[t->op][a] && e->proto[t->op][pr]) {
				/* the last the flags allow (Simple, where a
				 * protocol is not the reason): why not, said
				 * below if nothing runs (formatted for every
				 * call, it was 6% of a 2048-GPU trace's plan) */
				refused_algo = (int)a;
				refused_proto = (int)pr;
			}
		}
	if (!isfinite(best) && refused_algo >= 0) {
		tune_entry(t, e, (enum algo_id)refused_algo, (enum proto_id)refused_proto, bytes,
			   why, sizeof(why));
		snprintf(refused, sizeof(refused), " (%s/%s: %s)",
			 algo_name((enum algo_id)refused_algo),
			 proto_name((enum proto_id)refused_proto), why);
	}
	if (!isfinite(best))
		return diag_set(d, -EINVAL,
				"--algo/--proto allow no algorithm and protocol that can run %s here%s",
				trace_op_name(t->op), refused);
	c->estimate_us = best;
	c->nchannels = p->opts.nchannels ? p->opts.nchannels :
					   call_channels(t, c->algo, c->proto, bytes);
	return 0;
}

int tune_choose(const struct tune_ctx *t, const struct tune_enable *e,
		uint64_t bytes, struct tune_choice *c, struct diag *d)
{
	/*
	 * A collective of one rank is a local copy (ncclLaunchOneRank),
	 * whatever NCCL_ALGO and NCCL_PROTO say: NCCL's cost table for it
	 * holds Ring/Simple alone, at 0 (enqueue.cc updateCollCostTable,
	 * nRanks == 1), so that is its choice, on one channel, with no
	 * estimate of NCCL's to give, as for p2p.
	 */
	if (t->nranks == 1 && t->op != TRACE_OP_SENDRECV && t->op != TRACE_OP_ALLTOALL) {
		memset(c, 0, sizeof(*c));
		c->algo = ALGO_RING;
		c->proto = PROTO_SIMPLE;
		c->nchannels = 1;
		c->estimate_us = NAN;
		return 0;
	}
	return choose(t, e, bytes, c, d);
}
