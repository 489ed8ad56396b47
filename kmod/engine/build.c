// SPDX-License-Identifier: GPL-2.0
/*
 * Building and tearing down a job's chunk engine: the layout cut into
 * chunks, the chunk map onto (node, core, NIC), one aggregation core per
 * CPU of the job, and per-node memory arenas holding each chunk's
 * parameters, optimizer state and receive slots. rw_engine_create() builds
 * them in that order, starts the cores' threads last and unwinds in
 * reverse; rw_engine_destroy() stops the threads first and mirrors it.
 * Then the engine's shape as the rest of the module reads it: chunk count
 * and lengths, the layout, and the page behind each mapped buffer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/llist.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/topology.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "chunk/boxset.h"
#include "engine/arena.h"
#include "engine/engine.h"
#include "engine/engine_priv.h"
#include "params.h"
#include "agg/agg.h"

static u32 rw_engine_state_arrays(u32 optim)
{
	switch (optim) {
	case RW_AGG_MOMENTUM:
	case RW_AGG_NESTEROV:
		return 1;
	case RW_AGG_ADAM:
		return 2;
	default:
		return 0;
	}
}

/*
 * Chunk-sized buffers per chunk: parameters, state, one slot per worker;
 * with @half (a 16-bit tensor in the model) also the f32 master, and the
 * master and each state array twice the chunk's size (layout.h).
 */
static u32 rw_engine_bufs_per_chunk(u32 nr_state, u32 nr_workers, bool half)
{
	return half ? 3 + 2 * nr_state + nr_workers :
		      1 + nr_state + nr_workers;
}

/* Whether @t[0..n) has a 16-bit tensor (rw_layout_half() before a layout). */
static bool rw_engine_tensors_half(const struct rw_layout_tensor *t, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (t[i].dtype != RW_DTYPE_F32)
			return true;
	return false;
}

/*
 * The chunks the box set gives this box: their count, and, if @owned is
 * not NULL, them (a bitmap of the chunks, allocated; NULL with @boxes
 * NULL). -EINVAL if the set does not name this box.
 */
static int rw_engine_owned_of(const struct rw_boxset *boxes, const char *job,
			      const struct rw_layout_geom *g,
			      unsigned long **owned, u32 *nr)
{
	u32 nr_chunks = g->nr_chunks, len, c;
	u32 count[RW_OWNER_MAX_BOXES];
	int self, ret;
	u8 *owner;
	u64 off;

	if (owned)
		*owned = NULL;
	*nr = nr_chunks;
	if (!boxes)
		return 0;
	self = rw_boxset_find(boxes, boxes->self);
	if (self < 0)
		return -EINVAL;
	owner = kvmalloc(nr_chunks, GFP_KERNEL);
	if (!owner)
		return -ENOMEM;
	rw_layout_chunk(g, nr_chunks - 1, &off, &len);
	ret = rw_boxset_owners(boxes, job, nr_chunks, len < g->chunk_size,
			       owner, count);
	if (!ret && owned) {
		*owned = bitmap_zalloc(nr_chunks, RW_GFP_BIG);
		ret = *owned ? 0 : -ENOMEM;
		for (c = 0; !ret && c < nr_chunks; c++)
			if (owner[c] == self)
				__set_bit(c, *owned);
	}
	if (!ret)
		*nr = count[self];
	kvfree(owner);
	return ret;
}

static void rw_engine_free_layout(struct rw_engine *e)
{
	if (e->hole)
		__free_page(e->hole);
	if (e->hole_grad)
		__free_page(e->hole_grad);
	e->hole = NULL;
	e->hole_grad = NULL;
	kfree(e->boxes);
	e->boxes = NULL;
	bitmap_free(e->owned);
	e->owned = NULL;
	kvfree(e->by_key);
	kvfree(e->offsets);
	kvfree(e->tensors);
}

static int rw_engine_build_layout(struct rw_engine *e,
				  const struct rw_engine_config *cfg)
{
	u32 n = cfg->nr_tensors;
	u32 cs = cfg->chunk_size ? cfg->chunk_size : rw_params_chunk_size();
	struct rw_layout_geom g;
	int ret;

	ret = rw_layout_measure(cfg->tensors, n, cs, &g);
	if (ret)
		return ret;
	e->tensors = kvmalloc_array(n, sizeof(*e->tensors), GFP_KERNEL);
	e->offsets = kvcalloc(n, sizeof(*e->offsets), GFP_KERNEL);
	e->by_key = kvcalloc(n, sizeof(*e->by_key), GFP_KERNEL);
	ret = -ENOMEM;
	if (!e->tensors || !e->offsets || !e->by_key)
		goto err;
	memcpy(e->tensors, cfg->tensors, array_size(n, sizeof(*e->tensors)));
	ret = rw_layout_init(&e->layout, e->tensors, n, cs, e->offsets,
			     e->by_key);
	if (ret)
		goto err;
	e->nr_chunks = e->layout.geom.nr_chunks;
	e->half = rw_layout_half(&e->layout);
	e->ics = rw_layout_image_chunk(&e->layout);
	ret = rw_engine_owned_of(cfg->boxes, cfg->name, &e->layout.geom,
				 &e->owned, &e->nr_owned);
	if (ret)
		goto err;
	if (e->owned) {
		ret = -ENOMEM;
		e->hole = alloc_page(GFP_KERNEL | __GFP_ZERO);
		e->hole_grad = alloc_page(GFP_KERNEL | __GFP_ZERO);
		e->boxes = kmemdup(cfg->boxes, sizeof(*cfg->boxes), GFP_KERNEL);
		if (!e->hole || !e->hole_grad || !e->boxes)
			goto err;
	}
	return 0;
err:
	rw_engine_free_layout(e);
	return ret;
}

static void rw_engine_free_map(struct rw_engine *e)
{
	kvfree(e->map.place);
	kfree(e->map.nics);
	kfree(e->map.cores);
	kfree(e->map.nodes);
}

/* The map's arrays, sized for @topo, and the map built into them. */
static int rw_engine_build_map_of(struct rw_engine *e,
				  const struct rw_map_topo *topo)
{
	struct rw_map_size sz;
	int ret;

	ret = rw_map_size(topo, &e->layout.geom, &sz);
	if (ret)
		return ret;
	e->map.nodes = kcalloc(sz.nr_nodes, sizeof(*e->map.nodes), GFP_KERNEL);
	e->map.cores = kcalloc(sz.nr_cores, sizeof(*e->map.cores), GFP_KERNEL);
	e->map.nics = kcalloc(sz.nr_nics, sizeof(*e->map.nics), GFP_KERNEL);
	e->map.place = kvcalloc(sz.nr_chunks, sizeof(*e->map.place),
				RW_GFP_BIG);
	ret = -ENOMEM;
	if (!e->map.nodes || !e->map.cores || !e->map.nics || !e->map.place)
		goto err;
	e->map.cap = sz;
	ret = rw_map_build(&e->map, topo, &e->layout.geom);
	if (ret)
		goto err;
	return 0;
err:
	rw_engine_free_map(e);
	return ret;
}

/*
 * The box as the mapper sees it: each online node with the job's online
 * CPUs on it. Until NICs are attached to jobs, every node gets one local
 * "NIC" (id = node id): the local path feeds the same queues.
 */
static int rw_engine_build_map(struct rw_engine *e, const struct cpumask *cpus)
{
	struct rw_map_topo_node *tn;
	struct rw_map_topo topo = {};
	u32 *cpu_ids, *nic_ids;
	int nid, cpu, ret = -ENOMEM;
	u32 nn = 0, nc = 0;

	tn = kcalloc(nr_node_ids, sizeof(*tn), GFP_KERNEL);
	cpu_ids = kcalloc(nr_cpu_ids, sizeof(*cpu_ids), GFP_KERNEL);
	nic_ids = kcalloc(nr_node_ids, sizeof(*nic_ids), GFP_KERNEL);
	if (!tn || !cpu_ids || !nic_ids)
		goto out;

	for_each_online_node(nid) {
		u32 first = nc;

		for_each_cpu_and(cpu, cpus, cpu_online_mask)
			if (cpu_to_node(cpu) == nid)
				cpu_ids[nc++] = cpu;
		if (nc == first)
			continue;
		nic_ids[nn] = nid;
		tn[nn] = (struct rw_map_topo_node){
			.id = nid, .cpus = &cpu_ids[first], .nr_cpus = nc - first,
			.nics = &nic_ids[nn], .nr_nics = 1,
		};
		nn++;
	}
	topo.nodes = tn;
	topo.nr_nodes = nn;
	ret = rw_engine_build_map_of(e, &topo);
out:
	kfree(nic_ids);
	kfree(cpu_ids);
	kfree(tn);
	return ret;
}

static void rw_engine_free_cores(struct rw_engine *e)
{
	u32 i;

	if (e->cores)
		for (i = 0; i < e->map.nr.nr_cores; i++) {
			kfree(e->cores[i].srcv);
			kfree(e->cores[i].segv);
		}
	kfree(e->cores);
	e->cores = NULL;
}

/* One aggregation core per CPU of the map; their threads start last. */
static int rw_engine_build_cores(struct rw_engine *e)
{
	u32 i;

	e->cores = kcalloc(e->map.nr.nr_cores, sizeof(*e->cores), GFP_KERNEL);
	if (!e->cores)
		return -ENOMEM;
	for (i = 0; i < e->map.nr.nr_cores; i++) {
		struct rw_core *core = &e->cores[i].core;
		int nid = cpu_to_node(e->map.cores[i].cpu);

		e->cores[i].srcv = kcalloc_node(e->nr_workers,
						sizeof(*e->cores[i].srcv),
						GFP_KERNEL, nid);
		e->cores[i].segv = kcalloc_node(e->nr_workers,
						sizeof(*e->cores[i].segv),
						GFP_KERNEL, nid);
		if (!e->cores[i].srcv || !e->cores[i].segv) {
			rw_engine_free_cores(e);
			return -ENOMEM;
		}

		core->cpu = e->map.cores[i].cpu;
		core->node = e->map.nodes[e->map.cores[i].node].id;
		core->index = i;
		core->owner = e;
		core->handle = rw_engine_handle;
		core->idle = rw_engine_idle;
	}
	return 0;
}

static void rw_engine_free_memory(struct rw_engine *e)
{
	u32 i;

	vfree(e->versions);
	if (e->arenas)
		for (i = 0; i < e->map.nr.nr_nodes; i++)
			rw_arena_free(&e->arenas[i]);
	kfree(e->arenas);
	kvfree(e->srcs);
	kvfree(e->tags);
	kvfree(e->slots);
	kvfree(e->chunks);
}

/*
 * Point chunk @c, its slots and their events into @mem (NULL: not this
 * box's chunk, which has no memory).
 */
static void rw_engine_place_chunk(struct rw_engine *e, u32 c, u8 *mem)
{
	struct rw_chunk *ch = &e->chunks[c];
	u32 cs = e->layout.geom.chunk_size, i, w;
	u8 *at;
	u64 off;

	rw_layout_chunk(&e->layout.geom, c, &off, &ch->len);
	ch->owner = &e->cores[e->map.place[c].core].core;
	ch->src = &e->srcs[(size_t)c * e->nr_workers];
	ch->tags = &e->tags[(size_t)c * e->nr_workers];
	ch->recheck.chunk = c;
	ch->recheck.type = RW_EV_RECHECK;
	/* Parameters, the master if apart, state, slots: see build_memory. */
	ch->params = mem;
	ch->master = (float *)(mem && e->half ? mem + cs : mem);
	at = mem ? (u8 *)ch->master + (e->half ? e->ics : cs) : NULL;
	for (i = 0; mem && i < e->nr_state; i++, at += e->ics)
		ch->state[i] = (float *)at;
	seqcount_init(&ch->seq);
	for (w = 0; w < e->nr_workers; w++) {
		struct rw_slot *s = &e->slots[(size_t)c * e->nr_workers + w];

		s->grad = mem ? at + (size_t)w * cs : NULL;
		s->ev.chunk = c;
		s->ev.worker = w;
		s->ev.type = RW_EV_PUSH;
		ch->src[w] = s->grad;
	}
}

/*
 * Per node, one arena holds every buffer of the chunks homed there:
 * parameters, optimizer state and one receive slot per worker, each a full
 * chunk_size (page-aligned, since chunk sizes are powers of two >= 4 KiB),
 * for the chunks this box owns (rw_engine_owns()); the others have none.
 * A model with a 16-bit tensor adds each chunk's f32 master after its
 * parameters, and its master and state arrays take two chunk sizes each
 * (chunk/layout.h, rw_layout_half()).
 * Then the user-mappable version array. rw_engine_footprint() counts the
 * same.
 */
static int rw_engine_build_memory(struct rw_engine *e,
				  const struct rw_cancel *cancel)
{
	u32 cs = e->layout.geom.chunk_size, per_chunk, c, i;
	u32 nn = e->map.nr.nr_nodes;
	u32 *used;
	size_t bytes;
	int ret = -ENOMEM;

	per_chunk = rw_engine_bufs_per_chunk(e->nr_state, e->nr_workers,
					     e->half);
	e->arenas = kcalloc(nn, sizeof(*e->arenas), GFP_KERNEL);
	used = kcalloc(nn, sizeof(*used), GFP_KERNEL);
	e->chunks = kvcalloc(e->nr_chunks, sizeof(*e->chunks), RW_GFP_BIG);
	e->slots = kvcalloc(array_size(e->nr_chunks, e->nr_workers),
			    sizeof(*e->slots), RW_GFP_BIG);
	e->srcs = kvcalloc(array_size(e->nr_chunks, e->nr_workers),
			   sizeof(*e->srcs), RW_GFP_BIG);
	e->tags = kvcalloc(array_size(e->nr_chunks, e->nr_workers),
			   sizeof(*e->tags), RW_GFP_BIG);
	if (!e->arenas || !used || !e->chunks || !e->slots || !e->srcs ||
	    !e->tags)
		goto err;

	for (c = 0; c < e->nr_chunks; c++)
		if (rw_engine_has(e, c))
			used[e->map.place[c].node]++;
	for (i = 0; i < nn; i++) {
		if (check_mul_overflow((size_t)used[i],
				       (size_t)cs * per_chunk, &bytes)) {
			ret = -E2BIG;
			goto err;
		}
		ret = rw_arena_alloc(&e->arenas[i], bytes, e->map.nodes[i].id,
				     cancel);
		if (ret)
			goto err;
	}
	ret = -ENOMEM;
	memset(used, 0, nn * sizeof(*used));
	for (c = 0; c < e->nr_chunks; c++) {
		u32 node = e->map.place[c].node;

		rw_engine_place_chunk(e, c, !rw_engine_has(e, c) ? NULL :
				      (u8 *)e->arenas[node].addr +
				      (size_t)used[node]++ * cs * per_chunk);
	}
	e->versions_len = PAGE_ALIGN(array_size(e->nr_chunks, sizeof(u64)));
	e->versions = vmalloc_user(e->versions_len);
	if (!e->versions)
		goto err;
	kfree(used);
	return 0;
err:
	kfree(used);
	rw_engine_free_memory(e);
	return ret;
}

/*
 * Stop the cores' threads, then drop them. A stopping core may have passed
 * an event on to a core that had already stopped; only migrate events own
 * memory, and they are freed here.
 */
static void rw_engine_stop_cores(struct rw_engine *e, u32 n)
{
	struct rw_event *ev, *next;
	u32 i;

	for (i = 0; i < n; i++)
		rw_core_stop(&e->cores[i].core);
	for (i = 0; i < n; i++)
		llist_for_each_entry_safe(ev, next,
					  llist_del_all(&e->cores[i].core.queue),
					  node)
			rw_engine_migrate_drop(ev);
	for (i = 0; i < n; i++)
		rw_core_put(&e->cores[i].core);
}

static int rw_engine_start_cores(struct rw_engine *e)
{
	u32 i;
	int ret;

	for (i = 0; i < e->map.nr.nr_cores; i++) {
		ret = rw_core_start(&e->cores[i].core, e->name);
		if (ret) {
			rw_engine_stop_cores(e, i);
			return ret;
		}
	}
	return 0;
}

/*
 * What a worker's two RDMA windows (its slots and the parameters, each the
 * model's size) cost per page once registered: a scatterlist entry and
 * the device's page list, rounded up.
 */
#define RW_WINDOW_PAGE_META	64

int rw_engine_footprint(const struct rw_engine_config *cfg, u64 *bytes)
{
	u32 cs = cfg->chunk_size ? cfg->chunk_size : rw_params_chunk_size();
	u64 nc, per_chunk, slots, pages, meta, total;
	struct rw_layout_geom g;
	u32 own;
	int ret;

	ret = rw_layout_measure(cfg->tensors, cfg->nr_tensors, cs, &g);
	if (ret)
		return ret;
	nc = g.nr_chunks;
	/* A job over several boxes: memory for this box's chunks only. */
	ret = rw_engine_owned_of(cfg->boxes, cfg->name, &g, NULL, &own);
	if (ret)
		return ret;
	/* Parameters, optimizer state, one slot per worker (build_memory). */
	per_chunk = (u64)cs *
		    rw_engine_bufs_per_chunk(rw_engine_state_arrays(cfg->hp.optim),
					     cfg->nr_workers,
					     rw_engine_tensors_half(cfg->tensors,
								    cfg->nr_tensors));
	slots = nc * cfg->nr_workers;
	pages = nc * (cs >> PAGE_SHIFT);
	meta = nc * (sizeof(struct rw_chunk) + sizeof(struct rw_map_place) +
		     2 * sizeof(u64)) +
	       slots * (sizeof(struct rw_slot) + sizeof(void *) +
			sizeof(struct rw_round_tag) + sizeof(u64) + 1) +
	       PAGE_ALIGN(nc * sizeof(u64));
	if (check_mul_overflow((u64)own, per_chunk, &total) ||
	    check_add_overflow(total, meta, &total) ||
	    check_add_overflow(total, (total >> PAGE_SHIFT) *
			       RW_ARENA_PAGE_META, &total) ||
	    check_add_overflow(total, pages * 2 * cfg->nr_workers *
			       RW_WINDOW_PAGE_META, &total))
		return -EOVERFLOW;
	*bytes = total;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_footprint);

struct rw_engine *rw_engine_create(const struct rw_engine_config *cfg)
{
	struct rw_round_rule rule = {
		.quorum = cfg->quorum, .each = cfg->apply_each,
	};
	struct rw_agg_step st;
	struct rw_engine *e;
	int ret;

	if (!cfg->name || !cfg->nr_workers ||
	    cfg->nr_workers > RW_AGG_MAX_SRCS ||
	    cfg->nr_workers > RW_ROUND_MAX_RANKS ||
	    cfg->quorum > cfg->nr_workers)
		return ERR_PTR(-EINVAL);
	/* Reject bad optimizer settings now, not at the first step. */
	ret = rw_agg_step_prepare(&st, &cfg->hp, cfg->nr_workers, 1);
	if (ret)
		return ERR_PTR(ret);

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return ERR_PTR(-ENOMEM);
	strscpy(e->name, cfg->name, sizeof(e->name));
	e->nr_workers = cfg->nr_workers;
	e->hp = cfg->hp;
	e->nr_state = rw_engine_state_arrays(cfg->hp.optim);
	init_waitqueue_head(&e->wq);
	spin_lock_init(&e->view_lock);
	mutex_init(&e->init_lock);
	seqcount_spinlock_init(&e->view_seq, &e->view_lock);
	ret = -ENOMEM;
	e->view = kzalloc(sizeof(*e->view), GFP_KERNEL);
	e->late = kcalloc(cfg->nr_workers, sizeof(*e->late), GFP_KERNEL);
	e->pcpu = alloc_percpu(struct rw_engine_pcpu);
	if (!e->view || !e->late || !e->pcpu)
		goto err_free;
	ret = rw_round_view_init(e->view, cfg->nr_workers, &rule);
	if (ret)
		goto err_free;

	ret = rw_engine_build_layout(e, cfg);
	if (ret)
		goto err_free;
	ret = rw_engine_build_map(e, cfg->cpus ? cfg->cpus : cpu_online_mask);
	if (ret)
		goto err_layout;
	ret = rw_engine_build_cores(e);
	if (ret)
		goto err_map;
	ret = rw_engine_build_memory(e, cfg->cancel);
	if (ret)
		goto err_cores;
	ret = rw_engine_rebal_init(e, cfg->rebalance_ms);
	if (ret)
		goto err_memory;
	ret = rw_engine_start_cores(e);
	if (ret)
		goto err_rebal;
	rw_engine_rebal_start(e);
	return e;

err_rebal:
	rw_engine_rebal_fini(e);
err_memory:
	rw_engine_free_memory(e);
err_cores:
	rw_engine_free_cores(e);
err_map:
	rw_engine_free_map(e);
err_layout:
	rw_engine_free_layout(e);
err_free:
	free_percpu(e->pcpu);
	kfree(e->late);
	kfree(e->view);
	kfree(e);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_create);

/*
 * The caller has stopped every producer: no push runs during or after.
 * Mirrors rw_engine_create().
 */
void rw_engine_destroy(struct rw_engine *e)
{
	if (IS_ERR_OR_NULL(e))
		return;
	rw_engine_rebal_stop(e);
	rw_engine_stop_cores(e, e->map.nr.nr_cores);
	rw_engine_rebal_fini(e);
	rw_engine_free_memory(e);
	rw_engine_free_cores(e);
	rw_engine_free_map(e);
	rw_engine_free_layout(e);
	free_percpu(e->pcpu);
	kfree(e->late);
	kfree(e->view);
	kfree(e);
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_destroy);

u32 rw_engine_nr_chunks(const struct rw_engine *e)
{
	return e->nr_chunks;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_nr_chunks);

u32 rw_engine_nr_cores(const struct rw_engine *e)
{
	return e->map.nr.nr_cores;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_nr_cores);

bool rw_engine_owns(const struct rw_engine *e, u32 chunk)
{
	return rw_engine_has(e, chunk);
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_owns);

u32 rw_engine_nr_owned(const struct rw_engine *e)
{
	return e->nr_owned;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_nr_owned);

const unsigned long *rw_engine_owned(const struct rw_engine *e)
{
	return e->owned;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_owned);

const struct rw_boxset *rw_engine_boxes(const struct rw_engine *e)
{
	return e->boxes;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_boxes);

u32 rw_engine_chunk_len(const struct rw_engine *e, u32 chunk)
{
	return chunk < e->nr_chunks ? e->chunks[chunk].len : 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_chunk_len);

const struct rw_layout *rw_engine_layout(const struct rw_engine *e)
{
	return &e->layout;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_layout);

/*
 * The page backing byte @off of buffer @buf as worker @worker sees it: the
 * buffers are laid out in chunk order, chunk_size bytes per chunk, but
 * each chunk's memory lives in its node's arena.
 */
struct page *rw_engine_page(const struct rw_engine *e, enum rw_engine_buf buf,
			    u32 worker, u64 off)
{
	u32 cs = e->layout.geom.chunk_size, c = off >> e->layout.geom.chunk_shift;
	const struct rw_chunk *ch;
	const void *base;

	if (buf == RW_BUF_VERSIONS)
		return off < e->versions_len ?
		       vmalloc_to_page((u8 *)e->versions + off) : NULL;
	if (c >= e->nr_chunks || (buf != RW_BUF_PARAMS && worker >= e->nr_workers))
		return NULL;
	if (!rw_engine_has(e, c))
		return buf == RW_BUF_PARAMS ? e->hole : e->hole_grad;
	ch = &e->chunks[c];
	if (buf == RW_BUF_PARAMS)
		base = ch->params;
	else if (worker < e->nr_workers)
		base = ch->src[worker];
	else
		return NULL;
	return vmalloc_to_page((const u8 *)base + (off & (cs - 1)));
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_page);

u64 rw_engine_buf_len(const struct rw_engine *e, enum rw_engine_buf buf)
{
	if (buf == RW_BUF_VERSIONS)
		return e->versions_len;
	return (u64)e->nr_chunks << e->layout.geom.chunk_shift;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_buf_len);
