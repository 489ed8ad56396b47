// SPDX-License-Identifier: GPL-2.0
/*
 * A remote worker's agent on the box: a kthread per connection, since the
 * gate may make it wait (rdma/data.c starts it once the setup is answered
 * and kicks it).
 *
 * It queues arrived chunks through the worker exactly as a local push of
 * that chunk would go, and answers each with the chunk's parameters,
 * written with an immediate into the worker's window, once they are fresh
 * for it; an observer's agent writes the chunks whose versions moved
 * instead (uapi "Observers"); between rounds it serves the worker's requests (rdma/
 * conn_ctl.c). It sleeps on its own queue and is kicked by arrivals, by
 * send completions and by every step of the engine. When the worker has
 * been silent for a second it writes a heartbeat (rdma/link.h): a worker
 * whose host vanished without a word fails it, and its connection
 * closes, which frees its rank.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/kthread.h>
#include <linux/sched.h>

#include "rw.h"
#include "worker.h"
#include "worker_ckpt.h"
#include "worker_xfer.h"
#include "rdma/conn.h"
#include "rdma/wire.h"
#include "trace.h"

/* How long the agent waits in the gate before it looks around again. */
#define RW_AGENT_GATE_MS	200

/* Write @chunk's parameters into the peer's window, as @type. */
static int rw_conn_send_params(struct rw_conn *c, u32 chunk, u32 type)
{
	u64 off = (u64)chunk << c->chunk_shift;
	u64 version = rw_worker_chunk_version(c->w, chunk);
	int ret;

	ret = rw_link_write_imm(&c->write_cqe, c->id->qp, &c->params, &c->peer,
				off, rw_worker_chunk_len(c->w, chunk),
				RW_IMM(type, version, chunk));
	if (!ret)
		trace_rw_wire_write(c->info.job, c->info.rank, chunk, version);
	if (!ret && c->sent)
		c->sent[chunk] = version;
	return ret;
}

/*
 * An observer's refreshes (uapi "Observers"): each chunk whose version
 * moved, once RW_WIRE_OBSERVE_MS have passed since the last round, or at
 * once when it moved by RW_WIRE_OBSERVE_LAG, while the send queue has
 * room (a round cut short goes on the next time): > 0 if it sent any, 0
 * if none, or a negative errno.
 */
static int rw_conn_observe(struct rw_conn *c)
{
	bool due = time_after_eq(jiffies, c->observe_at);
	int ret, did = 0;
	u32 chunk;
	u64 v;

	/* Every step kicks the agent: look for laggards once a tick. */
	if (!due && !time_after(jiffies, c->observe_scan))
		return 0;
	c->observe_scan = jiffies;
	for (chunk = 0; chunk < c->nr_chunks; chunk++) {
		v = rw_worker_chunk_version(c->w, chunk);
		if (v == c->sent[chunk] ||
		    (!due && v - c->sent[chunk] < RW_WIRE_OBSERVE_LAG))
			continue;
		if (atomic_read(&c->ep.sq_room) <= 0)
			return did;
		ret = rw_conn_send_params(c, chunk, RW_IMM_RESEND);
		if (ret)
			return ret;
		did = 1;
	}
	if (due)
		c->observe_at = jiffies + msecs_to_jiffies(RW_WIRE_OBSERVE_MS);
	return did;
}

/* Chunk @chunk is pushed and not yet answered, or no longer. */
static void rw_conn_await(struct rw_conn *c, u32 chunk)
{
	set_bit(chunk, c->awaiting);
	if (c->await_rk)
		set_bit(c->rank[chunk], c->await_rk);
}

static void rw_conn_unawait(struct rw_conn *c, u32 chunk)
{
	if (c->await_rk)
		clear_bit(c->rank[chunk], c->await_rk);
	clear_bit(chunk, c->awaiting);
}

/*
 * Send what is owed (a new worker's initial parameters) and, unless
 * @gated (the gate has not admitted this worker's next iteration yet),
 * what is fresh for an awaiting chunk, while the send queue has room:
 * > 0 if it sent any, 0 if none, or a negative errno. Awaiting chunks go
 * in the model's priority order (uapi "priority"), the chunks' own when
 * its priorities give no other.
 */
static int rw_conn_send_owed(struct rw_conn *c, bool gated)
{
	const unsigned long *await = c->await_rk ?: c->awaiting;
	u32 n = c->nr_chunks, chunk, bit;
	int ret, did = 0;

	for_each_set_bit(chunk, c->to_send, n) {
		if (atomic_read(&c->ep.sq_room) <= 0)
			return did;
		ret = rw_conn_send_params(c, chunk, RW_IMM_PARAMS);
		if (ret)
			return ret;
		__clear_bit(chunk, c->to_send);
		did = 1;
	}
	for_each_set_bit(chunk, c->resend, n) {
		if (atomic_read(&c->ep.sq_room) <= 0)
			return did;
		ret = rw_conn_send_params(c, chunk, RW_IMM_RESEND);
		if (ret)
			return ret;
		__clear_bit(chunk, c->resend);
		did = 1;
	}
	/* An observer's first writes are out: its refreshes from now on. */
	if (c->sent && bitmap_empty(c->to_send, n)) {
		ret = rw_conn_observe(c);
		if (ret <= 0)
			return ret < 0 ? ret : did;
		did = 1;
	}
	for_each_set_bit(bit, await, n) {
		if (gated || atomic_read(&c->ep.sq_room) <= 0)
			return did;
		chunk = c->order ? c->order[bit] : bit;
		if (!rw_worker_chunk_fresh(c->w, chunk))
			continue;
		/*
		 * Before the answer can arrive and the chunk come again:
		 * rw_conn_push_done must see it cleared by then.
		 */
		rw_conn_unawait(c, chunk);
		smp_mb__after_atomic();	/* the clear before the post */
		ret = rw_conn_send_params(c, chunk, RW_IMM_PARAMS);
		if (ret)
			return ret;
		did = 1;
	}
	return did;
}

/*
 * One round: queue what arrived, then send what is owed and fresh. > 0 if
 * it did something (go round again), 0 if only an event can help, or a
 * negative errno that ends the connection.
 */
static int rw_conn_agent_round(struct rw_conn *c)
{
	long tmo = msecs_to_jiffies(RW_AGENT_GATE_MS);
	u32 n = c->nr_chunks, chunk;
	bool gated = false;
	int ret, did = 0;

	/* A heartbeat if the peer has been silent (rdma/link.h). */
	ret = rw_link_beat_tick(&c->ep, c->id->qp, &c->peer);
	if (ret)
		return ret;
	/* A request, or a wait whose answer is due (rdma/conn_ctl.c). */
	ret = rw_conn_ctl_round(c);
	if (ret < 0)
		return ret;
	did = ret;
	/* The job moves to another set: tell the peer once. */
	ret = rw_conn_notice_round(c);
	if (ret < 0)
		return ret;
	did |= ret;

	for_each_set_bit(chunk, c->arrived, n) {
		/* From here on, another push of it comes before its answer. */
		rw_conn_await(c, chunk);
		clear_bit(chunk, c->arrived);
		ret = rw_worker_push_chunk(c->w, chunk, tmo);
		if (!ret) {
			did = 1;
			continue;
		}
		if (ret != -ETIMEDOUT && ret != -EALREADY)
			return ret;
		/*
		 * Not taken: parked in the gate (look around, retry), or
		 * answered and pushed again for the next iteration before
		 * this one's last push is queued (arrivals are a set, not a
		 * queue, and a sibling connection carries others): it waits
		 * for that push.
		 */
		set_bit(chunk, c->arrived);
		rw_conn_unawait(c, chunk);
		if (ret == -ETIMEDOUT) {
			gated = true;
			break;
		}
	}
	if (!gated && !bitmap_empty(c->awaiting, n) &&
	    !rw_worker_admitted(c->w)) {
		/* The iteration ended: its answers wait for the next one. */
		ret = rw_worker_pull_admit(c->w, tmo);
		if (ret == -ETIMEDOUT)
			gated = true;
		else if (ret)
			return ret;
	}
	/*
	 * Parked in the gate (it waited its while there): round again, but
	 * first send what needs no admission and the answer to a request,
	 * which must not wait for the gate (a checkpoint may be why).
	 */
	did |= gated;
	/*
	 * Initial parameters set since this connection's first writes (an
	 * init, a restore): every chunk it carries again, before the answer
	 * to a request that saw them (rdma/conn_ctl.c).
	 */
	if (!c->params_seen && rw_worker_params_set(c->w)) {
		for (chunk = 0; chunk < n; chunk++)
			if (rw_conn_carries(c, chunk))
				__set_bit(chunk, c->resend);
		c->params_seen = true;
	}
	/*
	 * Bottom halves off while posting: soft-RoCE sends a kernel QP's
	 * work requests from a tasklet, which then runs here as they are
	 * turned back on instead of waking ksoftirqd (a hardware NIC only
	 * sees its doorbells rung a little later).
	 */
	local_bh_disable();
	ret = rw_conn_send_owed(c, gated);
	if (ret >= 0) {
		did |= ret;
		ret = rw_conn_ctl_flush(c, bitmap_empty(c->resend, n) &&
					bitmap_empty(c->to_send, n));
	}
	local_bh_enable();
	/* A move's boundary: after the answers owed before it (it sleeps). */
	if (ret >= 0) {
		did |= ret;
		ret = rw_conn_stop_round(c);
	}
	return ret < 0 ? ret : ret | did;
}

static const char *rw_conn_agent_why(int err)
{
	switch (err) {
	case -EBUSY:
		return "pushed into a gradient still being summed";
	case -ESTALE:
		return "evicted";
	case -ENODEV:
		return "job deleted";
	case -ETIMEDOUT:
		return "silent despite heartbeats";
	default:
		return "transfer failed";
	}
}

static bool rw_conn_agent_kicked(struct rw_conn *c)
{
	return atomic_read(&c->kick) || kthread_should_stop();
}

int rw_conn_agent(void *arg)
{
	struct rw_conn *c = arg;
	/* An observer's refreshes are due every RW_WIRE_OBSERVE_MS. */
	long nap = c->sent ? msecs_to_jiffies(RW_WIRE_OBSERVE_MS) : HZ;
	int ret = 0;

	while (!kthread_should_stop()) {
		atomic_set(&c->kick, 0);
		ret = rw_conn_agent_round(c);
		if (ret < 0)
			break;
		if (!ret)
			wait_event_interruptible_timeout(c->wq,
							 rw_conn_agent_kicked(c),
							 rw_conn_ctl_nap(c, nap));
	}
	if (ret < 0) {
		/* A push into its own slot before that slot was summed. */
		if (ret == -EBUSY)
			rw_conn_violation(c, RW_VIOL_PROTO,
					  rw_conn_agent_why(ret));
		/* Only if the error is why: a closing connection fails waits. */
		else if (rw_conn_close_later(c))
			pr_warn_ratelimited("%pISpc: job %s rank %u: %s (%d): closing\n",
					    &c->info.peer, c->info.job,
					    c->info.rank, rw_conn_agent_why(ret),
					    ret);
		/* Teardown stops this thread; wait for it. */
		for (;;) {
			set_current_state(TASK_INTERRUPTIBLE);
			if (kthread_should_stop())
				break;
			schedule();
		}
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}
