// SPDX-License-Identifier: GPL-2.0
/*
 * The taking end of a move's gifts (uapi "Gifts"; docs/design.md "Many
 * boxes", step 4). A box of the job's set that gives this box chunks
 * connects (RW_WIRE_REQ_BOX, admitted as any connect request is) and
 * offers them; a work per link checks each gift against the job (the set
 * moved to, the model, chunks this box gains and has not yet), reads the
 * records from the giver's window piece by piece into the job's carry and
 * replies. A gift is taken whole or not at all: its chunks count as come
 * only once every read is in. The link ends when the giver hangs up, goes
 * silent, or sends what is not a gift.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mutex.h>
#include <linux/slab.h>

#include "job.h"
#include "job_carry.h"
#include "job_move.h"
#include "chunk/boxset.h"
#include "rdma/gift.h"
#include "rdma/wire.h"

/* The most a piece of a record is, read then copied into the carry. */
#define RW_TAKE_PIECE		SZ_1M

struct rw_take {
	struct rw_gift_link gl;		/* first: its ctx is the id's */
	struct work_struct work;
	struct rw_job *job;
	u32 giver;
	struct sockaddr_storage peer;
	struct rw_win piece;
	void *piece_buf;
	u32 piece_len;
};

int rw_take_cm_event(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rw_take *t = container_of(id->context, struct rw_take, gl.ctx);

	if (rw_link_cm_ended(ev->event))
		WRITE_ONCE(t->gl.gone, true);
	return 0;
}

/* The piece buffer, once per link, registered for the reads to land. */
static int rw_take_piece(struct rw_take *t, u32 chunk_size)
{
	struct rw_gift_link *gl = &t->gl;
	u32 shift = rw_win_seg_shift(gl->id->device, chunk_size);
	int ret;

	if (t->piece_buf)
		return 0;
	if (!shift)
		return -EINVAL;
	/* One segment: a read's local side lies in one region. */
	t->piece_len = (u32)min_t(u64, RW_TAKE_PIECE, 1ULL << shift);
	ret = rw_win_vbuf(&t->piece, &t->piece_buf, gl->pd, t->piece_len,
			  shift);
	if (!ret)
		ret = rw_win_post_reg(&t->piece, gl->id->qp, &gl->reg_cqe.cqe,
				      IB_ACCESS_LOCAL_WRITE);
	if (ret)
		rw_win_vbuf_free(&t->piece, &t->piece_buf);
	return ret;
}

/* Read gift @g's records into their chunks' places in the job's carry. */
static int rw_take_records(struct rw_take *t, const struct rw_wire_gift_info *g)
{
	u64 rec = rw_wire_gift_rec_len(g->nr_state, g->chunk_size, g->half);
	u64 src = g->off, done;
	u32 i, n, lkey;
	u64 addr;
	u8 *dst;
	int ret;

	ret = rw_take_piece(t, g->chunk_size);
	if (ret)
		return ret;
	rw_win_at(&t->piece, 0, &addr, &lkey);
	for (i = 0; i < g->nr_map; i++) {
		if (!rw_wire_gift_has(g, i))
			continue;
		dst = rw_job_carry_want(t->job, g->first + i);
		for (done = 0; done < rec; done += n) {
			n = (u32)min_t(u64, t->piece_len, rec - done);
			ret = rw_gift_link_read(&t->gl, addr, lkey, &g->win,
						src + done, n);
			if (!ret)
				ret = rw_gift_link_wait(&t->gl, false,
							RW_GIFT_WAIT_MS);
			if (ret)
				return ret;
			memcpy(dst + done, t->piece_buf, n);
		}
		src += rec;
	}
	return 0;
}

/* Whether @job takes gift @g of model @d now: 0, or an errno and *@why. */
static int rw_take_check(struct rw_take *t, const struct rw_wire_gift_info *g,
			 const struct rw_carry_desc *d, const char **why)
{
	struct rw_job *job = t->job;
	int ret;
	u32 i;

	lockdep_assert_held(&job->run_lock);
	if (READ_ONCE(job->deleted)) {
		*why = "the job is being deleted";
		return -ENOENT;
	}
	if (rw_job_move_epoch(job) == g->epoch) {
		*why = "this box's run has not ended its move yet";
		return -EAGAIN;
	}
	if (!job->boxes || job->boxes->epoch != g->epoch ||
	    rw_boxset_digest(job->boxes) != g->digest) {
		*why = "a gift for another box set than the job's here";
		return -EXDEV;
	}
	if (g->giver == job->boxes->self) {
		*why = "a gift in this box's own name";
		return -EINVAL;
	}
	ret = rw_job_carry_expect(job, d, why);
	if (ret)
		return ret;
	for (i = 0; i < g->nr_map; i++) {
		if (rw_wire_gift_has(g, i) &&
		    !rw_job_carry_want(job, g->first + i)) {
			*why = "a gift of a chunk this box does not gain, or has";
			return -EINVAL;
		}
	}
	return 0;
}

/* The gift in @t's buffer: 0 and *@taken if taken, else why not. */
static int rw_take_gift(struct rw_take *t, u32 *taken)
{
	struct rw_gift_link *gl = &t->gl;
	struct rw_job *job = t->job;
	struct rw_wire_gift_info g;
	struct rw_carry_desc d;
	const char *why = "";
	u32 i, left;
	int ret;

	*taken = 0;
	ret = rw_wire_gift_parse(gl->in, gl->in_len, &g, &why);
	if (!ret && g.giver != t->giver) {
		why = "a gift in another box's name than its link's";
		ret = -EPROTO;
	}
	if (ret) {
		pr_warn_ratelimited("%pISpc: job %s: a bad gift from box %u: %s\n",
				    &t->peer, job->cfg.name, t->giver, why);
		return -EPROTO;
	}
	d.layout_hash = g.layout_hash;
	d.nr_chunks = g.nr_chunks;
	d.nr_state = g.nr_state;
	d.chunk_size = g.chunk_size;
	d.last_short = g.last_short;
	d.half = g.half;
	mutex_lock(&job->run_lock);
	ret = rw_take_check(t, &g, &d, &why);
	if (!ret) {
		ret = rw_take_records(t, &g);
		why = "its records could not be read";
	}
	for (i = 0; !ret && i < g.nr_map; i++)
		if (rw_wire_gift_has(&g, i))
			rw_job_carry_in(job, g.first + i);
	left = ret ? 0 : rw_job_carry_due(job);
	mutex_unlock(&job->run_lock);
	if (ret) {
		if (ret != -EAGAIN)
			pr_warn_ratelimited("%pISpc: job %s: a gift of %u chunks from box %u refused: %s (%d)\n",
					    &t->peer, job->cfg.name, g.nr_given,
					    t->giver, why, ret);
		return ret;
	}
	atomic64_add(g.nr_given, &job->moved_in);
	*taken = g.nr_given;
	pr_info("job %s: took %u chunks from box %u for the move to epoch %u, %u still due\n",
		job->cfg.name, g.nr_given, t->giver, g.epoch, left);
	return 0;
}

static void rw_take_work(struct work_struct *work)
{
	struct rw_take *t = container_of(work, struct rw_take, work);
	struct rw_gift_link *gl = &t->gl;
	u32 status, taken;
	int ret;

	for (;;) {
		ret = rw_gift_link_wait(gl, true, RW_GIFT_WAIT_MS);
		if (ret)
			break;
		status = (u32)-rw_take_gift(t, &taken);
		rw_wire_gift_reply_pack(gl->out, status, taken);
		ret = rw_gift_link_recv(gl);
		if (!ret)
			ret = rw_gift_link_send(gl,
						sizeof(struct rw_wire_gift_reply));
		if (!ret)
			ret = rw_gift_link_wait(gl, false, RW_GIFT_WAIT_MS);
		if (ret || status == EPROTO)
			break;
	}
	rw_gift_link_stop(gl);
	/* The piece's regions go before their protection domain does. */
	rw_win_vbuf_free(&t->piece, &t->piece_buf);
	rw_gift_link_close(gl);
	rdma_destroy_id(gl->id);
	rw_job_put(t->job);
	kfree(t);
}

int rw_take_accept(struct rdma_cm_id *id, const struct rw_admit *adm)
{
	struct rw_take *t;
	int ret;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->gl.ctx.kind = RW_CM_TAKE;
	t->gl.id = id;
	init_completion(&t->gl.cm_done);
	INIT_WORK(&t->work, rw_take_work);
	t->giver = adm->req.rank;
	memcpy(&t->peer, &id->route.addr.dst_addr, sizeof(t->peer));
	ret = rw_gift_link_open(&t->gl);
	if (ret)
		goto fail;
	/* Events of this id come to the link from now on. */
	id->context = &t->gl.ctx;
	ret = rw_link_accept(id, adm->peer_initiator_depth,
			     adm->peer_responder_resources);
	if (ret) {
		id->context = NULL;
		goto fail;
	}
	t->gl.connected = true;
	kref_get(&adm->job->ref);
	t->job = adm->job;
	pr_info("accepted %pISpc: box %u gives chunks of job %s\n", &t->peer,
		t->giver, adm->job->cfg.name);
	queue_work(rw_gift_wq, &t->work);
	return 0;
fail:
	rw_gift_link_close(&t->gl);
	kfree(t);
	return ret;
}
