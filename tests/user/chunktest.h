/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared pieces of the kmod/chunk tests: fake NUMA topologies, maps built
 * on heap storage, an independent check of a map's locality and balance,
 * and a synthetic cost model that plays the measured load.
 */
#ifndef RW_TEST_CHUNKTEST_H
#define RW_TEST_CHUNKTEST_H

#include "compat.h"
#include "layout.h"
#include "map.h"
#include "rebalance.h"

#define CT_MAX_NODES	8
#define CT_MAX_CPUS	64	/* per node */
#define CT_MAX_NICS	16	/* per node */

/*
 * A fake box. Node n has id 10 + n; CPU ids count up from 0 over the
 * nodes in order; NIC ids from 100. Allow bitmaps start with all set.
 */
struct ct_topo {
	struct rw_map_topo topo;
	struct rw_map_topo_node nodes[CT_MAX_NODES];
	u32 cpus[CT_MAX_NODES][CT_MAX_CPUS];
	u32 nics[CT_MAX_NODES][CT_MAX_NICS];
	unsigned long cpu_allowed[(CT_MAX_NODES * CT_MAX_CPUS) / 64];
	unsigned long nic_allowed[4];
};

void ct_topo_make(struct ct_topo *t, u32 nr_nodes, const u32 *cores,
		  const u32 *nics);
/* Restrict the job to the CPUs / NICs whose bit is set in the bitmaps. */
void ct_topo_use_masks(struct ct_topo *t);
void ct_topo_deny_cpu(struct ct_topo *t, u32 cpu);
void ct_topo_deny_nic(struct ct_topo *t, u32 nic);

/* A map with its own heap storage. */
struct ct_map {
	struct rw_map map;
	struct rw_layout_geom geom;
};

/* rw_map_size, allocate, rw_map_build; returns their error. */
int ct_map_new(struct ct_map *m, const struct rw_map_topo *topo,
	       u64 total_bytes, u32 chunk_size);
void ct_map_free(struct ct_map *m);

/*
 * Fail the test unless every chunk is placed, on allowed CPUs and NICs of
 * one node that has both, and every core and NIC carries its ideal bytes
 * (recomputed here from @topo, not taken from map.c) within one chunk.
 */
void ct_check_map(const struct rw_map *map, const struct rw_map_topo *topo);

/* Deterministic pseudo-random numbers (xorshift64*). */
u64 ct_rand(u64 *s);

/*
 * Synthetic cost model: a chunk costs len * heat[c] * speed[core] / 1000
 * on a core (speed per mille: 2000 is a core twice as slow), times noise
 * factors drawn uniformly from +-noise_pm per mille per chunk and from
 * +-core_noise_pm per core when @rng is not NULL.
 */
struct ct_cost {
	const u32 *heat;	/* per chunk; NULL: 1 */
	const u32 *speed;	/* per core; NULL: 1000 */
	u32 noise_pm;		/* per chunk */
	u32 core_noise_pm;	/* per core, on top (overheads, neighbours) */
	u64 *rng;
};

/* Measure one window: @core_load and (if not NULL) @chunk_load. */
void ct_measure(const struct rw_map *map, const struct ct_cost *cost,
		u64 *core_load, u64 *chunk_load);

/* Largest max/mean (per mille) of core load over the map's nodes. */
u32 ct_worst_node_skew(const struct rw_map *map, const u64 *core_load);

#endif /* RW_TEST_CHUNKTEST_H */
