/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A remote worker's connection on the box, as rdma/conn.c (its life) and
 * rdma/data.c (its setup and data path) share it.
 */
#ifndef _RW_RDMA_CONN_H
#define _RW_RDMA_CONN_H

#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "rdma/cm.h"
#include "rdma/rdma.h"
#include "rdma/win.h"

struct rw_worker;
struct rw_engine;

/* Send and receive queue depth of a connection, at most. */
#define RW_CONN_DEPTH_MAX	1024

/* One end's heartbeat state (both ends keep one; see "Heartbeats" below). */
struct rw_beat {
	struct ib_cqe cqe;		/* the caller sets .done */
	unsigned long heard;		/* jiffies: the peer's last sign */
	atomic_t out;			/* a heartbeat is on the wire */
};

static inline void rw_beat_heard(struct rw_beat *b)
{
	WRITE_ONCE(b->heard, jiffies);
}

/*
 * A remote rank on the box: its connections, one per box NIC its worker
 * opened (uapi "RDMA wire": nic, nr_nics, session), share one worker,
 * attached once. The rank is held until the last of them is torn down;
 * the first to close takes the others with it (rdma/conn.c).
 */
struct rw_peer {
	struct list_head link;		/* rw_peers */
	struct rw_worker *w;
	struct rw_job *job;		/* the worker's, while it is attached */
	u32 rank;
	u32 nr_nics;			/* 0: one connection, no others join */
	u32 session;
	/* Under rw_peers_lock (rdma/conn.c): */
	u32 ref;			/* connections holding it */
	bool dead;			/* one closed: no connection joins */
	unsigned long nics;		/* indexes taken */
	struct ib_device *devs[RW_WIRE_MAX_NICS];	/* ... and their devices */
	/* Set once, at the first setup, then read-only: */
	u8 *link_of;			/* each chunk's connection */
	u32 nr_chunks;			/* ... over this many chunks */
};

struct rw_conn {
	struct rw_cm_ctx ctx;
	struct list_head link;		/* in rw_conns until closing */
	bool closing;			/* taken off rw_conns to be closed */
	struct rdma_cm_id *id;
	struct rw_listener *listener;
	struct rw_peer *owner;		/* the rank it is a connection of */
	struct rw_worker *w;		/* the peer's */
	u32 nic;			/* this connection's index ... */
	u32 nr_nics;			/* ... of its peer's (0: the only one) */
	struct ib_device *dev;
	struct rw_job *job;		/* the worker's, while it is attached */
	struct ib_pd *pd;		/* the job's on this device (ibdev.c) */
	struct ib_cq *cq;
	u32 depth;			/* of each queue, less the drain's slot */
	struct work_struct close_work;
	struct rw_conn_info info;	/* peer, device, job, rank */

	/* Control: the setup received, the reply sent (rdma/data.c). */
	spinlock_t lock;		/* @stopping against queued setup */
	bool stopping;
	void *ctl;
	u64 ctl_dma;
	u32 ctl_bytes;
	void *reply;
	u64 reply_dma;
	size_t reply_len;
	u32 reply_status;		/* positive errno of a refusal */
	u32 nr_regs;			/* unsignaled registrations before it */
	struct work_struct setup_work;
	struct ib_cqe ctl_cqe, reply_cqe, reg_cqe, push_cqe, write_cqe;

	/* The data path, set up before the reply goes out. */
	struct rw_engine *e;
	u32 nr_chunks;
	u32 chunk_shift;
	struct rw_win grad;		/* the peer writes its gradients here */
	struct rw_win params;		/* the box writes parameters from here */
	struct rw_wire_win peer;	/* ... to here, the peer's window */
	unsigned long *arrived;		/* pushes received, not yet queued */
	unsigned long *awaiting;	/* pushed, parameters not yet sent */
	unsigned long *to_send;		/* parameters owed regardless */
	const u8 *link_of;		/* the peer's, or NULL: all are ours */
	u32 nr_own;			/* the chunks this connection carries */
	atomic_t sq_room;
	struct rw_beat beat;
	atomic_t kick;			/* something for the agent to do */
	wait_queue_head_t wq;		/* the agent sleeps here */
	struct wait_queue_entry engine_wait;
	bool engine_waiting;
	struct task_struct *agent;
	atomic64_t pushes, writes, messages;	/* for rw_conn_info */
};

/*
 * Both ends of the wire size a connection alike: the queue depth the device
 * allows (at most RW_CONN_DEPTH_MAX, one slot of each queue left for
 * ib_drain_qp()), and an RC QP on one CQ with room for 2 * (depth + 1)
 * completions (the box claims them on the device's shared per-core CQ)
 * and @depth + 1 work requests of one SGE each way. rw_conn_qp_attr fills
 * @qpa for @cq (event handler and context are the caller's).
 */
u32 rw_conn_depth(struct ib_device *dev);
void rw_conn_qp_attr(struct ib_qp_init_attr *qpa, struct ib_cq *cq,
		     u32 depth);

/*
 * Heartbeats. An end that has heard nothing from its peer for
 * RW_CONN_BEAT_MS writes zero bytes into the peer's window (no immediate:
 * the peer sees nothing and spends no receive). The write needs the peer's
 * acknowledgment, so once a peer vanishes without a word the QP spends
 * its retries, RW_CONN_ACK_TIMEOUT apart, the write fails and the
 * connection ends as on any failed completion.
 */
#define RW_CONN_BEAT_MS		1000
#define RW_CONN_ACK_TIMEOUT	17	/* 4.096 us << 17: 0.54 s a try */
#define RW_CONN_RETRIES		6	/* 7 means forever to soft-RoCE */
/*
 * A push or a parameter write that finds no receive posted (its credit
 * came back before the receiver reposted) is retried without limit
 * (rnr_retry_count 7), after the receiver's minimum RNR timer: 0.32 ms
 * here instead of rdma_cm's default of 655 ms.
 */
#define RW_CONN_MIN_RNR_TIMER	IB_RNR_TIMER_000_32
/*
 * The peer's QP sets how often ours retries (its connect request does),
 * and a peer may ask for forever: an end that has heard nothing for this
 * long, heartbeats and all, closes the connection itself.
 */
#define RW_CONN_SILENT_MS	15000

/*
 * From the end's own context, every so often: -ETIMEDOUT once the peer
 * has been silent RW_CONN_SILENT_MS; otherwise, if it has been silent
 * RW_CONN_BEAT_MS, no heartbeat is out and @sq_room allows, one is posted
 * on @qp into @peer's window (0, or the post's error).
 */
int rw_beat_tick(struct rw_beat *b, struct ib_qp *qp, atomic_t *sq_room,
		 const struct rw_wire_win *peer);

/* A heartbeat's good completion: its room back, the peer heard, none out. */
void rw_beat_done(struct rw_beat *b, atomic_t *sq_room);

/*
 * From an event or completion handler: close @c later, once. True if
 * this call is the one that asked (the others found it asked already).
 */
bool rw_conn_close_later(struct rw_conn *c);

/*
 * Give @c its chunks (uapi "RDMA wire"): its peer's chunk -> connection
 * table, decided by rw_wire_assign() at the peer's first setup from the
 * chunk map of @e and the nodes of the devices its connections have by
 * then, and the same for every connection after. Sets c->link_of (NULL
 * for a peer of one connection). 0, -ENOMEM, or -EPROTO if the peer's
 * connections disagree on the model's chunk count.
 */
int rw_conn_take_chunks(struct rw_conn *c, struct rw_engine *e, u32 nr_chunks);

/* Whether @chunk is @c's to carry: pushes and parameter writes. */
static inline bool rw_conn_carries(const struct rw_conn *c, u32 chunk)
{
	return !c->link_of || c->link_of[chunk] == c->nic;
}

/* rdma/data.c */
int rw_conn_data_init(struct rw_conn *c);	/* before rdma_accept */
void rw_conn_data_stop(struct rw_conn *c);	/* first in teardown */
void rw_conn_data_free(struct rw_conn *c);	/* the QP is gone */

#endif /* _RW_RDMA_CONN_H */
