/* SPDX-License-Identifier: MIT */
/*
 * emu_memory: what an emu run needs in memory, checked before any rank
 * starts, and what to tell the user when the kernel's OOM killer ended a
 * rank anyway (a bare "killed by signal 9" says neither).
 */
#ifndef GDRLAB_EMU_MEMORY_H
#define GDRLAB_EMU_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "plan.h"

/* Bytes one rank of @p allocates: its "GPU" arena (data region and
 * receive slots), its bounce buffers, the data check's host copies, and
 * a process's own share (libraries, verbs queues). */
uint64_t emu_rank_memory(const struct plan *p);

/* @ranks ranks of @p on this host against MemAvailable: -ENOMEM with the
 * figures and how to get more when they do not fit. */
int emu_memory_check(const struct plan *p, unsigned ranks, struct diag *d);

/* The kernel's count of OOM kills so far (/proc/vmstat oom_kill), or
 * UINT64_MAX where it cannot be read. */
uint64_t emu_oom_kills(void);

/* Where more memory comes from, for a message: the VM guest's size and
 * GDRLAB_VM_MEM inside the harness, else the host's MemAvailable. */
void emu_memory_advice(char *buf, size_t len);

#endif
