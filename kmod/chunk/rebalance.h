/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rebalancing a chunk map from measured per-core load: moves chunks
 * between the cores of one node when the work on them is skewed. Pure
 * logic (see compat.h); the rule and its reasons are at the top of
 * rebalance.c.
 *
 * Use, once per measurement window: rw_rebal_step() proposes moves; the
 * caller migrates each chunk's queue from core @from to core @to, then
 * records them with rw_rebal_apply().
 */
#ifndef _RW_CHUNK_REBALANCE_H
#define _RW_CHUNK_REBALANCE_H

#include "compat.h"
#include "map.h"

/* Knobs; rw_rebal_params_default() gives values that suit most jobs. */
struct rw_rebal_params {
	u32 high_pm;	/* start when a node's max/mean core load exceeds this */
	u32 low_pm;	/* stop once it is at or below this (>= 1000) */
	u32 min_gain_pm; /* a move must leave its destination this far (per
			  * mille of the node's mean) below the source's load
			  */
	u32 max_moves;	/* per step, over all nodes */
	u32 settle;	/* windows a node sits out after it moved chunks */
	u64 min_mean;	/* a node whose mean core load is below this is idle */
};

/*
 * What the rebalancer remembers between windows. Owned by the caller,
 * who serialises steps (one rebalancer per job).
 */
struct rw_rebal_state {
	u64 active;			/* bit n: node n is being evened out */
	u8 settle[RW_MAP_MAX_NODES];	/* windows node n still sits out */
};

/* Move chunk @chunk from core @from to core @to (map core indices). */
struct rw_rebal_move {
	u32 chunk;
	u16 from;
	u16 to;
};

/* u64 entries of scratch rw_rebal_step() needs for a map of @nr_cores. */
#define RW_REBAL_SCRATCH(nr_cores)	(2 * (size_t)(nr_cores))

void rw_rebal_params_default(struct rw_rebal_params *p);
void rw_rebal_state_init(struct rw_rebal_state *st);

/*
 * One rebalancing decision from one window of measurements.
 * @core_load: work per core over the window (any unit: ns busy, bytes...;
 * a node's sum must stay below 2^62), map->nr.nr_cores entries.
 * @chunk_load: work per chunk in the same unit, map->nr.nr_chunks entries,
 * or NULL to estimate it from the core's load in proportion to bytes.
 * @scratch: RW_REBAL_SCRATCH(map->nr.nr_cores) entries. Writes at most
 * @max_moves moves (and p->max_moves), each chunk at most once, and
 * updates @st. -EINVAL on NULL arguments or params out
 * of range (low_pm < 1000 or high_pm < low_pm); nothing is written then.
 * Costs O(moves * chunks).
 */
int rw_rebal_step(const struct rw_map *map, const struct rw_rebal_params *p,
		  struct rw_rebal_state *st, const u64 *core_load,
		  const u64 *chunk_load, u64 *scratch,
		  struct rw_rebal_move *moves, u32 max_moves, u32 *nr_moves);

/*
 * Record @moves in @map (place[].core only: node and NIC never change).
 * -EINVAL, with @map untouched, unless every move names a distinct chunk,
 * its current core as @from and another core of the chunk's node as @to.
 */
int rw_rebal_apply(struct rw_map *map, const struct rw_rebal_move *moves,
		   u32 nr);

#endif /* _RW_CHUNK_REBALANCE_H */
