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

#endif /* _RW_WORKER_CKPT_H */
