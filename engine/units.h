/* SPDX-License-Identifier: MIT */
/*
 * units: quantities with units, as written in topology files and on the
 * command line ("200 Gbit/s", "24 GB/s", "0.5 us", "1 MiB", "90%").
 *
 * Internally gdrlab keeps bytes, bytes per second and seconds as doubles.
 * Decimal prefixes are powers of 1000 (GB/s = 1e9 bytes/s, as nccl-tests
 * reports), binary prefixes (KiB, MiB, GiB) powers of 1024. Bandwidth needs
 * its unit: a bare number is rejected, because "24" could be GB/s or Gbit/s.
 */
#ifndef GDRLAB_UNITS_H
#define GDRLAB_UNITS_H

#include <stdint.h>

/* Each returns 0, or -EINVAL with a short reason in @why (static string). */
int units_parse_bandwidth(const char *s, double *bytes_per_s, const char **why);
int units_parse_time(const char *s, double *seconds, const char **why);
int units_parse_size(const char *s, uint64_t *bytes, const char **why);
/* A plain fraction in (0, 1] or a percentage in (0%, 100%]. */
int units_parse_fraction(const char *s, double *fraction, const char **why);

/* PCIe data rate per direction per lane after line encoding, bytes/s. */
int units_pcie_lane_rate(unsigned gen, double *bytes_per_s);

#endif
