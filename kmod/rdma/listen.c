// SPDX-License-Identifier: GPL-2.0
/*
 * The box's listeners: one rdma_cm id per configured address and port,
 * set by netlink (rwctl listen add) and reported by the status command.
 *
 * A connect request goes through rdma/admit.c before anything exists for
 * the peer. A refusal is an rdma_reject() carrying struct rw_wire_rej and
 * a non-zero return, so rdma_cm destroys the new id itself: it costs the
 * box a counter and a rate-limited line in the log. An admitted request
 * becomes a connection (rdma/conn.c).
 *
 * A listener whose device goes is destroyed from the ib_client's .remove
 * (never inside its own handler) and stays on the list, down, until it is
 * added again or deleted. Connections hold a reference to the listener
 * that made them (its counters), so deleting a listener leaves them up.
 * Besides its requests' fates, a listener counts the connections it made
 * that were closed for breaking the rules (rw_conn_violation()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <rdma/ib_cm.h>

#include "rw.h"
#include "job.h"
#include "chunk/boxset.h"
#include "rdma/cm.h"
#include "rdma/gift.h"
#include "rdma/rdma.h"
#include "rdma/host.h"
#include "rdma/wire.h"

/* Connect requests waiting for the handler, per listener. */
#define RW_LISTEN_BACKLOG	64

struct rw_listener {
	struct rw_cm_ctx ctx;
	struct kref ref;		/* the list's and each connection's */
	struct list_head link;		/* in rw_listeners */
	struct sockaddr_storage addr;
	struct rdma_cm_id *id;		/* [L] NULL while down */
	char dev[RW_DEV_NAME_MAX];	/* [L] the device it is bound to */
	atomic64_t requests, accepted, connected;
	atomic64_t refused[RW_REF_NR];
	atomic64_t violations[RW_VIOL_NR];
};

/* Protects rw_listeners and the fields marked [L]. */
static DEFINE_MUTEX(rw_listen_lock);
static LIST_HEAD(rw_listeners);
static u32 rw_nr_listeners;

static enum rw_refusal rw_listen_refusal(int err)
{
	switch (err) {
	case -EPROTO:
		return RW_REF_PROTO;
	case -EACCES:
		return RW_REF_AUTH;
	case -ETIMEDOUT:
		return RW_REF_CLOCK;
	case -EBUSY:
		return RW_REF_BUSY;
	case -ERANGE:
		return RW_REF_RANGE;
	case -EADDRINUSE:
		return RW_REF_IN_USE;
	case -ESTALE:
		return RW_REF_STALE;
	default:
		return RW_REF_OTHER;
	}
}

static int rw_listen_request(struct rw_listener *l, struct rdma_cm_id *id,
			     struct rdma_cm_event *ev)
{
	const char *why = "the box could not take the peer";
	struct rw_wire_rej rej;
	struct rw_admit adm;
	int ret;

	atomic64_inc(&l->requests);
	ret = rw_admit_check(ev->param.conn.private_data,
			     ev->param.conn.private_data_len,
			     ktime_get_real_seconds(), &adm, &why);
	if (!ret) {
		adm.peer_initiator_depth = ev->param.conn.initiator_depth;
		adm.peer_responder_resources = ev->param.conn.responder_resources;
		ret = adm.req.box ? rw_take_accept(id, &adm) :
				    rw_conn_accept(l, id, &adm);
		if (ret == -EADDRINUSE)
			why = "rank connected or attached elsewhere";
		else if (ret == -EACCES || ret == -ENOENT)
			why = "job deleted while connecting";
		if (ret == -ENOENT)
			ret = -EACCES;
		rw_job_put(adm.job);
	}
	if (!ret) {
		atomic64_inc(&l->accepted);
		return 0;
	}
	atomic64_inc(&l->refused[rw_listen_refusal(ret)]);
	pr_info_ratelimited("refused a connect from %pISpc: %s (%d)\n",
			    &id->route.addr.dst_addr, why, ret);
	rw_wire_rej_pack(&rej, ret);
	rdma_reject(id, &rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
	/* Non-zero: rdma_cm destroys the new id; nothing else was made. */
	return 1;
}

static void rw_listen_release(struct kref *ref)
{
	kfree(container_of(ref, struct rw_listener, ref));
}

void rw_listen_hold(struct rw_listener *l)
{
	kref_get(&l->ref);
	atomic64_inc(&l->connected);
}

void rw_listen_conn_gone(struct rw_listener *l)
{
	atomic64_dec(&l->connected);
	kref_put(&l->ref, rw_listen_release);
}

void rw_listen_violation(struct rw_listener *l, enum rw_violation kind)
{
	atomic64_inc(&l->violations[kind]);
}

static int rw_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rw_cm_ctx *ctx = id->context;
	struct rw_listener *l;

	if (ctx->kind == RW_CM_CONN)
		return rw_conn_cm_event(id, ev);
	if (ctx->kind == RW_CM_TAKE)
		return rw_take_cm_event(id, ev);
	l = container_of(ctx, struct rw_listener, ctx);
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return rw_listen_request(l, id, ev);
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/* ibdev.c's .remove ran first and destroyed our ids. */
		WARN_ONCE(id == l->id, "listener outlived its device\n");
		return 0;
	default:
		return 0;
	}
}

static bool rw_listen_same(const struct sockaddr_storage *a,
			   const struct sockaddr_storage *b)
{
	int len = rdma_addr_size((struct sockaddr *)a);

	return len == rdma_addr_size((struct sockaddr *)b) &&
		!memcmp(a, b, len);
}

static struct rw_listener *
rw_listen_find(const struct sockaddr_storage *addr)
{
	struct rw_listener *l;

	lockdep_assert_held(&rw_listen_lock);
	list_for_each_entry(l, &rw_listeners, link)
		if (rw_listen_same(&l->addr, addr))
			return l;
	return NULL;
}

/* Create, bind and listen: *@out is the live id, or a negative errno. */
static int rw_listen_bind(struct rw_listener *l, const char **msg)
{
	struct rdma_cm_id *id;
	int ret;

	lockdep_assert_held(&rw_listen_lock);
	id = rdma_create_id(&init_net, rw_cm_handler, &l->ctx, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	if (l->addr.ss_family == AF_INET6) {
		ret = rdma_set_afonly(id, 1);
		if (ret)
			goto err;
	}
	ret = rdma_bind_addr(id, (struct sockaddr *)&l->addr);
	if (ret == -EADDRINUSE) {
		*msg = "another RDMA listener has this address and port";
		goto err;
	}
	if (ret || !id->device) {
		*msg = "no RDMA device has this address";
		ret = -EADDRNOTAVAIL;
		goto err;
	}
	ret = rdma_listen(id, RW_LISTEN_BACKLOG);
	if (ret) {
		*msg = "rdma_listen failed";
		goto err;
	}
	strscpy(l->dev, dev_name(&id->device->dev), sizeof(l->dev));
	l->id = id;
	return 0;
err:
	rdma_destroy_id(id);
	return ret;
}

int rw_listen_add(const struct sockaddr_storage *addr, const char **msg)
{
	struct rw_listener *l;
	int ret;

	*msg = NULL;
	if (addr->ss_family != AF_INET && addr->ss_family != AF_INET6)
		return -EAFNOSUPPORT;
	mutex_lock(&rw_listen_lock);
	l = rw_listen_find(addr);
	if (l) {
		ret = -EEXIST;
		if (l->id)
			*msg = "already listening there";
		else
			ret = rw_listen_bind(l, msg);
		if (!ret)
			pr_info("listening again on %pISpc (%s)\n", &l->addr,
				l->dev);
		goto out;
	}
	ret = -ENOSPC;
	if (rw_nr_listeners >= RW_LISTEN_MAX) {
		*msg = "the box keeps at most 16 listeners";
		goto out;
	}
	ret = -ENOMEM;
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		goto out;
	l->ctx.kind = RW_CM_LISTENER;
	kref_init(&l->ref);
	memcpy(&l->addr, addr, sizeof(l->addr));
	ret = rw_listen_bind(l, msg);
	if (ret) {
		kfree(l);
		goto out;
	}
	list_add_tail(&l->link, &rw_listeners);
	rw_nr_listeners++;
	pr_info("listening on %pISpc (%s)\n", &l->addr, l->dev);
out:
	mutex_unlock(&rw_listen_lock);
	return ret;
}

int rw_listen_del(const struct sockaddr_storage *addr)
{
	struct rdma_cm_id *id = NULL;
	struct rw_listener *l;

	mutex_lock(&rw_listen_lock);
	l = rw_listen_find(addr);
	if (l) {
		list_del(&l->link);
		rw_nr_listeners--;
		id = l->id;
		l->id = NULL;
	}
	mutex_unlock(&rw_listen_lock);
	if (!l)
		return -ENOENT;
	/* Waits for its handlers: no request is being admitted after this. */
	if (id)
		rdma_destroy_id(id);
	pr_info("stopped listening on %pISpc\n", &l->addr);
	kref_put(&l->ref, rw_listen_release);
	return 0;
}

int rw_listen_for_each(int (*fn)(const struct rw_listen_info *info,
				 void *arg), void *arg)
{
	struct rw_listen_info *info;
	struct rw_listener *l;
	int i, ret = 0;

	info = kmalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	mutex_lock(&rw_listen_lock);
	list_for_each_entry(l, &rw_listeners, link) {
		memcpy(&info->addr, &l->addr, sizeof(info->addr));
		info->up = l->id;
		strscpy(info->dev, l->id ? l->dev : "", sizeof(info->dev));
		info->requests = atomic64_read(&l->requests);
		info->accepted = atomic64_read(&l->accepted);
		info->connected = atomic64_read(&l->connected);
		for (i = 0; i < RW_REF_NR; i++)
			info->refused[i] = atomic64_read(&l->refused[i]);
		for (i = 0; i < RW_VIOL_NR; i++)
			info->violations[i] = atomic64_read(&l->violations[i]);
		ret = fn(info, arg);
		if (ret)
			break;
	}
	mutex_unlock(&rw_listen_lock);
	kfree(info);
	return ret;
}

/* Take down the listeners bound to @dev (NULL: all); they stay listed. */
static void rw_listen_down(struct ib_device *dev)
{
	struct rw_listener *gone[RW_LISTEN_MAX];
	struct rdma_cm_id *ids[RW_LISTEN_MAX];
	struct rw_listener *l;
	u32 i, n = 0;

	mutex_lock(&rw_listen_lock);
	list_for_each_entry(l, &rw_listeners, link) {
		if (l->id && (!dev || l->id->device == dev) &&
		    n < RW_LISTEN_MAX) {
			kref_get(&l->ref);
			gone[n] = l;
			ids[n++] = l->id;
			l->id = NULL;
		}
	}
	mutex_unlock(&rw_listen_lock);
	for (i = 0; i < n; i++) {
		rdma_destroy_id(ids[i]);
		if (dev)
			pr_info("listener %pISpc down: %s removed\n",
				&gone[i]->addr, gone[i]->dev);
		kref_put(&gone[i]->ref, rw_listen_release);
	}
}

int rw_sockaddr_fill(struct sockaddr_storage *ss, const void *addr,
		     size_t len, u16 port)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (len == sizeof(sin->sin_addr)) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		memcpy(&sin->sin_addr, addr, len);
		return 0;
	}
	if (len == sizeof(sin6->sin6_addr)) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		memcpy(&sin6->sin6_addr, addr, len);
		return 0;
	}
	return -EAFNOSUPPORT;
}

int rw_box_sockaddr(struct sockaddr_storage *ss, const struct rw_box *b)
{
	return rw_sockaddr_fill(ss, b->addr,
				b->family == RW_BOX_AF_INET ? 4 : 16,
				b->port ?: RW_WIRE_PORT);
}

void rw_wire_dev_gone(struct ib_device *dev)
{
	rw_listen_down(dev);
	rw_conn_close_all(dev);
	rw_gift_dev_gone(dev);
	rw_remote_dev_gone(dev);
}

int rw_wire_init(void)
{
	int ret;

	ret = rw_remote_init();
	if (ret)
		return ret;
	ret = rw_gift_init();
	if (ret)
		goto err_remote;
	ret = rw_conn_init();
	if (ret)
		goto err_gift;
	return 0;
err_gift:
	rw_gift_exit();
err_remote:
	rw_remote_exit();
	return ret;
}

void rw_wire_exit(void)
{
	struct rw_listener *l, *tmp;

	rw_listen_down(NULL);
	mutex_lock(&rw_listen_lock);
	list_for_each_entry_safe(l, tmp, &rw_listeners, link) {
		list_del(&l->link);
		kref_put(&l->ref, rw_listen_release);
	}
	rw_nr_listeners = 0;
	mutex_unlock(&rw_listen_lock);
	rw_conn_exit();
	/* Gifts under way end first: their works hold jobs. */
	rw_gift_dev_gone(NULL);
	rw_gift_exit();
	rw_remote_exit();
}
