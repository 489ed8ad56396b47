/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RW_WORKER_H
#define _RW_WORKER_H

#include <linux/poll.h>
#include <linux/socket.h>
#include <linux/types.h>

#include "rackweave.h"
#include "engine.h"

struct rw_job;
struct rw_worker;

/* The operations of RW_IOC_PUSH, _PULL and _PUSHPULL. */
enum rw_xfer_op {
	RW_XFER_PUSH = 1,
	RW_XFER_PULL = 2,
	RW_XFER_BOTH = RW_XFER_PUSH | RW_XFER_PULL,
};

/*
 * One open file of /dev/rackweave: unattached, a worker of one rank, or an
 * observer. Calls on one file are serialised.
 */
struct rw_worker *rw_worker_new(void);
/* The file is released (every mapping gone): detach and free. */
void rw_worker_free(struct rw_worker *w);

/* A local job's worker or observer (flags: RW_ATTACH_OBSERVER or 0). */
int rw_worker_attach(struct rw_worker *w, const char *job, const u8 *token,
		     u32 rank, u32 flags);
/*
 * The worker of rank @rank of job @job on the box listening at @box: @nr
 * addresses, one per box NIC (rdma/host.h).
 */
int rw_worker_attach_remote(struct rw_worker *w, const char *job,
			    const u8 *token, u32 rank,
			    const struct sockaddr_storage *box, u32 nr);
/* Attached to a job, here or on another host. */
bool rw_worker_attached(struct rw_worker *w);
int rw_worker_declare(struct rw_worker *w, const struct rw_tensor_desc *t,
		      u32 n, u32 flags);
int rw_worker_setup(struct rw_worker *w, struct rw_setup *out);
/*
 * RW_IOC_PARAMS_INIT (uapi): set the run's initial parameters from user
 * memory at @data (@len bytes, laid out as the parameter buffer), or with
 * RW_INIT_WAIT wait until they are set or the run began.
 */
int rw_worker_params_init(struct rw_worker *w, const struct rw_range *r,
			  u32 nr, u32 flags, u64 data, u64 len, u32 timeout_ms);

/* RW_IOC_CHECKPOINT (uapi): the head, and unless head-only the image. */
int rw_worker_checkpoint(struct rw_worker *w, u32 flags, u32 timeout_ms,
			 u64 head, u64 data, u64 len);

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
 * wait there). 0 or what the gate answers (-ETIMEDOUT after @tmo).
 * rw_worker_chunk_fresh: lock-free, whether @chunk's parameters are fresh
 * for this worker since its last push of it.
 */
int rw_worker_push_chunk(struct rw_worker *w, u32 chunk, long tmo);
int rw_worker_pull_admit(struct rw_worker *w, long tmo);
bool rw_worker_chunk_fresh(struct rw_worker *w, u32 chunk);
bool rw_worker_admitted(struct rw_worker *w);
/* The engine once the worker declared (else NULL); it lives as @w does. */
struct rw_engine *rw_worker_engine(struct rw_worker *w);

/*
 * mmap support: check a request for @len bytes at @off and pin what the
 * mapping needs (a job reference). 0 with *@buf, *@base set, or -errno.
 */
int rw_worker_map(struct rw_worker *w, u64 off, u64 len, bool writable,
		  bool shared, enum rw_engine_buf *buf, u64 *base,
		  struct rw_job **job);
/* The buffer (RW_MMAP_*) a file offset falls in, and where it starts. */
enum rw_engine_buf rw_worker_buf_at(u64 off, u64 *base);
struct rw_job *rw_worker_job(struct rw_worker *w);
struct page *rw_worker_page(struct rw_worker *w, enum rw_engine_buf buf,
			    u64 off);

/*
 * The job was deleted by force; the ranks in @ranks (ended by U32_MAX or
 * the job's worker count) lost their workers. Called with run_lock held.
 */
void rw_worker_job_gone(struct rw_job *job, const u32 *ranks);

#endif /* _RW_WORKER_H */
