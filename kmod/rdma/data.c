// SPDX-License-Identifier: GPL-2.0
/*
 * A remote worker's data path on the box (uapi "Control messages").
 *
 * Setup: the connection is accepted with one receive posted for the
 * worker's setup. Its completion queues setup work, which declares the
 * worker's model (the first declaration starts the job's run, as a local
 * RW_IOC_DECLARE does), registers two windows over the engine's own
 * buffers (the rank's gradient slots, remotely writable, and the
 * parameters, the source of the box's writes), posts one receive per
 * credit and answers. Then the connection's agent starts.
 *
 * A rank may have several connections, one per box NIC (rdma/conn.c):
 * each one's setup declares the same model for the one worker they share,
 * and each carries the chunks its peer's table gives it (rdma/conn.c), its
 * pushes and its parameter writes; a push of another connection's chunk
 * ends the rank.
 * Their agents go through the worker, whose lock serialises them; the
 * box's side reaches the engine only through the worker's entry points
 * for the agent (worker_xfer.h), never directly.
 *
 * Push: the worker writes a chunk's gradient straight into its slot with
 * an immediate naming the chunk; the completion handler checks the
 * immediate and the length, posts the receive again and marks the chunk
 * arrived. Nothing is copied: the slot is the one a local worker maps.
 * Once answered, a chunk may come again for the next iteration before the
 * last push of this one is queued (arrivals are a set, and a sibling
 * connection carries other chunks): it waits for the iteration's end.
 *
 * The agent (rdma/agent.c, a kthread per connection) queues arrived
 * chunks through the worker and answers them; this file kicks it on
 * arrivals, on send completions and on every step of the engine (an entry
 * on the engine's wait queue).
 *
 * Any error in a completion, a malformed or unexpected immediate, a push
 * of a chunk again before its answer or into a slot still being summed,
 * or an eviction closes this connection
 * alone; rdma/conn.c tears it down outside every handler. Those that are
 * the peer breaking the rules, an RDMA access the device refused among
 * them (rw_conn_wc_refused()), are violations, counted by kind.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/dma-mapping.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "rw.h"
#include "job.h"
#include "worker.h"
#include "worker_ckpt.h"
#include "worker_xfer.h"
#include "rdma/conn.h"
#include "chunk/boxset.h"
#include "rdma/wire.h"
#include "trace.h"

static struct rw_conn *rw_conn_of(struct rw_link *ep)
{
	return container_of(ep, struct rw_conn, ep);
}

/*
 * Why failed completion @wc shows the device refusing an RDMA access of
 * the peer's (rdma/conn.c says what each device shows), or NULL: a
 * receive taken by a refused write with immediate, or, once the
 * connection is established, a flush (the first reason to close is the
 * one rw_conn_violation() counts).
 */
static const char *rw_conn_wc_refused(struct rw_conn *c, struct ib_wc *wc)
{
	bool recv = wc->wr_cqe == &c->push_cqe.cqe ||
		    wc->wr_cqe == &c->ctl_cqe.cqe;

	if (recv && (wc->status == IB_WC_REM_ACCESS_ERR ||
		     wc->status == IB_WC_LOC_ACCESS_ERR))
		return "remote access error";
	if (wc->status == IB_WC_WR_FLUSH_ERR && READ_ONCE(c->established))
		return "remote access error (the device failed the QP)";
	return NULL;
}

/* Every failed completion of the box's side (rw_link_done, rdma/link.c). */
static void rw_conn_wc_error(struct rw_link *ep, struct ib_wc *wc,
			     const char *what)
{
	struct rw_conn *c = rw_conn_of(ep);
	const char *why = rw_conn_wc_refused(c, wc);

	/* Counted once: a flush of a connection already closing is not. */
	if (why) {
		rw_conn_violation(c, RW_VIOL_ACCESS, why);
		return;
	}
	if (wc->status != IB_WC_WR_FLUSH_ERR) {
		pr_warn_ratelimited("%pISpc: %s: %s: closing\n", &c->info.peer,
				    what, ib_wc_status_msg(wc->status));
		trace_rw_wire_error(c->info.job, c->info.rank, what,
				    wc->status);
	}
	rw_conn_close_later(c);
}

static void rw_conn_protocol_error(struct rw_conn *c, const char *why)
{
	rw_conn_violation(c, RW_VIOL_PROTO, why);
}

static void rw_conn_kick(struct rw_conn *c)
{
	atomic_set(&c->kick, 1);
	wake_up(&c->wq);
}

static int rw_conn_engine_wake(struct wait_queue_entry *wqe, unsigned int mode,
			       int sync, void *key)
{
	rw_conn_kick(container_of(wqe, struct rw_conn, engine_wait));
	return 0;
}

static int rw_conn_post_ctl_recv(struct rw_conn *c)
{
	struct ib_sge sge = {
		.addr = c->ctl_dma,
		.length = RW_WIRE_MSG_MAX,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &c->ctl_cqe.cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(c->id->qp, &wr, NULL);
}

/* A receive for one pushed chunk: it carries no data, only an immediate. */
static int rw_conn_post_push_recv(struct rw_conn *c)
{
	return rw_link_post_imm_recv(c->id->qp, &c->push_cqe);
}

/* The worker's setup came. */
static void rw_conn_ctl_done(struct rw_link *ep, struct ib_wc *wc)
{
	struct rw_conn *c = rw_conn_of(ep);
	unsigned long flags;

	if (wc->opcode != IB_WC_RECV || wc->wc_flags & IB_WC_WITH_IMM) {
		rw_conn_protocol_error(c, "data before the setup");
		return;
	}
	c->ctl_bytes = wc->byte_len;
	atomic64_inc(&c->messages);
	spin_lock_irqsave(&c->lock, flags);
	if (!c->stopping)
		queue_work(system_unbound_wq, &c->setup_work);
	spin_unlock_irqrestore(&c->lock, flags);
}

/* The worker wrote a chunk's gradient into its slot. */
static void rw_conn_push_done(struct rw_link *ep, struct ib_wc *wc)
{
	struct rw_conn *c = rw_conn_of(ep);
	struct rw_wire_imm imm;

	if (wc->opcode != IB_WC_RECV_RDMA_WITH_IMM ||
	    !(wc->wc_flags & IB_WC_WITH_IMM)) {
		rw_conn_protocol_error(c, "a message where a push belongs");
		return;
	}
	if (rw_wire_imm_parse(be32_to_cpu(wc->ex.imm_data), c->nr_chunks,
			      &imm) ||
	    (imm.type != RW_IMM_PUSH && imm.type != RW_IMM_REQUEST) ||
	    (imm.type == RW_IMM_REQUEST && imm.chunk)) {
		rw_conn_protocol_error(c, "bad immediate");
		return;
	}
	if (imm.type == RW_IMM_REQUEST) {
		const char *why = rw_conn_ctl_arrived(c, wc->byte_len);

		if (why || rw_conn_post_push_recv(c)) {
			rw_conn_protocol_error(c, why ?: "cannot post a receive");
			return;
		}
		atomic64_inc(&c->messages);
		rw_beat_heard(&c->ep.beat);
		rw_conn_kick(c);
		return;
	}
	if (c->owner->observer) {
		rw_conn_protocol_error(c, "a push from an observer");
		return;
	}
	if (!rw_conn_carries(c, imm.chunk)) {
		rw_conn_protocol_error(c, "a chunk of another connection or box");
		return;
	}
	if (wc->byte_len != rw_worker_chunk_len(c->w, imm.chunk)) {
		rw_conn_protocol_error(c, "push of the wrong length");
		return;
	}
	/*
	 * Taken and not yet answered, or not yet taken. Awaiting first: once
	 * this push is among the arrivals, the agent may take it and mark it
	 * awaiting at once. (A second push racing the agent's take of the
	 * first can slip past: refused then if its slot is still being
	 * summed, or else counted in the worker's next iteration.)
	 */
	if (test_bit(imm.chunk, c->awaiting) ||
	    test_and_set_bit(imm.chunk, c->arrived)) {
		rw_conn_protocol_error(c, "chunk pushed twice before its answer");
		return;
	}
	if (rw_conn_post_push_recv(c)) {
		rw_conn_protocol_error(c, "cannot post a receive");
		return;
	}
	atomic64_inc(&c->pushes);
	trace_rw_wire_push(c->info.job, c->info.rank, imm.chunk, imm.clock);
	rw_beat_heard(&c->ep.beat);
	rw_conn_kick(c);
}

static void rw_conn_reply_done(struct rw_link *ep, struct ib_wc *wc)
{
	struct rw_conn *c = rw_conn_of(ep);

	atomic64_inc(&c->messages);
	if (c->reply_status) {
		/* The refusal is out: nothing more to say to this peer. */
		rw_conn_close_later(c);
		return;
	}
	/* The registrations before the reply are done with as well. */
	atomic_add(c->nr_regs + 1, &c->ep.sq_room);
	rw_conn_kick(c);
}

static void rw_conn_write_done(struct rw_link *ep, struct ib_wc *wc)
{
	struct rw_conn *c = rw_conn_of(ep);

	atomic64_inc(&c->writes);
	rw_beat_heard(&ep->beat);
	/* Only an agent that stopped for want of room waits for this. */
	if (atomic_inc_return(&ep->sq_room) <= 1)
		rw_conn_kick(c);
}

/* ---- setup ---- */

/* The connection is closing: its setup, if still running, gives up. */
static bool rw_conn_gone(void *arg)
{
	struct rw_conn *c = arg;

	return READ_ONCE(c->stopping);
}

/*
 * Declare the peer's model as RW_IOC_DECLARE would. Starting the job's
 * run can take a while for a big model; it stops as soon as the
 * connection starts closing (rw_conn_data_stop() waits for it).
 */
static int rw_conn_declare(struct rw_conn *c,
			   const struct rw_wire_setup_info *si)
{
	struct rw_cancel cancel = { .gone = rw_conn_gone, .arg = c };
	struct rw_tensor_desc *t;
	u32 i;
	int ret;

	t = kvmalloc_array(si->nr_tensors, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	for (i = 0; i < si->nr_tensors; i++)
		rw_wire_tensor_get(si, i, &t[i]);
	/* An observer's only checks the run's (uapi "Observers"). */
	if (c->owner->observer)
		ret = rw_worker_verify(c->w, t, si->nr_tensors);
	else
		ret = rw_worker_declare(c->w, t, si->nr_tensors, si->flags,
					&cancel);
	kvfree(t);
	return ret;
}

static int rw_conn_map_reply(struct rw_conn *c, size_t len)
{
	int ret;

	ret = rw_link_buf_map(c->dev, len, DMA_TO_DEVICE, &c->reply,
			      &c->reply_dma);
	if (!ret)
		c->reply_len = len;
	return ret;
}

/* Send the first @len bytes of the reply buffer. */
static int rw_conn_post_reply(struct rw_conn *c, size_t len)
{
	struct ib_sge sge = {
		.addr = c->reply_dma,
		.length = len,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
		.wr_cqe = &c->reply_cqe.cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	ib_dma_sync_single_for_device(c->dev, c->reply_dma, len, DMA_TO_DEVICE);
	return ib_post_send(c->id->qp, &wr, NULL);
}

/* The worker's pages (the engine's) behind the connection's windows. */
static struct page *rw_conn_grad_page(void *arg, u64 off)
{
	struct rw_conn *c = arg;

	return rw_worker_page(c->w, RW_BUF_GRAD, off);
}

static struct page *rw_conn_params_page(void *arg, u64 off)
{
	struct rw_conn *c = arg;

	return rw_worker_page(c->w, RW_BUF_PARAMS, off);
}

/*
 * Everything up to the reply; a negative errno is the refusal. On
 * success the reply is packed in c->reply and the agent may start.
 */
/*
 * The order this connection answers in, if the model's priorities give
 * one other than the chunks' own (rdma/conn.h).
 */
static int rw_conn_order(struct rw_conn *c)
{
	u32 n = c->nr_chunks;

	c->order = kvmalloc_array(n, sizeof(*c->order), GFP_KERNEL);
	c->rank = kvmalloc_array(n, sizeof(*c->rank), GFP_KERNEL);
	c->await_rk = bitmap_zalloc(n, GFP_KERNEL);
	if (!c->order || !c->rank || !c->await_rk)
		return -ENOMEM;
	if (rw_worker_chunk_order(c->w, c->order, c->rank))
		return 0;
	kvfree(c->order);
	kvfree(c->rank);
	bitmap_free(c->await_rk);
	c->order = NULL;
	c->rank = NULL;
	c->await_rk = NULL;
	return 0;
}

static int rw_conn_setup(struct rw_conn *c)
{
	struct rw_win_pages src;
	struct rw_wire_reply_info ri = {};
	struct rw_wire_setup_info si;
	struct rw_wire_seg_info *segs;
	const struct rw_boxset *boxes;
	struct rw_wire_seg *peer;
	struct rw_setup s;
	const char *why = NULL;
	u32 shift, i, regs;
	size_t len;
	int ret;

	ib_dma_sync_single_for_cpu(c->dev, c->ctl_dma, RW_WIRE_MSG_MAX,
				   DMA_FROM_DEVICE);
	ret = rw_wire_setup_parse(c->ctl, c->ctl_bytes, &si, &why);
	if (ret) {
		pr_warn_ratelimited("%pISpc: setup refused: %s\n",
				    &c->info.peer, why);
		return ret;
	}
	ret = rw_conn_declare(c, &si);
	if (ret)
		return ret;
	ret = rw_worker_setup(c->w, &s);
	if (ret)
		return ret;
	if (rw_wire_win_check(&si.win, s.model_bytes, s.chunk_size))
		return -EINVAL;
	c->nr_chunks = s.nr_chunks;
	c->chunk_shift = ilog2(s.chunk_size);
	c->peer.seg_shift = si.win.seg_shift;
	c->peer.nr_segs = si.win.nr_segs;
	peer = kvmalloc_array(si.win.nr_segs, sizeof(*peer), GFP_KERNEL);
	if (peer)
		memcpy(peer, si.win.segs, si.win.nr_segs * sizeof(*peer));
	c->peer.segs = peer;
	c->arrived = bitmap_zalloc(s.nr_chunks, GFP_KERNEL);
	c->awaiting = bitmap_zalloc(s.nr_chunks, GFP_KERNEL);
	c->to_send = bitmap_zalloc(s.nr_chunks, GFP_KERNEL);
	c->resend = bitmap_zalloc(s.nr_chunks, GFP_KERNEL);
	if (!c->peer.segs || !c->arrived || !c->awaiting || !c->to_send ||
	    !c->resend)
		return -ENOMEM;
	ret = rw_conn_order(c);
	if (ret)
		return ret;
	/* Set already: the first writes carry them. */
	c->params_seen = rw_worker_params_set(c->w);
	ret = rw_conn_take_chunks(c, s.nr_chunks);
	if (ret)
		return ret;
	/*
	 * This connection's chunks only: its siblings carry the others, and
	 * other boxes of the job's set theirs.
	 */
	c->owned = rw_worker_owned(c->w);
	for (i = 0; i < s.nr_chunks; i++)
		if (rw_conn_carries(c, i))
			__set_bit(i, c->to_send);
	c->nr_own = bitmap_weight(c->to_send, s.nr_chunks);

	shift = rw_win_seg_shift(c->dev, s.chunk_size);
	if (!shift)
		return -EOPNOTSUPP;
	src.page = rw_conn_grad_page;
	src.arg = c;
	src.len = rw_worker_buf_len(c->w, RW_BUF_GRAD);
	/* An observer has no gradient window. */
	ret = c->owner->observer ? 0 : rw_win_map(&c->grad, c->pd, &src, shift);
	if (ret)
		return ret;
	if (c->owner->observer) {
		c->sent = kvcalloc(s.nr_chunks, sizeof(*c->sent), GFP_KERNEL);
		if (!c->sent)
			return -ENOMEM;
	}
	src.page = rw_conn_params_page;
	src.len = rw_worker_buf_len(c->w, RW_BUF_PARAMS);
	ret = rw_win_map(&c->params, c->pd, &src, shift);
	if (ret)
		return ret;
	regs = c->grad.nr_segs + c->params.nr_segs;
	ret = rw_conn_ctl_setup(c, &si.inbox, &regs);
	if (ret)
		return ret;
	len = rw_wire_reply_size(c->grad.nr_segs);
	if (!len || regs + 1 > c->depth)
		return -EFBIG;
	ret = rw_conn_map_reply(c, len);
	if (ret)
		return ret;

	ri.rank = s.rank;
	ri.nr_workers = s.nr_workers;
	ri.sync = s.sync;
	ri.epoch = s.epoch;
	ri.chunk_size = s.chunk_size;
	ri.nr_chunks = s.nr_chunks;
	ri.model_bytes = s.model_bytes;
	ri.credits = min(s.nr_chunks, c->depth);
	ri.nic = c->nic;
	ri.nr_nics = c->nr_nics;
	ri.nr_own = c->nr_own;
	boxes = rw_worker_boxes(c->w);
	if (boxes) {
		ri.box_id = boxes->self;
		ri.nr_boxes = boxes->nr;
		ri.box_epoch = boxes->epoch;
		ri.box_digest = rw_boxset_digest(boxes);
	}
	/* Set already: no re-sends will come on this connection. */
	ri.flags = c->params_seen ? RW_WIRE_PARAMS_SET : 0;
	ri.win.seg_shift = c->grad.nr_segs ? shift : 0;
	ri.win.nr_segs = c->grad.nr_segs;
	segs = kvcalloc(max(ri.win.nr_segs, 1U), sizeof(*segs), GFP_KERNEL);
	if (!segs)
		return -ENOMEM;
	/* Registration picks the keys: post it before describing them. */
	ret = c->grad.nr_segs ?
	      rw_win_post_reg(&c->grad, c->id->qp, &c->reg_cqe.cqe,
			      IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE) : 0;
	/* Local writes: requests read initial parameters into it. */
	if (!ret)
		ret = rw_win_post_reg(&c->params, c->id->qp, &c->reg_cqe.cqe,
				      IB_ACCESS_LOCAL_WRITE);
	if (!ret)
		ret = rw_conn_ctl_post_reg(c);
	if (!ret) {
		rw_win_describe(&c->grad, segs);
		rw_conn_ctl_describe(c, &ri.inbox);
		ret = rw_wire_reply_pack(c->reply, c->reply_len, &ri, segs);
		ret = ret < 0 ? ret : 0;
	}
	kvfree(segs);
	if (ret)
		return ret;
	for (i = 0; i < ri.credits; i++) {
		ret = rw_conn_post_push_recv(c);
		if (ret)
			return ret;
	}
	c->nr_regs = regs;
	/* What is left once the registrations and the reply are posted. */
	atomic_set(&c->ep.sq_room, c->depth - regs - 1);
	return 0;
}

static void rw_conn_setup_work(struct work_struct *work)
{
	struct rw_conn *c = container_of(work, struct rw_conn, setup_work);
	struct rw_wire_reply_info ri = {};
	size_t len = rw_wire_reply_size(0);
	int ret;

	ret = rw_conn_setup(c);
	if (!ret) {
		/* The reply goes out before any parameters can. */
		if (rw_conn_post_reply(c, c->reply_len)) {
			rw_conn_close_later(c);
			return;
		}
		init_waitqueue_func_entry(&c->engine_wait, rw_conn_engine_wake);
		rw_worker_watch(c->w, &c->engine_wait);
		c->engine_waiting = true;
		rw_beat_heard(&c->ep.beat);
		c->agent = kthread_run(rw_conn_agent, c, "rw_conn/%s/%u.%u",
				       c->info.job, c->info.rank, c->nic);
		if (IS_ERR(c->agent)) {
			c->agent = NULL;
			rw_conn_close_later(c);
			return;
		}
		pr_info("%pISpc: job %s rank %u nic %u/%u set up: %u chunks, %u here\n",
			&c->info.peer, c->info.job, c->info.rank, c->nic,
			c->nr_nics, c->nr_chunks, c->nr_own);
		return;
	}
	/* A refusal: say why, then the reply's completion closes. */
	c->reply_status = -ret;
	ri.status = -ret;
	if (ret == -ECONNABORTED)
		pr_info("%pISpc: job %s rank %u: setup given up: the connection is closing\n",
			&c->info.peer, c->info.job, c->info.rank);
	else
		pr_info("%pISpc: job %s rank %u: setup refused (%d)\n",
			&c->info.peer, c->info.job, c->info.rank, ret);
	if (!c->reply && rw_conn_map_reply(c, len)) {
		rw_conn_close_later(c);
		return;
	}
	rw_wire_reply_pack(c->reply, len, &ri, NULL);
	if (rw_conn_post_reply(c, len))
		rw_conn_close_later(c);
}

/* ---- life ---- */

int rw_conn_data_init(struct rw_conn *c)
{
	int ret;

	spin_lock_init(&c->lock);
	init_waitqueue_head(&c->wq);
	INIT_WORK(&c->setup_work, rw_conn_setup_work);
	rw_link_init(&c->ep, rw_conn_wc_error);
	rw_link_cqe_init(&c->ctl_cqe, &c->ep, "setup receive",
			 rw_conn_ctl_done);
	rw_link_cqe_init(&c->reply_cqe, &c->ep, "setup reply",
			 rw_conn_reply_done);
	/* Registrations are unsignaled: only a failed one completes. */
	rw_link_cqe_init(&c->reg_cqe, &c->ep, "registration", NULL);
	rw_link_cqe_init(&c->push_cqe, &c->ep, "push", rw_conn_push_done);
	rw_link_cqe_init(&c->write_cqe, &c->ep, "parameter write",
			 rw_conn_write_done);
	rw_conn_ctl_init(c);
	ret = rw_link_buf_map(c->dev, RW_WIRE_MSG_MAX, DMA_FROM_DEVICE,
			      &c->ctl, &c->ctl_dma);
	return ret ?: rw_conn_post_ctl_recv(c);
}

void rw_conn_data_stop(struct rw_conn *c)
{
	spin_lock_irq(&c->lock);
	WRITE_ONCE(c->stopping, true);
	spin_unlock_irq(&c->lock);
	cancel_work_sync(&c->setup_work);
	if (c->agent)
		kthread_stop(c->agent);
	c->agent = NULL;
	if (c->engine_waiting)
		rw_worker_unwatch(c->w, &c->engine_wait);
	c->engine_waiting = false;
}

void rw_conn_data_free(struct rw_conn *c)
{
	rw_win_unmap(&c->grad);
	rw_win_unmap(&c->params);
	rw_conn_ctl_free(c);
	rw_link_buf_unmap(c->dev, c->reply_len, DMA_TO_DEVICE, &c->reply,
			  c->reply_dma);
	rw_link_buf_unmap(c->dev, RW_WIRE_MSG_MAX, DMA_FROM_DEVICE, &c->ctl,
			  c->ctl_dma);
	kvfree(c->peer.segs);
	bitmap_free(c->arrived);
	bitmap_free(c->awaiting);
	bitmap_free(c->await_rk);
	kvfree(c->order);
	kvfree(c->rank);
	bitmap_free(c->to_send);
	bitmap_free(c->resend);
	kvfree(c->sent);
}
