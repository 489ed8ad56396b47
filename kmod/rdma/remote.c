// SPDX-License-Identifier: GPL-2.0
/*
 * The worker role: a trainer on this host attached to a job on another
 * host's box (RW_ATTACH_REMOTE). The box's side is rdma/conn.c and
 * rdma/data.c; this is the other end of the same wire (uapi "RDMA wire"
 * and "Control messages").
 *
 * Attach resolves the box's address, creates a protection domain, a
 * completion queue and an RC queue pair on the device that routes there,
 * and connects with a request signed by the job's token: the box's
 * refusal is the attach's errno. Declare computes the layout's size (the
 * tensors alone fix it), allocates this host's gradient and parameter
 * buffers, registers them (the parameters remotely writable, segment by
 * segment, as the box's windows are), sends the setup and waits for the
 * reply: its status is the declare's answer, its geometry the run's.
 * Then the box writes every chunk's current parameters, and declare
 * returns once they are all in (so none can pass for the answer to a
 * push).
 *
 * Push writes each chosen chunk from the gradient buffer into this rank's
 * slot on the box, WITH IMMEDIATE naming the chunk; the chunk is in
 * flight until the box writes its parameters back, and is not pushed
 * again before (the box would refuse it). Pull waits until every chosen
 * chunk has its parameters and none is in flight. Each parameter write
 * bumps the chunk's version, so the versions buffer moves as a local
 * job's does, and wakes pullers and poll(). A box silent for a second
 * gets a heartbeat (rdma/link.h); one that vanished without a word fails
 * it, and every waiter sees ECONNRESET.
 *
 * Teardown never runs in a handler of our own rdma_cm id: the connection
 * going (a disconnect, an error completion) only marks the attachment
 * broken (ECONNRESET from then on) and wakes everyone; the file's release
 * or the device's removal (ib_client .remove, before rdma_cm's) destroys
 * the queue pair, the registrations and the id. The buffers stay until the
 * file goes, so mappings never lose their pages.
 *
 * A box with several NICs is reached on several addresses, one link each
 * (a connection of its own: id, PD, CQ, QP, registrations, credits and
 * heartbeats), all of one attachment: the requests name the link's index,
 * the count and a random session, and each chunk travels on one link
 * only, its push and its parameters both: the one the box gives it (by
 * its chunk map), which is the link its first parameters arrive on. The
 * links connect one after the other at attach, each sends the setup at
 * declare (so the box knows every link before it decides), and any
 * link's failure breaks the whole attachment, as the box closes the
 * whole rank when any of its connections goes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/dma-mapping.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/workqueue.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "rw.h"
#include "chunk/layout.h"
#include "rdma/auth.h"
#include "rdma/link.h"
#include "rdma/rdma.h"
#include "rdma/remote.h"
#include "rdma/win.h"
#include "rdma/wire.h"
#include "worker.h"

#define RW_REMOTE_RESOLVE_MS	5000
#define RW_REMOTE_CONNECT_MS	20000

/* Every attachment, for device removal; guarded by rw_remotes_lock. */
static DEFINE_MUTEX(rw_remotes_lock);
static LIST_HEAD(rw_remotes);

struct rw_remote;

/* One connection of an attachment, to one of the box's addresses. */
struct rw_remote_link {
	struct rw_remote *r;
	u32 nic;			/* its index in the links */
	struct sockaddr_storage box;
	struct rdma_cm_id *id;		/* NULL once torn down */
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
	struct list_head link;		/* rw_remotes */
	struct mutex setup;		/* declare */
	struct mutex rdma;		/* the links' RDMA objects */
	struct mutex xfer;		/* transfers */
	int error;			/* -ECONNRESET once broken */
	wait_queue_head_t wq;
	char job[RW_JOB_NAME_MAX];
	u32 rank;
	u32 nr_links;			/* 1..RW_WIRE_MAX_NICS */
	u32 session;			/* with several links */
	struct rw_remote_link links[RW_WIRE_MAX_NICS];
	struct delayed_work beat_work;	/* heartbeats (rdma/link.h) */

	/* The run, once declared. */
	bool declared;
	struct rw_layout_tensor *lt;
	u64 *offsets;
	u32 *by_key;
	struct rw_layout l;
	u64 buf_len;			/* each of grad and params, page-rounded */
	u64 versions_len;
	void *grad;
	void *params;
	u64 *versions;
	u32 nr_chunks;			/* the box's, set at declare */
	u32 max_chunks;			/* at the smallest chunk size */
	unsigned long *have;		/* parameters received at least once */
	u8 *link_of;			/* the link each chunk's first came on */
	unsigned long *busy;		/* pushed, parameters not yet back */
	unsigned long *sel;		/* the current transfer's chunks */
	u8 clock;			/* iterations pushed, for immediates */
	u32 npushed;
};

#define RW_REMOTE_NO_LINK	0xffU

/* The link that carries chunk @c, once its first parameters came. */
static struct rw_remote_link *rw_remote_link_of(struct rw_remote *r, u32 c)
{
	return &r->links[READ_ONCE(r->link_of[c])];
}

/*
 * Whether @lk may carry chunk @c's parameters: the first write of a chunk
 * makes its link the chunk's (the box writes each chunk's first on the
 * connection it gives the chunk); every later write must come there. (With
 * one link, every chunk is link 0's from the start.)
 */
static bool rw_remote_link_takes(struct rw_remote *r,
				 struct rw_remote_link *lk, u32 c)
{
	u8 was = READ_ONCE(r->link_of[c]);

	if (was == RW_REMOTE_NO_LINK)
		was = cmpxchg(&r->link_of[c], (u8)RW_REMOTE_NO_LINK,
			      (u8)lk->nic);
	return was == RW_REMOTE_NO_LINK || was == lk->nic;
}

/* The link count the wire names: 0 for an attachment of one (uapi). */
static u32 rw_remote_nr_nics(const struct rw_remote *r)
{
	return r->nr_links > 1 ? r->nr_links : 0;
}

static void rw_remote_break(struct rw_remote *r, const char *why)
{
	u32 i;

	if (!READ_ONCE(r->error)) {
		WRITE_ONCE(r->error, -ECONNRESET);
		pr_warn_ratelimited("job %s rank %u at %pISpc: %s\n", r->job,
				    r->rank, &r->links[0].box, why);
	}
	for (i = 0; i < r->nr_links; i++)
		complete(&r->links[i].cm_done);
	wake_up_all(&r->wq);
}

/* ---- connection manager ---- */

static int rw_remote_rejected(struct rdma_cm_id *id,
			      struct rdma_cm_event *ev)
{
	const void *data;
	u8 len = 0;

	if (ev->status != IB_CM_REJ_CONSUMER_DEFINED)
		return -ECONNREFUSED;
	data = rdma_consumer_reject_data(id, ev, &len);
	return rw_wire_rej_parse(data, len);
}

static int rw_remote_cm_handler(struct rdma_cm_id *id,
				struct rdma_cm_event *ev)
{
	struct rw_remote_link *lk = id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
	case RDMA_CM_EVENT_ESTABLISHED:
		lk->cm_status = 0;
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		lk->cm_status = ev->status < 0 ? ev->status : -EHOSTUNREACH;
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		lk->cm_status = -EHOSTUNREACH;
		break;
	case RDMA_CM_EVENT_REJECTED:
		lk->cm_status = rw_remote_rejected(id, ev);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		rw_remote_break(lk->r, "the box ended the connection");
		return 0;
	default:
		return 0;
	}
	complete(&lk->cm_done);
	return 0;
}

/* Wait for the step begun last on @lk: 0 or its errno. */
static int rw_remote_cm_wait(struct rw_remote_link *lk, unsigned int ms)
{
	long left;

	left = wait_for_completion_interruptible_timeout(&lk->cm_done,
							 msecs_to_jiffies(ms));
	if (left < 0)
		return -EINTR;
	if (!left)
		return -ETIMEDOUT;
	return READ_ONCE(lk->r->error) ?: lk->cm_status;
}

/* ---- completions ---- */

static struct rw_remote_link *rw_remote_link_ep(struct rw_link *ep)
{
	return container_of(ep, struct rw_remote_link, ep);
}

/* Every failed completion of a link (rw_link_done, rdma/link.c). */
static void rw_remote_wc_error(struct rw_link *ep, struct ib_wc *wc,
			       const char *what)
{
	struct rw_remote_link *lk = rw_remote_link_ep(ep);
	struct rw_remote *r = lk->r;

	if (wc->status != IB_WC_WR_FLUSH_ERR)
		pr_warn_ratelimited("job %s rank %u link %u: %s: %s\n", r->job,
				    r->rank, lk->nic, what,
				    ib_wc_status_msg(wc->status));
	rw_remote_break(r, "completion error");
}

static int rw_remote_post_data_recv(struct rw_remote_link *lk)
{
	return rw_link_post_imm_recv(lk->id->qp, &lk->data_cqe);
}

/* The box's reply to a link's setup came. */
static void rw_remote_ctl_done(struct rw_link *ep, struct ib_wc *wc)
{
	struct rw_remote_link *lk = rw_remote_link_ep(ep);
	struct rw_remote *r = lk->r;
	const char *why = "";

	ib_dma_sync_single_for_cpu(lk->id->device, lk->msg_dma,
				   RW_WIRE_MSG_MAX, DMA_FROM_DEVICE);
	if (wc->opcode != IB_WC_RECV || wc->wc_flags & IB_WC_WITH_IMM ||
	    rw_wire_reply_parse(lk->msg, wc->byte_len, &lk->rep, &why)) {
		rw_remote_break(r, "a malformed setup reply");
		return;
	}
	if (!lk->rep.status && lk->rep.nr_chunks > r->max_chunks) {
		rw_remote_break(r, "a reply with more chunks than the model");
		return;
	}
	if (!lk->rep.status &&
	    (lk->rep.nic != lk->nic ||
	     lk->rep.nr_nics != rw_remote_nr_nics(r))) {
		rw_remote_break(r, "a reply for another connection");
		return;
	}
	lk->nr_chunks = lk->rep.status ? 0 : lk->rep.nr_chunks;
	/* Keep the box's window: the receive buffer is freed later. */
	if (!lk->rep.status) {
		lk->box_segs = kmemdup(lk->rep.win.segs, lk->rep.win.nr_segs *
				       sizeof(*lk->box_segs), GFP_ATOMIC);
		if (!lk->box_segs) {
			rw_remote_break(r, "no memory for the box's window");
			return;
		}
		lk->rep.win.segs = lk->box_segs;
	}
	rw_beat_heard(&ep->beat);
	/* Pairs with the acquires in rw_remote_declare() and data_done. */
	smp_store_release(&lk->got_reply, true);
	wake_up_all(&r->wq);
}

/* The box wrote a chunk's parameters. */
static void rw_remote_data_done(struct rw_link *ep, struct ib_wc *wc)
{
	struct rw_remote_link *lk = rw_remote_link_ep(ep);
	struct rw_remote *r = lk->r;
	struct rw_wire_imm imm;
	u64 v;

	/* Pairs with the release in rw_remote_ctl_done(). */
	if (!smp_load_acquire(&lk->got_reply) ||
	    wc->opcode != IB_WC_RECV_RDMA_WITH_IMM ||
	    rw_wire_imm_parse(be32_to_cpu(wc->ex.imm_data), lk->nr_chunks,
			      &imm) || imm.type != RW_IMM_PARAMS ||
	    !rw_remote_link_takes(r, lk, imm.chunk)) {
		rw_remote_break(r, "a bad write from the box");
		return;
	}
	/* The immediate carries the version's low bits: advance to them. */
	v = READ_ONCE(r->versions[imm.chunk]);
	v += (imm.clock - v) & RW_IMM_CLOCK_MASK;
	WRITE_ONCE(r->versions[imm.chunk], v);
	atomic64_inc(&lk->writes);
	rw_beat_heard(&ep->beat);
	set_bit(imm.chunk, r->have);
	/* A puller that sees the chunk idle sees it had parameters too. */
	smp_mb__before_atomic();
	clear_bit(imm.chunk, r->busy);
	if (rw_remote_post_data_recv(lk)) {
		rw_remote_break(r, "cannot post a receive");
		return;
	}
	wake_up_all(&r->wq);
}

static void rw_remote_setup_done(struct rw_link *ep, struct ib_wc *wc)
{
	struct rw_remote_link *lk = rw_remote_link_ep(ep);

	/* The registrations before it are done with as well. */
	atomic_add(lk->nr_regs + 1, &ep->sq_room);
	wake_up_all(&lk->r->wq);
}

/* The box took a push (its answer comes as a parameter write). */
static void rw_remote_push_done(struct rw_link *ep, struct ib_wc *wc)
{
	struct rw_remote_link *lk = rw_remote_link_ep(ep);

	atomic_dec(&lk->unacked);
	atomic_inc(&ep->sq_room);
	rw_beat_heard(&ep->beat);
	wake_up_all(&lk->r->wq);
}

/*
 * Once the box has answered a link's setup, a heartbeat whenever it has
 * been silent on that link. It only tries @rdma: a teardown holding it
 * may be waiting for this work, and the next run sees the links gone and
 * stops.
 */
static void rw_remote_beat_work(struct work_struct *work)
{
	struct rw_remote *r = container_of(to_delayed_work(work),
					   struct rw_remote, beat_work);
	struct rw_remote_link *lk;
	u32 i;

	if (!mutex_trylock(&r->rdma))
		goto again;
	if (!r->links[0].id || READ_ONCE(r->error)) {
		mutex_unlock(&r->rdma);
		return;
	}
	for (i = 0; i < r->nr_links; i++) {
		lk = &r->links[i];
		/* Pairs with the release in rw_remote_ctl_done(). */
		if (!lk->id || !smp_load_acquire(&lk->got_reply) ||
		    lk->rep.status)
			continue;
		if (rw_link_beat_tick(&lk->ep, lk->id->qp,
				      &lk->rep.win) == -ETIMEDOUT) {
			rw_remote_break(r, "the box went silent despite heartbeats");
			mutex_unlock(&r->rdma);
			return;
		}
	}
	mutex_unlock(&r->rdma);
again:
	queue_delayed_work(system_wq, &r->beat_work,
			   msecs_to_jiffies(RW_LINK_BEAT_MS));
}

/* ---- life ---- */

/* Tear one link's RDMA side down (@r->rdma held). */
static void rw_remote_link_teardown(struct rw_remote_link *lk)
{
	struct ib_device *dev;

	if (!lk->id)
		return;
	dev = lk->id->device;
	if (lk->has_qp) {
		if (lk->connected) {
			rdma_disconnect(lk->id);
			ib_drain_qp(lk->id->qp);
		}
		rdma_destroy_qp(lk->id);
		lk->has_qp = false;
		lk->connected = false;
	}
	rw_win_unmap(&lk->wgrad);
	rw_win_unmap(&lk->wparams);
	if (lk->msg)
		ib_dma_unmap_single(dev, lk->msg_dma, RW_WIRE_MSG_MAX,
				    DMA_FROM_DEVICE);
	if (lk->out)
		ib_dma_unmap_single(dev, lk->out_dma, RW_WIRE_MSG_MAX,
				    DMA_TO_DEVICE);
	kfree(lk->msg);
	kfree(lk->out);
	lk->msg = NULL;
	lk->out = NULL;
	if (lk->cq)
		ib_free_cq(lk->cq);
	lk->cq = NULL;
	if (lk->pd)
		ib_dealloc_pd(lk->pd);
	lk->pd = NULL;
	rdma_destroy_id(lk->id);
	lk->id = NULL;
}

/* Tear every link's RDMA side down (@r->rdma held): the buffers stay. */
static void rw_remote_teardown(struct rw_remote *r)
{
	u32 i;

	lockdep_assert_held(&r->rdma);
	WRITE_ONCE(r->error, r->error ?: -ECONNRESET);
	for (i = 0; i < r->nr_links; i++)
		rw_remote_link_teardown(&r->links[i]);
	wake_up_all(&r->wq);
}

static int rw_remote_qp(struct rw_remote_link *lk)
{
	struct ib_device *dev = lk->id->device;
	struct ib_qp_init_attr qpa = {};
	int ret;

	lk->depth = rw_link_depth(dev);
	lk->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(lk->pd)) {
		ret = PTR_ERR(lk->pd);
		lk->pd = NULL;
		return ret;
	}
	lk->cq = ib_alloc_cq_any(dev, lk, rw_link_nr_cqe(lk->depth),
				 IB_POLL_SOFTIRQ);
	if (IS_ERR(lk->cq)) {
		ret = PTR_ERR(lk->cq);
		lk->cq = NULL;
		return ret;
	}
	rw_link_qp_attr(&qpa, lk->cq, lk->depth);
	ret = rdma_create_qp(lk->id, lk->pd, &qpa);
	if (ret)
		return ret;
	lk->has_qp = true;
	rw_link_init(&lk->ep, rw_remote_wc_error);
	rw_link_cqe_init(&lk->ctl_cqe, &lk->ep, "reply receive",
			 rw_remote_ctl_done);
	rw_link_cqe_init(&lk->data_cqe, &lk->ep, "parameter write",
			 rw_remote_data_done);
	rw_link_cqe_init(&lk->setup_cqe, &lk->ep, "setup send",
			 rw_remote_setup_done);
	/* Registrations are unsignaled: only a failed one completes. */
	rw_link_cqe_init(&lk->reg_cqe, &lk->ep, "registration", NULL);
	rw_link_cqe_init(&lk->push_cqe, &lk->ep, "push", rw_remote_push_done);
	return 0;
}

static int rw_remote_connect(struct rw_remote_link *lk, const u8 *token)
{
	struct rw_remote *r = lk->r;
	struct rw_wire_req_info ri = {};
	struct rdma_conn_param param = {};
	struct rw_wire_req req;
	int ret;

	ri.rank = r->rank;
	if (r->nr_links > 1) {
		ri.nic = lk->nic;
		ri.nr_nics = r->nr_links;
		ri.session = r->session;
	}
	rw_auth_job_tag(token, r->job, ri.job_tag);
	ri.nonce = get_random_u64();
	ri.time_s = (u64)ktime_get_real_seconds();
	rw_wire_req_pack(&req, &ri);
	rw_auth_req_sign(token, &req);

	param.private_data = &req;
	param.private_data_len = sizeof(req);
	param.retry_count = RW_LINK_RETRIES;
	ret = rw_link_cm_param(lk->id, &param);
	if (!ret)
		ret = rdma_connect(lk->id, &param);
	memzero_explicit(&req, sizeof(req));
	return ret;
}

enum rw_remote_step {
	RW_STEP_ADDR,
	RW_STEP_ROUTE,
	RW_STEP_CONNECT,
};

/*
 * Begin one step of a link's connection under @rdma, then wait for its
 * event without it (a device removal meanwhile must be able to tear down).
 */
static int rw_remote_step(struct rw_remote_link *lk, enum rw_remote_step step,
			  const u8 *token)
{
	unsigned int ms = 2 * RW_REMOTE_RESOLVE_MS;
	struct rw_remote *r = lk->r;
	int ret = -ECONNRESET;

	mutex_lock(&r->rdma);
	if (lk->id && !READ_ONCE(r->error)) {
		reinit_completion(&lk->cm_done);
		switch (step) {
		case RW_STEP_ADDR:
			ret = rdma_resolve_addr(lk->id, NULL,
						(struct sockaddr *)&lk->box,
						RW_REMOTE_RESOLVE_MS);
			break;
		case RW_STEP_ROUTE:
			ret = rdma_resolve_route(lk->id, RW_REMOTE_RESOLVE_MS);
			break;
		case RW_STEP_CONNECT:
			ret = rw_remote_qp(lk);
			if (!ret)
				ret = rw_remote_connect(lk, token);
			/* From here a teardown disconnects and drains. */
			lk->connected = !ret;
			ms = RW_REMOTE_CONNECT_MS;
			break;
		}
	}
	mutex_unlock(&r->rdma);
	return ret ?: rw_remote_cm_wait(lk, ms);
}

static int rw_remote_open(struct rw_remote_link *lk, const u8 *token)
{
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, rw_remote_cm_handler, lk, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	mutex_lock(&lk->r->rdma);
	lk->id = id;
	mutex_unlock(&lk->r->rdma);
	ret = rw_remote_step(lk, RW_STEP_ADDR, token);
	if (!ret)
		ret = rw_remote_step(lk, RW_STEP_ROUTE, token);
	if (!ret)
		ret = rw_remote_step(lk, RW_STEP_CONNECT, token);
	return ret;
}

struct rw_remote *rw_remote_attach(const char *job, const u8 *token, u32 rank,
				   const struct sockaddr_storage *box, u32 nr)
{
	struct rw_remote *r;
	int ret = 0;
	u32 i;

	if (rank > U16_MAX)
		return ERR_PTR(-ERANGE);
	if (!nr || nr > RW_WIRE_MAX_NICS)
		return ERR_PTR(-EINVAL);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return ERR_PTR(-ENOMEM);
	mutex_init(&r->setup);
	mutex_init(&r->rdma);
	mutex_init(&r->xfer);
	init_waitqueue_head(&r->wq);
	INIT_DELAYED_WORK(&r->beat_work, rw_remote_beat_work);
	strscpy(r->job, job, sizeof(r->job));
	r->rank = rank;
	r->nr_links = nr;
	if (nr > 1)
		r->session = get_random_u32_below(U16_MAX) + 1;
	for (i = 0; i < nr; i++) {
		r->links[i].r = r;
		r->links[i].nic = i;
		r->links[i].box = box[i];
		init_completion(&r->links[i].cm_done);
	}
	mutex_lock(&rw_remotes_lock);
	list_add_tail(&r->link, &rw_remotes);
	mutex_unlock(&rw_remotes_lock);

	for (i = 0; !ret && i < nr; i++)
		ret = rw_remote_open(&r->links[i], token);
	if (ret) {
		rw_remote_free(r);
		return ERR_PTR(ret == -EINTR ? -ERESTARTSYS : ret);
	}
	for (i = 0; i < nr; i++) {
		pr_info("job %s rank %u: connected to %pISpc (link %u of %u)\n",
			r->job, r->rank, &r->links[i].box, i, nr);
		rw_beat_heard(&r->links[i].ep.beat);
	}
	queue_delayed_work(system_wq, &r->beat_work,
			   msecs_to_jiffies(RW_LINK_BEAT_MS));
	return r;
}

void rw_remote_free(struct rw_remote *r)
{
	u32 i;

	mutex_lock(&rw_remotes_lock);
	list_del(&r->link);
	mutex_unlock(&rw_remotes_lock);
	cancel_delayed_work_sync(&r->beat_work);
	mutex_lock(&r->rdma);
	rw_remote_teardown(r);
	mutex_unlock(&r->rdma);
	for (i = 0; i < r->nr_links; i++)
		kfree(r->links[i].box_segs);
	bitmap_free(r->have);
	bitmap_free(r->busy);
	bitmap_free(r->sel);
	kvfree(r->link_of);
	vfree(r->versions);
	vfree(r->grad);
	vfree(r->params);
	kvfree(r->lt);
	kvfree(r->offsets);
	kvfree(r->by_key);
	kfree(r);
}

/* Whether a link of @r is on @dev (@r->rdma held). */
static bool rw_remote_on(struct rw_remote *r, struct ib_device *dev)
{
	u32 i;

	lockdep_assert_held(&r->rdma);
	for (i = 0; i < r->nr_links; i++)
		if (r->links[i].id && r->links[i].id->device == dev)
			return true;
	return false;
}

void rw_remote_dev_gone(struct ib_device *dev)
{
	struct rw_remote *r;

	mutex_lock(&rw_remotes_lock);
	list_for_each_entry(r, &rw_remotes, link) {
		/* Nobody holds @rdma while waiting for the box. */
		mutex_lock(&r->rdma);
		if (rw_remote_on(r, dev)) {
			rw_remote_break(r, "the RDMA device went");
			rw_remote_teardown(r);
		}
		mutex_unlock(&r->rdma);
	}
	mutex_unlock(&rw_remotes_lock);
}

int rw_remote_for_each(int (*fn)(const struct rw_conn_info *info,
				 bool broken, void *arg), void *arg)
{
	struct rw_remote_link *lk;
	struct rw_conn_info *info;
	struct rw_remote *r;
	bool replied;
	int ret = 0;
	u32 i;

	info = kmalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	mutex_lock(&rw_remotes_lock);
	list_for_each_entry(r, &rw_remotes, link) {
		for (i = 0; !ret && i < r->nr_links; i++) {
			lk = &r->links[i];
			memset(info, 0, sizeof(*info));
			memcpy(&info->peer, &lk->box, sizeof(info->peer));
			strscpy(info->job, r->job, sizeof(info->job));
			info->rank = r->rank;
			info->pushes = atomic64_read(&lk->pushes);
			info->writes = atomic64_read(&lk->writes);
			/* Pairs with the release in rw_remote_ctl_done(). */
			replied = smp_load_acquire(&lk->got_reply);
			/* The setup out, and its reply in once it came. */
			info->messages = (lk->out_len ? 1 : 0) + (replied ? 1 : 0);
			mutex_lock(&r->rdma);
			if (lk->id && lk->id->device)
				strscpy(info->dev, dev_name(&lk->id->device->dev),
					sizeof(info->dev));
			mutex_unlock(&r->rdma);
			ret = fn(info, READ_ONCE(r->error), arg);
		}
		if (ret)
			break;
	}
	mutex_unlock(&rw_remotes_lock);
	kfree(info);
	return ret;
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
	ret = rw_win_map(&lk->wgrad, lk->pd, &src, shift);
	if (ret)
		return ret;
	src.page = rw_remote_params_page;
	ret = rw_win_map(&lk->wparams, lk->pd, &src, shift);
	if (ret)
		return ret;
	lk->nr_regs = lk->wgrad.nr_segs + lk->wparams.nr_segs;
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

/* The box answered every link's setup, or the connection broke. */
static bool rw_remote_answered(struct rw_remote *r, void *arg)
{
	u32 i;

	if (READ_ONCE(r->error))
		return true;
	for (i = 0; i < r->nr_links; i++)
		/* Pairs with the release in rw_remote_ctl_done(). */
		if (!smp_load_acquire(&r->links[i].got_reply))
			return false;
	return true;
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

/*
 * The layout as the replies' chunk size cuts it; the geometry agrees
 * with the model and every link's reply agrees with the first one's.
 */
static int rw_remote_start(struct rw_remote *r)
{
	const struct rw_wire_reply_info *rep = &r->links[0].rep;
	const struct rw_wire_reply_info *reps[RW_WIRE_MAX_NICS];
	u32 n = r->l.nr_tensors, i;
	const char *why;

	for (i = 0; i < r->nr_links; i++)
		reps[i] = &r->links[i].rep;
	if (rw_wire_replies_check(reps, r->nr_links, &why)) {
		pr_warn_ratelimited("job %s rank %u: the box's replies disagree: %s\n",
				    r->job, r->rank, why);
		return -EPROTO;
	}
	if (rep->model_bytes != r->l.geom.total_bytes || rep->rank != r->rank ||
	    rw_layout_init(&r->l, r->lt, n, rep->chunk_size, r->offsets,
			   r->by_key) ||
	    r->l.geom.nr_chunks != rep->nr_chunks)
		return -EPROTO;
	r->nr_chunks = rep->nr_chunks;
	r->versions_len = PAGE_ALIGN((u64)rep->nr_chunks * sizeof(u64));
	return 0;
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
	for (i = 0; i < n; i++) {
		if (t[i].reserved || !t[i].nelems || t[i].dtype > RW_DTYPE_BF16)
			return -EINVAL;
		if (t[i].dtype != RW_DTYPE_F32)
			return -EOPNOTSUPP;
		r->lt[i].key = t[i].key;
		r->lt[i].nelems = t[i].nelems;
		r->lt[i].dtype = t[i].dtype;
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
	r->grad = vmalloc_user(r->buf_len);
	r->params = vmalloc_user(r->buf_len);
	r->versions = vmalloc_user(PAGE_ALIGN((u64)mc * sizeof(u64)));
	r->have = bitmap_zalloc(mc, GFP_KERNEL);
	r->busy = bitmap_zalloc(mc, GFP_KERNEL);
	r->sel = bitmap_zalloc(mc, GFP_KERNEL);
	r->link_of = kvmalloc(mc, GFP_KERNEL);
	if (!r->grad || !r->params || !r->versions || !r->have || !r->busy ||
	    !r->sel || !r->link_of)
		return -ENOMEM;
	memset(r->link_of, r->nr_links > 1 ? RW_REMOTE_NO_LINK : 0, mc);
	return 0;
}

static int rw_remote_declare_locked(struct rw_remote *r,
				    const struct rw_tensor_desc *t, u32 n,
				    u32 flags)
{
	long left;
	u32 refusal;
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

	mutex_lock(&r->rdma);
	ret = rw_remote_send_setups(r, t, n, flags);
	mutex_unlock(&r->rdma);
	if (ret)
		return ret;
	left = wait_event_interruptible_timeout(r->wq,
						rw_remote_answered(r, NULL),
						msecs_to_jiffies(RW_REMOTE_CONNECT_MS));
	if (left < 0)
		return -ERESTARTSYS;
	if (!left)
		return -ETIMEDOUT;
	/* A refusal is the answer, though the box hangs up after it. */
	refusal = rw_remote_refusal(r);
	if (refusal)
		return -(int)refusal;
	ret = READ_ONCE(r->error);
	if (ret)
		return ret;
	ret = rw_remote_start(r);
	if (ret)
		return ret;
	/*
	 * The box writes every chunk's parameters first: wait for them, or
	 * one of them could pass for the answer to this worker's first push.
	 */
	left = wait_event_interruptible_timeout(r->wq, rw_remote_all_in(r, NULL),
						msecs_to_jiffies(RW_REMOTE_CONNECT_MS));
	if (left < 0)
		return -ERESTARTSYS;
	if (!left)
		return -ETIMEDOUT;
	ret = READ_ONCE(r->error);
	if (ret)
		return ret;
	/* Pairs with the acquires of setup, transfers, poll and mmap. */
	smp_store_release(&r->declared, true);
	return 0;
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

/* Declared: 0, or the errno of a call that needs a declared run. */
static int rw_remote_ready(struct rw_remote *r)
{
	/* Pairs with the release at the end of rw_remote_declare_locked(). */
	if (smp_load_acquire(&r->declared))
		return 0;
	return READ_ONCE(r->error) ?: -ENOTCONN;
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
	out->grad_len = r->buf_len;
	out->params_offset = RW_MMAP_PARAMS;
	out->params_len = r->buf_len;
	out->versions_offset = RW_MMAP_VERSIONS;
	out->versions_len = r->versions_len;
	out->features = RW_FEATURES;
	out->node = NUMA_NO_NODE;
	out->epoch = r->links[0].rep.epoch;
	return 0;
}

/* ---- transfers ---- */

static bool rw_remote_sel_idle(struct rw_remote *r, void *arg)
{
	return !bitmap_intersects(r->busy, r->sel, r->nr_chunks);
}

static bool rw_remote_sel_fresh(struct rw_remote *r, void *arg)
{
	return rw_remote_sel_idle(r, arg) &&
	       bitmap_subset(r->sel, r->have, r->nr_chunks);
}

/* Wait until @cond(@r, @arg) holds or the connection breaks: 0 or an errno. */
static int rw_remote_wait(struct rw_remote *r,
			  bool (*cond)(struct rw_remote *r, void *arg),
			  void *arg, bool nonblock, long tmo)
{
	long left;

	if (cond(r, arg))
		return 0;
	if (READ_ONCE(r->error))
		return r->error;
	if (nonblock)
		return -EAGAIN;
	left = wait_event_interruptible_timeout(r->wq, cond(r, arg) ||
						READ_ONCE(r->error), tmo);
	if (left < 0)
		return -ERESTARTSYS;
	if (!left)
		return -ETIMEDOUT;
	return READ_ONCE(r->error) ?: 0;
}

/*
 * Room on link @arg's send queue, and a credit: fewer pushes on their way
 * than the box keeps receives posted for. A push the box has received
 * (its send completed) holds no credit while it waits for its answer, so
 * ranks pushing their chunks in different orders never wait on each other
 * for credits (uapi/rackweave.h, "RDMA wire").
 */
static bool rw_remote_sq_ready(struct rw_remote *r, void *arg)
{
	struct rw_remote_link *lk = arg;

	return atomic_read(&lk->ep.sq_room) > 0 &&
	       atomic_read(&lk->unacked) < (int)lk->rep.credits;
}

/*
 * Write chunk @c of the gradient into this rank's slot on the box, on the
 * chunk's link @lk.
 */
static int rw_remote_push_chunk(struct rw_remote *r, struct rw_remote_link *lk,
				u32 c)
{
	u64 off;
	u32 len;
	int ret;

	ret = rw_layout_chunk(&r->l.geom, c, &off, &len);
	if (ret)
		return ret;
	mutex_lock(&r->rdma);
	ret = -ECONNRESET;
	if (lk->id && !READ_ONCE(r->error)) {
		set_bit(c, r->busy);
		atomic_inc(&lk->unacked);
		ret = rw_link_write_imm(&lk->push_cqe, lk->id->qp, &lk->wgrad,
					&lk->rep.win, off, len,
					RW_IMM(RW_IMM_PUSH, r->clock, c));
		if (ret) {
			atomic_dec(&lk->unacked);
			clear_bit(c, r->busy);
		} else {
			atomic64_inc(&lk->pushes);
		}
	}
	mutex_unlock(&r->rdma);
	return ret;
}

static int rw_remote_push(struct rw_remote *r, bool nonblock, long tmo)
{
	struct rw_remote_link *lk;
	u32 c;
	int ret;

	/* A chunk goes again only once the box has answered it. */
	ret = rw_remote_wait(r, rw_remote_sel_idle, NULL, nonblock, tmo);
	if (ret)
		return ret;
	for_each_set_bit(c, r->sel, r->nr_chunks) {
		lk = rw_remote_link_of(r, c);
		ret = rw_remote_wait(r, rw_remote_sq_ready, lk, false, tmo);
		if (!ret)
			ret = rw_remote_push_chunk(r, lk, c);
		if (ret)
			return ret;
		if (++r->npushed == r->nr_chunks) {
			r->npushed = 0;
			r->clock++;
		}
	}
	return 0;
}

int rw_remote_xfer(struct rw_remote *r, u32 op, const struct rw_range *rg,
		   u32 nr, u32 flags, u32 timeout_ms)
{
	long tmo = timeout_ms ? (long)msecs_to_jiffies(timeout_ms) :
			MAX_SCHEDULE_TIMEOUT;
	bool nonblock = flags & RW_XFER_NONBLOCK;
	int ret;

	if (flags & ~RW_XFER_FLAGS_ALL || !op || op & ~RW_XFER_BOTH)
		return -EINVAL;
	if (nr > RW_XFER_MAX_RANGES)
		return -E2BIG;
	ret = rw_remote_ready(r);
	if (ret)
		return ret;
	if (mutex_lock_interruptible(&r->xfer))
		return -ERESTARTSYS;
	ret = rw_xfer_select(&r->l, rg, nr, flags & RW_XFER_KEYS, r->sel);
	if (!ret && op & RW_XFER_PUSH)
		ret = rw_remote_push(r, nonblock, tmo);
	if (!ret && op & RW_XFER_PULL)
		ret = rw_remote_wait(r, rw_remote_sel_fresh, NULL, nonblock,
				     tmo);
	mutex_unlock(&r->xfer);
	return ret;
}

__poll_t rw_remote_poll(struct rw_remote *r, struct file *file,
			poll_table *pt)
{
	__poll_t mask = 0;
	u32 nc;

	if (rw_remote_ready(r))
		return EPOLLERR;
	poll_wait(file, &r->wq, pt);
	if (READ_ONCE(r->error))
		return EPOLLERR;
	nc = r->nr_chunks;
	/* Lock-free, as rw_worker_poll(): the bits only race forward. */
	if (bitmap_empty(r->busy, nc)) {
		mask |= EPOLLOUT | EPOLLWRNORM;
		if (bitmap_full(r->have, nc))
			mask |= EPOLLIN | EPOLLRDNORM;
	}
	return mask;
}

int rw_remote_map(struct rw_remote *r, enum rw_engine_buf buf, u64 off,
		  u64 len, bool writable, bool shared)
{
	u64 blen;
	int ret = rw_remote_ready(r);

	if (ret)
		return ret;
	blen = buf == RW_BUF_VERSIONS ? r->versions_len : r->buf_len;
	if (off >= blen || len > blen - off)
		return -EINVAL;
	if (buf == RW_BUF_GRAD)
		return shared ? 0 : -EINVAL;
	return writable ? -EACCES : 0;
}

struct page *rw_remote_page(struct rw_remote *r, enum rw_engine_buf buf,
			    u64 off)
{
	void *base;
	u64 blen;

	switch (buf) {
	case RW_BUF_GRAD:
		base = r->grad;
		blen = r->buf_len;
		break;
	case RW_BUF_PARAMS:
		base = r->params;
		blen = r->buf_len;
		break;
	default:
		base = r->versions;
		blen = r->versions_len;
		break;
	}
	return base && off < blen ? vmalloc_to_page((u8 *)base + off) : NULL;
}
