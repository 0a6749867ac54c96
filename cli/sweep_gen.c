/* SPDX-License-Identifier: MIT */
/*
 * A sweep plan's generator: points whose trace `gdrlab gen llm` makes, in
 * the point's own process, from options the plan gives in its base (`gen:
 * { model: llama3-8b, tp: 8, dp: 2 }`) and varies on axes (`gen.model`,
 * `gen.dp`). A point keeps its options as "key=value" lines, the keys as
 * the plan spells them (micro_batches), gen llm's with '-' (micro-batches).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_gen.h"
#include "sweep.h"

/* Where line "@key=" starts in @gen, or NULL. */
static char *find_line(const char *gen, const char *key)
{
	size_t n = strlen(key);

	for (const char *l = gen; *l; l = strchr(l, '\n') + 1) {
		if (!strncmp(l, key, n) && l[n] == '=')
			return (char *)l;
		if (!strchr(l, '\n'))
			break;
	}
	return NULL;
}

int sweep_gen_put(char *gen, size_t len, const char *key, const char *value)
{
	char *l = find_line(gen, key);
	size_t used;

	if (l) /* drop the old line: the new one goes last */
		memmove(l, strchr(l, '\n') + 1, strlen(strchr(l, '\n') + 1) + 1);
	used = strlen(gen);
	if (used + strlen(key) + strlen(value) + 3 > len)
		return -E2BIG;
	snprintf(gen + used, len - used, "%s=%s\n", key, value);
	return 0;
}

const char *sweep_gen_get(const char *gen, const char *key, char *buf, size_t len)
{
	const char *l = find_line(gen, key), *v;

	if (!l)
		return NULL;
	v = l + strlen(key) + 1;
	snprintf(buf, len, "%.*s", (int)(strchr(v, '\n') - v), v);
	return buf;
}

/* gen llm's name of the plan's @key: '_' as '-'. */
static void option_name(const char *key, char *buf, size_t len)
{
	snprintf(buf, len, "%s", key);
	for (char *c = buf; *c; c++)
		*c = *c == '_' ? '-' : *c;
}

int sweep_gen_check(const char *key, const char *value, struct diag *d)
{
	struct gen_llm_args a;
	char name[64];

	/* a point keeps its options a line each: a line break would split
	 * one (YAML folds a blank line in a plain scalar into one) */
	if (strchr(value, '\n'))
		return diag_set(d, -EINVAL, "a line break in a value of gen llm's");
	gen_llm_args_init(&a);
	option_name(key, name, sizeof(name));
	return gen_llm_set(&a, name, value, d) ? -EINVAL : 0;
}

int sweep_gen_args(const char *gen, struct gen_llm_args *a, struct diag *d)
{
	char key[64], name[64], value[SWEEP_VALUE_MAX];

	gen_llm_args_init(a);
	for (const char *l = gen; *l; l = strchr(l, '\n') + 1) {
		const char *eq = strchr(l, '='), *end = strchr(l, '\n');

		snprintf(key, sizeof(key), "%.*s", (int)(eq - l), l);
		snprintf(value, sizeof(value), "%.*s", (int)(end - eq - 1), eq + 1);
		option_name(key, name, sizeof(name));
		if (gen_llm_set(a, name, value, d))
			return -EINVAL;
	}
	return gen_llm_finish(a, d) ? -EINVAL : 0;
}

/*
 * The gen llm command of a point's options. @gpu_tflops (0: none) is the
 * rate the point's process took from its topology where the plan gave
 * none: gen llm's own default is an H100's, so the command without it
 * made another trace than the point ran (an A100 point's compute at
 * 989.5 TFLOP/s, not 312). Written as the shortest %g that reads back.
 */
void sweep_gen_command(const char *gen, double gpu_tflops, char *buf, size_t len)
{
	size_t at = (size_t)snprintf(buf, len, "gdrlab gen llm");

	for (const char *l = gen; *l && at < len; l = strchr(l, '\n') + 1) {
		const char *eq = strchr(l, '='), *end = strchr(l, '\n');
		char key[64], name[64];
		int k;

		snprintf(key, sizeof(key), "%.*s", (int)(eq - l), l);
		option_name(key, name, sizeof(name));
		if (!strncmp(eq + 1, "true\n", 5))
			k = snprintf(buf + at, len - at, " --%s", name);
		else if (!strncmp(eq + 1, "false\n", 6))
			k = 0;
		else
			k = snprintf(buf + at, len - at, " --%s %.*s", name, (int)(end - eq - 1), eq + 1);
		at += k > 0 ? (size_t)k : 0;
	}
	if (gpu_tflops > 0 && at < len) {
		char num[32];
		int prec = 15;

		do
			snprintf(num, sizeof(num), "%.*g", prec, gpu_tflops);
		while (strtod(num, NULL) != gpu_tflops && ++prec <= 17);
		snprintf(buf + at, len - at, " --gpu-tflops %s", num);
	}
}
