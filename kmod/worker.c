// SPDX-License-Identifier: GPL-2.0
/*
 * Workers: what an open /dev/rackweave becomes once attached to a job. A
 * worker owns one rank of the job; it declares the model layout (the first
 * declaration starts the job's run: chunk engine and staleness gate), maps
 * the engine's own buffers, and moves chunks with push and pull. An
 * observer (a box-side checkpointer) only maps the parameters.
 *
 * One iteration of a worker, as the gate counts it: the gate admits it
 * (on its first push or pull after the previous iteration), it pushes
 * every chunk exactly once, and the last push tells the gate it is done.
 * The gradient buffer is the engine's receive slot itself, so a push
 * queues the chunk's event and copies nothing; the slot stays the
 * engine's until the chunk's step has read it.
 *
 * Freshness for a pull, per chunk: the worker's own last gradient has been
 * applied (its slot is free again), and, where the engine steps on each
 * gradient (every policy but BSP), so have all gradients queued before
 * the pull began. Under BSP the first condition already means every
 * worker's gradient of the iteration is in.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "engine.h"
#include "engine_query.h"
#include "genl.h"
#include "job.h"
#include "worker.h"
#include "chunk/layout.h"
#include "rdma/host.h"
#include "sync/sync.h"
#include "trace.h"

/*
 * Two locks, so a transfer sleeping in the kernel never holds up setup or
 * mmap on the same file: @setup serialises attach, declare, setup and
 * mmap, and writes @job, @declared and what declare sets up (published by
 * the release store of @declared); @lock serialises transfers and guards
 * the iteration state below it. Where they sit in the module's lock
 * order: job.h.
 */
struct rw_worker {
	struct mutex setup;		/* attach, declare, setup, mmap */
	struct rw_job *job;		/* set once at attach (a reference) */
	struct rw_remote *remote;	/* or this, for a job on another host */
	u32 rank;
	bool observer;
	bool declared;			/* engine, sync and bitmaps are set */
	bool evicted;			/* the gate dropped this worker */

	struct mutex lock;		/* transfers and the fields below */
	bool admitted;			/* inside an iteration */
	bool pending;			/* a pull returned EAGAIN (poll) */
	bool pp_pushed;			/* a PUSHPULL pushed, its pull did not end */
	u32 epoch;
	u64 iter;			/* the iteration admitted to */
	struct rw_engine *engine;	/* the job's, while this file lives */
	struct rw_sync *sync;
	u32 nr_chunks;
	u32 npushed;			/* chunks pushed this iteration */
	u32 cursor;			/* first chunk of sel not yet fresh */
	unsigned long *pushed;		/* [nr_chunks] */
	unsigned long *sel;		/* [nr_chunks]: the current call's */
	unsigned long *prev;		/* [nr_chunks]: the previous call's */
	u64 *snap;			/* gradients posted at pull start */
};

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

static struct rw_worker_counters *rw_worker_wc(struct rw_worker *w)
{
	return &w->job->wc[w->rank];
}

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

/* The remote attachment of @w, if it has one (set once, at attach). */
static struct rw_remote *rw_worker_remote(struct rw_worker *w)
{
	/* Pairs with the release in rw_worker_attach(). */
	return smp_load_acquire(&w->remote);
}

int rw_worker_attach_remote(struct rw_worker *w, const char *name,
			    const u8 *token, u32 rank,
			    const struct sockaddr_storage *box, u32 nr)
{
	struct rw_remote *r;
	int ret = 0;

	if (rw_worker_attached(w))
		return -EISCONN;
	/*
	 * Connect without @setup held: rdma_cm takes its handler locks
	 * under ours, and the box's accept (maybe in this very module) takes
	 * a worker's @setup under them.
	 */
	r = rw_remote_attach(name, token, rank, box, nr);
	if (IS_ERR(r))
		return PTR_ERR(r);
	mutex_lock(&w->setup);
	if (w->job || w->remote)
		ret = -EISCONN;
	else	/* Pairs with the acquire in rw_worker_remote(). */
		smp_store_release(&w->remote, r);
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

/* Attached, its job not deleted, not evicted: 0 or the errno saying which. */
static int rw_worker_live(struct rw_worker *w, struct rw_job *job)
{
	if (!job)
		return -ENOTCONN;
	if (READ_ONCE(job->deleted))
		return -ENODEV;
	if (READ_ONCE(w->evicted))
		return -ESTALE;
	return 0;
}

/*
 * Whether the calls of an attached worker may go on. Transfers call it
 * without @setup: a declared worker's job and engine never change.
 */
static int rw_worker_ready(struct rw_worker *w, bool need_layout)
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
		    l->tensors[i].dtype != t[i].dtype)
			return false;
	return true;
}

/* The first declaration: the job's run starts (run_lock held). */
static int rw_worker_start_run(struct rw_job *job,
			       const struct rw_tensor_desc *t, u32 n)
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
	};
	struct rw_gate_config gc;
	struct rw_layout_tensor *lt;
	struct rw_engine *e;
	struct rw_sync *s;
	u32 i;

	lockdep_assert_held(&job->run_lock);
	rw_job_gate_config(c, &gc);
	lt = kvmalloc_array(n, sizeof(*lt), GFP_KERNEL);
	if (!lt)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		lt[i] = (struct rw_layout_tensor){
			.key = t[i].key, .nelems = t[i].nelems,
			.dtype = t[i].dtype,
		};
	ec.tensors = lt;
	rw_job_hparams(c, &ec.hp);
	e = rw_engine_create(&ec);
	kvfree(lt);
	if (IS_ERR(e))
		return PTR_ERR(e);
	s = rw_sync_create(&gc);
	if (IS_ERR(s)) {
		rw_engine_destroy(e);
		return PTR_ERR(s);
	}
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
		      u32 n, u32 flags)
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
		if (t[i].reserved || !t[i].nelems || t[i].dtype > RW_DTYPE_BF16)
			return -EINVAL;
		if (t[i].dtype != RW_DTYPE_F32)
			return -EOPNOTSUPP;
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
	if (!job->engine) {
		ret = -ENOENT;
		if (!(flags & RW_DECLARE_VERIFY))
			ret = rw_worker_start_run(job, t, n);
		started = !ret;
	} else {
		ret = rw_layout_same(rw_engine_layout(job->engine), t, n) ?
		      0 : -EEXIST;
	}
	if (ret)
		goto unlock;
	nc = rw_engine_nr_chunks(job->engine);
	ret = -ENOMEM;
	w->pushed = bitmap_zalloc(nc, GFP_KERNEL);
	w->sel = bitmap_zalloc(nc, GFP_KERNEL);
	w->prev = bitmap_zalloc(nc, GFP_KERNEL);
	/* The rule may change during the run: always keep the snapshot. */
	w->snap = kvcalloc(nc, sizeof(*w->snap), GFP_KERNEL);
	if (!w->pushed || !w->sel || !w->prev || !w->snap)
		goto unlock;
	ret = rw_sync_enter(job->sync, w->rank, &w->epoch);
	if (ret)
		goto unlock;
	w->engine = job->engine;
	w->sync = job->sync;
	w->nr_chunks = nc;
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

/*
 * The engine whose buffers setup and mmap describe (@setup held): a
 * worker's once it has declared, an observer's once some worker has
 * started a run.
 */
static int rw_worker_mapped_engine(struct rw_worker *w, struct rw_engine **e)
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

/*
 * The gate dropped this worker. It keeps its rank until the file is
 * released: its mappings still reach the rank's gradient slots, so no
 * other worker may take the rank (and push from those slots) before then.
 */
static int rw_worker_stale(struct rw_worker *w)
{
	lockdep_assert_held(&w->lock);
	if (READ_ONCE(w->job->deleted))
		return -ENODEV;
	WRITE_ONCE(w->evicted, true);
	w->admitted = false;
	return -ESTALE;
}

static int rw_worker_admit(struct rw_worker *w, bool nonblock, long tmo)
{
	int ret;

	lockdep_assert_held(&w->lock);
	if (w->admitted)
		return 0;
	ret = rw_sync_wait(w->sync, w->rank, w->epoch, nonblock ? 0 : tmo);
	if (!ret)
		ret = rw_sync_worker_clock(w->sync, w->rank, w->epoch, &w->iter);
	if (!ret) {
		w->admitted = true;
		return 0;
	}
	if (ret == -ESTALE)
		return rw_worker_stale(w);
	if (ret == -ETIMEDOUT && nonblock)
		return -EAGAIN;
	return ret;
}

/* Sleep on the engine until @cond holds (or the job is deleted). */
static int rw_worker_wait(struct rw_worker *w,
			  bool (*cond)(struct rw_worker *w), long tmo)
{
	long ret;

	ret = wait_event_interruptible_timeout(*rw_engine_waitq(w->engine),
					       cond(w) ||
					       READ_ONCE(w->job->deleted),
					       tmo);
	if (ret < 0)
		return ret;
	if (!ret)
		return -ETIMEDOUT;
	return READ_ONCE(w->job->deleted) ? -ENODEV : 0;
}

/* None of this worker's gradients in @set (NULL: every chunk) in flight. */
static bool rw_worker_idle(struct rw_worker *w, const unsigned long *set)
{
	u32 c;

	for (c = set ? find_first_bit(set, w->nr_chunks) : 0; c < w->nr_chunks;
	     c = set ? find_next_bit(set, w->nr_chunks, c + 1) : c + 1)
		if (rw_engine_slot_busy(w->engine, w->rank, c))
			return false;
	return true;
}

static bool rw_worker_slots_free(struct rw_worker *w)
{
	return rw_worker_idle(w, w->sel);
}

static int rw_worker_push(struct rw_worker *w, bool nonblock, long tmo)
{
	struct rw_round_tag tag;
	struct rw_worker_counters *wc = rw_worker_wc(w);
	u64 bytes = 0, n = 0;
	int ret;
	u32 c;

	lockdep_assert_held(&w->lock);
	if (bitmap_intersects(w->pushed, w->sel, w->nr_chunks))
		return -EALREADY;
	ret = rw_worker_admit(w, nonblock, tmo);
	if (ret)
		return ret;
	if (!rw_worker_slots_free(w)) {
		if (nonblock)
			return -EAGAIN;
		ret = rw_worker_wait(w, rw_worker_slots_free, tmo);
		if (ret)
			return ret;
	}
	/* Which round the gradients are for, and whose (sync/round.h). */
	tag = (struct rw_round_tag){ .iter = w->iter, .gen = w->epoch + 1 };
	for_each_set_bit(c, w->sel, w->nr_chunks) {
		/* Only this worker claims its slots, and they are free. */
		ret = rw_engine_push_mapped(w->engine, w->rank, c, &tag);
		if (WARN_ON_ONCE(ret))
			return ret;
		bytes += rw_engine_chunk_len(w->engine, c);
		n++;
	}
	bitmap_or(w->pushed, w->pushed, w->sel, w->nr_chunks);
	w->npushed += n;
	atomic64_inc(&wc->pushes);
	atomic64_add(n, &wc->chunks);
	atomic64_add(bytes, &wc->bytes);
	if (w->npushed < w->nr_chunks)
		return 0;
	/* Every chunk is in: the iteration is complete. */
	bitmap_zero(w->pushed, w->nr_chunks);
	w->npushed = 0;
	w->admitted = false;
	ret = rw_sync_push(w->sync, w->rank, w->epoch);
	return ret == -ESTALE ? rw_worker_stale(w) : ret;
}

static bool rw_worker_fresh(struct rw_worker *w)
{
	u32 c;

	lockdep_assert_held(&w->lock);
	/* Freshness never goes back during a pull: resume where we were. */
	for (c = find_next_bit(w->sel, w->nr_chunks, w->cursor);
	     c < w->nr_chunks; c = find_next_bit(w->sel, w->nr_chunks, c + 1)) {
		if (!rw_engine_fresh(w->engine, w->rank, c,
				     w->snap ? w->snap[c] : 0)) {
			w->cursor = c;
			return false;
		}
	}
	w->cursor = w->nr_chunks;
	return true;
}

/*
 * @again: the same pull as the last one, which did not finish (EAGAIN, a
 * timeout or a signal): keep its snapshot, so retries after poll() wait
 * for what the first attempt waited for instead of a moving target.
 */
static int rw_worker_pull(struct rw_worker *w, bool nonblock, long tmo,
			  bool again)
{
	int ret;
	u32 c;

	lockdep_assert_held(&w->lock);
	if (w->snap && !again)
		for_each_set_bit(c, w->sel, w->nr_chunks)
			w->snap[c] = rw_engine_posted(w->engine, c);
	w->cursor = 0;
	ret = rw_worker_admit(w, nonblock, tmo);
	if (!ret && !rw_worker_fresh(w)) {
		if (nonblock)
			ret = -EAGAIN;
		else
			ret = rw_worker_wait(w, rw_worker_fresh, tmo);
	}
	if (ret == -EAGAIN || ret == -ETIMEDOUT || ret == -ERESTARTSYS)
		w->pending = true;
	if (!ret)
		atomic64_inc(&rw_worker_wc(w)->pulls);
	return ret;
}

int rw_worker_xfer(struct rw_worker *w, u32 op, const struct rw_range *r,
		   u32 nr, u32 flags, u32 timeout_ms)
{
	long tmo = timeout_ms ? (long)msecs_to_jiffies(timeout_ms) :
			MAX_SCHEDULE_TIMEOUT;
	bool nonblock = flags & RW_XFER_NONBLOCK;
	struct rw_remote *rm = rw_worker_remote(w);
	bool same;
	int ret;

	if (rm)
		return rw_remote_xfer(rm, op, r, nr, flags, timeout_ms);
	if (flags & ~RW_XFER_FLAGS_ALL || !op || op & ~RW_XFER_BOTH)
		return -EINVAL;
	if (nr > RW_XFER_MAX_RANGES)
		return -E2BIG;
	if (mutex_lock_interruptible(&w->lock))
		return -ERESTARTSYS;
	ret = rw_worker_ready(w, true);
	if (ret)
		goto out;
	swap(w->sel, w->prev);
	ret = rw_xfer_select(rw_engine_layout(w->engine), r, nr,
			     flags & RW_XFER_KEYS, w->sel);
	same = !ret && w->pending &&
	       bitmap_equal(w->sel, w->prev, w->nr_chunks);
	w->pending = false;
	/*
	 * A PUSHPULL whose pull did not finish has pushed: issued again with
	 * the same chunks (a restart after a signal, a retry after EAGAIN),
	 * it only pulls.
	 */
	if (!ret && op & RW_XFER_PUSH && !(op == RW_XFER_BOTH && same &&
					   w->pp_pushed))
		ret = rw_worker_push(w, nonblock, tmo);
	w->pp_pushed = false;
	if (!ret && op & RW_XFER_PULL) {
		ret = rw_worker_pull(w, nonblock, tmo, same);
		w->pp_pushed = ret && op == RW_XFER_BOTH && w->pending;
	}
	if (ret && ret != -EAGAIN && ret != -ERESTARTSYS && ret != -ENODEV)
		atomic64_inc(&rw_worker_wc(w)->errors);
out:
	mutex_unlock(&w->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_xfer);

static bool rw_worker_init_settled(struct rw_worker *w)
{
	return rw_engine_init_settled(w->engine);
}

/* RW_INIT_WAIT: until initial parameters are set or the run began. */
static int rw_worker_init_wait(struct rw_worker *w, u32 timeout_ms)
{
	return rw_worker_wait(w, rw_worker_init_settled,
			      timeout_ms ? (long)msecs_to_jiffies(timeout_ms) :
			      MAX_SCHEDULE_TIMEOUT);
}

/*
 * The engine and gate a checkpoint or a restore works on: a worker's once
 * it has declared, an observer's once a run exists. Both stay while the
 * file lives (it holds the run).
 */
static int rw_worker_state_of(struct rw_worker *w, struct rw_engine **e,
			      struct rw_sync **s)
{
	int ret;

	mutex_lock(&w->setup);
	ret = rw_worker_mapped_engine(w, e);
	if (!ret) {
		mutex_lock(&w->job->run_lock);
		*s = w->job->sync;
		mutex_unlock(&w->job->run_lock);
		if (!*s)
			ret = -ENOTCONN;
	}
	mutex_unlock(&w->setup);
	return ret;
}

/* What a checkpoint of @e, a run of @w's job, says about itself. */
static void rw_worker_ckpt_head(struct rw_worker *w, struct rw_engine *e,
				struct rw_ckpt_head *h)
{
	const struct rw_job_config *c = &w->job->cfg;
	const struct rw_layout *l = rw_engine_layout(e);

	memset(h, 0, sizeof(*h));
	h->magic = RW_CKPT_MAGIC;
	h->head_len = sizeof(*h);
	h->layout_hash = rw_engine_layout_hash(e);
	h->nr_tensors = l->nr_tensors;
	h->nr_chunks = l->geom.nr_chunks;
	h->chunk_size = l->geom.chunk_size;
	h->nr_state = rw_engine_nr_state(e);
	/* The optimizer changes between runs only: stable during this one. */
	h->optim = c->optim;
	h->hparams[0] = c->lr;
	h->hparams[1] = c->momentum;
	h->hparams[2] = c->weight_decay;
	h->hparams[3] = c->beta1;
	h->hparams[4] = c->beta2;
	h->hparams[5] = c->eps;
	h->params_len = rw_engine_buf_len(e, RW_BUF_PARAMS);
	h->image_len = rw_engine_image_len(e);
	h->step = rw_engine_max_version(e);
}

/*
 * Hold the gate, let the iterations in flight finish (their gradients
 * all used), copy, let go. Polls: the last push of an iteration and the
 * step it completes wake different queues.
 */
static int rw_worker_quiesce(struct rw_engine *e, struct rw_sync *s,
			     u32 timeout_ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(timeout_ms);

	while (rw_sync_running(s) || !rw_engine_quiet(e)) {
		if (timeout_ms && time_after(jiffies, end))
			return -ETIMEDOUT;
		if (msleep_interruptible(2))
			return -ERESTARTSYS;
	}
	return 0;
}

int rw_worker_checkpoint(struct rw_worker *w, u32 flags, u32 timeout_ms,
			 u64 head, u64 data, u64 len)
{
	struct rw_ckpt_head h;
	struct rw_engine *e;
	struct rw_sync *s;
	u64 at, clock;
	int ret;

	if (rw_worker_remote(w))
		return -EOPNOTSUPP;
	if (flags & ~RW_CKPT_FLAGS_ALL || !head)
		return -EINVAL;
	ret = rw_worker_live(w, READ_ONCE(w->job));
	if (ret)
		return ret;
	ret = rw_worker_state_of(w, &e, &s);
	if (ret)
		return ret;
	if (flags & RW_CKPT_HEAD_ONLY) {
		rw_worker_ckpt_head(w, e, &h);
		return copy_to_user(u64_to_user_ptr(head), &h, sizeof(h)) ?
		       -EFAULT : 0;
	}
	if (len != rw_engine_image_len(e))
		return -EINVAL;
	/* It would wait for itself. */
	if (!w->observer && READ_ONCE(w->admitted))
		return -EBUSY;
	at = rw_sync_hold(s);
	/* A worker whose gradients the iteration in progress needs. */
	if (!w->observer &&
	    (rw_sync_worker_clock(s, w->rank, w->epoch, &clock) || clock < at))
		ret = -EBUSY;
	else
		ret = rw_worker_quiesce(e, s, timeout_ms);
	if (!ret) {
		rw_worker_ckpt_head(w, e, &h);
		ret = rw_engine_image_read(e, u64_to_user_ptr(data));
	}
	rw_sync_unhold(s);
	if (!ret && copy_to_user(u64_to_user_ptr(head), &h, sizeof(h)))
		ret = -EFAULT;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_checkpoint);

/* RW_INIT_CHECKPOINT: a head that matches this run, then its image. */
static int rw_worker_restore(struct rw_worker *w, u64 data, u64 len)
{
	struct rw_ckpt_head want, got;
	struct rw_engine *e;
	struct rw_sync *s;
	int ret;

	ret = rw_worker_state_of(w, &e, &s);
	if (ret)
		return ret;
	rw_worker_ckpt_head(w, e, &want);
	if (len != sizeof(got) + want.image_len)
		return -EINVAL;
	if (copy_from_user(&got, u64_to_user_ptr(data), sizeof(got)))
		return -EFAULT;
	/* Everything but the step must be this run's. */
	got.step = want.step;
	if (memcmp(&got, &want, sizeof(got)))
		return -EINVAL;
	ret = rw_engine_init_begin(e);
	if (ret)
		return ret;
	ret = rw_engine_image_write(e, u64_to_user_ptr(data + sizeof(got)));
	rw_engine_init_end(e, !ret);
	return ret;
}

int rw_worker_params_init(struct rw_worker *w, const struct rw_range *r,
			  u32 nr, u32 flags, u64 data, u64 len, u32 timeout_ms)
{
	unsigned long *sel = NULL;
	u32 c, shift;
	int ret;

	if (rw_worker_remote(w))
		return -EOPNOTSUPP;
	if (flags & ~RW_INIT_FLAGS_ALL)
		return -EINVAL;
	if (nr > RW_XFER_MAX_RANGES)
		return -E2BIG;
	if (flags & RW_INIT_CHECKPOINT) {
		/* A checkpointer (an observer) may restore as well. */
		if (flags != RW_INIT_CHECKPOINT || nr)
			return -EINVAL;
		ret = rw_worker_live(w, READ_ONCE(w->job));
		return ret ? ret : rw_worker_restore(w, data, len);
	}
	ret = rw_worker_ready(w, true);
	if (ret)
		return ret;
	if (flags & RW_INIT_WAIT)
		return nr || data || len ? -EINVAL :
		       rw_worker_init_wait(w, timeout_ms);
	if (len != rw_engine_buf_len(w->engine, RW_BUF_PARAMS))
		return -EINVAL;
	sel = bitmap_zalloc(w->nr_chunks, GFP_KERNEL);
	if (!sel)
		return -ENOMEM;
	ret = rw_xfer_select(rw_engine_layout(w->engine), r, nr,
			     flags & RW_INIT_KEYS, sel);
	if (ret)
		goto out;
	/* w->lock: the same file does not push meanwhile (lock order: job.h). */
	ret = mutex_lock_interruptible(&w->lock);
	if (ret)
		goto out;
	shift = rw_engine_layout(w->engine)->geom.chunk_shift;
	ret = rw_engine_init_begin(w->engine);
	if (!ret) {
		for_each_set_bit(c, sel, w->nr_chunks) {
			ret = rw_engine_init_chunk(w->engine, c,
						   u64_to_user_ptr(data +
								   ((u64)c << shift)));
			if (ret)
				break;
		}
		rw_engine_init_end(w->engine, !ret);
	}
	mutex_unlock(&w->lock);
out:
	bitmap_free(sel);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_params_init);

int rw_worker_push_chunk(struct rw_worker *w, u32 chunk, long tmo)
{
	int ret;

	mutex_lock(&w->lock);
	ret = rw_worker_ready(w, true);
	if (ret)
		goto out;
	ret = -EINVAL;
	if (chunk >= w->nr_chunks)
		goto out;
	/* The gradient is in the slot already: the slot had to be free. */
	ret = -EBUSY;
	if (rw_engine_slot_busy(w->engine, w->rank, chunk))
		goto out;
	bitmap_zero(w->sel, w->nr_chunks);
	__set_bit(chunk, w->sel);
	ret = rw_worker_push(w, false, tmo);
	if (!ret && w->snap)
		w->snap[chunk] = rw_engine_posted(w->engine, chunk);
out:
	/*
	 * -EALREADY is no error here: the next iteration's push of a chunk
	 * answered already, queued before a push of this one, which the
	 * caller retries once the iteration is complete.
	 */
	if (ret && ret != -ENODEV && ret != -EALREADY)
		atomic64_inc(&rw_worker_wc(w)->errors);
	mutex_unlock(&w->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_push_chunk);

int rw_worker_pull_admit(struct rw_worker *w, long tmo)
{
	int ret;

	mutex_lock(&w->lock);
	ret = rw_worker_ready(w, true);
	if (!ret)
		ret = rw_worker_admit(w, false, tmo);
	mutex_unlock(&w->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_pull_admit);

bool rw_worker_chunk_fresh(struct rw_worker *w, u32 chunk)
{
	return rw_engine_fresh(w->engine, w->rank, chunk,
			       w->snap ? READ_ONCE(w->snap[chunk]) : 0);
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_chunk_fresh);

bool rw_worker_admitted(struct rw_worker *w)
{
	return READ_ONCE(w->admitted);
}

struct rw_engine *rw_worker_engine(struct rw_worker *w)
{
	/* Pairs with the release in rw_worker_declare(). */
	return smp_load_acquire(&w->declared) ? w->engine : NULL;
}

/*
 * Lock-free on purpose (poll must not sleep on a file whose owner may be
 * blocked in a pull): what it reads only moves forward, so a race costs
 * at most one more wake-up.
 */
__poll_t rw_worker_poll(struct rw_worker *w, struct file *file,
			poll_table *pt)
{
	struct rw_remote *r = rw_worker_remote(w);
	__poll_t mask = 0, gate;
	bool in = true;

	if (r)
		return rw_remote_poll(r, file, pt);
	/* Pairs with the release in rw_worker_declare(). */
	if (!smp_load_acquire(&w->declared))
		return EPOLLERR;
	/*
	 * Register on both queues every time: epoll registers only once,
	 * and whichever wakes next (a step, a gate release, an eviction)
	 * must reach us.
	 */
	poll_wait(file, rw_engine_waitq(w->engine), pt);
	gate = rw_sync_poll(w->sync, w->rank, file, pt);
	if (READ_ONCE(w->evicted) || READ_ONCE(w->job->deleted) ||
	    !rw_sync_worker_live(w->sync, w->rank))
		return EPOLLERR;
	if (!READ_ONCE(w->admitted))
		in = gate & EPOLLIN;
	if (in && READ_ONCE(w->pending)) {
		/* Busy: a transfer is running; say ready, the retry tells. */
		if (mutex_trylock(&w->lock)) {
			in = rw_worker_fresh(w);
			mutex_unlock(&w->lock);
		}
	}
	if (in)
		mask |= EPOLLIN | EPOLLRDNORM;
	/* Writable: none of this worker's gradients is still being summed. */
	if (rw_worker_idle(w, NULL))
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

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

bool rw_worker_attached(struct rw_worker *w)
{
	return READ_ONCE(w->job) || rw_worker_remote(w);
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_job);

/* Fault path: the engine is stable while the mapping holds the file. */
struct page *rw_worker_page(struct rw_worker *w, enum rw_engine_buf buf,
			    u64 off)
{
	if (w->remote)
		return rw_remote_page(w->remote, buf, off);
	return w->engine ? rw_engine_page(w->engine, buf, w->rank, off) : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_page);

void rw_worker_job_gone(struct rw_job *job, const u32 *ranks)
{
	u32 i;

	lockdep_assert_held(&job->run_lock);
	if (job->sync)
		for (i = 0; i < RW_JOB_MAX_WORKERS && ranks[i] != U32_MAX; i++)
			rw_sync_evict(job->sync, ranks[i]);
	if (job->engine)
		wake_up_all(rw_engine_waitq(job->engine));
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
		rw_job_release_user(job);
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
