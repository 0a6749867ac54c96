/* SPDX-License-Identifier: MIT */
/*
 * ib_config: how a rank addresses the fabric, from the environment, with
 * NCCL's names where NCCL has one (src/transport/net_ib/connect.cc and
 * init.cc, v2.30.7-1), so that a job's NCCL settings carry over:
 *
 *   NCCL_IB_HCA         devices and ports, "mlx5_0:1,mlx5_1:1"; a leading
 *                       '^' excludes them, '=' matches names exactly
 *                       (otherwise by prefix, as NCCL's parseStringList)
 *   NCCL_IB_GID_INDEX   RoCE GID table index; unset: chosen as NCCL does
 *   NCCL_IB_ADDR_FAMILY AF_INET (default) or AF_INET6, for that choice
 *   NCCL_IB_TC          traffic class of RoCE packets (GRH), 0-255
 *   NCCL_IB_SL          service level, 0-15
 *   NCCL_IB_PCI_RELAXED_ORDERING
 *                       0: memory registered without PCIe relaxed
 *                       ordering; 1 or 2 (default): with it, where
 *                       libibverbs offers it (net_ib/init.cc
 *                       ncclIbRelaxedOrderingCapable treats 1 and 2 alike)
 *   GDRLAB_IB_PORT      port of every device without a port in
 *                       NCCL_IB_HCA (NCCL has no such variable); unset:
 *                       the first active port
 *
 * The command line's --ib-* options set these for the ranks it starts.
 * No verbs here: the parsing is tested where no RDMA device exists.
 */
#ifndef GDRLAB_IB_CONFIG_H
#define GDRLAB_IB_CONFIG_H

#include <stdbool.h>

#include "diag.h"

#define IB_HCA_MAX 32

struct ib_hca {
	char name[64];
	int port; /* 0: any */
};

struct ib_config {
	int port;        /* 0: the first active port */
	int gid_index;   /* -1: RoCEv2 of addr_family, as NCCL picks */
	int addr_family; /* AF_INET or AF_INET6 */
	int tc, sl;
	int relaxed_ordering; /* NCCL_IB_PCI_RELAXED_ORDERING, 0-2 */
	/* NCCL_IB_HCA; nhca 0: every device */
	bool hca_exclude, hca_exact;
	unsigned nhca;
	struct ib_hca hca[IB_HCA_MAX];
};

/* The whole-number variables and what they take, one table for the
 * reader and for the command line's --ib-* options. */
struct ib_var {
	const char *env, *what;
	long lo, hi;
};
extern const struct ib_var ib_var_gid_index, ib_var_tc, ib_var_sl, ib_var_port,
	ib_var_relaxed_ordering;

/* Read the environment into @c; a bad value is an error that names the
 * variable and what it takes. */
int ib_config_from_env(struct ib_config *c, struct diag *d);

/*
 * Whether NCCL_IB_HCA lets @device be used, and on which port: *port is
 * the list's port for it, else c->port (0: the first active one).
 */
bool ib_config_device_ok(const struct ib_config *c, const char *device,
			 int *port);

#endif
