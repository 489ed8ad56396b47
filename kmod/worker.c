// SPDX-License-Identifier: GPL-2.0
/*
 * Workers: what an open /dev/rackweave becomes once attached to a job. A
 * worker owns one rank of the job; it declares the model layout (the first
 * declaration starts the job's run: chunk engine and staleness gate), maps
 * the engine's own buffers, and moves chunks with push and pull
 * (worker_xfer.c). An observer (a box-side checkpointer) only maps the
 * parameters. A file attached to a job on another host's box holds a
 * struct rw_remote instead of a job, and each call goes there
 * (rdma/host.h).
 *
 * This file: a worker's life (new, attach, free), its declaration and
 * setup, and what mmap asks of it; the checks every call makes
 * (worker_priv.h). Initial parameters and checkpoints are worker_ckpt.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "mem.h"
#include "engine/engine.h"
#include "engine/query.h"
#include "genl.h"
#include "job.h"
#include "job_carry.h"
#include "job_move.h"
#include "worker.h"
#include "worker_priv.h"
#include "chunk/boxset.h"
#include "chunk/layout.h"
#include "rdma/host.h"
#include "rdma/rdma.h"
#include "sync/sync.h"
#include "trace.h"

struct rw_worker *rw_worker_new(void)
{
	struct rw_worker *w = kzalloc(sizeof(*w), GFP_KERNEL);

	if (w) {
		mutex_init(&w->setup);
		mutex_init(&w->lock);
	}
	return w;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_new);

struct rw_worker *rw_worker_new_peer(void)
{
	struct rw_worker *w = rw_worker_new();

	if (w)
		w->peer = true;
	return w;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_new_peer);

/* The gate reports evictions (silent workers) under its lock. */
static void rw_worker_evict_notify(void *arg, u32 p)
{
	struct rw_job *job = arg;

	rw_genl_event(RW_EVENT_EVICTED, job->cfg.name, p, NULL, GFP_ATOMIC);
}

/* The engine's view of the members and rules, from the gate. */
static void rw_worker_fill_view(struct rw_round_view *v, void *arg)
{
	const struct rw_gate *g = arg;
	struct rw_round_rule rule = {
		.quorum = g->cfg.policy == RW_GATE_BSP ? g->cfg.quorum : 0,
		.each = g->cfg.policy != RW_GATE_BSP,
	};
	u32 p;

	for (p = 0; p < g->cfg.nr_workers && p < v->nr_ranks; p++) {
		v->gen[p] = g->w[p].live ? g->w[p].epoch + 1 : 0;
		v->join[p] = g->w[p].live ? g->w[p].joined : 0;
	}
	rw_round_recount(v);
	/* Iterations someone may be in keep the old rule. */
	if (memcmp(&rule, &v->rule, sizeof(rule)))
		rw_round_view_rule(v, &rule, g->max_clock + 1);
}

/* The gate's members or rules changed (its lock held): tell the engine. */
static void rw_worker_members(void *arg, const struct rw_gate *g)
{
	rw_engine_view_update(arg, rw_worker_fill_view, (void *)g);
}

int rw_worker_attach_remote(struct rw_worker *w, const char *name,
			    const u8 *token, u32 rank, u32 flags,
			    const struct sockaddr_storage *box, u32 nr)
{
	bool observer = flags & RW_ATTACH_OBSERVER;
	struct rw_remote *r;
	int ret = 0;

	if (flags & ~(RW_ATTACH_OBSERVER | RW_ATTACH_BOXES) ||
	    (observer && (rank || (nr > 1 && !(flags & RW_ATTACH_BOXES)))))
		return -EINVAL;
	if (rw_worker_attached(w))
		return -EISCONN;
	/*
	 * Connect without @setup held: rdma_cm takes its handler locks
	 * under ours, and the box's accept (maybe in this very module) takes
	 * a worker's @setup under them.
	 */
	r = rw_remote_attach(name, token, rank, box, nr, flags);
	if (IS_ERR(r))
		return PTR_ERR(r);
	mutex_lock(&w->setup);
	if (w->job || w->remote) {
		ret = -EISCONN;
	} else {
		w->observer = observer;
		/* Pairs with the acquire in rw_worker_remote(). */
		smp_store_release(&w->remote, r);
	}
	mutex_unlock(&w->setup);
	if (ret)
		rw_remote_free(r);
	return ret;
}

int rw_worker_attach(struct rw_worker *w, const char *name, const u8 *token,
		     u32 rank, u32 flags)
{
	bool observer = flags & RW_ATTACH_OBSERVER;
	struct rw_job *job;
	int ret;

	if (flags & ~RW_ATTACH_OBSERVER || (observer && rank))
		return -EINVAL;
	mutex_lock(&w->setup);
	ret = -EISCONN;
	if (w->job || w->remote)
		goto out;
	ret = -ENOENT;
	job = rw_job_get(name);
	if (!job)
		goto out;
	ret = rw_job_token_check(job, token);
	if (ret) {
		rw_job_put(job);
		goto out;
	}
	ret = rw_job_take_rank(job, rank, w, observer);
	if (ret) {
		rw_job_put(job);
		goto out;
	}
	w->job = job;
	w->rank = rank;
	w->observer = observer;
	rw_genl_event(RW_EVENT_ATTACHED, job->cfg.name, observer ? -1 : rank,
		      NULL, GFP_KERNEL);
	if (!observer)
		trace_rw_attach(job->cfg.name, rank);
out:
	mutex_unlock(&w->setup);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_attach);

int rw_worker_live(struct rw_worker *w, struct rw_job *job)
{
	if (!job)
		return -ENOTCONN;
	if (READ_ONCE(job->deleted))
		return -ENODEV;
	if (READ_ONCE(w->evicted))
		return -ESTALE;
	return 0;
}

int rw_worker_ready(struct rw_worker *w, bool need_layout)
{
	/* Pairs with the release in rw_worker_declare(). */
	bool declared = smp_load_acquire(&w->declared);
	int ret = rw_worker_live(w, READ_ONCE(w->job));

	if (ret)
		return ret;
	if (w->observer)
		return -EPERM;
	if (need_layout && !declared)
		return -ENOTCONN;
	return 0;
}

static bool rw_layout_same(const struct rw_layout *l,
			   const struct rw_tensor_desc *t, u32 n)
{
	u32 i;

	if (l->nr_tensors != n)
		return false;
	for (i = 0; i < n; i++)
		if (l->tensors[i].key != t[i].key ||
		    l->tensors[i].nelems != t[i].nelems ||
		    l->tensors[i].dtype != t[i].dtype ||
		    l->tensors[i].priority != t[i].priority)
			return false;
	return true;
}

/* The first declaration: the job's run starts (run_lock held). */
static int rw_worker_start_run(struct rw_job *job,
			       const struct rw_tensor_desc *t, u32 n,
			       const struct rw_cancel *cancel)
{
	const struct rw_job_config *c = &job->cfg;
	struct rw_engine_config ec = {
		.name = c->name,
		.nr_tensors = n,
		.chunk_size = c->chunk_size,
		.nr_workers = c->workers,
		.rebalance_ms = 1000,
		.apply_each = c->sync != RW_SYNC_BSP,
		.quorum = c->sync == RW_SYNC_BSP ? c->quorum : 0,
		.cancel = cancel,
		/* Stable: a set changes between runs, under run_lock. */
		.boxes = job->boxes,
	};
	struct rw_gate_config gc;
	struct rw_layout_tensor *lt;
	struct rw_engine *e;
	struct rw_sync *s;
	u64 bytes;
	u32 i;
	int ret;

	lockdep_assert_held(&job->run_lock);
	rw_job_gate_config(c, &gc);
	lt = kvmalloc_array(n, sizeof(*lt), GFP_KERNEL);
	if (!lt)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		lt[i] = (struct rw_layout_tensor){
			.key = t[i].key, .nelems = t[i].nelems,
			.dtype = t[i].dtype, .priority = t[i].priority,
		};
	ec.tensors = lt;
	rw_job_hparams(c, &ec.hp);
	/* The whole run is charged before anything of it is allocated. */
	ret = rw_engine_footprint(&ec, &bytes);
	if (!ret)
		ret = rw_mem_charge(c->name, c->max_memory, &job->mem_held,
				    bytes);
	if (ret) {
		kvfree(lt);
		return ret;
	}
	e = rw_engine_create(&ec);
	kvfree(lt);
	if (IS_ERR(e)) {
		rw_mem_uncharge(&job->mem_held, bytes);
		return PTR_ERR(e);
	}
	/* A run after a move starts where the last one ended. */
	ret = rw_job_carry_apply(job, e);
	s = ret ? ERR_PTR(ret) : rw_sync_create(&gc);
	if (IS_ERR(s)) {
		rw_engine_destroy(e);
		rw_mem_uncharge(&job->mem_held, bytes);
		return PTR_ERR(s);
	}
	job->run_charge = bytes;
	rw_sync_set_notify(s, rw_worker_evict_notify, job);
	rw_sync_set_name(s, c->name);
	rw_sync_set_members(s, rw_worker_members, e);
	job->engine = e;
	job->sync = s;
	/* Departures are counted per run, as the new gate counts evictions. */
	for (i = 0; i < c->workers; i++)
		atomic64_set(&job->wc[i].leaves, 0);
	WRITE_ONCE(job->run_tensors, n);
	WRITE_ONCE(job->run_chunks, rw_engine_nr_chunks(e));
	WRITE_ONCE(job->run_bytes, rw_engine_layout(e)->geom.total_bytes);
	return 0;
}

int rw_worker_declare(struct rw_worker *w, const struct rw_tensor_desc *t,
		      u32 n, u32 flags, const struct rw_cancel *cancel)
{
	bool started = false;
	struct rw_job *job;
	u32 i, nc;
	int ret;

	if (flags & ~RW_DECLARE_FLAGS_ALL || !n)
		return -EINVAL;
	if (n > RW_MAX_TENSORS)
		return -E2BIG;
	for (i = 0; i < n; i++) {
		if (t[i].priority > RW_PRIORITY_MAX || !t[i].nelems ||
		    t[i].dtype > RW_DTYPE_BF16)
			return -EINVAL;
	}
	/* A remote attachment serialises its own calls (see attach). */
	if (rw_worker_remote(w))
		return rw_remote_declare(w->remote, t, n, flags);
	mutex_lock(&w->setup);
	ret = rw_worker_ready(w, false);
	if (ret)
		goto out;
	job = w->job;
	if (w->declared) {
		ret = rw_layout_same(rw_engine_layout(w->engine), t, n) ?
		      0 : -EEXIST;
		goto out;
	}
	mutex_lock(&job->run_lock);
	/*
	 * A job over several boxes: a trainer needs every box's chunks, so
	 * it attaches with rw_attach_remote() naming them all, even on a
	 * box (docs/design.md "Many boxes").
	 */
	ret = -EXDEV;
	if (job->boxes && !w->peer) {
		pr_info_ratelimited("job %s is spread over %u boxes: a trainer attaches to all of them (rw_attach_remote), not to this box's file\n",
				    job->cfg.name, job->boxes->nr);
		goto unlock;
	}
	/* A box that left the job's set by a move serves it no more. */
	if (job->boxes && !job->boxes->self) {
		pr_info_ratelimited("job %s: this box left its set at epoch %u: attach to the set's boxes\n",
				    job->cfg.name, job->boxes->epoch);
		goto unlock;
	}
	/*
	 * A run that ends at a move's boundary takes no one new: the next
	 * run, on the new set, starts once it has ended (the caller asks
	 * again).
	 */
	ret = -EAGAIN;
	if (job->engine && job->move_stop) {
		pr_info_ratelimited("job %s: its run ends at its move's boundary: a new run starts once it has\n",
				    job->cfg.name);
		goto unlock;
	}
	if (!job->engine) {
		ret = -ENOENT;
		if (!(flags & RW_DECLARE_VERIFY))
			ret = rw_worker_start_run(job, t, n, cancel);
		started = !ret;
	} else {
		ret = rw_layout_same(rw_engine_layout(job->engine), t, n) ?
		      0 : -EEXIST;
	}
	if (ret)
		goto unlock;
	nc = rw_engine_nr_chunks(job->engine);
	ret = -ENOMEM;
	w->pushed = bitmap_zalloc(nc, RW_GFP_BIG);
	w->sel = bitmap_zalloc(nc, RW_GFP_BIG);
	w->prev = bitmap_zalloc(nc, RW_GFP_BIG);
	/* The rule may change during the run: always keep the snapshot. */
	w->snap = kvcalloc(nc, sizeof(*w->snap), RW_GFP_BIG);
	if (!w->pushed || !w->sel || !w->prev || !w->snap)
		goto unlock;
	ret = rw_sync_enter(job->sync, w->rank, &w->epoch);
	if (ret)
		goto unlock;
	w->engine = job->engine;
	w->sync = job->sync;
	w->nr_chunks = nc;
	w->nr_owned = rw_engine_nr_owned(job->engine);
	/* Publish the above to transfers (rw_worker_ready). */
	smp_store_release(&w->declared, true);
unlock:
	if (ret) {
		bitmap_free(w->pushed);
		bitmap_free(w->sel);
		bitmap_free(w->prev);
		kvfree(w->snap);
		w->pushed = NULL;
		w->sel = NULL;
		w->prev = NULL;
		w->snap = NULL;
	}
	mutex_unlock(&job->run_lock);
	if (started && !ret)
		rw_genl_event(RW_EVENT_DECLARED, job->cfg.name, w->rank, NULL,
			      GFP_KERNEL);
out:
	mutex_unlock(&w->setup);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_declare);

int rw_worker_verify(struct rw_worker *w, const struct rw_tensor_desc *t,
		     u32 n)
{
	struct rw_engine *e;
	int ret;

	if (!w->observer || !n)
		return -EINVAL;
	mutex_lock(&w->setup);
	ret = rw_worker_mapped_engine(w, &e);
	if (!ret && !rw_layout_same(rw_engine_layout(e), t, n))
		ret = -EEXIST;
	mutex_unlock(&w->setup);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_verify);

int rw_worker_mapped_engine(struct rw_worker *w, struct rw_engine **e)
{
	int ret;

	lockdep_assert_held(&w->setup);
	ret = rw_worker_live(w, w->job);
	if (ret)
		return ret;
	if (!w->engine && w->observer) {
		mutex_lock(&w->job->run_lock);
		w->engine = w->job->engine;
		mutex_unlock(&w->job->run_lock);
	}
	*e = w->engine;
	return *e && (w->observer || w->declared) ? 0 : -ENOTCONN;
}

int rw_worker_setup(struct rw_worker *w, struct rw_setup *out)
{
	const struct rw_layout *l;
	struct rw_engine *e;
	int ret;

	if (rw_worker_remote(w))
		return rw_remote_setup(w->remote, out);
	mutex_lock(&w->setup);
	ret = rw_worker_mapped_engine(w, &e);
	if (ret)
		goto out;
	l = rw_engine_layout(e);
	out->rank = w->rank;
	out->nr_workers = w->job->cfg.workers;
	out->chunk_size = l->geom.chunk_size;
	out->nr_chunks = l->geom.nr_chunks;
	out->nr_tensors = l->nr_tensors;
	out->sync = w->job->cfg.sync;
	out->model_bytes = l->geom.total_bytes;
	out->grad_offset = RW_MMAP_GRAD;
	out->grad_len = w->observer ? 0 : rw_engine_buf_len(e, RW_BUF_GRAD);
	out->params_offset = RW_MMAP_PARAMS;
	out->params_len = rw_engine_buf_len(e, RW_BUF_PARAMS);
	out->versions_offset = RW_MMAP_VERSIONS;
	out->versions_len = rw_engine_buf_len(e, RW_BUF_VERSIONS);
	out->features = RW_FEATURES;
	out->node = rw_engine_home_node(e);
	out->epoch = w->epoch;
out:
	mutex_unlock(&w->setup);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_setup);

/* Which buffer a file offset falls in: the offsets are fixed (uapi). */
enum rw_engine_buf rw_worker_buf_at(u64 off, u64 *base)
{
	if (off < RW_MMAP_PARAMS) {
		*base = RW_MMAP_GRAD;
		return RW_BUF_GRAD;
	}
	if (off < RW_MMAP_VERSIONS) {
		*base = RW_MMAP_PARAMS;
		return RW_BUF_PARAMS;
	}
	*base = RW_MMAP_VERSIONS;
	return RW_BUF_VERSIONS;
}

int rw_worker_map(struct rw_worker *w, u64 off, u64 len, bool writable,
		  bool shared, enum rw_engine_buf *buf, u64 *base,
		  struct rw_job **job)
{
	struct rw_engine *e;
	u64 blen;
	int ret = 0;

	if (rw_worker_remote(w)) {
		*buf = rw_worker_buf_at(off, base);
		*job = NULL;
		return rw_remote_map(w->remote, *buf, off - *base, len,
				     writable, shared);
	}
	mutex_lock(&w->setup);
	ret = rw_worker_mapped_engine(w, &e);
	if (ret)
		goto out;
	*buf = rw_worker_buf_at(off, base);
	blen = rw_engine_buf_len(e, *buf);
	ret = -EINVAL;
	if (off - *base >= blen || len > blen - (off - *base))
		goto out;
	if (*buf == RW_BUF_GRAD) {
		ret = -EACCES;
		if (w->observer)
			goto out;
		ret = -EINVAL;
		if (!shared)
			goto out;
	} else {
		ret = -EACCES;
		if (writable)
			goto out;
	}
	ret = 0;
	kref_get(&w->job->ref);
	atomic_inc(&w->job->mappings);
	*job = w->job;
out:
	mutex_unlock(&w->setup);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_map);

struct rw_job *rw_worker_job(struct rw_worker *w)
{
	return READ_ONCE(w->job);
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_job);

bool rw_worker_attached(struct rw_worker *w)
{
	return READ_ONCE(w->job) || rw_worker_remote(w);
}

/* Fault path: the engine is stable while the mapping holds the file. */
struct page *rw_worker_page(struct rw_worker *w, enum rw_engine_buf buf,
			    u64 off)
{
	if (w->remote)
		return rw_remote_page(w->remote, buf, off);
	return w->engine ? rw_engine_page(w->engine, buf, w->rank, off) : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_page);

u64 rw_worker_buf_len(struct rw_worker *w, enum rw_engine_buf buf)
{
	return rw_engine_buf_len(w->engine, buf);
}

void rw_worker_free(struct rw_worker *w)
{
	struct rw_job *job = w->job;

	if (job) {
		/*
		 * Nobody waits for a worker that has gone: leave the gate,
		 * then give the rank back, both under run_lock so a worker
		 * taking the rank next joins the gate after this one left.
		 * The gate counts the leave as an eviction; statistics
		 * report it as a departure.
		 */
		mutex_lock(&job->run_lock);
		if (w->declared && !w->evicted && !READ_ONCE(job->deleted) &&
		    rw_sync_worker_live(w->sync, w->rank) &&
		    !rw_sync_evict(w->sync, w->rank))
			atomic64_inc(&job->wc[w->rank].leaves);
		rw_job_drop_rank(job, w->rank, w, w->observer);
		mutex_unlock(&job->run_lock);
		rw_genl_event(RW_EVENT_DETACHED, job->cfg.name,
			      w->observer ? -1 : w->rank, NULL, GFP_KERNEL);
		if (!w->observer)
			trace_rw_detach(job->cfg.name, w->rank);
		/* The chunks other boxes own now go to them. */
		if (rw_job_release_user(job))
			rw_give_start(job);
		rw_job_put(job);
	}
	if (w->remote)
		rw_remote_free(w->remote);
	kvfree(w->snap);
	bitmap_free(w->prev);
	bitmap_free(w->sel);
	bitmap_free(w->pushed);
	kfree(w);
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_free);
