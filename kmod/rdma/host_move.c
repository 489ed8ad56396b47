// SPDX-License-Identifier: GPL-2.0
/*
 * The worker host's part in a move of its job's box set inside a run
 * (docs/design.md "Many boxes", steps 2 and 5).
 *
 * Every box of the old set writes a MOVE notice (the new set) on each of
 * its connections once the move is ordered there. Rank 0's host, once
 * every box has told it, and before it pushes anything of its next
 * iteration, asks each box to stop before that iteration (RW_OP_STOP_AT):
 * every rank pushed the iterations before it to every box, so each has
 * stepped them, and none steps it. Each box then tells every connection
 * the boundary (a STOP notice), after the answers it owed for the
 * iterations before. A host that has the boundary from every box
 * switches, at the next wait of a transfer: it closes its links, which
 * ends the old run on each box once every rank has (the boxes keep its
 * state and give each other the chunks that change owner), connects to
 * the boxes of the new set under the same buffers, and declares again,
 * waiting while the boxes answer EAGAIN (their run not ended yet, or the
 * chunks they gain not come). A box's new run starts from the old one's
 * last step, so the iteration after the boundary is the next one: its
 * pushes to the old set, never summed there, go again to the new one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/bits.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "rw.h"
#include "chunk/boxset.h"
#include "rdma/host_priv.h"
#include "rdma/rdma.h"

/* How long a host tries to join the new set, and its pause between tries. */
#define RW_REMOTE_SWITCH_MS	120000
#define RW_REMOTE_SWITCH_NAP_MS	250

/* The move every box of the set told of, or 0. */
static u32 rw_remote_move_known(struct rw_remote *r)
{
	/* Pairs with the release in rw_remote_notice_in(). */
	u32 e = smp_load_acquire(&r->links[0].noticed);
	u32 i;

	if (!r->boxes || r->observer)
		return 0;
	for (i = 1; i < r->nr_links; i++)
		/* Likewise. */
		if (smp_load_acquire(&r->links[i].noticed) != e)
			return 0;
	return e;
}

bool rw_remote_switch_due(struct rw_remote *r)
{
	u32 e, i;

	/* Every transfer's wait asks: one load while no stop has come. */
	if (!READ_ONCE(r->stop_seen))
		return false;
	e = rw_remote_move_known(r);
	if (!e || READ_ONCE(r->error))
		return false;
	for (i = 0; i < r->nr_links; i++)
		/* Pairs with the release in rw_remote_notice_in(). */
		if (smp_load_acquire(&r->links[i].stopped) != e)
			return false;
	return true;
}

static bool rw_remote_idle(struct rw_remote *r)
{
	return bitmap_empty(r->busy, r->nr_chunks) || READ_ONCE(r->error);
}

static bool rw_remote_stop_came(struct rw_remote *r)
{
	return rw_remote_switch_due(r) || READ_ONCE(r->error);
}

int rw_remote_move_ask(struct rw_remote *r)
{
	u32 e = rw_remote_move_known(r), nr_set;
	int ret;

	lockdep_assert_held(&r->xfer);
	/* Rank 0, after an iteration, once per move. */
	if (r->rank || !e || e == r->stop_asked || !r->iters)
		return 0;
	r->stop_asked = e;
	/* Its answers of the iterations before first. */
	if (!wait_event_timeout(r->wq, rw_remote_idle(r),
				msecs_to_jiffies(RW_REMOTE_CONNECT_MS)))
		return -ETIMEDOUT;
	ret = READ_ONCE(r->error);
	if (ret)
		return ret;
	ret = rw_remote_ask_stop(r, &nr_set);
	if (ret && !nr_set) {
		/* Not inside this run (a policy that applies each push). */
		pr_info("job %s rank 0: the move to epoch %u takes effect when the run ends (%d)\n",
			r->job, e, ret);
		return 0;
	}
	if (ret) {
		rw_remote_break(r, &r->links[nr_set],
				"the box refused the move's boundary the others set");
		return READ_ONCE(r->error);
	}
	if (!wait_event_timeout(r->wq, rw_remote_stop_came(r),
				msecs_to_jiffies(RW_REMOTE_CONNECT_MS)))
		rw_remote_break(r, NULL, "the boxes did not tell the move's boundary");
	return READ_ONCE(r->error);
}

/* A try may fail for a while: the old run not ended, chunks still due. */
static bool rw_remote_switch_retry(int err)
{
	switch (err) {
	case -EAGAIN:
	case -EADDRINUSE:
	case -EBUSY:
	case -ECONNRESET:
	case -ECONNREFUSED:
	case -EHOSTUNREACH:
	case -ETIMEDOUT:
		return true;
	default:
		return false;
	}
}

/* The new set's addresses, as the links will reach them. */
static int rw_remote_new_addrs(const struct rw_boxset *set,
			       struct sockaddr_storage *addrs)
{
	u32 i;
	int ret;

	if (set->nr > RW_WIRE_MAX_NICS)
		return -E2BIG;
	for (i = 0; i < set->nr; i++) {
		ret = rw_box_sockaddr(&addrs[i], &set->box[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static bool rw_remote_links_settled(struct rw_remote *r, unsigned long todo)
{
	u32 i;

	if (READ_ONCE(r->error))
		return true;
	for_each_set_bit(i, &todo, r->nr_links)
		if (!rw_remote_link_settled(&r->links[i]))
			return false;
	return true;
}

/*
 * Every link's setup taken by its box, a link refused for a while made
 * afresh and tried again, so a box that took its link is never left:
 * leaving its new run would take this rank out of its members, and BSP
 * would step without it. 0 or the errno; *@tries the rounds it took.
 */
static int rw_remote_join_links(struct rw_remote *r,
				const struct rw_tensor_desc *t,
				unsigned long end, u32 *tries)
{
	unsigned long todo = GENMASK(r->nr_links - 1, 0), tried;
	int ret = 0, err;
	u32 i;

	for (*tries = 1;; ++*tries) {
		tried = 0;
		for_each_set_bit(i, &todo, r->nr_links) {
			err = rw_remote_link_open(&r->links[i]) ?:
			      rw_remote_link_setup(&r->links[i], t);
			if (err && !rw_remote_switch_retry(err))
				return err;
			if (!err)
				tried |= BIT(i);
			ret = err ?: ret;
		}
		if (tried &&
		    wait_event_interruptible_timeout(r->wq,
						     rw_remote_links_settled(r, tried),
						     msecs_to_jiffies(RW_REMOTE_CONNECT_MS)) < 0)
			return -ERESTARTSYS;
		if (READ_ONCE(r->error))
			return READ_ONCE(r->error);
		for_each_set_bit(i, &tried, r->nr_links) {
			err = rw_remote_link_outcome(&r->links[i]);
			if (!err) {
				todo &= ~BIT(i);
				continue;
			}
			if (!rw_remote_switch_retry(err))
				return err;
			ret = err;
		}
		if (!todo)
			return 0;
		/* The links still to join go again, afresh, in a moment. */
		for_each_set_bit(i, &todo, r->nr_links)
			rw_remote_link_reset(r, i);
		if (time_after(jiffies, end))
			return ret;
		if (fatal_signal_pending(current))
			return -EINTR;
		msleep(RW_REMOTE_SWITCH_NAP_MS);
	}
}

static int rw_remote_join(struct rw_remote *r, const struct rw_boxset *set)
{
	struct sockaddr_storage addrs[RW_WIRE_MAX_NICS];
	unsigned long end = jiffies + msecs_to_jiffies(RW_REMOTE_SWITCH_MS);
	u32 n = r->l.nr_tensors, tries = 0, i;
	struct rw_tensor_desc *t;
	int ret;

	ret = rw_remote_new_addrs(set, addrs);
	if (ret)
		return ret;
	/* The declaration again, as the layout keeps it. */
	t = kvcalloc(n, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		t[i].key = r->lt[i].key;
		t[i].nelems = r->lt[i].nelems;
		t[i].dtype = r->lt[i].dtype;
		t[i].priority = r->lt[i].priority;
	}
	ret = rw_remote_relink(r, addrs, set->nr);
	if (!ret)
		ret = rw_remote_join_links(r, t, end, &tries);
	kvfree(t);
	if (ret) {
		WRITE_ONCE(r->joining, false);
		return ret;
	}
	ret = rw_remote_setup_joined(r, set->epoch, rw_boxset_digest(set));
	if (!ret)
		pr_info("job %s rank %u: switched to box set epoch %u (%u boxes) in %u tries\n",
			r->job, r->rank, set->epoch, set->nr, tries);
	return ret;
}

int rw_remote_switch(struct rw_remote *r, unsigned long **redo)
{
	u32 nc = r->max_chunks, again;
	struct rw_boxset *set;
	int ret;

	lockdep_assert_held(&r->xfer);
	*redo = NULL;
	set = kmemdup(r->links[0].notice_set, sizeof(*set), GFP_KERNEL);
	if (!set)
		return -ENOMEM;
	/*
	 * Still in flight: pushes of the boundary's iteration, which the old
	 * set never sums (its answers of the ones before came before its
	 * stop notices).
	 */
	again = bitmap_weight(r->busy, nc);
	if (again) {
		*redo = bitmap_zalloc(nc, GFP_KERNEL);
		if (!*redo) {
			kfree(set);
			return -ENOMEM;
		}
		bitmap_copy(*redo, r->busy, nc);
	}
	pr_info("job %s rank %u: the run moves to box set epoch %u (%u boxes) before iteration %llu; %u chunks to push again\n",
		r->job, r->rank, set->epoch, set->nr, r->links[0].stop_before,
		again);
	rw_remote_beats_stop(r);
	ret = rw_remote_join(r, set);
	if (ret) {
		rw_remote_break(r, NULL, "the switch to the job's new box set failed");
		pr_warn("job %s rank %u: could not join box set epoch %u (%d)\n",
			r->job, r->rank, set->epoch, ret);
		bitmap_free(*redo);
		*redo = NULL;
	} else {
		rw_remote_beats_start(r);
	}
	kfree(set);
	return ret ?: READ_ONCE(r->error);
}
