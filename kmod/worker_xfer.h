/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A worker's transfers (worker_xfer.c): push, pull and poll of an open
 * file, the per-chunk entry points of the box's RDMA agent for a remote
 * worker (rdma/data.c), and the wake-up of a job deleted by force.
 */
#ifndef _RW_WORKER_XFER_H
#define _RW_WORKER_XFER_H

#include <linux/poll.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "rackweave.h"

struct rw_boxset;
struct rw_job;
struct rw_worker;

/* The operations of RW_IOC_PUSH, _PULL and _PUSHPULL. */
enum rw_xfer_op {
	RW_XFER_PUSH = 1,
	RW_XFER_PULL = 2,
	RW_XFER_BOTH = RW_XFER_PUSH | RW_XFER_PULL,
};

int rw_worker_xfer(struct rw_worker *w, u32 op, const struct rw_range *r,
		   u32 nr, u32 flags, u32 timeout_ms);
__poll_t rw_worker_poll(struct rw_worker *w, struct file *file,
			poll_table *pt);

/*
 * A remote worker (rdma/conn.c) moves one chunk at a time, the data
 * already in place: its gradient written into the slot, its parameters
 * written out by the box when fresh.
 *
 * rw_worker_push_chunk: the gradient of @chunk is in this worker's slot;
 * queue it as a push of that chunk alone would (the gate admits the
 * iteration first, which may sleep up to @tmo). 0, -EBUSY if the slot was
 * still being summed (the data arrived too early), -EALREADY if the chunk
 * was pushed in this iteration (a push of the next one, which may come
 * once the chunk is answered: queue it when this iteration is complete),
 * or what a push answers.
 * rw_worker_pull_admit: the last push ended an iteration; before the
 * answers of that push go out the gate admits the next one (a pull would
 * wait there), and the rank's pulls count one. 0 or what the gate answers
 * (-ETIMEDOUT after @tmo).
 * rw_worker_withdraw: a checkpoint is about to hold the gate: an
 * iteration rw_worker_pull_admit() admitted, of which nothing was pushed
 * yet, is taken back (rw_gate_withdraw()), so that the checkpoint need
 * not wait for it; its first push is admitted again. 0 (also when there
 * was none) or what the gate answers.
 * rw_worker_chunk_fresh: lock-free, whether @chunk's parameters are fresh
 * for this worker since its last push of it.
 */
int rw_worker_push_chunk(struct rw_worker *w, u32 chunk, long tmo);
int rw_worker_pull_admit(struct rw_worker *w, long tmo);
int rw_worker_withdraw(struct rw_worker *w);
bool rw_worker_chunk_fresh(struct rw_worker *w, u32 chunk);
bool rw_worker_admitted(struct rw_worker *w);
/*
 * The iteration @w starts next, of which it has pushed nothing (a move's
 * boundary, rdma/conn_ctl.c): 0, -EBUSY once it pushed some of it, or
 * what keeps @w from transfers.
 */
int rw_worker_next_iter(struct rw_worker *w, u64 *next);

/*
 * What the agent reads of the run, lock-free, once rw_worker_setup() has
 * answered 0 (the worker declared; its engine lives as @w does): a
 * chunk's length and version (optimizer steps applied), the NUMA node of
 * each of the first @n chunks (as rw_engine_chunk_nodes), and an entry
 * @wqe woken at every step of the engine (rw_worker_watch), taken off
 * again before @wqe goes (rw_worker_unwatch).
 */
u32 rw_worker_chunk_len(struct rw_worker *w, u32 chunk);
/* This box's chunks (engine.h, rw_engine_owned(); NULL: every chunk). */
const unsigned long *rw_worker_owned(struct rw_worker *w);
/* The run's box set (chunk/boxset.h), NULL if the job is whole here. */
const struct rw_boxset *rw_worker_boxes(struct rw_worker *w);
/* The order its chunks go in by priority (chunk/layout.h rw_layout_order). */
bool rw_worker_chunk_order(struct rw_worker *w, u32 *order, u32 *rank);
u64 rw_worker_chunk_version(struct rw_worker *w, u32 chunk);
int rw_worker_chunk_nodes(struct rw_worker *w, int *nodes, u32 n);
void rw_worker_watch(struct rw_worker *w, struct wait_queue_entry *wqe);
void rw_worker_unwatch(struct rw_worker *w, struct wait_queue_entry *wqe);

/*
 * The job was deleted by force; the ranks in @ranks (ended by U32_MAX or
 * the job's worker count) lost their workers: the gate drops them and
 * every transfer waiting on the engine wakes. Called with run_lock held.
 */
void rw_worker_job_gone(struct rw_job *job, const u32 *ranks);

#endif /* _RW_WORKER_XFER_H */
