// SPDX-License-Identifier: GPL-2.0
/*
 * The adaptive controller (rw_gate_controller, model at the top of
 * kmod/sync/gate.c) on timelines whose answer is worked out by hand in
 * the comments, and the ADAPTIVE admission rules around it: grants and
 * their consumption, followers, the s_U cap, parking with and without a
 * grant, release of a parked worker that became a follower.
 *
 * Notation: times in ms relative to the controller call ("now"); I_p and
 * I_n the paces of the leader p and the slowest n (window 2, so a pace is
 * the mean of the last two iterations); first = time to n's next push;
 * n's k-th push comes at first + (k - 1) * I_n; the horizon is
 * h = r_max + 1 iterations of p, H = h * I_p; W(b) is p's idle time in
 * [0, H) under bound b; cost(b) = W(b) + (b - s_L) * I_p / 8.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "synctest.h"

#define MS	ST_MS

static void adaptive_gate(struct st_gate *sg, u32 nr, u32 lo, u32 hi)
{
	struct rw_gate_config cfg = st_cfg(RW_GATE_ADAPTIVE, nr, 0, lo, hi);

	cfg.window = 2;
	st_new(sg, &cfg, 0);
}

/* Worker @p runs one iteration, admitted at @t0 ms, pushing at @t1 ms. */
static void iter(struct st_gate *sg, u32 p, u64 t0, u64 t1)
{
	assert_int_equal(rw_gate_request(&sg->g, p, 0, t0 * MS), RW_GATE_ADMIT);
	assert_int_equal(rw_gate_push(&sg->g, p, 0, t1 * MS, NULL), 0);
	assert_int_equal(rw_gate_check(&sg->g), 0);
}

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
static void ctl_transient(void **state)
{
	struct st_gate sg;

	(void)state;
	adaptive_gate(&sg, 2, 3, 15);
	iter(&sg, 1, 0, 100);
	iter(&sg, 0, 0, 100);
	iter(&sg, 1, 100, 200);
	iter(&sg, 0, 100, 200);
	assert_int_equal(rw_gate_request(&sg.g, 1, 0, 200 * MS), RW_GATE_ADMIT);
	iter(&sg, 0, 200, 300);
	iter(&sg, 0, 300, 400);
	iter(&sg, 0, 400, 500);
	assert_int_equal(sg.w[0].pace, 100 * MS);
	assert_int_equal(sg.w[1].pace, 100 * MS);
	assert_int_equal(rw_gate_controller(&sg.g, 0, 1, 500 * MS), 2);

	/* The gate asks the same question and grants b - lead = 2. */
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 500 * MS), RW_GATE_ADMIT);
	assert_int_equal(sg.w[0].stats.granted, 2);
	assert_int_equal(sg.w[0].grant, 1);		/* one used now */
	assert_int_equal(rw_gate_push(&sg.g, 0, 0, 600 * MS, NULL), 0);
	/* Lead 4, d = 5: the grant's second unit. */
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 600 * MS), RW_GATE_ADMIT);
	assert_int_equal(sg.w[0].grant, 0);
	assert_int_equal(rw_gate_push(&sg.g, 0, 0, 700 * MS, NULL), 0);
	assert_int_equal(sg.g.max_clock - sg.g.min_clock, 5);
	assert_int_equal(rw_gate_check(&sg.g), 0);
	st_free(&sg);
}

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
 */
static void ctl_persistent(void **state)
{
	struct st_gate sg;

	(void)state;
	adaptive_gate(&sg, 2, 3, 15);
	iter(&sg, 0, 0, 100);
	iter(&sg, 0, 100, 200);
	iter(&sg, 0, 200, 300);
	iter(&sg, 1, 0, 250);
	iter(&sg, 1, 250, 500);
	assert_int_equal(rw_gate_request(&sg.g, 1, 0, 500 * MS), RW_GATE_ADMIT);
	iter(&sg, 0, 500, 600);
	iter(&sg, 0, 600, 700);
	assert_int_equal(sg.w[1].pace, 250 * MS);
	assert_int_equal(rw_gate_controller(&sg.g, 0, 1, 700 * MS), 8);
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 700 * MS), RW_GATE_ADMIT);
	assert_int_equal(sg.w[0].grant, 11 - 3 - 1);
	st_free(&sg);
}

/*
 * n about to push. Both paces 100; p led by 3 after [0,20] [20,40]
 * [40,60] [100,200] [200,300]; n ran [0,100] [100,200] and, after 5 ms
 * of its own, started its third iteration at 205. At 300 it is 95 in:
 * first = 5. b = 3: p waits 5, then lockstep: W = 5 = cost(3). b = 4:
 * W = 0 but cost 12.5. r* = 0: a unit of lead would save 5 ms, less than
 * the 12.5 it is charged. Had n started at 220 (first = 20), W(3) = 20 >
 * 12.5 and r* = 1.
 */
static void ctl_about_to_push(void **state)
{
	struct st_gate sg;

	(void)state;
	adaptive_gate(&sg, 2, 3, 15);
	iter(&sg, 0, 0, 20);
	iter(&sg, 0, 20, 40);
	iter(&sg, 0, 40, 60);
	iter(&sg, 1, 0, 100);
	iter(&sg, 0, 100, 200);
	iter(&sg, 1, 100, 200);
	assert_int_equal(rw_gate_request(&sg.g, 1, 0, 205 * MS), RW_GATE_ADMIT);
	iter(&sg, 0, 200, 300);
	assert_int_equal(sg.w[0].pace, 100 * MS);
	assert_int_equal(rw_gate_controller(&sg.g, 0, 1, 300 * MS), 0);
	/* 15 ms later n is 110 in, overdue by 10: first = 10 < 12.5. */
	assert_int_equal(rw_gate_controller(&sg.g, 0, 1, 315 * MS), 0);
	/* At 290 (first = 15 > 12.5) one unit pays. */
	assert_int_equal(rw_gate_controller(&sg.g, 0, 1, 290 * MS), 1);

	/* The gate parks p, keyed by s_L: it waits for n's push. */
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 300 * MS), RW_GATE_PARK);
	assert_int_equal(sg.w[0].key, 6 - 3);
	assert_int_equal(sg.w[0].grant, 0);
	st_free(&sg);
}

/*
 * A dead worker. Same history as ctl_transient, but now is 5000: n is
 * 4800 into an iteration of pace 100, first = 4700, after the horizon
 * (1300), so n does not push in it: W(3 + m) = 1300 - 100 m and cost =
 * 1300 - 87.5 m, least at m = 12 = r_max. Granted 15 - 3 = 12 steps.
 */
static void ctl_dead(void **state)
{
	struct st_gate sg;

	(void)state;
	adaptive_gate(&sg, 2, 3, 15);
	iter(&sg, 1, 0, 100);
	iter(&sg, 0, 0, 100);
	iter(&sg, 1, 100, 200);
	iter(&sg, 0, 100, 200);
	assert_int_equal(rw_gate_request(&sg.g, 1, 0, 200 * MS), RW_GATE_ADMIT);
	iter(&sg, 0, 200, 300);
	iter(&sg, 0, 300, 400);
	iter(&sg, 0, 400, 500);
	assert_int_equal(rw_gate_controller(&sg.g, 0, 1, 5000 * MS), 12);
	/* Granted 12, p runs to the cap s_U = 15 and parks there. */
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 5000 * MS), RW_GATE_ADMIT);
	assert_int_equal(sg.w[0].grant, 11);
	assert_int_equal(rw_gate_push(&sg.g, 0, 0, 5100 * MS, NULL), 0);
	while (sg.w[0].clock < 2 + 15) {
		u64 t = 5100 + 100 * (sg.w[0].clock - 6);

		iter(&sg, 0, t, t + 100);
	}
	assert_int_equal(sg.w[0].grant, 0);
	/*
	 * At the cap (lead 15) with the grant spent, the controller still
	 * wants b = 15 (n is still silent): p keeps one unit and waits at
	 * s_U, keyed by c_min 3, not at s_L (c_min 15, a long stall).
	 */
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 7000 * MS), RW_GATE_PARK);
	assert_int_equal(sg.w[0].key, 17 + 1 - 15);
	assert_int_equal(sg.w[0].grant, 1);
	assert_int_equal(rw_gate_bound(&sg.g, 0), 15);
	assert_int_equal(sg.w[0].stats.granted, 13);
	st_free(&sg);
}

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
static void ctl_keeps_lead(void **state)
{
	struct st_gate sg;

	(void)state;
	adaptive_gate(&sg, 2, 3, 15);
	iter(&sg, 0, 0, 50);
	iter(&sg, 0, 50, 100);
	iter(&sg, 0, 100, 150);
	sg.w[0].grant = 4;
	iter(&sg, 0, 150, 250);
	iter(&sg, 0, 250, 350);
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 350 * MS), RW_GATE_ADMIT);
	iter(&sg, 1, 0, 400);
	assert_int_equal(rw_gate_request(&sg.g, 1, 0, 400 * MS), RW_GATE_ADMIT);
	assert_int_equal(rw_gate_push(&sg.g, 0, 0, 450 * MS, NULL), 0);
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 450 * MS), RW_GATE_ADMIT);
	assert_int_equal(rw_gate_push(&sg.g, 1, 0, 500 * MS, NULL), 0);
	assert_int_equal(rw_gate_request(&sg.g, 1, 0, 500 * MS), RW_GATE_ADMIT);
	assert_int_equal(rw_gate_push(&sg.g, 0, 0, 550 * MS, NULL), 0);
	assert_int_equal(sg.w[0].grant, 0);
	assert_int_equal(rw_gate_push(&sg.g, 1, 0, 600 * MS, NULL), 0);
	assert_int_equal(rw_gate_request(&sg.g, 1, 0, 600 * MS), RW_GATE_ADMIT);
	assert_int_equal(sg.g.max_clock - sg.g.min_clock, 4);
	assert_int_equal(rw_gate_controller(&sg.g, 0, 1, 695 * MS), 1);
	assert_int_equal(rw_gate_controller(&sg.g, 0, 1, 680 * MS), 2);
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 695 * MS), RW_GATE_PARK);
	assert_int_equal(sg.w[0].key, 8 - 4);
	assert_int_equal(sg.w[0].grant, 1);
	st_free(&sg);
}

/*
 * The horizon is capped at 32 iterations of p, and so is the lead tried
 * beyond the current one. Adaptive(1, 100), lead 1, n silent past the
 * horizon: W(1 + m) = 3200 - 100 m for m <= 32, cost 3200 - 87.5 m:
 * r* = 32, not 99.
 */
static void ctl_horizon_cap(void **state)
{
	struct st_gate sg;

	(void)state;
	adaptive_gate(&sg, 2, 1, 100);
	iter(&sg, 0, 0, 100);
	iter(&sg, 1, 0, 100);
	assert_int_equal(rw_gate_request(&sg.g, 1, 0, 100 * MS), RW_GATE_ADMIT);
	iter(&sg, 0, 100, 200);
	assert_int_equal(rw_gate_controller(&sg.g, 0, 1, 60000 * MS), 32);
	st_free(&sg);
}

/*
 * A worker's pace: the mean of its ring without the largest entry, so one
 * burst does not make it look slow; the ring keeps the last @window.
 * Window 4; iterations 100, 100, 500, 100: pace (100 + 100 + 100) / 3.
 * Then 200 replaces the oldest 100: ring 200 100 500 100, pace
 * (200 + 100 + 100) / 3. Two entries: plain mean, nothing dropped.
 */
static void ctl_pace(void **state)
{
	struct rw_gate_config cfg = st_cfg(RW_GATE_ADAPTIVE, 2, 0, 3, 15);
	struct st_gate sg;

	(void)state;
	cfg.window = 4;
	st_new(&sg, &cfg, 0);
	iter(&sg, 0, 0, 100);
	iter(&sg, 0, 100, 200);
	assert_int_equal(sg.w[0].pace, 100 * MS);
	iter(&sg, 0, 250, 750);			/* a burst, admitted at 250 */
	assert_int_equal(sg.w[0].pace, 100 * MS);
	assert_int_equal(rw_gate_push(&sg.g, 1, 0, 1, NULL), -EPROTO);
	iter(&sg, 1, 0, 800);
	iter(&sg, 0, 800, 900);
	assert_int_equal(sg.w[0].pace, 100 * MS);
	iter(&sg, 0, 900, 1100);
	assert_int_equal(sg.w[0].nts, 4);
	assert_int_equal(sg.w[0].pace, 400 * MS / 3);
	assert_int_equal(sg.w[1].pace, 800 * MS);
	st_free(&sg);
}

/* No evidence, no band, no lead, other policies: r* = 0. */
static void ctl_degenerate(void **state)
{
	struct rw_gate_config cfg = st_cfg(RW_GATE_SSP, 2, 3, 3, 15);
	struct st_gate sg;

	(void)state;
	adaptive_gate(&sg, 2, 3, 15);
	assert_int_equal(rw_gate_controller(&sg.g, 0, 1, 10 * MS), 0);
	iter(&sg, 1, 0, 100);
	/* p has no pace of its own: it is given n's; p is behind n. */
	assert_int_equal(rw_gate_controller(&sg.g, 0, 1, 150 * MS), 0);
	st_free(&sg);
	adaptive_gate(&sg, 2, 4, 4);
	iter(&sg, 0, 0, 100);
	assert_int_equal(rw_gate_controller(&sg.g, 0, 1, 9000 * MS), 0);
	st_free(&sg);
	st_new(&sg, &cfg, 0);
	iter(&sg, 0, 0, 100);
	assert_int_equal(rw_gate_controller(&sg.g, 0, 1, 9000 * MS), 0);
	st_free(&sg);
}

/*
 * The ADAPTIVE rules around the controller, with a grant planted by hand
 * (white box) so that only the rules are under test. Adaptive(1, 4), 3
 * workers; worker 2 is the straggler, in its first iteration throughout.
 */
static void ctl_rules(void **state)
{
	struct st_gate sg;
	u32 out[3];
	bool adv;

	(void)state;
	adaptive_gate(&sg, 3, 1, 4);
	assert_int_equal(rw_gate_request(&sg.g, 2, 0, 0), RW_GATE_ADMIT);
	iter(&sg, 0, 0, 100);
	iter(&sg, 1, 0, 100);

	/* Rule 3: a grant lets the leader past s_L, one unit per step. */
	sg.w[0].grant = 2;
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 100 * MS), RW_GATE_ADMIT);
	assert_int_equal(sg.w[0].grant, 1);
	assert_int_equal(rw_gate_bound(&sg.g, 0), 4);

	/*
	 * Rule 4: worker 1 ties for c_max, has no grant: the controller.
	 * n = 2 has no pace (it is given p's, 100) and is 100 into its
	 * iteration: first = 0, W(1) = 0, r* = 0: park, keyed by s_L.
	 */
	assert_int_equal(rw_gate_request(&sg.g, 1, 0, 100 * MS), RW_GATE_PARK);
	assert_int_equal(sg.w[1].key, 1);
	assert_int_equal(rw_gate_bound(&sg.g, 1), 1);

	/* Rule 2: the leader's push raises c_max; worker 1 now follows. */
	adv = false;
	assert_int_equal(rw_gate_push(&sg.g, 0, 0, 200 * MS, &adv), 0);
	assert_true(adv);
	assert_int_equal(rw_gate_release(&sg.g, 200 * MS, out, 3), 1);
	assert_int_equal(out[0], 1);
	assert_int_equal(sg.w[1].grant, 0);	/* followers use none */
	assert_int_equal(rw_gate_bound(&sg.g, 1), 2);
	assert_int_equal(rw_gate_push(&sg.g, 1, 0, 300 * MS, &adv), 0);

	/* Worker 0 spends its last unit: c0 = 3, d = 3. */
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 300 * MS), RW_GATE_ADMIT);
	assert_int_equal(sg.w[0].grant, 0);
	assert_int_equal(rw_gate_push(&sg.g, 0, 0, 400 * MS, NULL), 0);

	/* Follower again: worker 1 (c = 2) goes to c_max = 3. */
	assert_int_equal(rw_gate_request(&sg.g, 1, 0, 400 * MS), RW_GATE_ADMIT);
	assert_int_equal(rw_gate_push(&sg.g, 1, 0, 500 * MS, NULL), 0);

	/* The cap: with a grant, d = 4 is admitted, d = 5 is parked. */
	sg.w[0].grant = 3;
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 500 * MS), RW_GATE_ADMIT);
	assert_int_equal(rw_gate_push(&sg.g, 0, 0, 600 * MS, NULL), 0);
	assert_int_equal(sg.g.max_clock, 4);
	assert_int_equal(rw_gate_request(&sg.g, 0, 0, 600 * MS), RW_GATE_PARK);
	assert_int_equal(sg.w[0].key, 4 + 1 - 4);
	assert_int_equal(sg.w[0].grant, 2);
	assert_int_equal(rw_gate_check(&sg.g), 0);

	/* Worker 2 pushes: c_min 1 meets the key; the release consumes. */
	assert_int_equal(rw_gate_push(&sg.g, 2, 0, 700 * MS, &adv), 0);
	assert_int_equal(rw_gate_release(&sg.g, 700 * MS, out, 3), 1);
	assert_int_equal(out[0], 0);
	assert_int_equal(sg.w[0].grant, 1);
	assert_int_equal(sg.w[0].stats.parked_ns, 100 * MS);
	assert_int_equal(rw_gate_check(&sg.g), 0);
	assert_int_equal(sg.g.max_skew, 4);

	/* Eviction drops a grant; a rejoin starts without one. */
	assert_int_equal(rw_gate_evict(&sg.g, 0, 800 * MS), 1);
	assert_int_equal(sg.w[0].grant, 0);
	st_free(&sg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ctl_transient),
		cmocka_unit_test(ctl_persistent),
		cmocka_unit_test(ctl_about_to_push),
		cmocka_unit_test(ctl_dead),
		cmocka_unit_test(ctl_keeps_lead),
		cmocka_unit_test(ctl_horizon_cap),
		cmocka_unit_test(ctl_pace),
		cmocka_unit_test(ctl_degenerate),
		cmocka_unit_test(ctl_rules),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("sync-ctl", tests, NULL, NULL);
}
