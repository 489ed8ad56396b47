// SPDX-License-Identifier: GPL-2.0
/*
 * Rebalancing (kmod/chunk/rebalance.c), driven by a synthetic cost model:
 * slow cores and hot chunks make measured work skewed although bytes are
 * even. Applying the proposed moves window after window must reach a
 * balanced state in a bounded number of steps and then stop, with or
 * without noise; loads that fluctuate below the threshold must cause no
 * move at all; moves stay inside a node and never touch NICs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "chunktest.h"

#define MAX_STEPS	200

struct sim {
	struct ct_map m;
	struct ct_topo t;
	struct rw_rebal_params p;
	struct rw_rebal_state st;
	struct rw_map_place *orig;
	u64 *core_load, *chunk_load, *scratch;
	struct rw_rebal_move *moves;
	u32 *heat, *speed;
	u64 rng;
	u32 total_moves, last_move_step, first_skew;
};

static void sim_init(struct sim *s, u32 nodes, const u32 *cores,
		     const u32 *nics, u32 nr_chunks)
{
	u32 c;

	memset(s, 0, sizeof(*s));
	ct_topo_make(&s->t, nodes, cores, nics);
	assert_int_equal(ct_map_new(&s->m, &s->t.topo,
				    (u64)nr_chunks * 32768 - 100, 32768), 0);
	rw_rebal_params_default(&s->p);
	rw_rebal_state_init(&s->st);
	s->orig = malloc(nr_chunks * sizeof(*s->orig));
	memcpy(s->orig, s->m.map.place, nr_chunks * sizeof(*s->orig));
	s->core_load = calloc(s->m.map.nr.nr_cores, sizeof(u64));
	s->chunk_load = calloc(nr_chunks, sizeof(u64));
	s->scratch = calloc(RW_REBAL_SCRATCH(s->m.map.nr.nr_cores), sizeof(u64));
	s->moves = calloc(64, sizeof(*s->moves));
	s->heat = calloc(nr_chunks, sizeof(u32));
	s->speed = calloc(s->m.map.nr.nr_cores, sizeof(u32));
	for (c = 0; c < nr_chunks; c++)
		s->heat[c] = 1;
	for (c = 0; c < s->m.map.nr.nr_cores; c++)
		s->speed[c] = 1000;
	s->rng = 0x1234567ULL;
}

static void sim_free(struct sim *s)
{
	ct_map_free(&s->m);
	free(s->orig);
	free(s->core_load);
	free(s->chunk_load);
	free(s->scratch);
	free(s->moves);
	free(s->heat);
	free(s->speed);
}

/* Node, NIC and locality never change; only cores move, within nodes. */
static void sim_check_locality(const struct sim *s)
{
	const struct rw_map *map = &s->m.map;
	u32 c;

	for (c = 0; c < map->nr.nr_chunks; c++) {
		assert_int_equal(map->place[c].node, s->orig[c].node);
		assert_int_equal(map->place[c].nic, s->orig[c].nic);
		assert_int_equal(map->cores[map->place[c].core].node,
				 map->place[c].node);
	}
}

/*
 * Run @steps windows: measure, decide, apply. @per_chunk: hand the
 * rebalancer per-chunk loads (else it estimates them from bytes).
 */
static void sim_run(struct sim *s, u32 steps, bool per_chunk, u32 noise_pm,
		    u32 core_noise_pm, u32 max_moves)
{
	struct ct_cost cost = {
		.heat = s->heat, .speed = s->speed, .noise_pm = noise_pm,
		.core_noise_pm = core_noise_pm, .rng = &s->rng,
	};
	u32 step, n, i;

	for (step = 1; step <= steps; step++) {
		ct_measure(&s->m.map, &cost, s->core_load, s->chunk_load);
		if (step == 1)
			s->first_skew = ct_worst_node_skew(&s->m.map, s->core_load);
		assert_int_equal(rw_rebal_step(&s->m.map, &s->p, &s->st,
					       s->core_load,
					       per_chunk ? s->chunk_load : NULL,
					       s->scratch, s->moves, max_moves,
					       &n), 0);
		assert_true(n <= max_moves && n <= s->p.max_moves);
		for (i = 0; i < n; i++)
			assert_int_equal(s->m.map.cores[s->moves[i].from].node,
					 s->m.map.cores[s->moves[i].to].node);
		assert_int_equal(rw_rebal_apply(&s->m.map, s->moves, n), 0);
		if (n)
			s->last_move_step = step;
		s->total_moves += n;
	}
	sim_check_locality(s);
}

/* Final skew without noise. */
static u32 sim_skew(struct sim *s)
{
	struct ct_cost cost = { .heat = s->heat, .speed = s->speed };

	ct_measure(&s->m.map, &cost, s->core_load, NULL);
	return ct_worst_node_skew(&s->m.map, s->core_load);
}

struct conv_case {
	const char *name;
	u32 nodes;
	u32 cores[4];
	u32 nics[4];
	u32 chunks;
	u32 slow[4];	/* core indices made slow (speed 1800), 0 ends */
	u32 hot;	/* one chunk in eight costs this many times more */
};

static const struct conv_case conv_cases[] = {
	{ "2 nodes, one slow core", 2, { 4, 4 }, { 2, 2 }, 256, { 1 }, 1 },
	{ "2 nodes, hot chunks", 2, { 4, 4 }, { 1, 1 }, 512, { 0 }, 20 },
	{ "2 nodes, lopsided, slow cores and hot chunks", 2, { 6, 2 }, { 1, 2 }, 300, { 2, 7 }, 4 },
	{ "4 nodes, lopsided", 4, { 6, 2, 4, 3 }, { 2, 1, 2, 1 }, 700, { 1, 6, 9 }, 4 },
};

static void sim_apply_case(struct sim *s, const struct conv_case *cc)
{
	u32 c, i;

	sim_init(s, cc->nodes, cc->cores, cc->nics, cc->chunks);
	for (i = 0; i < ARRAY_SIZE(cc->slow) && cc->slow[i]; i++)
		s->speed[cc->slow[i]] = 1800;
	for (c = 0; c < cc->chunks; c++)
		s->heat[c] = ct_rand(&s->rng) % 8 ? 1 : cc->hot;
}

/* Skewed work evens out within a bounded number of windows, then stops. */
static void rebal_converges(void **state)
{
	size_t i;
	int per_chunk;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(conv_cases); i++) {
		for (per_chunk = 0; per_chunk < 2; per_chunk++) {
			struct sim s;

			print_message("# %s, %s\n", conv_cases[i].name,
				      per_chunk ? "per-chunk loads" :
						  "loads from bytes");
			sim_apply_case(&s, &conv_cases[i]);
			sim_run(&s, 100, per_chunk, 0, 0, 64);
			assert_true(s.first_skew > s.p.high_pm);
			assert_true(s.total_moves > 0);
			/* Converged early and then quiet. */
			assert_true(s.last_move_step <= 40);
			assert_true(sim_skew(&s) <= s.p.high_pm);
			sim_free(&s);
		}
	}
}

/* Same inputs, same moves. */
static void rebal_deterministic(void **state)
{
	struct sim a, b;

	(void)state;
	sim_apply_case(&a, &conv_cases[3]);
	sim_apply_case(&b, &conv_cases[3]);
	sim_run(&a, 30, false, 20, 20, 64);
	sim_run(&b, 30, false, 20, 20, 64);
	assert_int_equal(a.total_moves, b.total_moves);
	assert_memory_equal(a.m.map.place, b.m.map.place,
			    a.m.map.nr.nr_chunks * sizeof(*a.m.map.place));
	sim_free(&a);
	sim_free(&b);
}

/* Even work with fluctuation below the threshold: never a move. */
static void rebal_quiet_when_balanced(void **state)
{
	static const u32 cores[] = { 4, 4 }, nics[] = { 2, 2 };
	int per_chunk;

	(void)state;
	for (per_chunk = 0; per_chunk < 2; per_chunk++) {
		struct sim s;

		sim_init(&s, 2, cores, nics, 512);
		sim_run(&s, MAX_STEPS, per_chunk, 50, 80, 64);
		assert_int_equal(s.total_moves, 0);
		assert_int_equal(s.st.active, 0);
		sim_free(&s);
	}
}

/* Skewed work under noise: moves happen, then stop for good. */
static void rebal_noise_stops(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(conv_cases); i++) {
		struct sim s;

		print_message("# %s\n", conv_cases[i].name);
		sim_apply_case(&s, &conv_cases[i]);
		sim_run(&s, MAX_STEPS, i % 2, 30, 30, 64);
		assert_true(s.total_moves > 0);
		assert_true(s.last_move_step <= 50);
		/* Bounded: a fraction of the chunks, not a churn. */
		assert_true(s.total_moves <= s.m.map.nr.nr_chunks / 2);
		sim_free(&s);
	}
}

/*
 * Three chunks on two cores: 2:1 is skewed (1.33) but moving a chunk only
 * swaps the cores' roles, so nothing moves, even with noise.
 */
static void rebal_no_pingpong(void **state)
{
	static const u32 cores[] = { 2 }, nics[] = { 1 };
	static const u32 cores8[] = { 8 };
	struct sim s;

	(void)state;
	sim_init(&s, 1, cores, nics, 3);
	sim_run(&s, MAX_STEPS, true, 20, 20, 64);
	assert_true(s.first_skew > s.p.high_pm);
	assert_int_equal(s.total_moves, 0);
	sim_free(&s);

	/* More cores than chunks, one of them hot: moving it moves the hot spot. */
	sim_init(&s, 1, cores8, nics, 3);
	s.heat[0] = 5;
	sim_run(&s, MAX_STEPS, false, 40, 40, 64);
	assert_int_equal(s.total_moves, 0);
	sim_free(&s);
}

/* Drive one node's state machine with hand-made loads. */
static u32 rebal_one_step(struct sim *s, u64 a, u64 b)
{
	u32 n;

	s->core_load[0] = a;
	s->core_load[1] = b;
	assert_int_equal(rw_rebal_step(&s->m.map, &s->p, &s->st, s->core_load,
				       NULL, s->scratch, s->moves, 64, &n), 0);
	assert_int_equal(rw_rebal_apply(&s->m.map, s->moves, n), 0);
	return n;
}

static void rebal_hysteresis(void **state)
{
	static const u32 cores[] = { 2 }, nics[] = { 1 };
	struct sim s;

	(void)state;
	sim_init(&s, 1, cores, nics, 64);	/* 32 chunks per core */

	/* 1.20: between the thresholds, inactive: nothing. */
	assert_int_equal(rebal_one_step(&s, 1200, 800), 0);
	assert_int_equal(s.st.active, 0);
	/* 1.30: start; move until the estimate is at 1.10 (5 chunks). */
	assert_int_equal(rebal_one_step(&s, 1300, 700), 5);
	assert_int_equal(s.st.active, 1);
	assert_int_equal(s.st.settle[0], 1);
	/* The window that straddled the moves is ignored. */
	assert_int_equal(rebal_one_step(&s, 1300, 700), 0);
	assert_int_equal(s.st.settle[0], 0);
	/* Still active at 1.20: keeps evening out. */
	assert_true(rebal_one_step(&s, 1200, 800) > 0);
	assert_int_equal(rebal_one_step(&s, 1200, 800), 0);	/* settling */
	/* 1.05: done. */
	assert_int_equal(rebal_one_step(&s, 1050, 950), 0);
	assert_int_equal(s.st.active, 0);
	/* 1.20 again: inactive, so nothing. */
	assert_int_equal(rebal_one_step(&s, 1200, 800), 0);
	assert_int_equal(s.st.active, 0);

	/* An idle node is left alone, however skewed. */
	s.p.min_mean = 100;
	assert_int_equal(rebal_one_step(&s, 190, 0), 0);
	assert_int_equal(s.st.active, 0);
	s.p.min_mean = 0;
	assert_true(rebal_one_step(&s, 190, 0) > 0);
	sim_free(&s);
}

/* The cap holds, and nodes take turns under it. */
static void rebal_cap(void **state)
{
	static const u32 cores[] = { 2, 2 }, nics[] = { 1, 1 };
	struct sim s;
	u32 n;

	(void)state;
	sim_init(&s, 2, cores, nics, 128);
	s.core_load[0] = 2000;
	s.core_load[1] = 500;
	s.core_load[2] = 2000;
	s.core_load[3] = 500;
	assert_int_equal(rw_rebal_step(&s.m.map, &s.p, &s.st, s.core_load, NULL,
				       s.scratch, s.moves, 2, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(s.moves[0].from, 0);
	assert_int_equal(s.moves[1].from, 2);
	rw_rebal_state_init(&s.st);
	s.p.max_moves = 3;
	assert_int_equal(rw_rebal_step(&s.m.map, &s.p, &s.st, s.core_load, NULL,
				       s.scratch, s.moves, 64, &n), 0);
	assert_int_equal(n, 3);
	rw_rebal_state_init(&s.st);
	assert_int_equal(rw_rebal_step(&s.m.map, &s.p, &s.st, s.core_load, NULL,
				       s.scratch, NULL, 0, &n), 0);
	assert_int_equal(n, 0);
	sim_free(&s);
}

static void rebal_bad_input(void **state)
{
	static const u32 cores[] = { 2, 2 }, nics[] = { 1, 1 };
	struct rw_rebal_state st0;
	struct rw_rebal_move mv[2];
	struct rw_map_place *before;
	struct rw_rebal_params p;
	struct sim s;
	u32 n = 77, c0;

	(void)state;
	sim_init(&s, 2, cores, nics, 16);
	s.core_load[0] = 3000;
	s.st.active = 2;
	s.st.settle[3] = 4;
	st0 = s.st;
	p = s.p;

#define STEP(map, pp, st, cl, sc, mvs, max, nr) \
	rw_rebal_step(map, pp, st, cl, NULL, sc, mvs, max, nr)
	assert_int_equal(STEP(NULL, &p, &s.st, s.core_load, s.scratch, s.moves, 8, &n), -EINVAL);
	assert_int_equal(STEP(&s.m.map, NULL, &s.st, s.core_load, s.scratch, s.moves, 8, &n), -EINVAL);
	assert_int_equal(STEP(&s.m.map, &p, NULL, s.core_load, s.scratch, s.moves, 8, &n), -EINVAL);
	assert_int_equal(STEP(&s.m.map, &p, &s.st, NULL, s.scratch, s.moves, 8, &n), -EINVAL);
	assert_int_equal(STEP(&s.m.map, &p, &s.st, s.core_load, NULL, s.moves, 8, &n), -EINVAL);
	assert_int_equal(STEP(&s.m.map, &p, &s.st, s.core_load, s.scratch, NULL, 8, &n), -EINVAL);
	assert_int_equal(STEP(&s.m.map, &p, &s.st, s.core_load, s.scratch, s.moves, 8, NULL), -EINVAL);
	p.low_pm = 999;
	assert_int_equal(STEP(&s.m.map, &p, &s.st, s.core_load, s.scratch, s.moves, 8, &n), -EINVAL);
	p.low_pm = 1300;
	assert_int_equal(STEP(&s.m.map, &p, &s.st, s.core_load, s.scratch, s.moves, 8, &n), -EINVAL);
#undef STEP
	assert_int_equal(n, 77);
	assert_memory_equal(&s.st, &st0, sizeof(st0));

	before = malloc(16 * sizeof(*before));
	memcpy(before, s.m.map.place, 16 * sizeof(*before));
	c0 = s.m.map.place[0].core;	/* chunk 0: node 0 */
	mv[0] = (struct rw_rebal_move){ 0, (u16)c0, (u16)(c0 ^ 1) };
	mv[1] = mv[0];
	assert_int_equal(rw_rebal_apply(&s.m.map, mv, 2), -EINVAL);	/* twice */
	mv[1] = (struct rw_rebal_move){ 1, 0, 1 };			/* chunk 1: node 1 */
	assert_int_equal(rw_rebal_apply(&s.m.map, mv, 2), -EINVAL);
	mv[1] = (struct rw_rebal_move){ 16, 0, 1 };			/* no chunk 16 */
	assert_int_equal(rw_rebal_apply(&s.m.map, mv, 2), -EINVAL);
	mv[1] = (struct rw_rebal_move){ 2, (u16)c0, (u16)c0 };		/* to itself */
	assert_int_equal(rw_rebal_apply(&s.m.map, mv, 2), -EINVAL);
	mv[1] = (struct rw_rebal_move){ 2, (u16)(s.m.map.place[2].core ^ 1),
					s.m.map.place[2].core };	/* wrong from */
	assert_int_equal(rw_rebal_apply(&s.m.map, mv, 2), -EINVAL);
	mv[1] = (struct rw_rebal_move){ 2, s.m.map.place[2].core, 9 };	/* no core 9 */
	assert_int_equal(rw_rebal_apply(&s.m.map, mv, 2), -EINVAL);
	mv[1] = (struct rw_rebal_move){ 2, s.m.map.place[2].core, 2 };	/* other node */
	assert_int_equal(rw_rebal_apply(&s.m.map, mv, 2), -EINVAL);
	assert_int_equal(rw_rebal_apply(&s.m.map, NULL, 1), -EINVAL);
	assert_int_equal(rw_rebal_apply(NULL, mv, 1), -EINVAL);
	assert_memory_equal(s.m.map.place, before, 16 * sizeof(*before));
	assert_int_equal(rw_rebal_apply(&s.m.map, mv, 1), 0);
	assert_int_equal(s.m.map.place[0].core, c0 ^ 1);
	assert_int_equal(rw_rebal_apply(&s.m.map, NULL, 0), 0);
	free(before);
	sim_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rebal_converges),
		cmocka_unit_test(rebal_deterministic),
		cmocka_unit_test(rebal_quiet_when_balanced),
		cmocka_unit_test(rebal_noise_stops),
		cmocka_unit_test(rebal_no_pingpong),
		cmocka_unit_test(rebal_hysteresis),
		cmocka_unit_test(rebal_cap),
		cmocka_unit_test(rebal_bad_input),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("chunk-rebal", tests, NULL, NULL);
}
