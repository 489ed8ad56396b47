// SPDX-License-Identifier: GPL-2.0
/*
 * The chunk engine of one job: its layout cut into chunks, the chunk map
 * onto (node, core, NIC), per-node memory arenas, one aggregation core per
 * CPU of the job, and the aggregation step that runs when every worker's
 * gradient for a chunk has landed.
 *
 * Ownership, which is what makes the fast path lock-free:
 *  - Each chunk is owned by exactly one core at a time (chunk->owner). Only
 *    the owner's thread touches the chunk's arrival count, parameters and
 *    optimizer state, so none of them needs a lock.
 *  - A worker's receive slot for a chunk holds one gradient at a time: the
 *    pusher claims it (RW_SLOT_INFLIGHT, test_and_set_bit_lock), fills it
 *    and queues the slot's embedded event; the owner releases every slot of
 *    the chunk (clear_bit_unlock) after the step has read them.
 *  - The owner changes only on the old owner's thread, by a migrate event
 *    in its own queue (smp_store_release); producers read the owner with
 *    smp_load_acquire, and an event that reaches a former owner is passed
 *    on. The release/acquire chain makes the old owner's writes to the
 *    chunk visible to the new one.
 *  - Readers of parameters (pull) see a whole step or retry: the owner
 *    brackets each step with the chunk's seqcount.
 *
 * Slots are summed in worker-rank order by kmod/agg, so the parameters are
 * bit-identical whatever order the pushes arrived in.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/topology.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "engine.h"
#include "params.h"
#include "agg/agg.h"
#include "chunk/core.h"
#include "chunk/map.h"
#include "chunk/rebalance.h"

#define RW_SLOT_INFLIGHT	0

struct rw_slot {
	struct rw_event ev;		/* chunk and worker fixed at setup */
	unsigned long flags;		/* RW_SLOT_INFLIGHT */
	void *grad;
};

struct rw_chunk {
	struct rw_core *owner;		/* see the ownership rules above */
	const void **src;		/* the slots' buffers, worker-rank order */
	float *params;
	float *state[2];
	u32 len;			/* bytes */
	u32 narrived;			/* owner only */
	atomic64_t posted;		/* gradients queued (apply_each) */
	u64 work_ns;			/* owner writes; the rebalancer reads */
	u64 version;			/* owner writes (release), anyone reads */
	seqcount_t seq;			/* owner writes around each step */
};

/* A core plus the counters only its thread writes. */
struct rw_engine_core {
	struct rw_core core;
	/*
	 * Optimizer constants for step st_t (0: none yet). A step's constants
	 * depend only on its number, and a core's chunks mostly take the same
	 * step in turn, so they are computed once per step, not per chunk.
	 */
	struct rw_agg_step st;
	u64 st_t;
	u64 steps;
	u64 forwards;
	u64 migrations;
	u64 errors;
};

struct rw_migrate {
	struct rw_event ev;
	struct rw_core *to;
};

struct rw_engine_pcpu {
	u64 pushes;
	u64 busy;
};

struct rw_engine {
	char name[24];
	u32 nr_workers;
	u32 nr_chunks;
	u32 nr_state;			/* optimizer state arrays per chunk */
	struct rw_agg_hparams hp;
	bool apply_each;		/* a step per gradient, not per W */
	u64 *versions;			/* user-mappable copy of each version */
	size_t versions_len;		/* bytes, page-rounded */

	struct rw_layout_tensor *tensors;
	u64 *offsets;
	u32 *by_key;
	struct rw_layout layout;

	struct rw_map map;
	struct rw_engine_core *cores;	/* map.nr.nr_cores */
	void **arenas;			/* one per map node, on that node */

	struct rw_chunk *chunks;
	struct rw_slot *slots;		/* [chunk * nr_workers + worker] */
	const void **srcs;		/* backing store of every chunk->src */

	struct rw_engine_pcpu __percpu *pcpu;
	wait_queue_head_t wq;		/* pullers waiting for versions */

	/* Rebalancing: rebal_lock protects everything below and map.place. */
	struct mutex rebal_lock;
	struct rw_rebal_params rebal_params;
	struct rw_rebal_state rebal_state;
	atomic_t moves_pending;		/* migrate events not yet handled */
	u64 *core_seen;			/* busy_ns at the last window */
	u64 *chunk_seen;		/* work_ns at the last window */
	struct delayed_work rebal_work;
	unsigned long rebal_period;	/* jiffies; 0: only on request */
};

static u32 rw_engine_nr_state(u32 optim)
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
	if (!e->tensors || !e->offsets || !e->by_key)
		return -ENOMEM;
	memcpy(e->tensors, cfg->tensors, array_size(n, sizeof(*e->tensors)));
	ret = rw_layout_init(&e->layout, e->tensors, n, cs, e->offsets,
			     e->by_key);
	if (ret)
		return ret;
	e->nr_chunks = e->layout.geom.nr_chunks;
	return 0;
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
	struct rw_map_size sz;
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

	ret = rw_map_size(&topo, &e->layout.geom, &sz);
	if (ret)
		goto out;
	ret = -ENOMEM;
	e->map.nodes = kcalloc(sz.nr_nodes, sizeof(*e->map.nodes), GFP_KERNEL);
	e->map.cores = kcalloc(sz.nr_cores, sizeof(*e->map.cores), GFP_KERNEL);
	e->map.nics = kcalloc(sz.nr_nics, sizeof(*e->map.nics), GFP_KERNEL);
	e->map.place = kvcalloc(sz.nr_chunks, sizeof(*e->map.place),
				GFP_KERNEL);
	if (!e->map.nodes || !e->map.cores || !e->map.nics || !e->map.place)
		goto out;
	e->map.cap = sz;
	ret = rw_map_build(&e->map, &topo, &e->layout.geom);
out:
	kfree(nic_ids);
	kfree(cpu_ids);
	kfree(tn);
	return ret;
}

/*
 * Per node, one arena holds every buffer of the chunks homed there:
 * parameters, optimizer state and one receive slot per worker, each a full
 * chunk_size (page-aligned, since chunk sizes are powers of two >= 4 KiB).
 */
static int rw_engine_build_memory(struct rw_engine *e)
{
	u32 cs = e->layout.geom.chunk_size, per_chunk, w, c, i;
	u32 nn = e->map.nr.nr_nodes;
	u32 *used;
	size_t bytes;
	int ret = -ENOMEM;

	per_chunk = 1 + e->nr_state + e->nr_workers;
	e->arenas = kcalloc(nn, sizeof(*e->arenas), GFP_KERNEL);
	used = kcalloc(nn, sizeof(*used), GFP_KERNEL);
	e->chunks = kvcalloc(e->nr_chunks, sizeof(*e->chunks), GFP_KERNEL);
	e->slots = kvcalloc(array_size(e->nr_chunks, e->nr_workers),
			    sizeof(*e->slots), GFP_KERNEL);
	e->srcs = kvcalloc(array_size(e->nr_chunks, e->nr_workers),
			   sizeof(*e->srcs), GFP_KERNEL);
	if (!e->arenas || !used || !e->chunks || !e->slots || !e->srcs)
		goto out;

	for (i = 0; i < nn; i++) {
		if (check_mul_overflow((size_t)e->map.nodes[i].nr_chunks,
				       (size_t)cs * per_chunk, &bytes)) {
			ret = -E2BIG;
			goto out;
		}
		if (!bytes)
			continue;
		e->arenas[i] = vzalloc_node(bytes, e->map.nodes[i].id);
		if (!e->arenas[i])
			goto out;
	}

	for (c = 0; c < e->nr_chunks; c++) {
		struct rw_chunk *ch = &e->chunks[c];
		u32 node = e->map.place[c].node;
		u8 *mem = (u8 *)e->arenas[node] +
			  (size_t)used[node]++ * cs * per_chunk;
		u64 off;

		rw_layout_chunk(&e->layout.geom, c, &off, &ch->len);
		ch->owner = &e->cores[e->map.place[c].core].core;
		ch->src = &e->srcs[(size_t)c * e->nr_workers];
		ch->params = (float *)mem;
		for (i = 0; i < e->nr_state; i++)
			ch->state[i] = (float *)(mem + (size_t)(1 + i) * cs);
		seqcount_init(&ch->seq);
		for (w = 0; w < e->nr_workers; w++) {
			struct rw_slot *s = &e->slots[(size_t)c * e->nr_workers + w];

			s->grad = mem + (size_t)(1 + e->nr_state + w) * cs;
			s->ev.chunk = c;
			s->ev.worker = w;
			s->ev.type = RW_EV_PUSH;
			ch->src[w] = s->grad;
		}
	}
	ret = 0;
out:
	kfree(used);
	return ret;
}

/* Sum the chunk's slots and apply the optimizer: the owner's thread only. */
static void rw_engine_step(struct rw_engine *e, struct rw_engine_core *ec,
			   struct rw_chunk *ch, const void *const *src, u32 nsrc)
{
	struct rw_agg_chunk c = {
		.src = src,
		.nsrc = nsrc,
		.n = ch->len / sizeof(float),
		.dtype = RW_AGG_F32,
		.out = ch->params,
		.state = { ch->state[0], ch->state[1] },
	};
	u64 t = ch->version + 1, t0 = ktime_get_ns();
	int ret = 0;

	if (ec->st_t != t) {
		ret = rw_agg_step_prepare(&ec->st, &e->hp, e->nr_workers, t);
		ec->st_t = ret ? 0 : t;
	}
	if (!ret)
		ret = rw_agg_update_chunk(&c, &ec->st);
	WRITE_ONCE(ch->work_ns, ch->work_ns + ktime_get_ns() - t0);
	if (ret) {
		/* Settings are checked at creation: this is a bug, say so. */
		WRITE_ONCE(ec->errors, ec->errors + 1);
		pr_warn_ratelimited("%s: optimizer step failed: %d\n", e->name,
				    ret);
		return;
	}
	WRITE_ONCE(ec->steps, ec->steps + 1);
}

/*
 * A gradient has landed. Synchronous jobs step once every worker's has,
 * summing them in rank order; the others (apply_each) step on each one
 * alone, still scaled by 1/W, as asynchronous SGD does.
 */
static void rw_engine_arrive(struct rw_engine *e, struct rw_engine_core *ec,
			     struct rw_chunk *ch, u32 chunk, u32 worker)
{
	struct rw_slot *s = &e->slots[(size_t)chunk * e->nr_workers];
	u32 w;

	if (!e->apply_each) {
		if (++ch->narrived < e->nr_workers)
			return;
		ch->narrived = 0;
	}
	/*
	 * Readers see the new parameters and the new version together, or
	 * retry: both change inside the write section.
	 */
	raw_write_seqcount_begin(&ch->seq);
	if (e->apply_each) {
		rw_engine_step(e, ec, ch, &ch->src[worker], 1);
		clear_bit_unlock(RW_SLOT_INFLIGHT, &s[worker].flags);
	} else {
		rw_engine_step(e, ec, ch, ch->src, e->nr_workers);
		for (w = 0; w < e->nr_workers; w++)
			clear_bit_unlock(RW_SLOT_INFLIGHT, &s[w].flags);
	}
	/* Pairs with the acquire in rw_engine_version(): slots, then params. */
	smp_store_release(&ch->version, ch->version + 1);
	WRITE_ONCE(e->versions[chunk], ch->version);
	raw_write_seqcount_end(&ch->seq);
	if (wq_has_sleeper(&e->wq))
		wake_up_all(&e->wq);
}

static void rw_engine_handle(struct rw_core *core, struct rw_event *ev)
{
	struct rw_engine_core *ec = container_of(core, struct rw_engine_core,
						 core);
	struct rw_engine *e = core->owner;
	struct rw_chunk *ch = &e->chunks[ev->chunk];
	/* Pairs with the release below: see the previous owner's writes. */
	struct rw_core *owner = smp_load_acquire(&ch->owner);
	struct rw_migrate *m;

	if (owner != core) {
		WRITE_ONCE(ec->forwards, ec->forwards + 1);
		rw_core_post(owner, ev);
		return;
	}
	switch (ev->type) {
	case RW_EV_PUSH:
		rw_engine_arrive(e, ec, ch, ev->chunk, ev->worker);
		break;
	case RW_EV_MIGRATE:
		m = container_of(ev, struct rw_migrate, ev);
		/* Publish the chunk state to the new owner (acquire above). */
		smp_store_release(&ch->owner, m->to);
		WRITE_ONCE(ec->migrations, ec->migrations + 1);
		atomic_dec(&e->moves_pending);
		kfree(m);
		break;
	}
}

/*
 * Record the moves in the map, then post them: each chunk's current owner
 * gets a migrate event and hands the chunk over when it reaches it, after
 * everything queued before. Moves whose event cannot be allocated are
 * dropped before the map records anything.
 */
static int rw_engine_migrate(struct rw_engine *e, struct rw_rebal_move *mv,
			     u32 n)
{
	struct rw_migrate **m;
	u32 i, done = 0;
	int ret;

	lockdep_assert_held(&e->rebal_lock);
	m = kcalloc(n, sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		m[done] = kmalloc(sizeof(**m), GFP_KERNEL);
		if (!m[done])
			continue;
		m[done]->ev.chunk = mv[i].chunk;
		m[done]->ev.worker = 0;
		m[done]->ev.type = RW_EV_MIGRATE;
		m[done]->to = &e->cores[mv[i].to].core;
		mv[done++] = mv[i];
	}
	ret = rw_rebal_apply(&e->map, mv, done);
	if (ret) {
		pr_warn("%s: rebalance moves rejected by the map\n", e->name);
		for (i = 0; i < done; i++)
			kfree(m[i]);
		done = 0;
	}
	atomic_add(done, &e->moves_pending);
	for (i = 0; i < done; i++) {
		struct rw_chunk *ch = &e->chunks[mv[i].chunk];

		/* Any stale owner passes the event on (rw_engine_handle). */
		rw_core_post(smp_load_acquire(&ch->owner), &m[i]->ev);
	}
	kfree(m);
	return ret ? ret : done;
}

/*
 * One rebalancing window. With @core_load NULL the loads are measured:
 * busy time per core and work per chunk since the previous window.
 * Returns the number of chunks moved, or -errno.
 */
VISIBLE_IF_KUNIT int rw_engine_rebalance_loads(struct rw_engine *e,
					       const u64 *core_load,
					       const u64 *chunk_load)
{
	u32 nc = e->map.nr.nr_cores, i, n = 0, max;
	struct rw_rebal_move *mv = NULL;
	u64 *cl = NULL, *kl = NULL, *scratch = NULL;
	int ret = -ENOMEM;

	mutex_lock(&e->rebal_lock);
	/*
	 * A window that sees moves still in flight would judge a placement
	 * that is half old, half new, and could move a chunk whose previous
	 * move has not landed; wait for the next one.
	 */
	ret = 0;
	if (atomic_read(&e->moves_pending))
		goto out;
	ret = -ENOMEM;
	max = e->rebal_params.max_moves;
	mv = kcalloc(max, sizeof(*mv), GFP_KERNEL);
	scratch = kcalloc(RW_REBAL_SCRATCH(nc), sizeof(u64), GFP_KERNEL);
	if (!mv || !scratch)
		goto out;
	if (!core_load) {
		cl = kcalloc(nc, sizeof(u64), GFP_KERNEL);
		kl = kvcalloc(e->nr_chunks, sizeof(u64), GFP_KERNEL);
		if (!cl || !kl)
			goto out;
		for (i = 0; i < nc; i++) {
			u64 now = atomic64_read(&e->cores[i].core.busy_ns);

			cl[i] = now - e->core_seen[i];
			e->core_seen[i] = now;
		}
		for (i = 0; i < e->nr_chunks; i++) {
			u64 now = READ_ONCE(e->chunks[i].work_ns);

			kl[i] = now - e->chunk_seen[i];
			e->chunk_seen[i] = now;
		}
		core_load = cl;
		chunk_load = kl;
	}
	ret = rw_rebal_step(&e->map, &e->rebal_params, &e->rebal_state,
			    core_load, chunk_load, scratch, mv, max, &n);
	if (!ret)
		ret = rw_engine_migrate(e, mv, n);
out:
	mutex_unlock(&e->rebal_lock);
	kvfree(kl);
	kfree(cl);
	kfree(scratch);
	kfree(mv);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_rebalance_loads);

int rw_engine_rebalance(struct rw_engine *e)
{
	return rw_engine_rebalance_loads(e, NULL, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_rebalance);

static void rw_engine_rebal_work(struct work_struct *work)
{
	struct rw_engine *e = container_of(to_delayed_work(work),
					   struct rw_engine, rebal_work);

	rw_engine_rebalance(e);
	schedule_delayed_work(&e->rebal_work, e->rebal_period);
}

static void rw_engine_free(struct rw_engine *e)
{
	struct rw_event *ev, *next;
	u32 i;

	cancel_delayed_work_sync(&e->rebal_work);
	if (e->cores) {
		for (i = 0; i < e->map.nr.nr_cores; i++)
			rw_core_stop(&e->cores[i].core);
		/*
		 * A stopping core may have passed an event on to a core that
		 * had already stopped; only migrate events own memory.
		 */
		for (i = 0; i < e->map.nr.nr_cores; i++)
			llist_for_each_entry_safe(ev, next,
						  llist_del_all(&e->cores[i].core.queue),
						  node)
				if (ev->type == RW_EV_MIGRATE)
					kfree(container_of(ev, struct rw_migrate,
							   ev));
		for (i = 0; i < e->map.nr.nr_cores; i++)
			rw_core_put(&e->cores[i].core);
	}
	if (e->arenas)
		for (i = 0; i < e->map.nr.nr_nodes; i++)
			vfree(e->arenas[i]);
	vfree(e->versions);
	kfree(e->arenas);
	kvfree(e->chunk_seen);
	kfree(e->core_seen);
	kvfree(e->srcs);
	kvfree(e->slots);
	kvfree(e->chunks);
	kfree(e->cores);
	kvfree(e->map.place);
	kfree(e->map.nics);
	kfree(e->map.cores);
	kfree(e->map.nodes);
	kvfree(e->by_key);
	kvfree(e->offsets);
	kvfree(e->tensors);
	free_percpu(e->pcpu);
	kfree(e);
}

struct rw_engine *rw_engine_create(const struct rw_engine_config *cfg)
{
	struct rw_agg_step st;
	struct rw_engine *e;
	u32 i;
	int ret;

	if (!cfg->name || !cfg->nr_workers ||
	    cfg->nr_workers > RW_AGG_MAX_SRCS)
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
	e->apply_each = cfg->apply_each;
	e->hp = cfg->hp;
	e->nr_state = rw_engine_nr_state(cfg->hp.optim);
	init_waitqueue_head(&e->wq);
	mutex_init(&e->rebal_lock);
	INIT_DELAYED_WORK(&e->rebal_work, rw_engine_rebal_work);
	e->rebal_period = msecs_to_jiffies(cfg->rebalance_ms);
	rw_rebal_params_default(&e->rebal_params);
	rw_rebal_state_init(&e->rebal_state);
	e->pcpu = alloc_percpu(struct rw_engine_pcpu);
	ret = -ENOMEM;
	if (!e->pcpu)
		goto err;

	ret = rw_engine_build_layout(e, cfg);
	if (ret)
		goto err;
	ret = rw_engine_build_map(e, cfg->cpus ? cfg->cpus : cpu_online_mask);
	if (ret)
		goto err;
	ret = -ENOMEM;
	e->cores = kcalloc(e->map.nr.nr_cores, sizeof(*e->cores), GFP_KERNEL);
	if (!e->cores)
		goto err;
	ret = rw_engine_build_memory(e);
	if (ret)
		goto err;
	ret = -ENOMEM;
	e->versions_len = PAGE_ALIGN(array_size(e->nr_chunks, sizeof(u64)));
	e->versions = vmalloc_user(e->versions_len);
	if (!e->versions)
		goto err;
	e->core_seen = kcalloc(e->map.nr.nr_cores, sizeof(u64), GFP_KERNEL);
	e->chunk_seen = kvcalloc(e->nr_chunks, sizeof(u64), GFP_KERNEL);
	ret = -ENOMEM;
	if (!e->core_seen || !e->chunk_seen)
		goto err;

	for (i = 0; i < e->map.nr.nr_cores; i++) {
		struct rw_core *core = &e->cores[i].core;

		core->cpu = e->map.cores[i].cpu;
		core->node = e->map.nodes[e->map.cores[i].node].id;
		core->index = i;
		core->owner = e;
		core->handle = rw_engine_handle;
		ret = rw_core_start(core, e->name);
		if (ret)
			goto err;
	}
	if (e->rebal_period)
		schedule_delayed_work(&e->rebal_work, e->rebal_period);
	return e;
err:
	rw_engine_free(e);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_create);

/* The caller has stopped every producer: no push runs during or after. */
void rw_engine_destroy(struct rw_engine *e)
{
	if (!IS_ERR_OR_NULL(e))
		rw_engine_free(e);
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

u32 rw_engine_chunk_len(const struct rw_engine *e, u32 chunk)
{
	return chunk < e->nr_chunks ? e->chunks[chunk].len : 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_chunk_len);

/* Claim, fill (if @grad) and queue a worker's slot. */
static int rw_engine_push_slot(struct rw_engine *e, u32 worker, u32 chunk,
			       const void *grad, size_t len)
{
	struct rw_chunk *ch;
	struct rw_slot *s;

	if (worker >= e->nr_workers || chunk >= e->nr_chunks)
		return -EINVAL;
	ch = &e->chunks[chunk];
	if (grad && len != ch->len)
		return -EINVAL;
	s = &e->slots[(size_t)chunk * e->nr_workers + worker];
	if (test_and_set_bit_lock(RW_SLOT_INFLIGHT, &s->flags)) {
		this_cpu_inc(e->pcpu->busy);
		return -EBUSY;
	}
	if (grad)
		memcpy(s->grad, grad, len);
	this_cpu_inc(e->pcpu->pushes);
	atomic64_inc(&ch->posted);
	/* Pairs with the migrate release in rw_engine_handle(). */
	rw_core_post(smp_load_acquire(&ch->owner), &s->ev);
	return 0;
}

int rw_engine_push(struct rw_engine *e, u32 worker, u32 chunk,
		   const void *grad, size_t len)
{
	if (!grad)
		return -EINVAL;
	return rw_engine_push_slot(e, worker, chunk, grad, len);
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_push);

int rw_engine_push_mapped(struct rw_engine *e, u32 worker, u32 chunk)
{
	return rw_engine_push_slot(e, worker, chunk, NULL, 0);
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_push_mapped);

bool rw_engine_slot_busy(const struct rw_engine *e, u32 worker, u32 chunk)
{
	if (worker >= e->nr_workers || chunk >= e->nr_chunks)
		return false;
	return test_bit(RW_SLOT_INFLIGHT,
			&e->slots[(size_t)chunk * e->nr_workers + worker].flags);
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_slot_busy);

u64 rw_engine_posted(const struct rw_engine *e, u32 chunk)
{
	return chunk < e->nr_chunks ?
	       (u64)atomic64_read(&e->chunks[chunk].posted) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_posted);

bool rw_engine_fresh(const struct rw_engine *e, u32 worker, u32 chunk,
		     u64 posted)
{
	if (rw_engine_slot_busy(e, worker, chunk))
		return false;
	return !e->apply_each || rw_engine_version(e, chunk) >= posted;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_fresh);

wait_queue_head_t *rw_engine_waitq(struct rw_engine *e)
{
	return &e->wq;
}

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
	if (c >= e->nr_chunks)
		return NULL;
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

/* The node with the most of the job's chunks (its memory's home). */
int rw_engine_home_node(const struct rw_engine *e)
{
	u32 i, best = 0;

	for (i = 1; i < e->map.nr.nr_nodes; i++)
		if (e->map.nodes[i].nr_chunks > e->map.nodes[best].nr_chunks)
			best = i;
	return e->map.nr.nr_nodes ? (int)e->map.nodes[best].id : NUMA_NO_NODE;
}

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

u64 rw_engine_version(const struct rw_engine *e, u32 chunk)
{
	if (chunk >= e->nr_chunks)
		return 0;
	/* Pairs with the release in rw_engine_arrive(). */
	return smp_load_acquire(&e->chunks[chunk].version);
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_version);

int rw_engine_wait(struct rw_engine *e, u32 chunk, u64 version,
		   unsigned long timeout_jiffies)
{
	long ret;

	if (chunk >= e->nr_chunks)
		return -EINVAL;
	ret = wait_event_interruptible_timeout(e->wq,
					       rw_engine_version(e, chunk) >= version,
					       timeout_jiffies);
	if (ret < 0)
		return ret;
	return ret ? 0 : -ETIMEDOUT;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_wait);

int rw_engine_read(struct rw_engine *e, u32 chunk, void *dst, size_t len,
		   u64 *version)
{
	struct rw_chunk *ch;
	unsigned int seq;
	u64 v;

	if (chunk >= e->nr_chunks || len != e->chunks[chunk].len)
		return -EINVAL;
	ch = &e->chunks[chunk];
	/*
	 * The owner's thread may be preempted inside a step (between FPU
	 * slices): never spin on it, yield until the step is over.
	 */
	for (;;) {
		seq = raw_read_seqcount(&ch->seq);
		if (seq & 1) {
			cond_resched();
			continue;
		}
		/* Pairs with the release in rw_engine_arrive(). */
		v = smp_load_acquire(&ch->version);
		memcpy(dst, ch->params, len);
		if (!read_seqcount_retry(&ch->seq, seq))
			break;
	}
	if (version)
		*version = v;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_read);

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

	if (chunk >= e->nr_chunks)
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
