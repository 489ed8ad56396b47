// SPDX-License-Identifier: GPL-2.0
/*
 * A job's move to another box set (docs/design.md "Many boxes"): the
 * order checked against the job's set and its run. A set given while a
 * run is active is the job's move; when that run ends the job takes the
 * set, and the run's state is carried over it (job_carry.c), charged to
 * the job here, when the move is ordered, so the run's end cannot fail
 * for memory it has not got. The chunks that change owner go box to box
 * once the run has ended (rdma/give.c, rdma/take.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "job.h"
#include "job_carry.h"
#include "job_move.h"
#include "mem.h"
#include "chunk/boxset.h"
#include "chunk/layout.h"
#include "engine/engine.h"
#include "sync/round.h"

u32 rw_job_move_epoch(const struct rw_job *job)
{
	return READ_ONCE(job->move_epoch);
}

u64 rw_job_move_stop_at(const struct rw_job *job)
{
	return READ_ONCE(job->move_stop);
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_move_stop_at);

static void rw_job_stop_fill(struct rw_round_view *v, void *arg)
{
	v->stop = *(const u64 *)arg;
}

int rw_job_move_stop(struct rw_job *job, u64 at)
{
	int ret = 0;

	if (!at)
		return -EINVAL;
	if (at > U32_MAX)
		return -EOVERFLOW;
	mutex_lock(&job->run_lock);
	if (!job->move || !job->engine)
		ret = -ENOENT;
	else if (job->cfg.sync != RW_SYNC_BSP)
		ret = -EOPNOTSUPP;
	else if (job->move_stop && job->move_stop != at)
		ret = -EALREADY;
	if (!ret && !job->move_stop) {
		rw_engine_view_update(job->engine, rw_job_stop_fill, &at);
		WRITE_ONCE(job->move_stop, at);
		pr_info("job %s: the move to epoch %u ends the run before its iteration %llu\n",
			job->cfg.name, job->move->epoch, at);
	}
	mutex_unlock(&job->run_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_move_stop);

int rw_job_check_move(struct rw_job *job, struct rw_boxset *s,
		      const char **msg)
{
	lockdep_assert_held(&job->run_lock);
	if (!job->boxes || !s) {
		*msg = job->boxes ? "a job's box set is removed between runs" :
				    "a job's first box set is given between runs";
		return -EBUSY;
	}
	if (job->move) {
		*msg = "the job is moving to another box set already";
		return -EBUSY;
	}
	if (s->self != job->boxes->self) {
		*msg = "in a move, this box's id is its id in the job's set";
		return -EINVAL;
	}
	if (!s->epoch && job->boxes->epoch != U32_MAX)
		s->epoch = job->boxes->epoch + 1;
	if (rw_boxset_find(s, s->self) < 0)
		s->self = 0;
	return rw_boxset_move_check(job->boxes, s, msg);
}

int rw_job_move_reserve(struct rw_job *job, const struct rw_boxset *s,
			u64 *charge)
{
	const struct rw_job_config *c = &job->cfg;
	struct rw_carry_plan p;
	int ret;

	lockdep_assert_held(&job->run_lock);
	*charge = 0;
	if (!job->engine)
		return 0;
	ret = rw_carry_plan(job, job->engine, s, &p);
	if (!ret)
		ret = rw_mem_charge(c->name, c->max_memory, &job->mem_held,
				    p.bytes);
	if (!ret)
		*charge = p.bytes;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_move_reserve);
