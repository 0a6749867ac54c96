/* SPDX-License-Identifier: MIT */
/* libsimgrid opened at run time, locally (simgrid_api.h says why). */
#include "simgrid_api.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

struct sgm_api sgm;

int sgm_api_load(char *why, size_t len)
{
	static const struct {
		const char *name;
		size_t offset;
	} calls[] = {
#define CALL(field, name) { name, offsetof(struct sgm_api, field) }
		CALL(init, "simgrid_init"),
		CALL(load_platform, "simgrid_load_platform"),
		CALL(run, "simgrid_run"),
		CALL(run_until, "simgrid_run_until"),
		CALL(get_clock, "simgrid_get_clock"),
		CALL(host_list, "sg_host_list"),
		CALL(host_count, "sg_host_count"),
		CALL(host_get_name, "sg_host_get_name"),
		CALL(actor_init, "sg_actor_init"),
		CALL(actor_set_data, "sg_actor_set_data"),
		CALL(actor_self_get_data, "sg_actor_self_get_data"),
		CALL(actor_start, "sg_actor_start_"),
		CALL(actor_sleep_for, "sg_actor_sleep_for"),
		CALL(actor_parallel_exec_init, "sg_actor_parallel_exec_init"),
		CALL(exec_start, "sg_exec_start"),
		CALL(exec_wait, "sg_exec_wait"),
		CALL(sem_init, "sg_sem_init"),
		CALL(sem_acquire, "sg_sem_acquire"),
		CALL(sem_release, "sg_sem_release"),
		CALL(sem_destroy, "sg_sem_destroy"),
#undef CALL
	};
	struct sgm_api api;
	void *lib;

	if (sgm.init)
		return 0;
	/* NODELETE: SimGrid's atexit handlers and thread-locals outlive any
	 * handle; it is never closed. The file the build found, else its
	 * name where the loader looks (a binary moved to another machine). */
	lib = dlopen(GDRLAB_SIMGRID_LIBRARY, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!lib && strrchr(GDRLAB_SIMGRID_LIBRARY, '/'))
		lib = dlopen(strrchr(GDRLAB_SIMGRID_LIBRARY, '/') + 1,
			     RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!lib) {
		snprintf(why, len, "cannot open %s: %s", GDRLAB_SIMGRID_LIBRARY, dlerror());
		return -ENOENT;
	}
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		void *f = dlsym(lib, calls[i].name);

		if (!f) {
			snprintf(why, len, "%s has no %s: not the SimGrid gdrlab was built with",
				 GDRLAB_SIMGRID_LIBRARY, calls[i].name);
			return -ENOENT;
		}
		/* POSIX: a function's address read out of dlsym's void * */
		*(void **)((char *)&api + calls[i].offset) = f;
	}
	sgm = api;
	return 0;
}
