/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A job's move to another box set (job_move.c; docs/design.md "Many
 * boxes"). Every call but rw_job_move_epoch() holds the job's run_lock.
 */
#ifndef _RW_JOB_MOVE_H
#define _RW_JOB_MOVE_H

#include <linux/types.h>

struct rw_boxset;
struct rw_engine;
struct rw_job;

/* The epoch of the set @job moves to, 0 if none (read without a lock). */
u32 rw_job_move_epoch(const struct rw_job *job);

/*
 * @s is to be the move of @job, whose run is active: the job has a set
 * and no move pending, @s names this box by its id in the job's set (self
 * 0 from here on if this box leaves) and follows the job's set (an epoch
 * of 0 becomes the next). 0, or -EBUSY, -EINVAL and *@msg.
 * rw_jobs_lock held too.
 */
int rw_job_check_move(struct rw_job *job, struct rw_boxset *s,
		      const char **msg);

/*
 * Charge @job for what its run's end will keep of the run for a move to
 * @s (job_carry.h; nothing without a layout): *@charge bytes. 0, or
 * -EDQUOT / -ENOSPC as rw_mem_charge().
 */
int rw_job_move_reserve(struct rw_job *job, const struct rw_boxset *s,
			u64 *charge);

/*
 * Rank 0 asks @job's run to stop before iteration @at (>= 1), the
 * boundary of its move: no synchronous round from @at on steps any more
 * (sync/round.h), so the run's end keeps the state after @at - 1 however
 * its workers leave. Takes run_lock. 0 (also when @at is set already),
 * -ENOENT without a move or a run, -EOPNOTSUPP under a policy other than
 * BSP, -EALREADY for another boundary, -EOVERFLOW past what a notice says.
 */
int rw_job_move_stop(struct rw_job *job, u64 at);

/* The boundary asked, 0 if none (read without a lock). */
u64 rw_job_move_stop_at(const struct rw_job *job);

#endif /* _RW_JOB_MOVE_H */
