// SPDX-License-Identifier: GPL-2.0
/*
 * The box's connections: one per remote worker and box NIC it asked for,
 * accepted by a listener after rdma/admit.c let the request in.
 *
 * A worker with several box addresses opens one connection per address,
 * each naming its index, the count and a session of the attachment (uapi
 * "RDMA wire"): the connections of one (job, rank, session) form one
 * struct rw_peer and share its worker, attached once, and each chunk
 * travels on the one connection the peer's table gives it, decided at the
 * first setup (rw_conn_take_chunks(): a NIC on the chunk's NUMA node where
 * the peer has one). Each index
 * comes once and each on its own box device, or the connection is
 * refused EADDRINUSE, as a second worker for the rank is. A connection
 * that closes, for whatever reason, closes its siblings too, so the rank
 * goes as a whole and comes back whole with the worker's next attach.
 *
 * A connection owns a reliable connected QP, its completion queue and a
 * protection domain of its own (rw_conn_accept() says why), and owns a
 * struct rw_worker attached to the job at the
 * rank the request named, exactly as a local worker's file is: the rank
 * is held, the job counts a user, events go out, and job deletion, policy
 * checks and statistics see the peer like any other worker.
 *
 * A peer that breaks the rules (rw_conn_violation()) is closed like any
 * other, and counted by kind on the listener that accepted it. One kind is
 * an RDMA access outside the peer's own window, which the device refuses,
 * since no other connection's key is good on this QP. What the box then
 * sees depends on the device. Soft-RoCE in 6.1 (rxe_resp.c) NAKs the
 * request with a remote access error and moves the QP to the error state
 * with no event: if the refused packet took a receive (a write with
 * immediate that fits one packet) that receive completes with
 * IB_WC_REM_ACCESS_ERR; otherwise (a write without immediate, or the
 * first packet of a longer one) the QP's receives are only flushed. A
 * hardware NIC may raise IB_EVENT_QP_ACCESS_ERR instead. Nothing else
 * moves an established connection's QP to the error state before the
 * close itself does (a failed send of our own completes with its error
 * first), so a flush that is the first reason to close is that refusal
 * (rdma/data.c).
 *
 * Teardown never runs in a handler of the connection's own id (rdma_cm
 * forbids destroying an id there): a disconnect, an error or a device
 * removal queues close work; device removal (ib_client .remove) and
 * unload close synchronously. Whoever takes a connection off rw_conns
 * closes it, exactly once; a handler queues close work only while the
 * connection is still on the list.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "rw.h"
#include "job.h"
#include "worker.h"
#include "worker_xfer.h"
#include "rdma/conn.h"
#include "rdma/wire.h"
#include "trace.h"

/* Protects rw_conns, every rw_conn.link and .closing; QP events take it. */
static DEFINE_SPINLOCK(rw_conns_lock);
static LIST_HEAD(rw_conns);
static struct workqueue_struct *rw_conn_wq;
/*
 * Protects rw_peers and the peers' fields marked so. Taken by the accept
 * (under rdma_cm's handler lock, around the worker's attach) and by
 * teardown with no rdma_cm lock held; nothing is destroyed under it.
 */
static DEFINE_MUTEX(rw_peers_lock);
static LIST_HEAD(rw_peers);

/* Whether @p has a connection on @dev already. */
static bool rw_peer_has_dev(const struct rw_peer *p,
			    const struct ib_device *dev)
{
	u32 i;

	lockdep_assert_held(&rw_peers_lock);
	for (i = 0; i < RW_WIRE_MAX_NICS; i++)
		if (test_bit(i, &p->nics) && p->devs[i] == dev)
			return true;
	return false;
}

/*
 * Join the live peer of @req's session on @dev: the peer, NULL if the
 * rank has none (it is made next), or -EADDRINUSE: the rank belongs to
 * another attachment, or this index or device is taken.
 */
static struct rw_peer *rw_peer_join(struct rw_job *job,
				    const struct rw_wire_req_info *req,
				    struct ib_device *dev)
{
	struct rw_peer *p;

	lockdep_assert_held(&rw_peers_lock);
	/* An observer holds no rank: each is a peer of its own. */
	if (req->observer)
		return NULL;
	list_for_each_entry(p, &rw_peers, link) {
		if (p->job != job || p->rank != req->rank || p->observer)
			continue;
		if (p->dead || !req->nr_nics || p->nr_nics != req->nr_nics ||
		    p->session != req->session || test_bit(req->nic, &p->nics) ||
		    rw_peer_has_dev(p, dev))
			return ERR_PTR(-EADDRINUSE);
		__set_bit(req->nic, &p->nics);
		p->devs[req->nic] = dev;
		p->ref++;
		return p;
	}
	return NULL;
}

/*
 * The peer a connection on @dev admitted by @adm belongs to: joined, or
 * made and its worker attached at the request's rank. An ERR_PTR is the
 * refusal.
 */
static struct rw_peer *rw_peer_get(const struct rw_admit *adm,
				   struct ib_device *dev)
{
	const struct rw_wire_req_info *req = &adm->req;
	struct rw_job *job = adm->job;
	struct rw_peer *p;
	int ret;

	mutex_lock(&rw_peers_lock);
	p = rw_peer_join(job, req, dev);
	if (p)
		goto out;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		p = ERR_PTR(-ENOMEM);
		goto out;
	}
	p->w = rw_worker_new_peer();
	ret = p->w ? 0 : -ENOMEM;
	/* The peer proved it holds the token; attach as a local file does. */
	if (!ret)
		ret = rw_worker_attach(p->w, job->cfg.name, job->token,
				       req->rank,
				       req->observer ? RW_ATTACH_OBSERVER : 0);
	if (ret) {
		if (p->w)
			rw_worker_free(p->w);
		kfree(p);
		p = ERR_PTR(ret);
		goto out;
	}
	/* Attached: the worker holds a reference to the job it found. */
	p->job = rw_worker_job(p->w);
	p->rank = req->rank;
	p->observer = req->observer;
	p->nr_nics = req->nr_nics;
	p->session = req->session;
	p->ref = 1;
	__set_bit(req->nic, &p->nics);
	p->devs[req->nic] = dev;
	list_add_tail(&p->link, &rw_peers);
out:
	mutex_unlock(&rw_peers_lock);
	return p;
}

/* One connection of @p is gone; the last one detaches its worker. */
static void rw_peer_put(struct rw_peer *p)
{
	bool last;

	mutex_lock(&rw_peers_lock);
	last = !--p->ref;
	if (last)
		list_del(&p->link);
	mutex_unlock(&rw_peers_lock);
	if (!last)
		return;
	rw_worker_free(p->w);
	kvfree(p->link_of);
	kfree(p);
}

static_assert(NUMA_NO_NODE == RW_WIRE_NO_NODE, "one value for no node");

/* The table of @p, a peer of several connections, for @nr_chunks chunks. */
static int rw_peer_assign(struct rw_peer *p, u32 nr_chunks)
{
	int link_node[RW_WIRE_MAX_NICS];
	int *chunk_node;
	u8 *link_of;
	u32 j;
	int ret;

	lockdep_assert_held(&rw_peers_lock);
	for (j = 0; j < p->nr_nics; j++)
		link_node[j] = test_bit(j, &p->nics) ?
			       ibdev_to_node(p->devs[j]) : NUMA_NO_NODE;
	chunk_node = kvmalloc_array(nr_chunks, sizeof(*chunk_node),
				    GFP_KERNEL);
	link_of = kvmalloc(nr_chunks, GFP_KERNEL);
	ret = chunk_node && link_of ? 0 : -ENOMEM;
	if (!ret)
		ret = rw_worker_chunk_nodes(p->w, chunk_node, nr_chunks);
	if (!ret)
		ret = rw_wire_assign(chunk_node, nr_chunks, link_node,
				     p->nr_nics, link_of);
	kvfree(chunk_node);
	if (ret) {
		kvfree(link_of);
		return ret;
	}
	p->link_of = link_of;
	p->nr_chunks = nr_chunks;
	return 0;
}

int rw_conn_take_chunks(struct rw_conn *c, u32 nr_chunks)
{
	struct rw_peer *p = c->owner;
	int ret = 0;

	c->link_of = NULL;
	if (!c->nr_nics)
		return 0;
	mutex_lock(&rw_peers_lock);
	if (!p->link_of)
		ret = rw_peer_assign(p, nr_chunks);
	else if (p->nr_chunks != nr_chunks)
		ret = -EPROTO;
	mutex_unlock(&rw_peers_lock);
	if (!ret)
		c->link_of = p->link_of;
	return ret;
}

/*
 * @c is closing: no connection joins its peer any more, and its siblings
 * close too (the rank goes as a whole).
 */
static void rw_peer_close(struct rw_conn *c)
{
	struct rw_conn *o;
	unsigned long flags;

	if (!c->owner)
		return;
	mutex_lock(&rw_peers_lock);
	c->owner->dead = true;
	mutex_unlock(&rw_peers_lock);
	if (!c->nr_nics)
		return;
	spin_lock_irqsave(&rw_conns_lock, flags);
	list_for_each_entry(o, &rw_conns, link)
		if (o->owner == c->owner && !o->closing)
			queue_work(rw_conn_wq, &o->close_work);
	spin_unlock_irqrestore(&rw_conns_lock, flags);
}

static void rw_conn_free(struct rw_conn *c)
{
	rw_conn_data_free(c);
	if (c->cq)
		ib_cq_pool_put(c->cq, rw_link_nr_cqe(c->depth));
	if (c->pd)
		ib_dealloc_pd(c->pd);
	if (c->owner)
		rw_peer_put(c->owner);
	kfree(c);
}

/* @c is off rw_conns and its close work cannot be queued again. */
static void rw_conn_teardown(struct rw_conn *c)
{
	rw_peer_close(c);
	rw_conn_data_stop(c);
	rdma_disconnect(c->id);
	ib_drain_qp(c->id->qp);
	rdma_destroy_qp(c->id);
	rdma_destroy_id(c->id);
	pr_info("closed %pISpc on %s: job %s rank %u nic %u/%u: %lld pushes, %lld writes\n",
		&c->info.peer, c->info.dev, c->info.job, c->info.rank, c->nic,
		c->nr_nics, atomic64_read(&c->pushes),
		atomic64_read(&c->writes));
	rw_listen_conn_gone(c->listener);
	rw_conn_free(c);
}

static void rw_conn_close_work(struct work_struct *work)
{
	struct rw_conn *c = container_of(work, struct rw_conn, close_work);
	unsigned long flags;
	bool mine;

	spin_lock_irqsave(&rw_conns_lock, flags);
	mine = !c->closing;
	if (mine) {
		c->closing = true;
		list_del_init(&c->link);
	}
	spin_unlock_irqrestore(&rw_conns_lock, flags);
	if (!mine)
		return;
	/*
	 * A second reason to close (a QP event beside a failed heartbeat)
	 * may have queued this work again between its start and the lock
	 * above; nothing can queue it now (closing, off rw_conns), so take
	 * that back before @c is freed under it.
	 */
	cancel_work(&c->close_work);
	rw_conn_teardown(c);
}

bool rw_conn_close_later(struct rw_conn *c)
{
	unsigned long flags;
	bool first = false;

	spin_lock_irqsave(&rw_conns_lock, flags);
	if (!c->closing)
		first = queue_work(rw_conn_wq, &c->close_work);
	spin_unlock_irqrestore(&rw_conns_lock, flags);
	return first;
}

void rw_conn_violation(struct rw_conn *c, enum rw_violation kind,
		       const char *why)
{
	if (!rw_conn_close_later(c))
		return;
	pr_warn_ratelimited("%pISpc: job %s rank %u: %s: closing\n",
			    &c->info.peer, c->info.job, c->info.rank, why);
	trace_rw_wire_error(c->info.job, c->info.rank, why,
			    kind == RW_VIOL_ACCESS ? -EACCES : -EPROTO);
	/* On rw_conns until now: it holds its listener. */
	rw_listen_violation(c->listener, kind);
}

static void rw_conn_qp_event(struct ib_event *ev, void *ctx)
{
	struct rw_conn *c = ctx;

	switch (ev->event) {
	case IB_EVENT_QP_ACCESS_ERR:
		rw_conn_violation(c, RW_VIOL_ACCESS,
				  "remote access error (QP event)");
		return;
	case IB_EVENT_QP_REQ_ERR:
		rw_conn_violation(c, RW_VIOL_PROTO,
				  "invalid request (QP event)");
		return;
	case IB_EVENT_COMM_EST:
		/*
		 * A hardware NIC: the peer's first message came before the
		 * CM's last handshake message. The connection is fine; the
		 * CM is told, as ULPs do, so that it moves on.
		 */
		rdma_notify(c->id, IB_EVENT_COMM_EST);
		return;
	case IB_EVENT_PATH_MIG:
	case IB_EVENT_SQ_DRAINED:
	case IB_EVENT_QP_LAST_WQE_REACHED:
		/* Nothing is wrong: information only. */
		return;
	default:
		pr_warn_ratelimited("%pISpc: QP event %s: closing\n",
				    &c->info.peer, ib_event_msg(ev->event));
		rw_conn_close_later(c);
	}
}

int rw_conn_accept(struct rw_listener *l, struct rdma_cm_id *id,
		   const struct rw_admit *adm)
{
	struct ib_qp_init_attr qpa = {};
	struct rw_job *job = adm->job;
	struct rw_conn *c;
	int ret;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->ctx.kind = RW_CM_CONN;
	INIT_LIST_HEAD(&c->link);
	c->closing = true;		/* until it is on rw_conns */
	INIT_WORK(&c->close_work, rw_conn_close_work);
	c->id = id;
	c->info.rank = adm->req.rank;
	c->info.observer = adm->req.observer;
	memcpy(&c->info.peer, &id->route.addr.dst_addr, sizeof(c->info.peer));
	strscpy(c->info.job, job->cfg.name, sizeof(c->info.job));
	strscpy(c->info.dev, dev_name(&id->device->dev), sizeof(c->info.dev));

	c->nic = adm->req.nic;
	c->nr_nics = adm->req.nr_nics;
	c->owner = rw_peer_get(adm, id->device);
	if (IS_ERR(c->owner)) {
		ret = PTR_ERR(c->owner);
		c->owner = NULL;
		goto err_free;
	}
	c->w = c->owner->w;
	c->dev = id->device;
	/*
	 * A protection domain per connection, not per job: a key of this
	 * connection's windows is good on its QP alone, so a peer cannot
	 * write into another rank's slots, of its own job or another, with
	 * a key it learned. Type 2 memory windows bound to the QP would do
	 * the same inside a shared domain, but 6.1 gives kernel users no
	 * way to allocate one (ib_alloc_mw is uverbs' own), and a domain
	 * costs a device almost nothing.
	 */
	c->pd = ib_alloc_pd(id->device, 0);
	if (IS_ERR(c->pd)) {
		ret = PTR_ERR(c->pd);
		c->pd = NULL;
		goto err_free;
	}
	c->depth = rw_link_depth(id->device);
	/*
	 * Completions go to the device's shared queues, one per completion
	 * vector (per core), drained by ib_core's per-CPU workqueue, never
	 * by aggregation in softirq. Connections spread over the vectors of
	 * the cores of the device's node, by rank.
	 */
	c->cq = ib_cq_pool_get(id->device, rw_link_nr_cqe(c->depth),
			       cpumask_local_spread(c->info.rank,
						    ibdev_to_node(id->device)),
			       IB_POLL_WORKQUEUE);
	if (IS_ERR(c->cq)) {
		ret = PTR_ERR(c->cq);
		c->cq = NULL;
		goto err_free;
	}
	qpa.event_handler = rw_conn_qp_event;
	qpa.qp_context = c;
	rw_link_qp_attr(&qpa, c->cq, c->depth);
	ret = rdma_create_qp(id, c->pd, &qpa);
	if (ret)
		goto err_free;
	/* The setup's receive is posted before the peer can send it. */
	ret = rw_conn_data_init(c);
	if (ret) {
		rdma_destroy_qp(id);
		goto err_free;
	}

	/* Events of this id come to the connection from now on. */
	id->context = &c->ctx;
	/* Reads the worker serves (requests), none beyond what it offers. */
	ret = rw_link_accept(id, adm->peer_initiator_depth,
			     adm->peer_responder_resources);
	if (ret) {
		id->context = NULL;
		rdma_destroy_qp(id);
		goto err_free;
	}
	rw_listen_hold(l);
	c->listener = l;
	spin_lock_irq(&rw_conns_lock);
	list_add_tail(&c->link, &rw_conns);
	c->closing = false;
	spin_unlock_irq(&rw_conns_lock);
	pr_info("accepted %pISpc on %s: job %s rank %u nic %u/%u\n",
		&c->info.peer, c->info.dev, c->info.job, c->info.rank, c->nic,
		c->nr_nics);
	return 0;

err_free:
	rw_conn_free(c);
	return ret;
}

int rw_conn_cm_event(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rw_conn *c = container_of(id->context, struct rw_conn, ctx);

	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		/*
		 * From here on only our close (rdma_disconnect) moves the QP
		 * to error: a flush before it is the device's refusal.
		 */
		WRITE_ONCE(c->established, true);
		return 0;
	default:
		if (rw_link_cm_ended(ev->event))
			rw_conn_close_later(c);
		return 0;
	}
}

int rw_conn_for_each(int (*fn)(const struct rw_conn_info *info, void *arg),
		     void *arg)
{
	struct rw_conn *c;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&rw_conns_lock, flags);
	list_for_each_entry(c, &rw_conns, link) {
		c->info.pushes = atomic64_read(&c->pushes);
		c->info.writes = atomic64_read(&c->writes);
		c->info.messages = atomic64_read(&c->messages);
		ret = fn(&c->info, arg);
		if (ret)
			break;
	}
	spin_unlock_irqrestore(&rw_conns_lock, flags);
	return ret;
}

void rw_conn_withdraw_ahead(struct rw_job *job)
{
	struct rw_peer *p;

	/* A peer's worker lives while the peer is listed. */
	mutex_lock(&rw_peers_lock);
	list_for_each_entry(p, &rw_peers, link)
		if (p->job == job)
			rw_worker_withdraw(p->w);
	mutex_unlock(&rw_peers_lock);
}

void rw_wire_job_gone(struct rw_job *job)
{
	struct rw_conn *c;
	unsigned long flags;

	spin_lock_irqsave(&rw_conns_lock, flags);
	list_for_each_entry(c, &rw_conns, link)
		if (rw_worker_job(c->w) == job)
			queue_work(rw_conn_wq, &c->close_work);
	spin_unlock_irqrestore(&rw_conns_lock, flags);
}

void rw_conn_close_all(struct ib_device *dev)
{
	struct rw_conn *c, *tmp;
	LIST_HEAD(gone);

	spin_lock_irq(&rw_conns_lock);
	list_for_each_entry_safe(c, tmp, &rw_conns, link) {
		if (!dev || c->id->device == dev) {
			c->closing = true;
			list_move_tail(&c->link, &gone);
		}
	}
	spin_unlock_irq(&rw_conns_lock);

	list_for_each_entry_safe(c, tmp, &gone, link) {
		list_del_init(&c->link);
		/* Closing: queued close work finds nothing left to do. */
		cancel_work_sync(&c->close_work);
		rw_conn_teardown(c);
	}
}

int rw_conn_init(void)
{
	rw_conn_wq = alloc_workqueue("rackweave_conn", WQ_UNBOUND, 0);
	return rw_conn_wq ? 0 : -ENOMEM;
}

void rw_conn_exit(void)
{
	rw_conn_close_all(NULL);
	destroy_workqueue(rw_conn_wq);
}
