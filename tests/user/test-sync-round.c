// SPDX-License-Identifier: GPL-2.0
/*
 * A chunk's step rule (kmod/sync/round.c): synchronous rounds over the
 * members of the moment, members leaving before and after they pushed,
 * rejoining at a boundary, backup workers (quorum K) with arrivals in
 * every order, late and early gradients, rule changes at a boundary, and
 * random schedules checked against the per-chunk invariant: a step never
 * sums two gradients of one rank nor one of another iteration.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "compat.h"
#include "sync/round.h"
#include "synctest.h"

struct rt {
	struct rw_round_view v;
	struct rw_round r;
	struct rw_round_tag tags[RW_ROUND_MAX_RANKS];
	/* What the owner did, in order. */
	u32 steps, late, drops, ones;
	u64 last_sum[RW_ROUND_WORDS];
	u32 last_nsum;
	u64 last_iter;
};

static void rt_init(struct rt *t, u32 n, u32 quorum, bool each)
{
	struct rw_round_rule rule = { .quorum = quorum, .each = each };

	memset(t, 0, sizeof(*t));
	assert_int_equal(rw_round_view_init(&t->v, n, &rule), 0);
}

/* Run decisions until WAIT, checking each step's invariant. */
static void rt_settle(struct rt *t)
{
	struct rw_round_out o;
	u32 p, guard = 0;

	for (;;) {
		rw_round_decide(&t->v, &t->r, t->tags, &o);
		assert_true(++guard < 4 * RW_ROUND_MAX_RANKS);
		switch (o.act) {
		case RW_ROUND_WAIT:
			rw_round_apply(&t->r, &o);
			return;
		case RW_ROUND_LATE:
			t->late++;
			break;
		case RW_ROUND_DROP:
			t->drops++;
			break;
		case RW_ROUND_ONE:
			t->ones++;
			break;
		case RW_ROUND_STEP:
			t->steps++;
			assert_int_equal(rw_round_weight(o.sum), o.nsum);
			assert_int_equal(o.iter, t->r.iter >= o.iter ?
					 o.iter : t->r.iter);
			for (p = 0; p < t->v.nr_ranks; p++) {
				if (!rw_round_test(o.sum, p))
					continue;
				/* Held, a member, of this very iteration. */
				assert_true(rw_round_test(t->r.held, p));
				assert_true(t->tags[p].iter == o.iter ||
					    t->tags[p].iter == RW_ROUND_ANY);
				assert_true(!t->tags[p].gen ||
					    t->tags[p].gen == t->v.gen[p]);
			}
			memcpy(t->last_sum, o.sum, sizeof(o.sum));
			t->last_nsum = o.nsum;
			t->last_iter = o.iter;
			break;
		default:
			fail_msg("unknown act %u", o.act);
		}
		rw_round_apply(&t->r, &o);
	}
}

/* Rank @p's gradient for iteration @iter lands. */
static void rt_push(struct rt *t, u32 p, u64 iter)
{
	t->tags[p].iter = iter;
	t->tags[p].gen = t->v.gen[p] ? t->v.gen[p] : 99;
	assert_int_equal(rw_round_hold(&t->r, t->v.nr_ranks, p), 0);
	rt_settle(t);
}

static u64 bits_of(u32 a, u32 b, u32 c, u32 d)
{
	u64 m = 0;
	u32 x[] = { a, b, c, d }, i;

	for (i = 0; i < 4; i++)
		if (x[i] != U32_MAX)
			m |= 1ULL << x[i];
	return m;
}

#define NONE U32_MAX

/* Plain BSP: a round steps once every member's gradient is in. */
static void round_bsp(void **state)
{
	struct rt t;
	u64 it;

	(void)state;
	rt_init(&t, 3, 0, false);
	for (it = 0; it < 3; it++) {
		rt_push(&t, 2, it);
		rt_push(&t, 0, it);
		assert_int_equal(t.steps, it);
		rt_push(&t, 1, it);
		assert_int_equal(t.steps, it + 1);
		assert_int_equal(t.last_nsum, 3);
		assert_int_equal(t.last_sum[0], bits_of(0, 1, 2, NONE));
		assert_int_equal(t.r.iter, it + 1);
	}
	/* Holding a rank twice is refused. */
	rt_push(&t, 0, 3);
	assert_int_equal(rw_round_hold(&t.r, 3, 0), -EINVAL);
	assert_int_equal(rw_round_hold(&t.r, 3, 3), -EINVAL);
	assert_int_equal(t.late + t.drops + t.ones, 0);
}

/* A member leaves before it pushed: the round goes on without it. */
static void round_leave_before_push(void **state)
{
	struct rt t;

	(void)state;
	rt_init(&t, 4, 0, false);
	rt_push(&t, 0, 0);
	rt_push(&t, 1, 0);
	rt_push(&t, 3, 0);
	assert_int_equal(t.steps, 0);
	rw_round_view_member(&t.v, 2, 0, 0);
	rt_settle(&t);
	assert_int_equal(t.steps, 1);
	assert_int_equal(t.last_nsum, 3);
	assert_int_equal(t.last_sum[0], bits_of(0, 1, 3, NONE));
	/* Next round: three members are all it needs. */
	rt_push(&t, 3, 1);
	rt_push(&t, 1, 1);
	rt_push(&t, 0, 1);
	assert_int_equal(t.steps, 2);
	assert_int_equal(t.last_nsum, 3);
}

/*
 * A move's boundary (view stop 2): rounds 0 and 1 step, round 2 never
 * does, not when every member's gradient is in nor when members leave
 * (the run ends there), and a member update keeps the stop; a mutation
 * that lets the boundary's round step fails here.
 */
static void round_stop(void **state)
{
	struct rt t;
	u64 it;

	(void)state;
	rt_init(&t, 3, 0, false);
	t.v.stop = 2;
	for (it = 0; it < 2; it++) {
		rt_push(&t, 0, it);
		rt_push(&t, 1, it);
		rt_push(&t, 2, it);
	}
	assert_int_equal(t.steps, 2);
	rt_push(&t, 1, 2);
	rt_push(&t, 2, 2);
	rt_push(&t, 0, 2);
	assert_int_equal(t.steps, 2);
	rw_round_view_member(&t.v, 0, 0, 0);
	rt_settle(&t);
	assert_int_equal(t.v.stop, 2);
	assert_int_equal(t.drops, 1);
	assert_int_equal(t.steps, 2);
	rw_round_view_member(&t.v, 1, 0, 0);
	rt_settle(&t);
	assert_int_equal(t.steps, 2);
	assert_int_equal(t.r.iter, 2);
	/* Without the stop the round steps at once with what is left. */
	t.v.stop = 0;
	rt_settle(&t);
	assert_int_equal(t.steps, 3);
	assert_int_equal(t.last_sum[0], bits_of(2, NONE, NONE, NONE));
}

/*
 * A member leaves after pushing some chunks of the iteration: what it
 * pushed but was not yet summed is dropped, never summed later.
 */
static void round_leave_after_push(void **state)
{
	struct rt t;

	(void)state;
	rt_init(&t, 3, 0, false);
	rt_push(&t, 2, 0);
	rt_push(&t, 0, 0);
	rw_round_view_member(&t.v, 2, 0, 0);
	rt_settle(&t);
	assert_int_equal(t.drops, 1);
	assert_int_equal(t.steps, 0);
	assert_false(rw_round_test(t.r.held, 2));
	rt_push(&t, 1, 0);
	assert_int_equal(t.steps, 1);
	assert_int_equal(t.last_sum[0], bits_of(0, 1, NONE, NONE));
	assert_int_equal(t.last_nsum, 2);
}

/*
 * A rank rejoins (new generation) needed from iteration 2 on: round 1
 * does not wait for it, round 2 does; a gradient it pushed under its old
 * generation is dropped.
 */
static void round_rejoin(void **state)
{
	struct rt t;

	(void)state;
	rt_init(&t, 3, 0, false);
	rt_push(&t, 0, 0);
	rt_push(&t, 1, 0);
	rt_push(&t, 2, 0);
	rw_round_view_member(&t.v, 2, 0, 0);
	rt_push(&t, 0, 1);
	rw_round_view_member(&t.v, 2, 7, 2);
	rt_push(&t, 1, 1);
	assert_int_equal(t.steps, 2);
	assert_int_equal(t.last_nsum, 2);
	rt_push(&t, 0, 2);
	rt_push(&t, 1, 2);
	assert_int_equal(t.steps, 2);		/* waits for rank 2 */
	/* An old-generation gradient: dropped, still waiting. */
	t.tags[2].iter = 2;
	t.tags[2].gen = 1;
	assert_int_equal(rw_round_hold(&t.r, 3, 2), 0);
	rt_settle(&t);
	assert_int_equal(t.drops, 1);
	assert_int_equal(t.steps, 2);
	rt_push(&t, 2, 2);
	assert_int_equal(t.steps, 3);
	assert_int_equal(t.last_nsum, 3);
}

/*
 * Quorum 2 of 4, every arrival order of 4 ranks: the step sums the first
 * two to arrive (in rank order), the other two are late and counted.
 */
static void round_quorum_orders(void **state)
{
	static const u32 perm[24][4] = {
		{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 1, 3}, {0, 2, 3, 1},
		{0, 3, 1, 2}, {0, 3, 2, 1}, {1, 0, 2, 3}, {1, 0, 3, 2},
		{1, 2, 0, 3}, {1, 2, 3, 0}, {1, 3, 0, 2}, {1, 3, 2, 0},
		{2, 0, 1, 3}, {2, 0, 3, 1}, {2, 1, 0, 3}, {2, 1, 3, 0},
		{2, 3, 0, 1}, {2, 3, 1, 0}, {3, 0, 1, 2}, {3, 0, 2, 1},
		{3, 1, 0, 2}, {3, 1, 2, 0}, {3, 2, 0, 1}, {3, 2, 1, 0},
	};
	struct rt t;
	u32 i;

	(void)state;
	for (i = 0; i < 24; i++) {
		const u32 *o = perm[i];

		rt_init(&t, 4, 2, false);
		rt_push(&t, o[0], 0);
		assert_int_equal(t.steps, 0);
		rt_push(&t, o[1], 0);
		assert_int_equal(t.steps, 1);
		assert_int_equal(t.last_nsum, 2);
		assert_int_equal(t.last_sum[0], bits_of(o[0], o[1], NONE, NONE));
		rt_push(&t, o[2], 0);
		rt_push(&t, o[3], 0);
		assert_int_equal(t.late, 2);
		assert_int_equal(t.steps, 1);
		assert_int_equal(rw_round_weight(t.r.held), 0);
	}
}

/* min(K, members): a quorum above the members left needs all of them. */
static void round_quorum_members(void **state)
{
	struct rt t;

	(void)state;
	rt_init(&t, 4, 3, false);
	rw_round_view_member(&t.v, 3, 0, 0);
	rw_round_view_member(&t.v, 2, 0, 0);
	rt_push(&t, 0, 0);
	assert_int_equal(t.steps, 0);
	rt_push(&t, 1, 0);
	assert_int_equal(t.steps, 1);
	assert_int_equal(t.last_nsum, 2);
}

/* A gradient tagged ahead waits for its round, then counts. */
static void round_early(void **state)
{
	struct rt t;

	(void)state;
	rt_init(&t, 2, 0, false);
	rt_push(&t, 0, 1);
	rt_push(&t, 1, 0);
	assert_int_equal(t.steps, 0);
	assert_true(rw_round_test(t.r.held, 0));
	/* Rank 0 is needed from iteration 1 on only: round 0 is rank 1's. */
	rw_round_view_member(&t.v, 0, t.v.gen[0], 1);
	rt_settle(&t);
	assert_int_equal(t.steps, 1);
	assert_int_equal(t.last_sum[0], bits_of(1, NONE, NONE, NONE));
	assert_int_equal(t.last_nsum, 1);
	assert_true(rw_round_test(t.r.held, 0));
	rt_push(&t, 1, 1);
	assert_int_equal(t.steps, 2);
	assert_int_equal(t.last_sum[0], bits_of(0, 1, NONE, NONE));
	assert_int_equal(t.late + t.drops, 0);
}

/* Each-gradient rule: every gradient is applied alone, whatever its tag. */
static void round_each(void **state)
{
	struct rt t;

	(void)state;
	rt_init(&t, 3, 0, true);
	rt_push(&t, 1, 5);
	rt_push(&t, 0, 0);
	rt_push(&t, 2, 9);
	assert_int_equal(t.ones, 3);
	assert_int_equal(t.steps, 0);
	assert_int_equal(rw_round_weight(t.r.held), 0);
}

/*
 * Rules change at a boundary: BSP until iteration 2, each-gradient from
 * there; then back to BSP with a quorum from iteration 6, where the rounds
 * start again.
 */
static void round_rule_change(void **state)
{
	struct rw_round_rule each = { .each = 1 }, q1 = { .quorum = 1 };
	struct rt t;

	(void)state;
	rt_init(&t, 2, 0, false);
	rt_push(&t, 0, 0);
	rw_round_view_rule(&t.v, &each, 2);
	rt_push(&t, 0 + 1, 0);			/* round 0 still BSP */
	assert_int_equal(t.steps, 1);
	rt_push(&t, 0, 1);
	rt_push(&t, 1, 1);
	assert_int_equal(t.steps, 2);
	rt_push(&t, 0, 2);			/* each from 2 on */
	rt_push(&t, 1, 3);
	assert_int_equal(t.ones, 2);
	rw_round_view_rule(&t.v, &q1, 6);
	rt_push(&t, 0, 5);			/* below 6: each */
	assert_int_equal(t.ones, 3);
	rt_push(&t, 1, 6);			/* quorum 1 at round 6 */
	assert_int_equal(t.steps, 3);
	assert_int_equal(t.last_iter, 6);
	assert_int_equal(t.r.iter, 7);
	rt_push(&t, 0, 6);
	assert_int_equal(t.late, 1);
	/* Lowering the quorum never moves below the current boundary. */
	rw_round_view_rule(&t.v, &q1, 3);
	assert_int_equal(t.v.from, 6);
}

/* Untagged gradients (no gate) count for the current round. */
static void round_untagged(void **state)
{
	struct rt t;
	u32 i;

	(void)state;
	rt_init(&t, 2, 0, false);
	for (i = 0; i < 4; i++) {
		t.tags[i % 2].iter = RW_ROUND_ANY;
		t.tags[i % 2].gen = 0;
		assert_int_equal(rw_round_hold(&t.r, 2, i % 2), 0);
		rt_settle(&t);
	}
	assert_int_equal(t.steps, 2);
	assert_int_equal(t.late + t.drops, 0);
}

static void round_bad_input(void **state)
{
	struct rw_round_rule rule = { 0 };
	struct rw_round_view v;

	(void)state;
	assert_int_equal(rw_round_view_init(&v, 0, &rule), -EINVAL);
	assert_int_equal(rw_round_view_init(&v, RW_ROUND_MAX_RANKS + 1, &rule),
			 -EINVAL);
	assert_int_equal(rw_round_view_init(NULL, 2, &rule), -EINVAL);
	assert_int_equal(rw_round_view_init(&v, 2, NULL), -EINVAL);
	assert_int_equal(rw_round_view_init(&v, 4, &rule), 0);
	rw_round_view_member(&v, 9, 3, 3);	/* out of range: ignored */
	assert_int_equal(v.nr_members, 4);
}

/*
 * Random schedules: ranks push in random order with random leaves and
 * rejoins and quorum changes; every step is checked by rt_settle, and
 * per iteration no rank is summed twice and no round is stepped twice.
 */
static void round_random(void **state)
{
	u64 seed = 0x5eedULL;
	u32 run;

	(void)state;
	for (run = 0; run < 200; run++) {
		u32 n = 2 + (u32)(st_rand(&seed) % 7), p, i;
		u64 clock[9] = { 0 }, summed_iter = 0;
		bool pushed[9] = { false };
		u32 gen = 10;
		struct rt t;

		rt_init(&t, n, (u32)(st_rand(&seed) % (n + 1)), false);
		for (i = 0; i < 400; i++) {
			u64 x = st_rand(&seed) % 100;
			u32 steps = t.steps;

			p = (u32)(st_rand(&seed) % n);
			if (x < 4 && t.v.nr_members > 1 && t.v.gen[p]) {
				rw_round_view_member(&t.v, p, 0, 0);
				rt_settle(&t);
			} else if (x < 8 && !t.v.gen[p]) {
				clock[p] = t.r.iter;
				rw_round_view_member(&t.v, p, ++gen, clock[p]);
				pushed[p] = false;
				rt_settle(&t);
			} else if (x < 10) {
				struct rw_round_rule q = {
					.quorum = (u32)(st_rand(&seed) % (n + 1)),
				};

				rw_round_view_rule(&t.v, &q, t.r.iter + 1);
				rt_settle(&t);
			} else if (t.v.gen[p] && !rw_round_test(t.r.held, p)) {
				/* Like a worker: on to the next iteration once
				 * its last gradient is out of its slot. */
				if (pushed[p])
					clock[p] = max_t(u64, clock[p] + 1,
							 t.r.iter);
				rt_push(&t, p, clock[p]);
				pushed[p] = true;
			}
			if (t.steps != steps) {
				/* Rounds step in order, each once. */
				assert_true(t.last_iter >= summed_iter);
				summed_iter = t.last_iter + 1;
				assert_int_equal(t.r.iter, summed_iter);
			}
		}
		assert_true(t.steps > 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_bsp),
		cmocka_unit_test(round_leave_before_push),
		cmocka_unit_test(round_leave_after_push),
		cmocka_unit_test(round_stop),
		cmocka_unit_test(round_rejoin),
		cmocka_unit_test(round_quorum_orders),
		cmocka_unit_test(round_quorum_members),
		cmocka_unit_test(round_early),
		cmocka_unit_test(round_each),
		cmocka_unit_test(round_rule_change),
		cmocka_unit_test(round_untagged),
		cmocka_unit_test(round_bad_input),
		cmocka_unit_test(round_random),
	};

	return cmocka_run_group_tests_name("sync-round", tests, NULL, NULL);
}
