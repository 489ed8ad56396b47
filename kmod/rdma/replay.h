/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replayed connect requests (implemented in rdma/replay.c): a request's
 * time must be within RW_WIRE_MAX_SKEW_S of the box's clock, and its nonce
 * must not have been seen while a request with that time would still be
 * taken. The box remembers nonces per rank, in one table per rank of a
 * job's workers and one for every rank beyond them. Pure logic (see
 * compat.h): the caller locks, allocates and tells the time.
 */
#ifndef _RW_RDMA_REPLAY_H
#define _RW_RDMA_REPLAY_H

#include "compat.h"

/*
 * Nonces remembered per table (per rank). More requests of one rank
 * within the window push out those of its oldest time, which the floor
 * then covers: only more than this many in one second are told to wait.
 * Two attachments of RW_WIRE_MAX_NICS connections each fit in a second.
 */
#define RW_REPLAY_SLOTS		16

/*
 * One rank's nonces (or those of every rank beyond a job's workers). All
 * zero is an empty table. A slot is live while its time is above @floor
 * and within the window; a request whose time is at or below @floor is
 * refused whatever its nonce, so @floor only rises.
 */
struct rw_replay {
	s64 floor;
	u64 nonce[RW_REPLAY_SLOTS];
	s64 time[RW_REPLAY_SLOTS];
};

/*
 * Check a request's @nonce and @time_s (seconds, the sender's clock) at
 * @now (seconds, the box's) against window @skew, in the table of its
 * rank:
 *   0           fresh, and now remembered;
 *   -ETIMEDOUT  its time is off by more than @skew, or its nonce was seen
 *               (nothing changes);
 *   -EBUSY      its time is not after the table's floor, or the table is
 *               full of requests no older than it: the floor now covers it
 *               (it and anything as old are refused from now on).
 * Every request that passed the window check is thus covered, remembered
 * or under the floor, until its time leaves the window: a refused request
 * cannot be taken later either.
 */
int rw_replay_check(struct rw_replay *r, u64 nonce, s64 time_s, s64 now,
		    s64 skew);

/*
 * A job's workers change from @from_nr to @to_nr: fill @to (@to_nr + 1
 * tables, the last for the ranks beyond) from @from (@from_nr + 1). A rank
 * kept keeps its table; a new rank starts from the table of the ranks
 * beyond, which held its nonces until now; a rank dropped gives its nonces
 * and floor to that table. Nothing is forgotten that could still be
 * replayed; a table that overflows raises its floor.
 */
void rw_replay_move(struct rw_replay *to, u32 to_nr,
		    const struct rw_replay *from, u32 from_nr, s64 now,
		    s64 skew);

#endif /* _RW_RDMA_REPLAY_H */
