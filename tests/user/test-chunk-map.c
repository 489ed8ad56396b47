// SPDX-License-Identifier: GPL-2.0
/*
 * The chunk map (kmod/chunk/map.c): every chunk on one node's core and NIC,
 * bytes per core and per NIC within one chunk of the intended share on
 * symmetric, lopsided and restricted 1-, 2- and 4-node boxes (and on a
 * sweep of random ones), the same map every time, and every bad input
 * refused without touching the output.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "chunktest.h"

#define KIB	1024ULL
#define MIB	(1024 * KIB)

struct map_case {
	const char *name;
	u32 nr_nodes;
	u32 cores[4];
	u32 nics[4];
	u64 total;
	u32 chunk;
};

static const struct map_case map_cases[] = {
	{ "1 node, 8 cores, 2 NICs", 1, { 8 }, { 2 }, 10 * MIB, 32768 },
	{ "1 node, 1 core, 1 NIC", 1, { 1 }, { 1 }, 3 * MIB + 4, 4096 },
	{ "2 nodes, symmetric", 2, { 4, 4 }, { 2, 2 }, 64 * MIB + 100, 32768 },
	{ "2 nodes, NICs 1 and 3", 2, { 8, 8 }, { 1, 3 }, 50 * MIB, 32768 },
	{ "2 nodes, cores 8 and 2", 2, { 8, 2 }, { 2, 2 }, 9 * MIB + 12, 65536 },
	{ "2 nodes, one core and four NICs", 2, { 1, 8 }, { 4, 2 }, 7 * MIB, 4096 },
	{ "2 nodes, second without NIC", 2, { 4, 4 }, { 2, 0 }, 5 * MIB, 32768 },
	{ "2 nodes, second without cores", 2, { 4, 0 }, { 1, 2 }, 5 * MIB, 32768 },
	{ "2 nodes, more cores than chunks", 2, { 16, 16 }, { 2, 2 }, 40 * KIB, 4096 },
	{ "2 nodes, one short chunk", 2, { 2, 2 }, { 1, 1 }, 100, 4096 },
	{ "4 nodes, symmetric", 4, { 8, 8, 8, 8 }, { 2, 2, 2, 2 }, 100 * MIB, 32768 },
	{ "4 nodes, lopsided", 4, { 12, 2, 6, 3 }, { 1, 4, 3, 0 }, 33 * MIB + 64, 32768 },
	{ "4 nodes, one with nothing", 4, { 6, 0, 3, 5 }, { 2, 0, 1, 3 }, 77 * MIB + 4, 1048576 },
	{ "4 nodes, one NIC each, 1 MiB chunks", 4, { 1, 2, 3, 4 }, { 1, 1, 1, 1 }, 31 * MIB + 8, 1048576 },
};

static void map_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(map_cases); i++) {
		const struct map_case *mc = &map_cases[i];
		struct ct_topo t;
		struct ct_map m;

		print_message("# %s\n", mc->name);
		ct_topo_make(&t, mc->nr_nodes, mc->cores, mc->nics);
		assert_int_equal(ct_map_new(&m, &t.topo, mc->total, mc->chunk), 0);
		ct_check_map(&m.map, &t.topo);
		ct_map_free(&m);
	}
}

/* Random boxes, random model sizes: the balance bound must always hold. */
static void map_sweep(void **state)
{
	u64 rng = 0x5eed1234abcdULL;
	u32 iter, n, cores[4], nics[4], usable, nodes;
	int err;

	(void)state;
	for (iter = 0; iter < 3000; iter++) {
		struct ct_topo t;
		struct ct_map m;
		u32 chunk = 4096U << (ct_rand(&rng) % 9);
		u64 total = 1 + ct_rand(&rng) % (300 * (u64)chunk);

		nodes = 1 + ct_rand(&rng) % 4;
		usable = 0;
		for (n = 0; n < nodes; n++) {
			cores[n] = ct_rand(&rng) % 7;
			nics[n] = ct_rand(&rng) % 5;
			usable += cores[n] && nics[n];
		}
		ct_topo_make(&t, nodes, cores, nics);
		err = ct_map_new(&m, &t.topo, total, chunk);
		if (!usable) {
			assert_int_equal(err, -ENODEV);
			continue;
		}
		assert_int_equal(err, 0);
		ct_check_map(&m.map, &t.topo);
		ct_map_free(&m);
	}
}

/* The job may use only some CPUs and NICs of the box. */
static void map_allowed_subset(void **state)
{
	static const u32 cores[] = { 4, 4 }, nics[] = { 2, 2 };
	struct ct_topo t;
	struct ct_map m;
	u32 c;

	(void)state;
	ct_topo_make(&t, 2, cores, nics);
	ct_topo_use_masks(&t);
	ct_topo_deny_cpu(&t, 1);
	ct_topo_deny_cpu(&t, 2);
	ct_topo_deny_nic(&t, 103);
	assert_int_equal(ct_map_new(&m, &t.topo, 8 * MIB, 32768), 0);
	assert_int_equal(m.map.nr.nr_cores, 6);
	assert_int_equal(m.map.nr.nr_nics, 3);
	ct_check_map(&m.map, &t.topo);
	for (c = 0; c < m.map.nr.nr_chunks; c++) {
		assert_int_not_equal(m.map.cores[m.map.place[c].core].cpu, 1);
		assert_int_not_equal(m.map.cores[m.map.place[c].core].cpu, 2);
		assert_int_not_equal(m.map.nics[m.map.place[c].nic].id, 103);
	}
	ct_map_free(&m);

	/* All of node 1's NICs denied: its cores get nothing. */
	ct_topo_deny_nic(&t, 102);
	assert_int_equal(ct_map_new(&m, &t.topo, 8 * MIB, 32768), 0);
	assert_int_equal(m.map.nr.nr_nodes, 1);
	assert_int_equal(m.map.nodes[0].id, 10);
	ct_check_map(&m.map, &t.topo);
	ct_map_free(&m);

	/* CPU ids past the bitmap are not allowed. */
	t.topo.cpu_bits = 4;
	assert_int_equal(ct_map_new(&m, &t.topo, 8 * MIB, 32768), 0);
	assert_int_equal(m.map.nr.nr_cores, 2);	/* CPUs 0 and 3 */
	ct_map_free(&m);
	t.topo.cpu_bits = 0;
	assert_int_equal(ct_map_new(&m, &t.topo, 8 * MIB, 32768), -ENODEV);
}

/* The exact placement on a small box: pins the dealing order. */
static void map_golden(void **state)
{
	static const u32 cores[] = { 2, 2 }, nics[] = { 1, 1 };
	static const struct rw_map_place want[] = {
		{ 0, 0, 0, 0 }, { 1, 2, 1, 0 }, { 0, 1, 0, 0 },
		{ 1, 3, 1, 0 }, { 0, 0, 0, 0 },
	};
	struct ct_topo t;
	struct ct_map m;

	(void)state;
	ct_topo_make(&t, 2, cores, nics);
	assert_int_equal(ct_map_new(&m, &t.topo, 4 * 4096 + 1, 4096), 0);
	assert_int_equal(m.map.nr.nr_chunks, 5);
	assert_memory_equal(m.map.place, want, sizeof(want));
	assert_int_equal(m.map.nodes[0].nr_chunks, 3);
	assert_int_equal(m.map.nodes[0].bytes, 2 * 4096 + 1);
	assert_int_equal(m.map.nodes[1].bytes, 2 * 4096);
	ct_map_free(&m);
}

/* Same inputs, same map, whatever storage it lands in. */
static void map_deterministic(void **state)
{
	static const u32 cores[] = { 12, 2, 6, 3 }, nics[] = { 1, 4, 3, 2 };
	struct ct_topo t;
	struct ct_map a, b;

	(void)state;
	ct_topo_make(&t, 4, cores, nics);
	assert_int_equal(ct_map_new(&a, &t.topo, 123 * MIB + 44, 32768), 0);
	assert_int_equal(ct_map_new(&b, &t.topo, 123 * MIB + 44, 32768), 0);
	assert_memory_equal(a.map.place, b.map.place,
			    a.map.nr.nr_chunks * sizeof(*a.map.place));
	assert_memory_equal(a.map.nodes, b.map.nodes,
			    a.map.nr.nr_nodes * sizeof(*a.map.nodes));
	assert_memory_equal(a.map.cores, b.map.cores,
			    a.map.nr.nr_cores * sizeof(*a.map.cores));
	ct_map_free(&a);
	ct_map_free(&b);
}

/*
 * Consecutive chunks (one layer's) go to different lanes: any window of
 * as many chunks as there are NICs uses every NIC once.
 */
static void map_spread(void **state)
{
	static const u32 cores[] = { 4, 4 }, nics[] = { 2, 2 };
	struct ct_topo t;
	struct ct_map m;
	u32 c, i, seen;

	(void)state;
	ct_topo_make(&t, 2, cores, nics);
	assert_int_equal(ct_map_new(&m, &t.topo, 103 * 32768 + 8, 32768), 0);
	for (c = 0; c + 4 <= m.map.nr.nr_chunks; c++) {
		seen = 0;
		for (i = c; i < c + 4; i++)
			seen |= 1U << m.map.place[i].nic;
		assert_int_equal(seen, 0xf);
	}
	ct_map_free(&m);
}

/* More cores than chunks: one chunk per core at most, nothing lost. */
static void map_few_chunks(void **state)
{
	static const u32 cores[] = { 16, 16 }, nics[] = { 4, 4 };
	struct ct_topo t;
	struct ct_map m;
	u64 load[32];
	u32 i;

	(void)state;
	ct_topo_make(&t, 2, cores, nics);
	assert_int_equal(ct_map_new(&m, &t.topo, 3 * 4096, 4096), 0);
	rw_map_loads(&m.map, load, NULL);
	for (i = 0; i < 32; i++)
		assert_true(load[i] <= 4096);
	assert_int_equal(m.map.place[0].node, 0);
	assert_int_equal(m.map.place[1].node, 1);
	ct_check_map(&m.map, &t.topo);
	ct_map_free(&m);
}

static void map_skew(void **state)
{
	static const u64 even[] = { 5, 5, 5, 5 }, one[] = { 8, 0, 0, 0 };
	static const u64 zero[] = { 0, 0 }, half[] = { 3, 1 };
	u64 big[3] = { U64_MAX, U64_MAX, U64_MAX / 2 };

	(void)state;
	assert_int_equal(rw_map_skew_pm(even, 4), 1000);
	assert_int_equal(rw_map_skew_pm(one, 4), 4000);
	assert_int_equal(rw_map_skew_pm(zero, 2), 1000);
	assert_int_equal(rw_map_skew_pm(half, 2), 1500);
	assert_int_equal(rw_map_skew_pm(NULL, 0), 1000);
	/* Huge loads: scaled, not wrapped (exact: 1200). */
	assert_in_range(rw_map_skew_pm(big, 3), 1195, 1205);
}

static int map_build_err(const struct rw_map_topo *topo, u64 total,
			 u32 chunk)
{
	struct rw_map_node nodes[8];
	struct rw_map_core cores[64];
	struct rw_map_nic nics[16];
	struct rw_map_place place[64];
	struct rw_layout_geom g;
	struct rw_map m, before;
	struct rw_map_size sz, szb;
	int err, err2;

	assert_int_equal(rw_layout_geom_init(&g, total, chunk), 0);
	memset(&m, 0xa5, sizeof(m));
	memset(place, 0x5a, sizeof(place));
	m.nodes = nodes;
	m.cores = cores;
	m.nics = nics;
	m.place = place;
	m.cap = (struct rw_map_size){ 8, 64, 16, 64 };
	before = m;
	memset(&sz, 0x77, sizeof(sz));
	szb = sz;
	err = rw_map_build(&m, topo, &g);
	err2 = rw_map_size(topo, &g, &sz);
	if (err) {
		assert_memory_equal(&m, &before, sizeof(m));
		for (size_t i = 0; i < ARRAY_SIZE(place); i++)
			assert_int_equal(place[i].core, 0x5a5a);
	}
	if (err2)
		assert_memory_equal(&sz, &szb, sizeof(sz));
	if (err != -ENOSPC)
		assert_int_equal(err, err2);
	return err;
}

static void map_bad_input(void **state)
{
	static const u32 c2[] = { 2, 2 }, n2[] = { 1, 1 };
	struct rw_map_topo_node many[RW_MAP_MAX_NODES + 1];
	struct rw_layout_geom g, bad;
	struct rw_map_size sz;
	struct rw_map m;
	struct ct_topo t;
	u32 i;

	(void)state;
	ct_topo_make(&t, 2, c2, n2);
	assert_int_equal(map_build_err(&t.topo, 8192, 4096), 0);

	/* Duplicate node, CPU and NIC ids, within and across nodes. */
	t.nodes[1].id = 10;
	assert_int_equal(map_build_err(&t.topo, 8192, 4096), -EINVAL);
	t.nodes[1].id = 11;
	t.cpus[1][0] = 1;
	assert_int_equal(map_build_err(&t.topo, 8192, 4096), -EINVAL);
	t.cpus[1][0] = 2;
	t.cpus[1][1] = 2;
	assert_int_equal(map_build_err(&t.topo, 8192, 4096), -EINVAL);
	t.cpus[1][1] = 3;
	t.nics[1][0] = 100;
	assert_int_equal(map_build_err(&t.topo, 8192, 4096), -EINVAL);
	t.nics[1][0] = 101;
	assert_int_equal(map_build_err(&t.topo, 8192, 4096), 0);

	/* NULL arrays with a count, no nodes. */
	t.nodes[0].cpus = NULL;
	assert_int_equal(map_build_err(&t.topo, 8192, 4096), -EINVAL);
	t.nodes[0].cpus = t.cpus[0];
	t.nodes[1].nics = NULL;
	assert_int_equal(map_build_err(&t.topo, 8192, 4096), -EINVAL);
	t.nodes[1].nics = t.nics[1];
	t.topo.nr_nodes = 0;
	assert_int_equal(map_build_err(&t.topo, 8192, 4096), -EINVAL);
	t.topo.nodes = NULL;
	t.topo.nr_nodes = 2;
	assert_int_equal(map_build_err(&t.topo, 8192, 4096), -EINVAL);
	t.topo.nodes = t.nodes;

	/* Too many nodes. */
	memset(many, 0, sizeof(many));
	for (i = 0; i < ARRAY_SIZE(many); i++)
		many[i].id = i;
	t.topo.nodes = many;
	t.topo.nr_nodes = ARRAY_SIZE(many);
	assert_int_equal(map_build_err(&t.topo, 8192, 4096), -E2BIG);
	/* Many nodes, none usable. */
	t.topo.nr_nodes = RW_MAP_MAX_NODES;
	assert_int_equal(map_build_err(&t.topo, 8192, 4096), -ENODEV);
	t.topo.nodes = t.nodes;
	t.topo.nr_nodes = 2;

	/* Too many CPUs listed. */
	t.nodes[0].nr_cpus = RW_MAP_MAX_CORES;
	assert_int_equal(map_build_err(&t.topo, 8192, 4096), -E2BIG);
	t.nodes[0].nr_cpus = 2;

	/* Storage too small or missing. */
	assert_int_equal(map_build_err(&t.topo, 65 * 4096, 4096), -ENOSPC);

	/* A geometry that does not add up. */
	assert_int_equal(rw_layout_geom_init(&g, 8192, 4096), 0);
	bad = g;
	bad.nr_chunks = 3;
	assert_int_equal(rw_map_size(&t.topo, &bad, &sz), -EINVAL);
	bad = g;
	bad.chunk_shift = 13;
	assert_int_equal(rw_map_size(&t.topo, &bad, &sz), -EINVAL);
	assert_int_equal(rw_map_size(&t.topo, NULL, &sz), 0);
	assert_int_equal(sz.nr_chunks, 0);
	assert_int_equal(sz.nr_cores, 4);
	assert_int_equal(rw_map_size(NULL, &g, &sz), -EINVAL);
	assert_int_equal(rw_map_size(&t.topo, &g, NULL), -EINVAL);
	memset(&m, 0, sizeof(m));
	assert_int_equal(rw_map_build(&m, &t.topo, NULL), -EINVAL);
	assert_int_equal(rw_map_build(NULL, &t.topo, &g), -EINVAL);
	assert_int_equal(rw_map_build(&m, &t.topo, &g), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(map_table),
		cmocka_unit_test(map_sweep),
		cmocka_unit_test(map_allowed_subset),
		cmocka_unit_test(map_golden),
		cmocka_unit_test(map_deterministic),
		cmocka_unit_test(map_spread),
		cmocka_unit_test(map_few_chunks),
		cmocka_unit_test(map_skew),
		cmocka_unit_test(map_bad_input),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("chunk-map", tests, NULL, NULL);
}
