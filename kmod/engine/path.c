// SPDX-License-Identifier: GPL-2.0
/*
 * The chunk engine's fast path: the push that claims a worker's receive
 * slot and queues its gradient to the chunk's owner; the owner's handling
 * of it (hold, settle, step, publish) on its core's thread; a change of
 * members or rules that makes every chunk look again; and what pullers
 * read and wait on (freshness, versions, parameters). Building and teardown
 * live in build.c, initial parameters and the checkpoint image in image.c,
 * rebalancing in chunk/migrate.c, read-only snapshots in query.c, and the
 * structures they share in engine_priv.h.
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

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "engine/engine.h"
#include "engine/engine_priv.h"
#include "agg/agg.h"
#include "trace.h"

/*
 * Sum @nsrc gradients and apply the optimizer, each scaled by 1/@scale_n:
 * the owner's thread only. Returns the time it took, in ns.
 */
static u64 rw_engine_step(struct rw_engine *e, struct rw_engine_core *ec,
			  u32 chunk, const void *const *src, u32 nsrc,
			  u32 scale_n)
{
	struct rw_chunk *ch = &e->chunks[chunk];
	struct rw_agg_chunk c = {
		.src = src,
		.nsrc = nsrc,
		.n = ch->len / sizeof(float),
		.dtype = RW_AGG_F32,
		.out = ch->master,
		.state = { ch->state[0], ch->state[1] },
	};
	u64 t = ch->version + 1, t0 = ktime_get_ns(), ns;
	int ret = 0;

	if (ec->st_t != t || ec->st_n != scale_n) {
		ret = rw_agg_step_prepare(&ec->st, &e->hp, scale_n, t);
		ec->st_t = ret ? 0 : t;
		ec->st_n = scale_n;
	}
	/* A model with a 16-bit tensor steps tensor by tensor (half.c). */
	if (!ret)
		ret = e->half ? rw_engine_step_half(e, ec, chunk, src, nsrc) :
			rw_agg_update_chunk(&c, &ec->st);
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
		ns = rw_engine_step(e, ec, chunk, &ch->src[o->rank], 1,
				    e->hp.optim == RW_AGG_AVERAGE ? 1 :
				    e->nr_workers);
		rw_engine_release(e, chunk, o->rank);
		n = 1;
	} else {
		for (w = 0; w < e->nr_workers; w++)
			if (rw_round_test(o->sum, w))
				ec->srcv[n++] = ch->src[w];
		ns = rw_engine_step(e, ec, chunk, ec->srcv, n, n);
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

void rw_engine_idle(struct rw_core *core)
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

void rw_engine_handle(struct rw_core *core, struct rw_event *ev)
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

/* Claim, fill (if @grad), tag and queue a worker's slot. */
static int rw_engine_push_slot(struct rw_engine *e, u32 worker, u32 chunk,
			       const void *grad, size_t len,
			       const struct rw_round_tag *tag)
{
	static const struct rw_round_tag any = { .iter = RW_ROUND_ANY };

	struct rw_chunk *ch;
	struct rw_slot *s;

	if (worker >= e->nr_workers || !rw_engine_has(e, chunk))
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

		if (!rw_engine_has(e, c) ||
		    test_and_set_bit_lock(RW_CHUNK_RECHECK, &ch->flags))
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

	if (!rw_engine_has(e, chunk) || len != e->chunks[chunk].len)
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
