/* SPDX-License-Identifier: MIT */
/*
 * What the analytic backend's files share (analytic.c times the calls,
 * analytic_share.c finds the links and solves their max-min shares,
 * analytic_depth.c makes the solves by depth, analytic_slice.c turns a
 * connection's shares into its slice times, analytic_fill.c shares a
 * filling chain's links by the time its slices move, analytic_rooms.c
 * gives each worker its own room to solve in).
 */
#ifndef GDRLAB_ANALYTIC_INTERNAL_H
#define GDRLAB_ANALYTIC_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fill_sets.h"
#include "maxmin.h"
#include "plan.h"
#include "records.h"

/*
 * What a route gives each slice of its connections besides their shares:
 * each segment's per-slice work and how the slots turn over
 * (pipeline_slot_period). One a route, found once a pattern (ways_for):
 * a pattern has a few routes and up to a million connections, whose
 * rates are held twice (the depth shares and the call's by time).
 */
struct route_way {
	double seg_ovh[PLAN_MAX_STAGES]; /* per-slice work per segment */
	double latency;                  /* its links' (plan_route.latency) */
	bool proxy;                      /* NCCL's proxy's two FIFOs
					  * (plan_route_proxy_fifos); else one */
	unsigned send_last, recv_first;
	double cut_grain;                /* a route that cuts through several
					  * segments (route_cuts_segments):
					  * its protocol's grain; else 0 */
};

/* What sharing leaves one connection, in payload bytes/s. */
struct conn_rate {
	double rate;                       /* all its segments busy at once */
	double seg_bw[PLAN_MAX_STAGES];    /* per segment, competing only with
					    * the same segment of the others
					    * (while slices fill the pipe) */
	double fill;                       /* while a chain has fewer slices
					    * than phases: shared with the
					    * connections of the phases its
					    * slices overlap (solve_fill) */
	double cut_rate;                   /* a route that cuts through several
					    * segments: its share with all of
					    * them busy at once, as a slice
					    * crosses them, the stream's limit
					    * aside (cut_shares); else 0 */
	unsigned nseg;
	bool held;                         /* its rate is its pipe's pace,
					    * below its links' share (solve:
					    * it waits, its links idle) */
};

struct rates {
	unsigned nchannels;
	uint32_t window;     /* phases either side moving at once
			      * (solve_fill), or NO_FILL */
	struct conn_rate *c; /* per connection of the pattern */
};

/* A call timed: a trace's buckets come back in turn, a few sizes each. */
struct timed {
	uint64_t bytes;
	unsigned nch;
	struct coll_record rec;
};

#define TIMED_MAX 16 /* calls remembered a pattern, the oldest replaced */


/*
 * Every connection's links through all its segments (conn_uses, seg -1),
 * found once a pattern: the steady and the fill shares and the busiest
 * link all read them, call after call.
 */
struct conn_links {
	struct maxmin_use *uses; /* weighted per byte of volume, as share_conns()
				  * weighs them */
	double *weight;          /* each use's weight per payload byte, as
				  * conn_uses gives it (busiest_link) */
	size_t *first;           /* nconns + 1: connection i's uses are
				  * uses[first[i]] .. uses[first[i + 1] - 1];
				  * NULL until found */
	double *private_cap;     /* per connection, conn_uses' */
};

/*
 * The sets of a pattern's connections that share limited links only among
 * themselves, inside one node, and which of them are alike
 * (analytic_twins.c): a solve takes one of each alike set that it selects
 * alike, the others getting its rates.
 */
#define TWIN_NONE UINT32_MAX

struct twins {
	uint32_t *slot;      /* per connection: its place, its set's first
			      * place + its index in its set; TWIN_NONE
			      * outside such sets */
	uint32_t *slot_conn; /* per place: the connection */
	uint32_t *slot_set;  /* per place: its set */
	uint32_t *set_first; /* nsets + 1: set s's places from set_first[s] */
	uint32_t *set_words; /* nsets + 1: set s's words of twin_marks.mask */
	uint32_t *set_class; /* per set: the first set alike */
	uint32_t nsets, nslots;
	uint32_t most;       /* connections in the largest set */
	uint32_t *others;    /* the connections outside twin sets, in order */
	size_t nothers;
	bool found;
};

/* One solve's sets: which of their connections it selects, and the set
 * whose rates each takes. */
struct twin_marks {
	uint32_t *stamp;   /* per set: the solve that last selected from it */
	uint32_t now;
	uint32_t *rep;     /* per set selected: the first alike, selected alike */
	uint32_t *touched; /* the sets selected, in order */
	size_t ntouched;
	uint64_t *mask;    /* per set's words: the connections selected */
	uint32_t *table;   /* room: sets by class and mask */
	size_t room;
};

struct pattern_state {
	struct rates *r;     /* solved channel counts */
	size_t nr;
	struct conn_links links;
	struct twins twins;  /* found with the first depth shares */
	struct route_way *ways; /* per route; NULL until found */
	struct timed timed[TIMED_MAX];
	unsigned ntimed, next_timed;
};

/* Room for one segment's links a solve, kept from one call's solves to
 * the next: grown again for every call, its pages faulted in afresh. */
struct use_pool {
	struct maxmin_use *uses;
	size_t room;
};

struct solver {
	const struct plan *p;
	const double *cap;
	size_t nres;
	struct maxmin_ws *mm;   /* analytic_run's, for every solve of the run */
	struct use_pool *pool;  /* analytic_run's too: share_ws borrows it */
	unsigned nworkers;      /* solves side by side (workers.h) */
	bool every_conn;        /* no twin sets (GDRLAB_ANALYTIC_EVERY_CONN):
				 * every connection solved, to check them */
};

/*
 * Phases: which connections move at once while a pipe fills (phases()),
 * and each phase's connections in order, for the solves of one phase.
 */
struct phase_index {
	uint32_t *phase;  /* per connection */
	uint32_t nphases;
	uint32_t *order;  /* every connection, phase by phase, each phase's
			   * in order */
	size_t *start;    /* nphases + 1: phase p's are order[start[p]] ..
			   * order[start[p + 1] - 1] */
};


/*
 * What share_conns() needs from one solve to the next of a call's rates
 * (rates_for owns it): the pattern's links and phases, and room for one
 * solve's flows. A solve takes only the connections it shares among, in
 * their order: maxmin_solve gives them the same rates as with the others
 * there at a cap of 0, as they were until 2026-12-02, which froze at 0
 * before anything moved.
 */
struct share_ws {
	const struct conn_links *links; /* the pattern's (pattern_state) */
	const struct phase_index *px;   /* rates_for's */
	double *cap;                    /* nconns: each connection's limits
					 * through all its segments, the
					 * stream's included (conn_cap) */
	struct maxmin_flow *flows;      /* nconns: one solve's */
	uint32_t *conn;                 /* nconns: each flow's connection */
	uint32_t *sel;                  /* nconns: the connections selected */
	struct maxmin_use *pool;        /* one segment's links (seg >= 0),
					 * borrowed from the solver's */
	size_t room;                    /* of pool */
	struct use_pool *home;          /* where the pool goes back */
	const uint32_t *pick;           /* with @by_phase: these connections
					 * instead of phases' (time_shares) */
	size_t npick;
	bool pick_in_order;             /* pick is in the connections' order:
					 * twin sets as with phases */
	bool borrowed;                  /* cap is another's (a worker's room) */
	const struct twins *twins;      /* the pattern's, where found: a
					 * selection in order takes one of
					 * each alike set (twins_pick) */
	struct twin_marks tm;
	const double *known;            /* with twins: the other connections'
					 * rates, where another solve had the
					 * same of them at the same caps */
	unsigned parts;                 /* with twins: SHARE_TWINS,
					 * SHARE_OTHERS or both (0) */
};

/*
 * A filling chain's shares are solved over the connections moving at once
 * (solve_fill: a window of phases; time_shares: those in flight), a set
 * that moves on by a few connections from one phase or group to the
 * next. Max-min's levels are set by the bottlenecks those sets share, so
 * a set that differs from the last one solved by no more than this share
 * of its connections keeps the last solve's shares. Measured on
 * 2026-12-05 with and without: every scenario, the ABCI curves and the
 * backend gap bench printed the same, and the Llama-2-7B 1024 x 8 staged
 * iteration the same to 0.1 us, in 0.87 s instead of 1.11 s
 * (docs/performance.md).
 */
#define FILL_SET_SLACK 0.01
#define FILL_WINDOW_SLACK 0.1

/* fill_window's answer where no chain has fewer slices than hops. */
#define NO_FILL UINT32_MAX

/* Periods this close are one pace (caps and shares that are equal by
 * construction, computed along different ways). */
#define SAME_PACE 1e-9

/* Where a group of connections starting together at @t ends (the
 * tau solves': tau_groups, twin_taus_set): starts within a billionth of
 * @t or of the longest hop @hmax, whichever is longer, are one moment. */
static inline double group_cut(double t, double hmax)
{
	return t + 1e-9 * fmax(hmax, t);
}

/* One connection's slice times in a call. */
struct conn_time {
	double tau;    /* through all its segments, store and forward */
	double period; /* between slices, steady, slots aside */
	double slot;   /* between slices, paced by the slots */
	bool paced;    /* the period is the stream's limit (plan.h stream_cap) */
	bool held;     /* its pipe's pace holds it below its links' share
			* (conn_rate.held): it waits for its inputs */
	double joint;  /* a slice at its share with all its segments busy at
			* once, where that sets the period over every one
			* segment's (a staged hop's host memory, which its
			* copy in and the NIC's read share); else 0 */
	double seg_tau[PLAN_MAX_STAGES];
};

/*
 * Whether @r's receiver passes each grain on as it lands through more than
 * one segment (SHM's store into host memory and the peer's load from it,
 * under LL or LL128: the peer polls the lines where they land), so that a
 * slice crosses its segments at once, not one after the other.
 */
static inline bool route_cuts_segments(const struct plan_route *r)
{
	return r->cut_through && r->nstages && r->stages[r->nstages - 1].segment > 0;
}

static inline bool conn_active(const struct plan_pattern *pat, const struct plan_conn *c,
			       unsigned nch)
{
	return pat->pipes[c->pipe].channel < nch;
}

/* A solve's two parts where the pattern has twin sets (share_conns):
 * the sets' reps, and the other connections; each its own max-min. */
#define SHARE_TWINS 1u
#define SHARE_OTHERS 2u

/* analytic_share.c: the links and their max-min shares */
const struct conn_links *links_for(const struct solver *sv, const struct plan_pattern *pat,
				   struct pattern_state *ps, int *err);
/* @ps's routes' ways, found the first time they are asked for; NULL on
 * -ENOMEM. */
const struct route_way *ways_for(const struct plan *p, const struct plan_pattern *pat,
				 struct pattern_state *ps, int *err);
void conn_links_destroy(struct conn_links *l);
int share_ws_init(const struct solver *sv, const struct plan_pattern *pat,
		  struct pattern_state *ps, unsigned nch, struct share_ws *ws);
void share_ws_destroy(struct share_ws *ws);
int share_conns(const struct solver *sv, struct share_ws *ws, const struct plan_pattern *pat,
		unsigned nch, int seg, bool by_phase, uint32_t lo, uint32_t hi,
		const double *pace, double *rate);
/* A connection's own limits: its copy engine (@private_cap, conn_uses'),
 * its channel's threads, its share of the call's whole limit. */
double conn_cap(const struct plan_pattern *pat, const struct plan_conn *c, unsigned nch,
		double private_cap);
/* The links of conn @c's stages of segment @seg (all of them for -1),
 * merged, weighted; returns how many. */
unsigned conn_seg_uses(const struct plan *p, const struct plan_pattern *pat,
		       const struct plan_conn *c, int seg, double *private_cap,
		       struct maxmin_use *out);
/* @c's flow through segment @seg, its uses per byte of volume appended
 * to @ws's pool at *@at (pool_uses points the flows at them once all
 * are in) and its own limits, not yet per byte of volume. */
int seg_flow(const struct solver *sv, struct share_ws *ws, const struct plan_pattern *pat,
	     const struct plan_conn *c, unsigned nch, int seg, size_t *at,
	     struct maxmin_flow *f);
void pool_uses(struct share_ws *ws, struct maxmin_flow *flows, size_t nf);
/* The flows of connections ws->conn[0..@n) through segment @seg into
 * ws->flows, per byte of volume, as share_conns makes them (the tau
 * solves': share_joined, twin_taus_set). */
int conn_flows(const struct solver *sv, struct share_ws *ws, const struct plan_pattern *pat,
	       unsigned nch, unsigned seg, size_t n);
/* The rate, bytes/s, the solve left @c's flow @f. */
double flow_conn_rate(const struct plan_conn *c, const struct maxmin_flow *f);
int longest_paths(const struct plan_pattern *pat, unsigned nch, const double *w, double *at,
		  uint32_t *phase);

/* analytic_twins.c: the twin sets of a pattern, and a solve's */
int twins_build(const struct solver *sv, const struct plan_pattern *pat,
		const struct conn_links *l, struct twins *t);
void twins_destroy(struct twins *t);
int twin_marks_init(struct twin_marks *m, const struct twins *t);
void twin_marks_destroy(struct twin_marks *m);
/* The sets the connections @sel[0..n) (in order) select from, into @m,
 * each with the first of them alike and selected alike (m->rep). */
void twins_pick(const struct twins *t, struct twin_marks *m, const uint32_t *sel, size_t n);
/* Each selected connection of a set whose rep is another: its rep's
 * connection's @rate, at the same index in its set. */
void twins_copy(const struct twins *t, const struct twin_marks *m, double *rate);

/* analytic_depth.c: the shares by depth (steady, per segment a phase,
 * over a filling chain's window), once a pattern, channel count and
 * window */
const struct conn_rate *rates_for(const struct solver *sv, const struct plan_pattern *pat,
				  struct pattern_state *ps, unsigned nch, uint32_t window,
				  int *err);

/* analytic_slice.c: a connection's slice times from its shares */
void conn_time(const struct conn_rate *r, const struct route_way *w, const struct plan_conn *c,
	       double slice, unsigned slots, bool filling, double stream_cap,
	       struct conn_time *t);
double slowest_segment(const struct conn_time *t, unsigned nseg);
double conn_last(const struct plan_conn *c, const struct conn_time *ct, bool slots_bind);
double hop_time(const struct conn_rate *r, const struct route_way *w,
		const struct plan_pattern *pat, const struct plan_conn *c, double slice,
		unsigned slots, bool filling, double stream, const struct conn_time *whole);

/* analytic_joined.c: time_shares' tau solves, each over the connections
 * joined to its group through the links they share */
struct seg_users {
	uint32_t *first; /* per link, + 1: where its connections start */
	uint32_t *pos;   /* their clock positions, by link, in order */
	bool built;
};

/*
 * A group's pick, told by the clock rather than listed (a list is as long
 * as the connections in flight, a million on a 4096-node tree, where a
 * group joins some dozens of them): the connections at clock positions
 * [lo, end) whose first slice is still in flight at @cut, and every one
 * from @g on (the group, starting at @cut).
 */
struct pick_window {
	const struct conn_clock *clk; /* by start */
	size_t lo, g, end;
	double cut;
};

/* What the tau solves share, read only once built: each segment's users. */
struct joined_ws {
	struct seg_users *seg; /* per segment */
	unsigned nseg;
	const struct conn_clock *clk; /* the call's, by start */
	size_t nc;
};

/* A worker's marks while it gathers one group's joined connections. */
struct joined_marks {
	bool *in;        /* per clock position: joined to the group */
	uint32_t *seen;  /* per link: the solve that last reached it */
	uint32_t stamp;
};

/* @j for the @nc connections of @clk (by start) of pattern @pat, every
 * segment's users found. */
int joined_init(struct joined_ws *j, const struct solver *sv, const struct plan_pattern *pat,
		unsigned nseg, const struct conn_clock *clk, size_t nc);
void joined_destroy(struct joined_ws *j);
int joined_marks_init(struct joined_marks *m, const struct solver *sv, size_t nc);
void joined_marks_destroy(struct joined_marks *m);
/*
 * The rates through segment @seg of the group of @w (its positions from
 * g to end) among the connections @w picks, into @rate[0 .. end - g):
 * solved with the picked connections joined to them through limited
 * links, alone, which share_conns over the whole pick gives them to
 * rounding.
 */
int share_joined(const struct solver *sv, struct share_ws *ws, const struct joined_ws *j,
		 struct joined_marks *m, const struct plan_pattern *pat, unsigned nch,
		 unsigned seg, const struct pick_window *w, double *rate);

/*
 * One worker's room for the solves it runs (workers.h): its own max-min
 * workspace, flows and scratch rates; the pattern's links and the
 * connections' caps are the caller's share_ws's, read only. The first
 * worker's room is the caller's solver and share_ws, lent.
 */
struct room {
	struct solver sv;
	struct maxmin_ws mm;
	struct use_pool pool;
	struct share_ws ws;
	double *rate;              /* a solve's, as long as the pattern's
				    * connections, written where read */
	bool *mark;                /* per connection, false but while a fill
				    * solve lists its pick in order */
	struct joined_marks marks; /* with a joined_ws only */
};

/* @n rooms borrowing @shared's links and caps, the first @sv and @shared
 * themselves, until rooms_destroy gives them back; with @jw, marks for its
 * tau solves. On failure every room is freed. */
int rooms_init(struct room **rooms, unsigned n, const struct solver *sv,
	       const struct plan_pattern *pat, struct share_ws *shared,
	       const struct joined_ws *jw);
void rooms_destroy(struct room *rooms, unsigned n, struct share_ws *shared);

/* analytic_twin_tau.c: time_shares' tau solves of twin sets, a set a
 * task (twin_taus_set) on the @nworkers workers of @rooms, from each
 * connection's first slice's start @at and its hop @hop (the longest
 * @hmax); NULL on -ENOMEM */
struct twin_tau_job;
struct twin_tau_job *twin_taus_begin(const struct solver *sv, const struct plan_pattern *pat,
				     const struct twins *t, unsigned nch, unsigned nseg,
				     const double *at, const double *hop, double hmax,
				     struct room *rooms, unsigned nworkers, struct conn_rate *cr);
int twin_taus_set(struct twin_tau_job *job, unsigned worker, size_t set);
void twin_taus_end(struct twin_tau_job *job);

/* analytic_fill.c: a filling chain's shares told by time */
uint32_t fill_window(const struct plan *p, const struct plan_pattern *pat, uint64_t bytes,
		     unsigned nch);
struct conn_rate *time_rates(const struct solver *sv, const struct plan_pattern *pat,
			     struct pattern_state *ps, const struct route_way *ways, unsigned nch,
			     uint32_t window, uint64_t bytes, const struct conn_rate *depth,
			     int *err);

#endif
