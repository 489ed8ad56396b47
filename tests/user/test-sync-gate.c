// SPDX-License-Identifier: GPL-2.0
/*
 * The staleness gate (kmod/sync/gate.c) on scripted clock sequences: what
 * each policy admits, parks and releases; liveness (heartbeats, expiry,
 * eviction of running and parked workers), epoch fencing, rejoin and
 * catch-up; the protocol order; and every bad input, which must leave the
 * gate exactly as it was. The adaptive controller has its own file
 * (test-sync-ctl.c), random schedules too (test-sync-random.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "synctest.h"

#define A	RW_GATE_ADMIT
#define P	RW_GATE_PARK
#define REQ(ms, w, v)	{ .t = (ms) * ST_MS, .op = ST_REQ, .p = (w), .expect = (v) }
#define REQ_EP(ms, w, ep, v) \
	{ .t = (ms) * ST_MS, .op = ST_REQ, .p = (w), .use_epoch = true, \
	  .epoch = (ep), .expect = (v) }
#define PUSH(ms, w, rel) \
	{ .t = (ms) * ST_MS, .op = ST_PUSH, .p = (w), .released = (rel) }
#define PUSH_ERR(ms, w, err) \
	{ .t = (ms) * ST_MS, .op = ST_PUSH, .p = (w), .expect = (err) }
#define PUSH_EP(ms, w, ep, err) \
	{ .t = (ms) * ST_MS, .op = ST_PUSH, .p = (w), .use_epoch = true, \
	  .epoch = (ep), .expect = (err) }
#define HB(ms, w, err)	{ .t = (ms) * ST_MS, .op = ST_HB, .p = (w), .expect = (err) }
#define EVICT(ms, w, n, rel) \
	{ .t = (ms) * ST_MS, .op = ST_EVICT, .p = (w), .expect = (n), \
	  .released = (rel) }
#define EXPIRE(ms, n, gone, rel) \
	{ .t = (ms) * ST_MS, .op = ST_EXPIRE, .expect = (n), .evicted = (gone), \
	  .released = (rel) }
#define JOIN(ms, w, err) { .t = (ms) * ST_MS, .op = ST_JOIN, .p = (w), .expect = (err) }

static void run_script(const struct rw_gate_config *cfg,
		       const struct st_step *steps, u32 n, struct st_gate *keep)
{
	struct st_gate sg;

	st_new(&sg, cfg, 0);
	st_run(&sg, steps, n);
	if (keep)
		*keep = sg;
	else
		st_free(&sg);
}

/* BSP, 3 workers: nobody starts iteration k + 1 before all finished k. */
static void gate_bsp(void **state)
{
	static const struct st_step s[] = {
		REQ(1, 0, A), REQ(1, 1, A), REQ(1, 2, A),
		PUSH(2, 0, 0), REQ(2, 0, P),
		REQ(2, 0, -EBUSY),			/* parked already */
		PUSH(3, 1, 0), REQ(3, 1, P),
		PUSH(4, 2, 0x3),			/* c_min 0 -> 1 */
		REQ(4, 2, A),
		PUSH(5, 2, 0), REQ(5, 2, P),		/* 2 leads now */
		PUSH(6, 0, 0), REQ(6, 0, P),
		PUSH(7, 1, 0x5),			/* c_min 1 -> 2 */
		REQ(8, 1, A), PUSH(9, 1, 0),
		PUSH(9, 0, 0),
		PUSH(10, 2, 0),				/* all at 3, nobody parked */
		REQ(11, 0, A), REQ(11, 1, A), REQ(11, 2, A),
	};
	struct rw_gate_config cfg = st_cfg(RW_GATE_BSP, 3, 0, 0, 0);
	struct st_gate sg;

	(void)state;
	run_script(&cfg, s, ARRAY_SIZE(s), &sg);
	assert_int_equal(sg.g.min_clock, 3);
	assert_int_equal(sg.g.max_skew, 1);
	assert_int_equal(rw_gate_bound(&sg.g, 0), 1);
	assert_int_equal(sg.w[0].stats.parks, 2);
	assert_int_equal(sg.w[0].stats.admits, 2);
	/* Worker 0 was parked 2..4 ms and 6..7 ms. */
	assert_int_equal(sg.w[0].stats.parked_ns, 3 * ST_MS);
	st_free(&sg);
}

/*
 * BSP with backup workers, quorum 2 of 3: two finished iterations let the
 * next one start; the third, behind, is admitted at once and skips ahead.
 */
static void gate_bsp_quorum(void **state)
{
	static const struct st_step s[] = {
		REQ(1, 0, A), REQ(1, 1, A), REQ(1, 2, A),
		PUSH(2, 0, 0), REQ(2, 0, P),		/* 1 of 2 done */
		PUSH(3, 1, 0x1),			/* c_K 0 -> 1: 0 goes */
		REQ(3, 1, A),
		PUSH(4, 0, 0), REQ(4, 0, P),
		PUSH(5, 1, 0x1),			/* c_K 2, 2 still at 0 */
		REQ(5, 1, A),
		PUSH(6, 2, 0),				/* 2 finishes iteration 0 */
		REQ(6, 2, A),				/* 1 < c_K 2: skips to 2 */
	};
	struct rw_gate_config cfg = st_cfg(RW_GATE_BSP, 3, 0, 0, 0);
	struct st_gate sg;

	(void)state;
	cfg.quorum = 2;
	run_script(&cfg, s, ARRAY_SIZE(s), &sg);
	assert_int_equal(sg.g.floor, 2);
	assert_int_equal(sg.w[2].clock, 2);
	assert_int_equal(sg.w[2].stats.skipped, 1);
	assert_int_equal(sg.w[0].stats.skipped, 0);
	assert_int_equal(rw_gate_quorum(&sg.g), 2);
	st_free(&sg);
}

/*
 * Backup workers, then the live workers fall to the quorum (an eviction):
 * plain BSP again with a laggard two behind. The spread is tolerated, the
 * laggard skips to the iteration before the leader's, and the leader goes
 * once it has finished that one.
 */
static void gate_bsp_quorum_ends(void **state)
{
	static const struct st_step s[] = {
		REQ(1, 0, A), REQ(1, 1, A),		/* 2 is idle */
		PUSH(2, 0, 0), PUSH(2, 1, 0),
		REQ(3, 0, A), REQ(3, 1, A),
		PUSH(4, 0, 0), PUSH(4, 1, 0),		/* 2, 2, 0 */
		EVICT(5, 0, 1, 0),			/* live 2 = quorum */
		REQ(6, 1, P),
		REQ(7, 2, A),				/* skips to 1 */
		PUSH(8, 2, 0x2),			/* both at 2: 1 goes */
	};
	struct rw_gate_config cfg = st_cfg(RW_GATE_BSP, 3, 0, 0, 0);
	struct st_gate sg;

	(void)state;
	cfg.quorum = 2;
	run_script(&cfg, s, ARRAY_SIZE(s), &sg);
	assert_int_equal(sg.w[2].stats.skipped, 1);
	assert_int_equal(sg.w[2].clock, 2);
	assert_int_equal(sg.g.slack, 0);
	assert_false(sg.g.backups);
	st_free(&sg);
}

/*
 * A held gate (a checkpoint) parks every request, releases nobody, lets
 * admitted iterations finish; let go, it admits what the policy admits.
 */
static void gate_hold(void **state)
{
	struct rw_gate_config cfg = st_cfg(RW_GATE_ASP, 2, 0, 0, 0);
	struct st_gate sg;
	u32 out[2];

	(void)state;
	st_new(&sg, &cfg, 0);
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 1), A);
	assert_true(rw_gate_running(&sg.g));
	rw_gate_hold(&sg.g, true);
	rw_gate_hold(&sg.g, true);
	assert_int_equal(rw_gate_request(&sg.g, 1, 0, 2), P);
	assert_int_equal(rw_gate_push(&sg.g, 0, 0, 3, NULL), 0);
	assert_false(rw_gate_running(&sg.g));
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 4), P);
	assert_int_equal(rw_gate_release(&sg.g, 5, out, 2), 0);
	rw_gate_hold(&sg.g, false);
	assert_int_equal(rw_gate_release(&sg.g, 6, out, 2), 0);
	rw_gate_hold(&sg.g, false);
	assert_int_equal(rw_gate_release(&sg.g, 7, out, 2), 2);
	assert_true(rw_gate_running(&sg.g));
	assert_int_equal(rw_gate_check(&sg.g), 0);
	st_free(&sg);
}

/*
 * Held under BSP: the iteration in progress may still complete (a worker
 * that has not started it is admitted), the next one waits.
 */
static void gate_hold_bsp(void **state)
{
	struct rw_gate_config cfg = st_cfg(RW_GATE_BSP, 3, 0, 0, 0);
	struct st_gate sg;
	u32 out[3];

	(void)state;
	st_new(&sg, &cfg, 0);
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 1), A);
	assert_int_equal(rw_gate_request(&sg.g, 1, 0, 1), A);
	rw_gate_hold(&sg.g, true);
	assert_int_equal(sg.g.hold_at, 1);
	assert_int_equal(rw_gate_request(&sg.g, 2, 0, 2), A);
	assert_int_equal(rw_gate_push(&sg.g, 0, 0, 3, NULL), 0);
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 3), P);
	assert_int_equal(rw_gate_push(&sg.g, 1, 0, 4, NULL), 0);
	assert_int_equal(rw_gate_push(&sg.g, 2, 0, 4, NULL), 0);
	assert_false(rw_gate_running(&sg.g));
	assert_int_equal(rw_gate_release(&sg.g, 5, out, 3), 0);
	rw_gate_hold(&sg.g, false);
	assert_int_equal(rw_gate_release(&sg.g, 6, out, 3), 1);
	assert_int_equal(out[0], 0);
	assert_int_equal(rw_gate_check(&sg.g), 0);
	st_free(&sg);
}

/*
 * A box admits a remote worker's next iteration with its answers; a
 * checkpoint between iterations takes those admissions back (nothing of
 * the iteration sent): the hold is then at the boundary, not one past.
 */
static void gate_withdraw(void **state)
{
	struct rw_gate_config cfg = st_cfg(RW_GATE_BSP, 2, 0, 0, 0);
	struct st_gate sg;
	u32 out[2];

	(void)state;
	st_new(&sg, &cfg, 0);
	assert_int_equal(rw_gate_withdraw(&sg.g, 0, 0), -EPROTO);
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 1), A);
	assert_int_equal(rw_gate_request(&sg.g, 1, 0, 1), A);
	assert_int_equal(rw_gate_push(&sg.g, 0, 0, 2, NULL), 0);
	assert_int_equal(rw_gate_push(&sg.g, 1, 0, 2, NULL), 0);
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 3), A);
	assert_int_equal(rw_gate_request(&sg.g, 1, 0, 3), A);
	assert_int_equal(sg.g.w[0].stats.admits, 2);
	/* Bad input changes nothing. */
	assert_int_equal(rw_gate_withdraw(&sg.g, 2, 0), -EINVAL);
	assert_int_equal(rw_gate_withdraw(&sg.g, 0, 5), -ESTALE);
	assert_true(sg.g.w[0].running);
	assert_int_equal(rw_gate_withdraw(&sg.g, 0, 0), 0);
	assert_int_equal(rw_gate_withdraw(&sg.g, 0, 0), -EPROTO);
	assert_int_equal(sg.g.w[0].stats.admits, 1);
	assert_true(rw_gate_running(&sg.g));
	assert_int_equal(rw_gate_withdraw(&sg.g, 1, 0), 0);
	assert_false(rw_gate_running(&sg.g));
	rw_gate_hold(&sg.g, true);
	assert_int_equal(sg.g.hold_at, 1);
	/* Held at the boundary: both ask again and park. */
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 4), P);
	assert_int_equal(rw_gate_request(&sg.g, 1, 0, 4), P);
	assert_int_equal(rw_gate_release(&sg.g, 5, out, 2), 0);
	rw_gate_hold(&sg.g, false);
	assert_int_equal(rw_gate_release(&sg.g, 6, out, 2), 2);
	assert_int_equal(rw_gate_push(&sg.g, 0, 0, 7, NULL), 0);
	assert_int_equal(sg.g.w[0].clock, 2);
	assert_int_equal(rw_gate_check(&sg.g), 0);
	st_free(&sg);
}

/*
 * A worker's own checkpoint under BSP: the gate held at its boundary, the
 * other worker already through the next iteration's push parks there.
 */
static void gate_hold_own(void **state)
{
	struct rw_gate_config cfg = st_cfg(RW_GATE_BSP, 2, 0, 0, 0);
	struct rw_gate_config ssp = st_cfg(RW_GATE_SSP, 2, 2, 0, 0);
	struct st_gate sg, sg2;
	u32 out[2];

	(void)state;
	st_new(&sg, &cfg, 0);
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 1), A);
	assert_int_equal(rw_gate_request(&sg.g, 1, 0, 1), A);
	assert_int_equal(rw_gate_push(&sg.g, 0, 0, 2, NULL), 0);
	assert_int_equal(rw_gate_push(&sg.g, 1, 0, 2, NULL), 0);
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 3), A);
	assert_int_equal(rw_gate_request(&sg.g, 1, 0, 3), A);
	/* Worker 1 is through iteration 1; worker 0 is inside it. */
	assert_int_equal(rw_gate_push(&sg.g, 1, 0, 4, NULL), 0);
	assert_int_equal(rw_gate_hold_own(&sg.g, 0, 0), -EBUSY);
	assert_int_equal(sg.g.held, 0);
	assert_int_equal(rw_gate_hold_own(&sg.g, 0, 7), -ESTALE);
	assert_int_equal(rw_gate_hold_own(&sg.g, 2, 0), -EINVAL);
	/* Worker 0 pushed iteration 1 and is ahead-admitted to 2: back. */
	assert_int_equal(rw_gate_push(&sg.g, 0, 0, 5, NULL), 0);
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 5), A);
	assert_int_equal(rw_gate_request(&sg.g, 1, 0, 5), A);
	assert_int_equal(rw_gate_push(&sg.g, 1, 0, 6, NULL), 0);
	assert_int_equal(rw_gate_withdraw(&sg.g, 0, 0), 0);
	/* The plain hold would be one past worker 1's iteration: 3. */
	assert_int_equal(rw_gate_hold_own(&sg.g, 0, 0), 0);
	assert_int_equal(sg.g.hold_at, 2);
	assert_false(rw_gate_running(&sg.g));
	/* Another holder's own hold at another boundary is refused. */
	assert_int_equal(rw_gate_hold_own(&sg.g, 1, 0), -EBUSY);
	assert_int_equal(sg.g.held, 1);
	assert_int_equal(rw_gate_request(&sg.g, 1, 0, 7), P);
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 7), P);
	assert_int_equal(rw_gate_release(&sg.g, 8, out, 2), 0);
	rw_gate_hold(&sg.g, false);
	/* Worker 0 goes on; worker 1 waits for its push, as BSP says. */
	assert_int_equal(rw_gate_release(&sg.g, 9, out, 2), 1);
	assert_int_equal(out[0], 0);
	assert_int_equal(rw_gate_check(&sg.g), 0);
	st_free(&sg);

	/* Other policies hold as rw_gate_hold() does. */
	st_new(&sg2, &ssp, 0);
	assert_int_equal(rw_gate_hold_own(&sg2.g, 0, 0), -EOPNOTSUPP);
	assert_int_equal(sg2.g.held, 0);
	st_free(&sg2);
}

/* ADAPTIVE: a withdrawn admission gives back the grant unit it spent. */
static void gate_withdraw_grant(void **state)
{
	struct rw_gate_config cfg = st_cfg(RW_GATE_ADAPTIVE, 2, 0, 1, 3);
	struct st_gate sg;
	u32 grant;

	(void)state;
	st_new(&sg, &cfg, 0);
	sg.g.w[0].grant = 2;
	grant = sg.g.w[0].grant;
	/* Worker 0 leads by more than s_lo: its admission spends a unit. */
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 1), A);
	assert_int_equal(rw_gate_push(&sg.g, 0, 0, 2, NULL), 0);
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 3), A);
	assert_true(sg.g.w[0].consumed);
	assert_int_equal(sg.g.w[0].grant, grant - 1);
	assert_int_equal(rw_gate_withdraw(&sg.g, 0, 0), 0);
	assert_int_equal(sg.g.w[0].grant, grant);
	assert_int_equal(rw_gate_check(&sg.g), 0);
	st_free(&sg);
}

/* A quorum at or above the live workers is plain BSP; evictions count. */
static void gate_bsp_quorum_live(void **state)
{
	static const struct st_step s[] = {
		REQ(1, 0, A), REQ(1, 1, A), REQ(1, 2, A),
		PUSH(2, 0, 0), REQ(2, 0, P),
		EVICT(3, 2, 1, 0),			/* 2 live, quorum 2: all */
		PUSH(4, 1, 0x1), REQ(4, 1, A),
		REQ(5, 0, -EBUSY),
	};
	struct rw_gate_config cfg = st_cfg(RW_GATE_BSP, 3, 0, 0, 0);
	struct st_gate sg;

	(void)state;
	cfg.quorum = 2;
	run_script(&cfg, s, ARRAY_SIZE(s), &sg);
	assert_int_equal(rw_gate_quorum(&sg.g), 2);
	assert_int_equal(sg.g.floor, sg.g.min_clock);
	st_free(&sg);
}

/*
 * A running gate switches BSP -> quorum -> SSP(2) -> BSP: parked workers
 * wait for what the new rule asks, clocks and epochs stay.
 */
static void gate_reconfigure(void **state)
{
	static const struct st_step a[] = {
		REQ(1, 0, A), REQ(1, 1, A), REQ(1, 2, A),
		PUSH(2, 0, 0), REQ(2, 0, P),
		PUSH(2, 1, 0), REQ(2, 1, P),		/* 2 is the straggler */
	};
	struct rw_gate_config cfg = st_cfg(RW_GATE_BSP, 3, 0, 0, 0);
	struct rw_gate_config bad;
	struct st_snap snap;
	struct st_gate sg;
	u32 out[3], epoch = 0;

	(void)state;
	run_script(&cfg, a, ARRAY_SIZE(a), &sg);
	/* Refused changes leave everything as it was. */
	st_snap_take(&snap, &sg);
	bad = cfg;
	bad.nr_workers = 4;
	assert_int_equal(rw_gate_reconfigure(&sg.g, &bad, 3 * ST_MS), -EINVAL);
	bad = cfg;
	bad.quorum = 4;
	assert_int_equal(rw_gate_reconfigure(&sg.g, &bad, 3 * ST_MS), -EINVAL);
	bad = cfg;
	bad.window = 5;
	assert_int_equal(rw_gate_reconfigure(&sg.g, &bad, 3 * ST_MS), -EINVAL);
	st_snap_same(&snap, &sg);

	/* Quorum 2: both parked workers may go at once. */
	cfg.quorum = 2;
	assert_int_equal(rw_gate_reconfigure(&sg.g, &cfg, 3 * ST_MS), 0);
	assert_int_equal(rw_gate_release(&sg.g, 3 * ST_MS, out, 3), 2);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 1);
	assert_int_equal(rw_gate_check(&sg.g), 0);
	assert_int_equal(rw_gate_push(&sg.g, 0, 0, 4 * ST_MS, NULL), 0);
	assert_int_equal(rw_gate_push(&sg.g, 1, 0, 4 * ST_MS, NULL), 0);
	/* Spread 2 now; back to plain BSP: tolerated, and nobody runs away. */
	cfg.quorum = 0;
	assert_int_equal(rw_gate_reconfigure(&sg.g, &cfg, 5 * ST_MS), 0);
	assert_int_equal(rw_gate_check(&sg.g), 0);
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 5 * ST_MS), P);
	assert_int_equal(sg.w[0].key, 2);
	/* SSP(2): worker 0 (clock 2, c_min 0) needs c_min 1. */
	cfg = st_cfg(RW_GATE_SSP, 3, 2, 0, 0);
	assert_int_equal(rw_gate_reconfigure(&sg.g, &cfg, 6 * ST_MS), 0);
	assert_int_equal(sg.w[0].key, 1);
	assert_int_equal(rw_gate_release(&sg.g, 6 * ST_MS, out, 3), 0);
	assert_int_equal(rw_gate_push(&sg.g, 2, 0, 7 * ST_MS, NULL), 0);
	assert_int_equal(rw_gate_release(&sg.g, 7 * ST_MS, out, 3), 1);
	assert_int_equal(out[0], 0);
	assert_int_equal(rw_gate_check(&sg.g), 0);
	assert_int_equal(sg.g.epoch, epoch);
	st_free(&sg);
}

/* SSP(2), 3 workers: a worker may finish 2 iterations ahead, not 3. */
static void gate_ssp(void **state)
{
	static const struct st_step s[] = {
		REQ(1, 0, A), PUSH(2, 0, 0),
		REQ(2, 0, A), PUSH(3, 0, 0),		/* c0 = 2, c_min = 0 */
		REQ(3, 0, P),				/* would be 3 ahead */
		REQ(4, 1, A), PUSH(5, 1, 0),
		REQ(5, 1, A), PUSH(6, 1, 0),		/* c1 = 2 */
		REQ(6, 1, P),
		REQ(7, 2, A), PUSH(8, 2, 0x3),		/* c_min 1: both go */
		REQ(8, 2, A), PUSH(9, 2, 0),		/* c2 = 2, c_min 2 */
		PUSH(10, 0, 0), PUSH(10, 1, 0),		/* c0 = c1 = 3 */
		REQ(11, 0, A), PUSH(12, 0, 0),		/* c0 = 4 */
		REQ(12, 0, P),				/* 5 - 2 > 2 */
		REQ(13, 2, A), PUSH(14, 2, 0x1),	/* c_min 3: key met */
	};
	struct rw_gate_config cfg = st_cfg(RW_GATE_SSP, 3, 2, 0, 0);
	struct st_gate sg;

	(void)state;
	run_script(&cfg, s, ARRAY_SIZE(s), &sg);
	assert_int_equal(sg.g.max_skew, 2);
	assert_int_equal(rw_gate_bound(&sg.g, 1), 2);
	assert_int_equal(sg.w[0].stats.parks, 2);
	assert_int_equal(sg.w[0].stats.pushes, 4);
	st_free(&sg);
}

/* SSP(1) admits exactly what BSP admits, on the same script. */
static void gate_ssp1_is_bsp(void **state)
{
	static const struct st_step s[] = {
		REQ(1, 0, A), REQ(1, 1, A), PUSH(2, 0, 0), REQ(2, 0, P),
		PUSH(3, 1, 0x1), REQ(3, 1, A), PUSH(4, 1, 0), REQ(4, 1, P),
		PUSH(5, 0, 0x2),
	};
	struct rw_gate_config bsp = st_cfg(RW_GATE_BSP, 2, 0, 0, 0);
	struct rw_gate_config ssp = st_cfg(RW_GATE_SSP, 2, 1, 0, 0);

	(void)state;
	run_script(&bsp, s, ARRAY_SIZE(s), NULL);
	run_script(&ssp, s, ARRAY_SIZE(s), NULL);
}

/* ASP: never parks, whatever the spread; the spread is still recorded. */
static void gate_asp(void **state)
{
	struct rw_gate_config cfg = st_cfg(RW_GATE_ASP, 2, 0, 0, 0);
	struct st_gate sg;
	u64 t;

	(void)state;
	st_new(&sg, &cfg, 0);
	for (t = 1; t <= 40; t++) {
		assert_int_equal(rw_gate_request(&sg.g, 0, 0, t), A);
		assert_int_equal(rw_gate_push(&sg.g, 0, 0, t, NULL), 0);
		assert_int_equal(rw_gate_check(&sg.g), 0);
	}
	assert_int_equal(sg.g.max_skew, 40);
	assert_int_equal(sg.g.min_clock, 0);
	assert_int_equal(sg.g.max_clock, 40);
	assert_int_equal(sg.g.nr_parked, 0);
	assert_int_equal(rw_gate_bound(&sg.g, 0), U32_MAX);
	st_free(&sg);
}

/*
 * Order of calls: a push needs an admission first, a request needs the
 * previous iteration pushed. Refusals change nothing.
 */
static void gate_protocol(void **state)
{
	static struct st_snap snap;
	struct rw_gate_config cfg = st_cfg(RW_GATE_SSP, 2, 1, 0, 0);
	struct st_gate sg;
	bool adv = false;

	(void)state;
	st_new(&sg, &cfg, 0);
	st_snap_take(&snap, &sg);
	assert_int_equal(rw_gate_push(&sg.g, 0, 0, 5, &adv), -EPROTO);
	st_snap_same(&snap, &sg);
	assert_false(adv);
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 5), A);
	st_snap_take(&snap, &sg);
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 6), -EBUSY);
	st_snap_same(&snap, &sg);
	adv = true;
	assert_int_equal(rw_gate_push(&sg.g, 0, 0, 7, &adv), 0);
	assert_false(adv);			/* worker 1 is still at 0 */
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 8), P);
	st_snap_take(&snap, &sg);
	assert_int_equal(rw_gate_push(&sg.g, 0, 0, 9, &adv), -EPROTO);
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 9), -EBUSY);
	st_snap_same(&snap, &sg);
	/* The ring holds the admission-to-push time: 7 - 5. */
	assert_int_equal(sg.w[0].nts, 1);
	assert_int_equal(sg.ts[0], 2);
	st_free(&sg);
}

/*
 * Liveness with SSP(1) and a 100 ms timeout: heartbeats keep a worker in,
 * silence evicts it, parked workers are never expired, an eviction bumps
 * the epoch and frees those waiting on the dead one, old epochs are
 * fenced, and a rejoined worker catches up from c_min.
 */
static void gate_liveness(void **state)
{
	static const struct st_step s[] = {
		REQ(1, 0, A), REQ(1, 1, A), REQ(1, 2, A),
		PUSH(10, 0, 0), REQ(10, 0, P),
		PUSH(20, 1, 0), REQ(20, 1, P),
		HB(50, 2, 0),				/* alive, computing */
		EXPIRE(149, 0, 0, 0),			/* seen 99 ms ago */
		EXPIRE(150, 1, 0x4, 0x3),		/* 100 ms: gone */
		PUSH_ERR(151, 2, -ESTALE), REQ(151, 2, -ESTALE),
		HB(151, 2, -ESTALE),
		EVICT(152, 2, 0, 0),			/* not live: no-op */
		JOIN(160, 2, 0),			/* epoch 2, clock 1 */
		JOIN(160, 2, -EEXIST),
		REQ_EP(161, 2, 0, -ESTALE),		/* the old epoch */
		PUSH_EP(161, 2, 1, -ESTALE),
		REQ(162, 2, A), PUSH(170, 2, 0),
		PUSH(171, 0, 0), PUSH(171, 1, 0),	/* all at 2 */
		REQ(172, 0, A), PUSH(173, 0, 0), REQ(173, 0, P),
		EVICT(174, 0, 1, 0),			/* parked: unparked */
		PUSH_ERR(175, 0, -ESTALE),
	};
	struct rw_gate_config cfg = st_cfg(RW_GATE_SSP, 3, 1, 0, 0);
	struct st_gate sg;

	(void)state;
	cfg.evict_timeout_ns = 100 * ST_MS;
	st_new(&sg, &cfg, 0);
	st_run(&sg, s, ARRAY_SIZE(s));
	assert_int_equal(sg.g.epoch, 3);
	assert_int_equal(sg.g.nr_live, 2);
	assert_int_equal(sg.g.nr_parked, 0);
	assert_int_equal(sg.w[2].epoch, 2);
	assert_int_equal(sg.w[2].clock, 2);
	assert_int_equal(sg.w[2].stats.joins, 1);
	assert_int_equal(sg.w[2].stats.evictions, 1);
	assert_int_equal(sg.w[2].stats.stale_pushes, 2);
	assert_int_equal(sg.w[0].stats.evictions, 1);
	assert_int_equal(sg.w[0].stats.stale_pushes, 1);
	/* Worker 0 was parked 10..150 and 173..174 ms. */
	assert_int_equal(sg.w[0].stats.parked_ns, 141 * ST_MS);
	assert_int_equal(sg.g.min_clock, 2);
	/* Workers 1 (last seen 171 ms) and 2 (170 ms) go silent. */
	assert_int_equal(rw_gate_expire(&sg.g, 270 * ST_MS, NULL, 0), 1);
	assert_false(sg.w[2].live);
	assert_true(sg.w[1].live);
	assert_int_equal(rw_gate_expire(&sg.g, 271 * ST_MS, NULL, 0), 1);
	assert_int_equal(sg.g.nr_live, 0);
	assert_int_equal(rw_gate_check(&sg.g), 0);
	st_free(&sg);
}

/* Nobody left: a worker that rejoins starts from the furthest clock. */
static void gate_rejoin_empty(void **state)
{
	struct rw_gate_config cfg = st_cfg(RW_GATE_SSP, 3, 4, 0, 0);
	struct st_gate sg;
	u32 ep = 99, i;

	(void)state;
	st_new(&sg, &cfg, 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(rw_gate_request(&sg.g, 1, 0, i), A);
		assert_int_equal(rw_gate_push(&sg.g, 1, 0, i, NULL), 0);
	}
	assert_int_equal(rw_gate_evict(&sg.g, 0, 10), 1);
	assert_int_equal(sg.g.min_clock, 0);		/* worker 2 is at 0 */
	assert_int_equal(rw_gate_evict(&sg.g, 2, 11), 1);
	assert_int_equal(sg.g.min_clock, 3);
	assert_int_equal(rw_gate_evict(&sg.g, 1, 12), 1);
	assert_int_equal(rw_gate_check(&sg.g), 0);
	assert_int_equal(sg.g.nr_live, 0);
	assert_int_equal(sg.g.epoch, 3);
	assert_int_equal(rw_gate_join(&sg.g, 0, 20, &ep), 0);
	assert_int_equal(ep, 4);
	assert_int_equal(sg.w[0].clock, 3);
	assert_int_equal(sg.g.min_clock, 3);
	assert_int_equal(rw_gate_request(&sg.g, 0, ep, 21), A);
	assert_int_equal(rw_gate_check(&sg.g), 0);
	/* The others rejoin at c_min, behind nobody. */
	assert_int_equal(rw_gate_join(&sg.g, 2, 22, &ep), 0);
	assert_int_equal(sg.w[2].clock, 3);
	assert_int_equal(rw_gate_check(&sg.g), 0);
	st_free(&sg);
}

/* No timeout configured: silence never evicts. */
static void gate_no_timeout(void **state)
{
	struct rw_gate_config cfg = st_cfg(RW_GATE_BSP, 2, 0, 0, 0);
	struct st_gate sg;
	u32 out[2];

	(void)state;
	st_new(&sg, &cfg, 0);
	assert_int_equal(rw_gate_expire(&sg.g, U64_MAX, out, 2), 0);
	assert_int_equal(sg.g.nr_live, 2);
	st_free(&sg);
}

/* More evicted than @max: all are evicted, @max are listed. */
static void gate_expire_many(void **state)
{
	struct rw_gate_config cfg = st_cfg(RW_GATE_SSP, 5, 2, 0, 0);
	struct st_gate sg;
	u32 out[2] = { 77, 77 };

	(void)state;
	cfg.evict_timeout_ns = 10;
	st_new(&sg, &cfg, 0);
	assert_int_equal(rw_gate_heartbeat(&sg.g, 3, 0, 5), 0);
	assert_int_equal(rw_gate_expire(&sg.g, 12, out, 2), 4);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 1);
	assert_int_equal(sg.g.nr_live, 1);
	assert_true(sg.w[3].live);
	assert_int_equal(sg.g.epoch, 4);
	assert_int_equal(rw_gate_check(&sg.g), 0);
	st_free(&sg);
}

static void gate_bad_config(void **state)
{
	static const struct {
		u32 policy, nr, s, lo, hi, win;
	} bad[] = {
		{ RW_GATE_POLICY_COUNT, 2, 1, 1, 1, 0 },
		{ 77, 2, 1, 1, 1, 0 },
		{ RW_GATE_BSP, 0, 0, 0, 0, 0 },
		{ RW_GATE_BSP, RW_GATE_MAX_WORKERS + 1, 0, 0, 0, 0 },
		{ RW_GATE_SSP, 2, 0, 0, 0, 0 },
		{ RW_GATE_SSP, 2, RW_GATE_MAX_BOUND + 1, 0, 0, 0 },
		{ RW_GATE_ADAPTIVE, 2, 0, 0, 15, 0 },
		{ RW_GATE_ADAPTIVE, 2, 0, 5, 4, 0 },
		{ RW_GATE_ADAPTIVE, 2, 0, 3, RW_GATE_MAX_BOUND + 1, 0 },
		{ RW_GATE_ADAPTIVE, 2, 0, 3, 15, 1 },
		{ RW_GATE_ASP, 2, 0, 0, 0, RW_GATE_MAX_WINDOW + 1 },
	};
	struct rw_gate_worker w[2];
	struct rw_gate_config cfg;
	struct rw_gate g, g0;
	u64 ts[2 * 8];
	u32 i;

	(void)state;
	memset(&g, 0xa5, sizeof(g));
	g0 = g;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		cfg = st_cfg(bad[i].policy, bad[i].nr, bad[i].s, bad[i].lo,
			     bad[i].hi);
		cfg.window = bad[i].win;
		if (rw_gate_init(&g, &cfg, w, ts, 0) != -EINVAL)
			fail_msg("bad config %u accepted", i);
		assert_memory_equal(&g, &g0, sizeof(g));
	}
	cfg = st_cfg(RW_GATE_SSP, 2, 1, 0, 0);
	assert_int_equal(rw_gate_init(NULL, &cfg, w, ts, 0), -EINVAL);
	assert_int_equal(rw_gate_init(&g, NULL, w, ts, 0), -EINVAL);
	assert_int_equal(rw_gate_init(&g, &cfg, NULL, ts, 0), -EINVAL);
	assert_int_equal(rw_gate_init(&g, &cfg, w, NULL, 0), -EINVAL);
	assert_memory_equal(&g, &g0, sizeof(g));
	/* The extremes that are allowed. */
	cfg = st_cfg(RW_GATE_ADAPTIVE, 2, 0, 1, 1);
	cfg.window = 2;
	assert_int_equal(rw_gate_init(&g, &cfg, w, ts, 0), 0);
	cfg = st_cfg(RW_GATE_SSP, 1, RW_GATE_MAX_BOUND, 0, 0);
	assert_int_equal(rw_gate_init(&g, &cfg, w, ts, 0), 0);
	/* Unused fields are ignored. */
	cfg = st_cfg(RW_GATE_BSP, 2, 0, 9, 3);
	assert_int_equal(rw_gate_init(&g, &cfg, w, ts, 0), 0);
	assert_int_equal(g.cfg.window, RW_GATE_DEFAULT_WINDOW);
	assert_int_equal(rw_gate_window(&cfg), RW_GATE_DEFAULT_WINDOW);
	cfg.window = 5;
	assert_int_equal(rw_gate_window(&cfg), 5);
}

/* Every call with a bad worker, epoch or pointer changes nothing. */
static void gate_bad_calls(void **state)
{
	static struct st_snap snap;
	struct rw_gate_config cfg = st_cfg(RW_GATE_ADAPTIVE, 3, 0, 1, 4);
	struct st_gate sg;
	bool adv = false;
	u32 ep = 0, out[3];

	(void)state;
	cfg.evict_timeout_ns = 1000;
	st_new(&sg, &cfg, 0);
	assert_int_equal(rw_gate_request(&sg.g, 1, 0, 5), A);
	assert_int_equal(rw_gate_evict(&sg.g, 2, 6), 1);
	st_snap_take(&snap, &sg);

	assert_int_equal(rw_gate_request(&sg.g, 3, 0, 7), -EINVAL);
	assert_int_equal(rw_gate_request(&sg.g, U32_MAX, 0, 7), -EINVAL);
	assert_int_equal(rw_gate_request(NULL, 0, 0, 7), -EINVAL);
	assert_int_equal(rw_gate_request(&sg.g, 0, 1, 7), -ESTALE);
	assert_int_equal(rw_gate_request(&sg.g, 2, 0, 7), -ESTALE);
	assert_int_equal(rw_gate_push(&sg.g, 3, 0, 7, &adv), -EINVAL);
	assert_int_equal(rw_gate_push(NULL, 0, 0, 7, &adv), -EINVAL);
	assert_int_equal(rw_gate_heartbeat(&sg.g, 3, 0, 7), -EINVAL);
	assert_int_equal(rw_gate_heartbeat(NULL, 0, 0, 7), -EINVAL);
	assert_int_equal(rw_gate_heartbeat(&sg.g, 1, 5, 7), -ESTALE);
	assert_int_equal(rw_gate_heartbeat(&sg.g, 2, 0, 7), -ESTALE);
	assert_int_equal(rw_gate_evict(&sg.g, 3, 7), -EINVAL);
	assert_int_equal(rw_gate_evict(NULL, 0, 7), -EINVAL);
	assert_int_equal(rw_gate_join(&sg.g, 3, 7, &ep), -EINVAL);
	assert_int_equal(rw_gate_join(&sg.g, 2, 7, NULL), -EINVAL);
	assert_int_equal(rw_gate_join(NULL, 2, 7, &ep), -EINVAL);
	assert_int_equal(rw_gate_join(&sg.g, 0, 7, &ep), -EEXIST);
	assert_int_equal(rw_gate_release(NULL, 7, out, 3), 0);
	assert_int_equal(rw_gate_release(&sg.g, 7, NULL, 3), 0);
	assert_int_equal(rw_gate_expire(NULL, 7, out, 3), 0);
	assert_int_equal(rw_gate_controller(NULL, 0, 1, 7), 0);
	assert_int_equal(rw_gate_controller(&sg.g, 0, 3, 7), 0);
	assert_int_equal(rw_gate_controller(&sg.g, 3, 0, 7), 0);
	assert_int_equal(rw_gate_controller(&sg.g, 1, 1, 7), 0);
	assert_int_equal(rw_gate_bound(NULL, 0), 0);
	assert_int_equal(rw_gate_bound(&sg.g, 3), 0);
	assert_int_equal(rw_gate_check(NULL), -EINVAL);
	st_snap_same(&snap, &sg);
	assert_false(adv);
	assert_int_equal(ep, 0);

	/* A stale push is refused but counted. */
	assert_int_equal(rw_gate_push(&sg.g, 1, 1, 7, &adv), -ESTALE);
	assert_int_equal(sg.w[1].stats.stale_pushes, 1);
	sg.w[1].stats.stale_pushes = 0;
	st_snap_same(&snap, &sg);
	st_free(&sg);
}

/* rw_gate_check catches what it is there to catch. */
static void gate_check_detects(void **state)
{
	struct rw_gate_config cfg = st_cfg(RW_GATE_SSP, 3, 2, 0, 0);
	struct st_gate sg;

	(void)state;
	st_new(&sg, &cfg, 0);
	sg.w[1].clock = 3;
	sg.g.max_clock = 3;
	sg.g.max_skew = 3;
	sg.g.nr_at_min = 2;
	assert_int_equal(rw_gate_check(&sg.g), -EDOM);	/* 3 - 0 > 2 */
	sg.w[1].clock = 2;
	sg.g.max_clock = 2;
	assert_int_equal(rw_gate_check(&sg.g), 0);
	sg.g.nr_at_min = 3;
	assert_int_equal(rw_gate_check(&sg.g), -EDOM);
	sg.g.nr_at_min = 2;
	sg.w[0].parked = true;
	assert_int_equal(rw_gate_check(&sg.g), -EDOM);	/* nr_parked */
	sg.g.nr_parked = 1;
	assert_int_equal(rw_gate_check(&sg.g), 0);
	sg.w[0].running = true;
	assert_int_equal(rw_gate_check(&sg.g), -EDOM);	/* both */
	sg.w[0].running = false;
	sg.g.max_skew = 1;
	assert_int_equal(rw_gate_check(&sg.g), -EDOM);	/* max_skew behind */
	st_free(&sg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gate_bsp),
		cmocka_unit_test(gate_bsp_quorum),
		cmocka_unit_test(gate_bsp_quorum_live),
		cmocka_unit_test(gate_bsp_quorum_ends),
		cmocka_unit_test(gate_hold),
		cmocka_unit_test(gate_hold_bsp),
		cmocka_unit_test(gate_withdraw),
		cmocka_unit_test(gate_withdraw_grant),
		cmocka_unit_test(gate_hold_own),
		cmocka_unit_test(gate_reconfigure),
		cmocka_unit_test(gate_ssp),
		cmocka_unit_test(gate_ssp1_is_bsp),
		cmocka_unit_test(gate_asp),
		cmocka_unit_test(gate_protocol),
		cmocka_unit_test(gate_liveness),
		cmocka_unit_test(gate_rejoin_empty),
		cmocka_unit_test(gate_no_timeout),
		cmocka_unit_test(gate_expire_many),
		cmocka_unit_test(gate_bad_config),
		cmocka_unit_test(gate_bad_calls),
		cmocka_unit_test(gate_check_detects),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("sync-gate", tests, NULL, NULL);
}
