// SPDX-License-Identifier: GPL-2.0
/*
 * Read-only views of a running engine, for netlink (topology, statistics,
 * the NUMA home a worker is placed near) and for the KUnit suites (where a
 * chunk lives now). Nothing here writes engine state; the placement is read
 * under rebal_lock, counters with READ_ONCE.
 */
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "engine/engine_priv.h"
#include "engine/query.h"

/* The node with the most of the job's chunks (its memory's home). */
int rw_engine_home_node(const struct rw_engine *e)
{
	u32 i, best = 0;

	for (i = 1; i < e->map.nr.nr_nodes; i++)
		if (e->map.nodes[i].nr_chunks > e->map.nodes[best].nr_chunks)
			best = i;
	return e->map.nr.nr_nodes ? (int)e->map.nodes[best].id : NUMA_NO_NODE;
}

int rw_engine_chunk_nodes(const struct rw_engine *e, int *nodes, u32 n)
{
	u32 c;

	if (n != e->nr_chunks)
		return -EINVAL;
	/* A chunk's node never changes after the map's build. */
	for (c = 0; c < n; c++)
		nodes[c] = (int)e->map.nodes[e->map.place[c].node].id;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_chunk_nodes);

int rw_engine_topo(struct rw_engine *e, struct rw_engine_topo *t)
{
	u32 nc = e->map.nr.nr_cores, nn = e->map.nr.nr_nics, i;

	t->nr_cores = nc;
	t->nr_nics = nn;
	t->cores = kcalloc(nc, sizeof(*t->cores), GFP_KERNEL);
	t->nics = kcalloc(nn, sizeof(*t->nics), GFP_KERNEL);
	t->place = kvcalloc(e->nr_chunks, sizeof(*t->place), GFP_KERNEL);
	if (!t->cores || !t->nics || !t->place) {
		rw_engine_topo_free(t);
		return -ENOMEM;
	}
	mutex_lock(&e->rebal_lock);
	for (i = 0; i < nc; i++) {
		t->cores[i].cpu = e->map.cores[i].cpu;
		t->cores[i].node = e->map.nodes[e->map.cores[i].node].id;
		t->cores[i].busy_ns = atomic64_read(&e->cores[i].core.busy_ns);
	}
	for (i = 0; i < nn; i++) {
		t->nics[i].nic = e->map.nics[i].id;
		t->nics[i].node = e->map.nodes[e->map.nics[i].node].id;
	}
	for (i = 0; i < e->nr_chunks; i++) {
		const struct rw_map_place *pl = &e->map.place[i];

		t->place[i].core = pl->core;
		t->place[i].nic = pl->nic;
		t->cores[pl->core].chunks++;
		t->cores[pl->core].bytes += e->chunks[i].len;
		t->nics[pl->nic].chunks++;
		t->nics[pl->nic].bytes += e->chunks[i].len;
	}
	mutex_unlock(&e->rebal_lock);
	t->nr_chunks = e->nr_chunks;
	return 0;
}

void rw_engine_topo_free(struct rw_engine_topo *t)
{
	kvfree(t->place);
	kfree(t->nics);
	kfree(t->cores);
	t->place = NULL;
	t->nics = NULL;
	t->cores = NULL;
}

void rw_engine_get_stats(const struct rw_engine *e, struct rw_engine_stats *s)
{
	int cpu;
	u32 i;

	memset(s, 0, sizeof(*s));
	for_each_possible_cpu(cpu) {
		const struct rw_engine_pcpu *p = per_cpu_ptr(e->pcpu, cpu);

		s->pushes += p->pushes;
		s->busy += p->busy;
	}
	for (i = 0; i < e->map.nr.nr_cores; i++) {
		const struct rw_engine_core *ec = &e->cores[i];

		s->steps += READ_ONCE(ec->steps);
		s->events += READ_ONCE(ec->core.events);
		s->forwards += READ_ONCE(ec->forwards);
		s->migrations += READ_ONCE(ec->migrations);
		s->errors += READ_ONCE(ec->errors);
	}
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_get_stats);

#if IS_ENABLED(CONFIG_KUNIT)
int rw_engine_chunk_cpu(const struct rw_engine *e, u32 chunk)
{
	if (chunk >= e->nr_chunks)
		return -EINVAL;
	/* Pairs with the migrate release in rw_engine_handle(). */
	return smp_load_acquire(&e->chunks[chunk].owner)->cpu;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_chunk_cpu);

/* The CPU the chunk map assigns @chunk to (owners follow it). */
int rw_engine_chunk_planned_cpu(struct rw_engine *e, u32 chunk)
{
	int cpu;

	if (chunk >= e->nr_chunks)
		return -EINVAL;
	mutex_lock(&e->rebal_lock);
	cpu = e->map.cores[e->map.place[chunk].core].cpu;
	mutex_unlock(&e->rebal_lock);
	return cpu;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_chunk_planned_cpu);

/* The NUMA node holding @chunk's parameters, state and receive slots. */
int rw_engine_chunk_mem_node(const struct rw_engine *e, u32 chunk)
{
	const struct rw_chunk *ch;
	int nid;

	if (!rw_engine_has(e, chunk))
		return -EINVAL;
	ch = &e->chunks[chunk];
	nid = page_to_nid(vmalloc_to_page(ch->params));
	/* The last slot is the far end of the chunk's memory. */
	if (page_to_nid(vmalloc_to_page(ch->src[e->nr_workers - 1])) != nid)
		return -EXDEV;
	return nid;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_chunk_mem_node);

struct task_struct *rw_engine_core_thread(const struct rw_engine *e, u32 core)
{
	return core < e->map.nr.nr_cores ? e->cores[core].core.thread : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_core_thread);

int rw_engine_core_cpu(const struct rw_engine *e, u32 core)
{
	return core < e->map.nr.nr_cores ? e->cores[core].core.cpu : -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_core_cpu);
#endif
