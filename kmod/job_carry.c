// SPDX-License-Identifier: GPL-2.0
/*
 * A run's state carried over a move of its job's box set (docs/design.md
 * "Many boxes", steps 3 and 4). When the run ends with a move taken, the
 * box keeps every chunk it owned, each with every array and its version
 * as a checkpoint holds them: those it owns in the new set too in the
 * job's carry, the next run's start; those another box owns now in the
 * job's gift, until that box has taken them. A box that gains chunks has
 * room for them in its carry, and its next run starts only once all of
 * them have come. The carry and the gift are charged to the job when the
 * move is ordered (rw_carry_plan()), so the run's end never lacks memory;
 * a box that joins is charged when its first chunks come.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "job.h"
#include "job_carry.h"
#include "mem.h"
#include "chunk/boxset.h"
#include "chunk/layout.h"
#include "engine/engine.h"
#include "engine/query.h"

#define RW_CARRY_NONE	U32_MAX

/* Chunks of one run, each a record (rw_carry_rec_len()), in chunk order. */
struct rw_carry {
	struct rw_carry_desc d;
	u32 nr;			/* the chunks it has room for */
	u32 nr_in;		/* of them, those it holds */
	u32 *slot;		/* by chunk: its record, or RW_CARRY_NONE */
	unsigned long *in;	/* by chunk: its record holds it */
	u8 *buf;		/* vmalloc: a gift's is an RDMA window */
	u64 charge;
	bool applied;		/* a carry: the running engine started from it */
	/* A gift's: each chunk's owner in the new set, and who gives. */
	u8 *owner;
	u32 giver;
};

/* What a store of @nr chunks of @d takes. */
static u64 rw_carry_bytes(const struct rw_carry_desc *d, u32 nr)
{
	return sizeof(struct rw_carry) + (u64)d->nr_chunks * sizeof(u32) +
	       BITS_TO_LONGS(d->nr_chunks) * sizeof(long) +
	       (u64)nr * rw_carry_rec_len(d);
}

/* A gift's: its owner table too. */
static u64 rw_carry_gift_bytes(const struct rw_carry_desc *d, u32 nr)
{
	return rw_carry_bytes(d, nr) + d->nr_chunks;
}

void rw_carry_desc_of(const struct rw_engine *e, struct rw_carry_desc *d)
{
	const struct rw_layout_geom *g = &rw_engine_layout(e)->geom;

	d->layout_hash = rw_engine_layout_hash(e);
	d->nr_chunks = g->nr_chunks;
	d->nr_state = rw_engine_nr_state(e);
	d->chunk_size = g->chunk_size;
	d->last_short = g->total_bytes & (g->chunk_size - 1);
	d->half = rw_layout_half(rw_engine_layout(e));
}
EXPORT_SYMBOL_IF_KUNIT(rw_carry_desc_of);

static bool rw_carry_desc_eq(const struct rw_carry_desc *a,
			     const struct rw_carry_desc *b)
{
	return a->layout_hash == b->layout_hash &&
	       a->nr_chunks == b->nr_chunks && a->nr_state == b->nr_state &&
	       a->chunk_size == b->chunk_size &&
	       a->last_short == b->last_short && a->half == b->half;
}

/*
 * Chunk owners of @d's chunks under @s, of @job (kvfree()): in *@owner,
 * and this box's index in @s in *@me (-1: not in it). 0 or an errno.
 */
static int rw_carry_owners(const struct rw_job *job, const struct rw_boxset *s,
			   const struct rw_carry_desc *d, u8 **owner, int *me)
{
	int ret;

	*owner = kvmalloc(d->nr_chunks, GFP_KERNEL);
	if (!*owner)
		return -ENOMEM;
	ret = rw_boxset_owners(s, job->cfg.name, d->nr_chunks, d->last_short,
			       *owner, NULL);
	if (ret) {
		kvfree(*owner);
		*owner = NULL;
		return ret;
	}
	*me = s->self ? rw_boxset_find(s, s->self) : -1;
	return 0;
}

/* The plan of @e's chunks for the owner table @owner, this box @me. */
static void rw_carry_count(const struct rw_engine *e,
			   const struct rw_carry_desc *d, const u8 *owner,
			   int me, struct rw_carry_plan *p)
{
	u32 c;

	memset(p, 0, sizeof(*p));
	for (c = 0; c < d->nr_chunks; c++) {
		bool mine = owner[c] == me;

		p->owned += mine;
		if (rw_engine_owns(e, c)) {
			p->kept += mine;
			p->given += !mine;
		}
	}
	if (p->owned)
		p->bytes += rw_carry_bytes(d, p->owned);
	if (p->given)
		p->bytes += rw_carry_gift_bytes(d, p->given);
}

int rw_carry_plan(const struct rw_job *job, const struct rw_engine *e,
		  const struct rw_boxset *to, struct rw_carry_plan *p)
{
	struct rw_carry_desc d;
	int me, ret;
	u8 *owner;

	rw_carry_desc_of(e, &d);
	ret = rw_carry_owners(job, to, &d, &owner, &me);
	if (ret)
		return ret;
	rw_carry_count(e, &d, owner, me, p);
	kvfree(owner);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_carry_plan);

static void rw_carry_destroy(struct rw_carry *k)
{
	if (!k)
		return;
	kvfree(k->owner);
	vfree(k->buf);
	bitmap_free(k->in);
	kvfree(k->slot);
	kfree(k);
}

/* What `job show` says the job's carry waits for (run_lock held). */
static void rw_carry_due_show(struct rw_job *job)
{
	const struct rw_carry *k = job->carry;

	WRITE_ONCE(job->carry_due, k ? k->nr - k->nr_in : 0);
}

static void rw_carry_drop(struct rw_job *job, struct rw_carry **kp)
{
	struct rw_carry *k = *kp;

	if (!k)
		return;
	rw_mem_uncharge(&job->mem_held, k->charge);
	rw_carry_destroy(k);
	*kp = NULL;
	rw_carry_due_show(job);
}

/*
 * A store of @d for the chunks whose @owner is @who, charged @charge; with
 * @e, a gift instead: the chunks of @e whose owner is another, in the
 * order of their owners (each taker's records in one piece), and the
 * owner table. NULL for no memory.
 */
static struct rw_carry *rw_carry_new(const struct rw_carry_desc *d,
				     const u8 *owner, int who,
				     const struct rw_engine *e, u64 charge)
{
	struct rw_carry *k = kzalloc(sizeof(*k), GFP_KERNEL);
	u32 c, b;

	if (!k)
		return NULL;
	k->d = *d;
	k->charge = charge;
	k->slot = kvmalloc_array(d->nr_chunks, sizeof(u32), GFP_KERNEL);
	k->in = bitmap_zalloc(d->nr_chunks, GFP_KERNEL);
	if (e) {
		k->owner = kvmalloc(d->nr_chunks, GFP_KERNEL);
		if (k->owner)
			memcpy(k->owner, owner, d->nr_chunks);
	}
	if (!k->slot || !k->in || (e && !k->owner))
		goto fail;
	for (c = 0; c < d->nr_chunks; c++)
		k->slot[c] = !e && owner[c] == who ? k->nr++ : RW_CARRY_NONE;
	for (b = 0; e && b < RW_OWNER_MAX_BOXES; b++)
		for (c = 0; c < d->nr_chunks; c++)
			if (owner[c] == b && b != who && rw_engine_owns(e, c))
				k->slot[c] = k->nr++;
	k->buf = vmalloc(array_size(k->nr, rw_carry_rec_len(d)));
	if (k->buf)
		return k;
fail:
	rw_carry_destroy(k);
	return NULL;
}

static u8 *rw_carry_rec(struct rw_carry *k, u32 c)
{
	return k->buf + (u64)k->slot[c] * rw_carry_rec_len(&k->d);
}

/*
 * Chunk @c of @e (owned) between its record @rec and @e's image (uapi
 * RW_IOC_CHECKPOINT: every array, then the versions): into @rec, or with
 * @put out of it into @e (its init_lock held). 0 or the image's errno.
 */
static int rw_carry_chunk(struct rw_engine *e, u32 c, u8 *rec, bool put)
{
	u32 cs = rw_engine_image_chunk(e);
	u64 blen = (u64)rw_engine_nr_chunks(e) * cs, off;
	u32 arrays = 1 + rw_engine_nr_state(e), a, len;
	int ret = 0;

	/* Array a's chunk; past the arrays, the chunk's version. */
	for (a = 0; !ret && a <= arrays; a++, rec += len) {
		len = a < arrays ? cs : sizeof(u64);
		off = (u64)a * blen + (u64)c * len;
		ret = put ? rw_engine_image_put(e, off, len, rec) :
			    rw_engine_image_get(e, off, len, rec);
	}
	return ret;
}

void rw_job_carry_run_end(struct rw_job *job, struct rw_engine *e)
{
	struct rw_engine_stats es = {};
	struct rw_carry *k = job->carry;

	lockdep_assert_held(&job->run_lock);
	if (!k || !k->applied || !e)
		return;
	rw_engine_get_stats(e, &es);
	if (es.steps) {
		rw_carry_drop(job, &job->carry);
		return;
	}
	k->applied = false;
	pr_info("job %s: its run ended before its first step: the next run starts from the carried state again\n",
		job->cfg.name);
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_carry_run_end);

void rw_job_carry_take(struct rw_job *job, struct rw_engine *e, u64 charge,
		       u32 giver)
{
	struct rw_carry *carry = NULL, *gift = NULL;
	struct rw_carry_plan p;
	struct rw_carry_desc d;
	u8 *owner = NULL;
	int ret, me;
	u32 c;

	lockdep_assert_held(&job->run_lock);
	if (!charge)
		return;
	if (!e) {
		rw_mem_uncharge(&job->mem_held, charge);
		return;
	}
	/* A carry the run never stepped from is the engine's state anyway. */
	rw_carry_drop(job, &job->carry);
	rw_carry_drop(job, &job->gift);
	rw_carry_desc_of(e, &d);
	/* job->boxes changes under run_lock too: the set just taken. */
	ret = rw_carry_owners(job, job->boxes, &d, &owner, &me);
	if (ret)
		goto fail;
	rw_carry_count(e, &d, owner, me, &p);
	ret = -EINVAL;			/* not the order's: keep nothing */
	if (p.bytes != charge)
		goto fail;
	ret = -ENOMEM;
	if (p.owned) {
		carry = rw_carry_new(&d, owner, me, NULL,
				     rw_carry_bytes(&d, p.owned));
		if (!carry)
			goto fail;
	}
	if (p.given) {
		gift = rw_carry_new(&d, owner, me, e,
				    rw_carry_gift_bytes(&d, p.given));
		if (!gift)
			goto fail;
		gift->giver = giver;
	}
	for (ret = 0, c = 0; !ret && c < d.nr_chunks; c++) {
		struct rw_carry *k = owner[c] == me ? carry : gift;

		if (!rw_engine_owns(e, c))
			continue;
		ret = rw_carry_chunk(e, c, rw_carry_rec(k, c), false);
		__set_bit(c, k->in);
		k->nr_in++;
	}
	if (ret)
		goto fail;
	kvfree(owner);
	job->carry = carry;
	job->gift = gift;
	rw_carry_due_show(job);
	pr_info("job %s: kept %u chunks of its run for the move to epoch %u, %u of them for other boxes; %u to come from them\n",
		job->cfg.name, p.kept + p.given, job->boxes->epoch, p.given,
		p.owned - p.kept);
	return;
fail:
	/* The next run starts afresh: say so, it is state lost. */
	pr_warn("job %s: the run's state could not be kept for its move (%d): the next run starts afresh\n",
		job->cfg.name, ret);
	kvfree(owner);
	rw_carry_destroy(carry);
	rw_carry_destroy(gift);
	rw_mem_uncharge(&job->mem_held, charge);
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_carry_take);

void rw_job_carry_free(struct rw_job *job)
{
	rw_carry_drop(job, &job->carry);
	rw_carry_drop(job, &job->gift);
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_carry_free);

int rw_job_carry_apply(struct rw_job *job, struct rw_engine *e)
{
	struct rw_carry *k = job->carry;
	struct rw_carry_desc d;
	int ret = 0;
	u32 c;

	lockdep_assert_held(&job->run_lock);
	/* A box that joins serves from the chunks it is given, not zeros. */
	if (!k && job->joining) {
		pr_info_ratelimited("job %s: this box joins its set at epoch %u: no run before the move's chunks come\n",
				    job->cfg.name, job->boxes->epoch);
		return -EAGAIN;
	}
	if (!k)
		return 0;
	if (k->applied)
		return -EBUSY;		/* a run from it is on */
	rw_carry_desc_of(e, &d);
	/* Another model, or other chunks here: not this run's state. */
	c = 0;
	if (rw_carry_desc_eq(&d, &k->d))
		while (c < d.nr_chunks &&
		       rw_engine_owns(e, c) == (k->slot[c] != RW_CARRY_NONE))
			c++;
	if (c < k->d.nr_chunks) {
		pr_info_ratelimited("job %s: a run of another model or share than the one its move carried: refused (job del drops the carried state)\n",
				    job->cfg.name);
		return -EEXIST;
	}
	if (k->nr_in < k->nr) {
		pr_info_ratelimited("job %s: %u chunks of its move have not come from the boxes that give them: no run yet\n",
				    job->cfg.name, k->nr - k->nr_in);
		return -EAGAIN;
	}
	ret = rw_engine_init_begin(e);
	if (ret)
		return ret;
	for (c = 0; !ret && c < d.nr_chunks; c++)
		if (k->slot[c] != RW_CARRY_NONE)
			ret = rw_carry_chunk(e, c, rw_carry_rec(k, c), true);
	rw_engine_init_end(e, !ret);
	/* Kept till the run steps: a run that never does loses nothing. */
	if (!ret)
		k->applied = true;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_carry_apply);

int rw_job_carry_expect(struct rw_job *job, const struct rw_carry_desc *d,
			const char **msg)
{
	struct rw_carry *k;
	u8 *owner;
	int ret, me;
	u64 bytes;
	u32 c, n;

	lockdep_assert_held(&job->run_lock);
	if (job->engine || job->move) {
		*msg = "this box's run of the job has not ended its move yet";
		return -EAGAIN;
	}
	if (job->carry) {
		if (rw_carry_desc_eq(d, &job->carry->d))
			return 0;
		*msg = "the chunks given are of another model than this box's";
		return -EEXIST;
	}
	if (!job->boxes || !job->boxes->self) {
		*msg = "this box has no chunks of the job's set";
		return -EINVAL;
	}
	ret = rw_carry_owners(job, job->boxes, d, &owner, &me);
	if (ret) {
		*msg = "the chunks given are not a model";
		return ret;
	}
	for (n = 0, c = 0; c < d->nr_chunks; c++)
		n += owner[c] == me;
	bytes = rw_carry_bytes(d, n);
	ret = rw_mem_charge(job->cfg.name, job->cfg.max_memory,
			    &job->mem_held, bytes);
	if (ret) {
		kvfree(owner);
		*msg = "the chunks this box gains are past the job's memory";
		return ret;
	}
	k = rw_carry_new(d, owner, me, NULL, bytes);
	kvfree(owner);
	if (!k) {
		rw_mem_uncharge(&job->mem_held, bytes);
		*msg = "no memory for the chunks this box gains";
		return -ENOMEM;
	}
	job->carry = k;
	job->joining = false;
	rw_carry_due_show(job);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_carry_expect);

u8 *rw_job_carry_want(struct rw_job *job, u32 c)
{
	struct rw_carry *k = job->carry;

	lockdep_assert_held(&job->run_lock);
	if (!k || c >= k->d.nr_chunks || k->slot[c] == RW_CARRY_NONE ||
	    test_bit(c, k->in))
		return NULL;
	return rw_carry_rec(k, c);
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_carry_want);

void rw_job_carry_in(struct rw_job *job, u32 c)
{
	struct rw_carry *k = job->carry;

	lockdep_assert_held(&job->run_lock);
	if (!rw_job_carry_want(job, c))
		return;
	__set_bit(c, k->in);
	k->nr_in++;
	rw_carry_due_show(job);
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_carry_in);

u32 rw_job_carry_due(const struct rw_job *job)
{
	const struct rw_carry *k = job->carry;

	lockdep_assert_held(&job->run_lock);
	return k ? k->nr - k->nr_in : 0;
}

struct rw_carry *rw_job_gift_take_out(struct rw_job *job)
{
	struct rw_carry *k = job->gift;

	lockdep_assert_held(&job->run_lock);
	job->gift = NULL;
	return k;
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_gift_take_out);

const struct rw_carry_desc *rw_gift_desc(const struct rw_carry *k, u32 *giver)
{
	*giver = k->giver;
	return &k->d;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gift_desc);

void *rw_gift_buf(const struct rw_carry *k, u64 *len)
{
	*len = (u64)k->nr * rw_carry_rec_len(&k->d);
	return k->buf;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gift_buf);

const u8 *rw_gift_rec(const struct rw_carry *k, u32 c)
{
	if (c >= k->d.nr_chunks || k->slot[c] == RW_CARRY_NONE)
		return NULL;
	return k->buf + (u64)k->slot[c] * rw_carry_rec_len(&k->d);
}
EXPORT_SYMBOL_IF_KUNIT(rw_gift_rec);

u32 rw_gift_map(const struct rw_carry *k, u32 to, u32 first, u32 nr,
		u64 *map, u64 *off)
{
	u32 c, n = 0;

	memset(map, 0, DIV_ROUND_UP(nr, 64) * sizeof(u64));
	for (c = first; c < k->d.nr_chunks && c - first < nr; c++) {
		if (k->slot[c] == RW_CARRY_NONE || k->owner[c] != to)
			continue;
		if (!n++)
			*off = (u64)k->slot[c] * rw_carry_rec_len(&k->d);
		map[(c - first) / 64] |= 1ULL << ((c - first) % 64);
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(rw_gift_map);

void rw_gift_done(struct rw_job *job, struct rw_carry *k)
{
	if (!k)
		return;
	rw_mem_uncharge(&job->mem_held, k->charge);
	rw_carry_destroy(k);
}
EXPORT_SYMBOL_IF_KUNIT(rw_gift_done);
