// SPDX-License-Identifier: GPL-2.0
/*
 * A job's move to another box set (docs/design.md "Many boxes"): the
 * order checked against the job's set and its run. A set given while a
 * run is active is the job's move; when that run ends the job takes the
 * set, and the run's state is carried over it (job_carry.c), charged to
 * the job here, when the move is ordered, so the run's end cannot fail
 * for memory it has not got.
 *
 * Chunks that change owner are not moved box to box yet: a move that
 * would change any chunk's owner under the run's layout is refused.
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

/* Whether any chunk of @e's layout has another owner under @to. */
static int rw_job_move_owners_change(const struct rw_job *job,
				     const struct rw_engine *e,
				     const struct rw_boxset *to)
{
	const struct rw_layout_geom *g = &rw_engine_layout(e)->geom;
	u32 n = g->nr_chunks, len;
	struct rw_boxset_moves m;
	u8 *a, *b;
	u64 off;
	int ret;

	a = kvmalloc(n, GFP_KERNEL);
	b = kvmalloc(n, GFP_KERNEL);
	ret = -ENOMEM;
	if (!a || !b)
		goto out;
	rw_layout_chunk(g, n - 1, &off, &len);
	ret = rw_boxset_owners(job->boxes, job->cfg.name, n,
			       len < g->chunk_size, a, NULL);
	if (!ret)
		ret = rw_boxset_owners(to, job->cfg.name, n,
				       len < g->chunk_size, b, NULL);
	if (!ret) {
		rw_boxset_moves(job->boxes, a, to, b, n, 0, &m);
		ret = m.moved ? 1 : 0;
	}
out:
	kvfree(a);
	kvfree(b);
	return ret;
}

u32 rw_job_move_epoch(const struct rw_job *job)
{
	return READ_ONCE(job->move_epoch);
}

int rw_job_check_move(struct rw_job *job, struct rw_boxset *s,
		      const char **msg)
{
	int ret;

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
	ret = rw_boxset_move_check(job->boxes, s, msg);
	if (ret || !job->engine)
		return ret;
	ret = rw_job_move_owners_change(job, job->engine, s);
	if (ret > 0) {
		*msg = "this move changes owners, which a run cannot do yet";
		return -EBUSY;
	}
	return ret;
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
