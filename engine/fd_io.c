/* SPDX-License-Identifier: MIT */
#include "fd_io.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int fd_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == ENOTSOCK)
			n = write(fd, p, len); /* a pipe */
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int64_t fd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int fd_left_ms(int64_t deadline)
{
	int64_t left = deadline - fd_now_ms();

	return left <= 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
}

/* fd_read_full, and fd_read_by where @deadline >= 0 */
static int read_all(int fd, char *p, size_t len, int64_t deadline)
{
	while (len) {
		ssize_t n;

		if (deadline >= 0) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };

			n = poll(&pfd, 1, fd_left_ms(deadline));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return n < 0 ? -errno : -ETIMEDOUT;
		}
		n = read(fd, p, len);
		if (n < 0 && (errno == EINTR || (deadline >= 0 && errno == EAGAIN)))
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int fd_read_full(int fd, void *buf, size_t len)
{
	return read_all(fd, buf, len, -1);
}

int fd_read_by(int fd, void *buf, size_t len, int64_t deadline)
{
	return read_all(fd, buf, len, deadline < 0 ? 0 : deadline);
}
