/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the worker's files share and no one else: struct rw_worker and the
 * checks every call makes. worker.c (attach, declare, mapping) defines the
 * checks; worker_xfer.c (transfers) calls into it, worker_ckpt.c (initial
 * parameters, checkpoints) into both, and nothing calls back the other
 * way.
 */
#ifndef _RW_WORKER_PRIV_H
#define _RW_WORKER_PRIV_H

#include <linux/mutex.h>
#include <linux/types.h>

#include "engine/engine.h"

struct rw_job;
struct rw_remote;
struct rw_sync;

/*
 * Two locks, so a transfer sleeping in the kernel never holds up setup or
 * mmap on the same file: @setup serialises attach, declare, setup and
 * mmap, and writes @job, @declared and what declare sets up (published by
 * the release store of @declared); @lock serialises transfers and guards
 * the iteration state below it. Where they sit in the module's lock
 * order: job.h.
 */
struct rw_worker {
	struct mutex setup;		/* attach, declare, setup, mmap */
	struct rw_job *job;		/* set once at attach (a reference) */
	struct rw_remote *remote;	/* or this, for a job on another host */
	u32 rank;
	bool observer;
	bool peer;			/* the box's end of an RDMA connection */
	bool declared;			/* engine, sync and bitmaps are set */
	bool evicted;			/* the gate dropped this worker */

	struct mutex lock;		/* transfers and the fields below */
	bool admitted;			/* inside an iteration */
	bool ahead;			/* ...admitted by the box's agent */
	bool pending;			/* a pull returned EAGAIN (poll) */
	bool pp_pushed;			/* a PUSHPULL pushed, its pull did not end */
	u32 epoch;
	u64 iter;			/* the iteration admitted to */
	struct rw_engine *engine;	/* the job's, while this file lives */
	struct rw_sync *sync;
	u32 nr_chunks;
	u32 nr_owned;			/* the chunks this box holds */
	u32 npushed;			/* chunks pushed this iteration */
	u32 cursor;			/* first chunk of sel not yet fresh */
	unsigned long *pushed;		/* [nr_chunks] */
	unsigned long *sel;		/* [nr_chunks]: the current call's */
	unsigned long *prev;		/* [nr_chunks]: the previous call's */
	u64 *snap;			/* gradients posted at pull start */
};

/* The remote attachment of @w, if it has one (set once, at attach). */
static inline struct rw_remote *rw_worker_remote(struct rw_worker *w)
{
	/* Pairs with the release in rw_worker_attach(). */
	return smp_load_acquire(&w->remote);
}

/* worker.c */

/* Attached, its job not deleted, not evicted: 0 or the errno saying which. */
int rw_worker_live(struct rw_worker *w, struct rw_job *job);
/*
 * Whether the calls of an attached worker may go on. Transfers call it
 * without @setup: a declared worker's job and engine never change.
 */
int rw_worker_ready(struct rw_worker *w, bool need_layout);
/*
 * The engine whose buffers setup and mmap describe (@setup held): a
 * worker's once it has declared, an observer's once some worker has
 * started a run.
 */
int rw_worker_mapped_engine(struct rw_worker *w, struct rw_engine **e);

/* worker_xfer.c: sleep on the engine until @cond holds (or job deletion). */
int rw_worker_wait(struct rw_worker *w, bool (*cond)(struct rw_worker *w),
		   long tmo);

#endif /* _RW_WORKER_PRIV_H */
