/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The adaptive controller (rw_gate_controller, model at the top of
 * kmod/sync/adapt.c) on timelines whose answer is worked out by hand in
 * the comments, and the ADAPTIVE admission rules around it: grants and
 * their consumption, followers, the s_U cap, parking with and without a
 * grant, release of a parked worker that became a follower.
 *
 * One table, two runners: tests/user/test-sync-ctl.c (cmocka, one test
 * per timeline) and tests/kunit/sync_test.c (KUnit, one parameter per
 * timeline) both call rw_gtl_run() below and differ only in how they
 * report a failure. Pure: this header needs nothing but gate.h (and its
 * compat.h), so it builds in the kernel and in user space alike.
 *
 * Format. A timeline is a gate config and a list of operations, run in
 * order on a gate set up at time 0. Every worker speaks for epoch 0.
 * Times in the rows are ms since the gate was set up (stored in ns).
 *
 *   ITER(p, t0, t1)       p's request at t0 is admitted, its push at t1
 *                         returns 0
 *   ITERS(p, t0, len, n)  n back-to-back ITERs of p, len ms each, from t0
 *   REQ(p, t, v)          rw_gate_request of p at t returns v
 *   PUSH(p, t, v)         rw_gate_push of p at t returns v
 *   PUSH_ADV(p, t, a)     the push returns 0 and says *min_advanced == a
 *   RELEASE(t, mask)      rw_gate_release at t lists exactly the workers
 *                         in mask
 *   EVICT(p, t, v)        rw_gate_evict of p at t returns v
 *   CTL(p, n, t, r)       rw_gate_controller(p fast, n slow, at t) == r
 *   SET_GRANT(p, v)       white box: p's remaining grant becomes v
 *   GRANT, GRANTED, KEY, PACE, NTS, CLOCK, BOUND, PARKED_NS (p, v):
 *                         p's grant, stats.granted, key, pace (ns), ring
 *                         entries, clock, rw_gate_bound, stats.parked_ns
 *                         (ns) equal v
 *   SPREAD(v), MAX_CLOCK(v), MAX_SKEW(v): max_clock - min_clock,
 *                         max_clock, max_skew equal v
 * After every operation rw_gate_check must pass (the invariant).
 *
 * Notation of the comments: times in ms relative to the controller call
 * ("now"); I_p and I_n the paces of the leader p and the slowest n
 * (window 2, so a pace is the mean of the last two iterations); first =
 * time to n's next push; n's k-th push comes at first + (k - 1) * I_n;
 * the horizon is h = r_max + 1 iterations of p, H = h * I_p; W(b) is p's
 * idle time in [0, H) under bound b; cost(b) = W(b) + (b - s_L) * I_p / 8.
 */
#ifndef _RW_TESTS_GATE_TIMELINES_H
#define _RW_TESTS_GATE_TIMELINES_H

#include "sync/gate.h"

#define RW_GTL_MS		1000000ULL
#define RW_GTL_MAX_W		8U	/* workers a timeline may use */

enum rw_gtl_opcode {
	RW_GTL_OP_ITER,
	RW_GTL_OP_ITERS,
	RW_GTL_OP_REQ,
	RW_GTL_OP_PUSH,
	RW_GTL_OP_PUSH_ADV,
	RW_GTL_OP_RELEASE,
	RW_GTL_OP_EVICT,
	RW_GTL_OP_CTL,
	RW_GTL_OP_SET_GRANT,
	/* Expectations on the state; they change nothing. */
	RW_GTL_OP_GRANT,
	RW_GTL_OP_GRANTED,
	RW_GTL_OP_KEY,
	RW_GTL_OP_PACE,
	RW_GTL_OP_NTS,
	RW_GTL_OP_CLOCK,
	RW_GTL_OP_BOUND,
	RW_GTL_OP_PARKED_NS,
	RW_GTL_OP_SPREAD,
	RW_GTL_OP_MAX_CLOCK,
	RW_GTL_OP_MAX_SKEW,
	RW_GTL_OP_COUNT
};

struct rw_gtl_op {
	u8 op;			/* enum rw_gtl_opcode */
	u8 p;			/* the worker (CTL: the fast one) */
	u8 n;			/* CTL: the slow worker */
	u32 count;		/* ITERS: how many */
	u64 t;			/* ns */
	u64 t2;			/* ns: ITER: push time; ITERS: length */
	s64 want;		/* the expected value */
};

struct rw_gtl {
	const char *name;
	struct rw_gate_config cfg;
	const struct rw_gtl_op *ops;
	u32 nr_ops;
};

/* Where a run failed: op index, the check, what it got and wanted. */
struct rw_gtl_fail {
	int op;
	const char *what;
	s64 got;
	s64 want;
};

/* Both runners report a failure with this, the timeline's name first. */
#define RW_GTL_FMT	"%s: op %d: %s is %lld, expected %lld"

#define RW_GTL_CFG(_pol, _nr, _s, _lo, _hi, _win) { \
	.policy = (_pol), .nr_workers = (_nr), .s = (_s), .s_lo = (_lo), \
	.s_hi = (_hi), .window = (_win) }
#define RW_GTL_ADAPTIVE(_nr, _lo, _hi, _win) \
	RW_GTL_CFG(RW_GATE_ADAPTIVE, _nr, 0, _lo, _hi, _win)

#define RW_GTL_ITER(_p, _t0, _t1) { \
	.op = RW_GTL_OP_ITER, .p = (_p), .t = (_t0) * RW_GTL_MS, \
	.t2 = (_t1) * RW_GTL_MS }
#define RW_GTL_ITERS(_p, _t0, _len, _n) { \
	.op = RW_GTL_OP_ITERS, .p = (_p), .t = (_t0) * RW_GTL_MS, \
	.t2 = (_len) * RW_GTL_MS, .count = (_n) }
#define RW_GTL_AT(_op, _p, _t, _v) { \
	.op = RW_GTL_OP_##_op, .p = (_p), .t = (_t) * RW_GTL_MS, .want = (_v) }
#define RW_GTL_REQ(_p, _t, _v)		RW_GTL_AT(REQ, _p, _t, _v)
#define RW_GTL_PUSH(_p, _t, _v)		RW_GTL_AT(PUSH, _p, _t, _v)
#define RW_GTL_PUSH_ADV(_p, _t, _a)	RW_GTL_AT(PUSH_ADV, _p, _t, _a)
#define RW_GTL_RELEASE(_t, _mask)	RW_GTL_AT(RELEASE, 0, _t, _mask)
#define RW_GTL_EVICT(_p, _t, _v)	RW_GTL_AT(EVICT, _p, _t, _v)
#define RW_GTL_CTL(_p, _n, _t, _r) { \
	.op = RW_GTL_OP_CTL, .p = (_p), .n = (_n), .t = (_t) * RW_GTL_MS, \
	.want = (_r) }
#define RW_GTL_IS(_op, _p, _v)	{ .op = RW_GTL_OP_##_op, .p = (_p), .want = (_v) }
#define RW_GTL_SET_GRANT(_p, _v)	RW_GTL_IS(SET_GRANT, _p, _v)
#define RW_GTL_GRANT(_p, _v)		RW_GTL_IS(GRANT, _p, _v)
#define RW_GTL_GRANTED(_p, _v)		RW_GTL_IS(GRANTED, _p, _v)
#define RW_GTL_KEY(_p, _v)		RW_GTL_IS(KEY, _p, _v)
#define RW_GTL_PACE(_p, _ns)		RW_GTL_IS(PACE, _p, _ns)
#define RW_GTL_NTS(_p, _v)		RW_GTL_IS(NTS, _p, _v)
#define RW_GTL_CLOCK(_p, _v)		RW_GTL_IS(CLOCK, _p, _v)
#define RW_GTL_BOUND(_p, _v)		RW_GTL_IS(BOUND, _p, _v)
#define RW_GTL_PARKED_NS(_p, _ns)	RW_GTL_IS(PARKED_NS, _p, _ns)
#define RW_GTL_SPREAD(_v)		RW_GTL_IS(SPREAD, 0, _v)
#define RW_GTL_MAX_CLOCK(_v)		RW_GTL_IS(MAX_CLOCK, 0, _v)
#define RW_GTL_MAX_SKEW(_v)		RW_GTL_IS(MAX_SKEW, 0, _v)

#define RW_GTL_A	RW_GATE_ADMIT
#define RW_GTL_P	RW_GATE_PARK

/*
 * A transient stall. n (worker 1) ran [0,100] [100,200] and stalls in the
 * iteration it started at 200; p (worker 0) ran five 100 ms iterations
 * (it was admitted each time within s_L = 3). At 500: lead 3, I_p = I_n
 * = 100, n has been in its iteration for 300 > I_n, overdue by 200, so
 * first = 200: n pushes at 200, 300, 400, ... (push k at 100 k + 100).
 * h = 13, H = 1300.
 *   b = 3: p's step 1 needs push 1 (200): waits 200; then lockstep, no
 *          more waiting: W = 200, cost 200.
 *   b = 4: step 1 free (0-100), step 2 needs push 1 (200): waits 100;
 *          then lockstep: W = 100, cost 112.5.
 *   b = 5: steps 1, 2 free (0-200), step 3 needs push 1 (200): on time,
 *          and every later step too: W = 0, cost 25.
 *   b > 5: W = 0, cost 37.5 and up.
 * r* = 5 - 3 = 2: exactly the lead the stall creates.
 */
static const struct rw_gtl_op rw_gtl_transient[] = {
	RW_GTL_ITER(1, 0, 100),
	RW_GTL_ITER(0, 0, 100),
	RW_GTL_ITER(1, 100, 200),
	RW_GTL_ITER(0, 100, 200),
	RW_GTL_REQ(1, 200, RW_GTL_A),
	RW_GTL_ITER(0, 200, 300),
	RW_GTL_ITER(0, 300, 400),
	RW_GTL_ITER(0, 400, 500),
	RW_GTL_PACE(0, 100 * RW_GTL_MS),
	RW_GTL_PACE(1, 100 * RW_GTL_MS),
	RW_GTL_CTL(0, 1, 500, 2),
	/* The gate asks the same question and grants b - lead = 2. */
	RW_GTL_REQ(0, 500, RW_GTL_A),
	RW_GTL_GRANTED(0, 2),
	RW_GTL_GRANT(0, 1),		/* one used now */
	RW_GTL_PUSH(0, 600, 0),
	/* Lead 4, d = 5: the grant's second unit. */
	RW_GTL_REQ(0, 600, RW_GTL_A),
	RW_GTL_GRANT(0, 0),
	RW_GTL_PUSH(0, 700, 0),
	RW_GTL_SPREAD(5),
};

/*
 * A persistent straggler. n (worker 1) takes 250 ms: [0,250] [250,500],
 * and started its third iteration at 500. p (worker 0) takes 100 ms:
 * [0,100] [100,200] [200,300] [500,600] [600,700] (it waited for n while
 * idle, so its pace is still 100). At 700: lead 5 - 2 = 3, I_p = 100,
 * I_n = 250, n is 200 into its iteration: first = 50, so n pushes at 50,
 * 300, 550, 800, 1050, 1300. H = 1300. With m = b - 3 free steps, p runs
 * 0..100 m, then needs one push of n per step, which come every 250:
 *   m = 0: waits 50, then 150 before each of steps 2..6:     W = 800
 *   m = 1: step 3 waits 100, steps 4..7 wait 150 each:       W = 700
 *   m = 2: steps 5..8 wait 150 each:                         W = 600
 *   m = 3: step 6 waits 50, steps 7..9 wait 150:             W = 500
 *   m = 4: step 8 waits 100, steps 9, 10 wait 150:           W = 400
 *   m = 5: steps 10, 11 wait 150:                            W = 300
 *   m = 6: step 11 waits 50, step 12 waits 150:              W = 200
 *   m = 7: step 13 waits 100:                                W = 100
 *   m = 8: step 13 starts at 1200 after push 5 (1050):       W = 0
 * cost = W + 12.5 m: 800, 712.5, 625, 537.5, 450, 362.5, 275, 187.5,
 * 100, then 112.5, 125, ...: r* = 8. Every unit of lead saves 100 ms of
 * waiting in the horizon, far more than it costs, so the lead grows
 * until the horizon is covered; it would grow to s_U on the next calls.
 * The gate grants b - lead = 11 - 3 and uses one unit at once.
 */
static const struct rw_gtl_op rw_gtl_persistent[] = {
	RW_GTL_ITER(0, 0, 100),
	RW_GTL_ITER(0, 100, 200),
	RW_GTL_ITER(0, 200, 300),
	RW_GTL_ITER(1, 0, 250),
	RW_GTL_ITER(1, 250, 500),
	RW_GTL_REQ(1, 500, RW_GTL_A),
	RW_GTL_ITER(0, 500, 600),
	RW_GTL_ITER(0, 600, 700),
	RW_GTL_PACE(1, 250 * RW_GTL_MS),
	RW_GTL_CTL(0, 1, 700, 8),
	RW_GTL_REQ(0, 700, RW_GTL_A),
	RW_GTL_GRANT(0, 11 - 3 - 1),
};

/*
 * n about to push. Both paces 100; p led by 3 after [0,20] [20,40]
 * [40,60] [100,200] [200,300]; n ran [0,100] [100,200] and, after 5 ms
 * of its own, started its third iteration at 205. At 300 it is 95 in:
 * first = 5. b = 3: p waits 5, then lockstep: W = 5 = cost(3). b = 4:
 * W = 0 but cost 12.5. r* = 0: a unit of lead would save 5 ms, less than
 * the 12.5 it is charged. Had n started at 220 (first = 20), W(3) = 20 >
 * 12.5 and r* = 1.
 */
static const struct rw_gtl_op rw_gtl_about_to_push[] = {
	RW_GTL_ITER(0, 0, 20),
	RW_GTL_ITER(0, 20, 40),
	RW_GTL_ITER(0, 40, 60),
	RW_GTL_ITER(1, 0, 100),
	RW_GTL_ITER(0, 100, 200),
	RW_GTL_ITER(1, 100, 200),
	RW_GTL_REQ(1, 205, RW_GTL_A),
	RW_GTL_ITER(0, 200, 300),
	RW_GTL_PACE(0, 100 * RW_GTL_MS),
	RW_GTL_CTL(0, 1, 300, 0),
	/* 15 ms later n is 110 in, overdue by 10: first = 10 < 12.5. */
	RW_GTL_CTL(0, 1, 315, 0),
	/* At 290 (first = 15 > 12.5) one unit pays. */
	RW_GTL_CTL(0, 1, 290, 1),
	/* The gate parks p, keyed by s_L: it waits for n's push. */
	RW_GTL_REQ(0, 300, RW_GTL_P),
	RW_GTL_KEY(0, 6 - 3),
	RW_GTL_GRANT(0, 0),
};

/*
 * A dead worker. Same history as the transient stall, but now is 5000: n
 * is 4800 into an iteration of pace 100, first = 4700, after the horizon
 * (1300), so n does not push in it: W(3 + m) = 1300 - 100 m and cost =
 * 1300 - 87.5 m, least at m = 12 = r_max. Granted 15 - 3 = 12 steps.
 */
static const struct rw_gtl_op rw_gtl_dead[] = {
	RW_GTL_ITER(1, 0, 100),
	RW_GTL_ITER(0, 0, 100),
	RW_GTL_ITER(1, 100, 200),
	RW_GTL_ITER(0, 100, 200),
	RW_GTL_REQ(1, 200, RW_GTL_A),
	RW_GTL_ITER(0, 200, 300),
	RW_GTL_ITER(0, 300, 400),
	RW_GTL_ITER(0, 400, 500),
	RW_GTL_CTL(0, 1, 5000, 12),
	/* Granted 12, p runs to the cap s_U = 15 and parks there. */
	RW_GTL_REQ(0, 5000, RW_GTL_A),
	RW_GTL_GRANT(0, 11),
	RW_GTL_PUSH(0, 5100, 0),
	/* Clocks 6..16 to 17 = n's 2 + s_U, 100 ms each from 5100. */
	RW_GTL_ITERS(0, 5100, 100, 11),
	RW_GTL_CLOCK(0, 2 + 15),
	RW_GTL_GRANT(0, 0),
	/*
	 * At the cap (lead 15) with the grant spent, the controller still
	 * wants b = 15 (n is still silent): p keeps one unit and waits at
	 * s_U, keyed by c_min 3, not at s_L (c_min 15, a long stall).
	 */
	RW_GTL_REQ(0, 7000, RW_GTL_P),
	RW_GTL_KEY(0, 17 + 1 - 15),
	RW_GTL_GRANT(0, 1),
	RW_GTL_BOUND(0, 15),
	RW_GTL_GRANTED(0, 13),
};

/*
 * A lead above s_L is kept, not clawed back. n (worker 1) ran [0,400]
 * [400,500] [500,600] and restarted at 600 (pace 100); p (worker 0) ran
 * [0,50] [50,100] [100,150], then, on a grant planted by hand, [150,250]
 * [250,350] [350,450] [450,550] (pace 100). p leads 7 - 3 = 4 > s_L.
 * Candidates are b = 4..15: a bound below the lead would only add
 * waiting. At 695 n is 95 in: first = 5. W(4) = 5 (wait for push 1,
 * then lockstep), cost 5; W(5) = 0, cost 12.5: b* = 4, r* = 1. The gate
 * keeps the lead: one unit, keyed by the c_min that brings the lead back
 * to 4 (one push of n), not to s_L. At 680 (first = 20 > 12.5): b* = 5.
 */
static const struct rw_gtl_op rw_gtl_keeps_lead[] = {
	RW_GTL_ITER(0, 0, 50),
	RW_GTL_ITER(0, 50, 100),
	RW_GTL_ITER(0, 100, 150),
	RW_GTL_SET_GRANT(0, 4),
	RW_GTL_ITER(0, 150, 250),
	RW_GTL_ITER(0, 250, 350),
	RW_GTL_REQ(0, 350, RW_GTL_A),
	RW_GTL_ITER(1, 0, 400),
	RW_GTL_REQ(1, 400, RW_GTL_A),
	RW_GTL_PUSH(0, 450, 0),
	RW_GTL_REQ(0, 450, RW_GTL_A),
	RW_GTL_PUSH(1, 500, 0),
	RW_GTL_REQ(1, 500, RW_GTL_A),
	RW_GTL_PUSH(0, 550, 0),
	RW_GTL_GRANT(0, 0),
	RW_GTL_PUSH(1, 600, 0),
	RW_GTL_REQ(1, 600, RW_GTL_A),
	RW_GTL_SPREAD(4),
	RW_GTL_CTL(0, 1, 695, 1),
	RW_GTL_CTL(0, 1, 680, 2),
	RW_GTL_REQ(0, 695, RW_GTL_P),
	RW_GTL_KEY(0, 8 - 4),
	RW_GTL_GRANT(0, 1),
};

/*
 * The horizon is capped at 32 iterations of p, and so is the lead tried
 * beyond the current one. Adaptive(1, 100), lead 1, n silent past the
 * horizon: W(1 + m) = 3200 - 100 m for m <= 32, cost 3200 - 87.5 m:
 * r* = 32, not 99.
 */
static const struct rw_gtl_op rw_gtl_horizon_cap[] = {
	RW_GTL_ITER(0, 0, 100),
	RW_GTL_ITER(1, 0, 100),
	RW_GTL_REQ(1, 100, RW_GTL_A),
	RW_GTL_ITER(0, 100, 200),
	RW_GTL_CTL(0, 1, 60000, 32),
};

/*
 * A worker's pace: the mean of its ring without the largest entry, so one
 * burst does not make it look slow; the ring keeps the last @window.
 * Window 4; iterations 100, 100, 500, 100: pace (100 + 100 + 100) / 3.
 * Then 200 replaces the oldest 100: ring 200 100 500 100, pace
 * (200 + 100 + 100) / 3. Two entries: plain mean, nothing dropped.
 */
static const struct rw_gtl_op rw_gtl_pace[] = {
	RW_GTL_ITER(0, 0, 100),
	RW_GTL_ITER(0, 100, 200),
	RW_GTL_PACE(0, 100 * RW_GTL_MS),
	RW_GTL_ITER(0, 250, 750),	/* a burst, admitted at 250 */
	RW_GTL_PACE(0, 100 * RW_GTL_MS),
	/* A push without admission is refused and records nothing. */
	RW_GTL_PUSH(1, 0, -EPROTO),
	RW_GTL_ITER(1, 0, 800),
	RW_GTL_ITER(0, 800, 900),
	RW_GTL_PACE(0, 100 * RW_GTL_MS),
	RW_GTL_ITER(0, 900, 1100),
	RW_GTL_NTS(0, 4),
	RW_GTL_PACE(0, 400 * RW_GTL_MS / 3),
	RW_GTL_PACE(1, 800 * RW_GTL_MS),
};

/*
 * No evidence: r* = 0. Nobody has a pace yet; then p has none of its own
 * (it is given n's) and p is behind n.
 */
static const struct rw_gtl_op rw_gtl_no_evidence[] = {
	RW_GTL_CTL(0, 1, 10, 0),
	RW_GTL_ITER(1, 0, 100),
	RW_GTL_CTL(0, 1, 150, 0),
};

/* No band (s_L == s_U): r* = 0, however long n stays silent. */
static const struct rw_gtl_op rw_gtl_no_band[] = {
	RW_GTL_ITER(0, 0, 100),
	RW_GTL_CTL(0, 1, 9000, 0),
};

/* A policy other than ADAPTIVE: r* = 0. */
static const struct rw_gtl_op rw_gtl_not_adaptive[] = {
	RW_GTL_ITER(0, 0, 100),
	RW_GTL_CTL(0, 1, 9000, 0),
};

/*
 * The ADAPTIVE rules around the controller, with a grant planted by hand
 * (white box) so that only the rules are under test. Adaptive(1, 4), 3
 * workers; worker 2 is the straggler, in its first iteration throughout.
 */
static const struct rw_gtl_op rw_gtl_rules[] = {
	RW_GTL_REQ(2, 0, RW_GTL_A),
	RW_GTL_ITER(0, 0, 100),
	RW_GTL_ITER(1, 0, 100),
	/* Rule 3: a grant lets the leader past s_L, one unit per step. */
	RW_GTL_SET_GRANT(0, 2),
	RW_GTL_REQ(0, 100, RW_GTL_A),
	RW_GTL_GRANT(0, 1),
	RW_GTL_BOUND(0, 4),
	/*
	 * Rule 4: worker 1 ties for c_max, has no grant: the controller.
	 * n = 2 has no pace (it is given p's, 100) and is 100 into its
	 * iteration: first = 0, W(1) = 0, r* = 0: park, keyed by s_L.
	 */
	RW_GTL_REQ(1, 100, RW_GTL_P),
	RW_GTL_KEY(1, 1),
	RW_GTL_BOUND(1, 1),
	/* Rule 2: the leader's push raises c_max; worker 1 now follows. */
	RW_GTL_PUSH_ADV(0, 200, true),
	RW_GTL_RELEASE(200, 1U << 1),
	RW_GTL_GRANT(1, 0),		/* followers use none */
	RW_GTL_BOUND(1, 2),
	RW_GTL_PUSH(1, 300, 0),
	/* Worker 0 spends its last unit: c0 = 3, d = 3. */
	RW_GTL_REQ(0, 300, RW_GTL_A),
	RW_GTL_GRANT(0, 0),
	RW_GTL_PUSH(0, 400, 0),
	/* Follower again: worker 1 (c = 2) goes to c_max = 3. */
	RW_GTL_REQ(1, 400, RW_GTL_A),
	RW_GTL_PUSH(1, 500, 0),
	/* The cap: with a grant, d = 4 is admitted, d = 5 is parked. */
	RW_GTL_SET_GRANT(0, 3),
	RW_GTL_REQ(0, 500, RW_GTL_A),
	RW_GTL_PUSH(0, 600, 0),
	RW_GTL_MAX_CLOCK(4),
	RW_GTL_REQ(0, 600, RW_GTL_P),
	RW_GTL_KEY(0, 4 + 1 - 4),
	RW_GTL_GRANT(0, 2),
	/* Worker 2 pushes: c_min 1 meets the key; the release consumes. */
	RW_GTL_PUSH(2, 700, 0),
	RW_GTL_RELEASE(700, 1U << 0),
	RW_GTL_GRANT(0, 1),
	RW_GTL_PARKED_NS(0, 100 * RW_GTL_MS),
	RW_GTL_MAX_SKEW(4),
	/* Eviction drops a grant; a rejoin starts without one. */
	RW_GTL_EVICT(0, 800, 1),
	RW_GTL_GRANT(0, 0),
};

/* Timeline "ctl_<id>" runs the ops rw_gtl_<id>[] on a gate of config @_cfg. */
#define RW_GTL_TIMELINE(_id, _cfg) { \
	.name = "ctl_" #_id, .cfg = _cfg, .ops = rw_gtl_##_id, \
	.nr_ops = ARRAY_SIZE(rw_gtl_##_id) }

static const struct rw_gtl rw_gtl_timelines[] = {
	RW_GTL_TIMELINE(transient, RW_GTL_ADAPTIVE(2, 3, 15, 2)),
	RW_GTL_TIMELINE(persistent, RW_GTL_ADAPTIVE(2, 3, 15, 2)),
	RW_GTL_TIMELINE(about_to_push, RW_GTL_ADAPTIVE(2, 3, 15, 2)),
	RW_GTL_TIMELINE(dead, RW_GTL_ADAPTIVE(2, 3, 15, 2)),
	RW_GTL_TIMELINE(keeps_lead, RW_GTL_ADAPTIVE(2, 3, 15, 2)),
	RW_GTL_TIMELINE(horizon_cap, RW_GTL_ADAPTIVE(2, 1, 100, 2)),
	RW_GTL_TIMELINE(pace, RW_GTL_ADAPTIVE(2, 3, 15, 4)),
	RW_GTL_TIMELINE(no_evidence, RW_GTL_ADAPTIVE(2, 3, 15, 2)),
	RW_GTL_TIMELINE(no_band, RW_GTL_ADAPTIVE(2, 4, 4, 2)),
	/* SSP(3) with a band configured (ignored), default window. */
	RW_GTL_TIMELINE(not_adaptive, RW_GTL_CFG(RW_GATE_SSP, 2, 3, 3, 15, 0)),
	RW_GTL_TIMELINE(rules, RW_GTL_ADAPTIVE(3, 1, 4, 2)),
};

/* Entries of the iteration-time ring a timeline's gate needs. */
static inline u32 rw_gtl_nr_ts(const struct rw_gtl *tl)
{
	return tl->cfg.nr_workers * rw_gate_window(&tl->cfg);
}

/* Record a failure at op @i unless @got == @want; true if it matched. */
static inline bool rw_gtl_eq(struct rw_gtl_fail *f, int i, const char *what,
			     s64 got, s64 want)
{
	if (got == want)
		return true;
	f->op = i;
	f->what = what;
	f->got = got;
	f->want = want;
	return false;
}

/* One request admitted at @t0 and its push at @t1. */
static inline bool rw_gtl_iter(struct rw_gate *g, u32 p, u64 t0, u64 t1,
			       struct rw_gtl_fail *f, int i)
{
	return rw_gtl_eq(f, i, "request verdict",
			 rw_gate_request(g, p, 0, t0), RW_GATE_ADMIT) &&
	       rw_gtl_eq(f, i, "push return", rw_gate_push(g, p, 0, t1, NULL),
			 0) &&
	       rw_gtl_eq(f, i, "invariant", rw_gate_check(g), 0);
}

/* Run op @i of a timeline on @g; false (and @f filled) if it failed. */
static inline bool rw_gtl_step(struct rw_gate *g, const struct rw_gtl_op *o,
			       struct rw_gtl_fail *f, int i)
{
	const struct rw_gate_worker *x = &g->w[o->p];
	u32 out[RW_GTL_MAX_W], k, nr, mask = 0;
	bool adv = false;
	int ret;

	switch (o->op) {
	case RW_GTL_OP_ITER:
		return rw_gtl_iter(g, o->p, o->t, o->t2, f, i);
	case RW_GTL_OP_ITERS:
		for (k = 0; k < o->count; k++)
			if (!rw_gtl_iter(g, o->p, o->t + k * o->t2,
					 o->t + (k + 1) * o->t2, f, i))
				return false;
		return true;
	case RW_GTL_OP_REQ:
		return rw_gtl_eq(f, i, "request verdict",
				 rw_gate_request(g, o->p, 0, o->t), o->want);
	case RW_GTL_OP_PUSH:
		return rw_gtl_eq(f, i, "push return",
				 rw_gate_push(g, o->p, 0, o->t, &adv), o->want);
	case RW_GTL_OP_PUSH_ADV:
		ret = rw_gate_push(g, o->p, 0, o->t, &adv);
		return rw_gtl_eq(f, i, "push return", ret, 0) &&
		       rw_gtl_eq(f, i, "min_advanced", adv, o->want);
	case RW_GTL_OP_RELEASE:
		nr = rw_gate_release(g, o->t, out, RW_GTL_MAX_W);
		for (k = 0; k < nr; k++)
			mask |= 1U << out[k];
		return rw_gtl_eq(f, i, "released mask", mask, o->want);
	case RW_GTL_OP_EVICT:
		return rw_gtl_eq(f, i, "evict return",
				 rw_gate_evict(g, o->p, o->t), o->want);
	case RW_GTL_OP_CTL:
		return rw_gtl_eq(f, i, "controller r*",
				 rw_gate_controller(g, o->p, o->n, o->t),
				 o->want);
	case RW_GTL_OP_SET_GRANT:
		g->w[o->p].grant = (u32)o->want;
		return true;
	case RW_GTL_OP_GRANT:
		return rw_gtl_eq(f, i, "grant", x->grant, o->want);
	case RW_GTL_OP_GRANTED:
		return rw_gtl_eq(f, i, "stats.granted", x->stats.granted,
				 o->want);
	case RW_GTL_OP_KEY:
		return rw_gtl_eq(f, i, "key", x->key, o->want);
	case RW_GTL_OP_PACE:
		return rw_gtl_eq(f, i, "pace (ns)", x->pace, o->want);
	case RW_GTL_OP_NTS:
		return rw_gtl_eq(f, i, "ring entries", x->nts, o->want);
	case RW_GTL_OP_CLOCK:
		return rw_gtl_eq(f, i, "clock", x->clock, o->want);
	case RW_GTL_OP_BOUND:
		return rw_gtl_eq(f, i, "bound", rw_gate_bound(g, o->p),
				 o->want);
	case RW_GTL_OP_PARKED_NS:
		return rw_gtl_eq(f, i, "stats.parked_ns", x->stats.parked_ns,
				 o->want);
	case RW_GTL_OP_SPREAD:
		return rw_gtl_eq(f, i, "max_clock - min_clock",
				 g->max_clock - g->min_clock, o->want);
	case RW_GTL_OP_MAX_CLOCK:
		return rw_gtl_eq(f, i, "max_clock", g->max_clock, o->want);
	case RW_GTL_OP_MAX_SKEW:
		return rw_gtl_eq(f, i, "max_skew", g->max_skew, o->want);
	default:
		return rw_gtl_eq(f, i, "unknown opcode", o->op, -1);
	}
}

/*
 * Run timeline @tl on caller storage: @g, @w with tl->cfg.nr_workers
 * entries and @ts with rw_gtl_nr_ts(@tl), contents irrelevant. Returns -1
 * if every op passed, else the index of the first failing op, described
 * in @f (-2: the timeline's config is bad).
 */
static inline int rw_gtl_run(const struct rw_gtl *tl, struct rw_gate *g,
			     struct rw_gate_worker *w, u64 *ts,
			     struct rw_gtl_fail *f)
{
	u32 i;

	memset(f, 0, sizeof(*f));
	f->op = -1;
	if (!rw_gtl_eq(f, -2, "rw_gate_init",
		       rw_gate_init(g, &tl->cfg, w, ts, 0), 0) ||
	    !rw_gtl_eq(f, -2, "workers above RW_GTL_MAX_W",
		       tl->cfg.nr_workers > RW_GTL_MAX_W, false))
		return f->op;
	for (i = 0; i < tl->nr_ops; i++) {
		const struct rw_gtl_op *o = &tl->ops[i];

		if (!rw_gtl_eq(f, (int)i, "worker index out of range",
			       o->p >= tl->cfg.nr_workers ||
			       o->n >= tl->cfg.nr_workers, false) ||
		    !rw_gtl_step(g, o, f, (int)i) ||
		    !rw_gtl_eq(f, (int)i, "invariant", rw_gate_check(g), 0))
			return f->op;
	}
	return -1;
}

#endif /* _RW_TESTS_GATE_TIMELINES_H */
