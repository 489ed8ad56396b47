/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The worker host's end of the wire (rdma/host_*.c): an open
 * /dev/rackweave attached to a job on another host's box
 * (RW_ATTACH_REMOTE), a struct rw_remote. The box's end is rdma/conn.c
 * and rdma/data.c; what both ends share is rdma/link.c. worker.c hands
 * every call of such a file here and the calls mean what they mean for a
 * local job (uapi); nothing here calls back into the worker.
 *
 *   host_life.c   attach (resolve, connect, one link per box address),
 *                 heartbeats, teardown, device removal, the netlink list
 *   host_setup.c  declare: buffers, registrations, the setup and its reply
 *   host_xfer.c   push, pull, poll and mmap of a declared attachment
 *   host_ctl.c    requests to the box, and its notices
 *   host_move.c   a move of the job's box set inside the run: the switch
 */
#ifndef _RW_RDMA_HOST_H
#define _RW_RDMA_HOST_H

#include <linux/poll.h>
#include <linux/socket.h>
#include <linux/types.h>

#include "rackweave.h"
#include "engine/engine.h"

struct ib_device;
struct rw_remote;

/* host_life.c */

/*
 * Connect to the box listening at @box (@nr addresses, one per box NIC,
 * 1..RW_WIRE_MAX_NICS; with RW_ATTACH_BOXES in @flags one per box of a
 * job spread over several) as rank @rank of job @job, or with
 * RW_ATTACH_OBSERVER as its observer (rank 0, one address per box),
 * signing the requests with @token:
 * the attachment, or an ERR_PTR (the box's refusal, or what kept a
 * connection from being made). May sleep for the resolutions and the
 * connects (RW_REMOTE_CONNECT_MS at most each).
 */
struct rw_remote *rw_remote_attach(const char *job, const u8 *token, u32 rank,
				   const struct sockaddr_storage *box, u32 nr,
				   u32 flags);
/*
 * Disconnect (if still connected) and let go; no mapping is left. Never
 * waits for an rdma_cm id: the ids are destroyed, and the attachment
 * freed, by a work of their own (host_life.c, rw_remote_reap).
 */
void rw_remote_free(struct rw_remote *r);

/*
 * @dev is going (ib_client .remove): every attachment on it breaks and
 * its RDMA objects go now, its rdma_cm ids just after (rdma_cm's own
 * removal waits for them). An attachment holds the module until its ids
 * are gone, so unloading never finds one.
 */
void rw_remote_dev_gone(struct ib_device *dev);

int rw_remote_init(void);
void rw_remote_exit(void);

/* host_setup.c */
/* @t and @flags as rw_worker_declare() has checked them (worker.c). */
int rw_remote_declare(struct rw_remote *r, const struct rw_tensor_desc *t,
		      u32 n, u32 flags);
int rw_remote_setup(struct rw_remote *r, struct rw_setup *out);

/* host_ctl.c: requests to the box (uapi "Requests") */
/* As rw_worker_params_init() (worker_ckpt.c), whose checks came first. */
int rw_remote_params_init(struct rw_remote *r, const struct rw_range *rg,
			  u32 nr, u32 flags, u64 data, u64 len, u32 timeout_ms);
/* As rw_worker_checkpoint() (worker_ckpt.c), whose checks came first. */
int rw_remote_checkpoint(struct rw_remote *r, u32 flags, u32 timeout_ms,
			 u64 head, u64 data, u64 len);

/* host_xfer.c */
int rw_remote_xfer(struct rw_remote *r, u32 op, const struct rw_range *rg,
		   u32 nr, u32 flags, u32 timeout_ms);
__poll_t rw_remote_poll(struct rw_remote *r, struct file *file,
			poll_table *pt);
/* As rw_worker_map: whether [@off, @off + @len) of buffer @buf maps. */
int rw_remote_map(struct rw_remote *r, enum rw_engine_buf buf, u64 off,
		  u64 len, bool writable, bool shared);
struct page *rw_remote_page(struct rw_remote *r, enum rw_engine_buf buf,
			    u64 off);

#endif /* _RW_RDMA_HOST_H */
