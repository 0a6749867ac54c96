/* SPDX-License-Identifier: MIT */
/*
 * Communicators at once (engine/schedule.c, engine/overlap.c) against
 * what the rule gives by hand on tests/data/round-numbers.yaml (one GPU
 * and one 10 GB/s NIC a node): collectives of one communicator and stream
 * wait for each other; those of different ones run at once, at full pace
 * where they share nothing, and at max-min fair rates where they share a
 * link, each capped at its pace alone (its bytes over its time alone).
 * Each time alone comes from a run of that collective by itself, so these
 * check the schedule, not the backend's timing.
 */
#include <math.h>
#include <stdio.h>

#include "helpers.h"
#include "simgrid.h"

#define S (64.0 * 1048576)  /* bytes of each big transfer */
#define NIC 10e9            /* bytes/s: 80 Gbit/s, efficiency 1 */

#define SEND(bytes, src, dst, comm, extra)                                            \
	"{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":" #bytes ",\"dtype\":\"fp32\","  \
	"\"src\":" #src ",\"dst\":" #dst ",\"comm\":\"" comm "\"" extra "}\n"

static struct plan_options four_nodes(void)
{
	struct plan_options o;

	plan_options_default(&o);
	o.path = PLAN_PATH_DIRECT;
	o.nodes = 4;
	return o;
}

static void run_on(struct run *r, const char *backend, const char *jsonl)
{
	struct plan_options o = four_nodes();

	run_trace(r, backend, DATA("round-numbers.yaml"), jsonl, &o);
}

/* The time of one line run by itself. */
static double alone(const char *line)
{
	struct run r;
	double t;

	run_on(&r, "analytic", line);
	t = r.rec.coll[0].time_us;
	run_destroy(&r);
	return t;
}

/* Different nodes, different NICs: each takes its time alone, exactly. */
Test(concurrency, disjoint_links_take_the_slower_alone)
{
	double t01 = alone(SEND(67108864, 0, 1, "a", "")), t23 = alone(SEND(16777216, 2, 3, "b", ""));
	struct run r;

	run_on(&r, "analytic", SEND(67108864, 0, 1, "a", "") SEND(16777216, 2, 3, "b", ""));
	cr_expect_eq(r.rec.coll[0].start_us, 0);
	cr_expect_eq(r.rec.coll[1].start_us, 0);
	cr_expect_eq(r.rec.coll[0].end_us, t01);
	cr_expect_eq(r.rec.coll[1].end_us, t23);
	cr_expect_eq(r.rec.iteration_time_us, fmax(t01, t23));
	cr_expect_not(r.rec.overlapped);
	cr_expect_eq(r.rec.nqueues, 2);
	run_destroy(&r);
}

/* One communicator, one stream: the second waits for the first. */
Test(concurrency, one_communicator_is_ordered)
{
	double t = alone(SEND(67108864, 0, 1, "a", ",\"group\":[0,1,2]"));
	struct run r;

	run_on(&r, "analytic", SEND(67108864, 0, 1, "a", ",\"group\":[0,1,2]")
				       SEND(67108864, 0, 2, "a", ""));
	cr_expect_eq(r.rec.nqueues, 1);
	cr_expect_eq(r.rec.coll[1].start_us, r.rec.coll[0].end_us);
	assert_rel(r.rec.iteration_time_us, 2 * t, 1e-12);
	run_destroy(&r);
}

/*
 * Two 64 MiB sends out of node 0's one NIC at once: each gets half of its
 * 10 GB/s. In the fluid schedule (the analytic backend's, and the model's
 * beyond what it simulates together) each is a flow capped at its pace
 * alone (S over its time alone, a little under 10 GB/s for the
 * latencies), so both end at S / 5 GB/s: the fluid spreads each call's
 * latencies over its bytes, and the NIC's idle 22.4 us a call alone are
 * not added again. The model backend simulates the two together in
 * SimGrid: their slices share the NIC at 5 GB/s each, after the launch
 * and the hop latency, as one call alone: 8.4 + 14 + S / 5 GB/s. Two
 * communicators, or two streams of one, alike.
 */
static void expect_halves_of(struct run *r, double extra_us)
{
	cr_assert_eq(r->rec.ncoll, 2);
	for (int i = 0; i < 2; i++) {
		cr_expect_eq(r->rec.coll[i].start_us, 0);
		assert_rel(r->rec.coll[i].end_us, S / (NIC / 2) * 1e6 + extra_us, 1e-9);
		cr_expect_lt(r->rec.coll[i].alone_us, r->rec.coll[i].time_us / 1.99);
	}
	cr_expect(r->rec.overlapped);
}

static void expect_halves(const char *backend, const char *jsonl, double extra_us)
{
	struct run r;

	run_on(&r, backend, jsonl);
	expect_halves_of(&r, extra_us);
	run_destroy(&r);
}

#define TWO_SENDS SEND(67108864, 0, 1, "a", "") SEND(67108864, 0, 2, "b", "")

Test(concurrency, one_shared_nic_gives_each_half)
{
	expect_halves("analytic", TWO_SENDS, 0);
}

Test(concurrency, two_streams_of_one_communicator_share_too)
{
	expect_halves("analytic", SEND(67108864, 0, 1, "a", ",\"group\":[0,1,2]")
					  SEND(67108864, 0, 2, "a", ",\"stream\":1"), 0);
}

static bool have_model(void)
{
	const struct backend_ops *m = backend_find("model");
	char why[256] = "";

	if (!m || backend_probe(m, why, sizeof(why))) {
		printf("concurrency: model skipped: %s\n", m ? why : "not built");
		return false;
	}
	return true;
}

Test(concurrency, the_model_backend_shares_in_simgrid)
{
	struct run r;

	if (!have_model())
		cr_skip_test("model backend not testable here");
	run_on(&r, "model", TWO_SENDS);
	cr_expect_eq(r.rec.sharing, RECORDS_SHARED_SIMGRID);
	expect_halves_of(&r, 8.4 + 14);
	run_destroy(&r);
}

/* Simulated together on disjoint links, each takes its time alone. */
Test(concurrency, the_model_backend_on_disjoint_links)
{
	struct run r;

	if (!have_model())
		cr_skip_test("model backend not testable here");
	run_on(&r, "model", SEND(67108864, 0, 1, "a", "") SEND(16777216, 2, 3, "b", ""));
	cr_expect_eq(r.rec.sharing, RECORDS_SHARED_SIMGRID);
	for (int i = 0; i < 2; i++) {
		cr_expect_eq(r.rec.coll[i].start_us, 0);
		assert_rel(r.rec.coll[i].time_us, r.rec.coll[i].alone_us, 1e-9);
	}
	cr_expect_not(r.rec.overlapped);
	run_destroy(&r);
}

/* The model's times alone through the engine's fluid schedule give the
 * analytic backend's answer. */
Test(concurrency, the_model_backend_fluid_is_the_analytic_answer)
{
	struct model_options mo = { .fluid = true };
	struct plan_options o = four_nodes();
	struct diag d = { "" };
	struct run r;

	if (!have_model())
		cr_skip_test("model backend not testable here");
	cr_assert_eq(topology_load(DATA("round-numbers.yaml"), &r.topo, &d), 0, "%s", d.msg);
	cr_assert_eq(trace_load_buffer(TWO_SENDS, strlen(TWO_SENDS), "two.jsonl", &r.trace, &d), 0);
	cr_assert_eq(plan_build(&r.plan, &r.topo, &r.trace, &o, &d), 0, "%s", d.msg);
	cr_assert_eq(records_init(&r.rec, &r.plan, "model"), 0);
	cr_assert_eq(model_simulate(&r.plan, &mo, &r.rec, NULL, &d), 0, "%s", d.msg);
	cr_assert_eq(records_schedule(&r.rec, &r.plan), 0);
	cr_expect_eq(r.rec.sharing, RECORDS_SHARED_FLUID);
	expect_halves_of(&r, 0);
	run_destroy(&r);
}

/*
 * The second starts halfway through the first's time alone T. The first
 * has then S/2 left and, sharing, moves at NIC / 2: it ends at T/2 + S/NIC.
 * By then the second has moved S/2 at NIC / 2, half of its work, and
 * finishes the other half alone in T/2: it ends at T + S/NIC.
 */
Test(concurrency, a_late_start_shares_from_then_on)
{
	double T = alone(SEND(67108864, 0, 1, "a", "")), half = T / 2;
	char jsonl[512];
	struct run r;

	snprintf(jsonl, sizeof(jsonl), "%s{\"iteration\":0,\"op\":\"sendrecv\",\"bytes\":67108864,"
		 "\"dtype\":\"fp32\",\"src\":0,\"dst\":2,\"comm\":\"b\",\"ready_us\":%.17g}\n",
		 SEND(67108864, 0, 1, "a", ""), half);
	run_on(&r, "analytic", jsonl);
	cr_expect_eq(r.rec.coll[1].start_us, half);
	assert_rel(r.rec.coll[0].end_us, half + S / NIC * 1e6, 1e-9);
	assert_rel(r.rec.coll[1].end_us, T + S / NIC * 1e6, 1e-9);
	run_destroy(&r);
}

/*
 * A 4 KiB send beside the 64 MiB one, starting 100 us in: it wants only
 * its pace alone p = 4096 B / t (under 1 GB/s), so it keeps it and takes
 * exactly its time alone t. It goes Simple, as NCCL's sends across
 * nodes do at any size (their network connections have no LL buffers:
 * net.cc, NCCL_ALLOC_P2P_NET_LL_BUFFERS=0), so it takes p of the NIC; the
 * big one gets NIC - p meanwhile instead of its pace alone P = S / T,
 * and ends later by t (1 - (NIC - p) / P).
 */
Test(concurrency, a_small_call_keeps_its_pace_beside_a_large_one)
{
	double T = alone(SEND(67108864, 0, 1, "a", "")), t = alone(SEND(4096, 0, 2, "b", ""));
	double P = S / (T * 1e-6), p = 4096 / (t * 1e-6);
	struct run r;

	run_on(&r, "analytic", SEND(67108864, 0, 1, "a", "")
				       SEND(4096, 0, 2, "b", ",\"ready_us\":100"));
	cr_assert_eq(r.rec.coll[1].proto, PROTO_SIMPLE);
	cr_assert_eq(r.rec.coll[0].proto, PROTO_SIMPLE);
	cr_expect_eq(r.rec.coll[1].start_us, 100);
	cr_expect_eq(r.rec.coll[1].time_us, t, "the small call is not slowed");
	assert_rel(r.rec.coll[0].end_us, T + t * (1 - (NIC - p) / P), 1e-9);
	run_destroy(&r);
}

/* Iterations still follow one another: the second's collectives wait for
 * the first's, whatever their communicators. */
Test(concurrency, iterations_do_not_overlap)
{
	double T = alone(SEND(67108864, 0, 1, "a", ""));
	struct run r;

	run_on(&r, "analytic", SEND(67108864, 0, 1, "a", "")
		   "{\"iteration\":1,\"op\":\"sendrecv\",\"bytes\":67108864,\"dtype\":\"fp32\","
		   "\"src\":2,\"dst\":3,\"comm\":\"b\"}\n");
	cr_expect_eq(r.rec.coll[1].start_us, T);
	cr_expect_eq(r.rec.iteration_time_us, T);
	run_destroy(&r);
}
