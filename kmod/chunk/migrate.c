// SPDX-License-Identifier: GPL-2.0
/*
 * Rebalancing a running engine: the measuring windows and the migration of
 * chunks between the aggregation cores of a node. rebalance.c (pure) says
 * which chunks should move; this file measures the loads it decides from,
 * records its moves in the map and hands each chunk to its new core.
 *
 * A move is a migrate event queued to the chunk's current owner: the owner
 * hands the chunk over (release store of chunk->owner) after everything
 * queued before it, and an event that reaches a former owner is passed on
 * (engine/path.c's handler). Producers read the owner with acquire, so the
 * new owner sees the old owner's writes. Memory and NIC stay put: moves
 * stay within a node.
 *
 * Locks: e->rebal_lock serialises windows and protects the map's placement
 * against readers (engine/query.c); it is taken under a job's run_lock
 * (netlink snapshots) and takes nothing else.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "engine/engine_priv.h"
#include "migrate.h"

struct rw_migrate {
	struct rw_event ev;
	struct rw_core *to;
};

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
		kl = kvcalloc(e->nr_chunks, sizeof(u64), RW_GFP_BIG);
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

int rw_engine_rebal_init(struct rw_engine *e, u32 rebalance_ms)
{
	mutex_init(&e->rebal_lock);
	INIT_DELAYED_WORK(&e->rebal_work, rw_engine_rebal_work);
	e->rebal_period = msecs_to_jiffies(rebalance_ms);
	rw_rebal_params_default(&e->rebal_params);
	rw_rebal_state_init(&e->rebal_state);
	e->core_seen = kcalloc(e->map.nr.nr_cores, sizeof(u64), GFP_KERNEL);
	e->chunk_seen = kvcalloc(e->nr_chunks, sizeof(u64), RW_GFP_BIG);
	if (!e->core_seen || !e->chunk_seen) {
		rw_engine_rebal_fini(e);
		return -ENOMEM;
	}
	return 0;
}

/* Windows every rebalance_ms from now on, once the cores run. */
void rw_engine_rebal_start(struct rw_engine *e)
{
	if (e->rebal_period)
		schedule_delayed_work(&e->rebal_work, e->rebal_period);
}

/* No window runs after this returns (the work re-arms itself). */
void rw_engine_rebal_stop(struct rw_engine *e)
{
	cancel_delayed_work_sync(&e->rebal_work);
}

void rw_engine_rebal_fini(struct rw_engine *e)
{
	kvfree(e->chunk_seen);
	kfree(e->core_seen);
	e->chunk_seen = NULL;
	e->core_seen = NULL;
}

void rw_engine_migrate_done(struct rw_engine *e, struct rw_engine_core *ec,
			    struct rw_chunk *ch, struct rw_event *ev)
{
	struct rw_migrate *m = container_of(ev, struct rw_migrate, ev);

	/* Publish the chunk state to the new owner (acquire in the handler). */
	smp_store_release(&ch->owner, m->to);
	WRITE_ONCE(ec->migrations, ec->migrations + 1);
	atomic_dec(&e->moves_pending);
	kfree(m);
}

void rw_engine_migrate_drop(struct rw_event *ev)
{
	if (ev->type == RW_EV_MIGRATE)
		kfree(container_of(ev, struct rw_migrate, ev));
}
