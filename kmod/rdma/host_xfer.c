// SPDX-License-Identifier: GPL-2.0
/*
 * The worker host's end of the wire, its transfers (rdma/host.h): push,
 * pull, poll and mmap of a declared attachment.
 *
 * Push writes each chosen chunk from the gradient buffer into this rank's
 * slot on the box, WITH IMMEDIATE naming the chunk, on the one link that
 * carries the chunk (its push and its parameters both: the one the box
 * gives it by its chunk map, which is the link its first parameters
 * arrive on); the chunk is in flight until the box writes its parameters
 * back, and is not pushed again before (the box would refuse it). A push
 * queues its chunks and posts what its links take (room, a credit, the
 * push_window): the rest go from a work item as completions free room,
 * highest priority first (uapi "priority"), so a first layer's gradient
 * pushed late by a backward pass overtakes the last layers' still queued.
 * The call returns once its chunks are queued: like a local push, their
 * gradients must stay as they are until their parameters come back. Pull
 * waits until every chosen chunk has its parameters and none is in
 * flight. Each parameter write bumps the chunk's version, so the versions
 * buffer moves as a local job's does, and wakes pullers and poll().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/bottom_half.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include "rw.h"
#include "chunk/layout.h"
#include "rdma/host.h"
#include "rdma/host_priv.h"
#include "rdma/link.h"
#include "rdma/wire.h"
#include "worker_xfer.h"
#include "trace.h"

/* ---- which link carries a chunk ---- */

/* The link that carries chunk @c, once its first parameters came. */
static struct rw_remote_link *rw_remote_link_of(struct rw_remote *r, u32 c)
{
	return &r->links[READ_ONCE(r->link_of[c])];
}

/*
 * Whether @lk may carry chunk @c's parameters: the first write of a chunk
 * makes its link the chunk's (the box writes each chunk's first on the
 * connection it gives the chunk); every later write must come there. (With
 * one link, every chunk is link 0's from the start.)
 */
static bool rw_remote_link_takes(struct rw_remote *r,
				 struct rw_remote_link *lk, u32 c)
{
	u8 was = READ_ONCE(r->link_of[c]);

	if (was == RW_REMOTE_NO_LINK)
		was = cmpxchg(&r->link_of[c], (u8)RW_REMOTE_NO_LINK,
			      (u8)lk->nic);
	return was == RW_REMOTE_NO_LINK || was == lk->nic;
}

/* ---- completions ---- */

/* The box took a push (its answer comes as a parameter write). */
void rw_remote_push_done(struct rw_link *ep, struct ib_wc *wc)
{
	struct rw_remote_link *lk = rw_remote_link_ep(ep);

	atomic_dec(&lk->unacked);
	atomic_inc(&ep->sq_room);
	rw_beat_heard(&ep->beat);
	/* Room for a queued push: the send queue goes on (not from here). */
	if (atomic_read(&lk->r->nqueued) > 0)
		queue_work(system_wq, &lk->r->send_work);
	wake_up_all(&lk->r->wq);
}

/* The box wrote a chunk's parameters. */
void rw_remote_data_done(struct rw_link *ep, struct ib_wc *wc)
{
	struct rw_remote_link *lk = rw_remote_link_ep(ep);
	struct rw_remote *r = lk->r;
	struct rw_wire_imm imm;
	u64 v;

	/* Pairs with the release in rw_remote_ctl_done(). */
	if (!smp_load_acquire(&lk->got_reply) ||
	    wc->opcode != IB_WC_RECV_RDMA_WITH_IMM ||
	    rw_wire_imm_parse(be32_to_cpu(wc->ex.imm_data), lk->nr_chunks,
			      &imm)) {
		rw_remote_break(r, lk, "a bad write from the box");
		return;
	}
	/* An answer to a request, or a notice of the move (host_ctl.c). */
	if (imm.type == RW_IMM_ANSWER || imm.type == RW_IMM_NOTICE) {
		if (imm.type == RW_IMM_ANSWER ?
		    !rw_remote_answer_in(lk, wc->byte_len, imm.clock) :
		    !rw_remote_notice_in(lk, wc->byte_len, imm.clock))
			rw_remote_break(r, lk, imm.type == RW_IMM_ANSWER ?
					"an answer nobody asked for" :
					"a bad notice from the box");
		else if (rw_remote_post_data_recv(lk))
			rw_remote_break(r, lk, "cannot post a receive");
		return;
	}
	if ((imm.type != RW_IMM_PARAMS && imm.type != RW_IMM_RESEND) ||
	    !rw_remote_link_takes(r, lk, imm.chunk)) {
		rw_remote_break(r, lk, "a bad write from the box");
		return;
	}
	/* The immediate carries the version's low bits: advance to them. */
	v = READ_ONCE(r->versions[imm.chunk]);
	v += (imm.clock - v) & RW_IMM_CLOCK_MASK;
	WRITE_ONCE(r->versions[imm.chunk], v);
	trace_rw_host_params(r->job, r->rank, imm.chunk, v);
	atomic64_inc(&lk->writes);
	rw_beat_heard(&ep->beat);
	set_bit(imm.chunk, r->have);
	/* A puller that sees the chunk idle sees it had parameters too. */
	smp_mb__before_atomic();
	/* Parameters set anew answer no push: a chunk in flight stays so. */
	if (imm.type == RW_IMM_PARAMS)
		clear_bit(imm.chunk, r->busy);
	else
		set_bit(imm.chunk, r->resent);
	if (rw_remote_post_data_recv(lk)) {
		rw_remote_break(r, lk, "cannot post a receive");
		return;
	}
	wake_up_all(&r->wq);
}

/* ---- transfers ---- */

static bool rw_remote_sel_idle(struct rw_remote *r, void *arg)
{
	return !bitmap_intersects(r->busy, r->sel, r->nr_chunks);
}

static bool rw_remote_sel_fresh(struct rw_remote *r, void *arg)
{
	return rw_remote_sel_idle(r, arg) &&
	       bitmap_subset(r->sel, r->have, r->nr_chunks);
}

static int rw_remote_push(struct rw_remote *r, bool nonblock, long tmo);
static int rw_remote_wait(struct rw_remote *r,
			  bool (*cond)(struct rw_remote *r, void *arg),
			  void *arg, bool nonblock, long tmo);

/* The send queue is empty: every push asked is posted. */
static bool rw_remote_sent(struct rw_remote *r, void *arg)
{
	return !atomic_read(&r->nqueued);
}

/* Push the chunks of @chunks again (a move's switch; @r->xfer held). */
static int rw_remote_push_again(struct rw_remote *r,
				const unsigned long *chunks)
{
	u32 npushed = r->npushed, n = r->max_chunks;
	u64 iters = r->iters;
	u8 clock = r->clock;
	unsigned long *sel;
	int ret;

	lockdep_assert_held(&r->xfer);
	sel = bitmap_alloc(n, GFP_KERNEL);
	if (!sel)
		return -ENOMEM;
	bitmap_copy(sel, r->sel, n);
	bitmap_copy(r->sel, chunks, n);
	ret = rw_remote_push(r, false, msecs_to_jiffies(RW_REMOTE_CONNECT_MS));
	/* Every one posted (nothing else is queued after a switch). */
	if (!ret)
		ret = rw_remote_wait(r, rw_remote_sent, NULL, false,
				     msecs_to_jiffies(RW_REMOTE_CONNECT_MS));
	bitmap_copy(r->sel, sel, n);
	bitmap_free(sel);
	/* Pushed before, in the iteration's count: not again. */
	mutex_lock(&r->rdma);
	r->npushed = npushed;
	r->clock = clock;
	r->iters = iters;
	mutex_unlock(&r->rdma);
	return ret;
}

/* A move's switch, and what it has this host push again. */
static int rw_remote_switch_now(struct rw_remote *r)
{
	unsigned long *redo;
	int ret;

	ret = rw_remote_switch(r, &redo);
	if (!ret && redo)
		ret = rw_remote_push_again(r, redo);
	bitmap_free(redo);
	return ret;
}

/*
 * Wait until @cond(@r, @arg) holds or the connection breaks: 0 or an
 * errno. A move's switch, once every box has told its boundary, happens
 * here first (host_move.c): every wait of a transfer is a point where
 * the links may change under it.
 */
static int rw_remote_wait(struct rw_remote *r,
			  bool (*cond)(struct rw_remote *r, void *arg),
			  void *arg, bool nonblock, long tmo)
{
	long left;
	int ret;

	for (;;) {
		if (rw_remote_switch_due(r)) {
			ret = rw_remote_switch_now(r);
			if (ret)
				return ret;
		}
		if (cond(r, arg))
			return 0;
		if (READ_ONCE(r->error))
			return r->error;
		if (nonblock)
			return -EAGAIN;
		left = wait_event_interruptible_timeout(r->wq, cond(r, arg) ||
							READ_ONCE(r->error) ||
							rw_remote_switch_due(r),
							tmo);
		if (left < 0)
			return -ERESTARTSYS;
		if (!left)
			return -ETIMEDOUT;
		if (READ_ONCE(r->error) || !rw_remote_switch_due(r))
			return READ_ONCE(r->error) ?: 0;
	}
}

/*
 * Room on link @arg's send queue, and a credit: fewer pushes on their way
 * than the box keeps receives posted for. A push the box has received
 * (its send completed) holds no credit while it waits for its answer, so
 * ranks pushing their chunks in different orders never wait on each other
 * for credits (uapi/rackweave.h, "RDMA wire").
 */
static bool rw_remote_sq_ready(struct rw_remote *r, void *arg)
{
	struct rw_remote_link *lk = arg;
	int unacked = atomic_read(&lk->unacked);

	return atomic_read(&lk->ep.sq_room) > 0 &&
	       unacked < (int)lk->rep.credits &&
	       (!r->window || unacked < (int)r->window);
}

/*
 * Write chunk @c of the gradient into this rank's slot on the box, on the
 * chunk's link @lk, which has room and a credit (@r->rdma held, bottom
 * halves off).
 */
static int rw_remote_push_chunk(struct rw_remote *r, struct rw_remote_link *lk,
				u32 c)
{
	u64 off;
	u32 len;
	int ret;

	ret = rw_layout_chunk(&r->l.geom, c, &off, &len);
	if (ret)
		return ret;
	if (!lk->id || READ_ONCE(r->error))
		return -ECONNRESET;
	atomic_inc(&lk->unacked);
	ret = rw_link_write_imm(&lk->push_cqe, lk->id->qp, &lk->wgrad,
				&lk->rep.win, off, len,
				RW_IMM(RW_IMM_PUSH, r->clock, c));
	if (ret) {
		atomic_dec(&lk->unacked);
		return ret;
	}
	atomic64_inc(&lk->pushes);
	trace_rw_host_push(r->job, r->rank, c, r->iters);
	if (++r->npushed == r->nr_chunks) {
		r->npushed = 0;
		r->clock++;
		r->iters++;
	}
	return 0;
}

/* The k-th chunk of the send order, and chunk @c's place in it. */
static u32 rw_remote_chunk_at(const struct rw_remote *r, u32 k)
{
	return r->prio_order ? r->prio_order[k] : k;
}

static u32 rw_remote_place(const struct rw_remote *r, u32 c)
{
	return r->prio_rank ? r->prio_rank[c] : c;
}

/*
 * Post queued pushes, first in the order first, while their links have
 * room, a credit and window; one whose link has none (or none yet, in a
 * move's switch) waits for the next completion. Bottom halves are off
 * while posting, as the box's agent posts (rw_conn_agent_round):
 * soft-RoCE sends a kernel QP's work requests from a tasklet, which then
 * runs here, once for the batch, instead of waking ksoftirqd for every
 * chunk. 0, or a post's error, which breaks the attachment.
 */
static int rw_remote_send(struct rw_remote *r)
{
	struct rw_remote_link *lk = NULL;
	u32 n = r->nr_chunks, k, c;
	int ret = 0;

	mutex_lock(&r->rdma);
	local_bh_disable();
	for_each_set_bit(k, r->queued, n) {
		if (READ_ONCE(r->error))
			break;
		c = rw_remote_chunk_at(r, k);
		if (READ_ONCE(r->link_of[c]) == RW_REMOTE_NO_LINK)
			continue;
		lk = rw_remote_link_of(r, c);
		if (!lk->id || !rw_remote_sq_ready(r, lk)) {
			/* One link: nothing behind it can go either. */
			if (r->nr_links == 1)
				break;
			continue;
		}
		ret = rw_remote_push_chunk(r, lk, c);
		if (ret)
			break;
		clear_bit(k, r->queued);
		atomic_dec(&r->nqueued);
	}
	local_bh_enable();
	if (ret)
		rw_remote_break(r, lk, "cannot post a push");
	mutex_unlock(&r->rdma);
	return ret;
}

void rw_remote_send_work(struct work_struct *work)
{
	rw_remote_send(container_of(work, struct rw_remote, send_work));
}

static int rw_remote_push(struct rw_remote *r, bool nonblock, long tmo)
{
	u32 c, k, n = r->nr_chunks;
	int ret;

	/* Rank 0 asks a move's boundary before it pushes the iteration. */
	ret = rw_remote_move_ask(r);
	if (ret)
		return ret;
	/* A chunk goes again only once the box has answered it. */
	ret = rw_remote_wait(r, rw_remote_sel_idle, NULL, nonblock, tmo);
	if (ret)
		return ret;
	/* In flight from here: a pull waits for its parameters. */
	for_each_set_bit(c, r->sel, n) {
		set_bit(c, r->busy);
		k = rw_remote_place(r, c);
		if (!test_and_set_bit(k, r->queued))
			atomic_inc(&r->nqueued);
	}
	return rw_remote_send(r);
}

int rw_remote_xfer(struct rw_remote *r, u32 op, const struct rw_range *rg,
		   u32 nr, u32 flags, u32 timeout_ms)
{
	long tmo = timeout_ms ? (long)msecs_to_jiffies(timeout_ms) :
			MAX_SCHEDULE_TIMEOUT;
	bool nonblock = flags & RW_XFER_NONBLOCK;
	int ret;

	if (flags & ~RW_XFER_FLAGS_ALL || !op || op & ~RW_XFER_BOTH)
		return -EINVAL;
	if (nr > RW_XFER_MAX_RANGES)
		return -E2BIG;
	ret = rw_remote_ready(r);
	if (ret)
		return ret;
	/* As a local observer's: it reads the parameters it maps. */
	if (r->observer)
		return -EPERM;
	if (mutex_lock_interruptible(&r->xfer))
		return -ERESTARTSYS;
	ret = rw_xfer_select(&r->l, rg, nr, flags & RW_XFER_KEYS, r->sel);
	if (!ret && op & RW_XFER_PUSH)
		ret = rw_remote_push(r, nonblock, tmo);
	if (!ret && op & RW_XFER_PULL)
		ret = rw_remote_wait(r, rw_remote_sel_fresh, NULL, nonblock,
				     tmo);
	mutex_unlock(&r->xfer);
	return ret;
}

__poll_t rw_remote_poll(struct rw_remote *r, struct file *file,
			poll_table *pt)
{
	__poll_t mask = 0;
	u32 nc;

	if (rw_remote_ready(r))
		return EPOLLERR;
	poll_wait(file, &r->wq, pt);
	if (READ_ONCE(r->error))
		return EPOLLERR;
	nc = r->nr_chunks;
	/* Lock-free, as rw_worker_poll(): the bits only race forward. */
	if (bitmap_empty(r->busy, nc)) {
		mask |= EPOLLOUT | EPOLLWRNORM;
		if (bitmap_full(r->have, nc))
			mask |= EPOLLIN | EPOLLRDNORM;
	}
	return mask;
}

int rw_remote_map(struct rw_remote *r, enum rw_engine_buf buf, u64 off,
		  u64 len, bool writable, bool shared)
{
	u64 blen;
	int ret = rw_remote_ready(r);

	if (ret)
		return ret;
	blen = buf == RW_BUF_VERSIONS ? r->versions_len : r->map_len;
	if (off >= blen || len > blen - off)
		return -EINVAL;
	if (buf == RW_BUF_GRAD && r->observer)
		return -EACCES;
	if (buf == RW_BUF_GRAD)
		return shared ? 0 : -EINVAL;
	return writable ? -EACCES : 0;
}

struct page *rw_remote_page(struct rw_remote *r, enum rw_engine_buf buf,
			    u64 off)
{
	void *base;
	u64 blen;

	switch (buf) {
	case RW_BUF_GRAD:
	case RW_BUF_PARAMS:
		base = buf == RW_BUF_GRAD ? r->grad : r->params;
		blen = r->buf_len;
		/* The last chunk's padding past the buffer: its own pages. */
		if (off >= blen && off < r->map_len) {
			base = buf == RW_BUF_GRAD ? r->grad_tail :
			       r->params_tail;
			off -= blen;
			blen = r->map_len - blen;
		}
		break;
	default:
		base = r->versions;
		blen = r->versions_len;
		break;
	}
	return base && off < blen ? vmalloc_to_page((u8 *)base + off) : NULL;
}
