/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The chunk map: every chunk of a job's model pinned to one (NUMA node,
 * core, NIC), balanced by bytes and local to one node. Pure logic (see
 * compat.h); the rules and their reasons are at the top of map.c.
 *
 * Use: describe the box (struct rw_map_topo), size the storage with
 * rw_map_size(), point struct rw_map at arrays of those sizes (set @cap),
 * then rw_map_build(). The map refers to cores, NICs and nodes by index
 * into its own arrays; those hold the CPU, NIC and NUMA node ids.
 */
#ifndef _RW_CHUNK_MAP_H
#define _RW_CHUNK_MAP_H

#include "compat.h"
#include "layout.h"

#define RW_MAP_MAX_NODES	64U	/* topology nodes (rebalance state bits) */
#define RW_MAP_MAX_CORES	8192U	/* CPUs listed in a topology */
#define RW_MAP_MAX_NICS		1024U	/* NICs listed in a topology */

/*
 * One NUMA node as the caller sees the box. Ids are the caller's: CPU
 * numbers, NUMA node numbers, and any small integer naming a NIC (a NIC
 * with no NUMA node is placed on a node of the caller's choosing).
 */
struct rw_map_topo_node {
	u32 id;			/* NUMA node id, unique */
	const u32 *cpus;	/* CPU ids, unique across the topology */
	u32 nr_cpus;
	const u32 *nics;	/* NIC ids, unique across the topology */
	u32 nr_nics;
};

/*
 * The box plus the job's restrictions. An allow bitmap is indexed by id
 * (cpumask_bits() fits); ids at or past its @bits are not allowed; NULL
 * allows every id. Only nodes left with at least one allowed CPU and one
 * allowed NIC take part ("usable" nodes).
 */
struct rw_map_topo {
	const struct rw_map_topo_node *nodes;
	u32 nr_nodes;
	const unsigned long *cpu_allowed;
	u32 cpu_bits;
	const unsigned long *nic_allowed;
	u32 nic_bits;
};

/* Counts of a map's arrays: what rw_map_size() asks the caller for. */
struct rw_map_size {
	u32 nr_nodes;		/* usable nodes */
	u32 nr_cores;		/* allowed CPUs on usable nodes */
	u32 nr_nics;		/* allowed NICs on usable nodes */
	u32 nr_chunks;
};

/* Where one chunk lives: indices into the map's nodes, cores and nics. */
struct rw_map_place {
	u16 node;
	u16 core;		/* changed only by rw_rebal_apply() */
	u16 nic;
	u16 reserved;
};

/* A core that may own chunks. */
struct rw_map_core {
	u32 cpu;		/* CPU id */
	u16 node;		/* index in the map's nodes */
	u16 reserved;
};

/* A NIC that may carry chunks. */
struct rw_map_nic {
	u32 id;			/* the caller's NIC id */
	u16 node;		/* index in the map's nodes */
	u16 reserved;
};

/*
 * A usable node. Its cores are cores[first_core .. first_core + nr_cores)
 * and its NICs likewise: a node's entries are contiguous, nodes in the
 * order the topology gave them, entries within a node too.
 */
struct rw_map_node {
	u32 id;			/* NUMA node id */
	u16 first_core;
	u16 nr_cores;
	u16 first_nic;
	u16 nr_nics;
	u32 lanes;		/* min(nr_cores, nr_nics): its weight */
	u32 nr_chunks;		/* chunks homed here */
	u64 bytes;		/* their bytes: the size of the node's arena */
};

/*
 * A chunk map. The caller owns it and its arrays and serialises writers
 * (rw_map_build, rw_rebal_apply) against each other, normally under the
 * job's lock. Readers on the data path read place[] without a lock: the
 * only field that changes after the build is place[c].core, written once
 * per move with WRITE_ONCE as part of the caller's queue migration.
 */
struct rw_map {
	/* Storage, set by the caller before rw_map_build(). */
	struct rw_map_node *nodes;
	struct rw_map_core *cores;
	struct rw_map_nic *nics;
	struct rw_map_place *place;	/* one per chunk */
	struct rw_map_size cap;		/* entries in each array above */

	/* Filled by rw_map_build(). */
	struct rw_map_size nr;
	u32 lanes;			/* sum of the nodes' lanes */
	struct rw_layout_geom geom;
};

/* How evenly a map spreads bytes, against the shares map.c intends. */
struct rw_map_balance {
	u32 core_pm;		/* max over cores of load / ideal, per mille */
	u32 nic_pm;		/* the same over NICs */
	u64 core_dev;		/* max over cores of |load - ideal|, bytes */
	u64 nic_dev;		/* the same over NICs */
};

/*
 * Check @topo (and @g if not NULL) and count what a map of them holds.
 * -EINVAL: NULL arrays, duplicate node, CPU or NIC ids, or a bad @g;
 * -E2BIG: more than RW_MAP_MAX_* nodes, CPUs or NICs; -ENODEV: no node
 * has both an allowed CPU and an allowed NIC. @sz written on success only.
 */
int rw_map_size(const struct rw_map_topo *topo, const struct rw_layout_geom *g,
		struct rw_map_size *sz);

/*
 * Map every chunk of @g onto @topo. Errors as rw_map_size(), plus -ENOSPC
 * if @map's storage (NULL or @cap) is smaller than it says. Deterministic:
 * the same inputs give the same map. Nothing is written on error.
 */
int rw_map_build(struct rw_map *map, const struct rw_map_topo *topo,
		 const struct rw_layout_geom *g);

/*
 * Bytes per core and per NIC (arrays of map->nr.nr_cores and nr_nics
 * entries; either may be NULL).
 */
void rw_map_loads(const struct rw_map *map, u64 *core_bytes, u64 *nic_bytes);

/*
 * The bytes core @core (or NIC @nic) should carry under the balancing
 * rule: total * lanes(node) / (lanes(all) * cores(node)), NICs likewise.
 */
u64 rw_map_core_ideal(const struct rw_map *map, u32 core);
u64 rw_map_nic_ideal(const struct rw_map *map, u32 nic);

/* Balance of loads from rw_map_loads() against the ideals above. */
void rw_map_balance(const struct rw_map *map, const u64 *core_bytes,
		    const u64 *nic_bytes, struct rw_map_balance *b);

/*
 * Skew of @n loads: max / mean in per mille (1000 = perfectly even; also
 * for n == 0 or all zero). Used for per-node core load by the rebalancer.
 */
u32 rw_map_skew_pm(const u64 *load, u32 n);

#endif /* _RW_CHUNK_MAP_H */
