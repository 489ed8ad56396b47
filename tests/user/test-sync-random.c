// SPDX-License-Identifier: GPL-2.0
/*
 * The staleness gate under long random schedules: workers request, push,
 * heartbeat, fall silent, get evicted and rejoin in random order, at
 * random times, for every policy and several job sizes and seeds. After
 * every call: the invariant (rw_gate_check), the verdict against an
 * independent reference of the admission rule, release completeness (no
 * parked worker whose condition holds is left behind: that would be a
 * lost wake-up) and progress (the live workers are never all parked).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "synctest.h"

#define SEEDS	12
#define STEPS	6000

struct rnd_case {
	u32 policy, s, lo, hi;
};

static const struct rnd_case cases[] = {
	{ RW_GATE_BSP, 0, 0, 0 },
	{ RW_GATE_ASP, 0, 0, 0 },
	{ RW_GATE_SSP, 1, 0, 0 },
	{ RW_GATE_SSP, 3, 0, 0 },
	{ RW_GATE_SSP, 15, 0, 0 },
	{ RW_GATE_ADAPTIVE, 0, 3, 15 },
	{ RW_GATE_ADAPTIVE, 0, 1, 4 },
	{ RW_GATE_ADAPTIVE, 0, 2, 2 },
	{ RW_GATE_ADAPTIVE, 0, 1, 2 },
};

enum { IDLE, RUNNING, PARKED, GONE };

struct world {
	struct st_gate sg;
	u8 state[ST_MAX_W];
	u32 epoch[ST_MAX_W];
	u32 nr;
	u64 now, rng;
	u32 pushes, parks, grants_seen;
	char where[128];
};

/* What the reference rule says about a request of @p (-1: either). */
static int reference(const struct world *x, u32 p)
{
	const struct rw_gate *g = &x->sg.g;
	u64 d = g->w[p].clock + 1 - g->min_clock;

	switch (g->cfg.policy) {
	case RW_GATE_ASP:
		return RW_GATE_ADMIT;
	case RW_GATE_BSP:
		return d <= 1 ? RW_GATE_ADMIT : RW_GATE_PARK;
	case RW_GATE_SSP:
		return d <= g->cfg.s ? RW_GATE_ADMIT : RW_GATE_PARK;
	default:
		if (d <= g->cfg.s_lo || g->w[p].clock + 1 <= g->max_clock)
			return RW_GATE_ADMIT;
		if (d > g->cfg.s_hi)
			return RW_GATE_PARK;
		return -1;	/* the controller decides */
	}
}

static void check_world(struct world *x)
{
	const struct rw_gate *g = &x->sg.g;
	u32 i, live = 0, parked = 0;

	if (rw_gate_check(g))
		fail_msg("%s: invariant broken", x->where);
	for (i = 0; i < x->nr; i++) {
		if (x->state[i] == GONE)
			continue;
		live++;
		parked += x->state[i] == PARKED;
		if ((x->state[i] == PARKED) != g->w[i].parked ||
		    (x->state[i] == RUNNING) != g->w[i].running)
			fail_msg("%s: worker %u state differs", x->where, i);
		/* Release completeness: a parked worker the rule admits. */
		if (x->state[i] == PARKED && reference(x, i) == RW_GATE_ADMIT)
			fail_msg("%s: worker %u left parked", x->where, i);
	}
	if (live && parked == live)
		fail_msg("%s: every live worker parked", x->where);
}

static void do_release(struct world *x)
{
	u32 out[ST_MAX_W], n, k;

	n = rw_gate_release(&x->sg.g, x->now, out, ST_MAX_W);
	for (k = 0; k < n; k++) {
		if (x->state[out[k]] != PARKED)
			fail_msg("%s: released %u, not parked", x->where, out[k]);
		x->state[out[k]] = RUNNING;
	}
}

static void step(struct world *x)
{
	struct rw_gate *g = &x->sg.g;
	u32 p = (u32)(st_rand(&x->rng) % x->nr);
	u32 what = (u32)(st_rand(&x->rng) % 1000);
	u32 out[ST_MAX_W], k, n, ep = x->epoch[p];
	int ret, ref;
	bool adv;

	x->now += st_rand(&x->rng) % (3 * ST_MS);
	if (what < 8) {			/* connection lost */
		n = rw_gate_evict(g, p, x->now);
		if (n != (x->state[p] != GONE))
			fail_msg("%s: evict returned %u", x->where, n);
		x->state[p] = GONE;
	} else if (what < 14) {		/* timer */
		n = rw_gate_expire(g, x->now, out, ST_MAX_W);
		for (k = 0; k < n; k++) {
			if (x->state[out[k]] == PARKED ||
			    x->state[out[k]] == GONE)
				fail_msg("%s: expired %u", x->where, out[k]);
			x->state[out[k]] = GONE;
		}
	} else if (what < 40 && x->state[p] == GONE) {
		ret = rw_gate_join(g, p, x->now, &x->epoch[p]);
		if (ret || g->w[p].clock != g->min_clock)
			fail_msg("%s: join %d", x->where, ret);
		x->state[p] = IDLE;
	} else if (what < 60) {
		ret = rw_gate_heartbeat(g, p, ep, x->now);
		if (ret != (x->state[p] == GONE ? -ESTALE : 0))
			fail_msg("%s: heartbeat %d", x->where, ret);
	} else if (what < 70) {		/* silent: time passes */
		x->now += st_rand(&x->rng) % (60 * ST_MS);
		/* Any pair, even gone or behind: r* stays in the band. */
		k = (u32)(st_rand(&x->rng) % x->nr);
		if (rw_gate_controller(g, p, k, x->now) >
		    (g->cfg.policy == RW_GATE_ADAPTIVE ?
		     g->cfg.s_hi - g->cfg.s_lo : 0))
			fail_msg("%s: controller out of band", x->where);
	} else if (x->state[p] == RUNNING) {
		u64 c = g->w[p].clock;

		adv = false;
		ret = rw_gate_push(g, p, ep, x->now, &adv);
		if (ret || g->w[p].clock != c + 1)
			fail_msg("%s: push %d", x->where, ret);
		x->state[p] = IDLE;
		x->pushes++;
	} else if (x->state[p] == IDLE) {
		ref = reference(x, p);
		ret = rw_gate_request(g, p, ep, x->now);
		if (ret < 0 || (ref >= 0 && ret != ref))
			fail_msg("%s: request %d, reference %d", x->where, ret, ref);
		if (ref < 0 && ret == RW_GATE_ADMIT)
			x->grants_seen++;
		x->state[p] = ret == RW_GATE_ADMIT ? RUNNING : PARKED;
		x->parks += ret == RW_GATE_PARK;
	} else {
		/* Parked, running or gone: the gate must refuse. */
		ret = rw_gate_request(g, p, ep, x->now);
		if (ret != (x->state[p] == GONE ? -ESTALE : -EBUSY))
			fail_msg("%s: request in state %u: %d", x->where,
				 x->state[p], ret);
		if (x->state[p] == GONE &&
		    rw_gate_push(g, p, ep, x->now, NULL) != -ESTALE)
			fail_msg("%s: push of a gone worker", x->where);
		if (x->state[p] == PARKED &&
		    rw_gate_push(g, p, ep, x->now, NULL) != -EPROTO)
			fail_msg("%s: push of a parked worker", x->where);
	}
	do_release(x);
	check_world(x);
}

static void run_case(const struct rnd_case *c, u32 nr, u64 seed,
		     u32 *pushes, u32 *grants)
{
	struct rw_gate_config cfg = st_cfg(c->policy, nr, c->s, c->lo, c->hi);
	struct world *x = calloc(1, sizeof(*x));
	u32 i;

	assert_non_null(x);
	cfg.evict_timeout_ns = 50 * ST_MS;
	cfg.window = 2 + (u32)(seed % 7);
	x->nr = nr;
	x->rng = seed * 0x9E3779B97F4A7C15ULL + nr;
	st_new(&x->sg, &cfg, 0);
	for (i = 0; i < STEPS; i++) {
		snprintf(x->where, sizeof(x->where),
			 "policy %u s %u [%u,%u] W %u seed %llu step %u",
			 c->policy, c->s, c->lo, c->hi, nr,
			 (unsigned long long)seed, i);
		step(x);
	}
	*pushes += x->pushes;
	*grants += x->grants_seen;
	st_free(&x->sg);
	free(x);
}

static void random_invariant(void **state)
{
	static const u32 sizes[] = { 1, 2, 3, 5, 8, 16 };
	u32 c, s, seed;

	(void)state;
	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		u32 pushes = 0, grants = 0;

		for (s = 0; s < ARRAY_SIZE(sizes); s++)
			for (seed = 1; seed <= SEEDS; seed++)
				run_case(&cases[c], sizes[s], seed, &pushes,
					 &grants);
		/* The schedules made progress, they were not all parking. */
		assert_true(pushes > ARRAY_SIZE(sizes) * SEEDS * STEPS / 20);
		/* Adaptive bands wider than one: the controller did grant. */
		if (cases[c].policy == RW_GATE_ADAPTIVE &&
		    cases[c].hi > cases[c].lo)
			assert_true(grants > 0);
	}
}

/*
 * A long run of one policy without faults: every worker keeps going
 * until all reach 2000 iterations; nobody waits forever.
 */
static void random_progress(void **state)
{
	u32 c;

	(void)state;
	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		struct rw_gate_config cfg = st_cfg(cases[c].policy, 8,
						   cases[c].s, cases[c].lo,
						   cases[c].hi);
		struct world *x = calloc(1, sizeof(*x));
		u32 done = 0, guard = 0, i;

		assert_non_null(x);
		x->nr = 8;
		x->rng = 7 + c;
		st_new(&x->sg, &cfg, 0);
		while (done < 8 && guard++ < 400000) {
			u32 p = (u32)(st_rand(&x->rng) % 8);
			int ret;

			x->now += 1 + st_rand(&x->rng) % ST_MS;
			snprintf(x->where, sizeof(x->where), "case %u", c);
			if (x->state[p] == RUNNING) {
				assert_int_equal(rw_gate_push(&x->sg.g, p, 0, x->now,
							      NULL), 0);
				x->state[p] = IDLE;
				if (x->sg.g.w[p].clock == 2000)
					x->state[p] = GONE;	/* finished */
			} else if (x->state[p] == IDLE) {
				ret = rw_gate_request(&x->sg.g, p, 0, x->now);
				x->state[p] = ret == RW_GATE_ADMIT ? RUNNING : PARKED;
			}
			do_release(x);
			assert_int_equal(rw_gate_check(&x->sg.g), 0);
			for (i = 0, done = 0; i < 8; i++)
				done += x->state[i] == GONE;
		}
		assert_int_equal(done, 8);
		st_free(&x->sg);
		free(x);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_invariant),
		cmocka_unit_test(random_progress),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("sync-random", tests, NULL, NULL);
}
