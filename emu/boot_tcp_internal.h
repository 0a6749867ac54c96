/* SPDX-License-Identifier: MIT */
/*
 * Inside the TCP bootstrap (boot_tcp.c: every rank but 0, the ops;
 * boot_tcp_hub.c: rank 0). Not for use elsewhere: boot.h is the API.
 */
#ifndef GDRLAB_EMU_BOOT_TCP_INTERNAL_H
#define GDRLAB_EMU_BOOT_TCP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "boot.h"
#include "fd_io.h" /* fd_now_ms, fd_left_ms, fd_read_by */

#define TCP_MAGIC 0x67647262u /* "gdrb" */
#define TCP_VERSION 1
#define TCP_RETRY_MS 100   /* between connection attempts */
#define TCP_LINGER_MS 2000 /* after an ABORT, for the others to read it */

/* The first message each way: who is at the other end. */
struct tcp_hello {
	uint32_t magic, version;
	uint32_t rank, size;
	uint64_t key;
	int32_t pid;
	char host[64];
};

struct tcp_peer {
	int fd; /* -1: not connected, or closed */
	int32_t pid;
	char host[64];
};

/* One rank's bootstrap state (struct boot's priv), owned by boot_tcp.c. */
struct tcp {
	struct boot_tcp_cfg cfg; /* cfg.host points at host below */
	char host[256];
	/* rank 0: one per rank (its own unused); the others: [0] is rank 0 */
	struct tcp_peer *peers;
	int epfd; /* rank 0: the peers' hang-ups (abort_fd); -1 elsewhere */
	int err;  /* sticky: once failed, every later call says the same */
	struct diag failed;
};

double tcp_secs(int ms);

/* A struct boot_hdr and its payload. */
int tcp_send_msg(int fd, unsigned type, const void *buf, size_t len);
/* Small messages go out at once; a send blocked for @ms (a rank that
 * stopped reading) fails. */
void tcp_tune_socket(int fd, int ms);
void tcp_hello_fill(struct tcp_hello *h, const struct tcp *t, unsigned rank,
		    unsigned size);
/* Record a failure (sticky) and say it in @d; returns @err. */
int tcp_fail(struct tcp *t, struct diag *d, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Rank 0 (boot_tcp_hub.c): wait for every rank to connect; answer them
 * and watch their hang-ups; relay one allgather (@peek: contributions
 * start with a boot_sync_hdr, and a failure in one stops everyone). */
int tcp_hub_accept(struct tcp *t, struct boot *b, struct diag *d);
int tcp_hub_welcome(struct tcp *t, struct boot *b, struct diag *d);
int tcp_hub_exchange(struct tcp *t, struct boot *b, const void *mine,
		     void *all, size_t len, bool peek, struct diag *d);

#endif
