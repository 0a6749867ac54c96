/* SPDX-License-Identifier: MIT */
/*
 * jemalloc's options for every program that links the model backends
 * (linked only where jemalloc is: model/CMakeLists.txt pulls this file in
 * with -u malloc_conf). jemalloc reads the program's `malloc_conf` string
 * at start-up, before its own defaults' file and MALLOC_CONF, which still
 * override it (jemalloc(3), TUNING).
 *
 * thp:always: jemalloc asks for transparent huge pages on the memory it
 * maps (madvise(MADV_HUGEPAGE), honoured where the kernel's THP mode is
 * "madvise" or "always"; a no-op under "never"). The analytic backend's
 * 1024-node runs fill some hundred MiB of per-connection arrays once
 * (conn_rate is 144 bytes, 131 056 connections a tree pattern on the
 * A100 preset), and each 4 KiB page's first touch is a page fault: on a
 * virtual machine whose faults are dear, a quarter of the Llama-2-7B 1024
 * x 8 staged run's samples were page faults and the memcpy taking them.
 * With 2 MiB pages that run went from 1.14-1.17 s to 0.56-0.86 s, its
 * peak RSS from 120 to 131-139 MiB (docs/performance.md).
 */
const char *malloc_conf = "thp:always";
