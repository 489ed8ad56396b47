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
#include "rdma/link.h"
#include "rdma/rdma.h"
#include "rdma/win.h"

struct rw_worker;

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
	bool observer;			/* the job's, holding no rank */
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
	struct ib_pd *pd;		/* its own: its keys work on its QP alone */
	struct ib_cq *cq;
	u32 depth;			/* of each queue, less the drain's slot */
	struct work_struct close_work;
	bool established;		/* rdma_cm said so (WRITE_ONCE) */
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
	struct rw_link_cqe ctl_cqe, reply_cqe, reg_cqe, push_cqe, write_cqe;

	/* The data path, set up before the reply goes out. */
	u32 nr_chunks;
	u32 chunk_shift;
	struct rw_win grad;		/* the peer writes its gradients here */
	struct rw_win params;		/* the box writes parameters from here */
	struct rw_wire_win peer;	/* ... to here, the peer's window */
	unsigned long *arrived;		/* pushes received, not yet queued */
	unsigned long *awaiting;	/* pushed, parameters not yet sent */
	/*
	 * The answers' order (uapi "priority"): awaiting chunks by their
	 * place in it (bit rank[c] for chunk c), @order[k] the k-th chunk.
	 * All NULL when it is the chunks' own order: then @awaiting serves.
	 */
	unsigned long *await_rk;
	u32 *order;
	u32 *rank;
	unsigned long *to_send;		/* parameters owed regardless */
	unsigned long *resend;		/* set anew: owed as RW_IMM_RESEND */
	u64 *sent;			/* an observer's last writes' versions */
	unsigned long observe_at;	/* jiffies: its next round is due */
	unsigned long observe_scan;	/* jiffies: its last look */
	bool params_seen;		/* initial parameters set, resent */
	const u8 *link_of;		/* the peer's, or NULL: all are ours */
	/* This box's chunks of a job over several (NULL: every chunk). */
	const unsigned long *owned;
	u32 nr_own;			/* the chunks this connection carries */
	struct rw_link ep;		/* send queue room, heartbeat */
	atomic_t kick;			/* something for the agent to do */
	wait_queue_head_t wq;		/* the agent sleeps here */
	struct wait_queue_entry engine_wait;
	bool engine_waiting;
	struct task_struct *agent;
	atomic64_t pushes, writes, messages;	/* for rw_conn_info */

	/* Requests (rdma/conn_ctl.c): set up with the rest, before the reply. */
	void *inbox_buf;		/* the peer writes requests here */
	void *outbox_buf;		/* answers go from here */
	struct rw_win inbox, outbox;
	struct rw_wire_seg peer_inbox_seg;	/* where answers go ... */
	struct rw_wire_win peer_inbox;	/* ... or nr_segs 0: no requests */
	struct rw_link_cqe read_cqe, answer_cqe, notice_cqe;
	u32 noticed;			/* the move's epoch last told, or 0 */
	u64 stop_told;			/* the move's boundary last told, or 0 */
	u32 notice_seq;
	atomic_t request_in;		/* a request waits in the inbox */
	bool wait_pending;		/* an RW_OP_INIT_WAIT not yet answered */
	bool ans_pending;		/* @ans waits for the re-sends */
	struct rw_wire_answer_info ans;
	u32 wait_seq;
	unsigned long wait_end;		/* jiffies; 0: no limit */
	atomic_t reads_left;		/* a request's reads, writes in flight */
	const struct rw_wire_request_info *init_req;	/* the one served */
	const unsigned long *init_sel;
	void *piece_buf;		/* RW_OP_RESTORE's, _SAVE's, once needed */
	struct rw_win piece;
	u32 piece_len;
	u32 piece_regs;			/* its registrations' slots, until ... */
	u32 ans_regs;			/* ... a transfer or the answer returns them */
	u64 restore_len;		/* head and image; _SAVE: the image */
};

/*
 * From an event or completion handler: close @c later, once. True if
 * this call is the one that asked (the others found it asked already).
 */
bool rw_conn_close_later(struct rw_conn *c);

/*
 * From an event or completion handler: @c's peer broke the rules (@kind,
 * @why says how). If that is the first reason to close @c, it is logged,
 * traced and counted on the listener that accepted @c; @c closes either
 * way, and its rank with it.
 */
void rw_conn_violation(struct rw_conn *c, enum rw_violation kind,
		       const char *why);

/*
 * Give @c its chunks (uapi "RDMA wire"): its peer's chunk -> connection
 * table, decided by rw_wire_assign() at the peer's first setup from the
 * chunk map of its worker's engine and the nodes of the devices its connections have by
 * then, and the same for every connection after. Sets c->link_of (NULL
 * for a peer of one connection). 0, -ENOMEM, or -EPROTO if the peer's
 * connections disagree on the model's chunk count.
 */
int rw_conn_take_chunks(struct rw_conn *c, u32 nr_chunks);

/*
 * Before a checkpoint holds @job's gate: each of its remote workers'
 * next iteration, admitted with its answers and not begun, taken back
 * (rw_worker_withdraw()).
 */
void rw_conn_withdraw_ahead(struct rw_job *job);

/*
 * Whether @chunk is @c's to carry, pushes and parameter writes: its peer's
 * table gives it to @c, and it is this box's (a job over several boxes).
 */
static inline bool rw_conn_carries(const struct rw_conn *c, u32 chunk)
{
	return (!c->link_of || c->link_of[chunk] == c->nic) &&
	       (!c->owned || test_bit(chunk, c->owned));
}

/* rdma/conn_ctl.c: requests, from the agent (rdma/data.c) */
/*
 * At setup, before the reply: the inbox and outbox, mapped; the peer's
 * inbox from its setup (@peer: all 0 for a peer that sends no requests);
 * the registrations the caller must post, added to *@regs.
 */
int rw_conn_ctl_setup(struct rw_conn *c, const struct rw_wire_seg_info *peer,
		      u32 *regs);
int rw_conn_ctl_post_reg(struct rw_conn *c);
void rw_conn_ctl_describe(struct rw_conn *c, struct rw_wire_seg_info *inbox);
/* A push receive took a request: 0, or why it breaks the rules. */
const char *rw_conn_ctl_arrived(struct rw_conn *c, u32 byte_len);
/* One round of the agent's: > 0 if it did something, 0, or -errno. */
int rw_conn_ctl_round(struct rw_conn *c);
/*
 * The job's move told to the peer (uapi "Notices") once per move, in its
 * inbox past the answers: > 0 if written now, 0, or -errno.
 */
int rw_conn_notice_round(struct rw_conn *c);
/*
 * The move's boundary, once rank 0 asked it and every answer owed for
 * the iterations before it is out (after rw_conn_send_owed()): > 0 if
 * told now, 0 if not (yet), or a negative errno.
 */
int rw_conn_stop_round(struct rw_conn *c);
/* The answer out, once @resent (nothing left to re-send): as above. */
int rw_conn_ctl_flush(struct rw_conn *c, bool resent);
/* How long the agent may sleep with a wait pending (jiffies). */
long rw_conn_ctl_nap(struct rw_conn *c, long nap);
void rw_conn_ctl_init(struct rw_conn *c);
void rw_conn_ctl_free(struct rw_conn *c);

/* rdma/agent.c: the connection's kthread, once its setup is answered. */
int rw_conn_agent(void *arg);

/* rdma/data.c */
int rw_conn_data_init(struct rw_conn *c);	/* before rdma_accept */
void rw_conn_data_stop(struct rw_conn *c);	/* first in teardown */
void rw_conn_data_free(struct rw_conn *c);	/* the QP is gone */

#endif /* _RW_RDMA_CONN_H */
