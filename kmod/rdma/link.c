// SPDX-License-Identifier: GPL-2.0
/*
 * What both ends of the RDMA wire share: the box's side (rdma/conn.c,
 * rdma/data.c) and the worker host's (rdma/host_*.c) size and connect
 * their queue pairs alike, keep the same heartbeat (link.h, "Heartbeats")
 * and take every completion through rw_link_done(), which sends a failure
 * to the end's one failure function and a good completion to the work
 * request's own. Neither end's code is here: only what both would
 * otherwise write twice.
 */
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "rdma/auth.h"
#include "rdma/link.h"
#include "rdma/win.h"

static void rw_link_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rw_link_cqe *lc = container_of(wc->wr_cqe, struct rw_link_cqe,
					      cqe);

	if (wc->status != IB_WC_SUCCESS || !lc->ok)
		lc->ep->fail(lc->ep, wc, lc->what);
	else
		lc->ok(lc->ep, wc);
}

void rw_link_cqe_init(struct rw_link_cqe *lc, struct rw_link *ep,
		      const char *what,
		      void (*ok)(struct rw_link *ep, struct ib_wc *wc))
{
	lc->cqe.done = rw_link_done;
	lc->ep = ep;
	lc->what = what;
	lc->ok = ok;
}

/* A heartbeat's good completion: its room back, the peer heard, none out. */
static void rw_link_beat_done(struct rw_link *ep, struct ib_wc *wc)
{
	atomic_inc(&ep->sq_room);
	rw_beat_heard(&ep->beat);
	atomic_set(&ep->beat.out, 0);
}

void rw_link_init(struct rw_link *ep,
		  void (*fail)(struct rw_link *ep, struct ib_wc *wc,
			       const char *what))
{
	ep->fail = fail;
	rw_link_cqe_init(&ep->beat.cqe, ep, "heartbeat", rw_link_beat_done);
}

int rw_link_beat_tick(struct rw_link *ep, struct ib_qp *qp,
		      const struct rw_wire_win *peer)
{
	struct rw_beat *b = &ep->beat;
	unsigned long heard = READ_ONCE(b->heard);
	struct rw_wire_seg_info at;
	struct ib_rdma_wr wr = {
		.wr.opcode = IB_WR_RDMA_WRITE,
		.wr.send_flags = IB_SEND_SIGNALED,
		.wr.wr_cqe = &b->cqe.cqe,
	};
	int ret;

	if (time_after(jiffies, heard + msecs_to_jiffies(RW_LINK_SILENT_MS)))
		return -ETIMEDOUT;
	if (time_before(jiffies, heard + msecs_to_jiffies(RW_LINK_BEAT_MS)) ||
	    atomic_read(&b->out) || atomic_read(&ep->sq_room) <= 0)
		return 0;
	atomic_set(&b->out, 1);
	atomic_dec(&ep->sq_room);
	rw_wire_win_at(peer, 0, &at);
	wr.remote_addr = at.addr;
	wr.rkey = at.rkey;
	ret = ib_post_send(qp, &wr.wr, NULL);
	if (ret) {
		atomic_inc(&ep->sq_room);
		atomic_set(&b->out, 0);
	}
	return ret;
}

int rw_link_post_imm_recv(struct ib_qp *qp, struct rw_link_cqe *lc)
{
	struct ib_recv_wr wr = { .wr_cqe = &lc->cqe };

	return ib_post_recv(qp, &wr, NULL);
}

int rw_link_write_imm(struct rw_link_cqe *lc, struct ib_qp *qp,
		      const struct rw_win *src, const struct rw_wire_win *dst,
		      u64 off, u32 len, u32 imm)
{
	struct rw_wire_seg_info at;
	struct ib_sge sge;
	struct ib_rdma_wr wr = {
		.wr.opcode = IB_WR_RDMA_WRITE_WITH_IMM,
		.wr.send_flags = IB_SEND_SIGNALED,
		.wr.wr_cqe = &lc->cqe,
		.wr.sg_list = &sge,
		.wr.num_sge = 1,
		.wr.ex.imm_data = cpu_to_be32(imm),
	};
	int ret;

	rw_win_at(src, off, &sge.addr, &sge.lkey);
	sge.length = len;
	rw_wire_win_at(dst, off, &at);
	wr.remote_addr = at.addr;
	wr.rkey = at.rkey;
	atomic_dec(&lc->ep->sq_room);
	ret = ib_post_send(qp, &wr.wr, NULL);
	if (ret)
		atomic_inc(&lc->ep->sq_room);
	return ret;
}

u32 rw_link_depth(struct ib_device *dev)
{
	return min_t(u32, RW_LINK_DEPTH_MAX, (u32)dev->attrs.max_qp_wr - 1);
}

void rw_link_qp_attr(struct ib_qp_init_attr *qpa, struct ib_cq *cq,
		     u32 depth)
{
	qpa->send_cq = cq;
	qpa->recv_cq = cq;
	qpa->cap.max_send_wr = depth + 1;
	qpa->cap.max_recv_wr = depth + 1;
	qpa->cap.max_send_sge = 1;
	qpa->cap.max_recv_sge = 1;
	qpa->sq_sig_type = IB_SIGNAL_REQ_WR;
	qpa->qp_type = IB_QPT_RC;
}

int rw_link_cm_param(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	int ret;

	param->rnr_retry_count = 7;
	/* RDMA READs: the box reads a worker's initial parameters. */
	param->initiator_depth = min_t(u32, RW_LINK_RD_ATOM,
				       id->device->attrs.max_qp_init_rd_atom);
	param->responder_resources = min_t(u32, RW_LINK_RD_ATOM,
					   id->device->attrs.max_qp_rd_atom);
	ret = rdma_set_ack_timeout(id, RW_LINK_ACK_TIMEOUT);
	if (!ret)
		ret = rdma_set_min_rnr_timer(id, RW_LINK_MIN_RNR_TIMER);
	return ret;
}

int rw_link_connect(struct rdma_cm_id *id, const u8 *token, const char *job,
		    struct rw_wire_req_info *ri)
{
	struct rdma_conn_param param = {};
	struct rw_wire_req req;
	int ret;

	rw_auth_job_tag(token, job, ri->job_tag);
	ri->nonce = get_random_u64();
	ri->time_s = (u64)ktime_get_real_seconds();
	rw_wire_req_pack(&req, ri);
	rw_auth_req_sign(token, &req);
	param.private_data = &req;
	param.private_data_len = sizeof(req);
	param.retry_count = RW_LINK_RETRIES;
	ret = rw_link_cm_param(id, &param);
	if (!ret)
		ret = rdma_connect(id, &param);
	memzero_explicit(&req, sizeof(req));
	return ret;
}

int rw_link_accept(struct rdma_cm_id *id, u8 peer_initiator_depth,
		   u8 peer_responder_resources)
{
	struct rdma_conn_param param = {};
	int ret;

	ret = rw_link_cm_param(id, &param);
	param.initiator_depth = min(param.initiator_depth,
				    peer_responder_resources);
	param.responder_resources = min(param.responder_resources,
					peer_initiator_depth);
	return ret ?: rdma_accept(id, &param);
}

int rw_link_buf_map(struct ib_device *dev, size_t len,
		    enum dma_data_direction dir, void **buf, u64 *dma)
{
	*buf = kzalloc(len, GFP_KERNEL);
	if (!*buf)
		return -ENOMEM;
	*dma = ib_dma_map_single(dev, *buf, len, dir);
	if (ib_dma_mapping_error(dev, *dma)) {
		kfree(*buf);
		*buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

void rw_link_buf_unmap(struct ib_device *dev, size_t len,
		       enum dma_data_direction dir, void **buf, u64 dma)
{
	if (!*buf)
		return;
	ib_dma_unmap_single(dev, dma, len, dir);
	kfree(*buf);
	*buf = NULL;
}
