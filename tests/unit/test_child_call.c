/* SPDX-License-Identifier: MIT */
/*
 * child_call (engine/child_call.c): a child's answer and its error come
 * back, a child that dies is an error, not a crash; and a waiting parent
 * ticks while a slow child runs.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>

#include "child_call.h"

/* Sleeps *@arg milliseconds, then answers 42, or fails with -EDOM where
 * the sleep is negative, or dies where it is -1000. */
static int sleepy(void *arg, void *answer, size_t len, struct diag *d)
{
	int ms = *(const int *)arg;
	struct timespec ts;

	if (ms == -1000)
		raise(SIGKILL);
	if (ms < 0)
		return diag_set(d, -EDOM, "asked to fail");
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	nanosleep(&ts, NULL);
	cr_assert_eq(len, sizeof(int));
	*(int *)answer = 42;
	return 0;
}

static void count(void *ctx)
{
	(*(unsigned *)ctx)++;
}

Test(child_call, answers_and_errors_come_back)
{
	struct diag d = { "" };
	int ms = 0, answer = 0;

	cr_assert_eq(child_call("sleepy", sleepy, &ms, &answer, sizeof(answer), &d), 0, "%s",
		     d.msg);
	cr_expect_eq(answer, 42);
	ms = -1;
	cr_expect_eq(child_call("sleepy", sleepy, &ms, &answer, sizeof(answer), &d), -EDOM);
	cr_expect_str_eq(d.msg, "asked to fail");
	ms = -1000;
	cr_expect_eq(child_call("sleepy", sleepy, &ms, &answer, sizeof(answer), &d), -EIO);
	cr_expect(strstr(d.msg, "sleepy: the process died of signal 9"), "%s", d.msg);
}

/* A child that takes 800 ms outlasts the first 250 ms wait at least:
 * the parent ticks (how often depends on the host's load, so no more is
 * asserted), and still takes the answer or the death. */
Test(child_call, a_waiting_parent_ticks)
{
	struct diag d = { "" };
	unsigned ticks = 0;
	struct child_tick tick = { count, &ticks };
	int ms = 800, answer = 0;

	cr_assert_eq(child_call_ticking("sleepy", sleepy, &ms, &answer, sizeof(answer), &tick, &d),
		     0, "%s", d.msg);
	cr_expect_eq(answer, 42);
	cr_expect(ticks >= 1, "no tick over 800 ms");
	ms = -1000;
	cr_expect_eq(child_call_ticking("sleepy", sleepy, &ms, &answer, sizeof(answer), &tick, &d),
		     -EIO);
	cr_expect(strstr(d.msg, "died of signal 9"), "%s", d.msg);
}
