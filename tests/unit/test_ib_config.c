/* SPDX-License-Identifier: MIT */
/*
 * ib_config (emu/ib_config.c): NCCL's fabric variables as a rank reads
 * them. Expected values follow NCCL's documented meaning of each variable
 * (docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html): NCCL_IB_HCA
 * matches by prefix unless '=' leads, '^' excludes, ':N' names a port.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ib_config.h"

static const char *const vars[] = {
	"NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "NCCL_IB_TC", "NCCL_IB_SL",
	"NCCL_IB_ADDR_FAMILY", "GDRLAB_IB_PORT", "NCCL_IB_PCI_RELAXED_ORDERING",
};

static void clean(void)
{
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

TestSuite(ib_config, .init = clean, .fini = clean);

Test(ib_config, defaults_when_unset)
{
	struct ib_config c;
	struct diag d = { "" };
	int port = -1;

	cr_assert_eq(ib_config_from_env(&c, &d), 0, "%s", d.msg);
	cr_assert_eq(c.gid_index, -1);
	cr_assert_eq(c.addr_family, AF_INET);
	cr_assert_eq(c.tc, 0);
	cr_assert_eq(c.sl, 0);
	cr_assert_eq(c.port, 0);
	/* NCCL_PARAM(IbPciRelaxedOrdering, ..., 2): on where it can be */
	cr_assert_eq(c.relaxed_ordering, 2);
	cr_assert(ib_config_device_ok(&c, "rxe0", &port));
	cr_assert_eq(port, 0); /* the first active one, found at open */
}

Test(ib_config, values_read)
{
	struct ib_config c;
	struct diag d = { "" };

	setenv("NCCL_IB_GID_INDEX", "3", 1);
	setenv("NCCL_IB_TC", "106", 1);
	setenv("NCCL_IB_SL", "5", 1);
	setenv("NCCL_IB_ADDR_FAMILY", "AF_INET6", 1);
	setenv("GDRLAB_IB_PORT", "2", 1);
	setenv("NCCL_IB_PCI_RELAXED_ORDERING", "0", 1);
	cr_assert_eq(ib_config_from_env(&c, &d), 0, "%s", d.msg);
	cr_assert_eq(c.relaxed_ordering, 0);
	cr_assert_eq(c.gid_index, 3);
	cr_assert_eq(c.tc, 106);
	cr_assert_eq(c.sl, 5);
	cr_assert_eq(c.addr_family, AF_INET6);
	cr_assert_eq(c.port, 2);
}

Test(ib_config, hca_prefix_and_ports)
{
	struct ib_config c;
	struct diag d = { "" };
	int port;

	setenv("NCCL_IB_HCA", "mlx5_0:1,mlx5_1", 1);
	setenv("GDRLAB_IB_PORT", "2", 1);
	cr_assert_eq(ib_config_from_env(&c, &d), 0, "%s", d.msg);
	cr_assert_eq(c.nhca, 2);
	cr_assert(ib_config_device_ok(&c, "mlx5_0", &port));
	cr_assert_eq(port, 1); /* the list's port wins */
	cr_assert(ib_config_device_ok(&c, "mlx5_1", &port));
	cr_assert_eq(port, 2); /* none in the list: GDRLAB_IB_PORT */
	/* by prefix: mlx5_1 also names mlx5_10 */
	cr_assert(ib_config_device_ok(&c, "mlx5_10", &port));
	cr_assert_not(ib_config_device_ok(&c, "mlx5_2", &port));
	cr_assert_not(ib_config_device_ok(&c, "rxe0", &port));
}

Test(ib_config, hca_exact_and_exclude)
{
	struct ib_config c;
	struct diag d = { "" };
	int port;

	setenv("NCCL_IB_HCA", "=mlx5_1", 1);
	cr_assert_eq(ib_config_from_env(&c, &d), 0, "%s", d.msg);
	cr_assert(ib_config_device_ok(&c, "mlx5_1", &port));
	cr_assert_not(ib_config_device_ok(&c, "mlx5_10", &port));

	setenv("NCCL_IB_HCA", "^rxe1", 1);
	cr_assert_eq(ib_config_from_env(&c, &d), 0, "%s", d.msg);
	cr_assert(ib_config_device_ok(&c, "rxe0", &port));
	cr_assert_not(ib_config_device_ok(&c, "rxe1", &port));

	/* '^' before '=', as NCCL reads them */
	setenv("NCCL_IB_HCA", "^=rxe1", 1);
	cr_assert_eq(ib_config_from_env(&c, &d), 0, "%s", d.msg);
	cr_assert(c.hca_exclude && c.hca_exact);
	cr_assert(ib_config_device_ok(&c, "rxe10", &port));
	cr_assert_not(ib_config_device_ok(&c, "rxe1", &port));
}

struct bad {
	const char *var, *value, *says;
};

Test(ib_config, bad_values_name_the_variable)
{
	static const struct bad cases[] = {
		{ "NCCL_IB_GID_INDEX", "x", "NCCL_IB_GID_INDEX=x: expected a GID table index, a whole number from 0 to 255" },
		{ "NCCL_IB_GID_INDEX", "256", "NCCL_IB_GID_INDEX=256: expected" },
		{ "NCCL_IB_GID_INDEX", "-1", "NCCL_IB_GID_INDEX=-1: expected" },
		{ "NCCL_IB_TC", "3.5", "NCCL_IB_TC=3.5: expected a traffic class" },
		{ "NCCL_IB_SL", "16", "NCCL_IB_SL=16: expected a service level, a whole number from 0 to 15" },
		{ "NCCL_IB_PCI_RELAXED_ORDERING", "3", "NCCL_IB_PCI_RELAXED_ORDERING=3: expected 0 (off), 1 or 2 (on where libibverbs has it), a whole number from 0 to 2" },
		{ "GDRLAB_IB_PORT", "0", "GDRLAB_IB_PORT=0: expected a port number, a whole number from 1 to 255" },
		{ "NCCL_IB_ADDR_FAMILY", "inet", "NCCL_IB_ADDR_FAMILY=inet: expected AF_INET or AF_INET6" },
		{ "NCCL_IB_HCA", "mlx5_0:0", "NCCL_IB_HCA: 'mlx5_0:0': expected device:port, a port from 1 to 255" },
		{ "NCCL_IB_HCA", "mlx5_0:", "NCCL_IB_HCA: 'mlx5_0:': expected device:port" },
		{ "NCCL_IB_HCA", ":1", "NCCL_IB_HCA: ':1' is not a device name" },
		{ "NCCL_IB_HCA", "^", "NCCL_IB_HCA names no device" },
		{ "NCCL_IB_HCA", "^mlx5_0:1", "excluding one port of a device is not supported" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ib_config c;
		struct diag d = { "" };

		clean();
		setenv(cases[i].var, cases[i].value, 1);
		cr_expect_lt(ib_config_from_env(&c, &d), 0, "%s=%s accepted",
			     cases[i].var, cases[i].value);
		cr_expect(strstr(d.msg, cases[i].says), "%s=%s: got '%s'",
			  cases[i].var, cases[i].value, d.msg);
	}
}
