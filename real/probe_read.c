/* SPDX-License-Identifier: MIT */
#include "probe_read.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int probe_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int probe_read_line(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX + 256];
	FILE *fp;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "r");
	if (!fp)
		return -errno;
	if (!fgets(buf, (int)len, fp))
		err = ferror(fp) ? -EIO : -ENODATA;
	fclose(fp);
	if (err) {
		buf[0] = '\0';
		return err;
	}
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int probe_read_long(const char *dir, const char *name, int base, long *v)
{
	char buf[64], *end;
	long x;
	int err = probe_read_line(dir, name, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	x = strtol(buf, &end, base);
	if (errno || end == buf || (*end && *end != ' '))
		return -EINVAL;
	*v = x;
	return 0;
}

long probe_read_bytes(const char *path, uint8_t *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	/* sysfs config reads stop short for non-root users (64 bytes). */
	while (got < len) {
		n = read(fd, buf + got, len - got);
		if (n < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	return (long)got;
}

/*
 * The kernel writes "2.5 GT/s PCIe" ... "64.0 GT/s PCIe" (older kernels
 * "8 GT/s", "Unknown speed"): PCIe gen 1..6 by transfer rate.
 */
int probe_speed_gen(const char *speed)
{
	static const double rate[] = { 2.5, 5.0, 8.0, 16.0, 32.0, 64.0 };
	double gts = strtod(speed, NULL);
	int i;

	for (i = 0; i < 6; i++)
		if (gts > rate[i] - 0.1 && gts < rate[i] + 0.1)
			return i + 1;
	return 0;
}

void probe_norm_bdf(const char *in, char *out, size_t len)
{
	unsigned dom, bus, dev, fn;

	if (sscanf(in, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) == 4)
		snprintf(out, len, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	else
		snprintf(out, len, "%.*s", (int)(len - 1), in);
}

int probe_gpu_at(const struct probe *p, const char *bdf)
{
	char want[PROBE_BDF_MAX], have[PROBE_BDF_MAX];

	probe_norm_bdf(bdf, want, sizeof(want));
	for (unsigned i = 0; i < p->ngpus; i++) {
		probe_norm_bdf(p->gpus[i].pci.bdf, have, sizeof(have));
		if (!strcmp(want, have))
			return (int)i;
	}
	return -1;
}
