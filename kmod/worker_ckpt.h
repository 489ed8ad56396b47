/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A worker's initial parameters and checkpoints (worker_ckpt.c), the calls
 * of RW_IOC_PARAMS_INIT and RW_IOC_CHECKPOINT (uapi).
 */
#ifndef _RW_WORKER_CKPT_H
#define _RW_WORKER_CKPT_H

#include <linux/types.h>

#include "rackweave.h"

struct rw_worker;

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

/* The head RW_CKPT_HEAD_ONLY gives, for the box's agent of a remote worker. */
int rw_worker_head(struct rw_worker *w, struct rw_ckpt_head *h);

/* Whether initial parameters are set or the run began (RW_INIT_WAIT's end). */
bool rw_worker_init_done(struct rw_worker *w);
/* Whether initial parameters were set (an init or a restore); declared. */
bool rw_worker_params_set(struct rw_worker *w);

/*
 * RW_IOC_PARAMS_INIT's set for the box's agent of a remote worker
 * (rdma/conn_ctl.c), with its rules: the chunks of @sel (a bitmap over
 * the run's chunks) are written by @fill(@arg), an RDMA READ from the
 * worker, which returns once they are in (0) or an errno; on an error
 * they go back to zeros and nothing counts as set.
 */
int rw_worker_init_fill(struct rw_worker *w, const unsigned long *sel,
			int (*fill)(void *arg), void *arg);

/*
 * RW_INIT_CHECKPOINT for the box's agent of a remote worker: with the
 * local call's rules and checks (@got, the checkpoint's head, must be
 * this run's; @len the whole of head and image), the image is brought in
 * by @fill(@arg), piece by piece through rw_worker_image_put(); on an
 * error the run's state goes back to zeros and nothing counts as set.
 */
int rw_worker_restore_fill(struct rw_worker *w, const struct rw_ckpt_head *got,
			   u64 len, int (*fill)(void *arg), void *arg);
/*
 * RW_IOC_CHECKPOINT's save for the box's agent of a remote worker or
 * observer: @withdraw(job) takes back the admissions the agents gave
 * ahead (rw_worker_withdraw(); none is given meanwhile), then with the
 * local call's rules (the gate held, the iterations in flight finished
 * within @timeout_ms, or -ECONNABORTED once @cancel says the connection
 * goes) the head goes into *@h and the image is taken by
 * @fill(@arg), piece by piece through rw_worker_image_get(), while the
 * gate is held.
 */
struct rw_cancel;
struct rw_job;
int rw_worker_save_fill(struct rw_worker *w, u32 timeout_ms,
			const struct rw_cancel *cancel,
			void (*withdraw)(struct rw_job *job),
			struct rw_ckpt_head *h, int (*fill)(void *arg),
			void *arg);
/* From a save's @fill only: image bytes [@off, @off + @len). */
int rw_worker_image_get(struct rw_worker *w, u64 off, u64 len, void *dst);
/* The length of the run's image (0: no run yet). */
u64 rw_worker_image_len(struct rw_worker *w);
/* From @fill only: image bytes [@off, @off + @len) (rw_engine_image_put). */
int rw_worker_image_put(struct rw_worker *w, u64 off, u64 len,
			const void *src);

#endif /* _RW_WORKER_CKPT_H */
