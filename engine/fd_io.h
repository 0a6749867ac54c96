/* SPDX-License-Identifier: MIT */
/*
 * fd_io: all of a buffer through a pipe or a stream socket, retrying on
 * EINTR and short transfers. One pair for every process-to-process byte
 * stream of the project: child_call's pipe, gdrlab sweep's points, and
 * the bootstraps of emu's ranks (emu/boot*.c). A writer that must not
 * block for ever sets SO_SNDTIMEO on its socket (fd_write_full then
 * returns -EAGAIN); a reader uses fd_read_by.
 */
#ifndef GDRLAB_FD_IO_H
#define GDRLAB_FD_IO_H

#include <stddef.h>
#include <stdint.h>

/* 0 or -errno (-EPIPE when nothing could be written). On a socket never
 * SIGPIPE: a peer that died is an error to report, not a fatal signal. */
int fd_write_full(int fd, const void *buf, size_t len);

/* 0, -errno, or -ECONNRESET when the other end closed before @len bytes. */
int fd_read_full(int fd, void *buf, size_t len);

/* CLOCK_MONOTONIC in ms, and what is left of @deadline on it (0 once it
 * has passed; at most INT_MAX), for poll's time-out. */
int64_t fd_now_ms(void);
int fd_left_ms(int64_t deadline);

/* fd_read_full, giving up with -ETIMEDOUT when the bytes have not all come
 * by @deadline (fd_now_ms): a peer that is stopped, hung or cut off in the
 * middle of a message must not hold its reader for ever. */
int fd_read_by(int fd, void *buf, size_t len, int64_t deadline);

#endif
