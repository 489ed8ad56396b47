/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replayed connect requests (implemented in rdma/replay.c): a request's
 * time must be within RW_WIRE_MAX_SKEW_S of the box's clock, and its nonce
 * must not have been seen while a request with that time would still be
 * taken. Pure logic (see compat.h): the caller locks and tells the time.
 */
#ifndef _RW_RDMA_REPLAY_H
#define _RW_RDMA_REPLAY_H

#include "compat.h"

/*
 * Nonces remembered per job. A job that would need more (more than this
 * many authenticated connects within the window) is told to wait.
 */
#define RW_REPLAY_SLOTS		64

struct rw_replay {
	u64 nonce[RW_REPLAY_SLOTS];
	s64 until[RW_REPLAY_SLOTS];	/* remembered while > now; 0: free */
};

/*
 * Check a request's @nonce and @time_s (seconds, the sender's clock) at
 * @now (seconds, the box's) against window @skew: 0 when it is fresh, and
 * then remembered; -ETIMEDOUT when its time is off by more than @skew or
 * its nonce was seen; -EBUSY when every slot holds a nonce still in its
 * window (nothing changes but on 0).
 */
int rw_replay_check(struct rw_replay *r, u64 nonce, s64 time_s, s64 now,
		    s64 skew);

#endif /* _RW_RDMA_REPLAY_H */
