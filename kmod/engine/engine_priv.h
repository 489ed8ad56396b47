/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The chunk engine's own structures, shared by the files that make it up
 * and by no one else:
 *  - path.c: the fast path (push, arrive, step, publish) and pulls;
 *  - build.c: building and teardown, the lifecycle;
 *  - image.c: initial parameters and the checkpoint image;
 *  - half.c: the f32 masters of a model with a 16-bit tensor;
 *  - chunk/migrate.c: rebalancing windows and the migration of chunks
 *    between cores;
 *  - query.c: read-only snapshots for netlink and KUnit.
 * The rest of the module goes through engine.h, query.h and
 * chunk/migrate.h.
 */
#ifndef _RW_ENGINE_ENGINE_PRIV_H
#define _RW_ENGINE_ENGINE_PRIV_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seqlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "engine/engine.h"
#include "chunk/core_thread.h"
#include "chunk/map.h"
#include "chunk/rebalance.h"
#include "sync/round.h"

#define RW_SLOT_INFLIGHT	0
#define RW_CHUNK_RECHECK	0	/* its recheck event is queued */

struct rw_slot {
	struct rw_event ev;		/* chunk and worker fixed at setup */
	unsigned long flags;		/* RW_SLOT_INFLIGHT */
	void *grad;
};

/* Ownership rules: the header comment of path.c. */
struct rw_chunk {
	struct rw_core *owner;		/* see the ownership rules */
	const void **src;		/* the slots' buffers, worker-rank order */
	void *params;			/* published: each tensor in its type */
	/*
	 * The f32 parameters the optimizer steps: @params itself, or in a
	 * model with a 16-bit tensor (e->half) a copy of twice the chunk's
	 * size, laid out as rw_layout_half() says, as is the state.
	 */
	float *master;
	float *state[2];
	u32 len;			/* bytes */
	struct rw_round round;		/* owner only: held gradients */
	struct rw_round_tag *tags;	/* one per worker, pushers write */
	atomic64_t posted;		/* gradients queued */
	u64 done;			/* owner writes (release): used or dropped */
	u64 seen;			/* owner writes (release): arrivals settled */
	unsigned long flags;		/* RW_CHUNK_RECHECK */
	struct rw_event recheck;
	u64 work_ns;			/* owner writes; the rebalancer reads */
	u64 version;			/* owner writes (release), anyone reads */
	seqcount_t seq;			/* owner writes around each step */
};

/* A core plus the counters only its thread writes. */
struct rw_engine_core {
	struct rw_core core;
	/*
	 * Optimizer constants for step st_t (0: none yet). A step's constants
	 * depend only on its number, and a core's chunks mostly take the same
	 * step in turn, so they are computed once per step, not per chunk.
	 */
	struct rw_agg_step st;
	u64 st_t;
	u32 st_n;			/* gradients the constants scale for */
	const void **srcv;		/* nr_workers: a step's sources */
	const void **segv;		/* nr_workers: the same, at a tensor */
	u32 unwoken;			/* chunks freed, pullers not woken yet */
	u64 steps;
	u64 forwards;
	u64 migrations;
	u64 errors;
};

struct rw_engine_pcpu {
	u64 pushes;
	u64 busy;
};

struct rw_engine {
	char name[24];
	u32 nr_workers;
	u32 nr_chunks;
	u32 nr_state;			/* optimizer state arrays per chunk */
	bool half;			/* a 16-bit tensor: masters in f32 */
	u32 ics;			/* rw_layout_image_chunk() */
	struct rw_agg_hparams hp;
	/*
	 * Who is a member, from when, and the step rule (sync/round.h):
	 * written under view_lock inside view_seq, read by the owners.
	 */
	struct rw_round_view *view;
	spinlock_t view_lock;		/* serialises writers of the view */
	seqcount_spinlock_t view_seq;
	atomic64_t *late;		/* per worker: late gradients dropped */

	/*
	 * Initial parameters (RW_IOC_PARAMS_INIT): init_lock serialises
	 * setting them against the run's first push, which sets @started.
	 * It is held while copying from user memory, so it nests outside
	 * mmap_lock and inside w->lock, and nothing else is taken under it.
	 */
	struct mutex init_lock;
	bool started;			/* a push happened (release) */
	bool initialized;		/* initial parameters were set */
	u64 *versions;			/* user-mappable copy of each version */
	size_t versions_len;		/* bytes, page-rounded */

	struct rw_layout_tensor *tensors;
	u64 *offsets;
	u32 *by_key;
	struct rw_layout layout;

	struct rw_map map;
	struct rw_engine_core *cores;	/* map.nr.nr_cores */
	struct rw_arena *arenas;	/* one per map node, on that node */

	/*
	 * A job over several boxes: the chunks with memory here (NULL: every
	 * chunk), how many, and the pages behind the others: zeros in the
	 * parameter buffer (never registered writable), a scratch page in
	 * the gradient buffers (a peer's write there reaches nothing).
	 */
	unsigned long *owned;
	u32 nr_owned;
	struct page *hole;
	struct page *hole_grad;
	struct rw_boxset *boxes;	/* the set, as the run began */

	struct rw_chunk *chunks;
	struct rw_slot *slots;		/* [chunk * nr_workers + worker] */
	struct rw_round_tag *tags;	/* likewise */
	const void **srcs;		/* backing store of every chunk->src */

	struct rw_engine_pcpu __percpu *pcpu;
	wait_queue_head_t wq;		/* pullers waiting for versions */

	/*
	 * Rebalancing (chunk/migrate.c): rebal_lock protects everything
	 * below and map.place.
	 */
	struct mutex rebal_lock;
	struct rw_rebal_params rebal_params;
	struct rw_rebal_state rebal_state;
	atomic_t moves_pending;		/* migrate events not yet handled */
	u64 *core_seen;			/* busy_ns at the last window */
	u64 *chunk_seen;		/* work_ns at the last window */
	struct delayed_work rebal_work;
	unsigned long rebal_period;	/* jiffies; 0: only on request */
};

/* Chunk @c is in range and has memory here. */
static inline bool rw_engine_has(const struct rw_engine *e, u32 c)
{
	return c < e->nr_chunks && (!e->owned || test_bit(c, e->owned));
}

/*
 * Implemented in path.c, for build.c to hand each core: a core's events,
 * and the end of each batch of them.
 */
void rw_engine_handle(struct rw_core *core, struct rw_event *ev);
void rw_engine_idle(struct rw_core *core);

/*
 * Implemented in half.c, for a model with a 16-bit tensor: the optimizer
 * step of chunk @c over its tensors' parts, each in its type (0 or the
 * kernels' error), and the master copy from the published parameters or
 * back (inside the chunk's write section).
 */
int rw_engine_step_half(struct rw_engine *e, struct rw_engine_core *ec,
			u32 c, const void *const *src, u32 nsrc);
void rw_engine_half_widen(struct rw_engine *e, u32 c);
void rw_engine_half_publish(struct rw_engine *e, u32 c);

/*
 * Implemented in chunk/migrate.c, for build.c's lifecycle and path.c's
 * event handler.
 */
int rw_engine_rebal_init(struct rw_engine *e, u32 rebalance_ms);
void rw_engine_rebal_start(struct rw_engine *e);
void rw_engine_rebal_stop(struct rw_engine *e);
void rw_engine_rebal_fini(struct rw_engine *e);
/* A migrate event reached @ec, the chunk's owner: hand the chunk over. */
void rw_engine_migrate_done(struct rw_engine *e, struct rw_engine_core *ec,
			    struct rw_chunk *ch, struct rw_event *ev);
/* After every core has stopped: free migrate events left in a queue. */
void rw_engine_migrate_drop(struct rw_event *ev);

#endif /* _RW_ENGINE_ENGINE_PRIV_H */
