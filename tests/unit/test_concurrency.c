/* SPDX-License-Identifier: MIT */
/*
 * Communicators at once (engine/schedule.c, engine/overlap.c) against
 * what the rule gives by hand on tests/data/round-numbers.yaml (one GPU
 * and one 10 GB/s NIC a node): collectives of one communicator and stream
 * wait for each other; those of different ones run at once, at full pace
 * where they share nothing, and at max-min fair rates where they share a
 * link, each capped at its stream's pace alone (its bytes over its busiest
 * stage's busy time), the rest of its time alone (launch, latencies)
 * following its stream unslowed.
 * Sends outside a batch run on their pair's own queue, as PyTorch runs
 * them on a two-rank communicator; a batch's sends start together.
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

/* One communicator, one stream: the second batch waits for the first. */
Test(concurrency, one_communicator_is_ordered)
{
	double t = alone(SEND(67108864, 0, 1, "a", ",\"group\":[0,1,2]"));
	struct run r;

	run_on(&r, "analytic", SEND(67108864, 0, 1, "a", ",\"group\":[0,1,2],\"batch\":1")
				       SEND(67108864, 0, 2, "a", ",\"batch\":2"));
	cr_expect_eq(r.rec.nqueues, 1);
	cr_expect_not(r.rec.coll[1].joins_batch);
	cr_expect_eq(r.rec.coll[1].start_us, r.rec.coll[0].end_us);
	assert_rel(r.rec.iteration_time_us, 2 * t, 1e-12);
	run_destroy(&r);
}

/* Outside a batch, one pair's sends wait for each other, both ways. */
Test(concurrency, a_pairs_sends_are_ordered)
{
	double t = alone(SEND(67108864, 0, 1, "a", ",\"group\":[0,1,2]"));
	struct run r;

	run_on(&r, "analytic", SEND(67108864, 0, 1, "a", ",\"group\":[0,1,2]")
				       SEND(67108864, 1, 0, "a", ""));
	cr_expect_eq(r.rec.nqueues, 1);
	cr_expect(r.rec.coll[1].pair_queue);
	cr_expect_eq(r.rec.coll[1].start_us, r.rec.coll[0].end_us);
	assert_rel(r.rec.iteration_time_us, 2 * t, 1e-12);
	run_destroy(&r);
}

/*
 * A batch: a 64 MiB send 0 -> 1 and a 16 MiB one 2 -> 3, the second's
 * buffer ready at 50 us, then a batch of one send 0 -> 1. Both of the
 * first start at 50, each ends at its time alone after it (they share no
 * link), and the next batch starts when the longer has ended.
 */
static void expect_batch_waits_for_its_last(const char *backend)
{
	double t01 = alone(SEND(67108864, 0, 1, "a", "")), t23 = alone(SEND(16777216, 2, 3, "a", ""));
	struct run r;

	run_on(&r, backend, SEND(67108864, 0, 1, "a", ",\"batch\":7")
				    SEND(16777216, 2, 3, "a", ",\"batch\":7,\"ready_us\":50")
					    SEND(67108864, 0, 1, "a", ",\"batch\":8"));
	cr_assert_eq(r.rec.ncoll, 3);
	cr_expect(r.rec.coll[1].joins_batch);
	cr_expect_not(r.rec.coll[2].joins_batch);
	assert_rel(r.rec.coll[0].start_us, 50, 1e-9); /* SimGrid's clock: to 1e-15 */
	assert_rel(r.rec.coll[1].start_us, 50, 1e-9);
	assert_rel(r.rec.coll[0].end_us, 50 + t01, 1e-9);
	assert_rel(r.rec.coll[1].end_us, 50 + t23, 1e-9);
	assert_rel(r.rec.coll[2].start_us, 50 + fmax(t01, t23), 1e-9);
	cr_expect_not(r.rec.overlapped);
	run_destroy(&r);
}

/*
 * A rank waits for its own part of a batch, not for the batch's other
 * ranks (NCCL launches a group as a kernel a rank): after a batch of a
 * 16 MiB send 0 -> 1 and a 64 MiB one 2 -> 3, a send 0 -> 1 starts when
 * the 16 MiB one ends, while 2 -> 3 still runs; an all-reduce of the
 * communicator waits for both.
 */
static void expect_a_rank_waits_for_its_own_sends(const char *backend)
{
	double t01 = alone(SEND(16777216, 0, 1, "a", "")), t23 = alone(SEND(67108864, 2, 3, "a", ""));
	struct run r;

	run_on(&r, backend, SEND(16777216, 0, 1, "a", ",\"batch\":7")
				    SEND(67108864, 2, 3, "a", ",\"batch\":7")
					    SEND(4096, 0, 1, "a", ",\"batch\":8")
		   "{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":4096,\"comm\":\"a\"}\n");
	cr_assert_eq(r.rec.ncoll, 4);
	assert_rel(r.rec.coll[2].start_us + 1, t01 + 1, 1e-9);
	cr_expect_gt(r.rec.coll[1].end_us, r.rec.coll[2].start_us);
	cr_expect_geq(r.rec.coll[3].start_us, r.rec.coll[1].end_us * (1 - 1e-12));
	assert_rel(r.rec.coll[1].end_us, t23, 1e-9);
	run_destroy(&r);
}

/*
 * Two sends of one rank in a batch, 64 MiB 0 -> 1 and 16 MiB 0 -> 2: the
 * smaller ends first; a send 0 -> 3 after the batch waits for both of
 * rank 0's, the larger's end (found by fuzz_replay: it waited for the
 * batch's last listed send of rank 0 only).
 */
static void expect_a_rank_waits_for_all_its_sends(const char *backend)
{
	struct run r;

	run_on(&r, backend, SEND(67108864, 0, 1, "a", ",\"batch\":1")
				    SEND(16777216, 0, 2, "a", ",\"batch\":1")
					    SEND(4096, 0, 3, "a", ",\"batch\":2"));
	cr_assert_eq(r.rec.ncoll, 3);
	cr_expect_lt(r.rec.coll[1].end_us, r.rec.coll[0].end_us);
	assert_rel(r.rec.coll[2].start_us, r.rec.coll[0].end_us, 1e-9);
	run_destroy(&r);
}

Test(concurrency, a_rank_waits_for_its_own_sends_of_a_batch)
{
	expect_a_rank_waits_for_its_own_sends("analytic");
	expect_a_rank_waits_for_all_its_sends("analytic");
}

Test(concurrency, a_batch_starts_together_and_the_next_waits_for_its_last)
{
	expect_batch_waits_for_its_last("analytic");
}

/*
 * Two 64 MiB sends out of node 0's one NIC at once: each gets half of its
 * 10 GB/s. The model backend simulates the two together in SimGrid:
 * their slices share the NIC at 5 GB/s each, after the launch and the
 * hop latency, as one call alone: 8.4 + 14 + S / 5 GB/s. The fluid
 * schedule (the analytic backend's, and the model's beyond what it
 * simulates together) gives the same: each is a flow capped at its
 * stream's pace alone (S over the NIC's busy time, 10 GB/s), stretched to
 * S / 5 GB/s, and its launch and hop latency follow it unslowed. Until
 * 2026-12-06 the fluid spread each call's latencies over its bytes (a
 * pace a little under 10 GB/s) and both ended at S / 5 GB/s, the NIC's
 * idle 22.4 us a call alone not added again. Two communicators, or two
 * streams of one, alike.
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
	expect_halves("analytic", TWO_SENDS, 8.4 + 14);
}

Test(concurrency, two_streams_of_one_communicator_share_too)
{
	expect_halves("analytic", SEND(67108864, 0, 1, "a", ",\"group\":[0,1,2]")
					  SEND(67108864, 0, 2, "a", ",\"stream\":1"), 8.4 + 14);
}

/*
 * One communicator of four ranks: batches 0 <-> 1 and 2 <-> 3 share no
 * rank and run at once; a batch 1 <-> 2 waits for both; the all-reduce
 * after it waits for it; a send outside a batch, on its pair's own
 * queue, waits for none of them.
 */
Test(concurrency, batches_wait_for_their_ranks_calls)
{
	double t01 = alone(SEND(67108864, 0, 1, "a", "")), t23 = alone(SEND(16777216, 2, 3, "a", ""));
	double t12 = alone(SEND(4194304, 1, 2, "a", ""));
	struct run r;

	run_on(&r, "analytic", SEND(67108864, 0, 1, "a", ",\"group\":[0,1,2,3],\"batch\":1")
				       SEND(16777216, 2, 3, "a", ",\"batch\":2")
					       SEND(4194304, 1, 2, "a", ",\"batch\":3")
		   "{\"iteration\":0,\"op\":\"allreduce\",\"bytes\":4096,\"comm\":\"a\"}\n"
		   SEND(4096, 3, 0, "a", ""));
	cr_assert_eq(r.rec.ncoll, 5);
	cr_expect_eq(r.rec.coll[0].start_us, 0);
	cr_expect_eq(r.rec.coll[1].start_us, 0);
	cr_expect_eq(r.rec.coll[2].start_us, fmax(t01, t23));
	assert_rel(r.rec.coll[3].start_us, fmax(t01, t23) + t12, 1e-12);
	cr_expect_eq(r.rec.coll[4].start_us, 0);
	cr_expect(r.rec.coll[4].pair_queue);
	run_destroy(&r);
}

/* Sends of other pairs outside a batch, on one communicator of three
 * ranks: each pair's own queue, at once, sharing node 0's NIC. */
Test(concurrency, sends_of_two_pairs_outside_a_batch_share)
{
	struct run r;

	run_on(&r, "analytic", SEND(67108864, 0, 1, "a", ",\"group\":[0,1,2]")
				       SEND(67108864, 0, 2, "a", ""));
	cr_expect_eq(r.rec.nqueues, 2);
	expect_halves_of(&r, 8.4 + 14);
	run_destroy(&r);
}

/* A batch's two sends out of node 0's NIC share it as two communicators'. */
Test(concurrency, a_batchs_sends_share)
{
	expect_halves("analytic", SEND(67108864, 0, 1, "a", ",\"batch\":0")
					  SEND(67108864, 0, 2, "a", ",\"batch\":0"), 8.4 + 14);
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

Test(concurrency, the_model_backend_runs_a_batch_together)
{
	struct run r;

	if (!have_model())
		cr_skip_test("model backend not testable here");
	expect_batch_waits_for_its_last("model");
	expect_a_rank_waits_for_its_own_sends("model");
	expect_a_rank_waits_for_all_its_sends("model");
	/* a batch of the same ranks after it waits for it, as in the fluid */
	run_on(&r, "model", SEND(67108864, 0, 1, "a", ",\"group\":[0,1,2,3],\"batch\":1")
				    SEND(16777216, 2, 3, "a", ",\"batch\":2")
					    SEND(4194304, 1, 2, "a", ",\"batch\":3"));
	assert_rel(r.rec.coll[1].start_us + 1, 1, 1e-12);
	assert_rel(r.rec.coll[2].start_us, r.rec.coll[0].end_us, 1e-12);
	run_destroy(&r);
	run_on(&r, "model", SEND(67108864, 0, 1, "a", ",\"batch\":0")
				    SEND(67108864, 0, 2, "a", ",\"batch\":0"));
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
	expect_halves_of(&r, 8.4 + 14);
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
 * A 4 KiB send beside the 64 MiB one, starting 100 us in. It goes Simple,
 * as NCCL's sends across nodes do at any size (their network connections
 * have no LL buffers: net.cc, NCCL_ALLOC_P2P_NET_LL_BUFFERS=0): one
 * slice through the NIC, which it shares half and half with the big
 * one's stream, 4096 B / 5 GB/s where it took 4096 B / 10 GB/s alone;
 * its launch and hop latency are its own. Each ends 4096 B / NIC later
 * than alone, as SimGrid has them (the model backend, together). Until
 * 2026-12-06 the small one kept its time alone t, its pace 4096 B / t,
 * under 1 GB/s with the latencies spread over its bytes.
 */
Test(concurrency, a_small_call_shares_the_nic_for_its_bytes_alone)
{
	double T = alone(SEND(67108864, 0, 1, "a", "")), t = alone(SEND(4096, 0, 2, "b", ""));
	double lost = 4096 / NIC * 1e6;
	struct run r;

	run_on(&r, "analytic", SEND(67108864, 0, 1, "a", "")
				       SEND(4096, 0, 2, "b", ",\"ready_us\":100"));
	cr_assert_eq(r.rec.coll[1].proto, PROTO_SIMPLE);
	cr_assert_eq(r.rec.coll[0].proto, PROTO_SIMPLE);
	cr_expect_eq(r.rec.coll[1].start_us, 100);
	assert_rel(r.rec.coll[1].time_us, t + lost, 1e-9);
	assert_rel(r.rec.coll[0].end_us, T + lost, 1e-9);
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
