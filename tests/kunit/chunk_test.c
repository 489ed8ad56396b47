// SPDX-License-Identifier: GPL-2.0
/*
 * Chunk layout, map and rebalancer (kmod/chunk) in the kernel build: the
 * same sources cmocka tests in user space, checked here as the module
 * compiled them. Table-driven: bad layouts, 2-node boxes to map, and
 * skewed or noisy loads to rebalance. Chunk owners and a job's box set
 * run the cases cmocka runs; the topology's share of each box is the
 * module's own (genl_run.c).
 */
#include <kunit/test.h>
#include <linux/math64.h>
#include <linux/slab.h>

#include "../common/owner_cases.h"
#include "../common/boxset_cases.h"
#include "rw.h"
#include "genl_run.h"
#include "chunk/layout.h"
#include "chunk/map.h"
#include "chunk/rebalance.h"

/* ---- layout ---- */

#define RW_T(k, n, d)	{ .key = (k), .nelems = (n), .dtype = RW_DTYPE_##d }

struct rw_chunk_layout_case {
	const char *name;
	struct rw_layout_tensor t[3];
	u32 nr;
	u32 chunk;
	int err;
};

static const struct rw_chunk_layout_case rw_chunk_layout_cases[] = {
	{ "good", { RW_T(1, 1000, F32), RW_T(2, 3, F16) }, 2, 4096, 0 },
	{ "no tensors", { RW_T(1, 1, F32) }, 0, 4096, -EINVAL },
	{ "zero elements", { RW_T(1, 1, F32), RW_T(2, 0, F32) }, 2, 4096, -EINVAL },
	{ "unknown dtype", { { 1, 1, RW_DTYPE_NR, 0 } }, 1, 4096, -EINVAL },
	{ "duplicate key", { RW_T(5, 1, F32), RW_T(6, 1, F32), RW_T(5, 2, F32) }, 3, 4096,
	  -EINVAL },
	{ "chunk 2048", { RW_T(1, 1, F32) }, 1, 2048, -EINVAL },
	{ "chunk 12288", { RW_T(1, 1, F32) }, 1, 12288, -EINVAL },
	{ "chunk 2 MiB", { RW_T(1, 1, F32) }, 1, 2U << 20, -EINVAL },
	{ "size wraps", { RW_T(1, U64_MAX / 2, F32) }, 1, 4096, -EOVERFLOW },
	{ "too big", { RW_T(1, 1ULL << 29, F32), RW_T(2, 1ULL << 29, F32), RW_T(3, 1, F32) },
	  3, 4096, -E2BIG },
	{ "too many tensors", { RW_T(1, 1, F32) }, RW_LAYOUT_MAX_TENSORS + 1, 4096, -E2BIG },
};

static void rw_chunk_layout_desc(const struct rw_chunk_layout_case *c,
				 char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rw_chunk_layout, rw_chunk_layout_cases, rw_chunk_layout_desc);

static void rw_chunk_layout_test(struct kunit *test)
{
	const struct rw_chunk_layout_case *c = test->param_value;
	struct rw_layout l, before;
	struct rw_layout_span s;
	u64 off[3];
	u32 idx[3];

	memset(&l, 0x5a, sizeof(l));
	before = l;
	KUNIT_ASSERT_EQ(test, rw_layout_init(&l, c->t, c->nr, c->chunk, off,
					     idx), c->err);
	if (c->err) {
		KUNIT_EXPECT_EQ(test, memcmp(&l, &before, sizeof(l)), 0);
		return;
	}
	/* 4000 bytes, then 64-byte aligned: 6 bytes at 4032; one chunk. */
	KUNIT_EXPECT_EQ(test, off[1], 4032);
	KUNIT_EXPECT_EQ(test, l.geom.total_bytes, 4038);
	KUNIT_EXPECT_EQ(test, l.geom.nr_chunks, 1);
	KUNIT_EXPECT_EQ(test, rw_layout_span(&l, 2, 1, 2, &s), 0);
	KUNIT_EXPECT_EQ(test, s.off, 4034);
	KUNIT_EXPECT_EQ(test, rw_layout_span(&l, 2, 1, 3, &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, rw_layout_span(&l, 3, 0, 1, &s), -ENOENT);
}

/* The layout's chunk limits are the module's. */
static void rw_chunk_limits_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, RW_LAYOUT_CHUNK_MIN, RW_CHUNK_SIZE_MIN);
	KUNIT_EXPECT_EQ(test, RW_LAYOUT_CHUNK_MAX, RW_CHUNK_SIZE_MAX);
	KUNIT_EXPECT_EQ(test, RW_CHUNK_SIZE_DEFAULT % RW_LAYOUT_ALIGN, 0);
}

/* ---- fake 2-node boxes ---- */

struct rw_chunk_box {
	struct rw_map_topo topo;
	struct rw_map_topo_node nodes[2];
	u32 cpus[2][16];
	u32 nics[2][4];
	struct rw_layout_geom g;
	struct rw_map map;
};

/* Node n: id n, CPUs numbered on from 0, NICs from 100; then map it. */
static struct rw_chunk_box *rw_chunk_box(struct kunit *test, const u32 *cores,
					 const u32 *nics, u64 total, u32 chunk)
{
	struct rw_chunk_box *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct rw_map_size sz;
	u32 n, i, cpu = 0, nic = 100;

	KUNIT_ASSERT_NOT_NULL(test, b);
	for (n = 0; n < 2; n++) {
		for (i = 0; i < cores[n]; i++)
			b->cpus[n][i] = cpu++;
		for (i = 0; i < nics[n]; i++)
			b->nics[n][i] = nic++;
		b->nodes[n] = (struct rw_map_topo_node){
			.id = n, .cpus = b->cpus[n], .nr_cpus = cores[n],
			.nics = b->nics[n], .nr_nics = nics[n],
		};
	}
	b->topo.nodes = b->nodes;
	b->topo.nr_nodes = 2;
	KUNIT_ASSERT_EQ(test, rw_layout_geom_init(&b->g, total, chunk), 0);
	KUNIT_ASSERT_EQ(test, rw_map_size(&b->topo, &b->g, &sz), 0);
	b->map.nodes = kunit_kcalloc(test, sz.nr_nodes, sizeof(*b->map.nodes),
				     GFP_KERNEL);
	b->map.cores = kunit_kcalloc(test, sz.nr_cores, sizeof(*b->map.cores),
				     GFP_KERNEL);
	b->map.nics = kunit_kcalloc(test, sz.nr_nics, sizeof(*b->map.nics),
				    GFP_KERNEL);
	b->map.place = kunit_kcalloc(test, sz.nr_chunks, sizeof(*b->map.place),
				     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b->map.nodes);
	KUNIT_ASSERT_NOT_NULL(test, b->map.cores);
	KUNIT_ASSERT_NOT_NULL(test, b->map.nics);
	KUNIT_ASSERT_NOT_NULL(test, b->map.place);
	b->map.cap = sz;
	KUNIT_ASSERT_EQ(test, rw_map_build(&b->map, &b->topo, &b->g), 0);
	return b;
}

/*
 * Every chunk's core and NIC on its node, and that node is where the box
 * put the CPU and the NIC (node 0 has the lowest ids).
 */
static void rw_chunk_expect_local(struct kunit *test,
				  const struct rw_chunk_box *b)
{
	const struct rw_map *m = &b->map;
	u32 c, cpu, nic;
	bool on0;

	for (c = 0; c < m->nr.nr_chunks; c++) {
		const struct rw_map_place *p = &m->place[c];

		KUNIT_ASSERT_EQ(test, m->cores[p->core].node, p->node);
		KUNIT_ASSERT_EQ(test, m->nics[p->nic].node, p->node);
		cpu = m->cores[p->core].cpu;
		nic = m->nics[p->nic].id;
		on0 = m->nodes[p->node].id == 0;
		KUNIT_ASSERT_EQ(test, cpu < b->nodes[0].nr_cpus, on0);
		KUNIT_ASSERT_EQ(test, nic < 100 + b->nodes[0].nr_nics, on0);
	}
}

/* ---- mapping ---- */

struct rw_chunk_map_case {
	const char *name;
	u32 cores[2];
	u32 nics[2];
	u64 total;
	u32 chunk;
};

static const struct rw_chunk_map_case rw_chunk_map_cases[] = {
	{ "symmetric", { 4, 4 }, { 2, 2 }, (64 << 20) + 100, 32768 },
	{ "NICs 1 and 3", { 8, 8 }, { 1, 3 }, 50 << 20, 32768 },
	{ "cores 8 and 2", { 8, 2 }, { 2, 2 }, (9 << 20) + 12, 65536 },
	{ "1 core, 4 NICs", { 1, 8 }, { 4, 2 }, 7 << 20, 4096 },
	{ "node 1 without NIC", { 4, 4 }, { 2, 0 }, 5 << 20, 32768 },
	{ "node 1 without cores", { 4, 0 }, { 1, 2 }, 5 << 20, 32768 },
	{ "more cores than chunks", { 16, 16 }, { 2, 2 }, 40 << 10, 4096 },
	{ "one short chunk", { 2, 2 }, { 1, 1 }, 100, 4096 },
	{ "1 MiB chunks", { 3, 5 }, { 1, 2 }, (31 << 20) + 8, 1 << 20 },
};

static void rw_chunk_map_desc(const struct rw_chunk_map_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rw_chunk_map, rw_chunk_map_cases, rw_chunk_map_desc);

/* |load - total * lanes / (all lanes * count)| <= one chunk. */
static void rw_chunk_expect_near(struct kunit *test, const struct rw_map *m,
				 u64 load, u32 node, u32 count)
{
	u64 num = m->geom.total_bytes * m->nodes[node].lanes;
	u64 den = (u64)m->lanes * count;
	u64 lo = load * den, chunk = (u64)m->geom.chunk_size * den;

	/* Compare load * den with num, scaled, to avoid rounding. */
	KUNIT_EXPECT_LE(test, lo, num + chunk);
	KUNIT_EXPECT_LE(test, num, lo + chunk);
}

static void rw_chunk_map_test(struct kunit *test)
{
	const struct rw_chunk_map_case *c = test->param_value;
	struct rw_chunk_box *b = rw_chunk_box(test, c->cores, c->nics, c->total,
					      c->chunk);
	struct rw_map *m = &b->map;
	u64 *core, *nic, sum = 0;
	u32 i, usable = 0;

	for (i = 0; i < 2; i++)
		usable += c->cores[i] && c->nics[i];
	KUNIT_EXPECT_EQ(test, m->nr.nr_nodes, usable);
	rw_chunk_expect_local(test, b);

	core = kunit_kcalloc(test, m->nr.nr_cores, sizeof(u64), GFP_KERNEL);
	nic = kunit_kcalloc(test, m->nr.nr_nics, sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, core);
	KUNIT_ASSERT_NOT_NULL(test, nic);
	rw_map_loads(m, core, nic);
	for (i = 0; i < m->nr.nr_cores; i++) {
		u32 n = m->cores[i].node;

		rw_chunk_expect_near(test, m, core[i], n, m->nodes[n].nr_cores);
		sum += core[i];
	}
	for (i = 0; i < m->nr.nr_nics; i++) {
		u32 n = m->nics[i].node;

		rw_chunk_expect_near(test, m, nic[i], n, m->nodes[n].nr_nics);
	}
	KUNIT_EXPECT_EQ(test, sum, c->total);
}

/* Bad boxes leave the map alone. */
static void rw_chunk_map_bad_test(struct kunit *test)
{
	static const u32 cores[] = { 2, 2 }, nics[] = { 1, 1 };
	struct rw_chunk_box *b = rw_chunk_box(test, cores, nics, 8192, 4096);
	struct rw_map_place first = b->map.place[0];
	struct rw_map_size sz;

	b->cpus[1][0] = 0;		/* CPU 0 on both nodes */
	KUNIT_EXPECT_EQ(test, rw_map_build(&b->map, &b->topo, &b->g), -EINVAL);
	b->cpus[1][0] = 2;
	b->nodes[0].nr_nics = 0;
	b->nodes[1].nr_nics = 0;	/* no NIC anywhere */
	KUNIT_EXPECT_EQ(test, rw_map_build(&b->map, &b->topo, &b->g), -ENODEV);
	b->nodes[0].nr_nics = 1;
	b->nodes[1].nr_nics = 1;
	b->map.cap.nr_chunks = 1;	/* storage too small */
	KUNIT_EXPECT_EQ(test, rw_map_build(&b->map, &b->topo, &b->g), -ENOSPC);
	KUNIT_EXPECT_EQ(test, memcmp(&b->map.place[0], &first, sizeof(first)), 0);
	b->g.nr_chunks = 3;		/* geometry that does not add up */
	KUNIT_EXPECT_EQ(test, rw_map_size(&b->topo, &b->g, &sz), -EINVAL);
}

/* ---- rebalancing ---- */

struct rw_chunk_rebal_case {
	const char *name;
	u32 cores[2];
	u32 nics[2];
	u32 chunks;
	u32 slow_core;		/* speed 1800 per mille; U32_MAX: none */
	u32 hot;		/* every 8th chunk costs this much more; 1: none */
	u32 noise_pm;		/* per core, each window */
	bool per_chunk;
	bool expect_moves;
};

static const struct rw_chunk_rebal_case rw_chunk_rebal_cases[] = {
	{ "slow core, from bytes", { 4, 4 }, { 2, 2 }, 256, 1, 1, 0, false, true },
	{ "slow core, per chunk", { 4, 4 }, { 2, 2 }, 256, 1, 1, 0, true, true },
	{ "hot chunks, lopsided", { 6, 2 }, { 1, 2 }, 300, 7, 9, 0, true, true },
	{ "slow core, noisy", { 4, 4 }, { 1, 1 }, 256, 5, 1, 30, false, true },
	{ "balanced, noisy", { 4, 4 }, { 2, 2 }, 512, U32_MAX, 1, 80, false, false },
	{ "balanced, noisy, per chunk", { 4, 4 }, { 2, 2 }, 512, U32_MAX, 1, 80, true, false },
	{ "3 chunks on 2 cores", { 2, 2 }, { 1, 1 }, 6, U32_MAX, 1, 20, true, false },
};

static void rw_chunk_rebal_desc(const struct rw_chunk_rebal_case *c,
				char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rw_chunk_rebal, rw_chunk_rebal_cases, rw_chunk_rebal_desc);

static u32 rw_chunk_rand(u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (u32)((*s * 2685821657736338717ULL) >> 32);
}

/* One window of the cost model: bytes * heat * core speed, plus noise. */
static void rw_chunk_measure(const struct rw_map *m,
			     const struct rw_chunk_rebal_case *c, u64 *rng,
			     u64 *core_load, u64 *chunk_load)
{
	u32 i, len, speed;
	u64 off, w;

	memset(core_load, 0, m->nr.nr_cores * sizeof(u64));
	for (i = 0; i < m->nr.nr_chunks; i++) {
		rw_layout_chunk(&m->geom, i, &off, &len);
		speed = m->place[i].core == c->slow_core ? 1800 : 1000;
		w = div_u64((u64)len * (i % 8 ? 1 : c->hot) * speed, 1000);
		chunk_load[i] = w;
		core_load[m->place[i].core] += w;
	}
	for (i = 0; c->noise_pm && i < m->nr.nr_cores; i++)
		core_load[i] = div_u64(core_load[i] *
				       (1000 - c->noise_pm +
					rw_chunk_rand(rng) % (2 * c->noise_pm + 1)),
				       1000);
}

static u32 rw_chunk_worst_skew(const struct rw_map *m, const u64 *load)
{
	u32 n, worst = 1000;

	for (n = 0; n < m->nr.nr_nodes; n++)
		worst = max(worst, rw_map_skew_pm(load + m->nodes[n].first_core,
						  m->nodes[n].nr_cores));
	return worst;
}

/*
 * 100 windows of measure, step, apply: skewed work must even out within 40
 * windows and then stay put; even or unbalanceable work must never move.
 */
static void rw_chunk_rebal_test(struct kunit *test)
{
	const struct rw_chunk_rebal_case *c = test->param_value;
	struct rw_chunk_box *b = rw_chunk_box(test, c->cores, c->nics,
					      (u64)c->chunks * 32768 - 100,
					      32768);
	struct rw_chunk_rebal_case quiet;
	struct rw_map *m = &b->map;
	struct rw_rebal_params p;
	struct rw_rebal_state *st;
	struct rw_rebal_move *mv;
	struct rw_map_place *orig;
	u64 *core_load, *chunk_load, *scratch, rng = 0x5eed;
	u32 step, n, last = 0, total = 0, first_skew = 0;

	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	mv = kunit_kcalloc(test, 64, sizeof(*mv), GFP_KERNEL);
	orig = kunit_kcalloc(test, m->nr.nr_chunks, sizeof(*orig), GFP_KERNEL);
	core_load = kunit_kcalloc(test, m->nr.nr_cores, sizeof(u64), GFP_KERNEL);
	chunk_load = kunit_kcalloc(test, m->nr.nr_chunks, sizeof(u64),
				   GFP_KERNEL);
	scratch = kunit_kcalloc(test, RW_REBAL_SCRATCH(m->nr.nr_cores),
				sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, st && mv && orig && core_load && chunk_load &&
			  scratch);
	memcpy(orig, m->place, m->nr.nr_chunks * sizeof(*orig));
	rw_rebal_params_default(&p);
	rw_rebal_state_init(st);

	for (step = 1; step <= 100; step++) {
		rw_chunk_measure(m, c, &rng, core_load, chunk_load);
		if (step == 1)
			first_skew = rw_chunk_worst_skew(m, core_load);
		KUNIT_ASSERT_EQ(test, rw_rebal_step(m, &p, st, core_load,
						    c->per_chunk ? chunk_load :
								   NULL,
						    scratch, mv, 64, &n), 0);
		KUNIT_ASSERT_LE(test, n, p.max_moves);
		KUNIT_ASSERT_EQ(test, rw_rebal_apply(m, mv, n), 0);
		if (n)
			last = step;
		total += n;
	}
	for (n = 0; n < m->nr.nr_chunks; n++) {
		KUNIT_EXPECT_EQ(test, m->place[n].node, orig[n].node);
		KUNIT_EXPECT_EQ(test, m->place[n].nic, orig[n].nic);
	}
	rw_chunk_expect_local(test, b);
	if (!c->expect_moves) {
		KUNIT_EXPECT_EQ(test, total, 0);
		return;
	}
	KUNIT_EXPECT_GT(test, first_skew, p.high_pm);
	KUNIT_EXPECT_GT(test, total, 0);
	KUNIT_EXPECT_LE(test, last, 40);
	KUNIT_EXPECT_LE(test, total, m->nr.nr_chunks / 2);
	quiet = *c;
	quiet.noise_pm = 0;
	rw_chunk_measure(m, &quiet, &rng, core_load, chunk_load);
	KUNIT_EXPECT_LE(test, rw_chunk_worst_skew(m, core_load), p.high_pm);
}

/* A move that leaves its node, or names the wrong core, is refused. */
static void rw_chunk_rebal_bad_test(struct kunit *test)
{
	static const u32 cores[] = { 2, 2 }, nics[] = { 1, 1 };
	struct rw_chunk_box *b = rw_chunk_box(test, cores, nics, 8 * 4096,
					      4096);
	struct rw_map *m = &b->map;
	struct rw_rebal_move mv = { 0, m->place[0].core, 2 };
	struct rw_rebal_params p;
	struct rw_rebal_state st;
	u64 load[4] = { 1000, 1, 1, 1 }, scratch[8];
	u32 n = 9;

	KUNIT_EXPECT_EQ(test, m->cores[2].node, 1);
	KUNIT_EXPECT_EQ(test, m->place[0].node, 0);
	KUNIT_EXPECT_EQ(test, rw_rebal_apply(m, &mv, 1), -EINVAL);
	mv.from ^= 1;
	mv.to = mv.from ^ 1;
	KUNIT_EXPECT_EQ(test, rw_rebal_apply(m, &mv, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, m->place[0].core, mv.to);

	rw_rebal_params_default(&p);
	rw_rebal_state_init(&st);
	p.low_pm = 999;
	KUNIT_EXPECT_EQ(test, rw_rebal_step(m, &p, &st, load, NULL, scratch,
					    NULL, 0, &n), -EINVAL);
	p.low_pm = 1500;
	KUNIT_EXPECT_EQ(test, rw_rebal_step(m, &p, &st, load, NULL, scratch,
					    NULL, 0, &n), -EINVAL);
	KUNIT_EXPECT_EQ(test, n, 9);
	KUNIT_EXPECT_EQ(test, st.active, 0);
}

/* Chunk owners across a job's boxes: the cases cmocka runs too. */
static void rw_chunk_owner_test(struct kunit *test)
{
	const char *fail;
	u32 moved[3];
	u64 known = 0;

	fail = rw_oc_balance();
	KUNIT_EXPECT_NULL_MSG(test, fail, "%s", fail);
	fail = rw_oc_order();
	KUNIT_EXPECT_NULL_MSG(test, fail, "%s", fail);
	fail = rw_oc_movement(moved);
	KUNIT_EXPECT_NULL_MSG(test, fail, "%s (%u, %u, %u moved)", fail,
			      moved[0], moved[1], moved[2]);
	fail = rw_oc_bad();
	KUNIT_EXPECT_NULL_MSG(test, fail, "%s", fail);
	/* The module's table is user space's, bit for bit. */
	fail = rw_oc_known(&known);
	KUNIT_EXPECT_NULL_MSG(test, fail, "%s: 0x%016llx", fail, known);
}

/* A job's box set: the cases cmocka runs too, the same known bits. */
static void rw_chunk_boxset_test(struct kunit *test)
{
	const char *fail;
	u64 digest = 0, seed = 0;

	fail = rw_bc_refusals();
	KUNIT_EXPECT_NULL_MSG(test, fail, "%s", fail);
	fail = rw_bc_digest();
	KUNIT_EXPECT_NULL_MSG(test, fail, "%s", fail);
	fail = rw_bc_owners();
	KUNIT_EXPECT_NULL_MSG(test, fail, "%s", fail);
	fail = rw_bc_known(&digest, &seed);
	KUNIT_EXPECT_NULL_MSG(test, fail, "%s: digest 0x%016llx, seed 0x%016llx",
			      fail, digest, seed);
}

/* A move's set and what it moves: the cases cmocka runs too. */
static void rw_chunk_boxset_move_test(struct kunit *test)
{
	u32 added = 0, drained = 0;
	const char *fail;

	fail = rw_bc_move_check();
	KUNIT_EXPECT_NULL_MSG(test, fail, "%s", fail);
	fail = rw_bc_moves(&added, &drained);
	KUNIT_EXPECT_NULL_MSG(test, fail, "%s: %u moved adding, %u draining",
			      fail, added, drained);
}

/* Chunk c of the share test: 4096 bytes, less 100 for each step of c % 7. */
static u32 rw_chunk_share_len(const void *arg, u32 c)
{
	return 4096 - (c % 7) * 100;
}

/*
 * Each box's share as the topology reports it: the chunks rw_boxset_owners
 * gives the box, and exactly their bytes; every byte of the model once.
 */
static void rw_chunk_share_test(struct kunit *test)
{
	const u32 n = 1000;
	u32 *chunks, count[RW_OWNER_MAX_BOXES], b, c;
	u64 *bytes, want[RW_OWNER_MAX_BOXES] = {}, total = 0, sum = 0;
	u8 *owner;

	chunks = kunit_kcalloc(test, RW_OWNER_MAX_BOXES, sizeof(*chunks),
			       GFP_KERNEL);
	bytes = kunit_kcalloc(test, RW_OWNER_MAX_BOXES, sizeof(*bytes),
			      GFP_KERNEL);
	owner = kunit_kzalloc(test, n, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, chunks);
	KUNIT_ASSERT_NOT_NULL(test, bytes);
	KUNIT_ASSERT_NOT_NULL(test, owner);

	rw_bc_fill(&rw_bc_s, 3);
	/* The last chunk is shorter than the first: bytes balance. */
	KUNIT_ASSERT_EQ(test, rw_boxset_owners(&rw_bc_s, "train1", n,
					       rw_chunk_share_len(NULL, n - 1) <
					       rw_chunk_share_len(NULL, 0),
					       owner, count), 0);
	for (c = 0; c < n; c++) {
		want[owner[c]] += rw_chunk_share_len(NULL, c);
		total += rw_chunk_share_len(NULL, c);
	}
	/* Stale counts from an earlier reply must not survive. */
	memset(bytes, 0xff, RW_OWNER_MAX_BOXES * sizeof(*bytes));
	KUNIT_ASSERT_EQ(test, rw_genl_box_shares(&rw_bc_s, "train1", n,
						 rw_chunk_share_len, NULL,
						 chunks, bytes), 0);
	for (b = 0; b < rw_bc_s.nr; b++) {
		KUNIT_EXPECT_EQ_MSG(test, chunks[b], count[b], "box %u", b);
		KUNIT_EXPECT_EQ_MSG(test, bytes[b], want[b], "box %u", b);
		/* Three boxes of 1000 chunks: 333 or 334 each. */
		KUNIT_EXPECT_GE(test, chunks[b], n / 3);
		KUNIT_EXPECT_LE(test, chunks[b], n / 3 + 1);
		sum += bytes[b];
	}
	KUNIT_EXPECT_EQ(test, sum, total);
	/* Another job's name is another split of the same chunks. */
	KUNIT_ASSERT_EQ(test, rw_genl_box_shares(&rw_bc_s, "train2", n,
						 rw_chunk_share_len, NULL,
						 chunks, bytes), 0);
	KUNIT_EXPECT_TRUE(test, bytes[0] != want[0] || bytes[1] != want[1]);
	KUNIT_EXPECT_EQ(test, rw_genl_box_shares(&rw_bc_s, "train1", 0,
						 rw_chunk_share_len, NULL,
						 chunks, bytes), -EINVAL);
}

static struct kunit_case rw_chunk_test_cases[] = {
	KUNIT_CASE_PARAM(rw_chunk_layout_test, rw_chunk_layout_gen_params),
	KUNIT_CASE(rw_chunk_limits_test),
	KUNIT_CASE_PARAM(rw_chunk_map_test, rw_chunk_map_gen_params),
	KUNIT_CASE(rw_chunk_map_bad_test),
	KUNIT_CASE_PARAM(rw_chunk_rebal_test, rw_chunk_rebal_gen_params),
	KUNIT_CASE(rw_chunk_rebal_bad_test),
	KUNIT_CASE(rw_chunk_owner_test),
	KUNIT_CASE(rw_chunk_boxset_test),
	KUNIT_CASE(rw_chunk_boxset_move_test),
	KUNIT_CASE(rw_chunk_share_test),
	{}
};

static struct kunit_suite rw_chunk_test_suite = {
	.name = "rackweave_chunk",
	.test_cases = rw_chunk_test_cases,
};

kunit_test_suite(rw_chunk_test_suite);
