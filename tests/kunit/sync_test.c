// SPDX-License-Identifier: GPL-2.0
/*
 * The staleness gate in the kernel: decisions on scripted clock sequences,
 * the adaptive controller's choice on the hand-computed timelines of
 * tests/common/gate_timelines.h (the table cmocka runs too), the
 * invariant over long random schedules, eviction, epoch fencing and
 * rejoin, and real threads racing pushes against parked waits.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "rw.h"
#include "sync/gate.h"
#include "sync/sync.h"
#include "../common/gate_timelines.h"

#define RW_GT_MAX_W	8

/* A gate over KUnit-managed storage. */
static struct rw_gate *rw_gt_gate(struct kunit *test, u32 policy, u32 w,
				  u32 s, u32 lo, u32 hi)
{
	struct rw_gate_config cfg = {
		.policy = policy, .nr_workers = w, .s = s, .s_lo = lo,
		.s_hi = hi,
	};
	struct rw_gate *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	struct rw_gate_worker *ws = kunit_kcalloc(test, w, sizeof(*ws),
						  GFP_KERNEL);
	u64 *ts = kunit_kcalloc(test, w * rw_gate_window(&cfg), sizeof(u64),
				GFP_KERNEL);

	KUNIT_ASSERT_TRUE(test, g && ws && ts);
	KUNIT_ASSERT_EQ(test, rw_gate_init(g, &cfg, ws, ts, 0), 0);
	return g;
}

/* One scripted step: worker @p pushes (push) or requests (!push). */
struct rw_gt_step {
	u8 p;
	bool push;
	int expect;		/* request: verdict; push: 0 */
	u32 released;		/* bitmask rw_gate_release must report after */
};

struct rw_gt_script {
	const char *name;
	u32 policy, w, s;
	const struct rw_gt_step *steps;
	u32 n;
};

#define RW_GT_PUSH(_p, _rel)	{ .p = (_p), .push = true, .released = (_rel) }
#define RW_GT_REQ(_p, _v)	{ .p = (_p), .push = false, .expect = (_v) }
#define RW_GT_A			RW_GATE_ADMIT
#define RW_GT_P			RW_GATE_PARK

/* BSP, 3 workers: nobody starts iteration 2 before all finished 1. */
static const struct rw_gt_step rw_gt_bsp[] = {
	RW_GT_REQ(0, RW_GT_A), RW_GT_REQ(1, RW_GT_A), RW_GT_REQ(2, RW_GT_A),
	RW_GT_PUSH(0, 0), RW_GT_REQ(0, RW_GT_P),
	RW_GT_PUSH(1, 0), RW_GT_REQ(1, RW_GT_P),
	RW_GT_PUSH(2, 0x3), RW_GT_REQ(2, RW_GT_A),
};

/* SSP(2), 2 workers: worker 0 may finish 2 iterations ahead, not 3. */
static const struct rw_gt_step rw_gt_ssp2[] = {
	RW_GT_REQ(0, RW_GT_A), RW_GT_PUSH(0, 0),
	RW_GT_REQ(0, RW_GT_A), RW_GT_PUSH(0, 0),
	RW_GT_REQ(0, RW_GT_P),
	RW_GT_REQ(1, RW_GT_A), RW_GT_PUSH(1, 0x1),
	/* Released means running: asking again before pushing is refused. */
	RW_GT_REQ(0, -EBUSY),
	RW_GT_PUSH(0, 0), RW_GT_REQ(0, RW_GT_P),
};

/* ASP: never parks. */
static const struct rw_gt_step rw_gt_asp[] = {
	RW_GT_REQ(0, RW_GT_A), RW_GT_PUSH(0, 0), RW_GT_REQ(0, RW_GT_A),
	RW_GT_PUSH(0, 0), RW_GT_REQ(0, RW_GT_A), RW_GT_PUSH(0, 0),
	RW_GT_REQ(0, RW_GT_A),
};

static const struct rw_gt_script rw_gt_scripts[] = {
	{ "bsp", RW_GATE_BSP, 3, 0, rw_gt_bsp, ARRAY_SIZE(rw_gt_bsp) },
	{ "ssp2", RW_GATE_SSP, 2, 2, rw_gt_ssp2, ARRAY_SIZE(rw_gt_ssp2) },
	{ "asp", RW_GATE_ASP, 2, 0, rw_gt_asp, ARRAY_SIZE(rw_gt_asp) },
};

static void rw_gt_script_desc(const struct rw_gt_script *s, char *desc)
{
	strscpy(desc, s->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rw_gt_script, rw_gt_scripts, rw_gt_script_desc);

static void rw_sync_script_test(struct kunit *test)
{
	const struct rw_gt_script *sc = test->param_value;
	struct rw_gate *g = rw_gt_gate(test, sc->policy, sc->w, sc->s, 0, 0);
	u32 i, out[RW_GT_MAX_W], n, k, mask;
	u64 now = 0;

	for (i = 0; i < sc->n; i++) {
		const struct rw_gt_step *st = &sc->steps[i];
		bool adv;

		now += 1000;
		if (st->push) {
			KUNIT_ASSERT_EQ_MSG(test, rw_gate_push(g, st->p, 0, now,
							       &adv), 0,
					    "step %u", i);
			n = rw_gate_release(g, now, out, RW_GT_MAX_W);
			for (k = 0, mask = 0; k < n; k++)
				mask |= 1U << out[k];
			KUNIT_EXPECT_EQ_MSG(test, mask, st->released,
					    "step %u: released", i);
		} else {
			KUNIT_EXPECT_EQ_MSG(test, rw_gate_request(g, st->p, 0, now),
					    st->expect, "step %u", i);
		}
		KUNIT_EXPECT_EQ_MSG(test, rw_gate_check(g), 0, "step %u", i);
	}
}

static void rw_gtl_desc(const struct rw_gtl *tl, char *desc)
{
	strscpy(desc, tl->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rw_gtl, rw_gtl_timelines, rw_gtl_desc);

/*
 * The controller and the ADAPTIVE rules on one hand-computed timeline,
 * run by the interpreter the cmocka test-sync-ctl shares.
 */
static void rw_sync_timeline_test(struct kunit *test)
{
	const struct rw_gtl *tl = test->param_value;
	struct rw_gate *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	struct rw_gate_worker *w = kunit_kcalloc(test, tl->cfg.nr_workers,
						 sizeof(*w), GFP_KERNEL);
	u64 *ts = kunit_kcalloc(test, rw_gtl_nr_ts(tl), sizeof(*ts),
				GFP_KERNEL);
	struct rw_gtl_fail f;

	KUNIT_ASSERT_TRUE(test, g && w && ts);
	if (rw_gtl_run(tl, g, w, ts, &f) != -1)
		KUNIT_FAIL(test, RW_GTL_FMT, tl->name, f.op, f.what,
			   (long long)f.got, (long long)f.want);
}

/*
 * Long random schedules: any worker pushes or requests at random, parked
 * ones wait for release, some get evicted and rejoin. The invariant holds
 * after every call.
 */
static void rw_sync_random_invariant_test(struct kunit *test)
{
	static const u32 pol[][4] = {
		{ RW_GATE_BSP, 0, 0, 0 }, { RW_GATE_SSP, 3, 0, 0 },
		{ RW_GATE_SSP, 1, 0, 0 }, { RW_GATE_ADAPTIVE, 0, 3, 15 },
		{ RW_GATE_ADAPTIVE, 0, 1, 4 },
	};
	struct rnd_state rnd;
	u32 c, i, out[RW_GT_MAX_W];

	prandom_seed_state(&rnd, 42);
	for (c = 0; c < ARRAY_SIZE(pol); c++) {
		struct rw_gate *g = rw_gt_gate(test, pol[c][0], RW_GT_MAX_W,
					       pol[c][1], pol[c][2], pol[c][3]);
		bool running[RW_GT_MAX_W] = {}, parked[RW_GT_MAX_W] = {};
		u32 epoch[RW_GT_MAX_W] = {}, bad = 0;
		u64 now = 0;

		for (i = 0; i < 20000; i++) {
			u32 p = prandom_u32_state(&rnd) % RW_GT_MAX_W;
			u32 what = prandom_u32_state(&rnd) % 100;
			u32 k, n;
			bool adv;
			int ret;

			now += 1000 + prandom_u32_state(&rnd) % 5000000;
			if (what < 2) {
				rw_gate_evict(g, p, now);
				running[p] = false;
				parked[p] = false;
			} else if (what < 4 && !g->w[p].live) {
				KUNIT_EXPECT_EQ(test, rw_gate_join(g, p, now,
								   &epoch[p]), 0);
			} else if (running[p]) {
				if (!rw_gate_push(g, p, epoch[p], now, &adv))
					running[p] = false;
			} else if (!parked[p] && g->w[p].live) {
				ret = rw_gate_request(g, p, epoch[p], now);
				running[p] = ret == RW_GATE_ADMIT;
				parked[p] = ret == RW_GATE_PARK;
			}
			n = rw_gate_release(g, now, out, RW_GT_MAX_W);
			for (k = 0; k < n; k++) {
				parked[out[k]] = false;
				running[out[k]] = true;
			}
			bad += rw_gate_check(g) != 0;
		}
		KUNIT_EXPECT_EQ_MSG(test, bad, 0, "policy case %u", c);
		/* The schedule made progress, it was not all parking. */
		KUNIT_EXPECT_GT_MSG(test, g->min_clock, 50, "policy case %u", c);
	}
}

/* Evicting the straggler frees the others; its own pushes are fenced. */
static void rw_sync_evict_rejoin_test(struct kunit *test)
{
	struct rw_gate_config cfg = {
		.policy = RW_GATE_SSP, .nr_workers = 3, .s = 2,
	};
	struct rw_sync *s = rw_sync_create(&cfg);
	struct rw_sync_info info;
	u32 ep = 0;
	int i;

	KUNIT_ASSERT_FALSE(test, IS_ERR(s));
	/* Workers 0 and 1 run two iterations; worker 2 none. */
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, rw_sync_wait(s, 0, 0, HZ), 0);
		KUNIT_EXPECT_EQ(test, rw_sync_push(s, 0, 0), 0);
		KUNIT_EXPECT_EQ(test, rw_sync_wait(s, 1, 0, HZ), 0);
		KUNIT_EXPECT_EQ(test, rw_sync_push(s, 1, 0), 0);
	}
	/* A third would put them 3 ahead of worker 2: parked, times out. */
	KUNIT_EXPECT_EQ(test, rw_sync_wait(s, 0, 0, HZ / 50), -ETIMEDOUT);
	rw_sync_info(s, &info);
	KUNIT_EXPECT_EQ(test, info.nr_parked, 1);
	KUNIT_EXPECT_EQ(test, info.min_clock, 0);

	KUNIT_EXPECT_EQ(test, rw_sync_evict(s, 2), 0);
	rw_sync_info(s, &info);
	KUNIT_EXPECT_EQ(test, info.epoch, 1);
	KUNIT_EXPECT_EQ(test, info.nr_live, 2);
	KUNIT_EXPECT_EQ(test, info.min_clock, 2);
	/* The parked wait of worker 0 was released by the eviction. */
	KUNIT_EXPECT_EQ(test, rw_sync_wait(s, 0, 0, HZ), 0);
	/* The evicted worker is fenced. */
	KUNIT_EXPECT_EQ(test, rw_sync_push(s, 2, 0), -ESTALE);
	KUNIT_EXPECT_EQ(test, rw_sync_wait(s, 2, 0, HZ), -ESTALE);
	KUNIT_EXPECT_EQ(test, rw_sync_heartbeat(s, 2, 0), -ESTALE);

	/* It rejoins at the minimum clock, in a new epoch, and runs. */
	KUNIT_EXPECT_EQ(test, rw_sync_join(s, 2, &ep), 0);
	KUNIT_EXPECT_EQ(test, ep, 2);
	KUNIT_EXPECT_EQ(test, rw_sync_join(s, 2, &ep), -EEXIST);
	KUNIT_EXPECT_EQ(test, rw_sync_wait(s, 2, 0, HZ), -ESTALE);
	KUNIT_EXPECT_EQ(test, rw_sync_wait(s, 2, ep, HZ), 0);
	KUNIT_EXPECT_EQ(test, rw_sync_push(s, 2, ep), 0);
	KUNIT_EXPECT_EQ(test, rw_sync_check(s), 0);

	KUNIT_EXPECT_EQ(test, rw_sync_wait(s, 7, 0, HZ), -EINVAL);
	KUNIT_EXPECT_EQ(test, rw_sync_push(s, 7, 0), -EINVAL);
	rw_sync_destroy(s);
}

/* A silent worker is evicted by the timer; a waiter on it is freed. */
static void rw_sync_expire_test(struct kunit *test)
{
	struct rw_gate_config cfg = {
		.policy = RW_GATE_BSP, .nr_workers = 2,
		.evict_timeout_ns = 100 * NSEC_PER_MSEC,
	};
	struct rw_sync *s = rw_sync_create(&cfg);
	struct rw_sync_info info;

	KUNIT_ASSERT_FALSE(test, IS_ERR(s));
	KUNIT_EXPECT_EQ(test, rw_sync_wait(s, 0, 0, HZ), 0);
	KUNIT_EXPECT_EQ(test, rw_sync_push(s, 0, 0), 0);
	/* Worker 1 never shows up: worker 0 is released by its eviction. */
	KUNIT_EXPECT_EQ(test, rw_sync_wait(s, 0, 0, 10 * HZ), 0);
	rw_sync_info(s, &info);
	KUNIT_EXPECT_EQ(test, info.nr_live, 1);
	KUNIT_EXPECT_GE(test, info.epoch, 1);
	KUNIT_EXPECT_EQ(test, rw_sync_push(s, 1, 0), -ESTALE);
	rw_sync_destroy(s);
}

struct rw_gt_thread {
	struct rw_sync *s;
	u32 p, iters;
	struct completion done;
	int err;
	u32 seed;
};

static int rw_gt_thread_fn(void *arg)
{
	struct rw_gt_thread *t = arg;
	u32 i;
	int ret;

	for (i = 0; i < t->iters && !t->err; i++) {
		do {
			ret = rw_sync_wait(t->s, t->p, 0, 30 * HZ);
		} while (ret == -ERESTARTSYS);
		if (ret) {
			t->err = ret;
			break;
		}
		t->seed = t->seed * 1103515245 + 12345;
		if (t->seed & 0x10000)
			usleep_range(10, 200);
		ret = rw_sync_push(t->s, t->p, 0);
		if (ret)
			t->err = ret;
		if (rw_sync_check(t->s))
			t->err = -EDOM;
	}
	/* Leaves no code of this module to run after the completion. */
	kthread_complete_and_exit(&t->done, 0);
}

/*
 * Threads race pushes against parked waits: every iteration completes (no
 * wake-up is lost: a lost one stalls a worker past its 30 s wait) and the
 * bound holds throughout.
 */
static void rw_sync_threads_test(struct kunit *test)
{
	static const u32 pol[][4] = {
		{ RW_GATE_BSP, 0, 0, 0 }, { RW_GATE_SSP, 2, 0, 0 },
		{ RW_GATE_ADAPTIVE, 0, 1, 3 },
	};
	struct rw_gt_thread t[4];
	u32 c, i;

	for (c = 0; c < ARRAY_SIZE(pol); c++) {
		struct rw_gate_config cfg = {
			.policy = pol[c][0], .nr_workers = ARRAY_SIZE(t),
			.s = pol[c][1], .s_lo = pol[c][2], .s_hi = pol[c][3],
		};
		struct rw_sync *s = rw_sync_create(&cfg);
		struct rw_sync_info info;

		KUNIT_ASSERT_FALSE(test, IS_ERR(s));
		for (i = 0; i < ARRAY_SIZE(t); i++) {
			t[i] = (struct rw_gt_thread){ .s = s, .p = i,
						      .iters = 300,
						      .seed = i * 7919 + c };
			init_completion(&t[i].done);
			if (IS_ERR(kthread_run(rw_gt_thread_fn, &t[i],
					       "rw_gate/%u", i))) {
				t[i].err = -ECHILD;
				complete(&t[i].done);
			}
		}
		/* Never leave while a thread may still use @s or @t. */
		for (i = 0; i < ARRAY_SIZE(t); i++) {
			wait_for_completion(&t[i].done);
			KUNIT_EXPECT_EQ_MSG(test, t[i].err, 0, "policy %u worker %u",
					    c, i);
		}
		rw_sync_info(s, &info);
		KUNIT_EXPECT_EQ_MSG(test, info.min_clock, 300, "policy %u", c);
		rw_sync_destroy(s);
	}
}

static struct kunit_case rw_sync_test_cases[] = {
	KUNIT_CASE_PARAM(rw_sync_script_test, rw_gt_script_gen_params),
	KUNIT_CASE_PARAM(rw_sync_timeline_test, rw_gtl_gen_params),
	KUNIT_CASE(rw_sync_random_invariant_test),
	KUNIT_CASE(rw_sync_evict_rejoin_test),
	KUNIT_CASE(rw_sync_expire_test),
	KUNIT_CASE(rw_sync_threads_test),
	{}
};

static struct kunit_suite rw_sync_test_suite = {
	.name = "rackweave_sync",
	.test_cases = rw_sync_test_cases,
};

kunit_test_suite(rw_sync_test_suite);
