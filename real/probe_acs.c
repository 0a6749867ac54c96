/* SPDX-License-Identifier: MIT */
/*
 * probe_acs: the ACS extended capability (PCIe base spec, "ACS Extended
 * Capability", id 0x000D) in a config-space image read from sysfs.
 * Extended capabilities start at 0x100; each header holds the id in bits
 * 15:0, the version in 19:16 and the next offset in 31:20. The ACS control
 * register is at +6.
 */
#include "probe_sysfs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define EXT_CAP_START 0x100
#define PCI_CFG_NONROOT 64 /* what the kernel gives non-root readers */

static uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

int probe_acs_parse(const uint8_t *cfg, size_t len, uint16_t *ctrl)
{
	size_t off = EXT_CAP_START;
	unsigned hops;
	uint32_t h;

	if (len <= PCI_CFG_NONROOT)
		return -EACCES;
	if (len <= EXT_CAP_START)
		return -ENODATA;
	/* A list cannot have more entries than 4-byte slots: bounds a loop. */
	for (hops = 0; hops < 1024; hops++) {
		if (off + 8 > len || off < EXT_CAP_START || off % 4)
			return -EINVAL;
		h = le32(cfg + off);
		if (h == 0 || h == 0xffffffff)
			return -ENOENT;
		if ((h & 0xffff) == PROBE_ACS_ID) {
			*ctrl = (uint16_t)(cfg[off + 6] | cfg[off + 7] << 8);
			return 0;
		}
		off = h >> 20;
		if (!off)
			return -ENOENT;
	}
	return -EINVAL;
}

void probe_acs_flags(uint16_t ctrl, char *buf, size_t len)
{
	/* lspci's ACSCtl names, in bit order. */
	static const char *const names[] = { "SrcValid", "TransBlk", "ReqRedir",
					     "CmpltRedir", "UpstreamFwd",
					     "EgressCtrl", "DirectTrans" };
	size_t off = 0, i;

	buf[0] = '\0';
	for (i = 0; i < 7 && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s%c",
					i ? " " : "", names[i],
					ctrl & (1u << i) ? '+' : '-');
}

const char *probe_acs_state_name(enum probe_acs_state s)
{
	switch (s) {
	case PROBE_ACS_NEEDS_ROOT:
		return "unknown (needs root)";
	case PROBE_ACS_UNREADABLE:
		return "unknown (config unreadable)";
	case PROBE_ACS_NO_EXT:
		return "none (no extended config space)";
	case PROBE_ACS_ABSENT:
		return "none (no ACS capability)";
	case PROBE_ACS_CLEAR:
		return "clear";
	case PROBE_ACS_REDIRECT:
		return "redirect";
	}
	return "?";
}
