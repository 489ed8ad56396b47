/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What both ends of the RDMA wire do alike (rdma/link.c): the box's
 * connections (rdma/conn.c, rdma/data.c) and a worker host's links
 * (rdma/host_*.c) size their queues, connect, keep a heartbeat and take
 * their completions the same way. Each end embeds a struct rw_link in its
 * connection and gives it the one function its failures go to.
 */
#ifndef _RW_RDMA_LINK_H
#define _RW_RDMA_LINK_H

#include <linux/atomic.h>
#include <linux/dma-direction.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "rdma/wire.h"

/* Send and receive queue depth of a connection, at most. */
#define RW_LINK_DEPTH_MAX	1024

/*
 * Heartbeats. An end that has heard nothing from its peer for
 * RW_LINK_BEAT_MS writes zero bytes into the peer's window (no immediate:
 * the peer sees nothing and spends no receive). The write needs the peer's
 * acknowledgment, so once a peer vanishes without a word the QP spends
 * its retries, RW_LINK_ACK_TIMEOUT apart, the write fails and the
 * connection ends as on any failed completion.
 */
#define RW_LINK_BEAT_MS		1000
#define RW_LINK_ACK_TIMEOUT	17	/* 4.096 us << 17: 0.54 s a try */
#define RW_LINK_RETRIES		6	/* 7 means forever to soft-RoCE */
/*
 * A push or a parameter write that finds no receive posted (its credit
 * came back before the receiver reposted) is retried without limit
 * (rnr_retry_count 7), after the receiver's minimum RNR timer: 0.32 ms
 * here instead of rdma_cm's default of 655 ms.
 */
#define RW_LINK_MIN_RNR_TIMER	IB_RNR_TIMER_000_32
/*
 * The peer's QP sets how often ours retries (its connect request does),
 * and a peer may ask for forever: an end that has heard nothing for this
 * long, heartbeats and all, closes the connection itself.
 */
#define RW_LINK_SILENT_MS	15000

struct rw_link;
struct rw_win;

/*
 * The completion entry of one kind of work request. Every completion of
 * either end goes through rw_link_done() (rdma/link.c): a failed one to
 * the link's @fail with @what, a good one to @ok. Set before the QP
 * exists (rw_link_cqe_init), read-only after.
 */
struct rw_link_cqe {
	struct ib_cqe cqe;
	struct rw_link *ep;
	const char *what;		/* the work request, for messages */
	/* NULL: only a failure completes (unsignaled registrations) */
	void (*ok)(struct rw_link *ep, struct ib_wc *wc);
};

/* One end's heartbeat state (both ends keep one; see "Heartbeats" above). */
struct rw_beat {
	struct rw_link_cqe cqe;		/* set by rw_link_init */
	unsigned long heard;		/* jiffies: the peer's last sign */
	atomic_t out;			/* a heartbeat is on the wire */
};

/*
 * One end of a connection, as the shared code sees it. @fail is set once
 * before the QP exists; the rest is atomic or written with WRITE_ONCE
 * from completions and the end's own context.
 */
struct rw_link {
	atomic_t sq_room;		/* send queue slots free */
	struct rw_beat beat;
	/*
	 * A completion failed (@wc->status says how; IB_WC_WR_FLUSH_ERR
	 * once the QP is going): the end ends the connection.
	 */
	void (*fail)(struct rw_link *ep, struct ib_wc *wc, const char *what);
};

static inline void rw_beat_heard(struct rw_beat *b)
{
	WRITE_ONCE(b->heard, jiffies);
}

/* Before the QP exists: @fail, and the heartbeat's completion entry. */
void rw_link_init(struct rw_link *ep,
		  void (*fail)(struct rw_link *ep, struct ib_wc *wc,
			       const char *what));
/* @lc's completions go to @ep: failures to its @fail, good ones to @ok. */
void rw_link_cqe_init(struct rw_link_cqe *lc, struct rw_link *ep,
		      const char *what,
		      void (*ok)(struct rw_link *ep, struct ib_wc *wc));

/*
 * Both ends of the wire size a connection alike: the queue depth the device
 * allows (at most RW_LINK_DEPTH_MAX, one slot of each queue left for
 * ib_drain_qp()), and an RC QP on one CQ with room for rw_link_nr_cqe()
 * completions (the box claims them on the device's shared per-core CQ)
 * and @depth + 1 work requests of one SGE each way. rw_link_qp_attr fills
 * @qpa for @cq (event handler and context are the caller's).
 */
u32 rw_link_depth(struct ib_device *dev);
void rw_link_qp_attr(struct ib_qp_init_attr *qpa, struct ib_cq *cq,
		     u32 depth);

static inline u32 rw_link_nr_cqe(u32 depth)
{
	return 2 * depth + 2;
}

/* RDMA READs in flight on a connection, each way, at most. */
#define RW_LINK_RD_ATOM		8

/*
 * The retry settings both ends ask rdma_cm for, on @id and in @param
 * (receiver-not-ready retried without limit), and the RDMA READs each
 * end may have in flight (RW_LINK_RD_ATOM, or the device's limit): 0 or
 * rdma_cm's errno.
 */
int rw_link_cm_param(struct rdma_cm_id *id, struct rdma_conn_param *param);

/*
 * Connect @id (its route resolved, its QP made) with the connect request
 * @ri of job @job, whose tag, nonce and time are filled in here, signed
 * with the job's @token. 0 or rdma_cm's errno.
 */
int rw_link_connect(struct rdma_cm_id *id, const u8 *token, const char *job,
		    struct rw_wire_req_info *ri);

/*
 * Accept the connect request on @id with our retry settings, serving no
 * more RDMA READs than the peer offers to initiate (@peer_initiator_depth)
 * and initiating no more than it serves (@peer_responder_resources).
 */
int rw_link_accept(struct rdma_cm_id *id, u8 peer_initiator_depth,
		   u8 peer_responder_resources);

/*
 * A zeroed control buffer of @len bytes, DMA-mapped for @dev in @dir:
 * 0 or -ENOMEM (then *@buf is NULL).
 */
int rw_link_buf_map(struct ib_device *dev, size_t len,
		    enum dma_data_direction dir, void **buf, u64 *dma);
/* Undo rw_link_buf_map() (*@buf NULL: nothing); *@buf is NULL after. */
void rw_link_buf_unmap(struct ib_device *dev, size_t len,
		       enum dma_data_direction dir, void **buf, u64 dma);

/* Whether rdma_cm's @ev ends a connection (the peer, the device, or ours). */
static inline bool rw_link_cm_ended(enum rdma_cm_event_type ev)
{
	switch (ev) {
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return true;
	default:
		return false;
	}
}

/*
 * Post a receive for @lc that takes no data, only an immediate: a pushed
 * chunk on the box, a chunk's parameters on a worker host.
 */
int rw_link_post_imm_recv(struct ib_qp *qp, struct rw_link_cqe *lc);

/*
 * Write @len bytes at @off of @src into the peer's window @dst at the same
 * offset, WITH IMMEDIATE @imm, signaled to @lc, spending one slot of its
 * link's send queue (given back if the post fails): 0 or the post's error.
 */
int rw_link_write_imm(struct rw_link_cqe *lc, struct ib_qp *qp,
		      const struct rw_win *src, const struct rw_wire_win *dst,
		      u64 off, u32 len, u32 imm);

/*
 * From the end's own context, every so often: -ETIMEDOUT once the peer
 * has been silent RW_LINK_SILENT_MS; otherwise, if it has been silent
 * RW_LINK_BEAT_MS, no heartbeat is out and the send queue has room, one
 * is posted on @qp into @peer's window (0, or the post's error).
 */
int rw_link_beat_tick(struct rw_link *ep, struct ib_qp *qp,
		      const struct rw_wire_win *peer);

#endif /* _RW_RDMA_LINK_H */
