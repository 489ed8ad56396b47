// SPDX-License-Identifier: GPL-2.0
/*
 * The link of a gift, a move's chunks box to box (rdma/gift.h): a QP whose
 * completions the link's own work polls, a message buffer each way, reads
 * of the peer's window. Both ends use it: the giving box (rdma/give.c),
 * which connects, and the taking box (rdma/take.c), which accepted.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "rdma/gift.h"
#include "rdma/wire.h"

struct workqueue_struct *rw_gift_wq;
atomic_t rw_gift_aborts = ATOMIC_INIT(0);

/* The live links, for a device's removal. */
static DEFINE_SPINLOCK(rw_gift_lock);
static LIST_HEAD(rw_gift_links);

static void rw_gift_wc_error(struct rw_link *ep, struct ib_wc *wc,
			     const char *what)
{
	struct rw_gift_link *gl = container_of(ep, struct rw_gift_link, ep);

	if (wc->wr_cqe == &gl->recv_cqe.cqe)
		gl->recv_out = false;
	else if (wc->wr_cqe != &gl->reg_cqe.cqe)
		gl->busy--;
	/* A flush is the QP's end, ours or the peer's: no news. */
	if (wc->status == IB_WC_WR_FLUSH_ERR) {
		gl->error = gl->error ?: -ECONNRESET;
		return;
	}
	pr_warn_ratelimited("gift link: %s failed: %s\n", what,
			    ib_wc_status_msg(wc->status));
	gl->error = gl->error ?: -EIO;
}

static void rw_gift_sent(struct rw_link *ep, struct ib_wc *wc)
{
	container_of(ep, struct rw_gift_link, ep)->busy--;
}

static void rw_gift_received(struct rw_link *ep, struct ib_wc *wc)
{
	struct rw_gift_link *gl = container_of(ep, struct rw_gift_link, ep);

	gl->recv_out = false;
	ib_dma_sync_single_for_cpu(gl->id->device, gl->in_dma,
				   RW_WIRE_MSG_MAX, DMA_FROM_DEVICE);
	/* A message of no bytes is none: the parser refuses it. */
	gl->in_len = max_t(u32, wc->byte_len, 1);
}

int rw_gift_link_open(struct rw_gift_link *gl)
{
	struct ib_device *dev = gl->id->device;
	struct ib_qp_init_attr qpa = {};
	u32 depth = rw_link_depth(dev);
	int ret;

	INIT_LIST_HEAD(&gl->link);
	spin_lock(&rw_gift_lock);
	list_add(&gl->link, &rw_gift_links);
	spin_unlock(&rw_gift_lock);
	gl->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(gl->pd)) {
		ret = PTR_ERR(gl->pd);
		gl->pd = NULL;
		return ret;
	}
	gl->cq = ib_alloc_cq(dev, gl, rw_link_nr_cqe(depth), 0,
			     IB_POLL_DIRECT);
	if (IS_ERR(gl->cq)) {
		ret = PTR_ERR(gl->cq);
		gl->cq = NULL;
		return ret;
	}
	rw_link_qp_attr(&qpa, gl->cq, depth);
	ret = rdma_create_qp(gl->id, gl->pd, &qpa);
	if (ret)
		return ret;
	gl->has_qp = true;
	rw_link_init(&gl->ep, rw_gift_wc_error);
	rw_link_cqe_init(&gl->send_cqe, &gl->ep, "gift send", rw_gift_sent);
	rw_link_cqe_init(&gl->recv_cqe, &gl->ep, "gift receive",
			 rw_gift_received);
	rw_link_cqe_init(&gl->read_cqe, &gl->ep, "gift read", rw_gift_sent);
	/* Registrations are unsignaled: only a failed one completes. */
	rw_link_cqe_init(&gl->reg_cqe, &gl->ep, "gift registration", NULL);
	ret = rw_link_buf_map(dev, RW_WIRE_MSG_MAX, DMA_FROM_DEVICE, &gl->in,
			      &gl->in_dma);
	if (!ret)
		ret = rw_link_buf_map(dev, RW_WIRE_MSG_MAX, DMA_TO_DEVICE,
				      &gl->out, &gl->out_dma);
	return ret ?: rw_gift_link_recv(gl);
}

/* Poll once: what completed, handled here. */
static void rw_gift_link_poll(struct rw_gift_link *gl)
{
	ib_process_cq_direct(gl->cq, 16);
}

void rw_gift_link_stop(struct rw_gift_link *gl)
{
	unsigned long end = jiffies + msecs_to_jiffies(RW_GIFT_WAIT_MS);

	spin_lock(&rw_gift_lock);
	if (gl->link.next)
		list_del_init(&gl->link);
	spin_unlock(&rw_gift_lock);
	if (gl->has_qp && gl->connected) {
		/* The QP goes to error: everything out comes back flushed. */
		gl->error = gl->error ?: -ECONNRESET;
		rdma_disconnect(gl->id);
		while ((gl->busy > 0 || gl->recv_out) &&
		       time_before(jiffies, end)) {
			rw_gift_link_poll(gl);
			usleep_range(500, 1000);
		}
		if (gl->busy > 0 || gl->recv_out)
			pr_warn("gift link: transfers never came back\n");
	}
	if (gl->has_qp)
		rdma_destroy_qp(gl->id);
	gl->has_qp = false;
	gl->connected = false;
}

void rw_gift_link_close(struct rw_gift_link *gl)
{
	struct ib_device *dev = gl->id->device;

	rw_gift_link_stop(gl);
	rw_link_buf_unmap(dev, RW_WIRE_MSG_MAX, DMA_FROM_DEVICE, &gl->in,
			  gl->in_dma);
	rw_link_buf_unmap(dev, RW_WIRE_MSG_MAX, DMA_TO_DEVICE, &gl->out,
			  gl->out_dma);
	if (gl->cq)
		ib_free_cq(gl->cq);
	gl->cq = NULL;
	if (gl->pd)
		ib_dealloc_pd(gl->pd);
	gl->pd = NULL;
}

int rw_gift_link_send(struct rw_gift_link *gl, u32 len)
{
	struct ib_sge sge = {
		.addr = gl->out_dma, .length = len,
		.lkey = gl->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
		.wr_cqe = &gl->send_cqe.cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};
	int ret;

	ib_dma_sync_single_for_device(gl->id->device, gl->out_dma, len,
				      DMA_TO_DEVICE);
	ret = ib_post_send(gl->id->qp, &wr, NULL);
	if (!ret)
		gl->busy++;
	return ret;
}

int rw_gift_link_recv(struct rw_gift_link *gl)
{
	struct ib_sge sge = {
		.addr = gl->in_dma, .length = RW_WIRE_MSG_MAX,
		.lkey = gl->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &gl->recv_cqe.cqe, .sg_list = &sge, .num_sge = 1,
	};
	int ret;

	gl->in_len = 0;
	ret = ib_post_recv(gl->id->qp, &wr, NULL);
	if (!ret)
		gl->recv_out = true;
	return ret;
}

int rw_gift_link_read(struct rw_gift_link *gl, u64 addr, u32 lkey,
		      const struct rw_wire_win *win, u64 off, u32 len)
{
	u64 seg = 1ULL << win->seg_shift;
	struct rw_wire_seg_info at;
	struct ib_sge sge = { .lkey = lkey };
	struct ib_rdma_wr wr = {
		.wr.opcode = IB_WR_RDMA_READ,
		.wr.send_flags = IB_SEND_SIGNALED,
		.wr.wr_cqe = &gl->read_cqe.cqe,
		.wr.sg_list = &sge,
		.wr.num_sge = 1,
	};
	u32 done, n;
	int ret;

	for (done = 0; done < len; done += n) {
		n = (u32)min_t(u64, len - done, seg - ((off + done) & (seg - 1)));
		rw_wire_win_at(win, off + done, &at);
		sge.addr = addr + done;
		sge.length = n;
		wr.remote_addr = at.addr;
		wr.rkey = at.rkey;
		ret = ib_post_send(gl->id->qp, &wr.wr, NULL);
		if (ret)
			return ret;
		gl->busy++;
	}
	return 0;
}

int rw_gift_link_wait(struct rw_gift_link *gl, bool msg, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	for (;;) {
		rw_gift_link_poll(gl);
		if (gl->error)
			return gl->error;
		if (msg ? gl->in_len : !gl->busy)
			return 0;
		if (READ_ONCE(gl->gone))
			return -ECONNRESET;
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		usleep_range(500, 1000);
	}
}

void rw_gift_dev_gone(struct ib_device *dev)
{
	struct rw_gift_link *gl;

	/* Their works stop waiting, close and destroy their ids. */
	atomic_inc(&rw_gift_aborts);
	spin_lock(&rw_gift_lock);
	list_for_each_entry(gl, &rw_gift_links, link)
		if (!dev || gl->id->device == dev)
			WRITE_ONCE(gl->gone, true);
	spin_unlock(&rw_gift_lock);
	/* rmmod ends the links before the devices' clients go. */
	if (rw_gift_wq)
		flush_workqueue(rw_gift_wq);
}

int rw_gift_init(void)
{
	rw_gift_wq = alloc_workqueue("rackweave_gift", WQ_UNBOUND, 0);
	return rw_gift_wq ? 0 : -ENOMEM;
}

void rw_gift_exit(void)
{
	destroy_workqueue(rw_gift_wq);
	rw_gift_wq = NULL;
}
