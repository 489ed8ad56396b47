// SPDX-License-Identifier: GPL-2.0
/*
 * A remote worker's requests on the box (uapi "Requests"): what its host
 * asks of the job besides pushes, answered by the connection's agent
 * (rdma/data.c) between its rounds.
 *
 * At setup the box maps an inbox, which the peer may write (its requests
 * land there, each WITH IMMEDIATE, spending a push receive), and an
 * outbox, from which it writes each answer into the peer's inbox. One
 * request at a time: another before the answer breaks the rules.
 *
 *   RW_OP_INIT       the run's initial parameters, as RW_IOC_PARAMS_INIT
 *                    sets them: the worker's rules checked, each chosen
 *                    chunk RDMA READ from the peer's window straight into
 *                    the parameter buffer (the connection's parameter
 *                    window is the reads' destination), then answered.
 *   RW_OP_INIT_WAIT  answered once initial parameters are settled (every
 *                    step and the end of an init kick the agent) or when
 *                    its time is up.
 *   RW_OP_HEAD       the run's checkpoint head.
 *   RW_OP_RESTORE    a checkpoint, as RW_INIT_CHECKPOINT loads one: the
 *                    head read and checked, then the image read piece by
 *                    piece (a 1 MiB buffer registered once) into the run.
 *   RW_OP_SAVE       a checkpoint, as RW_IOC_CHECKPOINT takes one: the
 *                    remote workers' unbegun iterations taken back, the
 *                    gate held, the iterations in flight finished, the
 *                    image written piece by piece into the peer's window
 *                    (through the same buffer), the gate let go, and the
 *                    head in the answer. While it waits, the agent
 *                    keeps the link's heartbeats and gives up on a peer
 *                    gone silent.
 *
 * An answer waits until the connection has written its re-sends (rdma/
 * data.c: every chunk again once initial parameters are set), so that
 * the worker's first pull after an init or a wait sees them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "rw.h"
#include "worker.h"
#include "worker_ckpt.h"
#include "worker_xfer.h"
#include "job.h"
#include "job_move.h"
#include "rdma/conn.h"
#include "chunk/boxset.h"
#include "rdma/wire.h"
#include "rdma/wire_priv.h"

/* Log2 of an inbox's size: one segment holds it. */
#define RW_CONN_INBOX_SHIFT	16
static_assert(RW_WIRE_INBOX_LEN == 1U << RW_CONN_INBOX_SHIFT, "inbox size");

static struct rw_conn *rw_conn_of_ep(struct rw_link *ep)
{
	return container_of(ep, struct rw_conn, ep);
}

/* One of RW_OP_INIT's reads is in. */
static void rw_conn_read_done(struct rw_link *ep, struct ib_wc *wc)
{
	struct rw_conn *c = rw_conn_of_ep(ep);

	atomic_inc(&ep->sq_room);
	atomic_dec(&c->reads_left);
	rw_beat_heard(&ep->beat);
	wake_up(&c->wq);
}

static void rw_conn_answer_done(struct rw_link *ep, struct ib_wc *wc)
{
	struct rw_conn *c = rw_conn_of_ep(ep);

	/* And the piece's registrations, if no transfer returned them. */
	atomic_add(1 + xchg(&c->ans_regs, 0), &ep->sq_room);
	atomic64_inc(&c->messages);
	wake_up(&c->wq);
}

/* A notice's write is done: its send slot back. */
static void rw_conn_notice_done(struct rw_link *ep, struct ib_wc *wc)
{
	struct rw_conn *c = rw_conn_of_ep(ep);

	atomic_inc(&ep->sq_room);
	atomic64_inc(&c->messages);
	wake_up(&c->wq);
}

void rw_conn_ctl_init(struct rw_conn *c)
{
	rw_link_cqe_init(&c->read_cqe, &c->ep, "parameter read",
			 rw_conn_read_done);
	rw_link_cqe_init(&c->answer_cqe, &c->ep, "answer",
			 rw_conn_answer_done);
	rw_link_cqe_init(&c->notice_cqe, &c->ep, "notice",
			 rw_conn_notice_done);
}

int rw_conn_ctl_setup(struct rw_conn *c, const struct rw_wire_seg_info *peer,
		      u32 *regs)
{
	int ret;

	ret = rw_win_vbuf(&c->inbox, &c->inbox_buf, c->pd, RW_WIRE_INBOX_LEN,
			  RW_CONN_INBOX_SHIFT);
	if (!ret)
		ret = rw_win_vbuf(&c->outbox, &c->outbox_buf, c->pd,
				  RW_WIRE_INBOX_LEN, RW_CONN_INBOX_SHIFT);
	if (ret)
		return ret;
	*regs += c->inbox.nr_segs + c->outbox.nr_segs;
	if (peer->addr || peer->rkey) {
		rw_wire_segs_pack((u8 *)&c->peer_inbox_seg, peer, 1);
		c->peer_inbox.seg_shift = RW_CONN_INBOX_SHIFT;
		c->peer_inbox.nr_segs = 1;
		c->peer_inbox.segs = &c->peer_inbox_seg;
	}
	return 0;
}

int rw_conn_ctl_post_reg(struct rw_conn *c)
{
	int ret;

	ret = rw_win_post_reg(&c->inbox, c->id->qp, &c->reg_cqe.cqe,
			      IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);
	return ret ?: rw_win_post_reg(&c->outbox, c->id->qp, &c->reg_cqe.cqe,
				      0);
}

void rw_conn_ctl_describe(struct rw_conn *c, struct rw_wire_seg_info *inbox)
{
	rw_win_describe(&c->inbox, inbox);
}

const char *rw_conn_ctl_arrived(struct rw_conn *c, u32 byte_len)
{
	if (!c->peer_inbox.nr_segs)
		return "a request from a peer without an inbox";
	if (byte_len < RW_WIRE_REQUEST_SIZE || byte_len > RW_WIRE_INBOX_LEN)
		return "a request of a bad length";
	if (atomic_xchg(&c->request_in, 1) || READ_ONCE(c->wait_pending) ||
	    READ_ONCE(c->ans_pending))
		return "a request before the answer to the last";
	return NULL;
}

/* The answer to write once the connection's re-sends are out. */
static void rw_conn_answer_later(struct rw_conn *c,
				 const struct rw_wire_answer_info *a)
{
	c->ans = *a;
	WRITE_ONCE(c->ans_pending, true);
}

static void rw_conn_answer_status(struct rw_conn *c, u32 op, u32 seq,
				  int err)
{
	struct rw_wire_answer_info a = {
		.op = op, .seq = seq, .status = err < 0 ? -err : 0,
	};

	rw_conn_answer_later(c, &a);
}

int rw_conn_ctl_flush(struct rw_conn *c, bool resent)
{
	int n;

	if (!c->ans_pending || !resent || atomic_read(&c->ep.sq_room) <= 0)
		return 0;
	/* As of now: the re-sends, if they were due, are out before it. */
	if (c->params_seen)
		c->ans.flags |= RW_WIRE_PARAMS_SET;
	n = rw_wire_answer_pack(c->outbox_buf, RW_WIRE_INBOX_LEN, &c->ans);
	if (n < 0)
		return n;
	/* Cleared first: the peer may ask again as soon as it has this. */
	WRITE_ONCE(c->ans_pending, false);
	n = rw_link_write_imm(&c->answer_cqe, c->id->qp, &c->outbox,
			      &c->peer_inbox, 0, n,
			      RW_IMM(RW_IMM_ANSWER, c->ans.seq, 0));
	return n ?: 1;
}

static bool rw_conn_reads_in(struct rw_conn *c)
{
	return !atomic_read(&c->reads_left) || READ_ONCE(c->stopping) ||
	       kthread_should_stop();
}

static bool rw_conn_read_room(struct rw_conn *c)
{
	return atomic_read(&c->ep.sq_room) > 1 || READ_ONCE(c->stopping) ||
	       kthread_should_stop();
}

/*
 * Read @len bytes at @off of the peer's window @win (within one of its
 * segments) to @addr under @lkey, or with @write write them there from
 * @addr, once the send queue has room, one slot kept for the answer. A
 * transfer the device fails closes the connection (rdma/data.c), which
 * stops the waits.
 */
static int rw_conn_rdma(struct rw_conn *c, bool write, u64 addr, u32 lkey,
			const struct rw_wire_win *win, u64 off, u32 len)
{
	struct rw_wire_seg_info at;
	struct ib_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ib_rdma_wr wr = {
		.wr.opcode = write ? IB_WR_RDMA_WRITE : IB_WR_RDMA_READ,
		.wr.send_flags = IB_SEND_SIGNALED,
		.wr.wr_cqe = &c->read_cqe.cqe,
		.wr.sg_list = &sge,
		.wr.num_sge = 1,
	};
	int ret;

	if (!wait_event_timeout(c->wq, rw_conn_read_room(c),
				msecs_to_jiffies(RW_LINK_SILENT_MS)))
		return -ETIMEDOUT;
	if (READ_ONCE(c->stopping) || kthread_should_stop())
		return -ECONNABORTED;
	rw_wire_win_at(win, off, &at);
	wr.remote_addr = at.addr;
	wr.rkey = at.rkey;
	atomic_dec(&c->ep.sq_room);
	atomic_inc(&c->reads_left);
	local_bh_disable();
	ret = ib_post_send(c->id->qp, &wr.wr, NULL);
	local_bh_enable();
	if (ret) {
		atomic_inc(&c->ep.sq_room);
		atomic_dec(&c->reads_left);
	}
	return ret;
}

/* Until every read posted is in: 0, or what ended the wait. */
static int rw_conn_reads_wait(struct rw_conn *c)
{
	if (!wait_event_timeout(c->wq, rw_conn_reads_in(c),
				msecs_to_jiffies(RW_LINK_SILENT_MS)))
		return -ETIMEDOUT;
	return atomic_read(&c->reads_left) ? -ECONNABORTED : 0;
}

/*
 * rw_worker_init_fill()'s fill: every chosen chunk read from the peer's
 * window straight into its place in the parameters.
 */
static int rw_conn_init_reads(void *arg)
{
	struct rw_conn *c = arg;
	u32 chunk, lkey;
	u64 off, addr;
	int ret;

	for_each_set_bit(chunk, c->init_sel, c->nr_chunks) {
		off = (u64)chunk << c->chunk_shift;
		rw_win_at(&c->params, off, &addr, &lkey);
		ret = rw_conn_rdma(c, false, addr, lkey, &c->init_req->win,
				   off, rw_worker_chunk_len(c->w, chunk));
		if (ret)
			return ret;
	}
	return rw_conn_reads_wait(c);
}

/* ---- RW_OP_RESTORE ---- */

/* The most a piece of a checkpoint's image is, read then copied in. */
#define RW_CONN_PIECE		SZ_1M

/*
 * The piece buffer, once per connection, registered for the reads'
 * local writes; the registrations' slots come back with the first
 * transfer (rw_conn_piece_xfer()) or the answer.
 */
static int rw_conn_piece_get(struct rw_conn *c)
{
	u32 shift = c->params.seg_shift;
	int ret;

	if (c->piece_buf)
		return 0;
	/* One segment: a read's local side lies in one region. */
	c->piece_len = (u32)min_t(u64, RW_CONN_PIECE, 1ULL << shift);
	ret = rw_win_vbuf(&c->piece, &c->piece_buf, c->pd, c->piece_len,
			  shift);
	if (!ret && c->piece.nr_segs + 1 >= (u32)atomic_read(&c->ep.sq_room))
		ret = -ENOSPC;
	if (!ret)
		ret = rw_win_post_reg(&c->piece, c->id->qp, &c->reg_cqe.cqe,
				      IB_ACCESS_LOCAL_WRITE);
	if (ret) {
		rw_win_vbuf_free(&c->piece, &c->piece_buf);
		return ret;
	}
	c->piece_regs = c->piece.nr_segs;
	atomic_sub(c->piece_regs, &c->ep.sq_room);
	return 0;
}

/*
 * Read @len bytes at @off of the peer's window @win into the piece
 * buffer, or with @write write them there from it, one transfer per
 * segment of @win it spans, and wait for them.
 */
static int rw_conn_piece_xfer(struct rw_conn *c, bool write,
			      const struct rw_wire_win *win, u64 off, u32 len)
{
	u64 seg = 1ULL << win->seg_shift, addr;
	u32 done, n, lkey;
	int ret;

	for (done = 0; done < len; done += n) {
		n = (u32)min_t(u64, len - done, seg - ((off + done) & (seg - 1)));
		rw_win_at(&c->piece, done, &addr, &lkey);
		ret = rw_conn_rdma(c, write, addr, lkey, win, off + done, n);
		if (ret)
			return ret;
	}
	ret = rw_conn_reads_wait(c);
	/* The piece's registrations are done with too, the first time. */
	if (!ret && c->piece_regs) {
		atomic_add(c->piece_regs, &c->ep.sq_room);
		c->piece_regs = 0;
	}
	return ret;
}

/* rw_worker_restore_fill()'s fill: the image, piece by piece. */
static int rw_conn_restore_reads(void *arg)
{
	struct rw_conn *c = arg;
	u64 len = c->restore_len - sizeof(struct rw_ckpt_head), off;
	u32 n;
	int ret;

	for (off = 0; off < len; off += n) {
		n = (u32)min_t(u64, len - off, c->piece_len);
		ret = rw_conn_piece_xfer(c, false, &c->init_req->win,
					 sizeof(struct rw_ckpt_head) + off, n);
		if (!ret)
			ret = rw_worker_image_put(c->w, off, n, c->piece_buf);
		if (ret)
			return ret;
	}
	return 0;
}

/* RW_OP_RESTORE: the answer's errno (0: restored). */
static int rw_conn_do_restore(struct rw_conn *c,
			      const struct rw_wire_request_info *req)
{
	struct rw_ckpt_head h;
	int ret;

	ret = rw_worker_head(c->w, &h);
	if (ret)
		return ret;
	c->restore_len = sizeof(h) + h.image_len;
	if (rw_wire_win_check(&req->win, c->restore_len, 1U << c->chunk_shift))
		return -EINVAL;
	ret = rw_conn_piece_get(c);
	if (!ret)
		ret = rw_conn_piece_xfer(c, false, &req->win, 0, sizeof(h));
	if (ret)
		return ret;
	memcpy(&h, c->piece_buf, sizeof(h));
	c->init_req = req;
	ret = rw_worker_restore_fill(c->w, &h, c->restore_len,
				     rw_conn_restore_reads, c);
	c->init_req = NULL;
	return ret;
}

/* ---- RW_OP_SAVE ---- */

/* rw_worker_save_fill()'s fill: the image, piece by piece, gate held. */
static int rw_conn_save_writes(void *arg)
{
	struct rw_conn *c = arg;
	u64 len = c->restore_len, off;
	u32 n;
	int ret;

	for (off = 0; off < len; off += n) {
		n = (u32)min_t(u64, len - off, c->piece_len);
		ret = rw_worker_image_get(c->w, off, n, c->piece_buf);
		if (!ret)
			ret = rw_conn_piece_xfer(c, true, &c->init_req->win,
						 off, n);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A save's wait ends when the connection goes, or its peer falls silent:
 * the agent's heartbeats go on meanwhile (rdma/link.h).
 */
static bool rw_conn_save_gone(void *arg)
{
	struct rw_conn *c = arg;

	return READ_ONCE(c->stopping) || kthread_should_stop() ||
	       rw_link_beat_tick(&c->ep, c->id->qp, &c->peer);
}

/* RW_OP_SAVE: the answer's errno (0: saved, the head in *@h). */
/*
 * A move's boundary, asked by rank 0 (uapi "Requests"): its next
 * iteration, of which it has pushed nothing, is the first no box of the
 * old set sums. Every box computes the same one: rank 0 pushed as much
 * to each.
 */
static int rw_conn_do_stop(struct rw_conn *c)
{
	u64 at;
	int ret;

	if (c->owner->observer || c->owner->rank)
		return -EPERM;
	ret = rw_worker_next_iter(c->w, &at);
	if (!ret && !at)
		ret = -EAGAIN;
	return ret ?: rw_job_move_stop(rw_worker_job(c->w), at);
}

static int rw_conn_do_save(struct rw_conn *c,
			   const struct rw_wire_request_info *req,
			   struct rw_ckpt_head *h)
{
	struct rw_cancel cancel = { .gone = rw_conn_save_gone, .arg = c };
	int ret;

	c->restore_len = rw_worker_image_len(c->w);
	if (!c->restore_len)
		return -ENOTCONN;
	if (rw_wire_win_check(&req->win, c->restore_len, 1U << c->chunk_shift))
		return -EINVAL;
	ret = rw_conn_piece_get(c);
	if (ret)
		return ret;
	c->init_req = req;
	/* Remote workers between iterations must not hold the save up. */
	ret = rw_worker_save_fill(c->w, req->timeout_ms, &cancel, rw_conn_withdraw_ahead,
				  h, rw_conn_save_writes, c);
	c->init_req = NULL;
	return ret;
}

/* RW_OP_INIT: the answer's errno (0: set). */
static int rw_conn_do_init(struct rw_conn *c,
			   const struct rw_wire_request_info *req)
{
	struct rw_wire_run_info run;
	unsigned long *sel;
	u64 bytes = (u64)c->nr_chunks << c->chunk_shift;
	u32 i;
	int ret;

	if (rw_wire_win_check(&req->win, bytes, 1U << c->chunk_shift) &&
	    rw_wire_win_check(&req->win, rw_worker_buf_len(c->w, RW_BUF_PARAMS),
			      1U << c->chunk_shift))
		return -EINVAL;
	sel = bitmap_zalloc(c->nr_chunks, GFP_KERNEL);
	if (!sel)
		return -ENOMEM;
	for (i = 0; i < req->nr_runs; i++) {
		rw_wire_run_get(req, i, &run);
		bitmap_set(sel, run.first, run.count);
	}
	/* A job over several boxes: this box's chunks only. */
	if (c->owned)
		bitmap_and(sel, sel, c->owned, c->nr_chunks);
	c->init_req = req;
	c->init_sel = sel;
	ret = rw_worker_init_fill(c->w, sel, rw_conn_init_reads, c);
	c->init_req = NULL;
	c->init_sel = NULL;
	bitmap_free(sel);
	return ret;
}

/* The pending wait's answer, if its time has come: > 0 if it has one. */
static int rw_conn_wait_round(struct rw_conn *c)
{
	int err = 0;

	if (!c->wait_pending)
		return 0;
	if (!rw_worker_init_done(c->w)) {
		if (!c->wait_end || time_before(jiffies, c->wait_end))
			return 0;
		err = -ETIMEDOUT;
	}
	rw_conn_answer_status(c, RW_OP_INIT_WAIT, c->wait_seq, err);
	WRITE_ONCE(c->wait_pending, false);
	return 1;
}

long rw_conn_ctl_nap(struct rw_conn *c, long nap)
{
	long left;

	if (!c->wait_pending || !c->wait_end)
		return nap;
	left = (long)(c->wait_end - jiffies);
	return clamp(left, 1L, nap);
}

int rw_conn_ctl_round(struct rw_conn *c)
{
	struct rw_wire_answer_info a = {};
	struct rw_wire_request_info req;
	const char *why = NULL;
	int ret;

	/* One answer at a time: the peer asks nothing before it has it. */
	if (c->ans_pending)
		return 0;
	ret = rw_conn_wait_round(c);
	if (ret)
		return ret;
	if (!atomic_read(&c->request_in))
		return 0;
	/* The peer wrote it before its immediate: it is all there. */
	ret = rw_wire_request_parse(c->inbox_buf, RW_WIRE_INBOX_LEN,
				    c->nr_chunks, &req, &why);
	if (ret) {
		rw_conn_violation(c, RW_VIOL_PROTO, why);
		return -EPROTO;
	}
	/*
	 * A save asked right after a push: that push first (the agent takes
	 * arrivals after this), or the rank would look inside its iteration.
	 */
	if (req.op == RW_OP_SAVE && !bitmap_empty(c->arrived, c->nr_chunks))
		return 0;
	a.op = req.op;
	a.seq = req.seq;
	switch (req.op) {
	case RW_OP_INIT:
		ret = rw_conn_do_init(c, &req);
		if (ret == -ECONNABORTED || ret == -ETIMEDOUT)
			return ret;
		a.status = ret < 0 ? -ret : 0;
		break;
	case RW_OP_INIT_WAIT:
		/* As the local call answers an observer. */
		if (c->owner->observer) {
			a.status = EPERM;
			break;
		}
		c->wait_seq = req.seq;
		c->wait_end = req.timeout_ms ?
			      jiffies + msecs_to_jiffies(req.timeout_ms) : 0;
		/* 0 is "no limit" above: a deadline that lands on 0 is 1. */
		if (req.timeout_ms && !c->wait_end)
			c->wait_end = 1;
		WRITE_ONCE(c->wait_pending, true);
		/* Pending before the inbox is free (rw_conn_ctl_arrived()). */
		smp_mb__before_atomic();
		atomic_set(&c->request_in, 0);
		return 1;
	case RW_OP_RESTORE:
		ret = rw_conn_do_restore(c, &req);
		if (ret == -ECONNABORTED || ret == -ETIMEDOUT)
			return ret;
		a.status = ret < 0 ? -ret : 0;
		break;
	case RW_OP_SAVE:
		ret = rw_conn_do_save(c, &req, &a.head);
		if (ret == -ECONNABORTED)
			return ret;
		a.status = ret < 0 ? -ret : 0;
		a.has_head = !ret;
		break;
	case RW_OP_HEAD:
		ret = rw_worker_head(c->w, &a.head);
		a.status = ret < 0 ? -ret : 0;
		a.has_head = !ret;
		break;
	case RW_OP_STOP_AT:
		ret = rw_conn_do_stop(c);
		a.status = ret < 0 ? -ret : 0;
		break;
	}
	/* Registrations no transfer followed: the answer returns them. */
	c->ans_regs = c->piece_regs;
	c->piece_regs = 0;
	rw_conn_answer_later(c, &a);
	/* Pending before the inbox is free (rw_conn_ctl_arrived()). */
	smp_mb__before_atomic();
	atomic_set(&c->request_in, 0);
	return 1;
}

/*
 * Write notice @in about the job's move (its kind, and a stop's boundary,
 * set by the caller; the rest from the move's set) at @off of the peer's
 * inbox: 1 once posted, 0 if the move is gone, or a negative errno.
 */
static int rw_conn_notice_post(struct rw_conn *c,
			       struct rw_wire_notice_info *in, u32 off)
{
	struct rw_boxset *set = rw_job_boxes_copy(rw_worker_job(c->w), true);
	int n;

	if (IS_ERR_OR_NULL(set))
		return set ? PTR_ERR(set) : 0;
	in->seq = ++c->notice_seq;
	in->epoch = set->epoch;
	in->digest = rw_boxset_digest(set);
	if (in->kind == RW_NOTICE_MOVE)
		in->set = set;
	n = rw_wire_notice_pack((u8 *)c->outbox_buf + off,
				RW_WIRE_INBOX_LEN - off, in);
	kfree(set);
	if (n < 0)
		return n;
	n = rw_link_write_imm(&c->notice_cqe, c->id->qp, &c->outbox,
			      &c->peer_inbox, off, n,
			      RW_IMM(RW_IMM_NOTICE, in->seq, 0));
	return n ?: 1;
}

int rw_conn_stop_round(struct rw_conn *c)
{
	struct rw_wire_notice_info in = { .kind = RW_NOTICE_STOP };
	u64 stop = rw_job_move_stop_at(rw_worker_job(c->w));
	u32 chunk;
	int ret;

	/* Told already, no boundary, no inbox, or the move not told yet. */
	if (!stop || stop == c->stop_told || !c->peer_inbox.nr_segs ||
	    c->owner->observer || !c->noticed ||
	    atomic_read(&c->ep.sq_room) <= 0)
		return 0;
	/*
	 * Every iteration before the boundary stepped here before rank 0
	 * asked: an answer still owed for one is fresh, and goes first.
	 */
	for_each_set_bit(chunk, c->awaiting, c->nr_chunks)
		if (rw_worker_chunk_fresh(c->w, chunk))
			return 0;
	in.stop_before = (u32)stop;
	ret = rw_conn_notice_post(c, &in, RW_WIRE_STOP_OFF);
	if (ret > 0)
		c->stop_told = stop;
	return ret;
}

int rw_conn_notice_round(struct rw_conn *c)
{
	struct rw_wire_notice_info in = { .kind = RW_NOTICE_MOVE };
	u32 epoch = rw_job_move_epoch(rw_worker_job(c->w));
	int ret;

	/* Told already, no move, or no inbox to tell it in. */
	if (!epoch || epoch == c->noticed || !c->peer_inbox.nr_segs ||
	    atomic_read(&c->ep.sq_room) <= 0)
		return 0;
	ret = rw_conn_notice_post(c, &in, RW_WIRE_NOTICE_OFF);
	if (ret > 0)
		c->noticed = in.epoch;
	return ret;
}

void rw_conn_ctl_free(struct rw_conn *c)
{
	rw_win_vbuf_free(&c->piece, &c->piece_buf);
	rw_win_vbuf_free(&c->inbox, &c->inbox_buf);
	rw_win_vbuf_free(&c->outbox, &c->outbox_buf);
}
