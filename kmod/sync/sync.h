/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RW_SYNC_SYNC_H
#define _RW_SYNC_SYNC_H

#include <linux/types.h>

#include "sync/gate.h"

struct file;
struct poll_table_struct;
struct rw_sync;

/* Told of each silent worker evicted, under the gate's lock: no sleeping. */
typedef void (*rw_sync_notify_t)(void *arg, u32 p);
/*
 * Told, under the gate's lock, after anything that changes who is live or
 * the gate's settings (eviction, expiry, join, reconfiguration).
 */
typedef void (*rw_sync_members_t)(void *arg, const struct rw_gate *g);

/* Job-wide view of the gate, for statistics. */
struct rw_sync_info {
	u64 min_clock;
	u64 max_skew;
	u32 epoch;
	u32 nr_live;
	u32 nr_parked;
};

struct rw_sync *rw_sync_create(const struct rw_gate_config *cfg);
void rw_sync_destroy(struct rw_sync *s);

/*
 * Block until worker @p may start its next iteration: 0 when admitted or
 * released; -ESTALE if it was evicted (or @epoch is old); -ETIMEDOUT after
 * @timeout jiffies; -ERESTARTSYS on a signal. After a timeout or a signal
 * the worker stays parked, and calling again resumes the same wait.
 */
int rw_sync_wait(struct rw_sync *s, u32 p, u32 epoch, long timeout);

/* Worker @p finished an iteration; parked workers it unblocks are woken. */
int rw_sync_push(struct rw_sync *s, u32 p, u32 epoch);

int rw_sync_heartbeat(struct rw_sync *s, u32 p, u32 epoch);

/* Evict @p now (connection lost); a parked waiter returns -ESTALE. */
int rw_sync_evict(struct rw_sync *s, u32 p);

/* (Re)admit @p at the minimum clock; its new epoch goes to *@epoch. */
int rw_sync_join(struct rw_sync *s, u32 p, u32 *epoch);

/* Evict every worker silent for longer than the timeout; returns how many. */
u32 rw_sync_expire(struct rw_sync *s);

/*
 * A worker (re)attaches: if it is live, its current epoch; otherwise it
 * joins at the minimum clock (rw_sync_join). 0 or -EINVAL.
 */
int rw_sync_enter(struct rw_sync *s, u32 p, u32 *epoch);

/* For poll(): EPOLLIN once @p is no longer parked. */
__poll_t rw_sync_poll(struct rw_sync *s, u32 p, struct file *file,
		      struct poll_table_struct *pt);

void rw_sync_set_notify(struct rw_sync *s, rw_sync_notify_t fn, void *arg);
/* The job's name, for trace events (before the first worker comes). */
void rw_sync_set_name(struct rw_sync *s, const char *name);
/* Set the members hook and call it once now. */
void rw_sync_set_members(struct rw_sync *s, rw_sync_members_t fn, void *arg);

/*
 * New settings for a running gate (rw_gate_reconfigure): parked workers the
 * new rule lets go are released, the eviction timer follows evict_timeout.
 * 0 or -EINVAL.
 */
int rw_sync_reconfigure(struct rw_sync *s, const struct rw_gate_config *cfg);

/*
 * Hold the gate for a checkpoint (rw_gate_hold), and let it go (the
 * parked workers the policy admits go on). rw_sync_running(): whether some
 * worker is inside an iteration.
 */
/* Returns the gate's hold_at: who may still finish an iteration. */
u64 rw_sync_hold(struct rw_sync *s);
void rw_sync_unhold(struct rw_sync *s);
bool rw_sync_running(struct rw_sync *s);
/* rw_gate_hold_own() under the lock; let go with rw_sync_unhold(). */
int rw_sync_hold_own(struct rw_sync *s, u32 p, u32 epoch);
/* rw_gate_withdraw() under the lock: @p's unbegun iteration taken back. */
int rw_sync_withdraw(struct rw_sync *s, u32 p, u32 epoch);

/* The clock of @p, live in @epoch: 0, or -ESTALE. */
int rw_sync_worker_clock(struct rw_sync *s, u32 p, u32 epoch, u64 *clock);

void rw_sync_info(struct rw_sync *s, struct rw_sync_info *info);
bool rw_sync_worker_live(struct rw_sync *s, u32 p);
/* 0 with the epoch @p joined in (@epoch may be NULL), -ESTALE if not live. */
int rw_sync_worker_epoch(struct rw_sync *s, u32 p, u32 *epoch);
int rw_sync_worker_stats(struct rw_sync *s, u32 p, struct rw_gate_stats *st,
			 u64 *clock, bool *live);

#if IS_ENABLED(CONFIG_KUNIT)
/* rw_gate_check() under the lock. */
int rw_sync_check(struct rw_sync *s);
#endif

#endif /* _RW_SYNC_SYNC_H */
