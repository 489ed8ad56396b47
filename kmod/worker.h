/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An open file of /dev/rackweave as a worker (worker.c): its life,
 * attach, declaration, setup and what mmap asks of it. Transfers are in
 * worker_xfer.h, initial parameters and checkpoints in worker_ckpt.h.
 */
#ifndef _RW_WORKER_H
#define _RW_WORKER_H

#include <linux/socket.h>
#include <linux/types.h>

#include "rackweave.h"
#include "engine/engine.h"

struct page;
struct rw_job;
struct rw_worker;

/*
 * One open file of /dev/rackweave: unattached, a worker of one rank, or an
 * observer. Calls on one file are serialised.
 */
struct rw_worker *rw_worker_new(void);
/* The file is released (every mapping gone): detach and free. */
void rw_worker_free(struct rw_worker *w);

/*
 * A worker for the box's end of an RDMA connection (rdma/conn.c): the
 * only kind that may train a job spread over several boxes here.
 */
struct rw_worker *rw_worker_new_peer(void);

/* A local job's worker or observer (flags: RW_ATTACH_OBSERVER or 0). */
int rw_worker_attach(struct rw_worker *w, const char *job, const u8 *token,
		     u32 rank, u32 flags);
/*
 * The worker of rank @rank of job @job on the box listening at @box: @nr
 * addresses, one per box NIC (rdma/host.h); with RW_ATTACH_OBSERVER in
 * @flags its observer (rank 0, one address).
 */
int rw_worker_attach_remote(struct rw_worker *w, const char *job,
			    const u8 *token, u32 rank, u32 flags,
			    const struct sockaddr_storage *box, u32 nr);
/* Attached to a job, here or on another host. */
bool rw_worker_attached(struct rw_worker *w);
/*
 * Declare the model; the first declaration starts the job's run, charged
 * to the job's and the box's memory limits first (-EDQUOT, -ENOSPC; see
 * mem.h). A long start gives up when the caller has a fatal signal or
 * @cancel (may be NULL) says it has gone.
 */
struct rw_cancel;
int rw_worker_declare(struct rw_worker *w, const struct rw_tensor_desc *t,
		      u32 n, u32 flags, const struct rw_cancel *cancel);
int rw_worker_setup(struct rw_worker *w, struct rw_setup *out);
/*
 * An observer's layout checked against its job's run (the box's side of
 * a remote observer's setup): 0, -EEXIST (another layout), -ENOTCONN (no
 * run yet).
 */
int rw_worker_verify(struct rw_worker *w, const struct rw_tensor_desc *t,
		     u32 n);

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
/* The length of buffer @buf of a declared worker (the box's RDMA windows). */
u64 rw_worker_buf_len(struct rw_worker *w, enum rw_engine_buf buf);

#endif /* _RW_WORKER_H */
