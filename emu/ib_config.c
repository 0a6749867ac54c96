/* SPDX-License-Identifier: MIT */
#include "ib_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

const struct ib_var ib_var_gid_index = { "NCCL_IB_GID_INDEX", "a GID table index", 0, 255 };
const struct ib_var ib_var_tc = { "NCCL_IB_TC", "a traffic class", 0, 255 };
const struct ib_var ib_var_sl = { "NCCL_IB_SL", "a service level", 0, 15 };
const struct ib_var ib_var_port = { "GDRLAB_IB_PORT", "a port number", 1, 255 };
const struct ib_var ib_var_relaxed_ordering = { "NCCL_IB_PCI_RELAXED_ORDERING",
						"0 (off), 1 or 2 (on where libibverbs has it)",
						0, 2 };

/* @var's whole number into *v; unset or empty leaves *v. */
static int env_int(const struct ib_var *var, int *v, struct diag *d)
{
	const char *name = var->env, *what = var->what;
	long lo = var->lo, hi = var->hi;
	const char *s = getenv(name);
	char *end;
	long x;

	if (!s || !*s)
		return 0;
	errno = 0;
	x = strtol(s, &end, 10);
	if (errno || *end || end == s || x < lo || x > hi)
		return diag_set(d, -EINVAL, "%s=%s: expected %s, a whole number from %ld to %ld",
				name, s, what, lo, hi);
	*v = (int)x;
	return 0;
}

static int addr_family(struct ib_config *c, struct diag *d)
{
	const char *s = getenv("NCCL_IB_ADDR_FAMILY");

	if (!s || !*s)
		return 0;
	if (!strcmp(s, "AF_INET")) {
		c->addr_family = AF_INET;
	} else if (!strcmp(s, "AF_INET6")) {
		c->addr_family = AF_INET6;
	} else {
		/* NCCL ignores anything else silently; say it instead */
		return diag_set(d, -EINVAL, "NCCL_IB_ADDR_FAMILY=%s: expected AF_INET or AF_INET6", s);
	}
	return 0;
}

/* One "name[:port]" of NCCL_IB_HCA. */
static int hca_entry(struct ib_config *c, const char *tok, struct diag *d)
{
	const char *colon = strchr(tok, ':');
	size_t len = colon ? (size_t)(colon - tok) : strlen(tok);
	struct ib_hca *h;

	if (c->nhca == IB_HCA_MAX)
		return diag_set(d, -E2BIG, "NCCL_IB_HCA: more than %d devices", IB_HCA_MAX);
	h = &c->hca[c->nhca];
	if (!len || len >= sizeof(h->name))
		return diag_set(d, -EINVAL, "NCCL_IB_HCA: '%s' is not a device name", tok);
	memcpy(h->name, tok, len);
	h->name[len] = '\0';
	h->port = 0;
	if (colon) {
		char *end;
		long p = strtol(colon + 1, &end, 10);

		if (*end || end == colon + 1 || p < 1 || p > 255)
			return diag_set(d, -EINVAL,
					"NCCL_IB_HCA: '%s': expected device:port, a port from 1 to 255",
					tok);
		h->port = (int)p;
	}
	c->nhca++;
	return 0;
}

static int hca_list(struct ib_config *c, struct diag *d)
{
	const char *s = getenv("NCCL_IB_HCA");
	char *copy, *tok, *save = NULL;
	int err = 0;

	if (!s || !*s)
		return 0;
	/* the order NCCL reads them in: '^' first, then '=' */
	if (*s == '^') {
		c->hca_exclude = true;
		s++;
	}
	if (*s == '=') {
		c->hca_exact = true;
		s++;
	}
	copy = strdup(s);
	if (!copy)
		return diag_set(d, -ENOMEM, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && !err;
	     tok = strtok_r(NULL, ",", &save))
		err = hca_entry(c, tok, d);
	free(copy);
	if (!err && !c->nhca)
		err = diag_set(d, -EINVAL, "NCCL_IB_HCA names no device");
	/* NCCL would leave out that one port; gdrlab uses one port per
	 * device and would have to guess another */
	for (unsigned i = 0; !err && c->hca_exclude && i < c->nhca; i++)
		if (c->hca[i].port)
			err = diag_set(d, -EINVAL,
				       "NCCL_IB_HCA=^...%s:%d: excluding one port of a device is not supported (leave the port out, or list the ports to use)",
				       c->hca[i].name, c->hca[i].port);
	return err;
}

int ib_config_from_env(struct ib_config *c, struct diag *d)
{
	int err;

	memset(c, 0, sizeof(*c));
	c->gid_index = -1;
	c->addr_family = AF_INET;
	c->relaxed_ordering = 2; /* NCCL's default (net_ib/init.cc) */
	err = env_int(&ib_var_gid_index, &c->gid_index, d);
	if (!err)
		err = env_int(&ib_var_tc, &c->tc, d);
	if (!err)
		err = env_int(&ib_var_sl, &c->sl, d);
	if (!err)
		err = env_int(&ib_var_port, &c->port, d);
	if (!err)
		err = env_int(&ib_var_relaxed_ordering, &c->relaxed_ordering, d);
	if (!err)
		err = addr_family(c, d);
	if (!err)
		err = hca_list(c, d);
	return err;
}

bool ib_config_device_ok(const struct ib_config *c, const char *device,
			 int *port)
{
	bool listed = false;

	*port = c->port;
	if (!c->nhca)
		return true;
	for (unsigned i = 0; i < c->nhca && !listed; i++) {
		const struct ib_hca *h = &c->hca[i];

		listed = c->hca_exact ? !strcmp(device, h->name) :
					!strncmp(device, h->name, strlen(h->name));
		if (listed && h->port && !c->hca_exclude)
			*port = h->port;
	}
	return listed != c->hca_exclude;
}
