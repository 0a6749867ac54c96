/* SPDX-License-Identifier: MIT */
/*
 * fd_io: all of a buffer through a pipe or a stream socket, retrying on
 * EINTR and short transfers. One pair for every process-to-process byte
 * stream of the project: child_call's pipe, gdrlab sweep's points, and
 * the bootstraps of emu's ranks (emu/boot*.c).
 */
#ifndef GDRLAB_FD_IO_H
#define GDRLAB_FD_IO_H

#include <stddef.h>

/* 0 or -errno (-EPIPE when nothing could be written). On a socket never
 * SIGPIPE: a peer that died is an error to report, not a fatal signal. */
int fd_write_full(int fd, const void *buf, size_t len);

/* 0, -errno, or -ECONNRESET when the other end closed before @len bytes. */
int fd_read_full(int fd, void *buf, size_t len);

#endif
