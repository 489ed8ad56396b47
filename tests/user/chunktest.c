// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of the kmod/chunk cmocka tests; see chunktest.h.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "chunktest.h"

#define CT_BPL	(8 * sizeof(unsigned long))

void ct_topo_make(struct ct_topo *t, u32 nr_nodes, const u32 *cores,
		  const u32 *nics)
{
	u32 n, i, cpu = 0, nic = 100;

	assert_true(nr_nodes <= CT_MAX_NODES);
	memset(t, 0, sizeof(*t));
	for (n = 0; n < nr_nodes; n++) {
		assert_true(cores[n] <= CT_MAX_CPUS && nics[n] <= CT_MAX_NICS);
		for (i = 0; i < cores[n]; i++)
			t->cpus[n][i] = cpu++;
		for (i = 0; i < nics[n]; i++)
			t->nics[n][i] = nic++;
		t->nodes[n].id = 10 + n;
		t->nodes[n].cpus = t->cpus[n];
		t->nodes[n].nr_cpus = cores[n];
		t->nodes[n].nics = t->nics[n];
		t->nodes[n].nr_nics = nics[n];
	}
	t->topo.nodes = t->nodes;
	t->topo.nr_nodes = nr_nodes;
	memset(t->cpu_allowed, 0xff, sizeof(t->cpu_allowed));
	memset(t->nic_allowed, 0xff, sizeof(t->nic_allowed));
}

void ct_topo_use_masks(struct ct_topo *t)
{
	t->topo.cpu_allowed = t->cpu_allowed;
	t->topo.cpu_bits = sizeof(t->cpu_allowed) * 8;
	t->topo.nic_allowed = t->nic_allowed;
	t->topo.nic_bits = sizeof(t->nic_allowed) * 8;
}

void ct_topo_deny_cpu(struct ct_topo *t, u32 cpu)
{
	t->cpu_allowed[cpu / CT_BPL] &= ~(1UL << (cpu % CT_BPL));
}

void ct_topo_deny_nic(struct ct_topo *t, u32 nic)
{
	t->nic_allowed[nic / CT_BPL] &= ~(1UL << (nic % CT_BPL));
}

int ct_map_new(struct ct_map *m, const struct rw_map_topo *topo,
	       u64 total_bytes, u32 chunk_size)
{
	struct rw_map_size sz;
	int err;

	memset(m, 0, sizeof(*m));
	err = rw_layout_geom_init(&m->geom, total_bytes, chunk_size);
	if (err)
		return err;
	err = rw_map_size(topo, &m->geom, &sz);
	if (err)
		return err;
	m->map.nodes = calloc(sz.nr_nodes, sizeof(*m->map.nodes));
	m->map.cores = calloc(sz.nr_cores, sizeof(*m->map.cores));
	m->map.nics = calloc(sz.nr_nics, sizeof(*m->map.nics));
	m->map.place = calloc(sz.nr_chunks, sizeof(*m->map.place));
	assert_non_null(m->map.nodes);
	assert_non_null(m->map.cores);
	assert_non_null(m->map.nics);
	assert_non_null(m->map.place);
	m->map.cap = sz;
	return rw_map_build(&m->map, topo, &m->geom);
}

void ct_map_free(struct ct_map *m)
{
	free(m->map.nodes);
	free(m->map.cores);
	free(m->map.nics);
	free(m->map.place);
	memset(m, 0, sizeof(*m));
}

static bool ct_allowed(const unsigned long *bm, u32 bits, u32 id)
{
	return !bm || (id < bits && (bm[id / CT_BPL] >> (id % CT_BPL)) & 1);
}

/* Topology node holding CPU (or NIC) @id; fails the test if none. */
static u32 ct_home(const struct rw_map_topo *topo, u32 id, bool nic)
{
	u32 n, i;

	for (n = 0; n < topo->nr_nodes; n++) {
		const struct rw_map_topo_node *tn = &topo->nodes[n];
		u32 cnt = nic ? tn->nr_nics : tn->nr_cpus;

		for (i = 0; i < cnt; i++)
			if ((nic ? tn->nics[i] : tn->cpus[i]) == id)
				return n;
	}
	fail_msg("id %u is not in the topology", id);
	return 0;
}

struct ct_node_info {
	u32 cores, nics, lanes;
};

static void ct_check_entity(const struct rw_map *map, u64 load,
			    long double ideal, const char *what, u32 id)
{
	long double dev = fabsl((long double)load - ideal);

	if (dev > map->geom.chunk_size)
		fail_msg("%s %u carries %llu bytes, ideal %.1Lf: off by more than a chunk (%u)",
			 what, id, (unsigned long long)load, ideal,
			 map->geom.chunk_size);
}

void ct_check_map(const struct rw_map *map, const struct rw_map_topo *topo)
{
	struct ct_node_info info[CT_MAX_NODES] = { { 0 } };
	u64 *core = calloc(map->nr.nr_cores, sizeof(u64));
	u64 *nic = calloc(map->nr.nr_nics, sizeof(u64));
	u64 *mcore = calloc(map->nr.nr_cores, sizeof(u64));
	u64 *mnic = calloc(map->nr.nr_nics, sizeof(u64));
	u32 n, i, c, lanes = 0, cores = 0, nics = 0;
	struct rw_map_balance bal;
	u64 total = 0;

	assert_true(topo->nr_nodes <= CT_MAX_NODES);
	for (n = 0; n < topo->nr_nodes; n++) {
		const struct rw_map_topo_node *tn = &topo->nodes[n];

		for (i = 0; i < tn->nr_cpus; i++)
			info[n].cores += ct_allowed(topo->cpu_allowed,
						    topo->cpu_bits, tn->cpus[i]);
		for (i = 0; i < tn->nr_nics; i++)
			info[n].nics += ct_allowed(topo->nic_allowed,
						   topo->nic_bits, tn->nics[i]);
		if (!info[n].cores || !info[n].nics)
			info[n].cores = info[n].nics = 0;
		info[n].lanes = info[n].cores < info[n].nics ? info[n].cores :
							       info[n].nics;
		lanes += info[n].lanes;
		cores += info[n].cores;
		nics += info[n].nics;
	}
	/* Exactly the allowed CPUs and NICs of usable nodes, each once. */
	assert_int_equal(map->nr.nr_cores, cores);
	assert_int_equal(map->nr.nr_nics, nics);
	assert_int_equal(map->lanes, lanes);
	for (i = 0; i < map->nr.nr_cores; i++) {
		n = ct_home(topo, map->cores[i].cpu, false);
		assert_true(info[n].cores > 0);
		assert_true(ct_allowed(topo->cpu_allowed, topo->cpu_bits,
				       map->cores[i].cpu));
		assert_int_equal(map->nodes[map->cores[i].node].id,
				 topo->nodes[n].id);
		for (c = 0; c < i; c++)
			assert_int_not_equal(map->cores[c].cpu, map->cores[i].cpu);
	}
	for (i = 0; i < map->nr.nr_nics; i++) {
		n = ct_home(topo, map->nics[i].id, true);
		assert_true(info[n].nics > 0);
		assert_true(ct_allowed(topo->nic_allowed, topo->nic_bits,
				       map->nics[i].id));
		assert_int_equal(map->nodes[map->nics[i].node].id,
				 topo->nodes[n].id);
		for (c = 0; c < i; c++)
			assert_int_not_equal(map->nics[c].id, map->nics[i].id);
	}

	/* Locality, and loads counted independently of map.c. */
	for (c = 0; c < map->nr.nr_chunks; c++) {
		const struct rw_map_place *p = &map->place[c];
		u64 len = map->geom.chunk_size;

		if (c == map->nr.nr_chunks - 1)
			len = map->geom.total_bytes - (u64)c * map->geom.chunk_size;
		assert_true(p->node < map->nr.nr_nodes);
		assert_true(p->core < map->nr.nr_cores);
		assert_true(p->nic < map->nr.nr_nics);
		assert_int_equal(map->cores[p->core].node, p->node);
		assert_int_equal(map->nics[p->nic].node, p->node);
		core[p->core] += len;
		nic[p->nic] += len;
		total += len;
	}
	assert_int_equal(total, map->geom.total_bytes);

	for (i = 0; i < map->nr.nr_cores; i++) {
		n = ct_home(topo, map->cores[i].cpu, false);
		ct_check_entity(map, core[i],
				(long double)total * info[n].lanes /
				((long double)lanes * info[n].cores),
				"core", map->cores[i].cpu);
	}
	for (i = 0; i < map->nr.nr_nics; i++) {
		n = ct_home(topo, map->nics[i].id, true);
		ct_check_entity(map, nic[i],
				(long double)total * info[n].lanes /
				((long double)lanes * info[n].nics),
				"nic", map->nics[i].id);
	}

	/* map.c's own accounting agrees. */
	rw_map_loads(map, mcore, mnic);
	assert_memory_equal(mcore, core, map->nr.nr_cores * sizeof(u64));
	assert_memory_equal(mnic, nic, map->nr.nr_nics * sizeof(u64));
	rw_map_balance(map, core, nic, &bal);
	assert_true(bal.core_dev <= map->geom.chunk_size);
	assert_true(bal.nic_dev <= map->geom.chunk_size);
	for (n = 0; n < map->nr.nr_nodes; n++) {
		u64 bytes = 0;

		for (i = 0; i < map->nodes[n].nr_cores; i++)
			bytes += core[map->nodes[n].first_core + i];
		assert_int_equal(bytes, map->nodes[n].bytes);
	}
	free(core);
	free(nic);
	free(mcore);
	free(mnic);
}

u64 ct_rand(u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

void ct_measure(const struct rw_map *map, const struct ct_cost *cost,
		u64 *core_load, u64 *chunk_load)
{
	u32 c, core;
	u64 len, w;

	memset(core_load, 0, map->nr.nr_cores * sizeof(u64));
	for (c = 0; c < map->nr.nr_chunks; c++) {
		core = map->place[c].core;
		len = map->geom.chunk_size;
		if (c == map->nr.nr_chunks - 1)
			len = map->geom.total_bytes - (u64)c * map->geom.chunk_size;
		w = len * (cost->heat ? cost->heat[c] : 1);
		w = w * (cost->speed ? cost->speed[core] : 1000) / 1000;
		if (cost->rng && cost->noise_pm) {
			u64 r = ct_rand(cost->rng) % (2 * cost->noise_pm + 1);

			w = w * (1000 - cost->noise_pm + r) / 1000;
		}
		core_load[core] += w;
		if (chunk_load)
			chunk_load[c] = w;
	}
	for (core = 0; cost->rng && cost->core_noise_pm &&
	     core < map->nr.nr_cores; core++) {
		u64 r = ct_rand(cost->rng) % (2 * cost->core_noise_pm + 1);

		core_load[core] = core_load[core] *
				  (1000 - cost->core_noise_pm + r) / 1000;
	}
}

u32 ct_worst_node_skew(const struct rw_map *map, const u64 *core_load)
{
	u32 n, s, worst = 1000;

	for (n = 0; n < map->nr.nr_nodes; n++) {
		s = rw_map_skew_pm(core_load + map->nodes[n].first_core,
				   map->nodes[n].nr_cores);
		if (s > worst)
			worst = s;
	}
	return worst;
}
