// SPDX-License-Identifier: GPL-2.0
/*
 * A job's move to another box set (docs/design.md "Many boxes"): the
 * order checked against the job's set and its run, and the run's state
 * carried over the move. A set given while a run is active is the job's
 * move; when that run ends the job takes the set, and this box keeps its
 * own chunks of the run (every array and the version, as a checkpoint
 * holds them) for the next run, which starts from them as from a restored
 * checkpoint. The carry is charged to the job when the move is ordered,
 * so the run's end cannot fail for memory it has not got.
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
#include "job_move.h"
#include "mem.h"
#include "chunk/boxset.h"
#include "chunk/layout.h"
#include "engine/engine.h"

/* This box's chunks of a run, packed: each array's bytes, the version. */
struct rw_job_carry {
	u64 layout_hash;
	u32 nr_chunks;
	u32 nr_state;
	u32 chunk_size;
	u32 nr_owned;
	u8 *buf;
};

/* The bytes a carry of @e takes: per owned chunk, its arrays and version. */
static u64 rw_job_carry_bytes(const struct rw_engine *e)
{
	return sizeof(struct rw_job_carry) +
	       (u64)rw_engine_nr_owned(e) *
	       ((1 + (u64)rw_engine_nr_state(e)) *
		rw_engine_layout(e)->geom.chunk_size + sizeof(u64));
}

/*
 * Each chunk @e owns, in order, between @buf and @e's image (uapi
 * RW_IOC_CHECKPOINT: every array, then the versions): into @buf, or with
 * @put out of it into @e (its init_lock held). 0 or the image's errno.
 */
static int rw_job_carry_copy(struct rw_engine *e, u8 *buf, bool put)
{
	u64 blen = rw_engine_buf_len(e, RW_BUF_PARAMS), off;
	u32 cs = rw_engine_layout(e)->geom.chunk_size;
	u32 arrays = 1 + rw_engine_nr_state(e), c, a, len;
	int ret = 0;

	for (c = 0; !ret && c < rw_engine_nr_chunks(e); c++) {
		if (!rw_engine_owns(e, c))
			continue;
		/* Array a's chunk; past the arrays, the chunk's version. */
		for (a = 0; !ret && a <= arrays; a++, buf += len) {
			len = a < arrays ? cs : sizeof(u64);
			off = (u64)a * blen + (u64)c * len;
			ret = put ? rw_engine_image_put(e, off, len, buf) :
				    rw_engine_image_get(e, off, len, buf);
		}
	}
	return ret;
}

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
	int ret;

	lockdep_assert_held(&job->run_lock);
	*charge = 0;
	if (!job->engine || !s->self)
		return 0;
	*charge = rw_job_carry_bytes(job->engine);
	ret = rw_mem_charge(c->name, c->max_memory, &job->mem_held, *charge);
	if (ret)
		*charge = 0;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_move_reserve);

void rw_job_carry_take(struct rw_job *job, struct rw_engine *e, u64 charge)
{
	struct rw_job_carry *k;
	int ret = -ENOMEM;

	lockdep_assert_held(&job->run_lock);
	if (!charge)
		return;
	if (!e) {
		rw_mem_uncharge(&job->mem_held, charge);
		return;
	}
	k = kzalloc(sizeof(*k), GFP_KERNEL);
	if (!k)
		goto fail;
	k->layout_hash = rw_engine_layout_hash(e);
	k->nr_chunks = rw_engine_nr_chunks(e);
	k->nr_state = rw_engine_nr_state(e);
	k->chunk_size = rw_engine_layout(e)->geom.chunk_size;
	k->nr_owned = rw_engine_nr_owned(e);
	k->buf = kvmalloc(charge - sizeof(*k), GFP_KERNEL);
	if (!k->buf)
		goto fail;
	ret = rw_job_carry_copy(e, k->buf, false);
	if (ret)
		goto fail;
	job->carry = k;
	job->carry_charge = charge;
	/* job->boxes changes under run_lock too: the set just taken. */
	pr_info("job %s: kept %u chunks of its run for the move to epoch %u\n",
		job->cfg.name, k->nr_owned, job->boxes ? job->boxes->epoch : 0);
	return;
fail:
	/* The next run starts afresh: say so, it is state lost. */
	pr_warn("job %s: the run's state could not be kept for its move (%d): the next run starts afresh\n",
		job->cfg.name, ret);
	if (k)
		kvfree(k->buf);
	kfree(k);
	rw_mem_uncharge(&job->mem_held, charge);
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_carry_take);

void rw_job_carry_free(struct rw_job *job)
{
	struct rw_job_carry *k = job->carry;

	if (!k)
		return;
	kvfree(k->buf);
	kfree(k);
	job->carry = NULL;
	rw_mem_uncharge(&job->mem_held, job->carry_charge);
	job->carry_charge = 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_carry_free);

int rw_job_carry_apply(struct rw_job *job, struct rw_engine *e)
{
	struct rw_job_carry *k = job->carry;
	int ret;

	lockdep_assert_held(&job->run_lock);
	if (!k)
		return 0;
	/* Another model, or other chunks here: not this run's state. */
	if (k->layout_hash != rw_engine_layout_hash(e) ||
	    k->nr_chunks != rw_engine_nr_chunks(e) ||
	    k->nr_state != rw_engine_nr_state(e) ||
	    k->chunk_size != rw_engine_layout(e)->geom.chunk_size ||
	    k->nr_owned != rw_engine_nr_owned(e)) {
		pr_info_ratelimited("job %s: a run of another model or share than the one its move carried: refused (job del drops the carried state)\n",
				    job->cfg.name);
		return -EEXIST;
	}
	ret = rw_engine_init_begin(e);
	if (ret)
		return ret;
	ret = rw_job_carry_copy(e, k->buf, true);
	rw_engine_init_end(e, !ret);
	if (!ret)
		rw_job_carry_free(job);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_carry_apply);
