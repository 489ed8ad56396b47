// SPDX-License-Identifier: GPL-2.0
/*
 * The worker host's end of the wire, its declaration (rdma/host.h): the
 * attachment's shared state (broken, declared) and what RW_IOC_DECLARE
 * and RW_IOC_SETUP do on an attached file.
 *
 * Declare computes the layout's size (the tensors alone fix it), allocates
 * this host's gradient and parameter buffers, registers them on every
 * link (the parameters remotely writable, segment by segment, as the
 * box's windows are), sends each link's setup (so the box knows every
 * link before it decides) and waits for the replies: their status is the
 * declare's answer, their geometry the run's. Then the box writes every
 * chunk's current parameters, each on the link it gives the chunk, and
 * declare returns once they are all in (so none can pass for the answer
 * to a push).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include "rw.h"
#include "params.h"
#include "chunk/layout.h"
#include "rdma/host.h"
#include "rdma/host_priv.h"
#include "rdma/link.h"
#include "rdma/win.h"
#include "rdma/wire.h"

/* ---- the attachment's state ---- */

void rw_remote_break(struct rw_remote *r, struct rw_remote_link *lk,
		     const char *why)
{
	u32 i;

	/* A move's switch tries a box again: the link alone is down. */
	if (lk && READ_ONCE(r->joining)) {
		WRITE_ONCE(lk->down, true);
		complete(&lk->cm_done);
		wake_up_all(&r->wq);
		return;
	}
	if (!READ_ONCE(r->error)) {
		WRITE_ONCE(r->error, -ECONNRESET);
		lk = lk ?: &r->links[0];
		/* A box of several: its id too (its reply's, once it came). */
		if (r->boxes && smp_load_acquire(&lk->got_reply))
			pr_warn_ratelimited("job %s rank %u: box %u at %pISpc: %s\n",
					    r->job, r->rank, lk->rep.box_id,
					    &lk->box, why);
		else
			pr_warn_ratelimited("job %s rank %u at %pISpc: %s\n",
					    r->job, r->rank, &lk->box, why);
	}
	for (i = 0; i < r->nr_links; i++)
		complete(&r->links[i].cm_done);
	wake_up_all(&r->wq);
}

int rw_remote_post_data_recv(struct rw_remote_link *lk)
{
	return rw_link_post_imm_recv(lk->id->qp, &lk->data_cqe);
}

/* ---- completions ---- */

/* A link's setup went out, and the registrations before it. */
void rw_remote_setup_done(struct rw_link *ep, struct ib_wc *wc)
{
	struct rw_remote_link *lk = rw_remote_link_ep(ep);

	atomic_add(lk->nr_regs + 1, &ep->sq_room);
	wake_up_all(&lk->r->wq);
}

/* The box's reply to a link's setup came. */
void rw_remote_ctl_done(struct rw_link *ep, struct ib_wc *wc)
{
	struct rw_remote_link *lk = rw_remote_link_ep(ep);
	struct rw_remote *r = lk->r;
	const char *why = "";

	ib_dma_sync_single_for_cpu(lk->id->device, lk->msg_dma,
				   RW_WIRE_MSG_MAX, DMA_FROM_DEVICE);
	if (wc->opcode != IB_WC_RECV || wc->wc_flags & IB_WC_WITH_IMM ||
	    rw_wire_reply_parse(lk->msg, wc->byte_len, &lk->rep, &why)) {
		rw_remote_break(r, lk, "a malformed setup reply");
		return;
	}
	if (!lk->rep.status && lk->rep.nr_chunks > r->max_chunks) {
		rw_remote_break(r, lk, "a reply with more chunks than the model");
		return;
	}
	if (!lk->rep.status &&
	    (lk->rep.nic != (rw_remote_nr_nics(r) ? lk->nic : 0) ||
	     lk->rep.nr_nics != rw_remote_nr_nics(r))) {
		rw_remote_break(r, lk, "a reply for another connection");
		return;
	}
	lk->nr_chunks = lk->rep.status ? 0 : lk->rep.nr_chunks;
	/* Keep the box's window: the receive buffer is freed later. */
	if (!lk->rep.status) {
		lk->box_segs = kmemdup(lk->rep.win.segs, lk->rep.win.nr_segs *
				       sizeof(*lk->box_segs), GFP_ATOMIC);
		if (!lk->box_segs) {
			rw_remote_break(r, lk, "no memory for the box's window");
			return;
		}
		lk->rep.win.segs = lk->box_segs;
		rw_remote_ctl_reply(lk);
	}
	rw_beat_heard(&ep->beat);
	/* Pairs with the acquires in rw_remote_declare() and data_done. */
	smp_store_release(&lk->got_reply, true);
	wake_up_all(&r->wq);
}

/* ---- declare and setup ---- */

static struct page *rw_remote_vpage(void *buf, u64 off)
{
	return vmalloc_to_page((u8 *)buf + off);
}

static struct page *rw_remote_grad_page(void *arg, u64 off)
{
	return rw_remote_vpage(((struct rw_remote *)arg)->grad, off);
}

static struct page *rw_remote_params_page(void *arg, u64 off)
{
	return rw_remote_vpage(((struct rw_remote *)arg)->params, off);
}

/* A link's registrations, receives and setup (@r->rdma held). */
static int rw_remote_send_setup(struct rw_remote_link *lk,
				const struct rw_tensor_desc *t, u32 n,
				u32 flags)
{
	struct ib_device *dev = lk->id->device;
	struct rw_remote *r = lk->r;
	struct rw_wire_setup_info si = {};
	struct rw_wire_seg_info *segs;
	struct rw_win_pages src;
	struct ib_sge sge;
	struct ib_send_wr wr = {
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
		.wr_cqe = &lk->setup_cqe.cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ib_recv_wr rwr = {
		.wr_cqe = &lk->ctl_cqe.cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};
	u32 shift, i;
	int ret;

	/* Windows hold whole chunks of any size the box may choose. */
	shift = rw_win_seg_shift(dev, RW_LAYOUT_CHUNK_MAX);
	if (!shift)
		return -EOPNOTSUPP;
	src.arg = r;
	src.len = r->l.geom.total_bytes;
	src.page = rw_remote_grad_page;
	/* An observer pushes nothing: no gradient buffer. */
	ret = r->observer ? 0 : rw_win_map(&lk->wgrad, lk->pd, &src, shift);
	if (ret)
		return ret;
	src.page = rw_remote_params_page;
	ret = rw_win_map(&lk->wparams, lk->pd, &src, shift);
	if (ret)
		return ret;
	lk->nr_regs = lk->wgrad.nr_segs + lk->wparams.nr_segs;
	/* Requests go on the first link alone (host_ctl.c). */
	if (rw_remote_link_asks(lk)) {
		ret = rw_remote_ctl_setup(lk, &lk->nr_regs);
		if (ret)
			return ret;
	}
	if (lk->nr_regs + 1 > lk->depth ||
	    !rw_wire_setup_size(lk->wparams.nr_segs, n))
		return -EFBIG;
	segs = kvcalloc(lk->wparams.nr_segs, sizeof(*segs), GFP_KERNEL);
	if (!segs)
		return -ENOMEM;
	ret = rw_link_buf_map(dev, RW_WIRE_MSG_MAX, DMA_FROM_DEVICE, &lk->msg,
			      &lk->msg_dma);
	if (!ret)
		ret = rw_link_buf_map(dev, RW_WIRE_MSG_MAX, DMA_TO_DEVICE,
				      &lk->out, &lk->out_dma);
	if (ret)
		goto out;

	/* The reply lands in the first receive; parameter writes after. */
	sge.addr = lk->msg_dma;
	sge.length = RW_WIRE_MSG_MAX;
	sge.lkey = lk->pd->local_dma_lkey;
	ret = ib_post_recv(lk->id->qp, &rwr, NULL);
	for (i = 1; !ret && i < lk->depth; i++)
		ret = rw_remote_post_data_recv(lk);
	if (ret)
		goto out;
	/* The setup's slot and the registrations' come back with its send. */
	atomic_set(&lk->ep.sq_room, lk->depth - lk->nr_regs - 1);
	ret = rw_win_post_reg(&lk->wgrad, lk->id->qp, &lk->reg_cqe.cqe, 0);
	if (!ret)
		ret = rw_win_post_reg(&lk->wparams, lk->id->qp, &lk->reg_cqe.cqe,
				      IB_ACCESS_LOCAL_WRITE |
				      IB_ACCESS_REMOTE_WRITE);
	if (!ret && rw_remote_link_asks(lk)) {
		ret = rw_remote_ctl_post_reg(lk);
		rw_remote_ctl_describe(lk, &si.inbox);
	}
	if (ret)
		goto out;

	/* The keys are the registrations' (each bumps its key). */
	rw_win_describe(&lk->wparams, segs);
	si.flags = flags;
	si.nr_tensors = n;
	si.win.seg_shift = shift;
	si.win.nr_segs = lk->wparams.nr_segs;
	ret = rw_wire_setup_pack(lk->out, RW_WIRE_MSG_MAX, &si, segs, t);
	if (ret < 0)
		goto out;
	sge.addr = lk->out_dma;
	sge.length = ret;
	ib_dma_sync_single_for_device(dev, lk->out_dma, sge.length,
				      DMA_TO_DEVICE);
	ret = ib_post_send(lk->id->qp, &wr, NULL);
	if (!ret)
		lk->out_len = sge.length;
out:
	kvfree(segs);
	return ret;
}

/* Every link's setup (@r->rdma held). */
static int rw_remote_send_setups(struct rw_remote *r,
				 const struct rw_tensor_desc *t, u32 n,
				 u32 flags)
{
	int ret = 0;
	u32 i;

	lockdep_assert_held(&r->rdma);
	for (i = 0; !ret && i < r->nr_links; i++)
		ret = r->links[i].id ?
		      rw_remote_send_setup(&r->links[i], t, n, flags) :
		      -ECONNRESET;
	return ret;
}

/* Every link's setup has its reply. */
static bool rw_remote_all_replied(struct rw_remote *r)
{
	u32 i;

	for (i = 0; i < r->nr_links; i++)
		/* Pairs with the release in rw_remote_ctl_done(). */
		if (!smp_load_acquire(&r->links[i].got_reply))
			return false;
	return true;
}

/* The box answered every link's setup, or the connection broke. */
static bool rw_remote_answered(struct rw_remote *r, void *arg)
{
	return READ_ONCE(r->error) || rw_remote_all_replied(r);
}

/* The first refusal among the links' replies, as a positive errno. */
static u32 rw_remote_refusal(struct rw_remote *r)
{
	u32 i;

	for (i = 0; i < r->nr_links; i++)
		/* Pairs with the release in rw_remote_ctl_done(). */
		if (smp_load_acquire(&r->links[i].got_reply) &&
		    r->links[i].rep.status)
			return r->links[i].rep.status;
	return 0;
}

/* Every chunk's first parameters arrived, or the connection broke. */
static bool rw_remote_all_in(struct rw_remote *r, void *arg)
{
	return bitmap_full(r->have, r->nr_chunks) || READ_ONCE(r->error);
}

/* Every link's reply agrees with the first one's, and with @r's kind. */
static int rw_remote_replies_agree(struct rw_remote *r)
{
	const struct rw_wire_reply_info *rep = &r->links[0].rep;
	const struct rw_wire_reply_info *reps[RW_WIRE_MAX_NICS];
	const char *why;
	int ret;
	u32 i;

	for (i = 0; i < r->nr_links; i++)
		reps[i] = &r->links[i].rep;
	ret = rw_wire_replies_check(reps, r->nr_links, &why);
	if (!ret && !!rep->nr_boxes != r->boxes) {
		ret = -EXDEV;
		why = rep->nr_boxes ?
		      "the job is spread over several boxes: name every box (RW_ATTACH_BOXES)" :
		      "the job is whole on one box (no RW_ATTACH_BOXES)";
	}
	if (ret == -EXDEV) {
		pr_warn_ratelimited("job %s rank %u: %s\n", r->job, r->rank,
				    why);
		return -EXDEV;
	}
	if (ret) {
		pr_warn_ratelimited("job %s rank %u: the box's replies disagree: %s\n",
				    r->job, r->rank, why);
		return -EPROTO;
	}
	return 0;
}

/*
 * The send queue's order and window, once the box set the chunk size
 * (rw_layout_order(); uapi "priority"; the push_window parameter).
 */
static int rw_remote_send_order(struct rw_remote *r)
{
	u32 n = r->nr_chunks, kib = rw_params_push_window();

	r->window = kib ? DIV_ROUND_UP(kib * 1024ULL, r->l.geom.chunk_size) : 0;
	r->prio_order = kvmalloc_array(n, sizeof(*r->prio_order), GFP_KERNEL);
	r->prio_rank = kvmalloc_array(n, sizeof(*r->prio_rank), GFP_KERNEL);
	if (!r->prio_order || !r->prio_rank)
		return -ENOMEM;
	if (rw_layout_order(&r->l, r->prio_order, r->prio_rank))
		return 0;
	kvfree(r->prio_order);
	kvfree(r->prio_rank);
	r->prio_order = NULL;
	r->prio_rank = NULL;
	return 0;
}

/*
 * The layout as the replies' chunk size cuts it; the geometry agrees
 * with the model and every link's reply agrees with the first one's.
 */
static int rw_remote_start(struct rw_remote *r)
{
	const struct rw_wire_reply_info *rep = &r->links[0].rep;
	u32 n = r->l.nr_tensors;
	int ret;

	ret = rw_remote_replies_agree(r);
	if (ret)
		return ret;
	/* A window to push into, unless this is an observer. */
	if (!rep->win.nr_segs != r->observer)
		return -EPROTO;
	if (rep->model_bytes != r->l.geom.total_bytes || rep->rank != r->rank ||
	    rw_layout_init(&r->l, r->lt, n, rep->chunk_size, r->offsets,
			   r->by_key) ||
	    r->l.geom.nr_chunks != rep->nr_chunks)
		return -EPROTO;
	r->nr_chunks = rep->nr_chunks;
	r->versions_len = PAGE_ALIGN((u64)rep->nr_chunks * sizeof(u64));
	/* Chunks above a page: the last one's padding maps too (uapi). */
	r->map_len = (u64)rep->nr_chunks * rep->chunk_size;
	if (r->map_len > r->buf_len) {
		if (!r->observer)
			r->grad_tail = vmalloc_user(r->map_len - r->buf_len);
		r->params_tail = vmalloc_user(r->map_len - r->buf_len);
		if ((!r->grad_tail && !r->observer) || !r->params_tail)
			return -ENOMEM;
	}
	return rw_remote_send_order(r);
}

/* What a declaration needs before the box can answer it. */
static int rw_remote_alloc(struct rw_remote *r, const struct rw_tensor_desc *t,
			   u32 n)
{
	struct rw_layout_geom g;
	u32 i, mc;
	int ret;

	r->lt = kvcalloc(n, sizeof(*r->lt), GFP_KERNEL);
	r->offsets = kvcalloc(n, sizeof(*r->offsets), GFP_KERNEL);
	r->by_key = kvcalloc(n, sizeof(*r->by_key), GFP_KERNEL);
	if (!r->lt || !r->offsets || !r->by_key)
		return -ENOMEM;
	/* worker.c checked the flags and every tensor before handing it on. */
	for (i = 0; i < n; i++) {
		r->lt[i].key = t[i].key;
		r->lt[i].nelems = t[i].nelems;
		r->lt[i].dtype = t[i].dtype;
		r->lt[i].priority = t[i].priority;
	}
	/* The size does not depend on the chunk size, which the box sets. */
	ret = rw_layout_measure(r->lt, n, RW_LAYOUT_CHUNK_MIN, &g);
	if (ret)
		return ret;
	r->l.nr_tensors = n;
	r->l.geom.total_bytes = g.total_bytes;
	r->buf_len = PAGE_ALIGN(g.total_bytes);
	/* Parameter writes land as soon as the reply: room for any geometry. */
	mc = g.nr_chunks;
	r->max_chunks = mc;
	if (!r->observer)
		r->grad = vmalloc_user(r->buf_len);
	r->params = vmalloc_user(r->buf_len);
	r->versions = vmalloc_user(PAGE_ALIGN((u64)mc * sizeof(u64)));
	r->have = bitmap_zalloc(mc, GFP_KERNEL);
	r->busy = bitmap_zalloc(mc, GFP_KERNEL);
	r->resent = bitmap_zalloc(mc, GFP_KERNEL);
	r->sel = bitmap_zalloc(mc, GFP_KERNEL);
	r->queued = bitmap_zalloc(mc, GFP_KERNEL);
	r->link_of = kvmalloc(mc, GFP_KERNEL);
	if ((!r->grad && !r->observer) || !r->params || !r->versions ||
	    !r->have || !r->busy || !r->queued ||
	    !r->resent || !r->sel || !r->link_of)
		return -ENOMEM;
	memset(r->link_of, r->nr_links > 1 ? RW_REMOTE_NO_LINK : 0, mc);
	return 0;
}

/* The replies to every link's setup: 0, or a refusal, or what broke. */
static int rw_remote_await_replies(struct rw_remote *r)
{
	u32 refusal;
	long left;

	left = wait_event_interruptible_timeout(r->wq,
						rw_remote_answered(r, NULL),
						msecs_to_jiffies(RW_REMOTE_CONNECT_MS));
	if (left < 0)
		return -ERESTARTSYS;
	if (!left)
		return -ETIMEDOUT;
	/*
	 * A refusal is the answer, though the box hangs up after it. The
	 * box hangs up once the reply is delivered, but the hang-up's event
	 * and the reply's completion come by different paths: a broken
	 * attachment gives a reply still due a moment to come.
	 */
	if (READ_ONCE(r->error))
		wait_event_timeout(r->wq, rw_remote_refusal(r) ||
				   rw_remote_all_replied(r),
				   msecs_to_jiffies(RW_REMOTE_REPLY_LATE_MS));
	refusal = rw_remote_refusal(r);
	if (refusal)
		return -(int)refusal;
	return READ_ONCE(r->error);
}

/*
 * The box writes every chunk's parameters first: wait for them, or one
 * of them could pass for the answer to this worker's first push.
 */
static int rw_remote_await_params(struct rw_remote *r)
{
	long left;

	left = wait_event_interruptible_timeout(r->wq, rw_remote_all_in(r, NULL),
						msecs_to_jiffies(RW_REMOTE_CONNECT_MS));
	if (left < 0)
		return -ERESTARTSYS;
	if (!left)
		return -ETIMEDOUT;
	return READ_ONCE(r->error);
}

static int rw_remote_declare_locked(struct rw_remote *r,
				    const struct rw_tensor_desc *t, u32 n,
				    u32 flags)
{
	int ret;

	if (flags & ~RW_DECLARE_FLAGS_ALL || !n)
		return -EINVAL;
	if (n > RW_MAX_TENSORS)
		return -E2BIG;
	ret = READ_ONCE(r->error);
	if (ret)
		return ret;
	/* One declaration per attachment: the box keeps the first. */
	if (r->lt)
		return r->declared ? -EEXIST : -EBUSY;
	ret = rw_remote_alloc(r, t, n);
	if (ret)
		return ret;

	r->flags = flags;
	mutex_lock(&r->rdma);
	ret = rw_remote_send_setups(r, t, n, flags);
	mutex_unlock(&r->rdma);
	if (ret)
		return ret;
	ret = rw_remote_await_replies(r);
	if (ret)
		return ret;
	ret = rw_remote_start(r);
	if (ret)
		return ret;
	ret = rw_remote_await_params(r);
	if (ret)
		return ret;
	/* Pairs with the acquires of setup, transfers, poll and mmap. */
	smp_store_release(&r->declared, true);
	return 0;
}

static bool rw_remote_link_replied(struct rw_remote_link *lk)
{
	/* Pairs with the release in rw_remote_ctl_done(). */
	return smp_load_acquire(&lk->got_reply);
}

bool rw_remote_link_settled(struct rw_remote_link *lk)
{
	return rw_remote_link_replied(lk) || READ_ONCE(lk->down);
}

int rw_remote_link_setup(struct rw_remote_link *lk,
			 const struct rw_tensor_desc *t)
{
	struct rw_remote *r = lk->r;
	int ret;

	mutex_lock(&r->rdma);
	ret = lk->id && !READ_ONCE(lk->down) ?
	      rw_remote_send_setup(lk, t, r->l.nr_tensors, r->flags) :
	      -ECONNRESET;
	mutex_unlock(&r->rdma);
	return ret;
}

int rw_remote_link_outcome(struct rw_remote_link *lk)
{
	struct rw_remote *r = lk->r;

	/* A refusal is the answer, though the box hangs up after it. */
	if (READ_ONCE(lk->down) && !rw_remote_link_replied(lk))
		wait_event_timeout(r->wq, rw_remote_link_replied(lk),
				   msecs_to_jiffies(RW_REMOTE_REPLY_LATE_MS));
	if (!rw_remote_link_replied(lk))
		return READ_ONCE(lk->down) ? -ECONNRESET : -ETIMEDOUT;
	if (lk->rep.status)
		return -(int)lk->rep.status;
	return READ_ONCE(lk->down) ? -ECONNRESET : 0;
}

int rw_remote_setup_joined(struct rw_remote *r, u32 epoch, u64 digest)
{
	const struct rw_wire_reply_info *rep = &r->links[0].rep;
	int ret = 0;
	u32 i;

	/* Joined: from here a link's break is the attachment's. */
	WRITE_ONCE(r->joining, false);
	for (i = 0; i < r->nr_links; i++)
		if (READ_ONCE(r->links[i].down))
			return -ECONNRESET;
	ret = rw_remote_replies_agree(r);
	if (ret)
		return ret;
	/* The set moved to, cutting the model as before. */
	if (rep->box_epoch != epoch || rep->box_digest != digest ||
	    rep->nr_boxes != r->nr_links) {
		pr_warn_ratelimited("job %s rank %u: the boxes of the new set are not at its epoch %u\n",
				    r->job, r->rank, epoch);
		return -EXDEV;
	}
	if (rep->model_bytes != r->l.geom.total_bytes || rep->rank != r->rank ||
	    rep->chunk_size != r->l.geom.chunk_size ||
	    rep->nr_chunks != r->nr_chunks)
		return -EPROTO;
	return rw_remote_await_params(r);
}

int rw_remote_declare(struct rw_remote *r, const struct rw_tensor_desc *t,
		      u32 n, u32 flags)
{
	int ret;

	if (mutex_lock_interruptible(&r->setup))
		return -ERESTARTSYS;
	ret = rw_remote_declare_locked(r, t, n, flags);
	mutex_unlock(&r->setup);
	return ret;
}

int rw_remote_setup(struct rw_remote *r, struct rw_setup *out)
{
	int ret = rw_remote_ready(r);

	if (ret)
		return ret;
	out->rank = r->rank;
	out->nr_workers = r->links[0].rep.nr_workers;
	out->chunk_size = r->links[0].rep.chunk_size;
	out->nr_chunks = r->nr_chunks;
	out->nr_tensors = r->l.nr_tensors;
	out->sync = r->links[0].rep.sync;
	out->model_bytes = r->l.geom.total_bytes;
	out->grad_offset = RW_MMAP_GRAD;
	out->grad_len = r->observer ? 0 : r->map_len;
	out->params_offset = RW_MMAP_PARAMS;
	out->params_len = r->map_len;
	out->versions_offset = RW_MMAP_VERSIONS;
	out->versions_len = r->versions_len;
	out->features = RW_FEATURES;
	out->node = NUMA_NO_NODE;
	out->epoch = r->links[0].rep.epoch;
	return 0;
}
