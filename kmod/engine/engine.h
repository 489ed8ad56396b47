/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The chunk engine of one job: its lifecycle and shape (build.c), the fast
 * path every transfer takes (path.c), and its initial parameters and
 * checkpoint image (image.c). Read-only views are in query.h, rebalancing
 * on request in chunk/migrate.h.
 */
#ifndef _RW_ENGINE_ENGINE_H
#define _RW_ENGINE_ENGINE_H

#include <linux/cpumask.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "agg/agg_impl.h"
#include "chunk/layout.h"
#include "sync/round.h"

struct page;
struct rw_boxset;
struct rw_engine;

/*
 * Who asked for a long build, as the build asks between steps: @gone(@arg)
 * is true once that caller has gone (a remote worker's connection
 * closing). A fatal signal of the building task ends it too.
 */
struct rw_cancel {
	bool (*gone)(void *arg);
	void *arg;
};

/* 0; -EINTR on a fatal signal; -ECONNABORTED once @c (may be NULL) says. */
int rw_cancelled(const struct rw_cancel *c);

/* What a job asks of its chunk engine. Copied at creation. */
struct rw_engine_config {
	const char *name;			/* for thread names and logs */
	const struct rw_layout_tensor *tensors;
	u32 nr_tensors;
	u32 chunk_size;				/* 0: the module default */
	u32 nr_workers;				/* 1..RW_AGG_MAX_SRCS */
	struct rw_agg_hparams hp;
	const struct cpumask *cpus;		/* NULL: every online CPU */
	u32 rebalance_ms;			/* window; 0: only on request */
	bool apply_each;			/* step on each gradient (async) */
	u32 quorum;				/* synchronous: 0 (all) or K */
	const struct rw_cancel *cancel;		/* NULL: only fatal signals */
	/*
	 * A job over several boxes (chunk/boxset.h, @name is the job's):
	 * only the chunks the set gives its box @boxes->self have memory
	 * here. NULL: every chunk is this box's.
	 */
	const struct rw_boxset *boxes;
};

/* The buffers a worker maps, in chunk order (see uapi RW_MMAP_*). */
enum rw_engine_buf {
	RW_BUF_GRAD,
	RW_BUF_PARAMS,
	RW_BUF_VERSIONS,
};

struct rw_engine *rw_engine_create(const struct rw_engine_config *cfg);
/*
 * The bytes an engine for @cfg takes, all told (arenas, version array,
 * per-chunk and per-slot bookkeeping), plus what each worker's
 * registration of its windows costs, before anything is allocated:
 * rw_engine_create() allocates no more. -EINVAL, -E2BIG or -EOVERFLOW for
 * a layout it would refuse.
 */
int rw_engine_footprint(const struct rw_engine_config *cfg, u64 *bytes);
void rw_engine_destroy(struct rw_engine *e);

u32 rw_engine_nr_chunks(const struct rw_engine *e);
u32 rw_engine_nr_cores(const struct rw_engine *e);
u32 rw_engine_chunk_len(const struct rw_engine *e, u32 chunk);

/*
 * Whether @chunk is this box's (in range, and the box set gives it here),
 * how many are, and which (NULL: every chunk, the job is whole here).
 * Every other chunk has no memory: pushes, reads and initial parameters
 * of it are refused (-EINVAL) and its pages in the mapped buffers are one
 * page of zeros (parameters) or one scratch page (gradients, which peers
 * may write), so windows keep every chunk at its offset.
 */
bool rw_engine_owns(const struct rw_engine *e, u32 chunk);
u32 rw_engine_nr_owned(const struct rw_engine *e);
const unsigned long *rw_engine_owned(const struct rw_engine *e);
/* The box set the run began with (NULL: the job is whole here). */
const struct rw_boxset *rw_engine_boxes(const struct rw_engine *e);

/*
 * Local push: copy @len bytes of worker @worker's gradient for @chunk into
 * its receive slot and queue the chunk's owner. 0; -EINVAL for a worker,
 * chunk or length out of range; -EBUSY while this worker's previous push of
 * the chunk is not yet aggregated.
 */
int rw_engine_push(struct rw_engine *e, u32 worker, u32 chunk,
		   const void *grad, size_t len);

/*
 * Zero-copy push: the gradient is already in the worker's slot (its mapped
 * gradient buffer). @tag says which iteration it belongs to and the
 * pusher's membership (sync/round.h); NULL: the current round, unchecked
 * (rw_engine_push always). Errors as rw_engine_push.
 */
int rw_engine_push_mapped(struct rw_engine *e, u32 worker, u32 chunk,
			  const struct rw_round_tag *tag);

/*
 * Change who is a member or the step rule: @fill edits the view under the
 * engine's lock (it must not sleep), then every chunk looks again. May be
 * called in atomic context, not from a core's thread.
 */
void rw_engine_view_update(struct rw_engine *e,
			   void (*fill)(struct rw_round_view *v, void *arg),
			   void *arg);

/*
 * Initial parameters, before the run's first push: rw_engine_init_begin()
 * (0, or -EBUSY if they were set or a push happened: then nothing else),
 * rw_engine_init_chunk() for each chunk to set (its length from user
 * memory at @src; -EFAULT), rw_engine_init_end() (@set: they count as set
 * and waiters wake). Pushes wait between begin and end.
 */
int rw_engine_init_begin(struct rw_engine *e);
int rw_engine_init_chunk(struct rw_engine *e, u32 chunk,
			 const void __user *src);
void rw_engine_init_end(struct rw_engine *e, bool set);
/*
 * Between begin and end, for a transport that writes a chunk's
 * parameters itself (an RDMA READ into the parameter buffer): open chunk
 * @chunk's section, then close it (@ok false: the chunk goes back to
 * zeros, what a run's parameters are before any are set). Readers of the
 * chunk wait while it is open.
 */
void rw_engine_init_open(struct rw_engine *e, u32 chunk);
void rw_engine_init_close(struct rw_engine *e, u32 chunk, bool ok);

/*
 * The run's state as a checkpoint image (uapi RW_IOC_CHECKPOINT): the
 * parameters, each optimizer state array, then the chunk versions.
 * rw_engine_image_read() copies it to user memory and must run when
 * rw_engine_quiet() (no gradient queued and unused, no step running);
 * rw_engine_image_write() loads one, between rw_engine_init_begin() and
 * _init_end() (-EFAULT).
 */
u32 rw_engine_nr_state(const struct rw_engine *e);
/* Bytes per chunk of each array: rw_layout_image_chunk() of the layout. */
u32 rw_engine_image_chunk(const struct rw_engine *e);
u64 rw_engine_image_len(const struct rw_engine *e);
u64 rw_engine_layout_hash(const struct rw_engine *e);
u64 rw_engine_max_version(const struct rw_engine *e);
bool rw_engine_quiet(const struct rw_engine *e);
int rw_engine_image_read(struct rw_engine *e, void __user *dst);
/* Bytes [@off, @off + @len) of it into kernel memory, as _image_put(). */
int rw_engine_image_get(struct rw_engine *e, u64 off, u64 len, void *dst);
int rw_engine_image_write(struct rw_engine *e, const void __user *src);
/*
 * Between rw_engine_init_begin() and _end(), from kernel memory: bytes
 * [@off, @off + @len) of an image (multiples of 8; -EINVAL otherwise or
 * beyond the image), for a transport that brings it in pieces; and the
 * whole state back to zeros (a run's before anything is set), for one
 * that failed half-way.
 */
int rw_engine_image_put(struct rw_engine *e, u64 off, u64 len,
			const void *src);
void rw_engine_image_clear(struct rw_engine *e);

/* Whether initial parameters were set or the run has begun. */
bool rw_engine_init_settled(const struct rw_engine *e);
/* Whether initial parameters were set (an init, or a restore). */
bool rw_engine_params_set(const struct rw_engine *e);

/* Worker @worker's gradients dropped because their round was done. */
u64 rw_engine_late(const struct rw_engine *e, u32 worker);

/* Whether the worker's last gradient for @chunk is still being summed. */
bool rw_engine_slot_busy(const struct rw_engine *e, u32 worker, u32 chunk);

/* Gradients queued for @chunk so far (every worker). */
u64 rw_engine_posted(const struct rw_engine *e, u32 chunk);

/*
 * Whether @chunk is fresh for @worker: its own gradients are used (summed,
 * or dropped as late), and under a step-per-gradient rule so are the
 * @posted gradients queued before.
 */
bool rw_engine_fresh(const struct rw_engine *e, u32 worker, u32 chunk,
		     u64 posted);

/* Woken after every step. */
wait_queue_head_t *rw_engine_waitq(struct rw_engine *e);

const struct rw_layout *rw_engine_layout(const struct rw_engine *e);

/* The page behind byte @off of a buffer (NULL beyond it), and its length. */
struct page *rw_engine_page(const struct rw_engine *e, enum rw_engine_buf buf,
			    u32 worker, u64 off);
u64 rw_engine_buf_len(const struct rw_engine *e, enum rw_engine_buf buf);

/* The chunk's version: optimizer steps applied so far. */
u64 rw_engine_version(const struct rw_engine *e, u32 chunk);

/*
 * Sleep until @chunk's version reaches @version: 0, -ETIMEDOUT, or
 * -ERESTARTSYS if a signal came first.
 */
int rw_engine_wait(struct rw_engine *e, u32 chunk, u64 version,
		   unsigned long timeout_jiffies);

/* Copy the chunk's parameters (@len == its length) and their version. */
int rw_engine_read(struct rw_engine *e, u32 chunk, void *dst, size_t len,
		   u64 *version);

#endif /* _RW_ENGINE_ENGINE_H */
