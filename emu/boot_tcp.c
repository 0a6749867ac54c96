/* SPDX-License-Identifier: MIT */
/*
 * The TCP bootstrap, for ranks that a launcher started (srun) without
 * anything gdrlab can gather through short of MPI: rank 0 listens, every
 * other rank connects to it, and rank 0 relays each allgather -- the fork
 * hub (emu_hub.c) in-band, over a star of N - 1 connections. Data never
 * goes through it.
 *
 * Nothing waits forever: rank 0 waits timeout_ms for the others to
 * connect and for each barrier; the others retry their connection for
 * timeout_ms and wait twice that for rank 0's word (rank 0 may be in a
 * long collective), so rank 0, which can name the missing rank, speaks
 * first. Each failure is one line naming the rank, host and port.
 *
 * This file: the helpers, every rank but rank 0, and the ops; rank 0 is
 * in boot_tcp_hub.c.
 *
 * Aborts, as the hub's: a contribution that carries a failure (boot_sync)
 * or a connection that closes makes rank 0 send every rank an ABORT with
 * the reason. Mid-collective, a rank's abort_fd is its connection to rank
 * 0; rank 0's is an epoll set that fires when any peer hangs up (a rank
 * that dies), not when one merely sends its next contribution early.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "boot_tcp_internal.h"
#include "fd_io.h"

double tcp_secs(int ms)
{
	return ms / 1000.0;
}

int tcp_send_msg(int fd, unsigned type, const void *buf, size_t len)
{
	struct boot_hdr h = { type, (unsigned)len };
	int err = fd_write_full(fd, &h, sizeof(h));

	return err ? err : fd_write_full(fd, buf, len);
}

void tcp_tune_socket(int fd, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };
	int one = 1;

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

void tcp_hello_fill(struct tcp_hello *h, const struct tcp *t,
		    unsigned rank, unsigned size)
{
	memset(h, 0, sizeof(*h));
	h->magic = TCP_MAGIC;
	h->version = TCP_VERSION;
	h->rank = rank;
	h->size = size;
	h->key = t->cfg.key;
	h->pid = (int32_t)getpid();
	if (gethostname(h->host, sizeof(h->host) - 1))
		snprintf(h->host, sizeof(h->host), "?");
}

int tcp_fail(struct tcp *t, struct diag *d, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->failed.msg, sizeof(t->failed.msg), fmt, ap);
	va_end(ap);
	t->err = err;
	return diag_set(d, err, "%s", t->failed.msg);
}

/* ---- every other rank ---- */

/* One attempt on one address, bounded by @deadline. */
static int peer_try(const struct addrinfo *ai, int64_t deadline, int *out)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
			ai->ai_protocol);
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int err = 0;
	socklen_t elen = sizeof(err);

	if (fd < 0)
		return -errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS)
		err = -errno;
	else if (poll(&pfd, 1, fd_left_ms(deadline)) <= 0)
		err = -ETIMEDOUT;
	else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) || err)
		err = err ? -err : -errno;
	if (!err && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
		err = -errno;
	if (err) {
		close(fd);
		return err;
	}
	*out = fd;
	return 0;
}

/* Connect to rank 0, retrying until it listens or time runs out. */
static int peer_connect(struct tcp *t, struct boot *b, struct diag *d)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	int64_t deadline = fd_now_ms() + t->cfg.timeout_ms;
	char port[16];
	int err = -ETIMEDOUT, left;

	snprintf(port, sizeof(port), "%u", t->cfg.port);
	do {
		struct addrinfo *res = NULL;
		int rc = getaddrinfo(t->cfg.host, port, &hints, &res);

		if (rc && rc != EAI_AGAIN)
			return tcp_fail(t, d, -EHOSTUNREACH,
					"rank %u: cannot resolve rank 0's host '%s' (%s): %s",
					b->rank, t->cfg.host, t->cfg.from, gai_strerror(rc));
		for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
			err = peer_try(ai, deadline, &t->peers[0].fd);
			if (!err)
				break;
		}
		freeaddrinfo(res);
		if (!err)
			return 0;
		left = fd_left_ms(deadline);
		poll(NULL, 0, left < TCP_RETRY_MS ? left : TCP_RETRY_MS);
	} while (fd_left_ms(deadline));
	return tcp_fail(t, d, -ETIMEDOUT,
			"rank %u: cannot reach rank 0 at %s:%u (%s) within %g s (GDRLAB_BOOT_TIMEOUT): %s",
			b->rank, t->cfg.host, t->cfg.port, t->cfg.from,
			tcp_secs(t->cfg.timeout_ms), strerror(-err));
}

/* Say who we are; rank 0 answers once every rank is there. */
static int peer_hello(struct tcp *t, struct boot *b, struct diag *d)
{
	struct tcp_peer *z = &t->peers[0];
	struct tcp_hello h;
	int err;

	tcp_hello_fill(&h, t, b->rank, b->size);
	tcp_tune_socket(z->fd, t->cfg.timeout_ms);
	err = fd_write_full(z->fd, &h, sizeof(h));
	if (!err)
		err = fd_read_by(z->fd, &h, sizeof(h), fd_now_ms() + 2 * (int64_t)t->cfg.timeout_ms);
	if (err == -ETIMEDOUT)
		return tcp_fail(t, d, err, "rank %u: no word from rank 0 at %s:%u within %g s of connecting (GDRLAB_BOOT_TIMEOUT): is it gdrlab?",
				b->rank, t->cfg.host, t->cfg.port, tcp_secs(2 * t->cfg.timeout_ms));
	if (err)
		return tcp_fail(t, d, err, "rank %u: rank 0 at %s:%u closed the connection while setting up (its own error says why)",
				b->rank, t->cfg.host, t->cfg.port);
	if (h.magic != TCP_MAGIC || h.key != t->cfg.key || h.size != b->size)
		return tcp_fail(t, d, -EPROTO, "rank %u: %s:%u is not rank 0 of this run (wrong GDRLAB_BOOT_ADDR?)",
				b->rank, t->cfg.host, t->cfg.port);
	h.host[sizeof(h.host) - 1] = '\0';
	z->pid = h.pid;
	memcpy(z->host, h.host, sizeof(h.host));
	b->abort_fd = z->fd;
	return 0;
}

static int peer_lost(struct tcp *t, struct boot *b, int err, struct diag *d)
{
	const struct tcp_peer *z = &t->peers[0];

	if (err == -ETIMEDOUT)
		return tcp_fail(t, d, err,
				"rank %u: no word from rank 0 (pid %d on %s) for %g s (GDRLAB_BOOT_TIMEOUT x2): hung, or its host is unreachable",
				b->rank, z->pid, z->host, tcp_secs(2 * t->cfg.timeout_ms));
	return tcp_fail(t, d, err,
			"rank %u: lost rank 0 (pid %d on %s): its bootstrap connection closed: it died, was killed or lost its host",
			b->rank, z->pid, z->host);
}

static int peer_exchange(struct tcp *t, struct boot *b, const void *mine,
			 void *all, size_t len, struct diag *d)
{
	int fd = t->peers[0].fd;
	int64_t deadline = fd_now_ms() + 2 * (int64_t)t->cfg.timeout_ms;
	struct boot_hdr h;
	char *msg;
	int err;

	/* A failed send still reads on: an ABORT may be waiting there. */
	tcp_send_msg(fd, BOOT_MSG_GATHER, mine, len);
	err = fd_read_by(fd, &h, sizeof(h), deadline);
	if (err)
		return peer_lost(t, b, err, d);
	if (h.type == BOOT_MSG_ALL && h.len == len * b->size) {
		err = fd_read_by(fd, all, h.len, deadline);
		return err ? peer_lost(t, b, err, d) : 0;
	}
	if (h.type != BOOT_MSG_ABORT || h.len >= DIAG_MSG_MAX)
		return tcp_fail(t, d, -EPROTO, "rank %u: bad bootstrap message %u from rank 0",
				b->rank, h.type);
	msg = calloc(1, h.len + 1);
	if (!msg)
		return tcp_fail(t, d, -ENOMEM, "out of memory");
	err = fd_read_by(fd, msg, h.len, deadline);
	tcp_fail(t, d, -ECONNABORTED, "%s", err ? "aborted by rank 0" : msg);
	free(msg);
	return -ECONNABORTED;
}

/* ---- the ops ---- */

static int tcp_exchange(struct boot *b, const void *mine, void *all,
			size_t len, bool peek, struct diag *d)
{
	struct tcp *t = b->priv;

	if (t->err)
		return diag_set(d, t->err, "%s", t->failed.msg);
	if (b->rank == 0)
		return tcp_hub_exchange(t, b, mine, all, len, peek, d);
	return peer_exchange(t, b, mine, all, len, d);
}

/* boot_sync's contributions start with a boot_sync_hdr: rank 0 reads it
 * to stop everyone at the first failure, as the fork hub does. */
static int tcp_allgather(struct boot *b, const void *mine, void *all,
			 size_t len, struct diag *d)
{
	return tcp_exchange(b, mine, all, len, true, d);
}

/* Results are plain records: gathered to every rank, nothing peeked at. */
static int tcp_results(struct boot *b, const void *mine, void *all,
		       size_t len, struct diag *d)
{
	void *tmp = NULL;
	int err;

	if (!all) {
		tmp = calloc(b->size, len ? len : 1);
		if (!tmp)
			return diag_set(d, -ENOMEM, "out of memory");
	}
	err = tcp_exchange(b, mine, all ? all : tmp, len, false, d);
	free(tmp);
	return err;
}

static void tcp_close(struct boot *b)
{
	struct tcp *t = b->priv;

	if (!t)
		return;
	for (unsigned r = 0; r < b->size; r++)
		if (t->peers && t->peers[r].fd >= 0)
			close(t->peers[r].fd);
	if (t->epfd >= 0)
		close(t->epfd);
	free(t->peers);
	free(t);
	b->priv = NULL;
	b->abort_fd = -1;
}

static const struct boot_ops boot_tcp_ops = {
	.name = "tcp",
	.allgather = tcp_allgather,
	.results = tcp_results,
	.close = tcp_close,
};

int boot_tcp_init(struct boot *b, unsigned rank, unsigned size,
		  const struct boot_tcp_cfg *c, struct diag *d)
{
	struct tcp *t = calloc(1, sizeof(*t));
	int err;

	b->ops = &boot_tcp_ops;
	b->rank = rank;
	b->size = size;
	b->fd = -1;
	b->abort_fd = -1;
	b->priv = t;
	if (!t)
		return diag_set(d, -ENOMEM, "out of memory");
	t->epfd = -1;
	t->peers = calloc(size ? size : 1, sizeof(*t->peers));
	if (!t->peers) {
		tcp_close(b);
		return diag_set(d, -ENOMEM, "out of memory");
	}
	for (unsigned r = 0; r < size; r++)
		t->peers[r].fd = -1;
	t->cfg = *c;
	snprintf(t->host, sizeof(t->host), "%s", c->host ? c->host : "");
	t->cfg.host = t->host;
	t->cfg.from = c->from ? c->from : "?";
	if (size < 2 || rank >= size)
		err = tcp_fail(t, d, -EINVAL, "rank %u of %u: the TCP bootstrap needs 2 ranks or more",
			       rank, size);
	else if (rank == 0)
		err = tcp_hub_accept(t, b, d);
	else
		err = peer_connect(t, b, d);
	if (!err)
		err = rank == 0 ? tcp_hub_welcome(t, b, d) : peer_hello(t, b, d);
	if (err)
		tcp_close(b);
	return err;
}
