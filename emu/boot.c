/* SPDX-License-Identifier: MIT */
/* boot_sync, and the child side of the fork hub. */
#include "boot.h"

#include "fd_io.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

const char *boot_strip_rank(const char *msg, unsigned rank)
{
	char prefix[32];
	size_t n = (size_t)snprintf(prefix, sizeof(prefix), "rank %u: ", rank);

	return strncmp(msg, prefix, n) ? msg : msg + n;
}

int boot_sync(struct boot *b, int err, const struct diag *mine_d,
	      const void *mine, void *all, size_t len, struct diag *d)
{
	/* Every record, and the payload in it, 16-byte aligned: the hubs
	 * read each header in place, the caller's payload may hold any type. */
	size_t off = (sizeof(struct boot_sync_hdr) + 15) & ~(size_t)15;
	size_t rec = off + ((len + 15) & ~(size_t)15);
	char *in = calloc(1, rec), *out = calloc(b->size, rec);
	int ret;

	if (!in || !out) {
		free(in);
		free(out);
		return diag_set(d, -ENOMEM, "out of memory");
	}
	((struct boot_sync_hdr *)in)->err = err;
	if (err && mine_d)
		memcpy(((struct boot_sync_hdr *)in)->msg, mine_d->msg, DIAG_MSG_MAX);
	if (len && mine)
		memcpy(in + off, mine, len);
	ret = b->ops->allgather(b, in, out, rec, d);
	for (unsigned r = 0; !ret && r < b->size; r++) {
		const struct boot_sync_hdr *h = (const void *)(out + r * rec);

		if (h->err) {
			ret = h->err;
			diag_set(d, ret, "rank %u failed: %.*s", r, DIAG_MSG_MAX - 32,
				 boot_strip_rank(h->msg, r));
		}
	}
	for (unsigned r = 0; !ret && all && r < b->size; r++)
		memcpy((char *)all + r * len, out + r * rec + off, len);
	free(in);
	free(out);
	return ret;
}

void boot_missing_list(const bool *have, const int32_t *pids, unsigned from,
		       unsigned size, char *s, size_t len)
{
	unsigned shown = 0, total = 0;
	size_t room = pids ? 32 : 16; /* one more entry, and the count */

	s[0] = '\0';
	for (unsigned r = from; r < size; r++) {
		if (have[r])
			continue;
		if (shown < 8 && strlen(s) + room < len) {
			snprintf(s + strlen(s), len - strlen(s), "%s%u", shown ? ", " : "", r);
			if (pids)
				snprintf(s + strlen(s), len - strlen(s), " (pid %d)", (int)pids[r]);
			shown++;
		}
		total++;
	}
	if (total > shown)
		snprintf(s + strlen(s), len - strlen(s), " and %u more", total - shown);
}

double boot_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/*
 * Poll the socket until the parent's reply is there (or it closed), at
 * most @spin_us, yielding each turn. The reply is the barrier's release
 * before each collective: a rank asleep in read() wakes up 100-500 us
 * after another under qemu TCG, and a collective timed from the release
 * would count that skew, not the data path (bench_emu.sh's 8 B send/recv).
 */
static void fork_spin(int fd, int spin_us)
{
	double t0 = boot_now_us();
	char c;

	while (boot_now_us() - t0 < spin_us) {
		ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);

		if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
			return; /* data, the parent gone, or an error: read sees it */
		sched_yield();
	}
}

/* The parent answers a GATHER with ALL, or with ABORT and a reason. */
static int fork_wait_reply(struct boot *b, void *all, size_t len,
			   struct diag *d)
{
	struct boot_hdr h;
	char *msg;
	int err;

	fork_spin(b->fd, b->spin_us);
	err = fd_read_full(b->fd, &h, sizeof(h));

	if (err)
		return diag_set(d, err, "rank %u: lost the parent gdrlab process",
				b->rank);
	if (h.type == BOOT_MSG_ALL && h.len == len * b->size)
		return fd_read_full(b->fd, all, h.len);
	if (h.type != BOOT_MSG_ABORT || h.len >= DIAG_MSG_MAX)
		return diag_set(d, -EPROTO, "rank %u: bad message %u from the parent",
				b->rank, h.type);
	msg = calloc(1, h.len + 1);
	if (!msg)
		return diag_set(d, -ENOMEM, "out of memory");
	err = fd_read_full(b->fd, msg, h.len);
	diag_set(d, -ECONNABORTED, "%s", err ? "aborted" : msg);
	free(msg);
	return -ECONNABORTED;
}

/* A header and its payload to the parent (the fork hub). */
static int fork_send(struct boot *b, unsigned type, const void *buf,
		     size_t len, struct diag *d)
{
	struct boot_hdr h = { type, (unsigned)len };
	int err = fd_write_full(b->fd, &h, sizeof(h));

	if (!err)
		err = fd_write_full(b->fd, buf, len);
	if (err)
		return diag_set(d, err, "rank %u: lost the parent gdrlab process",
				b->rank);
	return 0;
}

static int fork_allgather(struct boot *b, const void *mine, void *all,
			  size_t len, struct diag *d)
{
	int err = fork_send(b, BOOT_MSG_GATHER, mine, len, d);

	return err ? err : fork_wait_reply(b, all, len, d);
}

static int fork_results(struct boot *b, const void *mine, void *all,
			size_t len, struct diag *d)
{
	return fork_send(b, BOOT_MSG_RESULT, mine, len, d);
}

static void fork_close(struct boot *b)
{
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
}

static const struct boot_ops boot_fork_ops = {
	.name = "fork",
	.allgather = fork_allgather,
	.results = fork_results,
	.close = fork_close,
};

void boot_fork_init(struct boot *b, unsigned rank, unsigned size, int fd)
{
	b->ops = &boot_fork_ops;
	b->rank = rank;
	b->size = size;
	b->fd = fd;
	b->spin_us = 0;
	b->priv = NULL;
	b->abort_fd = fd; /* the parent writes nothing else mid-collective */
}
