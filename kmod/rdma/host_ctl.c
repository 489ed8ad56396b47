// SPDX-License-Identifier: GPL-2.0
/*
 * The worker host's requests to the box (rdma/host.h; uapi "Requests"):
 * initial parameters (RW_IOC_PARAMS_INIT, its set and its wait) and
 * checkpoints (RW_IOC_CHECKPOINT, RW_INIT_CHECKPOINT) of an attached
 * file, asked on the attachment's first link and answered by the box's
 * agent.
 *
 * Link 0 maps an inbox, which the box may write (answers land there, each
 * WITH IMMEDIATE on a parameter receive), and an outbox, from which a
 * request is written into the box's inbox, spending a credit as a push
 * does. One request is out at a time, under the attachment's transfer
 * lock; a caller interrupted before its answer leaves it to the next one,
 * which waits for that answer first.
 *
 * An init copies the chosen chunks from the caller into a buffer of the
 * model's size, registers it (remotely readable, on link 0 only) and asks;
 * the box reads them straight into its parameters and answers. The buffer
 * goes once the answer is in, or the link is gone: never while the box
 * may still read it. A restore goes the same way: the whole of what the
 * caller gives (a checkpoint's head and image) copied and read. A save
 * goes the other way: the buffer, remotely writable, is the image's; the
 * box writes it with the gate held and answers with the head, and the
 * buffer is copied to the caller.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "rw.h"
#include "chunk/boxset.h"
#include "chunk/layout.h"
#include "rdma/host.h"
#include "rdma/host_priv.h"
#include "rdma/link.h"
#include "rdma/win.h"
#include "rdma/wire.h"
#include "rdma/wire_priv.h"
#include "worker_xfer.h"

#define RW_REMOTE_INBOX_SHIFT	16
static_assert(RW_WIRE_INBOX_LEN == 1U << RW_REMOTE_INBOX_SHIFT, "inbox size");

/* The box took the request (its answer comes on a parameter receive). */
static void rw_remote_req_done(struct rw_link *ep, struct ib_wc *wc)
{
	struct rw_remote_link *lk = rw_remote_link_ep(ep);

	atomic_dec(&lk->unacked);
	/* The registrations posted before it are done with as well. */
	atomic_add(READ_ONCE(lk->req_regs) + 1, &ep->sq_room);
	WRITE_ONCE(lk->req_regs, 0);
	rw_beat_heard(&ep->beat);
	wake_up_all(&lk->r->wq);
}

void rw_remote_ctl_init(struct rw_remote_link *lk)
{
	rw_link_cqe_init(&lk->req_cqe, &lk->ep, "request", rw_remote_req_done);
}

int rw_remote_ctl_setup(struct rw_remote_link *lk, u32 *regs)
{
	int ret;

	ret = rw_win_vbuf(&lk->inbox, &lk->inbox_buf, lk->pd,
			  RW_WIRE_INBOX_LEN, RW_REMOTE_INBOX_SHIFT);
	if (!ret)
		ret = rw_win_vbuf(&lk->outbox, &lk->outbox_buf, lk->pd,
				  RW_WIRE_INBOX_LEN, RW_REMOTE_INBOX_SHIFT);
	/* A notice's set is decoded here, in a completion handler. */
	if (!ret && !lk->notice_set) {
		lk->notice_set = kzalloc(sizeof(*lk->notice_set), GFP_KERNEL);
		ret = lk->notice_set ? 0 : -ENOMEM;
	}
	if (ret)
		return ret;
	*regs += lk->inbox.nr_segs + lk->outbox.nr_segs;
	return 0;
}

/*
 * Where the notice an immediate with @seq announces lies: a move's at
 * RW_WIRE_NOTICE_OFF, its stop at RW_WIRE_STOP_OFF, the one whose seq is
 * @seq and above the last one taken (the other holds an older notice, or
 * nothing). 0 if neither.
 */
static u32 rw_remote_notice_off(struct rw_remote_link *lk, u32 seq)
{
	static const u32 offs[] = { RW_WIRE_NOTICE_OFF, RW_WIRE_STOP_OFF };
	const struct rw_wire_notice *h;
	u32 i, s;

	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		h = (const void *)((u8 *)lk->inbox_buf + offs[i]);
		s = le32_to_cpu(READ_ONCE(h->seq));
		if ((s & RW_IMM_CLOCK_MASK) == (seq & RW_IMM_CLOCK_MASK) &&
		    s > lk->notice_seq)
			return offs[i];
	}
	return 0;
}

bool rw_remote_notice_in(struct rw_remote_link *lk, u32 byte_len, u32 seq)
{
	struct rw_remote *r = lk->r;
	struct rw_wire_notice_info n;
	u32 off = rw_remote_notice_off(lk, seq);
	const char *why = "";
	bool at_stop = off == RW_WIRE_STOP_OFF;
	bool stop;

	if (!lk->notice_set || !off || byte_len > RW_WIRE_INBOX_LEN - off ||
	    rw_wire_notice_parse((u8 *)lk->inbox_buf + off, byte_len,
				 lk->notice_set, &n, &why))
		return false;
	stop = n.kind == RW_NOTICE_STOP;
	if (stop != at_stop)
		return false;
	lk->notice_seq = n.seq;
	rw_beat_heard(&lk->ep.beat);
	/* A stop names the move told before it, by epoch and digest. */
	if (stop) {
		if (!lk->noticed || n.epoch != lk->noticed ||
		    rw_boxset_digest(lk->notice_set) != n.digest)
			return false;
		if (READ_ONCE(lk->stopped) == n.epoch)
			return true;
		lk->stop_before = n.stop_before;
		/* Pairs with the acquire in rw_remote_switch_due(). */
		smp_store_release(&lk->stopped, n.epoch);
		WRITE_ONCE(r->stop_seen, true);
		pr_info("job %s rank %u: box %u stops the run before iteration %u for the move to epoch %u\n",
			r->job, r->rank, lk->rep.box_id, n.stop_before,
			n.epoch);
		wake_up_all(&r->wq);
		return true;
	}
	/* A move names a good set, its digest its own, once. */
	if (rw_boxset_check(lk->notice_set, false, &why) ||
	    rw_boxset_digest(lk->notice_set) != n.digest)
		return false;
	if (n.epoch == READ_ONCE(lk->noticed))
		return true;
	/* Pairs with the acquire in rw_remote_move_known(). */
	smp_store_release(&lk->noticed, n.epoch);
	pr_info("job %s rank %u: box %u says the job moves to box set epoch %u (%u boxes)\n",
		r->job, r->rank, lk->rep.box_id, n.epoch, lk->notice_set->nr);
	wake_up_all(&r->wq);
	return true;
}

int rw_remote_ctl_post_reg(struct rw_remote_link *lk)
{
	int ret;

	ret = rw_win_post_reg(&lk->inbox, lk->id->qp, &lk->reg_cqe.cqe,
			      IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE);
	return ret ?: rw_win_post_reg(&lk->outbox, lk->id->qp,
				      &lk->reg_cqe.cqe, 0);
}

void rw_remote_ctl_describe(struct rw_remote_link *lk,
			    struct rw_wire_seg_info *inbox)
{
	rw_win_describe(&lk->inbox, inbox);
}

void rw_remote_ctl_reply(struct rw_remote_link *lk)
{
	const struct rw_wire_seg_info *in = &lk->rep.inbox;

	if (!rw_remote_link_asks(lk) || (!in->addr && !in->rkey))
		return;
	rw_wire_segs_pack((u8 *)&lk->box_inbox_seg, in, 1);
	lk->box_inbox.seg_shift = RW_REMOTE_INBOX_SHIFT;
	lk->box_inbox.segs = &lk->box_inbox_seg;
	lk->box_inbox.nr_segs = 1;
}

bool rw_remote_answer_in(struct rw_remote_link *lk, u32 byte_len, u32 seq)
{
	struct rw_remote *r = lk->r;
	struct rw_wire_answer_info a;
	const char *why = "";

	/* The link asked answers, echoing the request's sequence. */
	if (lk->nic != READ_ONCE(r->ask_nic) || !READ_ONCE(r->asking) ||
	    READ_ONCE(r->answered) ||
	    byte_len > RW_WIRE_INBOX_LEN ||
	    rw_wire_answer_parse(lk->inbox_buf, byte_len, &a, &why) ||
	    a.seq != r->seq || (seq & RW_IMM_CLOCK_MASK) !=
	    (r->seq & RW_IMM_CLOCK_MASK))
		return false;
	r->ans = a;
	rw_beat_heard(&lk->ep.beat);
	/* Pairs with the acquire in rw_remote_answered(). */
	smp_store_release(&r->answered, true);
	wake_up_all(&r->wq);
	return true;
}

void rw_remote_ctl_free(struct rw_remote_link *lk)
{
	kfree(lk->notice_set);
	lk->notice_set = NULL;
	rw_win_vbuf_free(&lk->inbox, &lk->inbox_buf);
	rw_win_vbuf_free(&lk->outbox, &lk->outbox_buf);
}

/* ---- asking ---- */

static bool rw_remote_answered(struct rw_remote *r)
{
	/* Pairs with the release in rw_remote_answer_in(). */
	return smp_load_acquire(&r->answered) || READ_ONCE(r->error);
}

/* Room for @regs registrations and the request, and a credit. */
static bool rw_remote_req_room(struct rw_remote_link *lk, u32 regs)
{
	return (atomic_read(&lk->ep.sq_room) > (int)regs &&
		atomic_read(&lk->unacked) < (int)lk->rep.credits) ||
	       READ_ONCE(lk->r->error);
}

/*
 * Wait for the answer of the request out. @hold: a buffer the box may
 * read until it answers: no signal ends this wait (it naps in steps, so
 * a long one is no hung task).
 */
static int rw_remote_await(struct rw_remote *r, bool hold)
{
	while (hold) {
		if (wait_event_timeout(r->wq, rw_remote_answered(r), 10 * HZ))
			return READ_ONCE(r->error);
	}
	if (wait_event_interruptible(r->wq, rw_remote_answered(r)))
		return -ERESTARTSYS;
	return READ_ONCE(r->error);
}

/*
 * Every chunk's parameters as set now: on a link whose setup reply said
 * they were set its first writes carried them, on any other its re-send
 * (RW_IMM_RESEND) must have come.
 */
static bool rw_remote_resends_in(struct rw_remote *r, void *arg)
{
	u32 c;

	for (c = 0; c < r->nr_chunks; c++) {
		const struct rw_remote_link *lk = &r->links[READ_ONCE(r->link_of[c])];

		if (!(lk->rep.flags & RW_WIRE_PARAMS_SET) &&
		    !test_bit(c, r->resent))
			return false;
	}
	return true;
}

/*
 * After an answer that saw the parameters set: the next pull must see
 * them, so wait for the other links' re-sends too (the asking link's came
 * before its answer).
 */
static int rw_remote_after_set(struct rw_remote *r)
{
	long left;

	if (!(r->ans.flags & RW_WIRE_PARAMS_SET) || r->nr_links < 2)
		return 0;
	left = wait_event_timeout(r->wq, rw_remote_resends_in(r, NULL) ||
				  READ_ONCE(r->error),
				  msecs_to_jiffies(RW_REMOTE_CONNECT_MS));
	if (!left)
		return -ETIMEDOUT;
	return READ_ONCE(r->error);
}

/*
 * Ask @req (its seq is set here) on link @nic (one that asks) with @runs,
 * and @reg, a window to register and describe in it first (or NULL;
 * @segs has room for its segments), then wait for the answer: its status
 * as a negative errno, or what broke. @r->xfer held.
 */
static int rw_remote_ask(struct rw_remote *r, u32 nic,
			 struct rw_wire_request_info *req,
			 const struct rw_wire_run_info *runs,
			 struct rw_win *reg, struct rw_wire_seg_info *segs)
{
	struct rw_remote_link *lk = &r->links[nic];
	u32 regs = reg ? reg->nr_segs : 0;
	long tmo = msecs_to_jiffies(RW_REMOTE_CONNECT_MS);
	int n, ret;

	lockdep_assert_held(&r->xfer);
	if (!lk->box_inbox.nr_segs)
		return -EOPNOTSUPP;
	if (!rw_wire_request_size(req->win.nr_segs, req->nr_runs) ||
	    regs + 2 > lk->depth)
		return -E2BIG;
	/* An earlier caller's answer first (it was interrupted). */
	if (r->asking) {
		ret = rw_remote_await(r, false);
		if (ret)
			return ret;
		r->asking = false;
	}
	WRITE_ONCE(r->ask_nic, nic);
	if (!wait_event_timeout(r->wq, rw_remote_req_room(lk, regs), tmo))
		return -ETIMEDOUT;
	mutex_lock(&r->rdma);
	ret = -ECONNRESET;
	if (lk->id && !READ_ONCE(r->error)) {
		/* Keys are the registration's: posted, then described. */
		ret = reg ? rw_win_post_reg(reg, lk->id->qp, &lk->reg_cqe.cqe,
					    req->op == RW_OP_SAVE ?
					    IB_ACCESS_LOCAL_WRITE |
					    IB_ACCESS_REMOTE_WRITE :
					    IB_ACCESS_REMOTE_READ) : 0;
		if (!ret) {
			if (reg)
				rw_win_describe(reg, segs);
			req->seq = r->seq + 1;
			n = rw_wire_request_pack(lk->outbox_buf,
						 RW_WIRE_INBOX_LEN, req, segs,
						 runs);
			atomic_sub(regs, &lk->ep.sq_room);
			WRITE_ONCE(lk->req_regs, regs);
			r->seq = req->seq;
			WRITE_ONCE(r->answered, false);
			WRITE_ONCE(r->asking, true);
			atomic_inc(&lk->unacked);
			ret = rw_link_write_imm(&lk->req_cqe, lk->id->qp,
						&lk->outbox, &lk->box_inbox, 0,
						n, RW_IMM(RW_IMM_REQUEST,
							  req->seq, 0));
			if (ret) {
				atomic_dec(&lk->unacked);
				WRITE_ONCE(r->asking, false);
			}
		}
	}
	mutex_unlock(&r->rdma);
	if (ret)
		return ret;
	ret = rw_remote_await(r, reg);
	if (ret)
		return ret;
	r->asking = false;
	if (r->ans.status)
		return -(int)r->ans.status;
	/* A box of several re-sends its chunks before it answers. */
	if (req->op == RW_OP_HEAD || req->op == RW_OP_SAVE || r->boxes)
		return 0;
	return rw_remote_after_set(r);
}

int rw_remote_ask_stop(struct rw_remote *r, u32 *nr_set)
{
	struct rw_wire_request_info req = { .op = RW_OP_STOP_AT };
	int ret = 0;
	u32 i;

	*nr_set = 0;
	for (i = 0; !ret && i < r->nr_links; i++) {
		ret = rw_remote_ask(r, i, &req, NULL, NULL, NULL);
		*nr_set += !ret;
	}
	return ret;
}

/* The links a request for the whole run goes to: one, or every box. */
static u32 rw_remote_nr_asked(const struct rw_remote *r)
{
	return r->boxes ? r->nr_links : 1;
}

/* @req asked of every box in turn (one box: link 0): the first error. */
static int rw_remote_ask_simple(struct rw_remote *r,
				struct rw_wire_request_info *req)
{
	int ret = 0;
	u32 i;

	if (mutex_lock_interruptible(&r->xfer))
		return -ERESTARTSYS;
	for (i = 0; !ret && i < rw_remote_nr_asked(r); i++)
		ret = rw_remote_ask(r, i, req, NULL, NULL, NULL);
	mutex_unlock(&r->xfer);
	return ret;
}

/* The chosen chunks (@r->sel) as runs of consecutive chunks. */
static struct rw_wire_run_info *rw_remote_runs(struct rw_remote *r, u32 *nr)
{
	struct rw_wire_run_info *runs;
	unsigned int start, end = 0;
	u32 n = 0;

	for_each_set_bitrange(start, end, r->sel, r->nr_chunks)
		n++;
	runs = kvmalloc_array(max(n, 1U), sizeof(*runs), GFP_KERNEL);
	if (!runs)
		return NULL;
	n = 0;
	for_each_set_bitrange(start, end, r->sel, r->nr_chunks) {
		runs[n].first = start;
		runs[n].count = end - start;
		n++;
	}
	*nr = n;
	return runs;
}

/* Copy the chosen runs of the caller's @data into @stage. */
static int rw_remote_stage_fill(struct rw_remote *r, void *stage,
				const struct rw_wire_run_info *runs, u32 nr,
				u64 data)
{
	u32 shift = r->l.geom.chunk_shift, i;
	u64 from, to;

	for (i = 0; i < nr; i++) {
		from = (u64)runs[i].first << shift;
		to = min_t(u64, (u64)(runs[i].first + runs[i].count) << shift,
			   r->buf_len);
		if (copy_from_user((u8 *)stage + from,
				   u64_to_user_ptr(data + from), to - from))
			return -EFAULT;
	}
	return 0;
}

/* What the caller gives, for a staged request's buffer. */
struct rw_remote_src {
	u64 data;			/* the caller's address */
	u64 len;			/* RW_OP_RESTORE: all of it */
	const struct rw_wire_run_info *runs;	/* RW_OP_INIT: these runs */
	u32 nr_runs;
};

/* Fill @buf (the model's bytes, or head and image) from @src. */
static int rw_remote_src_copy(struct rw_remote *r, void *buf,
			      const struct rw_remote_src *src)
{
	if (!src->runs)
		return copy_from_user(buf, u64_to_user_ptr(src->data),
				      src->len) ? -EFAULT : 0;
	return rw_remote_stage_fill(r, buf, src->runs, src->nr_runs,
				    src->data);
}

/*
 * Ask @req with a window over a buffer of @len bytes of this host's:
 * filled from @src first, which the box reads; or (@src NULL) which the
 * box writes, copied to the caller's @out once answered.
 */
/*
 * From @stage, a box's image (docs/design.md "Many boxes": whole-model in
 * shape), the parts of the chunks that box holds, those on link @nic,
 * into the caller's image at @out (@len bytes): each array's chunk and
 * its version.
 */
static int rw_remote_copy_owned(struct rw_remote *r, u32 nic,
				const u8 *stage, u64 out, u64 len)
{
	u32 ics = rw_layout_image_chunk(&r->l), c, a, arrays;
	u64 blen = (u64)r->nr_chunks * ics;
	u64 vers = (u64)r->nr_chunks * sizeof(u64), at;

	if (len < vers || (len - vers) % blen)
		return -EINVAL;
	arrays = (u32)((len - vers) / blen);
	for (c = 0; c < r->nr_chunks; c++) {
		if (READ_ONCE(r->link_of[c]) != nic)
			continue;
		for (a = 0; a < arrays; a++) {
			at = (u64)a * blen + (u64)c * ics;
			if (copy_to_user(u64_to_user_ptr(out + at), stage + at,
					 ics))
				return -EFAULT;
		}
		at = (u64)arrays * blen + (u64)c * sizeof(u64);
		if (copy_to_user(u64_to_user_ptr(out + at), stage + at,
				 sizeof(u64)))
			return -EFAULT;
	}
	return 0;
}

static int rw_remote_ask_staged(struct rw_remote *r, u32 nic,
				struct rw_wire_request_info *req, u64 len,
				const struct rw_remote_src *src, u64 out)
{
	struct rw_remote_link *lk = &r->links[nic];
	struct rw_wire_seg_info *segs = NULL;
	struct rw_win stage = {};
	void *buf = NULL;
	int ret;

	ret = rw_win_vbuf(&stage, &buf, lk->pd, len, lk->wparams.seg_shift);
	if (!ret && src)
		ret = rw_remote_src_copy(r, buf, src);
	if (ret)
		goto out;
	segs = kvcalloc(stage.nr_segs, sizeof(*segs), GFP_KERNEL);
	ret = -ENOMEM;
	if (!segs)
		goto out;
	req->win.seg_shift = stage.seg_shift;
	req->win.nr_segs = stage.nr_segs;
	ret = rw_remote_ask(r, nic, req, src ? src->runs : NULL, &stage, segs);
	/* A box of several: its own chunks only, the others' are theirs. */
	if (!ret && !src && r->boxes)
		ret = rw_remote_copy_owned(r, nic, buf, out, len);
	else if (!ret && !src && copy_to_user(u64_to_user_ptr(out), buf, len))
		ret = -EFAULT;
out:
	/* The box answered, or the link broke: nothing reads it now. */
	rw_win_vbuf_free(&stage, &buf);
	kvfree(segs);
	return ret;
}

/* RW_OP_INIT: the chosen chunks of @data set as the run's first. */
static int rw_remote_init_set(struct rw_remote *r, u64 data)
{
	struct rw_wire_request_info req = { .op = RW_OP_INIT };
	struct rw_remote_src src = { .data = data };
	struct rw_wire_run_info *runs;
	int ret;
	u32 i;

	runs = rw_remote_runs(r, &req.nr_runs);
	if (!runs)
		return -ENOMEM;
	src.runs = runs;
	src.nr_runs = req.nr_runs;
	ret = req.nr_runs ? 0 : -EINVAL;
	/* Every box reads its own chunks of the same runs. */
	for (i = 0; !ret && i < rw_remote_nr_asked(r); i++)
		ret = rw_remote_ask_staged(r, i, &req, r->buf_len, &src, 0);
	kvfree(runs);
	return ret;
}

/* RW_OP_RESTORE: @len bytes at @data, a checkpoint's head then image. */
static int rw_remote_restore(struct rw_remote *r, u64 data, u64 len)
{
	struct rw_wire_request_info req = { .op = RW_OP_RESTORE };
	struct rw_remote_src src = { .data = data, .len = len };
	int ret = 0;
	u32 i;

	if (len < sizeof(struct rw_ckpt_head))
		return -EINVAL;
	/* Every box reads the whole image and keeps its own chunks of it. */
	for (i = 0; !ret && i < rw_remote_nr_asked(r); i++)
		ret = rw_remote_ask_staged(r, i, &req, len, &src, 0);
	return ret;
}

int rw_remote_params_init(struct rw_remote *r, const struct rw_range *rg,
			  u32 nr, u32 flags, u64 data, u64 len, u32 timeout_ms)
{
	struct rw_wire_request_info req = {};
	int ret;

	ret = rw_remote_ready(r);
	if (ret)
		return ret;
	/* As a local observer's: it may restore, not set or wait. */
	if (r->observer && !(flags & RW_INIT_CHECKPOINT))
		return -EPERM;
	if (flags & RW_INIT_CHECKPOINT) {
		if (flags != RW_INIT_CHECKPOINT || nr)
			return -EINVAL;
		if (mutex_lock_interruptible(&r->xfer))
			return -ERESTARTSYS;
		ret = rw_remote_restore(r, data, len);
		mutex_unlock(&r->xfer);
		return ret;
	}
	if (flags & RW_INIT_WAIT) {
		if (nr || data || len)
			return -EINVAL;
		req.op = RW_OP_INIT_WAIT;
		req.timeout_ms = timeout_ms;
		return rw_remote_ask_simple(r, &req);
	}
	/* The parameter buffer's length, as the setup gives it. */
	if (len != r->map_len)
		return -EINVAL;
	if (mutex_lock_interruptible(&r->xfer))
		return -ERESTARTSYS;
	ret = rw_xfer_select(&r->l, rg, nr, flags & RW_INIT_KEYS, r->sel);
	if (!ret)
		ret = rw_remote_init_set(r, data);
	mutex_unlock(&r->xfer);
	return ret;
}

/* RW_CKPT_HEAD_ONLY: the run's head. */
static int rw_remote_head(struct rw_remote *r, struct rw_ckpt_head *h)
{
	struct rw_wire_request_info req = { .op = RW_OP_HEAD };
	int ret;

	ret = rw_remote_ready(r);
	if (ret)
		return ret;
	if (mutex_lock_interruptible(&r->xfer))
		return -ERESTARTSYS;
	ret = rw_remote_ask(r, 0, &req, NULL, NULL, NULL);
	if (!ret)
		*h = r->ans.head;
	mutex_unlock(&r->xfer);
	return ret;
}

/*
 * RW_OP_SAVE: the run's image into @len bytes at @data, its head into
 * *@h. @len must be the run's image as a head asked first gives it; the
 * box writes the image into a buffer of this host's, copied out once it
 * has answered.
 */
static int rw_remote_save(struct rw_remote *r, u32 timeout_ms, u64 data,
			  u64 len, struct rw_ckpt_head *h)
{
	struct rw_wire_request_info req;
	bool any = false;
	u64 step = 0;
	int ret;
	u32 i;

	/*
	 * Each box in turn (one box: link 0), each image's own chunks into
	 * the caller's: the job's image whole, restorable on any set.
	 */
	for (i = 0; i < rw_remote_nr_asked(r); i++) {
		memset(&req, 0, sizeof(req));
		req.op = RW_OP_HEAD;
		ret = rw_remote_ask(r, i, &req, NULL, NULL, NULL);
		if (ret)
			return ret;
		if (len != r->ans.head.image_len)
			return -EINVAL;
		memset(&req, 0, sizeof(req));
		req.op = RW_OP_SAVE;
		req.timeout_ms = timeout_ms;
		ret = rw_remote_ask_staged(r, i, &req, len, NULL, data);
		if (ret)
			return ret;
		/* The run changed between the two: its image is not this length. */
		if (r->ans.head.image_len != len)
			return -EINVAL;
		/*
		 * Under BSP every box holding chunks has stepped as often at
		 * the boundary it held, if they held the same one (a trainer's
		 * save holds each at its own clock); boxes that did not: try
		 * again.
		 */
		if (r->boxes && !r->links[i].rep.nr_own)
			continue;
		if (any && r->links[i].rep.sync == RW_SYNC_BSP &&
		    r->ans.head.step != step)
			return -EAGAIN;
		if (!any || r->ans.head.step > step)
			*h = r->ans.head;
		step = max(step, r->ans.head.step);
		any = true;
	}
	return any ? 0 : -EINVAL;
}

int rw_remote_checkpoint(struct rw_remote *r, u32 flags, u32 timeout_ms,
			 u64 head, u64 data, u64 len)
{
	struct rw_ckpt_head h;
	int ret;

	if (flags & RW_CKPT_HEAD_ONLY) {
		ret = rw_remote_head(r, &h);
	} else {
		ret = rw_remote_ready(r);
		if (ret)
			return ret;
		if (mutex_lock_interruptible(&r->xfer))
			return -ERESTARTSYS;
		ret = rw_remote_save(r, timeout_ms, data, len, &h);
		mutex_unlock(&r->xfer);
	}
	if (!ret && copy_to_user(u64_to_user_ptr(head), &h, sizeof(h)))
		ret = -EFAULT;
	return ret;
}
