/* SPDX-License-Identifier: MIT */
/*
 * The TCP bootstrap, rank 0's side (boot_tcp.c says how it works): listen,
 * take every other rank's connection, relay each allgather, and stop
 * everyone with one message when a rank fails, dies or does not come.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "boot_tcp_internal.h"
#include "fd_io.h"

#define TCP_HELLO_MS 2000 /* for a new connection to say who it is */

static int listen_on(int family, unsigned port, int backlog, int *out)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(port),
				   .sin6_addr = IN6ADDR_ANY_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_ANY) };
	int one = 1, zero = 0, err;
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	/* a second run in this process (compare) rebinds at once */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (family == AF_INET6 ? bind(fd, (void *)&a6, sizeof(a6)) :
				 bind(fd, (void *)&a4, sizeof(a4))) {
		err = -errno;
		close(fd);
		return err;
	}
	if (listen(fd, backlog)) {
		err = -errno;
		close(fd);
		return err;
	}
	*out = fd;
	return 0;
}

/* Listen on @port on every address: IPv6 and IPv4 where the kernel has
 * both, IPv4 alone where it has no IPv6. */
static int hub_listen(unsigned port, int backlog, int *out)
{
	int err = listen_on(AF_INET6, port, backlog, out);

	if (err == -EAFNOSUPPORT)
		err = listen_on(AF_INET, port, backlog, out);
	return err;
}

/* One connection: a rank of this run, or a stranger (closed, ignored). */
static int hub_take(struct tcp *t, struct boot *b, int fd, int64_t deadline,
		    struct diag *d)
{
	struct tcp_hello h;
	int64_t by = fd_now_ms() + TCP_HELLO_MS;

	if (fd_read_by(fd, &h, sizeof(h), by < deadline ? by : deadline) ||
	    h.magic != TCP_MAGIC || h.key != t->cfg.key) {
		close(fd);
		return 0; /* not one of ours: a port scan, another job */
	}
	if (h.version != TCP_VERSION || h.size != b->size || !h.rank ||
	    h.rank >= b->size || t->peers[h.rank].fd >= 0) {
		close(fd);
		return tcp_fail(t, d, -EPROTO,
				"rank 0: a process on %.64s says it is rank %u of %u (version %u), but this run has %u ranks%s",
				h.host, h.rank, h.size, h.version, b->size,
				h.rank && h.rank < b->size && t->peers[h.rank].fd >= 0 ?
					", and that rank is here already" : "");
	}
	h.host[sizeof(h.host) - 1] = '\0';
	t->peers[h.rank].fd = fd;
	t->peers[h.rank].pid = h.pid;
	memcpy(t->peers[h.rank].host, h.host, sizeof(h.host));
	tcp_tune_socket(fd, t->cfg.timeout_ms);
	return 0;
}

/* Some ranks did not connect in time: name them. */
static int hub_late(struct tcp *t, struct boot *b, struct diag *d)
{
	bool *have = calloc(b->size, sizeof(*have));
	char list[128] = "?";
	unsigned n = 0;

	for (unsigned r = 1; have && r < b->size; r++) {
		have[r] = t->peers[r].fd >= 0;
		n += !have[r];
	}
	if (have)
		boot_missing_list(have, NULL, 1, b->size, list, sizeof(list));
	free(have);
	return tcp_fail(t, d, -ETIMEDOUT,
			"rank 0: rank%s %s of %u did not connect to port %u within %g s (GDRLAB_BOOT_TIMEOUT): did they start? can they reach this host?",
			n > 1 ? "s" : "", list, b->size, t->cfg.port,
			tcp_secs(t->cfg.timeout_ms));
}

int tcp_hub_accept(struct tcp *t, struct boot *b, struct diag *d)
{
	int64_t deadline = fd_now_ms() + t->cfg.timeout_ms;
	unsigned have = 1;
	int lfd, err = hub_listen(t->cfg.port, (int)b->size, &lfd);

	if (err)
		return tcp_fail(t, d, err, "rank 0: cannot listen on port %u (%s): %s; set GDRLAB_BOOT_ADDR=host:port to another port",
				t->cfg.port, t->cfg.from, strerror(-err));
	while (!err && have < b->size) {
		struct pollfd pfd = { .fd = lfd, .events = POLLIN };
		int n = poll(&pfd, 1, fd_left_ms(deadline)), fd;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = hub_late(t, b, d);
			break;
		}
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue; /* it went away before we took it */
		err = hub_take(t, b, fd, deadline, d);
		have = 1;
		for (unsigned r = 1; r < b->size; r++)
			have += t->peers[r].fd >= 0;
	}
	close(lfd);
	return err;
}

/* Everyone is here: say so, and watch their hang-ups from now on. */
int tcp_hub_welcome(struct tcp *t, struct boot *b, struct diag *d)
{
	struct tcp_hello h;

	tcp_hello_fill(&h, t, 0, b->size);
	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (t->epfd < 0)
		return tcp_fail(t, d, -errno, "rank 0: epoll_create1: %s", strerror(errno));
	for (unsigned r = 1; r < b->size; r++) {
		struct epoll_event ev = { .events = EPOLLRDHUP, .data.u32 = r };

		if (fd_write_full(t->peers[r].fd, &h, sizeof(h)) ||
		    epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->peers[r].fd, &ev))
			return tcp_fail(t, d, -ECONNRESET,
					"rank 0: lost rank %u (pid %d on %s) while setting up",
					r, t->peers[r].pid, t->peers[r].host);
	}
	b->abort_fd = t->epfd;
	return 0;
}

/*
 * Send every live rank an ABORT with the reason, then let them read it:
 * stop writing, and drain until each has closed (TCP_LINGER_MS at most),
 * because closing with their unread contribution queued would reset the
 * connection and could lose the message on their side.
 */
static void hub_abort(struct tcp *t, struct boot *b)
{
	struct pollfd *pfd = calloc(b->size, sizeof(*pfd));
	int64_t deadline = fd_now_ms() + TCP_LINGER_MS;
	char junk[4096];

	for (unsigned r = 1; r < b->size; r++) {
		int fd = t->peers[r].fd;

		if (fd < 0)
			continue;
		tcp_send_msg(fd, BOOT_MSG_ABORT, t->failed.msg, strlen(t->failed.msg));
		shutdown(fd, SHUT_WR);
	}
	while (pfd) {
		unsigned m = 0;

		for (unsigned r = 1; r < b->size; r++)
			if (t->peers[r].fd >= 0)
				pfd[m++] = (struct pollfd){ .fd = t->peers[r].fd, .events = POLLIN };
		if (!m || poll(pfd, m, fd_left_ms(deadline)) <= 0)
			break;
		for (unsigned r = 1, i = 0; r < b->size; r++) {
			ssize_t got;

			if (t->peers[r].fd < 0 || !pfd[i++].revents)
				continue;
			got = recv(t->peers[r].fd, junk, sizeof(junk), MSG_DONTWAIT);
			if (!got || (got < 0 && errno != EAGAIN && errno != EINTR)) {
				close(t->peers[r].fd);
				t->peers[r].fd = -1;
			}
		}
	}
	free(pfd);
}

/* What a round of the gather found, worst first. */
struct gather {
	bool *got;
	unsigned dead, bad, failed; /* the lowest such rank; 0: none */
	int failed_err;
	char failed_msg[DIAG_MSG_MAX];
};

/* Read one rank's contribution into @all. */
static void hub_read(struct tcp *t, unsigned r, void *all, size_t len,
		     bool peek, struct gather *g)
{
	struct boot_hdr h;
	char *dst = (char *)all + r * len;
	int64_t deadline = fd_now_ms() + t->cfg.timeout_ms;

	if (fd_read_by(t->peers[r].fd, &h, sizeof(h), deadline) ||
	    (h.type == BOOT_MSG_GATHER && h.len == len &&
	     fd_read_by(t->peers[r].fd, dst, len, deadline))) {
		if (!g->dead || r < g->dead)
			g->dead = r;
		return;
	}
	if (h.type != BOOT_MSG_GATHER || h.len != len) {
		if (!g->bad || r < g->bad)
			g->bad = r;
		return;
	}
	g->got[r] = true;
	if (peek && len >= sizeof(struct boot_sync_hdr)) {
		const struct boot_sync_hdr *sh = (const void *)dst;

		if (sh->err && (!g->failed || r < g->failed)) {
			g->failed = r;
			g->failed_err = sh->err;
			snprintf(g->failed_msg, sizeof(g->failed_msg), "%.*s",
				 DIAG_MSG_MAX - 32, boot_strip_rank(sh->msg, r));
		}
	}
}

/* The outcome of a round that ended the gather early, as every rank
 * will see it: a rank gone, or the lowest failing rank (0 included). */
static int hub_verdict(struct tcp *t, struct boot *b, const struct gather *g,
		       const struct boot_sync_hdr *own, struct diag *d)
{
	const struct tcp_peer *p = &t->peers[g->dead];

	if (g->dead)
		tcp_fail(t, d, -ECONNRESET,
			 "rank %u (pid %d on %s) closed its bootstrap connection: it died, was killed or lost its host",
			 g->dead, p->pid, p->host);
	else if (g->bad)
		tcp_fail(t, d, -EPROTO, "rank %u sent a bad bootstrap message (another gdrlab version?)",
			 g->bad);
	else if (own)
		tcp_fail(t, d, own->err, "rank 0 failed: %.*s", DIAG_MSG_MAX - 32,
			 boot_strip_rank(own->msg, 0));
	else
		tcp_fail(t, d, g->failed_err, "rank %u failed: %s", g->failed,
			 g->failed_msg);
	hub_abort(t, b);
	return t->err;
}

static int hub_timeout(struct tcp *t, struct boot *b, const bool *got,
		       struct diag *d)
{
	char list[128];
	unsigned n = 0;

	for (unsigned r = 1; r < b->size; r++)
		n += !got[r];
	boot_missing_list(got, NULL, 1, b->size, list, sizeof(list));
	tcp_fail(t, d, -ETIMEDOUT,
		 "rank%s %s did not reach the barrier within %g s (GDRLAB_BOOT_TIMEOUT): hung, or one collective takes longer",
		 n > 1 ? "s" : "", list, tcp_secs(t->cfg.timeout_ms));
	hub_abort(t, b);
	return t->err;
}

int tcp_hub_exchange(struct tcp *t, struct boot *b, const void *mine,
		     void *all, size_t len, bool peek, struct diag *d)
{
	const struct boot_sync_hdr *own = peek && len >= sizeof(*own) &&
		((const struct boot_sync_hdr *)mine)->err ? mine : NULL;
	int64_t deadline = fd_now_ms() + t->cfg.timeout_ms;
	struct pollfd *pfd = calloc(b->size, sizeof(*pfd));
	struct gather g = { .got = calloc(b->size, sizeof(bool)) };
	int err = 0;

	if (!pfd || !g.got) {
		err = tcp_fail(t, d, -ENOMEM, "out of memory");
		goto out;
	}
	memcpy(all, mine, len);
	g.got[0] = true;
	for (;;) {
		unsigned m = 0, want = 0;
		int n;

		for (unsigned r = 1; r < b->size; r++) {
			if (g.got[r])
				continue;
			pfd[m++] = (struct pollfd){ .fd = t->peers[r].fd, .events = POLLIN };
			want++;
		}
		if (!want && !own)
			break;
		/* rank 0 failed: one look for a peer that is gone (the cause,
		 * more often than not), then stop everyone */
		n = want ? poll(pfd, m, own ? 100 : fd_left_ms(deadline)) : 0;
		if (n < 0 && errno == EINTR)
			continue;
		for (unsigned r = 1, i = 0; n > 0 && r < b->size; r++)
			if (!g.got[r] && pfd[i++].revents)
				hub_read(t, r, all, len, peek, &g);
		if (n < 0) {
			err = tcp_fail(t, d, -errno, "rank 0: poll: %s", strerror(errno));
			hub_abort(t, b);
			goto out;
		}
		if (g.dead || g.bad || g.failed || own) {
			err = hub_verdict(t, b, &g, own, d);
			goto out;
		}
		if (n == 0) {
			err = hub_timeout(t, b, g.got, d);
			goto out;
		}
	}
	for (unsigned r = 1; r < b->size && !err; r++)
		if (tcp_send_msg(t->peers[r].fd, BOOT_MSG_ALL, all, len * b->size)) {
			tcp_fail(t, d, -ECONNRESET,
				 "rank %u (pid %d on %s) closed its bootstrap connection: it died, was killed or lost its host",
				 r, t->peers[r].pid, t->peers[r].host);
			hub_abort(t, b);
			err = t->err;
		}
out:
	free(g.got);
	free(pfd);
	return err;
}

