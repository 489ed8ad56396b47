// SPDX-License-Identifier: GPL-2.0
/*
 * A worker's initial parameters and checkpoints (worker_ckpt.h):
 * RW_IOC_PARAMS_INIT (the run's first parameters from user memory, a
 * checkpoint's image restored, or a wait for either) and RW_IOC_CHECKPOINT
 * (the run's head and image, taken with the gate held and the iterations
 * in flight finished). Observers, a box-side checkpointer, may do both.
 * A file attached to another host's box asks that box (rdma/host.h),
 * whose agent comes back here (rw_worker_init_fill(), _restore_fill(),
 * _save_fill()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "engine/engine.h"
#include "job.h"
#include "worker_ckpt.h"
#include "worker_priv.h"
#include "chunk/layout.h"
#include "rdma/host.h"
#include "sync/sync.h"

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

/* rw_worker_state_of() of a live worker (not evicted, its job there). */
static int rw_worker_live_state(struct rw_worker *w, struct rw_engine **e,
				struct rw_sync **s)
{
	int ret = rw_worker_live(w, READ_ONCE(w->job));

	return ret ?: rw_worker_state_of(w, e, s);
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
	h->params_len = (u64)h->nr_chunks * rw_engine_image_chunk(e);
	h->image_len = rw_engine_image_len(e);
	h->step = rw_engine_max_version(e);
}

/*
 * Hold the gate, let the iterations in flight finish (their gradients
 * all used), copy, let go. Polls: the last push of an iteration and the
 * step it completes wake different queues.
 */
/*
 * One nap of a checkpoint's wait: 0 to look again, or why to stop (past
 * @end when @timeout_ms is set, a signal, @cancel, may be NULL).
 */
static int rw_worker_nap(unsigned long end, u32 timeout_ms,
			 const struct rw_cancel *cancel)
{
	if (timeout_ms && time_after(jiffies, end))
		return -ETIMEDOUT;
	if (msleep_interruptible(2))
		return -ERESTARTSYS;
	return cancel ? rw_cancelled(cancel) : 0;
}

static int rw_worker_quiesce(struct rw_engine *e, struct rw_sync *s,
			     u32 timeout_ms, const struct rw_cancel *cancel)
{
	unsigned long end = jiffies + msecs_to_jiffies(timeout_ms);
	int ret = 0;

	while (!ret && (rw_sync_running(s) || !rw_engine_quiet(e)))
		ret = rw_worker_nap(end, timeout_ms, cancel);
	return ret;
}

/*
 * A worker's own boundary (rw_sync_hold_own(), BSP): its last gradients
 * applied on every chunk, each step's section over. The others' next
 * gradients wait for this worker's, so nothing moves after that.
 */
static int rw_worker_quiesce_own(struct rw_worker *w, struct rw_engine *e,
				 u32 timeout_ms, const struct rw_cancel *cancel)
{
	unsigned long end = jiffies + msecs_to_jiffies(timeout_ms);
	u32 c = 0;
	int ret = 0;

	while (!ret && c < w->nr_chunks) {
		if (rw_engine_fresh(e, w->rank, c, 0))
			c++;
		else
			ret = rw_worker_nap(end, timeout_ms, cancel);
	}
	return ret;
}

int rw_worker_head(struct rw_worker *w, struct rw_ckpt_head *h)
{
	struct rw_engine *e;
	struct rw_sync *s;
	int ret;

	ret = rw_worker_live_state(w, &e, &s);
	if (!ret)
		rw_worker_ckpt_head(w, e, h);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_head);

/*
 * A checkpoint of @e, @s: @withdraw(job) first if given, the gate held,
 * the worker's rules checked, the iterations in flight finished (unless
 * @cancel, may be NULL, says the caller has gone); then the
 * head into *@h and the image taken by @copy(@arg, @e), and the gate let
 * go.
 */
static int rw_worker_save(struct rw_worker *w, struct rw_engine *e,
			  struct rw_sync *s, u32 timeout_ms,
			  const struct rw_cancel *cancel,
			  void (*withdraw)(struct rw_job *job),
			  struct rw_ckpt_head *h,
			  int (*copy)(void *arg, struct rw_engine *e), void *arg)
{
	struct rw_job *job = w->job;
	u64 at = 0, clock;
	bool own = false;
	int ret;

	/*
	 * The box's agents' admissions ahead taken back, and none given
	 * again until the gate is held (rw_worker_pull_admit()).
	 */
	if (withdraw) {
		atomic_inc(&job->withdrawing);
		withdraw(job);
	}
	/* It would wait for itself. */
	ret = !w->observer && READ_ONCE(w->admitted) ? -EBUSY : 0;
	/* A worker's own boundary where the policy allows (BSP). */
	if (!ret && !w->observer) {
		ret = rw_sync_hold_own(s, w->rank, w->epoch);
		own = !ret;
		if (ret == -EOPNOTSUPP)
			ret = 0;
	}
	if (!ret && !own)
		at = rw_sync_hold(s);
	if (withdraw)
		atomic_dec(&job->withdrawing);
	if (ret)
		return ret;
	if (own)
		ret = rw_worker_quiesce_own(w, e, timeout_ms, cancel);
	/* A worker whose gradients the iteration in progress needs. */
	else if (!w->observer &&
		 (rw_sync_worker_clock(s, w->rank, w->epoch, &clock) ||
		  clock < at))
		ret = -EBUSY;
	else
		ret = rw_worker_quiesce(e, s, timeout_ms, cancel);
	if (!ret) {
		rw_worker_ckpt_head(w, e, h);
		ret = copy(arg, e);
	}
	rw_sync_unhold(s);
	return ret;
}

/* A local save's copy: the whole image to the caller's address *@arg. */
static int rw_worker_copy_out(void *arg, struct rw_engine *e)
{
	return rw_engine_image_read(e, u64_to_user_ptr(*(u64 *)arg));
}

int rw_worker_checkpoint(struct rw_worker *w, u32 flags, u32 timeout_ms,
			 u64 head, u64 data, u64 len)
{
	struct rw_remote *r = rw_worker_remote(w);
	struct rw_ckpt_head h;
	struct rw_engine *e;
	struct rw_sync *s;
	int ret;

	if (flags & ~RW_CKPT_FLAGS_ALL || !head)
		return -EINVAL;
	if (r)
		return rw_remote_checkpoint(r, flags, timeout_ms, head, data,
					    len);
	ret = rw_worker_live_state(w, &e, &s);
	if (ret)
		return ret;
	if (flags & RW_CKPT_HEAD_ONLY) {
		rw_worker_ckpt_head(w, e, &h);
		return copy_to_user(u64_to_user_ptr(head), &h, sizeof(h)) ?
		       -EFAULT : 0;
	}
	if (len != rw_engine_image_len(e))
		return -EINVAL;
	ret = rw_worker_save(w, e, s, timeout_ms, NULL, NULL, &h,
			     rw_worker_copy_out, &data);
	if (!ret && copy_to_user(u64_to_user_ptr(head), &h, sizeof(h)))
		ret = -EFAULT;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_checkpoint);

/* Whether @got is a head of this run (anything but the step): 0 or -EINVAL. */
static int rw_worker_head_match(struct rw_worker *w, struct rw_engine *e,
				const struct rw_ckpt_head *got, u64 len)
{
	struct rw_ckpt_head want, h = *got;

	rw_worker_ckpt_head(w, e, &want);
	if (len != sizeof(h) + want.image_len)
		return -EINVAL;
	h.step = want.step;
	return memcmp(&h, &want, sizeof(h)) ? -EINVAL : 0;
}

/* RW_INIT_CHECKPOINT: a head that matches this run, then its image. */
static int rw_worker_restore(struct rw_worker *w, u64 data, u64 len)
{
	struct rw_ckpt_head got;
	struct rw_engine *e;
	struct rw_sync *s;
	int ret;

	ret = rw_worker_state_of(w, &e, &s);
	if (ret)
		return ret;
	if (len < sizeof(got))
		return -EINVAL;
	if (copy_from_user(&got, u64_to_user_ptr(data), sizeof(got)))
		return -EFAULT;
	ret = rw_worker_head_match(w, e, &got, len);
	if (ret)
		return ret;
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

	if (flags & ~RW_INIT_FLAGS_ALL)
		return -EINVAL;
	if (nr > RW_XFER_MAX_RANGES)
		return -E2BIG;
	if (rw_worker_remote(w))
		return rw_remote_params_init(rw_worker_remote(w), r, nr, flags,
					     data, len, timeout_ms);
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

bool rw_worker_init_done(struct rw_worker *w)
{
	return rw_worker_init_settled(w);
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_init_done);

bool rw_worker_params_set(struct rw_worker *w)
{
	return rw_engine_params_set(w->engine);
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_params_set);

int rw_worker_init_fill(struct rw_worker *w, const unsigned long *sel,
			int (*fill)(void *arg), void *arg)
{
	u32 c;
	int ret;

	ret = rw_worker_ready(w, true);
	if (ret)
		return ret;
	/* w->lock: no push of this worker's meanwhile (lock order: job.h). */
	ret = mutex_lock_interruptible(&w->lock);
	if (ret)
		return ret;
	ret = rw_engine_init_begin(w->engine);
	if (!ret) {
		for_each_set_bit(c, sel, w->nr_chunks)
			rw_engine_init_open(w->engine, c);
		ret = fill(arg);
		for_each_set_bit(c, sel, w->nr_chunks)
			rw_engine_init_close(w->engine, c, !ret);
		rw_engine_init_end(w->engine, !ret);
	}
	mutex_unlock(&w->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_init_fill);

int rw_worker_restore_fill(struct rw_worker *w, const struct rw_ckpt_head *got,
			   u64 len, int (*fill)(void *arg), void *arg)
{
	struct rw_engine *e;
	struct rw_sync *s;
	int ret;

	ret = rw_worker_live_state(w, &e, &s);
	if (!ret)
		ret = rw_worker_head_match(w, e, got, len);
	if (ret)
		return ret;
	ret = rw_engine_init_begin(e);
	if (ret)
		return ret;
	ret = fill(arg);
	/* Half a checkpoint is none: back to a run with nothing set. */
	if (ret)
		rw_engine_image_clear(e);
	rw_engine_init_end(e, !ret);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_restore_fill);

/* A save's copy for the box's agent: its fill, with the engine at hand. */
struct rw_worker_fill {
	int (*fill)(void *arg);
	void *arg;
};

static int rw_worker_copy_fill(void *arg, struct rw_engine *e)
{
	struct rw_worker_fill *f = arg;

	return f->fill(f->arg);
}

int rw_worker_save_fill(struct rw_worker *w, u32 timeout_ms,
			const struct rw_cancel *cancel,
			void (*withdraw)(struct rw_job *job),
			struct rw_ckpt_head *h, int (*fill)(void *arg),
			void *arg)
{
	struct rw_worker_fill f = { .fill = fill, .arg = arg };
	struct rw_engine *e;
	struct rw_sync *s;
	int ret;

	ret = rw_worker_live_state(w, &e, &s);
	if (!ret)
		ret = rw_worker_save(w, e, s, timeout_ms, cancel, withdraw, h,
				     rw_worker_copy_fill, &f);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_save_fill);

int rw_worker_image_get(struct rw_worker *w, u64 off, u64 len, void *dst)
{
	return rw_engine_image_get(w->engine, off, len, dst);
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_image_get);

u64 rw_worker_image_len(struct rw_worker *w)
{
	struct rw_engine *e;
	struct rw_sync *s;

	return rw_worker_state_of(w, &e, &s) ? 0 : rw_engine_image_len(e);
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_image_len);

int rw_worker_image_put(struct rw_worker *w, u64 off, u64 len,
			const void *src)
{
	return rw_engine_image_put(w->engine, off, len, src);
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_image_put);
