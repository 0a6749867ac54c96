/* SPDX-License-Identifier: MIT */
/*
 * units: parse "number unit" strings into bytes, bytes/s and seconds.
 *
 * The number is scanned by hand rather than handed whole to strtod(), which
 * would also take "inf", "nan", hex floats and leading blanks: none of those
 * belong in a hardware description, and all of them hide typos.
 */
#include "units.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct unit {
	const char *name;
	double scale; /* base units (bytes, bytes/s, seconds) per unit */
};

/* kB..TB are powers of 1000, as nccl-tests and datasheets use them. */
static const struct unit bandwidth_units[] = {
	{ "B/s", 1.0 },
	{ "kB/s", 1e3 },
	{ "KB/s", 1e3 },
	{ "MB/s", 1e6 },
	{ "GB/s", 1e9 },
	{ "TB/s", 1e12 },
	{ "KiB/s", 1024.0 },
	{ "MiB/s", 1048576.0 },
	{ "GiB/s", 1073741824.0 },
	/* Line rates are quoted in bits; a lower-case b always means bits. */
	{ "bit/s", 1.0 / 8 },
	{ "kbit/s", 1e3 / 8 },
	{ "Mbit/s", 1e6 / 8 },
	{ "Gbit/s", 1e9 / 8 },
	{ "Tbit/s", 1e12 / 8 },
	{ "kb/s", 1e3 / 8 },
	{ "Mb/s", 1e6 / 8 },
	{ "Gb/s", 1e9 / 8 },
	{ "Tb/s", 1e12 / 8 },
	{ "Mbps", 1e6 / 8 },
	{ "Gbps", 1e9 / 8 },
};

static const struct unit time_units[] = {
	{ "ns", 1e-9 },
	{ "us", 1e-6 },
	{ "\xc2\xb5s", 1e-6 }, /* U+00B5 MICRO SIGN */
	{ "\xce\xbcs", 1e-6 }, /* U+03BC GREEK SMALL LETTER MU, its look-alike */
	{ "ms", 1e-3 },
	{ "s", 1.0 },
};

static const struct unit size_units[] = {
	{ "B", 1.0 },
	{ "kB", 1e3 },
	{ "KB", 1e3 },
	{ "MB", 1e6 },
	{ "GB", 1e9 },
	{ "TB", 1e12 },
	{ "KiB", 1024.0 },
	{ "MiB", 1048576.0 },
	{ "GiB", 1073741824.0 },
	{ "TiB", 1099511627776.0 },
};

#define NUMBER_MAX 64

/*
 * Scan a decimal number at the start of @s: digits, an optional fraction and
 * an optional exponent, with an optional leading minus so that "-5 GB/s" is
 * reported as negative rather than as not a number. On success *end points
 * just past it.
 */
static int scan_number(const char *s, double *v, const char **end)
{
	char buf[NUMBER_MAX];
	const char *p = s;
	size_t n, digits = 0;

	if (*p == '-' || *p == '+')
		p++;
	for (; *p >= '0' && *p <= '9'; p++)
		digits++;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			digits++;
	if (!digits)
		return -EINVAL;
	if (*p == 'e' || *p == 'E') {
		const char *q = p + 1;

		if (*q == '-' || *q == '+')
			q++;
		if (*q >= '0' && *q <= '9') {
			while (*q >= '0' && *q <= '9')
				q++;
			p = q;
		}
	}
	n = (size_t)(p - s);
	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*v = strtod(buf, NULL);
	*end = p;
	return 0;
}

/*
 * "number[ ]unit" with the unit from @units. Zero and negative values are
 * refused for every quantity gdrlab reads: a zero bandwidth or latency is
 * always a mistake (and a zero-latency link starves flows in SimGrid).
 */
static int parse_quantity(const char *s, const struct unit *units,
			  size_t nunits, double *out, const char **why,
			  const char *expected)
{
	const char *p;
	double v;
	size_t i;

	if (!s || scan_number(s, &v, &p)) {
		*why = expected;
		return -EINVAL;
	}
	if (*p == ' ')
		p++;
	for (i = 0; i < nunits; i++)
		if (strcmp(p, units[i].name) == 0)
			break;
	if (i == nunits) {
		*why = expected;
		return -EINVAL;
	}
	v *= units[i].scale;
	if (!isfinite(v)) {
		*why = "is out of range";
		return -EINVAL;
	}
	if (v <= 0) {
		*why = "must be greater than zero";
		return -EINVAL;
	}
	*out = v;
	return 0;
}

#define NUNITS(a) (sizeof(a) / sizeof((a)[0]))

int units_parse_bandwidth(const char *s, double *bytes_per_s, const char **why)
{
	return parse_quantity(s, bandwidth_units, NUNITS(bandwidth_units),
			      bytes_per_s, why,
			      "expected a bandwidth like '24 GB/s' or '200 Gbit/s'");
}

int units_parse_time(const char *s, double *seconds, const char **why)
{
	return parse_quantity(s, time_units, NUNITS(time_units), seconds, why,
			      "expected a time like '0.5 us' or '2 ms'");
}

int units_parse_size(const char *s, uint64_t *bytes, const char **why)
{
	double v;
	int err;

	err = parse_quantity(s, size_units, NUNITS(size_units), &v, why,
			     "expected a size like '1 MiB' or '4096 B'");
	if (err)
		return err;
	/* 2^64 is exactly representable; anything at or above it overflows. */
	if (v >= 18446744073709551616.0) {
		*why = "is out of range";
		return -EINVAL;
	}
	if (v != floor(v)) {
		*why = "must be a whole number of bytes";
		return -EINVAL;
	}
	*bytes = (uint64_t)v;
	return 0;
}

int units_parse_fraction(const char *s, double *fraction, const char **why)
{
	const char *p;
	bool percent = false;
	double v;

	if (!s || scan_number(s, &v, &p)) {
		*why = "expected a fraction like '0.95' or '95%'";
		return -EINVAL;
	}
	if (*p == ' ' && p[1] == '%')
		p++;
	if (*p == '%') {
		percent = true;
		p++;
	}
	if (*p) {
		*why = "expected a fraction like '0.95' or '95%'";
		return -EINVAL;
	}
	if (percent)
		v /= 100;
	if (!(v > 0 && v <= 1)) {
		*why = "must be in (0, 1] or (0%, 100%]";
		return -EINVAL;
	}
	*fraction = v;
	return 0;
}

/*
 * Per lane, per direction, after line encoding (PCI-SIG base specs):
 * gen1/2 are 2.5/5 GT/s with 8b/10b, gen3/4/5 are 8/16/32 GT/s with
 * 128b/130b. Gen6 runs 64 GT/s PAM4 (8 GB/s raw a lane a direction) in
 * FLIT mode only, with no 128b/130b: a 256-byte flit is 236 bytes of TLPs,
 * 6 of DLLP payload, 8 of CRC and 6 of FEC (PCIe 6.0 base spec, flit
 * layout). Taking off the CRC and FEC, as 128b/130b's sync headers are
 * taken off before, leaves 242/256 of the lane: 7.5625 GB/s, not the
 * 7.877 GB/s that 64 GT/s x 128/130 would give. TLP headers and DLLPs
 * stay inside the link efficiency, as on earlier generations.
 */
int units_pcie_lane_rate(unsigned gen, double *bytes_per_s)
{
	static const double rate[] = {
		[1] = 2.5e9 * 8 / 10 / 8,
		[2] = 5e9 * 8 / 10 / 8,
		[3] = 8e9 * 128 / 130 / 8,
		[4] = 16e9 * 128 / 130 / 8,
		[5] = 32e9 * 128 / 130 / 8,
		[6] = 64e9 * 242 / 256 / 8,
	};

	if (gen < 1 || gen >= NUNITS(rate))
		return -EINVAL;
	*bytes_per_s = rate[gen];
	return 0;
}
