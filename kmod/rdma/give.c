// SPDX-License-Identifier: GPL-2.0
/*
 * The giving end of a move's gifts (uapi "Gifts"; docs/design.md "Many
 * boxes", step 4). When a run ends with a move that gives chunks of this
 * box to others, a work takes the job's gift and, box by box of the new
 * set, connects to each box that gains some of them (RW_WIRE_REQ_BOX,
 * signed with the job's token), registers the gift's records for reading
 * and offers them in gifts of up to RW_WIRE_GIFT_MAP_MAX chunks. A taker
 * whose own run has not ended yet answers EAGAIN: the gift is offered
 * again a moment later, for RW_GIVE_TRIES moments at most. What a taker
 * took is counted; what could not be given is said, and is lost (the
 * taker's next run waits for it until the job is deleted).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <rdma/ib_cm.h>

#include "job.h"
#include "job_carry.h"
#include "chunk/boxset.h"
#include "rdma/auth.h"
#include "rdma/gift.h"
#include "rdma/rdma.h"
#include "rdma/wire.h"

#define RW_GIVE_RESOLVE_MS	5000
#define RW_GIVE_CONNECT_MS	20000
/* How often, a second apart, a gift is offered to a box not ready yet. */
#define RW_GIVE_TRIES		120

struct rw_give {
	struct work_struct work;
	struct rw_job *job;
};

/* One taker's link, with the gift's records as a window on it. */
struct rw_give_link {
	struct rw_gift_link gl;
	struct rw_win win;
	bool mapped;
};

static int rw_give_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rw_gift_link *gl = id->context;
	const void *data;
	u8 len;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
	case RDMA_CM_EVENT_ESTABLISHED:
		gl->cm_status = 0;
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		gl->cm_status = ev->status < 0 ? ev->status : -EHOSTUNREACH;
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		gl->cm_status = -EHOSTUNREACH;
		break;
	case RDMA_CM_EVENT_REJECTED:
		data = rdma_consumer_reject_data(id, ev, &len);
		gl->cm_status = ev->status == IB_CM_REJ_CONSUMER_DEFINED ?
				rw_wire_rej_parse(data, len) : -ECONNREFUSED;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		WRITE_ONCE(gl->gone, true);
		break;
	default:
		return 0;
	}
	complete(&gl->cm_done);
	return 0;
}

/* Wait for the step just begun (@ret its start): 0 or why it failed. */
static int rw_give_cm_wait(struct rw_gift_link *gl, int ret, unsigned int ms)
{
	if (ret)
		return ret;
	if (!wait_for_completion_timeout(&gl->cm_done, msecs_to_jiffies(ms)))
		return -ETIMEDOUT;
	reinit_completion(&gl->cm_done);
	if (READ_ONCE(gl->gone))
		return -ECONNRESET;
	return gl->cm_status;
}

static struct page *rw_give_page(void *arg, u64 off)
{
	return vmalloc_to_page((u8 *)arg + off);
}

/* Connect @lk to box @b as box @giver of @job's set of @epoch. */
static int rw_give_connect(struct rw_give_link *lk, struct rw_job *job,
			   const struct rw_box *b, u32 giver, u32 epoch)
{
	struct rw_gift_link *gl = &lk->gl;
	struct rw_wire_req_info ri = {};
	struct sockaddr_storage ss;
	int ret;

	ret = rw_box_sockaddr(&ss, b);
	if (ret)
		return ret;
	init_completion(&gl->cm_done);
	gl->id = rdma_create_id(&init_net, rw_give_cm_handler, gl,
				RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(gl->id)) {
		ret = PTR_ERR(gl->id);
		gl->id = NULL;
		return ret;
	}
	ret = rw_give_cm_wait(gl, rdma_resolve_addr(gl->id, NULL,
						    (struct sockaddr *)&ss,
						    RW_GIVE_RESOLVE_MS),
			      2 * RW_GIVE_RESOLVE_MS);
	if (!ret)
		ret = rw_give_cm_wait(gl, rdma_resolve_route(gl->id,
							     RW_GIVE_RESOLVE_MS),
				      2 * RW_GIVE_RESOLVE_MS);
	if (!ret)
		ret = rw_gift_link_open(gl);
	if (ret)
		return ret;
	ri.rank = giver;
	ri.box = true;
	ri.epoch = epoch;
	ret = rw_link_connect(gl->id, job->token, job->cfg.name, &ri);
	ret = rw_give_cm_wait(gl, ret, RW_GIVE_CONNECT_MS);
	gl->connected = !ret;
	return ret;
}

/* Register the gift's records on @lk for the taker's reads. */
static int rw_give_window(struct rw_give_link *lk, void *buf, u64 len,
			  u32 chunk_size)
{
	struct rw_gift_link *gl = &lk->gl;
	struct rw_win_pages src = {
		.page = rw_give_page, .arg = buf, .len = len,
	};
	u32 shift = rw_win_seg_shift(gl->id->device, chunk_size);
	int ret;

	if (!shift)
		return -EINVAL;
	ret = rw_win_map(&lk->win, gl->pd, &src, shift);
	if (ret)
		return ret;
	lk->mapped = true;
	if (lk->win.nr_segs + 2 > rw_link_depth(gl->id->device))
		return -E2BIG;
	return rw_win_post_reg(&lk->win, gl->id->qp, &gl->reg_cqe.cqe,
			       IB_ACCESS_REMOTE_READ);
}

static void rw_give_close(struct rw_give_link *lk)
{
	if (lk->gl.id)
		rw_gift_link_stop(&lk->gl);
	/* Its regions go before their protection domain does. */
	if (lk->mapped)
		rw_win_unmap(&lk->win);
	if (lk->gl.id) {
		rw_gift_link_close(&lk->gl);
		rdma_destroy_id(lk->gl.id);
	}
	memset(lk, 0, sizeof(*lk));
}

/*
 * Offer @lk's taker, box index @to of the set of @epoch and @digest, the
 * gift's chunks it gains from chunk *@from on (moved past each map
 * taken): 0 once it took them all (*@given counts them),
 * -EAGAIN while it is not ready or when the link failed (then marked so,
 * for a new one), else why it refused.
 */
static int rw_give_offer(struct rw_give_link *lk, const struct rw_carry *k,
			 u32 to, u32 epoch, u64 digest, u32 *from,
			 u32 *given)
{
	struct rw_gift_link *gl = &lk->gl;
	struct rw_wire_seg_info *segs;
	struct rw_wire_gift_info g = {};
	const struct rw_carry_desc *d = rw_gift_desc(k, &g.giver);
	u32 status, taken, first;
	const char *why = "";
	u64 *map;
	int ret = 0, n;

	map = kcalloc(RW_WIRE_GIFT_MAP_MAX / 64, sizeof(u64), GFP_KERNEL);
	segs = kvmalloc_array(lk->win.nr_segs, sizeof(*segs), GFP_KERNEL);
	if (!map || !segs) {
		ret = -ENOMEM;
		goto out;
	}
	rw_win_describe(&lk->win, segs);
	g.epoch = epoch;
	g.digest = digest;
	g.layout_hash = d->layout_hash;
	g.nr_chunks = d->nr_chunks;
	g.nr_state = d->nr_state;
	g.chunk_size = d->chunk_size;
	g.last_short = d->last_short;
	g.half = d->half;
	g.win.seg_shift = lk->win.seg_shift;
	g.win.nr_segs = lk->win.nr_segs;
	g.map = map;
	for (first = *from; !ret && first < d->nr_chunks;
	     first += RW_WIRE_GIFT_MAP_MAX) {
		g.first = first;
		g.nr_map = min(d->nr_chunks - first, RW_WIRE_GIFT_MAP_MAX);
		g.nr_given = rw_gift_map(k, to, first, g.nr_map, map, &g.off);
		if (!g.nr_given)
			continue;
		n = rw_wire_gift_pack(gl->out, RW_WIRE_MSG_MAX, &g, segs);
		if (n < 0) {
			ret = n;
			break;
		}
		ret = rw_gift_link_send(gl, n);
		if (!ret)
			ret = rw_gift_link_wait(gl, true, RW_GIFT_WAIT_MS);
		if (ret) {
			/* The link failed, not the gift: a new one asks again. */
			gl->error = gl->error ?: ret;
			ret = -EAGAIN;
			break;
		}
		ret = rw_wire_gift_reply_parse(gl->in, gl->in_len, &status,
					       &taken, &why);
		if (!ret)
			ret = rw_gift_link_recv(gl);
		if (ret)
			break;
		if (status)
			ret = -(int)status;
		else if (taken != g.nr_given)
			ret = -EPROTO;
		else
			*given += taken;
		/* Taken: an offer again after a refusal starts past it. */
		if (!ret)
			*from = first + RW_WIRE_GIFT_MAP_MAX;
	}
	if (ret == -EPROTO)
		pr_warn("gift to box %u: a bad reply: %s\n", to, why);
out:
	kfree(map);
	kvfree(segs);
	return ret;
}

/*
 * Give box index @to of @set its chunks of @k: 0 or why not (-ENOENT: the
 * job went, or rw_gift_aborts moved from @aborts).
 */
static int rw_give_to(struct rw_job *job, const struct rw_carry *k,
		      const struct rw_boxset *set, u32 to, int aborts,
		      u32 *given)
{
	const struct rw_box *b = &set->box[to];
	u64 digest = rw_boxset_digest(set), len;
	void *buf = rw_gift_buf(k, &len);
	const struct rw_carry_desc *d;
	struct rw_give_link *lk;
	u32 giver, tries, from = 0;
	int ret = -EAGAIN;

	d = rw_gift_desc(k, &giver);
	lk = kzalloc(sizeof(*lk), GFP_KERNEL);
	if (!lk)
		return -ENOMEM;
	for (tries = 0; ret == -EAGAIN && tries < RW_GIVE_TRIES; tries++) {
		if (tries)
			msleep(1000);
		if (READ_ONCE(job->deleted) ||
		    atomic_read(&rw_gift_aborts) != aborts) {
			ret = -ENOENT;
			break;
		}
		/* A link lost or refused for now is made again. */
		if (!lk->gl.id || lk->gl.gone || lk->gl.error) {
			rw_give_close(lk);
			ret = rw_give_connect(lk, job, b, giver, set->epoch);
			if (!ret)
				ret = rw_give_window(lk, buf, len,
						     d->chunk_size);
			/* Not listening yet, or its job not made yet. */
			if (ret == -EHOSTUNREACH || ret == -ECONNREFUSED ||
			    ret == -EACCES || ret == -ETIMEDOUT)
				ret = -EAGAIN;
			if (ret)
				continue;
		}
		ret = rw_give_offer(lk, k, to, set->epoch, digest, &from,
				    given);
	}
	rw_give_close(lk);
	kfree(lk);
	return ret;
}

static void rw_give_work(struct work_struct *work)
{
	struct rw_give *gv = container_of(work, struct rw_give, work);
	struct rw_job *job = gv->job;
	struct rw_boxset *set;
	u32 i, given, all = 0;
	int aborts = atomic_read(&rw_gift_aborts);
	struct rw_carry *k;
	int ret;

	mutex_lock(&job->run_lock);
	k = rw_job_gift_take_out(job);
	set = k ? rw_job_boxes_copy(job, false) : NULL;
	mutex_unlock(&job->run_lock);
	if (!k)
		goto out;
	for (i = 0; set && i < set->nr; i++) {
		given = 0;
		if (set->box[i].id == set->self)
			continue;
		ret = rw_give_to(job, k, set, i, aborts, &given);
		all += given;
		atomic64_add(given, &job->moved_out);
		if (ret)
			pr_warn("job %s: chunks of its move to epoch %u could not be given to box %u (%d): that box's next run waits for them until the job is deleted\n",
				job->cfg.name, set->epoch, set->box[i].id, ret);
	}
	if (!set)
		pr_warn("job %s: no memory to give the chunks of its move\n",
			job->cfg.name);
	else
		pr_info("job %s: gave %u chunks of its move to epoch %u\n",
			job->cfg.name, all, set->epoch);
	rw_gift_done(job, k);
	kfree(set);
out:
	rw_job_put(job);
	kfree(gv);
}

void rw_give_start(struct rw_job *job)
{
	struct rw_give *gv = kzalloc(sizeof(*gv), GFP_KERNEL);

	if (gv) {
		INIT_WORK(&gv->work, rw_give_work);
		kref_get(&job->ref);
		gv->job = job;
		queue_work(rw_gift_wq, &gv->work);
		return;
	}
	/* The gift stays with the job, given to no one, till job del. */
	pr_warn("job %s: the chunks of its move cannot be given: no memory\n",
		job->cfg.name);
}
