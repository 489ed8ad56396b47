// SPDX-License-Identifier: GPL-2.0
/*
 * The chunk engine of one job, its fast path and its lifecycle: the layout
 * cut into chunks, the chunk map onto (node, core, NIC), per-node memory
 * arenas, one aggregation core per CPU of the job, the push that queues a
 * gradient, and the step that runs when a chunk's gradients have landed and
 * publishes its new version. Rebalancing lives in chunk/migrate.c, the
 * read-only snapshots netlink takes in engine_query.c, and the structures
 * the three files share in engine_priv.h.
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
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/topology.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "engine/engine.h"
#include "engine/engine_priv.h"
#include "params.h"
#include "agg/agg.h"
#include "trace.h"

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
 * Sum @nsrc gradients and apply the optimizer, each scaled by 1/@scale_n:
 * the owner's thread only. Returns the time it took, in ns.
 */
static u64 rw_engine_step(struct rw_engine *e, struct rw_engine_core *ec,
			  struct rw_chunk *ch, const void *const *src,
			  u32 nsrc, u32 scale_n)
{
	struct rw_agg_chunk c = {
		.src = src,
		.nsrc = nsrc,
		.n = ch->len / sizeof(float),
		.dtype = RW_AGG_F32,
		.out = ch->params,
		.state = { ch->state[0], ch->state[1] },
	};
	u64 t = ch->version + 1, t0 = ktime_get_ns(), ns;
	int ret = 0;

	if (ec->st_t != t || ec->st_n != scale_n) {
		ret = rw_agg_step_prepare(&ec->st, &e->hp, scale_n, t);
		ec->st_t = ret ? 0 : t;
		ec->st_n = scale_n;
	}
	if (!ret)
		ret = rw_agg_update_chunk(&c, &ec->st);
	ns = ktime_get_ns() - t0;
	WRITE_ONCE(ch->work_ns, ch->work_ns + ns);
	if (ret) {
		/* Settings are checked at creation: this is a bug, say so. */
		WRITE_ONCE(ec->errors, ec->errors + 1);
		pr_warn_ratelimited("%s: optimizer step failed: %d\n", e->name,
				    ret);
		return ns;
	}
	WRITE_ONCE(ec->steps, ec->steps + 1);
	return ns;
}

/* The owner is done with worker @w's gradient in @ch: free its slot. */
static void rw_engine_release(struct rw_engine *e, u32 chunk, u32 w)
{
	clear_bit_unlock(RW_SLOT_INFLIGHT,
			 &e->slots[(size_t)chunk * e->nr_workers + w].flags);
}

/*
 * Run one step of @ch on @nsrc sources scaled by 1/@scale_n and publish
 * the new version. The slots are released inside the section, so a
 * reader that sees its slot free sees the new parameters, and, once the
 * section is over, the new version (rw_engine_fresh() waits for that).
 */
static void rw_engine_publish(struct rw_engine *e, struct rw_engine_core *ec,
			      struct rw_chunk *ch, u32 chunk,
			      const struct rw_round_out *o)
{
	u32 n = 0, w;
	u64 ns;

	/*
	 * Readers see the new parameters and the new version together, or
	 * retry: both change inside the write section.
	 */
	raw_write_seqcount_begin(&ch->seq);
	if (o->act == RW_ROUND_ONE) {
		/*
		 * Asynchronous SGD: alone, still scaled by 1/W. Averaging
		 * writes the mean of what it applied: the gradient itself.
		 */
		ns = rw_engine_step(e, ec, ch, &ch->src[o->rank], 1,
				    e->hp.optim == RW_AGG_AVERAGE ? 1 :
				    e->nr_workers);
		rw_engine_release(e, chunk, o->rank);
		n = 1;
	} else {
		for (w = 0; w < e->nr_workers; w++)
			if (rw_round_test(o->sum, w))
				ec->srcv[n++] = ch->src[w];
		ns = rw_engine_step(e, ec, ch, ec->srcv, n, n);
		for (w = 0; w < e->nr_workers; w++)
			if (rw_round_test(o->sum, w))
				rw_engine_release(e, chunk, w);
	}
	/* Pairs with the acquire in rw_engine_version(): slots, then params. */
	smp_store_release(&ch->version, ch->version + 1);
	WRITE_ONCE(e->versions[chunk], ch->version);
	/* Pairs with the acquire in rw_engine_fresh(): the step, then done. */
	smp_store_release(&ch->done, ch->done + n);
	raw_write_seqcount_end(&ch->seq);
	trace_rw_step(e->name, chunk, o->iter, n, e->hp.optim, ch->version, ns);
	trace_rw_publish(e->name, chunk, ch->version);
}

/*
 * Pullers sleep on e->wq until the chunks they wait for are free. Woken
 * for every chunk a core frees, each of W sleepers would wake, look and
 * sleep again per chunk step: several context switches per chunk, on the
 * CPUs the steps need. A core therefore wakes them after each batch of
 * events it took from its queue (rw_engine_idle()), and every
 * RW_ENGINE_WAKE_EVERY owed wake-ups (one per arrival, one per recheck
 * that freed a slot) within a long batch, so a puller waiting for an
 * early chunk is never kept for the whole batch. Every owed wake-up is
 * paid before the core's thread sleeps.
 */
#define RW_ENGINE_WAKE_EVERY	16

static void rw_engine_wake(struct rw_engine *e, struct rw_engine_core *ec)
{
	ec->unwoken = 0;
	if (wq_has_sleeper(&e->wq))
		wake_up_all(&e->wq);
}

/* A wake-up is owed to the pullers: at the batch's end, or now if many are. */
static void rw_engine_owe_wake(struct rw_engine *e, struct rw_engine_core *ec)
{
	if (++ec->unwoken >= RW_ENGINE_WAKE_EVERY)
		rw_engine_wake(e, ec);
}

static void rw_engine_idle(struct rw_core *core)
{
	struct rw_engine_core *ec = container_of(core, struct rw_engine_core,
						 core);

	if (ec->unwoken)
		rw_engine_wake(core->owner, ec);
}

/*
 * Do what the chunk's held gradients call for (sync/round.h), until only
 * an arrival or a change of members or rules can help: synchronous rounds
 * step once their members' (or the quorum's) gradients are in, summed in
 * rank order; the other policies step on each gradient alone; gradients
 * whose pusher left, or whose round is done, are dropped. True if it
 * freed a slot, for which the pullers are owed a wake-up.
 */
static bool rw_engine_settle(struct rw_engine *e, struct rw_engine_core *ec,
			     struct rw_chunk *ch, u32 chunk)
{
	struct rw_round_out o;
	bool freed = false;
	unsigned int seq;

	for (;;) {
		do {
			seq = read_seqcount_begin(&e->view_seq);
			rw_round_decide(e->view, &ch->round, ch->tags, &o);
		} while (read_seqcount_retry(&e->view_seq, seq));
		switch (o.act) {
		case RW_ROUND_LATE:
			atomic64_inc(&e->late[o.rank]);
			fallthrough;
		case RW_ROUND_DROP:
			rw_engine_release(e, chunk, o.rank);
			/* Pairs with the acquire in rw_engine_fresh(). */
			smp_store_release(&ch->done, ch->done + 1);
			break;
		case RW_ROUND_ONE:
		case RW_ROUND_STEP:
			rw_engine_publish(e, ec, ch, chunk, &o);
			break;
		}
		rw_round_apply(&ch->round, &o);
		if (o.act == RW_ROUND_WAIT)
			break;
		freed = true;
	}
	return freed;
}

/* A gradient has landed: hold it, then see what it allows. */
static void rw_engine_arrive(struct rw_engine *e, struct rw_engine_core *ec,
			     struct rw_chunk *ch, u32 chunk, u32 worker)
{
	if (!WARN_ON_ONCE(rw_round_hold(&ch->round, e->nr_workers, worker)))
		rw_engine_settle(e, ec, ch, chunk);
	/*
	 * Pairs with the acquire in rw_engine_fresh(): what this arrival
	 * allowed is published (a gradient the rule applies alone is
	 * applied; one a synchronous round holds stays held).
	 */
	smp_store_release(&ch->seen, ch->seen + 1);
	/*
	 * Under a step-per-gradient rule a pull waits for seen, so a
	 * wake-up is owed after it moves, even when the arrival freed
	 * nothing (a round holds it) or the settle woke pullers before:
	 * one that looked in between went back to sleep, and with every
	 * other rank parked in the gate behind it, no later arrival would
	 * wake it again. Owed once, whatever the settle freed.
	 */
	rw_engine_owe_wake(e, ec);
}

static void rw_engine_handle(struct rw_core *core, struct rw_event *ev)
{
	struct rw_engine_core *ec = container_of(core, struct rw_engine_core,
						 core);
	struct rw_engine *e = core->owner;
	struct rw_chunk *ch = &e->chunks[ev->chunk];
	/* Pairs with the release below: see the previous owner's writes. */
	struct rw_core *owner = smp_load_acquire(&ch->owner);

	if (owner != core) {
		WRITE_ONCE(ec->forwards, ec->forwards + 1);
		rw_core_post(owner, ev);
		return;
	}
	switch (ev->type) {
	case RW_EV_PUSH:
		trace_rw_arrive(e->name, ev->worker, ev->chunk);
		rw_engine_arrive(e, ec, ch, ev->chunk, ev->worker);
		break;
	case RW_EV_MIGRATE:
		rw_engine_migrate_done(e, ec, ch, ev);
		break;
	case RW_EV_RECHECK:
		clear_bit(RW_CHUNK_RECHECK, &ch->flags);
		/* Pairs with the barrier in rw_engine_view_update(). */
		smp_mb__after_atomic();
		if (rw_engine_settle(e, ec, ch, ev->chunk))
			rw_engine_owe_wake(e, ec);
		break;
	}
}

static void rw_engine_free_layout(struct rw_engine *e)
{
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
				GFP_KERNEL);
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
		for (i = 0; i < e->map.nr.nr_cores; i++)
			kfree(e->cores[i].srcv);
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

		e->cores[i].srcv = kcalloc_node(e->nr_workers,
						sizeof(*e->cores[i].srcv),
						GFP_KERNEL,
						cpu_to_node(e->map.cores[i].cpu));
		if (!e->cores[i].srcv) {
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
			vfree(e->arenas[i]);
	kfree(e->arenas);
	kvfree(e->srcs);
	kvfree(e->tags);
	kvfree(e->slots);
	kvfree(e->chunks);
}

/* Point chunk @c, its slots and their events into @mem. */
static void rw_engine_place_chunk(struct rw_engine *e, u32 c, u8 *mem)
{
	struct rw_chunk *ch = &e->chunks[c];
	u32 cs = e->layout.geom.chunk_size, i, w;
	u64 off;

	rw_layout_chunk(&e->layout.geom, c, &off, &ch->len);
	ch->owner = &e->cores[e->map.place[c].core].core;
	ch->src = &e->srcs[(size_t)c * e->nr_workers];
	ch->tags = &e->tags[(size_t)c * e->nr_workers];
	ch->recheck.chunk = c;
	ch->recheck.type = RW_EV_RECHECK;
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

/*
 * Per node, one arena holds every buffer of the chunks homed there:
 * parameters, optimizer state and one receive slot per worker, each a full
 * chunk_size (page-aligned, since chunk sizes are powers of two >= 4 KiB).
 * Then the user-mappable version array.
 */
static int rw_engine_build_memory(struct rw_engine *e)
{
	u32 cs = e->layout.geom.chunk_size, per_chunk, c, i;
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
	e->tags = kvcalloc(array_size(e->nr_chunks, e->nr_workers),
			   sizeof(*e->tags), GFP_KERNEL);
	if (!e->arenas || !used || !e->chunks || !e->slots || !e->srcs ||
	    !e->tags)
		goto err;

	for (i = 0; i < nn; i++) {
		if (check_mul_overflow((size_t)e->map.nodes[i].nr_chunks,
				       (size_t)cs * per_chunk, &bytes)) {
			ret = -E2BIG;
			goto err;
		}
		if (!bytes)
			continue;
		e->arenas[i] = vzalloc_node(bytes, e->map.nodes[i].id);
		if (!e->arenas[i])
			goto err;
	}
	for (c = 0; c < e->nr_chunks; c++) {
		u32 node = e->map.place[c].node;

		rw_engine_place_chunk(e, c, (u8 *)e->arenas[node] +
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
	ret = rw_engine_build_memory(e);
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

u32 rw_engine_chunk_len(const struct rw_engine *e, u32 chunk)
{
	return chunk < e->nr_chunks ? e->chunks[chunk].len : 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_chunk_len);

/* The run's first push: no initial parameters may be set from now on. */
static void rw_engine_start(struct rw_engine *e)
{
	mutex_lock(&e->init_lock);
	/* Pairs with the acquire in rw_engine_push_slot() and _init_begin(). */
	smp_store_release(&e->started, true);
	mutex_unlock(&e->init_lock);
	if (wq_has_sleeper(&e->wq))
		wake_up_all(&e->wq);
}

int rw_engine_init_begin(struct rw_engine *e)
{
	mutex_lock(&e->init_lock);
	if (e->started || e->initialized) {
		mutex_unlock(&e->init_lock);
		return -EBUSY;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_init_begin);

int rw_engine_init_chunk(struct rw_engine *e, u32 chunk,
			 const void __user *src)
{
	struct rw_chunk *ch;
	int ret = 0;

	lockdep_assert_held(&e->init_lock);
	if (chunk >= e->nr_chunks)
		return -EINVAL;
	ch = &e->chunks[chunk];
	/* No step runs before the first push; observers read whole chunks. */
	raw_write_seqcount_begin(&ch->seq);
	if (copy_from_user(ch->params, src, ch->len))
		ret = -EFAULT;
	raw_write_seqcount_end(&ch->seq);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_init_chunk);

void rw_engine_init_end(struct rw_engine *e, bool set)
{
	lockdep_assert_held(&e->init_lock);
	if (set)
		WRITE_ONCE(e->initialized, true);
	mutex_unlock(&e->init_lock);
	/* Even if not set: a pull may wait for a chunk's section to end. */
	if (wq_has_sleeper(&e->wq))
		wake_up_all(&e->wq);
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_init_end);

u32 rw_engine_nr_state(const struct rw_engine *e)
{
	return e->nr_state;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_nr_state);

u64 rw_engine_image_len(const struct rw_engine *e)
{
	return (1 + (u64)e->nr_state) * rw_engine_buf_len(e, RW_BUF_PARAMS) +
	       (u64)e->nr_chunks * sizeof(u64);
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_image_len);

static u64 rw_engine_fnv(u64 h, u64 v)
{
	u32 i;

	for (i = 0; i < 8; i++) {
		h ^= (v >> (8 * i)) & 0xff;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* FNV-1a 64 over the chunk size and each tensor's key, size and type. */
u64 rw_engine_layout_hash(const struct rw_engine *e)
{
	u64 h = rw_engine_fnv(0xcbf29ce484222325ULL,
			      e->layout.geom.chunk_size);
	u32 i;

	for (i = 0; i < e->layout.nr_tensors; i++) {
		h = rw_engine_fnv(h, e->tensors[i].key);
		h = rw_engine_fnv(h, e->tensors[i].nelems);
		h = rw_engine_fnv(h, e->tensors[i].dtype);
	}
	return h;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_layout_hash);

u64 rw_engine_max_version(const struct rw_engine *e)
{
	u64 v = 0;
	u32 c;

	for (c = 0; c < e->nr_chunks; c++)
		v = max(v, rw_engine_version(e, c));
	return v;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_max_version);

bool rw_engine_quiet(const struct rw_engine *e)
{
	u32 c;

	for (c = 0; c < e->nr_chunks; c++) {
		const struct rw_chunk *ch = &e->chunks[c];

		/* Pairs with the releases of done in the owner's paths. */
		if (smp_load_acquire(&ch->done) != (u64)atomic64_read(&ch->posted))
			return false;
	}
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_quiet);

/*
 * The image offset of array @a (0: params, 1..nr_state: state, then the
 * versions: nr_state + 1) for chunk @c.
 */
static u64 rw_engine_image_at(const struct rw_engine *e, u32 a, u32 c)
{
	u64 base = (u64)a * rw_engine_buf_len(e, RW_BUF_PARAMS);

	if (a > e->nr_state)
		return base + (u64)c * sizeof(u64);
	return base + ((u64)c << e->layout.geom.chunk_shift);
}

int rw_engine_image_read(struct rw_engine *e, void __user *dst)
{
	u32 cs = e->layout.geom.chunk_size, c, a;

	for (c = 0; c < e->nr_chunks; c++) {
		struct rw_chunk *ch = &e->chunks[c];
		u64 v = rw_engine_version(e, c);

		for (a = 0; a <= e->nr_state; a++)
			if (copy_to_user(dst + rw_engine_image_at(e, a, c),
					 a ? ch->state[a - 1] : ch->params, cs))
				return -EFAULT;
		if (copy_to_user(dst + rw_engine_image_at(e, e->nr_state + 1, c),
				 &v, sizeof(v)))
			return -EFAULT;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_image_read);

int rw_engine_image_write(struct rw_engine *e, const void __user *src)
{
	u32 cs = e->layout.geom.chunk_size, c, a;

	lockdep_assert_held(&e->init_lock);
	for (c = 0; c < e->nr_chunks; c++) {
		struct rw_chunk *ch = &e->chunks[c];
		u64 v, at = rw_engine_image_at(e, e->nr_state + 1, c);

		if (copy_from_user(&v, src + at, sizeof(v)))
			return -EFAULT;
		/* No step runs before the first push (rw_engine_init_chunk). */
		raw_write_seqcount_begin(&ch->seq);
		for (a = 0; a <= e->nr_state; a++) {
			float *to = a ? ch->state[a - 1] : ch->params;

			if (copy_from_user(to, src + rw_engine_image_at(e, a, c),
					   ch->len)) {
				raw_write_seqcount_end(&ch->seq);
				return -EFAULT;
			}
			memset((u8 *)to + ch->len, 0, cs - ch->len);
		}
		ch->version = v;
		WRITE_ONCE(e->versions[c], v);
		raw_write_seqcount_end(&ch->seq);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_image_write);

bool rw_engine_init_settled(const struct rw_engine *e)
{
	/* Pairs with the release in rw_engine_start(). */
	return READ_ONCE(e->initialized) || smp_load_acquire(&e->started);
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_init_settled);

/* Claim, fill (if @grad), tag and queue a worker's slot. */
static int rw_engine_push_slot(struct rw_engine *e, u32 worker, u32 chunk,
			       const void *grad, size_t len,
			       const struct rw_round_tag *tag)
{
	static const struct rw_round_tag any = { .iter = RW_ROUND_ANY };

	struct rw_chunk *ch;
	struct rw_slot *s;

	if (worker >= e->nr_workers || chunk >= e->nr_chunks)
		return -EINVAL;
	ch = &e->chunks[chunk];
	if (grad && len != ch->len)
		return -EINVAL;
	/* Pairs with the release in rw_engine_start(). */
	if (unlikely(!smp_load_acquire(&e->started)))
		rw_engine_start(e);
	s = &e->slots[(size_t)chunk * e->nr_workers + worker];
	if (test_and_set_bit_lock(RW_SLOT_INFLIGHT, &s->flags)) {
		this_cpu_inc(e->pcpu->busy);
		return -EBUSY;
	}
	if (grad)
		memcpy(s->grad, grad, len);
	/* Read by the owner once the event is out (llist_add orders it). */
	ch->tags[worker] = tag ? *tag : any;
	this_cpu_inc(e->pcpu->pushes);
	atomic64_inc(&ch->posted);
	trace_rw_push(e->name, worker, chunk, ch->tags[worker].iter);
	/* Pairs with the migrate release in rw_engine_handle(). */
	rw_core_post(smp_load_acquire(&ch->owner), &s->ev);
	return 0;
}

int rw_engine_push(struct rw_engine *e, u32 worker, u32 chunk,
		   const void *grad, size_t len)
{
	if (!grad)
		return -EINVAL;
	return rw_engine_push_slot(e, worker, chunk, grad, len, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_push);

int rw_engine_push_mapped(struct rw_engine *e, u32 worker, u32 chunk,
			  const struct rw_round_tag *tag)
{
	return rw_engine_push_slot(e, worker, chunk, NULL, 0, tag);
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
	const struct rw_chunk *ch;

	if (rw_engine_slot_busy(e, worker, chunk))
		return false;
	ch = &e->chunks[chunk];
	/*
	 * Synchronous rounds: its own gradient used (or dropped) means the
	 * round it belonged to is done, once the step that used it is
	 * published. The owner frees the slots inside the step's write
	 * section but stores the version (in-kernel and in the mapped
	 * versions buffer) after them: while the section is open, a pull
	 * that returned would let the worker read the version of the step
	 * before, and one that numbers its steps by the versions buffer
	 * would compute its next gradient on the batch it has just done.
	 * Otherwise every gradient queued before the pull must have been
	 * settled as well: applied if the rule applies it alone. Not
	 * "used": after a switch from rounds to a step per gradient, rounds
	 * below the switch still hold other ranks' gradients until their
	 * quorum is in, and that may need this very worker's next push.
	 */
	if (!READ_ONCE(e->view->rule.each)) {
		/*
		 * The slot, then the sequence: pairs with the release in
		 * rw_engine_release() (the section began before it); an even
		 * sequence then is the section's end, which orders the
		 * version before it.
		 */
		smp_rmb();
		return !(raw_read_seqcount(&ch->seq) & 1);
	}
	/* Pairs with the release of seen in rw_engine_arrive(). */
	return smp_load_acquire(&ch->seen) >= posted;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_fresh);

void rw_engine_view_update(struct rw_engine *e,
			   void (*fill)(struct rw_round_view *v, void *arg),
			   void *arg)
{
	unsigned long irqf;
	u32 c;

	spin_lock_irqsave(&e->view_lock, irqf);
	write_seqcount_begin(&e->view_seq);
	fill(e->view, arg);
	write_seqcount_end(&e->view_seq);
	spin_unlock_irqrestore(&e->view_lock, irqf);
	/* Pairs with the barrier after the owner clears the bit. */
	smp_mb();
	for (c = 0; c < e->nr_chunks; c++) {
		struct rw_chunk *ch = &e->chunks[c];

		if (test_and_set_bit_lock(RW_CHUNK_RECHECK, &ch->flags))
			continue;
		/* Pairs with the migrate release in rw_engine_handle(). */
		rw_core_post(smp_load_acquire(&ch->owner), &ch->recheck);
	}
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_view_update);

u64 rw_engine_late(const struct rw_engine *e, u32 worker)
{
	return worker < e->nr_workers ? (u64)atomic64_read(&e->late[worker]) :
	       0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_engine_late);

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

