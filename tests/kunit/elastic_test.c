// SPDX-License-Identifier: GPL-2.0
/*
 * Elastic BSP in the running engine: a member leaving mid-round (before
 * and after it pushed part of the iteration), rejoining at a boundary,
 * backup workers (quorum K: the first K gradients, late ones dropped and
 * counted), a rule change at a boundary, and membership changes racing
 * the steps. Results are compared bit for bit against the aggregation
 * kernels called directly on exactly the gradients that should be summed.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "rw.h"
#include "engine/engine.h"
#include "agg/agg.h"
#include "engine_kunit.h"

#define RW_E_WORKERS	4
#define RW_E_TIMEOUT	(10 * HZ)
#define RW_E_SHORT	(HZ / 5)

static const struct rw_layout_tensor rw_e_tensors[] = {
	{ .key = 1, .nelems = 5000, .dtype = RW_DTYPE_F32 },	/* 5 chunks */
};

static void rw_e_f32(float *f, u32 bits)
{
	memcpy(f, &bits, sizeof(bits));
}

static void rw_e_config(struct rw_engine_config *cfg, u32 quorum)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->name = "kunit-el";
	cfg->tensors = rw_e_tensors;
	cfg->nr_tensors = ARRAY_SIZE(rw_e_tensors);
	cfg->chunk_size = 4096;
	cfg->nr_workers = RW_E_WORKERS;
	cfg->quorum = quorum;
	cfg->hp.optim = RW_AGG_MOMENTUM;
	rw_e_f32(&cfg->hp.lr, 0x3c23d70a);		/* 0.01 */
	rw_e_f32(&cfg->hp.momentum, 0x3f666666);	/* 0.9 */
}

static struct rw_engine *rw_e_create(struct kunit *test, u32 quorum)
{
	struct rw_engine_config cfg;

	rw_e_config(&cfg, quorum);
	return rw_kt_engine(test, &cfg);
}

/* The reference: parameters and momentum, stepped by rw_e_ref_step(). */
struct rw_e_ref {
	struct rw_agg_hparams hp;
	float *params, *mom;		/* nr_chunks * 1024 */
	u32 *grads;			/* RW_E_WORKERS * 1024 */
	u64 t;
};

static void rw_e_ref_init(struct kunit *test, struct rw_e_ref *r, u32 n)
{
	struct rw_engine_config cfg;

	rw_e_config(&cfg, 0);
	r->hp = cfg.hp;
	r->params = kunit_kzalloc(test, n * 4096, GFP_KERNEL);
	r->mom = kunit_kzalloc(test, n * 4096, GFP_KERNEL);
	r->grads = kunit_kzalloc(test, RW_E_WORKERS * 4096, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, r->params && r->mom && r->grads);
}

/* Step chunk @c of the reference with iteration @it of the ranks in @mask. */
static void rw_e_ref_step(struct kunit *test, struct rw_e_ref *r,
			  struct rw_engine *e, u32 c, u32 it, u64 step,
			  u32 mask)
{
	const void *src[RW_E_WORKERS];
	u32 len = rw_engine_chunk_len(e, c), w, n = 0;
	struct rw_agg_step st;
	struct rw_agg_chunk ch = {
		.src = src, .n = len / 4, .dtype = RW_AGG_F32,
		.out = r->params + c * 1024,
		.state = { r->mom + c * 1024, NULL },
	};

	for (w = 0; w < RW_E_WORKERS; w++) {
		if (!(mask & BIT(w)))
			continue;
		rw_kt_grad(r->grads + n * 1024, len, it, w, c);
		src[n] = r->grads + n * 1024;
		n++;
	}
	ch.nsrc = n;
	KUNIT_ASSERT_EQ(test, rw_agg_step_prepare(&st, &r->hp, n, step), 0);
	KUNIT_ASSERT_EQ(test, rw_agg_update_chunk(&ch, &st), 0);
}

static void rw_e_expect_same(struct kunit *test, struct rw_engine *e,
			     struct rw_e_ref *r, u32 c)
{
	u32 len = rw_engine_chunk_len(e, c);
	u32 *got = kunit_kzalloc(test, 4096, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_ASSERT_EQ(test, rw_engine_read(e, c, got, len, NULL), 0);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(got, r->params + c * 1024, len), 0,
			    "chunk %u differs from the reference", c);
}

/* Worker @w's gradient of iteration @it for chunk @c, tagged, zero-copy. */
static int rw_e_push(struct rw_engine *e, u32 w, u32 c, u32 it, u32 gen)
{
	struct rw_round_tag tag = { .iter = it, .gen = gen };
	struct page *pg = rw_engine_page(e, RW_BUF_GRAD, w, (u64)c * 4096);

	if (!pg)
		return -EINVAL;
	rw_kt_grad(page_address(pg), rw_engine_chunk_len(e, c), it, w, c);
	return rw_engine_push_mapped(e, w, c, &tag);
}

struct rw_e_member {
	u32 p, gen;
	u64 join;
	const struct rw_round_rule *rule;
	u64 from;
};

static void rw_e_fill(struct rw_round_view *v, void *arg)
{
	const struct rw_e_member *m = arg;

	if (m->rule)
		rw_round_view_rule(v, m->rule, m->from);
	else
		rw_round_view_member(v, m->p, m->gen, m->join);
}

static void rw_e_member(struct rw_engine *e, u32 p, u32 gen, u64 join)
{
	struct rw_e_member m = { .p = p, .gen = gen, .join = join };

	rw_engine_view_update(e, rw_e_fill, &m);
}

static void rw_e_wait_idle(struct kunit *test, struct rw_engine *e, u32 w,
			   u32 c)
{
	unsigned long end = jiffies + RW_E_TIMEOUT;

	while (rw_engine_slot_busy(e, w, c) && time_before(jiffies, end))
		schedule_timeout_uninterruptible(1);
	KUNIT_ASSERT_FALSE(test, rw_engine_slot_busy(e, w, c));
}

/*
 * Iteration 0 with all four; in iteration 1 rank 3 pushes the first two
 * chunks only, then leaves; rank 2 leaves before pushing anything of
 * iteration 2. Every step sums exactly the members' gradients that were
 * in, scaled by 1/(number summed); the leaver's are never summed.
 */
static void rw_elastic_leave_test(struct kunit *test)
{
	struct rw_engine *e = rw_e_create(test, 0);
	u32 n = rw_engine_nr_chunks(e), c, w;
	struct rw_e_ref r;

	rw_e_ref_init(test, &r, n);
	for (c = 0; c < n; c++)
		for (w = 0; w < RW_E_WORKERS; w++)
			KUNIT_ASSERT_EQ(test, rw_e_push(e, w, c, 0, 1), 0);
	for (c = 0; c < n; c++) {
		KUNIT_ASSERT_EQ(test, rw_engine_wait(e, c, 1, RW_E_TIMEOUT), 0);
		rw_e_ref_step(test, &r, e, c, 0, 1, 0xf);
	}
	/* Iteration 1: ranks 0 and 1 everywhere, rank 3 on chunks 0-1. */
	for (c = 0; c < n; c++) {
		KUNIT_ASSERT_EQ(test, rw_e_push(e, 0, c, 1, 1), 0);
		KUNIT_ASSERT_EQ(test, rw_e_push(e, 1, c, 1, 1), 0);
		if (c < 2)
			KUNIT_ASSERT_EQ(test, rw_e_push(e, 3, c, 1, 1), 0);
	}
	/* Nothing steps without rank 2 ... */
	KUNIT_EXPECT_EQ(test, rw_engine_wait(e, 0, 2, RW_E_SHORT), -ETIMEDOUT);
	rw_e_member(e, 3, 0, 0);
	/* ... which now is all that is missing. */
	KUNIT_EXPECT_EQ(test, rw_engine_wait(e, 0, 2, RW_E_SHORT), -ETIMEDOUT);
	rw_e_wait_idle(test, e, 3, 0);
	rw_e_wait_idle(test, e, 3, 1);
	for (c = 0; c < n; c++)
		KUNIT_ASSERT_EQ(test, rw_e_push(e, 2, c, 1, 1), 0);
	for (c = 0; c < n; c++) {
		KUNIT_ASSERT_EQ(test, rw_engine_wait(e, c, 2, RW_E_TIMEOUT), 0);
		rw_e_ref_step(test, &r, e, c, 1, 2, 0x7);
	}
	/* Iteration 2: rank 2 leaves before pushing; 0 and 1 go on. */
	for (c = 0; c < n; c++) {
		KUNIT_ASSERT_EQ(test, rw_e_push(e, 0, c, 2, 1), 0);
		KUNIT_ASSERT_EQ(test, rw_e_push(e, 1, c, 2, 1), 0);
	}
	KUNIT_EXPECT_EQ(test, rw_engine_wait(e, n - 1, 3, RW_E_SHORT),
			-ETIMEDOUT);
	rw_e_member(e, 2, 0, 0);
	for (c = 0; c < n; c++) {
		KUNIT_ASSERT_EQ(test, rw_engine_wait(e, c, 3, RW_E_TIMEOUT), 0);
		rw_e_ref_step(test, &r, e, c, 2, 3, 0x3);
		rw_e_expect_same(test, e, &r, c);
	}
	for (w = 0; w < RW_E_WORKERS; w++)
		KUNIT_EXPECT_EQ(test, rw_engine_late(e, w), 0);
}

/*
 * Rank 3 leaves, then rejoins (generation 9) needed from iteration 2: the
 * rounds of iteration 1 go on without it, those of iteration 2 wait for
 * it; a gradient pushed under its old generation is dropped.
 */
static void rw_elastic_rejoin_test(struct kunit *test)
{
	struct rw_engine *e = rw_e_create(test, 0);
	u32 n = rw_engine_nr_chunks(e), c, w;
	struct rw_e_ref r;

	rw_e_ref_init(test, &r, n);
	rw_e_member(e, 3, 0, 0);
	for (c = 0; c < n; c++) {
		for (w = 0; w < 3; w++)
			KUNIT_ASSERT_EQ(test, rw_e_push(e, w, c, 0, 1), 0);
		KUNIT_ASSERT_EQ(test, rw_engine_wait(e, c, 1, RW_E_TIMEOUT), 0);
		rw_e_ref_step(test, &r, e, c, 0, 1, 0x7);
	}
	rw_e_member(e, 3, 9, 1);
	/* Old generation: dropped, not summed, not late. */
	KUNIT_ASSERT_EQ(test, rw_e_push(e, 3, 0, 1, 1), 0);
	rw_e_wait_idle(test, e, 3, 0);
	KUNIT_EXPECT_EQ(test, rw_engine_version(e, 0), 1);
	for (c = 0; c < n; c++)
		for (w = 0; w < 3; w++)
			KUNIT_ASSERT_EQ(test, rw_e_push(e, w, c, 1, 1), 0);
	KUNIT_EXPECT_EQ(test, rw_engine_wait(e, 0, 2, RW_E_SHORT), -ETIMEDOUT);
	for (c = 0; c < n; c++) {
		KUNIT_ASSERT_EQ(test, rw_e_push(e, 3, c, 1, 9), 0);
		KUNIT_ASSERT_EQ(test, rw_engine_wait(e, c, 2, RW_E_TIMEOUT), 0);
		rw_e_ref_step(test, &r, e, c, 1, 2, 0xf);
		rw_e_expect_same(test, e, &r, c);
	}
	KUNIT_EXPECT_EQ(test, rw_engine_late(e, 3), 0);
}

/*
 * Quorum 2 of 4: each chunk's step sums the first two gradients to arrive
 * (here 3 then 1 on even chunks, 0 then 2 on odd ones); the other two are
 * dropped as late and counted, and their slots come free.
 */
static void rw_elastic_quorum_test(struct kunit *test)
{
	static const u32 even[] = { 3, 1, 0, 2 }, odd[] = { 0, 2, 3, 1 };
	struct rw_engine *e = rw_e_create(test, 2);
	u32 n = rw_engine_nr_chunks(e), c, k;
	struct rw_e_ref r;

	rw_e_ref_init(test, &r, n);
	for (c = 0; c < n; c++) {
		const u32 *o = c % 2 ? odd : even;

		KUNIT_ASSERT_EQ(test, rw_e_push(e, o[0], c, 0, 1), 0);
		KUNIT_EXPECT_EQ(test, rw_engine_wait(e, c, 1, RW_E_SHORT),
				-ETIMEDOUT);
		KUNIT_ASSERT_EQ(test, rw_e_push(e, o[1], c, 0, 1), 0);
		KUNIT_ASSERT_EQ(test, rw_engine_wait(e, c, 1, RW_E_TIMEOUT), 0);
		for (k = 2; k < 4; k++) {
			KUNIT_ASSERT_EQ(test, rw_e_push(e, o[k], c, 0, 1), 0);
			rw_e_wait_idle(test, e, o[k], c);
		}
		KUNIT_EXPECT_EQ(test, rw_engine_version(e, c), 1);
		rw_e_ref_step(test, &r, e, c, 0, 1, BIT(o[0]) | BIT(o[1]));
		rw_e_expect_same(test, e, &r, c);
	}
	/* Ranks 0 and 2 were late on the even chunks, 3 and 1 on the odd. */
	KUNIT_EXPECT_EQ(test, rw_engine_late(e, 0), (n + 1) / 2);
	KUNIT_EXPECT_EQ(test, rw_engine_late(e, 2), (n + 1) / 2);
	KUNIT_EXPECT_EQ(test, rw_engine_late(e, 3), n / 2);
	KUNIT_EXPECT_EQ(test, rw_engine_late(e, 1), n / 2);
}

/*
 * A rule change at a boundary: quorum 1 from iteration 1 on. Iteration 0
 * still needs all four; iteration 1 steps on the first gradient.
 */
static void rw_elastic_rule_test(struct kunit *test)
{
	static const struct rw_round_rule q1 = { .quorum = 1 };
	struct rw_e_member m = { .rule = &q1, .from = 1 };
	struct rw_engine *e = rw_e_create(test, 0);
	u32 w;

	rw_engine_view_update(e, rw_e_fill, &m);
	for (w = 0; w < 3; w++)
		KUNIT_ASSERT_EQ(test, rw_e_push(e, w, 0, 0, 1), 0);
	KUNIT_EXPECT_EQ(test, rw_engine_wait(e, 0, 1, RW_E_SHORT), -ETIMEDOUT);
	KUNIT_ASSERT_EQ(test, rw_e_push(e, 3, 0, 0, 1), 0);
	KUNIT_ASSERT_EQ(test, rw_engine_wait(e, 0, 1, RW_E_TIMEOUT), 0);
	KUNIT_ASSERT_EQ(test, rw_e_push(e, 2, 0, 1, 1), 0);
	KUNIT_ASSERT_EQ(test, rw_engine_wait(e, 0, 2, RW_E_TIMEOUT), 0);
	KUNIT_ASSERT_EQ(test, rw_e_push(e, 0, 0, 1, 1), 0);
	rw_e_wait_idle(test, e, 0, 0);
	KUNIT_EXPECT_EQ(test, rw_engine_version(e, 0), 2);
	KUNIT_EXPECT_EQ(test, rw_engine_late(e, 0), 1);
}

struct rw_e_race {
	struct rw_engine *e;
	u32 worker;
	u32 iters;
	struct completion done;
	int err;
};

/* Push every chunk of each iteration once the previous one was used. */
static int rw_e_race_thread(void *arg)
{
	struct rw_e_race *t = arg;
	u32 n = rw_engine_nr_chunks(t->e), it, c;
	unsigned long end = jiffies + 30 * HZ;

	for (it = 0; it < t->iters && !t->err; it++) {
		for (c = 0; c < n; c++) {
			while (rw_engine_slot_busy(t->e, t->worker, c)) {
				if (time_after(jiffies, end)) {
					t->err = -ETIMEDOUT;
					goto out;
				}
				cond_resched();
			}
			t->err = rw_e_push(t->e, t->worker, c, it, 1);
			if (t->err)
				goto out;
		}
	}
out:
	complete(&t->done);
	return 0;
}

/*
 * Three pushers race a fourth rank that keeps leaving and rejoining, with
 * no gradient from it: no round may hang (each steps with the pushers'
 * gradients once the fourth is out of the view), no slot stays busy, and
 * each chunk's version counts exactly one step per iteration.
 */
static void rw_elastic_race_test(struct kunit *test)
{
	struct rw_engine *e = rw_e_create(test, 0);
	struct rw_e_race t[3];
	u32 n = rw_engine_nr_chunks(e), i, c, flips = 0;
	unsigned long end = jiffies + 30 * HZ;
	bool all;

	for (i = 0; i < 3; i++) {
		struct task_struct *k;

		t[i] = (struct rw_e_race){ .e = e, .worker = i, .iters = 50 };
		init_completion(&t[i].done);
		k = kthread_run(rw_e_race_thread, &t[i], "rw-el-%u", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(k));
	}
	do {
		/* In the view with a far join: never needed, then gone. */
		rw_e_member(e, 3, 5 + flips, 1000000);
		rw_e_member(e, 3, 0, 0);
		flips++;
		all = true;
		for (i = 0; i < 3; i++)
			all &= completion_done(&t[i].done);
		cond_resched();
	} while (!all && time_before(jiffies, end));
	for (i = 0; i < 3; i++) {
		wait_for_completion(&t[i].done);
		KUNIT_EXPECT_EQ(test, t[i].err, 0);
	}
	for (c = 0; c < n; c++) {
		KUNIT_EXPECT_EQ(test, rw_engine_wait(e, c, 50, RW_E_TIMEOUT), 0);
		KUNIT_EXPECT_EQ(test, rw_engine_version(e, c), 50);
		for (i = 0; i < 3; i++)
			KUNIT_EXPECT_FALSE(test, rw_engine_slot_busy(e, i, c));
	}
	KUNIT_EXPECT_GT(test, flips, 0);
}

/*
 * A running job leaves rounds (quorum 3) for a step per gradient (SSP)
 * from iteration 1 on, while ranks 1 and 2 already wait in round 0.
 * Rank 0's pull must not wait for that round, which needs rank 0's own
 * next push: freshness under the new rule asks that every earlier
 * gradient be settled, not used. Its push then completes the round, and
 * iteration 1's gradients are applied one by one.
 */
static void rw_elastic_switch_test(struct kunit *test)
{
	static const struct rw_round_rule each = { .each = 1 };
	struct rw_e_member m = { .rule = &each, .from = 1 };
	struct rw_engine *e = rw_e_create(test, 3);
	unsigned long end = jiffies + RW_E_TIMEOUT;
	struct rw_e_ref r;
	u64 posted;

	rw_e_ref_init(test, &r, rw_engine_nr_chunks(e));
	KUNIT_ASSERT_EQ(test, rw_e_push(e, 1, 0, 0, 1), 0);
	KUNIT_ASSERT_EQ(test, rw_e_push(e, 2, 0, 0, 1), 0);
	rw_engine_view_update(e, rw_e_fill, &m);
	posted = rw_engine_posted(e, 0);
	KUNIT_EXPECT_EQ(test, posted, 2);
	while (!rw_engine_fresh(e, 0, 0, posted) && time_before(jiffies, end))
		schedule_timeout_uninterruptible(1);
	KUNIT_EXPECT_TRUE_MSG(test, rw_engine_fresh(e, 0, 0, posted),
			      "a pull waits for a round that needs its puller");
	/* Round 0 still holds both: no step yet, their slots still busy. */
	KUNIT_EXPECT_EQ(test, rw_engine_version(e, 0), 0);
	KUNIT_EXPECT_TRUE(test, rw_engine_slot_busy(e, 1, 0));
	KUNIT_ASSERT_EQ(test, rw_e_push(e, 0, 0, 0, 1), 0);
	KUNIT_ASSERT_EQ(test, rw_engine_wait(e, 0, 1, RW_E_TIMEOUT), 0);
	rw_e_ref_step(test, &r, e, 0, 0, 1, 0x7);
	rw_e_expect_same(test, e, &r, 0);
	/* Iteration 1: each gradient alone, as it comes. */
	KUNIT_ASSERT_EQ(test, rw_e_push(e, 2, 0, 1, 1), 0);
	KUNIT_ASSERT_EQ(test, rw_engine_wait(e, 0, 2, RW_E_TIMEOUT), 0);
	KUNIT_EXPECT_EQ(test, rw_engine_late(e, 3), 0);
}

static void rw_elastic_bad_config_test(struct kunit *test)
{
	struct rw_engine_config cfg;

	rw_e_config(&cfg, RW_E_WORKERS + 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR(rw_engine_create(&cfg)), -EINVAL);
}

static struct kunit_case rw_elastic_test_cases[] = {
	KUNIT_CASE(rw_elastic_leave_test),
	KUNIT_CASE(rw_elastic_rejoin_test),
	KUNIT_CASE(rw_elastic_quorum_test),
	KUNIT_CASE(rw_elastic_rule_test),
	KUNIT_CASE(rw_elastic_race_test),
	KUNIT_CASE(rw_elastic_switch_test),
	KUNIT_CASE(rw_elastic_bad_config_test),
	{}
};

static struct kunit_suite rw_elastic_test_suite = {
	.name = "rackweave_elastic",
	.test_cases = rw_elastic_test_cases,
};

kunit_test_suite(rw_elastic_test_suite);
