/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the worker host's files (rdma/host_*.c) share and no one else: an
 * attachment and its links, and the few functions one of them calls in
 * another. The calls go one way: host_xfer.c calls into host_move.c (a
 * move's switch), host_move.c into host_life.c, host_setup.c and
 * host_ctl.c, host_life.c into host_setup.c,
 * host_xfer.c and host_ctl.c (the completions it gives a new queue pair),
 * host_xfer.c into host_setup.c and host_ctl.c, host_setup.c into
 * host_ctl.c, and host_ctl.c into none of them.
 */
#ifndef _RW_RDMA_HOST_PRIV_H
#define _RW_RDMA_HOST_PRIV_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "rackweave.h"
#include "chunk/layout.h"
#include "rdma/link.h"
#include "rdma/win.h"
#include "rdma/wire.h"

#define RW_REMOTE_RESOLVE_MS	5000
#define RW_REMOTE_CONNECT_MS	20000
/* How long a reply may trail the box's hang-up that followed it. */
#define RW_REMOTE_REPLY_LATE_MS	1000

struct rw_boxset;
struct rw_remote;

/* One connection of an attachment, to one of the box's addresses. */
struct rw_remote_link {
	struct rw_remote *r;
	u32 nic;			/* its index in the links */
	struct sockaddr_storage box;
	struct rdma_cm_id *id;		/* NULL once torn down */
	struct rdma_cm_id *dead_id;	/* torn down, not yet destroyed */
	struct ib_pd *pd;
	struct ib_cq *cq;
	bool has_qp;
	bool connected;
	u32 depth;
	struct completion cm_done;
	int cm_status;

	/* Control: the setup sent, the reply received. */
	void *msg;			/* RW_WIRE_MSG_MAX, received into */
	u64 msg_dma;
	void *out;			/* the setup */
	u64 out_dma;
	size_t out_len;
	u32 nr_regs;
	bool got_reply;
	u32 nr_chunks;			/* the reply's, set with @got_reply */
	struct rw_wire_reply_info rep;
	struct rw_wire_seg *box_segs;	/* the box's gradient window */
	struct rw_link_cqe ctl_cqe, setup_cqe, reg_cqe, data_cqe, push_cqe;
	struct rw_link ep;		/* send queue room, heartbeat */
	atomic_t unacked;		/* pushes whose sends have not completed */
	struct rw_win wgrad, wparams;	/* the buffers, on this link's device */
	atomic64_t pushes, writes;	/* for rw_remote_for_each() */

	/* Requests (host_ctl.c), on link 0 alone. */
	void *inbox_buf;		/* the box writes answers here */
	void *outbox_buf;		/* requests go from here */
	struct rw_win inbox, outbox;
	struct rw_wire_seg box_inbox_seg;
	struct rw_wire_win box_inbox;	/* nr_segs 0: the box takes none */
	struct rw_link_cqe req_cqe;
	u32 req_regs;			/* registrations posted before it */

	/* Notices (uapi "Notices"), on links that ask. */
	struct rw_boxset *notice_set;	/* the last move's set, decoded */
	u32 noticed;			/* its epoch, or 0 */
	u32 notice_seq;			/* the last notice's seq */
	u32 stopped;			/* the move whose boundary came, or 0 */
	u64 stop_before;		/* that boundary */
	bool down;			/* broke while @r was joining */
};

/*
 * Locks: @setup (declare) and @xfer (transfers) come first and may be held
 * while sleeping for the box; @rdma guards every link's RDMA objects and
 * is held only to post, to call rdma_cm or to tear down, never while
 * waiting. rdma_cm takes its handler locks under @rdma, and the box's
 * accept takes a worker's locks under those: nothing of rw_worker's is
 * held here.
 */
struct rw_remote {
	struct kref ref;		/* the file's, and a queued reap's */
	struct work_struct reap_work;	/* destroys the dead ids */
	struct list_head link;		/* rw_remotes (host_life.c) */
	struct mutex setup;		/* declare */
	struct mutex rdma;		/* the links' RDMA objects */
	struct mutex xfer;		/* transfers */
	int error;			/* -ECONNRESET once broken */
	wait_queue_head_t wq;
	char job[RW_JOB_NAME_MAX];
	u8 token[RW_JOB_TOKEN_LEN];	/* signs a move's new connections */
	u32 rank;
	bool observer;			/* the job's (uapi "Observers") */
	/*
	 * The links go to the boxes of a job spread over several (one each),
	 * not to NICs of one box: every box is asked requests in turn.
	 */
	bool boxes;
	u32 nr_links;			/* 1..RW_WIRE_MAX_NICS */
	u32 session;			/* with several links */
	struct rw_remote_link links[RW_WIRE_MAX_NICS];
	bool joining;			/* a move's switch makes the links */
	bool stop_seen;			/* a link has its move's stop */
	struct delayed_work beat_work;	/* heartbeats (rdma/link.h) */

	/* The run, once declared. */
	bool declared;
	struct rw_layout_tensor *lt;
	u64 *offsets;
	u32 *by_key;
	struct rw_layout l;
	u64 buf_len;			/* each of grad and params, page-rounded */
	/*
	 * What each maps as (nr_chunks * chunk_size, uapi), once the box
	 * set the chunk size; past @buf_len a tail of padding of its own.
	 */
	u64 map_len;
	void *grad_tail, *params_tail;
	u64 versions_len;
	void *grad;
	void *params;
	u64 *versions;
	u32 nr_chunks;			/* the box's, set at declare */
	u32 max_chunks;			/* at the smallest chunk size */
	unsigned long *have;		/* parameters received at least once */
	u8 *link_of;			/* the link each chunk's first came on */
	unsigned long *busy;		/* pushed, parameters not yet back */
	unsigned long *resent;		/* parameters set anew came (RESEND) */
	unsigned long *sel;		/* the current transfer's chunks */
	/*
	 * The send queue (uapi "priority"): pushes asked and not posted yet,
	 * by their place in the order they go in (bit prio_rank[c] for chunk
	 * c; both tables NULL when that is the chunks' own), posted by
	 * rw_remote_send() while a link has room, a credit and @window, at a
	 * push and then from @send_work after each completion.
	 */
	unsigned long *queued;
	atomic_t nqueued;
	u32 *prio_order;
	u32 *prio_rank;
	u32 window;			/* pushes on their way per link; 0: any */
	struct work_struct send_work;
	u8 clock;			/* iterations pushed, for immediates */
	u32 npushed;
	u64 iters;			/* iterations pushed in full */
	u32 flags;			/* the declaration's */
	u32 stop_asked;			/* rank 0: the move it asked to stop */

	/* Requests (host_ctl.c): one out at a time, under @xfer. */
	u32 seq;
	u32 ask_nic;			/* the link asked */
	bool asking;			/* its answer has not come yet */
	bool answered;			/* set by the answer's completion */
	struct rw_wire_answer_info ans;
};

/* In rw_remote.link_of: the chunk's first parameters have not come yet. */
#define RW_REMOTE_NO_LINK	0xffU

static inline struct rw_remote_link *rw_remote_link_ep(struct rw_link *ep)
{
	return container_of(ep, struct rw_remote_link, ep);
}

/*
 * The link count the wire names (uapi): 0 for an attachment of one
 * connection, and for one to the boxes of a set (each link is its box's
 * only connection); else the NICs of one box it connects to.
 */
static inline u32 rw_remote_nr_nics(const struct rw_remote *r)
{
	return r->nr_links > 1 && !r->boxes ? r->nr_links : 0;
}

/*
 * Whether @lk takes requests (an inbox at setup): link 0, or each link to
 * a box of several.
 */
static inline bool rw_remote_link_asks(const struct rw_remote_link *lk)
{
	return !lk->nic || lk->r->boxes;
}

/* Declared: 0, or the errno of a call that needs a declared run. */
static inline int rw_remote_ready(struct rw_remote *r)
{
	/* Pairs with the release at the end of rw_remote_declare_locked(). */
	if (smp_load_acquire(&r->declared))
		return 0;
	return READ_ONCE(r->error) ?: -ENOTCONN;
}

/* host_setup.c */

/*
 * Mark @r broken (-ECONNRESET from then on) for @why, on link @lk (NULL:
 * the attachment's), and wake every waiter; never tears down (rdma_cm
 * and completion handlers call it). The kernel log names the box.
 */
void rw_remote_break(struct rw_remote *r, struct rw_remote_link *lk,
		     const char *why);
/* A receive for one chunk's parameters on @lk (an immediate, no data). */
int rw_remote_post_data_recv(struct rw_remote_link *lk);
/* Completions of a link's setup send and of the box's reply. */
void rw_remote_setup_done(struct rw_link *ep, struct ib_wc *wc);
void rw_remote_ctl_done(struct rw_link *ep, struct ib_wc *wc);

/* host_ctl.c */
/* Link 0's inbox and outbox at setup; their registrations added to @regs. */
int rw_remote_ctl_setup(struct rw_remote_link *lk, u32 *regs);
int rw_remote_ctl_post_reg(struct rw_remote_link *lk);
void rw_remote_ctl_describe(struct rw_remote_link *lk,
			    struct rw_wire_seg_info *inbox);
/* The box's inbox from @lk's reply (a completion handler's call). */
void rw_remote_ctl_reply(struct rw_remote_link *lk);
/* An answer came (@byte_len bytes, immediate clock @seq): false breaks. */
bool rw_remote_answer_in(struct rw_remote_link *lk, u32 byte_len, u32 seq);
/* A notice came (likewise): recorded and logged; false breaks. */
bool rw_remote_notice_in(struct rw_remote_link *lk, u32 byte_len, u32 seq);
void rw_remote_ctl_init(struct rw_remote_link *lk);
void rw_remote_ctl_free(struct rw_remote_link *lk);

/*
 * A move's boundary asked of every box in turn (rank 0, @r->xfer held):
 * 0, or the first refusal; *@nr_set the boxes that set it before.
 */
int rw_remote_ask_stop(struct rw_remote *r, u32 *nr_set);

/*
 * host_xfer.c: the send queue's work (host_life.c makes and cancels it),
 * and completions of a push and of a parameter write.
 */
void rw_remote_send_work(struct work_struct *work);
void rw_remote_push_done(struct rw_link *ep, struct ib_wc *wc);
void rw_remote_data_done(struct rw_link *ep, struct ib_wc *wc);

/*
 * host_life.c, a move's switch (@r->xfer held; heartbeats stopped).
 * Close every link and make @nr new ones to the boxes at @addrs, not
 * connected yet: the buffers, the layout and the parameters stay, what
 * was in flight is forgotten, and @r is unbroken and joining (a link's
 * break then marks the link down, not the attachment).
 */
int rw_remote_relink(struct rw_remote *r, const struct sockaddr_storage *addrs,
		     u32 nr);
/* Connect link @lk (resolve, route, queue pair, connect). */
int rw_remote_link_open(struct rw_remote_link *lk);
/* Close link @i and make it afresh, to the same box, not connected. */
void rw_remote_link_reset(struct rw_remote *r, u32 i);
void rw_remote_beats_start(struct rw_remote *r);
void rw_remote_beats_stop(struct rw_remote *r);

/*
 * host_setup.c, a move's switch: one link's setup (a declared run's, on
 * a link relink made), whether its answer came (or the link went down),
 * and what it was: 0 (the box took it) or the errno, a refusal's or the
 * link's. Once every link is taken: the replies name one set, @epoch's
 * (@digest), and the same layout, and every chunk's parameters come.
 */
int rw_remote_link_setup(struct rw_remote_link *lk,
			 const struct rw_tensor_desc *t);
bool rw_remote_link_settled(struct rw_remote_link *lk);
int rw_remote_link_outcome(struct rw_remote_link *lk);
int rw_remote_setup_joined(struct rw_remote *r, u32 epoch, u64 digest);

/*
 * host_move.c: a move of the job's box set inside the run (docs/design.md
 * "Many boxes", steps 2 and 5), for transfers (@r->xfer held).
 */
/* Every box told of the move's boundary: the links switch now. */
bool rw_remote_switch_due(struct rw_remote *r);
/*
 * Switch: 0 with *@redo the chunks to push again (NULL: none; the caller
 * frees it), or the errno that broke the attachment.
 */
int rw_remote_switch(struct rw_remote *r, unsigned long **redo);
/* Rank 0, before it pushes: ask the boundary if a move is told. */
int rw_remote_move_ask(struct rw_remote *r);

#endif /* _RW_RDMA_HOST_PRIV_H */
