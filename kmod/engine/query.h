/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read-only views of a running engine (implemented in query.c):
 * where its chunks live and how loaded each core is, its counters, and its
 * NUMA home.
 */
#ifndef _RW_ENGINE_QUERY_H
#define _RW_ENGINE_QUERY_H

#include <linux/types.h>

struct rw_engine;
struct task_struct;

/* A snapshot of where a job's chunks live and how loaded each core is. */
struct rw_engine_topo {
	u32 nr_cores, nr_nics, nr_chunks;
	struct {
		u32 cpu, node, chunks;
		u64 bytes, busy_ns;
	} *cores;
	struct {
		u32 nic, node, chunks;
		u64 bytes;
	} *nics;
	struct {
		u16 core, nic;		/* indices into cores[] and nics[] */
	} *place;
};

/* Counters, summed over cores where it applies. */
struct rw_engine_stats {
	u64 pushes;		/* accepted */
	u64 busy;		/* refused: the slot was still in flight */
	u64 steps;		/* chunk optimizer steps done */
	u64 events;		/* queue events handled, forwards included */
	u64 forwards;		/* events re-queued after a chunk moved */
	u64 migrations;		/* chunks moved between cores */
	u64 errors;		/* optimizer steps that failed (a bug) */
};

/* Fill @t (allocating its arrays); rw_engine_topo_free releases them. */
int rw_engine_topo(struct rw_engine *e, struct rw_engine_topo *t);
void rw_engine_topo_free(struct rw_engine_topo *t);

void rw_engine_get_stats(const struct rw_engine *e, struct rw_engine_stats *s);

/* The node with the most of the job's chunks (its memory's home). */
int rw_engine_home_node(const struct rw_engine *e);

/*
 * Each chunk's NUMA node, as the chunk map homes it, into @nodes[0 .. @n):
 * 0, or -EINVAL unless @n is the engine's chunk count.
 */
int rw_engine_chunk_nodes(const struct rw_engine *e, int *nodes, u32 n);

#if IS_ENABLED(CONFIG_KUNIT)
/* The CPU of the core that owns @chunk now, and its thread. */
int rw_engine_chunk_cpu(const struct rw_engine *e, u32 chunk);
int rw_engine_chunk_planned_cpu(struct rw_engine *e, u32 chunk);
int rw_engine_chunk_mem_node(const struct rw_engine *e, u32 chunk);
struct task_struct *rw_engine_core_thread(const struct rw_engine *e, u32 core);
int rw_engine_core_cpu(const struct rw_engine *e, u32 core);
#endif

#endif /* _RW_ENGINE_QUERY_H */
