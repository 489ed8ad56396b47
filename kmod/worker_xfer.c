// SPDX-License-Identifier: GPL-2.0
/*
 * A worker's transfers (worker_xfer.h): push, pull and poll of an open
 * file, and the same per chunk for the RDMA agent of a remote worker on
 * the box (rdma/data.c), whose data is in place already.
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
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "engine/engine.h"
#include "engine/query.h"
#include "job.h"
#include "worker_priv.h"
#include "worker_xfer.h"
#include "chunk/layout.h"
#include "rdma/host.h"
#include "sync/sync.h"

static struct rw_worker_counters *rw_worker_wc(struct rw_worker *w)
{
	return &w->job->wc[w->rank];
}

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
	w->ahead = false;
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

int rw_worker_wait(struct rw_worker *w, bool (*cond)(struct rw_worker *w),
		   long tmo)
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
	if (w->npushed < w->nr_owned)
		return 0;
	/* Every chunk is in: the iteration is complete. */
	bitmap_zero(w->pushed, w->nr_chunks);
	w->npushed = 0;
	w->admitted = false;
	w->ahead = false;
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

int rw_worker_push_chunk(struct rw_worker *w, u32 chunk, long tmo)
{
	int ret;

	mutex_lock(&w->lock);
	ret = rw_worker_ready(w, true);
	if (ret)
		goto out;
	/* Another box's chunk (a job over several boxes) is refused too. */
	ret = -EINVAL;
	if (!rw_engine_owns(w->engine, chunk))
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
	bool was;
	int ret;

	/*
	 * A checkpoint is taking such admissions back before it holds the
	 * gate: none now (the caller comes round again), or it would wait
	 * for this one.
	 */
	if (atomic_read(&w->job->withdrawing)) {
		usleep_range(1000, 2000);
		return -ETIMEDOUT;
	}
	mutex_lock(&w->lock);
	was = w->admitted;
	ret = rw_worker_ready(w, true);
	if (!ret)
		ret = rw_worker_admit(w, false, tmo);
	/*
	 * A remote worker's pull of the iteration: counted once per rank,
	 * by whichever of its connections admits it, as a local pull call.
	 */
	if (!ret && !was) {
		atomic64_inc(&rw_worker_wc(w)->pulls);
		w->ahead = true;
	}
	mutex_unlock(&w->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_pull_admit);

int rw_worker_withdraw(struct rw_worker *w)
{
	int ret = 0;

	mutex_lock(&w->lock);
	if (w->admitted && w->ahead && !w->npushed) {
		ret = rw_sync_withdraw(w->sync, w->rank, w->epoch);
		if (!ret) {
			w->admitted = false;
			w->ahead = false;
		}
	}
	mutex_unlock(&w->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_withdraw);

bool rw_worker_chunk_fresh(struct rw_worker *w, u32 chunk)
{
	return rw_engine_fresh(w->engine, w->rank, chunk,
			       w->snap ? READ_ONCE(w->snap[chunk]) : 0);
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_chunk_fresh);

int rw_worker_next_iter(struct rw_worker *w, u64 *next)
{
	int ret;

	mutex_lock(&w->lock);
	ret = rw_worker_ready(w, true);
	if (!ret && w->admitted && w->npushed)
		ret = -EBUSY;
	/* Its clock counts the iterations it pushed in full. */
	if (!ret)
		ret = rw_sync_worker_clock(w->sync, w->rank, w->epoch, next);
	if (ret == -ESTALE)
		ret = rw_worker_stale(w);
	mutex_unlock(&w->lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_worker_next_iter);

bool rw_worker_admitted(struct rw_worker *w)
{
	return READ_ONCE(w->admitted);
}

const unsigned long *rw_worker_owned(struct rw_worker *w)
{
	return rw_engine_owned(w->engine);
}

const struct rw_boxset *rw_worker_boxes(struct rw_worker *w)
{
	return rw_engine_boxes(w->engine);
}

bool rw_worker_chunk_order(struct rw_worker *w, u32 *order, u32 *rank)
{
	return rw_layout_order(rw_engine_layout(w->engine), order, rank);
}

u32 rw_worker_chunk_len(struct rw_worker *w, u32 chunk)
{
	return rw_engine_chunk_len(w->engine, chunk);
}

u64 rw_worker_chunk_version(struct rw_worker *w, u32 chunk)
{
	return rw_engine_version(w->engine, chunk);
}

int rw_worker_chunk_nodes(struct rw_worker *w, int *nodes, u32 n)
{
	return rw_engine_chunk_nodes(w->engine, nodes, n);
}

void rw_worker_watch(struct rw_worker *w, struct wait_queue_entry *wqe)
{
	add_wait_queue(rw_engine_waitq(w->engine), wqe);
}

void rw_worker_unwatch(struct rw_worker *w, struct wait_queue_entry *wqe)
{
	remove_wait_queue(rw_engine_waitq(w->engine), wqe);
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
