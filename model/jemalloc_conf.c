/* SPDX-License-Identifier: MIT */
/*
 * jemalloc's options for every program that links the model backends
 * (linked only where jemalloc is: model/CMakeLists.txt pulls this file in
 * with -u malloc_conf). jemalloc reads the program's `malloc_conf` string
 * at start-up, before its own defaults' file and MALLOC_CONF, which still
 * override it (jemalloc(3), TUNING).
 *
 * The analytic backend's 1024-node calls each take and free some tens of
 * MiB of per-connection arrays (conn_rate is 72 bytes, 144 until
 * 2026-12-06; 131 056 connections a tree pattern on the A100 preset). By default jemalloc
 * serves a request of 8 MiB or more from an arena that keeps nothing
 * (opt.oversize_threshold) and hands the pages of what is freed back to
 * the kernel: each call faulted its arrays in afresh (the Llama-2-7B
 * 1024 x 8 run: 108 000 page faults of 4 KiB, 70 600 with these
 * options). So:
 *
 * oversize_threshold:0: no such arena; large requests are served, and
 * their freed pages kept, as every other.
 *
 * muzzy_decay_ms:-1: freed pages, once past their dirty decay
 * (MADV_FREE), are never purged: touched again, they fault only if the
 * kernel has taken them under memory pressure, which it may.
 *
 * Transparent huge pages (thp:always, 2026-12-04 to 2026-12-05) are left
 * to the kernel's default again: they made each fault cheaper on a host
 * whose faults were dear, but a run started cold (a minute's idle) paid
 * 0.3-0.4 s of system time compacting memory for them, the staged run
 * 1.07-1.18 s against 0.78-0.82 without (docs/performance.md).
 */
const char *malloc_conf = "oversize_threshold:0,muzzy_decay_ms:-1";
