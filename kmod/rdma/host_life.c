// SPDX-License-Identifier: GPL-2.0
/*
 * The worker host's end of the wire, its life (rdma/host.h): attach,
 * heartbeats, teardown and device removal of a struct rw_remote, and the
 * list netlink reports.
 *
 * Attach resolves the box's address, creates a protection domain, a
 * completion queue and an RC queue pair on the device that routes there,
 * and connects with a request signed by the job's token: the box's
 * refusal is the attach's errno. A box with several NICs is reached on
 * several addresses, one link each (a connection of its own: id, PD, CQ,
 * QP, registrations, credits and heartbeats), all of one attachment: the
 * requests name the link's index, the count and a random session. The
 * links connect one after the other, and any link's failure breaks the
 * whole attachment, as the box closes the whole rank when any of its
 * connections goes.
 *
 * A box silent for a second gets a heartbeat (rdma/link.h); one that
 * vanished without a word fails it, and every waiter sees ECONNRESET.
 *
 * Teardown never runs in a handler of our own rdma_cm id: the connection
 * going (a disconnect, an error completion) only marks the attachment
 * broken (ECONNRESET from then on) and wakes everyone; the file's release
 * or the device's removal (ib_client .remove, before rdma_cm's) destroys
 * the queue pair, the registrations, the CQ and the PD at once. The
 * rdma_cm id goes last, from a work of its own (rw_remote_reap): its
 * destruction waits for the IB CM's disconnect request to leave, which a
 * port that went down can hold up for minutes (or for ever, on 6.1's
 * soft-RoCE), and no trainer's close or exit may wait on that. The
 * attachment (its buffers too) is freed once its ids are gone; until then
 * it holds the module, so rmmod says the module is in use instead of
 * waiting. The buffers stay until the file goes, so mappings never lose
 * their pages.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "rw.h"
#include "rdma/auth.h"
#include "rdma/host.h"
#include "rdma/host_priv.h"
#include "rdma/link.h"
#include "rdma/rdma.h"
#include "rdma/wire.h"

/* Every attachment, for device removal; guarded by rw_remotes_lock. */
static DEFINE_MUTEX(rw_remotes_lock);
static LIST_HEAD(rw_remotes);

/* Destroys torn-down links' rdma_cm ids (rw_remote_reap). */
static struct workqueue_struct *rw_remote_wq;

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * Test builds only: every id's destruction starts this many ms late, as
 * when the IB CM holds an id whose disconnect request cannot leave
 * (tests/vm/wire-remote.sh: a trainer's exit must not wait for it).
 * Lowering it lets a waiting destruction go at once.
 */
static unsigned int rw_test_id_hold_ms;
module_param_named(test_id_hold_ms, rw_test_id_hold_ms, uint, 0644);
MODULE_PARM_DESC(test_id_hold_ms,
		 "Test builds only: hold each worker-side rdma_cm id this many ms before destroying it (default 0)");

static void rw_remote_test_hold(void)
{
	unsigned long end = jiffies + msecs_to_jiffies(rw_test_id_hold_ms);

	while (READ_ONCE(rw_test_id_hold_ms) && time_before(jiffies, end))
		msleep(100);
}
#else
static inline void rw_remote_test_hold(void)
{
}
#endif

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

	/* A link a move's switch closed: its id's last events are no news. */
	if (READ_ONCE(lk->id) != id)
		return 0;
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
		rw_remote_break(lk->r, lk, "the box ended the connection");
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

/* ---- heartbeats ---- */

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
		/* An observer's reply has no gradient window: the inbox. */
		if (r->observer && !lk->box_inbox.nr_segs)
			continue;
		if (rw_link_beat_tick(&lk->ep, lk->id->qp,
				      r->observer ? &lk->box_inbox :
				      &lk->rep.win) == -ETIMEDOUT) {
			rw_remote_break(r, lk, "the box went silent despite heartbeats");
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
	rw_remote_break(r, lk, "completion error");
}

/*
 * Tear one link's RDMA side down (@r->rdma held), all but its rdma_cm id,
 * which waits in dead_id for rw_remote_reap().
 */
static void rw_remote_link_teardown(struct rw_remote_link *lk)
{
	struct ib_device *dev;

	lockdep_assert_held(&lk->r->rdma);
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
	rw_remote_ctl_free(lk);
	rw_link_buf_unmap(dev, RW_WIRE_MSG_MAX, DMA_FROM_DEVICE, &lk->msg,
			  lk->msg_dma);
	rw_link_buf_unmap(dev, RW_WIRE_MSG_MAX, DMA_TO_DEVICE, &lk->out,
			  lk->out_dma);
	if (lk->cq)
		ib_free_cq(lk->cq);
	lk->cq = NULL;
	if (lk->pd)
		ib_dealloc_pd(lk->pd);
	lk->pd = NULL;
	/* Destroyed by rw_remote_reap(), without @rdma and in no one's call. */
	lk->dead_id = lk->id;
	lk->id = NULL;
}

/*
 * Tear every link's RDMA side down (@r->rdma held): the buffers stay, and
 * so do the ids until rw_remote_reap() (queued by the caller once it has
 * let go of @rdma) destroys them.
 */
static void rw_remote_teardown(struct rw_remote *r)
{
	u32 i;

	lockdep_assert_held(&r->rdma);
	WRITE_ONCE(r->error, r->error ?: -ECONNRESET);
	for (i = 0; i < r->nr_links; i++)
		rw_remote_link_teardown(&r->links[i]);
	wake_up_all(&r->wq);
}

/* The last reference: the buffers, and the module an attachment holds. */
static void rw_remote_release(struct kref *ref)
{
	struct rw_remote *r = container_of(ref, struct rw_remote, ref);
	u32 i;

	for (i = 0; i < r->nr_links; i++)
		kfree(r->links[i].box_segs);
	bitmap_free(r->have);
	bitmap_free(r->busy);
	bitmap_free(r->resent);
	bitmap_free(r->sel);
	bitmap_free(r->queued);
	kvfree(r->prio_order);
	kvfree(r->prio_rank);
	kvfree(r->link_of);
	vfree(r->versions);
	vfree(r->grad);
	vfree(r->params);
	vfree(r->grad_tail);
	vfree(r->params_tail);
	kvfree(r->lt);
	kvfree(r->offsets);
	kvfree(r->by_key);
	kfree(r);
	/* rw_remote_exit() flushes rw_remote_wq, so this work ends first. */
	module_put(THIS_MODULE);
}

/*
 * Destroy the ids of @r's torn-down links. rdma_destroy_id() waits for
 * the id's handlers and for the IB CM's last message on it (the
 * disconnect request, cancelled but not yet completed by the device):
 * nothing of ours waits for this work but rmmod, which @r's module
 * reference refuses instead, and a device's removal, which rdma_cm
 * itself makes wait for every id on the device.
 */
static void rw_remote_reap(struct work_struct *work)
{
	struct rw_remote *r = container_of(work, struct rw_remote, reap_work);
	struct rdma_cm_id *ids[RW_WIRE_MAX_NICS];
	u32 i, n = 0;

	mutex_lock(&r->rdma);
	for (i = 0; i < r->nr_links; i++) {
		if (r->links[i].dead_id)
			ids[n++] = r->links[i].dead_id;
		r->links[i].dead_id = NULL;
	}
	mutex_unlock(&r->rdma);
	/* Their handlers may still run until then: @r lives till after. */
	for (i = 0; i < n; i++) {
		rw_remote_test_hold();
		rdma_destroy_id(ids[i]);
	}
	kref_put(&r->ref, rw_remote_release);
}

/* Have @r's dead ids destroyed, @r kept until then; @r->rdma not held. */
static void rw_remote_reap_later(struct rw_remote *r)
{
	kref_get(&r->ref);
	if (!queue_work(rw_remote_wq, &r->reap_work))
		kref_put(&r->ref, rw_remote_release);	/* never the last */
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
	rw_remote_ctl_init(lk);
	return 0;
}

static int rw_remote_connect(struct rw_remote_link *lk, const u8 *token)
{
	struct rw_remote *r = lk->r;
	struct rw_wire_req_info ri = {};

	ri.rank = r->rank;
	ri.observer = r->observer;
	if (rw_remote_nr_nics(r)) {
		ri.nic = lk->nic;
		ri.nr_nics = rw_remote_nr_nics(r);
		ri.session = r->session;
	}
	return rw_link_connect(lk->id, token, r->job, &ri);
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
				   const struct sockaddr_storage *box, u32 nr,
				   u32 flags)
{
	bool observer = flags & RW_ATTACH_OBSERVER;
	bool boxes = flags & RW_ATTACH_BOXES;
	struct rw_remote *r;
	int ret = 0;
	u32 i;

	if (rank > U16_MAX)
		return ERR_PTR(-ERANGE);
	/* An observer: rank 0, one connection to each box (uapi "Observers"). */
	if (!nr || nr > RW_WIRE_MAX_NICS ||
	    (observer && (rank || (nr > 1 && !boxes))))
		return ERR_PTR(-EINVAL);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return ERR_PTR(-ENOMEM);
	/* Dropped by rw_remote_release(), which may run after the file. */
	__module_get(THIS_MODULE);
	kref_init(&r->ref);
	INIT_WORK(&r->reap_work, rw_remote_reap);
	mutex_init(&r->setup);
	mutex_init(&r->rdma);
	mutex_init(&r->xfer);
	init_waitqueue_head(&r->wq);
	INIT_DELAYED_WORK(&r->beat_work, rw_remote_beat_work);
	INIT_WORK(&r->send_work, rw_remote_send_work);
	strscpy(r->job, job, sizeof(r->job));
	memcpy(r->token, token, sizeof(r->token));
	r->rank = rank;
	r->observer = observer;
	r->boxes = boxes;
	r->nr_links = nr;
	if (rw_remote_nr_nics(r))
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
	rw_remote_beats_start(r);
	return r;
}

void rw_remote_beats_start(struct rw_remote *r)
{
	u32 i;

	for (i = 0; i < r->nr_links; i++) {
		pr_info("job %s %s %u: connected to %pISpc (link %u of %u)\n",
			r->job, r->observer ? "observer" : "rank", r->rank,
			&r->links[i].box, i, r->nr_links);
		rw_beat_heard(&r->links[i].ep.beat);
	}
	queue_delayed_work(system_wq, &r->beat_work,
			   msecs_to_jiffies(RW_LINK_BEAT_MS));
}

void rw_remote_beats_stop(struct rw_remote *r)
{
	cancel_delayed_work_sync(&r->beat_work);
}

/* Link @i's state afresh, to @box (@r->rdma held). */
static void rw_remote_link_clear(struct rw_remote *r, u32 i,
				 const struct sockaddr_storage *box)
{
	struct rw_remote_link *lk = &r->links[i];

	lockdep_assert_held(&r->rdma);
	kfree(lk->box_segs);
	memset(lk, 0, sizeof(*lk));
	lk->r = r;
	lk->nic = i;
	init_completion(&lk->cm_done);
	if (box)
		lk->box = *box;
}

/* Destroy the ids of the links torn down: no stale event comes after. */
static void rw_remote_reap_now(struct rw_remote *r)
{
	rw_remote_reap_later(r);
	flush_work(&r->reap_work);
}

void rw_remote_link_reset(struct rw_remote *r, u32 i)
{
	struct sockaddr_storage box = r->links[i].box;

	mutex_lock(&r->rdma);
	rw_remote_link_teardown(&r->links[i]);
	mutex_unlock(&r->rdma);
	rw_remote_reap_now(r);
	mutex_lock(&rw_remotes_lock);
	mutex_lock(&r->rdma);
	rw_remote_link_clear(r, i, &box);
	mutex_unlock(&r->rdma);
	mutex_unlock(&rw_remotes_lock);
}

int rw_remote_link_open(struct rw_remote_link *lk)
{
	int ret = rw_remote_open(lk, lk->r->token);

	return ret == -EINTR ? -ERESTARTSYS : ret;
}

int rw_remote_relink(struct rw_remote *r, const struct sockaddr_storage *addrs,
		     u32 nr)
{
	u32 i;

	if (!nr || nr > RW_WIRE_MAX_NICS)
		return -EINVAL;
	/* Broken quietly first: the old links' ends are no one's error. */
	mutex_lock(&r->rdma);
	WRITE_ONCE(r->error, r->error ?: -ECONNRESET);
	for (i = 0; i < r->nr_links; i++)
		rw_remote_link_teardown(&r->links[i]);
	mutex_unlock(&r->rdma);
	rw_remote_reap_now(r);

	mutex_lock(&rw_remotes_lock);
	mutex_lock(&r->rdma);
	for (i = 0; i < RW_WIRE_MAX_NICS; i++)
		rw_remote_link_clear(r, i, i < nr ? &addrs[i] : NULL);
	r->nr_links = nr;
	bitmap_zero(r->have, r->max_chunks);
	bitmap_zero(r->busy, r->max_chunks);
	bitmap_zero(r->queued, r->max_chunks);
	atomic_set(&r->nqueued, 0);
	bitmap_zero(r->resent, r->max_chunks);
	memset(r->link_of, nr > 1 ? RW_REMOTE_NO_LINK : 0, r->max_chunks);
	r->asking = false;
	WRITE_ONCE(r->stop_seen, false);
	WRITE_ONCE(r->joining, true);
	WRITE_ONCE(r->error, 0);
	mutex_unlock(&r->rdma);
	mutex_unlock(&rw_remotes_lock);
	return 0;
}

void rw_remote_free(struct rw_remote *r)
{
	mutex_lock(&rw_remotes_lock);
	list_del(&r->link);
	mutex_unlock(&rw_remotes_lock);
	cancel_delayed_work_sync(&r->beat_work);
	mutex_lock(&r->rdma);
	rw_remote_teardown(r);
	mutex_unlock(&r->rdma);
	/* No completion queues it again: the queue pairs are gone. */
	cancel_work_sync(&r->send_work);
	rw_remote_reap_later(r);
	kref_put(&r->ref, rw_remote_release);
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
	bool gone;

	mutex_lock(&rw_remotes_lock);
	list_for_each_entry(r, &rw_remotes, link) {
		/* Nobody holds @rdma while waiting for the box. */
		mutex_lock(&r->rdma);
		gone = rw_remote_on(r, dev);
		if (gone) {
			rw_remote_break(r, NULL, "the RDMA device went");
			rw_remote_teardown(r);
		}
		mutex_unlock(&r->rdma);
		/* rdma_cm's own removal, next, waits for these ids. */
		if (gone)
			rw_remote_reap_later(r);
	}
	mutex_unlock(&rw_remotes_lock);
}

int rw_remote_init(void)
{
	rw_remote_wq = alloc_workqueue("rackweave_reap", WQ_UNBOUND, 0);
	return rw_remote_wq ? 0 : -ENOMEM;
}

/* Every attachment holds the module: only their last reaps may be left. */
void rw_remote_exit(void)
{
	destroy_workqueue(rw_remote_wq);
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
			info->observer = r->observer;
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
