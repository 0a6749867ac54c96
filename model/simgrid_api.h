/* SPDX-License-Identifier: MIT */
/*
 * The SimGrid calls the model backend makes, through libsimgrid opened at
 * run time with RTLD_LOCAL (simgrid_api.c), not linked into gdrlab.
 *
 * Why: libsimgrid exports MPI_* and PMPI_* (SMPI). Linked in, they sit in
 * the process's global scope, ahead of a libmpi that the MPI bootstrap
 * (emu/boot_mpi.c) opens later, and libmpi's calls to its own MPI_Wtime
 * or PMPI_Sendrecv would go to SimGrid's. Opened locally, SimGrid's
 * symbols stay its own; libmpi needs no RTLD_DEEPBIND, which the
 * sanitizers refuse and which gave libmpi glibc's malloc under a gdrlab
 * allocating through jemalloc (model/CMakeLists.txt).
 */
#ifndef GDRLAB_SIMGRID_API_H
#define GDRLAB_SIMGRID_API_H

#include <stddef.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>

/* Each field has the type of the SimGrid function it is named after (a
 * header's inline wrapper: the exported function it calls). */
struct sgm_api {
	__typeof__(&simgrid_init) init;
	__typeof__(&simgrid_load_platform) load_platform;
	__typeof__(&simgrid_run) run;
	__typeof__(&simgrid_run_until) run_until;
	__typeof__(&simgrid_get_clock) get_clock;
	__typeof__(&sg_host_list) host_list;
	__typeof__(&sg_host_count) host_count;
	__typeof__(&sg_host_get_name) host_get_name;
	__typeof__(&sg_actor_init) actor_init;
	__typeof__(&sg_actor_set_data) actor_set_data;
	__typeof__(&sg_actor_self_get_data) actor_self_get_data;
	__typeof__(&sg_actor_start_) actor_start; /* sg_actor_start() wraps it */
	__typeof__(&sg_actor_sleep_for) actor_sleep_for;
	__typeof__(&sg_actor_parallel_exec_init) actor_parallel_exec_init;
	__typeof__(&sg_exec_start) exec_start;
	__typeof__(&sg_exec_wait) exec_wait;
	__typeof__(&sg_sem_init) sem_init;
	__typeof__(&sg_sem_acquire) sem_acquire;
	__typeof__(&sg_sem_release) sem_release;
	__typeof__(&sg_sem_destroy) sem_destroy;
};

/* Filled by sgm_api_load; all NULL before. */
extern struct sgm_api sgm;

/* Open libsimgrid (once a process) and find every call: 0, or a
 * negative errno and why not in @why ("cannot open libsimgrid.so.3.32:
 * ..."). */
int sgm_api_load(char *why, size_t len);

#endif
