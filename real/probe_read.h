/* SPDX-License-Identifier: MIT */
/* probe internals: reading sysfs attribute files, and the classification
 * step shared by probe_sysfs.c and probe_path.c. Not for use outside real/. */
#ifndef GDRLAB_PROBE_READ_H
#define GDRLAB_PROBE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "probe_sysfs.h"

/*
 * snprintf that says when it truncated: 0 or -ENAMETOOLONG. Used for every
 * path and name built from what a sysfs tree holds, which can be anything.
 */
int probe_fmt(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* First line of @dir/@name without its newline. 0 or -errno. */
int probe_read_line(const char *dir, const char *name, char *buf, size_t len);
/* The same, as a number in @base ("0x10de" is fine in base 16). */
int probe_read_long(const char *dir, const char *name, int base, long *v);
/* Up to @len bytes of @path; returns the count or -errno. */
long probe_read_bytes(const char *path, uint8_t *buf, size_t len);
/* "16.0 GT/s PCIe" -> 4; 0 when not a known PCIe rate. */
int probe_speed_gen(const char *speed);

/* "0000:17:00.0", lower case, whatever domain width a driver used (NVML's
 * has eight digits); anything else copied as it is. */
void probe_norm_bdf(const char *in, char *out, size_t len);
/* The index of @p's GPU at bus id @bdf (any spelling probe_norm_bdf
 * reads), or -1. */
int probe_gpu_at(const struct probe *p, const char *bdf);

/* Fold two-level Broadcom PEX switches into one, as NCCL (probe_bcm.c). */
void probe_flatten_bcm(struct probe *p);

/* Pair classes, bridges on each pair's path, their ACS (probe_path.c). */
void probe_classify(struct probe *p, const char *real_root);

#endif
