/* SPDX-License-Identifier: MIT */
#include "emu_memory.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives.h"

/* An allowance for a rank process before its buffers (libc, libibverbs
 * and its provider, the queue pairs' rings): a few MiB, with headroom. */
#define EMU_RANK_BASE (16ull << 20)

/* @a + @b and @a x @b, UINT64_MAX where they would wrap. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/*
 * Saturating: a trace may say up to 2^63 - 1 bytes, and the sum wrapped
 * past 2^64 to a few MiB, which the check below let through (an 8 EiB
 * allreduce then failed in rank 0 with a bare "out of memory").
 */
uint64_t emu_rank_memory(const struct plan *p)
{
	uint64_t ring = sat_mul(sat_mul(p->nranks, p->topo.staging.buffers),
				p->topo.staging.chunk_bytes);
	uint64_t max = emu_coll_max_bytes(p);
	/* emu_coll_region rounds up to 4 KiB and doubles */
	uint64_t data = max > UINT64_MAX / 2 - 4096 ? UINT64_MAX : emu_coll_region(max);

	/* verbs_path.c alloc_arenas: data + ring, then 2 x ring of bounce
	 * buffers; collectives.c: two host copies of a collective to check */
	return sat_add(sat_add(EMU_RANK_BASE, data),
		       sat_add(sat_mul(3, ring), sat_mul(2, max)));
}

/* A /proc file's "KEY value" line, value into *v. */
static int proc_value(const char *path, const char *key, uint64_t *v)
{
	FILE *f = fopen(path, "r");
	char line[256];
	size_t klen = strlen(key);
	int err = -ENOENT;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && (line[klen] == ' ' || line[klen] == ':')) {
			*v = strtoull(line + klen + 1, NULL, 10);
			err = 0;
			break;
		}
	if (f)
		fclose(f);
	return err;
}

uint64_t emu_oom_kills(void)
{
	uint64_t v;

	return proc_value("/proc/vmstat", "oom_kill", &v) ? UINT64_MAX : v;
}

void emu_memory_advice(char *buf, size_t len)
{
	const char *guest = getenv("GDRLAB_VM_GUEST_MEM");
	uint64_t kib;

	if (guest && *guest)
		snprintf(buf, len, "the VM guest has %s of memory: GDRLAB_VM_MEM=8G (say) gives it more",
			 guest);
	else if (!proc_value("/proc/meminfo", "MemAvailable", &kib))
		snprintf(buf, len, "this machine has %" PRIu64 " MiB available (MemAvailable): run fewer ranks or a smaller trace",
			 kib >> 10);
	else
		snprintf(buf, len, "run fewer ranks or a smaller trace");
}

/* "about N MiB", or "more than 16 EiB" where the sum saturated (sat_add:
 * 2^64 bytes is 16 EiB), not the saturated figure as if it were one. */
static const char *mib_text(char *buf, size_t len, uint64_t bytes)
{
	if (bytes == UINT64_MAX)
		snprintf(buf, len, "more than 16 EiB");
	else
		snprintf(buf, len, "about %" PRIu64 " MiB", bytes >> 20);
	return buf;
}

int emu_memory_check(const struct plan *p, unsigned ranks, struct diag *d)
{
	uint64_t per = emu_rank_memory(p), kib, need = sat_mul(per, ranks);
	char advice[160], need_s[40], per_s[40];

	if (proc_value("/proc/meminfo", "MemAvailable", &kib) || need <= kib << 10)
		return 0; /* unknown: the run finds out */
	emu_memory_advice(advice, sizeof(advice));
	return diag_set(d, -ENOMEM,
			"emu: %u ranks need %s (%s each: data, slots, bounce buffers) and %" PRIu64 " MiB is available; %s",
			ranks, mib_text(need_s, sizeof(need_s), need),
			mib_text(per_s, sizeof(per_s), per), kib >> 10, advice);
}
