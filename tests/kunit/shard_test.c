// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: one box's share of a job spread over several boxes. Each of three
 * engines, one per box of a set, has memory for the chunks the set gives
 * its box and no other, refuses the others, maps them as one page of
 * zeros, and steps its own chunks to the very bits one engine holding the
 * whole model does.
 */
#include <kunit/test.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "rw.h"
#include "chunk/boxset.h"
#include "engine/engine.h"
#include "job.h"
#include "job_carry.h"
#include "job_move.h"
#include "engine_kunit.h"

#define RW_S_WORKERS	2
#define RW_S_BOXES	3
#define RW_S_TIMEOUT	(10 * HZ)

/* 22 chunks of 4 KiB, the last one short. */
static const struct rw_layout_tensor rw_s_tensors[] = {
	{ .key = 1, .nelems = 10000, .dtype = RW_DTYPE_F32 },
	{ .key = 2, .nelems = 3, .dtype = RW_DTYPE_F32 },
	{ .key = 7, .nelems = 12345, .dtype = RW_DTYPE_F32 },
};

static const u32 rw_s_ids[RW_S_BOXES] = { 3, 9, 5 };

static void rw_s_set(struct rw_boxset *s, u32 self)
{
	u32 i;

	memset(s, 0, sizeof(*s));
	s->epoch = 1;
	s->nr = RW_S_BOXES;
	s->self = self;
	for (i = 0; i < RW_S_BOXES; i++) {
		s->box[i].id = rw_s_ids[i];
		s->box[i].family = RW_BOX_AF_INET;
		s->box[i].addr[0] = 10;
		s->box[i].addr[3] = (u8)(i + 1);
	}
}

/* A float's bits, with no FPU here. */
static void rw_s_f32(float *f, u32 bits)
{
	memcpy(f, &bits, sizeof(bits));
}

static void rw_s_config(struct rw_engine_config *cfg,
			const struct rw_boxset *boxes)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->name = "shard";
	cfg->tensors = rw_s_tensors;
	cfg->nr_tensors = ARRAY_SIZE(rw_s_tensors);
	cfg->chunk_size = 4096;
	cfg->nr_workers = RW_S_WORKERS;
	cfg->hp.optim = RW_AGG_MOMENTUM;
	rw_s_f32(&cfg->hp.lr, 0x3c23d70a);		/* 0.01 */
	rw_s_f32(&cfg->hp.momentum, 0x3f666666);	/* 0.9 */
	cfg->boxes = boxes;
}

/* Each box owns what the set's owners say, and all of them every chunk once. */
static void rw_shard_owned_test(struct kunit *test)
{
	struct rw_boxset *set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);
	struct rw_engine_config cfg;
	struct rw_engine *e[RW_S_BOXES];
	u32 count[RW_OWNER_MAX_BOXES], n, b, c, held;
	u8 *owner;

	KUNIT_ASSERT_NOT_NULL(test, set);
	for (b = 0; b < RW_S_BOXES; b++) {
		rw_s_set(set, rw_s_ids[b]);
		rw_s_config(&cfg, set);
		e[b] = rw_kt_engine(test, &cfg);
	}
	n = rw_engine_nr_chunks(e[0]);
	KUNIT_ASSERT_EQ(test, n, 22U);
	owner = kunit_kzalloc(test, n, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, owner);
	/* The model's last chunk is short (89392 bytes in 4 KiB chunks). */
	KUNIT_ASSERT_EQ(test, rw_boxset_owners(set, "shard", n, true, owner, count),
			0);
	for (b = 0; b < RW_S_BOXES; b++) {
		KUNIT_EXPECT_EQ(test, rw_engine_nr_owned(e[b]), count[b]);
		/* Shares even to a chunk: 22 = 8 + 7 + 7. */
		KUNIT_EXPECT_GE(test, count[b], 7U);
		KUNIT_EXPECT_LE(test, count[b], 8U);
	}
	for (c = 0; c < n; c++) {
		held = 0;
		for (b = 0; b < RW_S_BOXES; b++) {
			KUNIT_EXPECT_EQ(test, rw_engine_owns(e[b], c),
					owner[c] == b);
			held += rw_engine_owns(e[b], c);
		}
		KUNIT_EXPECT_EQ(test, held, 1U);
	}
	KUNIT_EXPECT_FALSE(test, rw_engine_owns(e[0], n));
}

/* A box's run is charged about its share of the model, not the whole. */
static void rw_shard_footprint_test(struct kunit *test)
{
	struct rw_boxset *set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);
	struct rw_engine_config cfg;
	u64 whole, share;

	KUNIT_ASSERT_NOT_NULL(test, set);
	rw_s_config(&cfg, NULL);
	KUNIT_ASSERT_EQ(test, rw_engine_footprint(&cfg, &whole), 0);
	rw_s_set(set, rw_s_ids[1]);
	rw_s_config(&cfg, set);
	KUNIT_ASSERT_EQ(test, rw_engine_footprint(&cfg, &share), 0);
	/* 7 or 8 of 22 chunks' arenas, plus every chunk's bookkeeping. */
	KUNIT_EXPECT_LT(test, share * 5, whole * 2);
	KUNIT_EXPECT_GT(test, share * 4, whole);
	/* A set that does not name this box is refused. */
	set->self = 4;
	KUNIT_EXPECT_EQ(test, rw_engine_footprint(&cfg, &share), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(rw_engine_create(&cfg)), -EINVAL);
}

/* Another box's chunk: refused, mapped as one page of zeros (parameters). */
static void rw_shard_refused_test(struct kunit *test)
{
	struct rw_boxset *set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);
	u32 *buf = kunit_kzalloc(test, 4096, GFP_KERNEL);
	struct page *hole = NULL, *pg;
	struct rw_engine_config cfg;
	struct rw_engine *e;
	u32 c, mine = U32_MAX, other = U32_MAX;
	u8 *p;

	KUNIT_ASSERT_TRUE(test, set && buf);
	rw_s_set(set, rw_s_ids[0]);
	rw_s_config(&cfg, set);
	e = rw_kt_engine(test, &cfg);
	for (c = 0; c < rw_engine_nr_chunks(e); c++) {
		if (rw_engine_owns(e, c)) {
			mine = mine == U32_MAX ? c : mine;
			continue;
		}
		other = other == U32_MAX ? c : other;
		KUNIT_EXPECT_EQ(test, rw_engine_push(e, 0, c, buf,
						     rw_engine_chunk_len(e, c)),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, rw_engine_read(e, c, buf,
						     rw_engine_chunk_len(e, c),
						     NULL), -EINVAL);
		pg = rw_engine_page(e, RW_BUF_PARAMS, 0, (u64)c * 4096);
		KUNIT_ASSERT_NOT_NULL(test, pg);
		hole = hole ? hole : pg;
		KUNIT_EXPECT_PTR_EQ(test, pg, hole);
		/* A gradient window's page of it is another, a scratch one. */
		pg = rw_engine_page(e, RW_BUF_GRAD, 1, (u64)c * 4096);
		KUNIT_EXPECT_NOT_NULL(test, pg);
		KUNIT_EXPECT_PTR_NE(test, pg, hole);
		KUNIT_EXPECT_PTR_EQ(test, rw_engine_page(e, RW_BUF_GRAD, 0,
							 (u64)c * 4096), pg);
	}
	KUNIT_ASSERT_NE(test, mine, U32_MAX);
	KUNIT_ASSERT_NE(test, other, U32_MAX);
	p = kmap_local_page(hole);
	KUNIT_EXPECT_NULL(test, memchr_inv(p, 0, PAGE_SIZE));
	kunmap_local(p);
	KUNIT_EXPECT_PTR_NE(test, rw_engine_page(e, RW_BUF_PARAMS, 0,
						 (u64)mine * 4096), hole);
	rw_kt_grad(buf, rw_engine_chunk_len(e, mine), 0, 0, mine);
	KUNIT_EXPECT_EQ(test, rw_engine_push(e, 0, mine, buf,
					     rw_engine_chunk_len(e, mine)), 0);
}

/* Three boxes' chunks step to the bits of one engine holding them all. */
static void rw_shard_same_bits_test(struct kunit *test)
{
	struct rw_boxset *set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);
	u32 *buf = kunit_kzalloc(test, 4096, GFP_KERNEL);
	u32 *pa = kunit_kzalloc(test, 4096, GFP_KERNEL);
	u32 *pb = kunit_kzalloc(test, 4096, GFP_KERNEL);
	struct rw_engine *e[RW_S_BOXES], *whole, *x;
	struct rw_engine_config cfg;
	u32 b, c, s, w, len, n, same = 0;

	KUNIT_ASSERT_TRUE(test, set && buf && pa && pb);
	rw_s_config(&cfg, NULL);
	whole = rw_kt_engine(test, &cfg);
	for (b = 0; b < RW_S_BOXES; b++) {
		rw_s_set(set, rw_s_ids[b]);
		rw_s_config(&cfg, set);
		e[b] = rw_kt_engine(test, &cfg);
	}
	n = rw_engine_nr_chunks(whole);
	for (s = 0; s < 3; s++) {
		for (c = 0; c < n; c++) {
			len = rw_engine_chunk_len(whole, c);
			for (b = 0; b < RW_S_BOXES && !rw_engine_owns(e[b], c);
			     b++)
				;
			KUNIT_ASSERT_LT(test, b, (u32)RW_S_BOXES);
			for (w = 0; w < RW_S_WORKERS; w++) {
				rw_kt_grad(buf, len, s, w, c);
				KUNIT_ASSERT_EQ(test, rw_engine_push(whole, w, c,
								     buf, len),
						0);
				KUNIT_ASSERT_EQ(test, rw_engine_push(e[b], w, c,
								     buf, len),
						0);
			}
			KUNIT_ASSERT_EQ(test, rw_engine_wait(whole, c, s + 1,
							     RW_S_TIMEOUT), 0);
			KUNIT_ASSERT_EQ(test, rw_engine_wait(e[b], c, s + 1,
							     RW_S_TIMEOUT), 0);
		}
	}
	for (c = 0; c < n; c++) {
		len = rw_engine_chunk_len(whole, c);
		for (b = 0; b < RW_S_BOXES && !rw_engine_owns(e[b], c); b++)
			;
		x = e[b];
		KUNIT_ASSERT_EQ(test, rw_engine_read(whole, c, pa, len, NULL), 0);
		KUNIT_ASSERT_EQ(test, rw_engine_read(x, c, pb, len, NULL), 0);
		same += !memcmp(pa, pb, len) && rw_engine_version(x, c) == 3;
	}
	KUNIT_EXPECT_EQ(test, same, n);
}

/* The set after a fourth box, id 12, joins rw_s_set()'s: epoch 2. */
static void rw_s_set4(struct rw_boxset *s, u32 self)
{
	rw_s_set(s, self);
	s->epoch = 2;
	s->box[RW_S_BOXES].id = 12;
	s->box[RW_S_BOXES].family = RW_BOX_AF_INET;
	s->box[RW_S_BOXES].addr[0] = 10;
	s->box[RW_S_BOXES].addr[3] = RW_S_BOXES + 1;
	s->nr = RW_S_BOXES + 1;
}

static struct rw_job *rw_s_job(struct kunit *test, struct rw_boxset *set)
{
	u8 token[RW_JOB_TOKEN_LEN];
	struct rw_job_config jc = {};
	const char *msg = NULL;
	struct rw_job *job;

	strscpy(jc.name, "shard", sizeof(jc.name));
	jc.workers = RW_S_WORKERS;
	jc.sync = RW_SYNC_BSP;
	jc.optim = RW_OPTIM_MOMENTUM;
	jc.lr = 0x3c23d70a;
	jc.momentum = 0x3f666666;
	jc.beta1 = 0x3f000000;
	jc.beta2 = 0x3f000000;
	jc.eps = 0x3c23d70a;
	jc.boxes = set;
	KUNIT_ASSERT_EQ_MSG(test, rw_job_new(&jc, &msg, token, &job), 0, "%s",
			    msg);
	return job;
}

/* An engine of @set's box, with @pat's bytes on its chunks if not NULL. */
static struct rw_engine *rw_s_patterned(struct kunit *test,
					const struct rw_boxset *set,
					const u8 *pat, u64 len)
{
	struct rw_engine_config cfg;
	struct rw_engine *e;

	rw_s_config(&cfg, set);
	e = rw_kt_engine(test, &cfg);
	if (!pat)
		return e;
	KUNIT_ASSERT_EQ(test, rw_engine_init_begin(e), 0);
	KUNIT_EXPECT_EQ(test, rw_engine_image_put(e, 0, len, pat), 0);
	rw_engine_init_end(e, true);
	return e;
}

/*
 * A run's state over a move (job_carry.c): this box's chunks, kept at the
 * run's end, come back whole in the next run's engine, its image the same
 * bytes; a next run of another model is refused and leaves them kept; the
 * job's charge goes back with them.
 */
static void rw_shard_carry_test(struct kunit *test)
{
	struct rw_boxset *set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);
	struct rw_engine_config cfg, other;
	struct rw_engine *e1, *e2, *e3, *e4;
	u8 *pat, *img1, *img2;
	struct rw_job *job;
	u64 len, charge = 0, i, v;
	u32 c, w;

	KUNIT_ASSERT_NOT_NULL(test, set);
	rw_s_set(set, rw_s_ids[1]);
	job = rw_s_job(test, set);

	rw_s_config(&cfg, set);
	e1 = rw_kt_engine(test, &cfg);
	len = rw_engine_image_len(e1);
	pat = vmalloc(len);
	img1 = vmalloc(len);
	img2 = vmalloc(len);
	KUNIT_ASSERT_TRUE(test, pat && img1 && img2);
	for (i = 0; i < len; i++)
		pat[i] = (u8)(i * 7 + 1);
	KUNIT_ASSERT_EQ(test, rw_engine_init_begin(e1), 0);
	KUNIT_EXPECT_EQ(test, rw_engine_image_put(e1, 0, len, pat), 0);
	rw_engine_init_end(e1, true);
	KUNIT_ASSERT_EQ(test, rw_engine_image_get(e1, 0, len, img1), 0);

	mutex_lock(&job->run_lock);
	/* The move's order reserves the carry of the run's engine. */
	job->engine = e1;
	KUNIT_EXPECT_EQ(test, rw_job_move_reserve(job, set, &charge), 0);
	job->engine = NULL;
	rw_job_carry_take(job, e1, charge, rw_s_ids[1]);
	mutex_unlock(&job->run_lock);
	KUNIT_EXPECT_GT(test, charge, 0ULL);
	KUNIT_EXPECT_NOT_NULL(test, job->carry);
	KUNIT_EXPECT_EQ(test, READ_ONCE(job->mem_held), charge);

	/* Another model: refused, the carry kept. */
	other = cfg;
	other.nr_tensors = 2;
	e3 = rw_kt_engine(test, &other);
	mutex_lock(&job->run_lock);
	KUNIT_EXPECT_EQ(test, rw_job_carry_apply(job, e3), -EEXIST);
	KUNIT_EXPECT_NOT_NULL(test, job->carry);
	KUNIT_EXPECT_FALSE(test, rw_engine_params_set(e3));
	/* The same model: back whole, the charge gone with it. */
	e2 = rw_kt_engine(test, &cfg);
	KUNIT_EXPECT_EQ(test, rw_job_carry_apply(job, e2), 0);
	/* A second run cannot start from it while this one is on. */
	KUNIT_EXPECT_EQ(test, rw_job_carry_apply(job, e3), -EBUSY);
	mutex_unlock(&job->run_lock);
	KUNIT_EXPECT_TRUE(test, rw_engine_params_set(e2));
	KUNIT_ASSERT_EQ(test, rw_engine_image_get(e2, 0, len, img2), 0);
	KUNIT_EXPECT_EQ(test, memcmp(img1, img2, len), 0);
	/* Not nothing: the pattern's bytes of this box's chunks. */
	KUNIT_EXPECT_NOT_NULL(test, memchr_inv(img2, 0, len));

	/* That run ends before its first step: the carry stays, charged. */
	mutex_lock(&job->run_lock);
	rw_job_carry_run_end(job, e2);
	KUNIT_EXPECT_NOT_NULL(test, job->carry);
	KUNIT_EXPECT_EQ(test, READ_ONCE(job->mem_held), charge);
	/* The next run starts from it again, and steps: then it goes. */
	e4 = rw_kt_engine(test, &cfg);
	KUNIT_EXPECT_EQ(test, rw_job_carry_apply(job, e4), 0);
	mutex_unlock(&job->run_lock);
	for (c = 0; !rw_engine_owns(e4, c); c++)
		;
	v = rw_engine_version(e4, c);
	for (w = 0; w < RW_S_WORKERS; w++) {
		rw_kt_grad((u32 *)img2, rw_engine_chunk_len(e4, c), 0, w, c);
		KUNIT_ASSERT_EQ(test, rw_engine_push(e4, w, c, img2,
						     rw_engine_chunk_len(e4, c)),
				0);
	}
	KUNIT_ASSERT_EQ(test, rw_engine_wait(e4, c, v + 1, RW_S_TIMEOUT), 0);
	mutex_lock(&job->run_lock);
	rw_job_carry_run_end(job, e4);
	mutex_unlock(&job->run_lock);
	KUNIT_EXPECT_NULL(test, job->carry);
	KUNIT_EXPECT_EQ(test, READ_ONCE(job->mem_held), 0ULL);

	vfree(pat);
	vfree(img1);
	vfree(img2);
	KUNIT_EXPECT_EQ(test, rw_job_del("shard", 0), 0);
	rw_job_put(job);
}

/* @e's image is @want's: the same chunks, the same bytes. */
static void rw_s_same_image(struct kunit *test, struct rw_engine *e,
			    struct rw_engine *want, u64 len)
{
	u8 *a = vmalloc(len), *b = vmalloc(len);

	KUNIT_ASSERT_TRUE(test, a && b);
	KUNIT_EXPECT_EQ(test, rw_engine_image_get(e, 0, len, a), 0);
	KUNIT_EXPECT_EQ(test, rw_engine_image_get(want, 0, len, b), 0);
	KUNIT_EXPECT_EQ(test, memcmp(a, b, len), 0);
	KUNIT_EXPECT_NOT_NULL(test, memchr_inv(a, 0, len));
	vfree(a);
	vfree(b);
}

/*
 * Old box @id's run of the pattern @pat ends with the move from rw_s_set()
 * to rw_s_set4(): its job "shard", its carry and gift taken (run_lock held).
 */
static struct rw_job *rw_s_run_ends(struct kunit *test, u32 id, const u8 *pat,
				    u64 len)
{
	struct rw_boxset *from = kunit_kzalloc(test, sizeof(*from), GFP_KERNEL);
	struct rw_boxset *to = kzalloc(sizeof(*to), GFP_KERNEL);
	struct rw_carry_plan p;
	struct rw_engine *e;
	struct rw_job *job;
	u64 charge = 0;

	KUNIT_ASSERT_TRUE(test, from && to);
	rw_s_set(from, id);
	rw_s_set4(to, id);
	job = rw_s_job(test, from);
	e = rw_s_patterned(test, from, pat, len);
	mutex_lock(&job->run_lock);
	job->engine = e;
	KUNIT_EXPECT_EQ(test, rw_job_move_reserve(job, to, &charge), 0);
	KUNIT_EXPECT_EQ(test, rw_carry_plan(job, e, to, &p), 0);
	job->engine = NULL;
	KUNIT_EXPECT_EQ(test, p.bytes, charge);
	KUNIT_EXPECT_EQ(test, p.kept + p.given, rw_engine_nr_owned(e));
	KUNIT_EXPECT_LE(test, p.kept, p.owned);
	/* The run ends: the set is taken, the chunks kept. */
	kfree(job->boxes);
	job->boxes = to;
	rw_job_carry_take(job, e, charge, id);
	KUNIT_EXPECT_EQ(test, READ_ONCE(job->mem_held), charge);
	return job;
}

static void rw_s_job_done(struct kunit *test, struct rw_job *job)
{
	KUNIT_EXPECT_EQ(test, rw_job_del("shard", 0), 0);
	rw_job_put(job);
}

/*
 * A move's boundary (job_move.c): refused without a move, for a policy
 * that applies each push and for another boundary than the one set; once
 * set, the run's rounds step up to it and not from it on, whoever pushed.
 * A box added to a set past its first epoch joins by a move: its runs
 * wait for the chunks the move gives it (job_carry.c).
 */
static void rw_shard_stop_test(struct kunit *test)
{
	struct rw_boxset *set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);
	struct rw_engine_config cfg;
	struct rw_engine *e;
	struct rw_job *job;
	u32 c, w, it;
	u64 v;
	u8 *g;

	KUNIT_ASSERT_NOT_NULL(test, set);
	rw_s_set(set, rw_s_ids[0]);
	job = rw_s_job(test, set);
	rw_s_config(&cfg, set);
	e = rw_kt_engine(test, &cfg);
	KUNIT_EXPECT_EQ(test, rw_job_move_stop(job, 2), -ENOENT);
	mutex_lock(&job->run_lock);
	job->engine = e;
	mutex_unlock(&job->run_lock);
	KUNIT_EXPECT_EQ(test, rw_job_move_stop(job, 2), -ENOENT);
	mutex_lock(&job->run_lock);
	job->move = kmemdup(set, sizeof(*set), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, job->move);
	job->move->epoch = 2;
	job->cfg.sync = RW_SYNC_SSP;
	mutex_unlock(&job->run_lock);
	KUNIT_EXPECT_EQ(test, rw_job_move_stop(job, 2), -EOPNOTSUPP);
	mutex_lock(&job->run_lock);
	job->cfg.sync = RW_SYNC_BSP;
	mutex_unlock(&job->run_lock);
	KUNIT_EXPECT_EQ(test, rw_job_move_stop(job, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, rw_job_move_stop(job, 1ULL << 40), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, rw_job_move_stop_at(job), 0ULL);
	KUNIT_EXPECT_EQ(test, rw_job_move_stop(job, 2), 0);
	KUNIT_EXPECT_EQ(test, rw_job_move_stop(job, 2), 0);
	KUNIT_EXPECT_EQ(test, rw_job_move_stop(job, 3), -EALREADY);
	KUNIT_EXPECT_EQ(test, rw_job_move_stop_at(job), 2ULL);

	/* Rounds 0 and 1 step; every rank's gradient of round 2 waits. */
	for (c = 0; !rw_engine_owns(e, c); c++)
		;
	g = kunit_kzalloc(test, rw_engine_chunk_len(e, c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, g);
	v = rw_engine_version(e, c);
	for (it = 0; it < 3; it++) {
		for (w = 0; w < RW_S_WORKERS; w++) {
			rw_kt_grad((u32 *)g, rw_engine_chunk_len(e, c), it, w,
				   c);
			KUNIT_ASSERT_EQ(test, rw_engine_push(e, w, c, g,
							     rw_engine_chunk_len(e, c)),
					0);
		}
		KUNIT_EXPECT_EQ(test, rw_engine_wait(e, c, v + it + 1,
						     it < 2 ? RW_S_TIMEOUT :
						     HZ / 2),
				it < 2 ? 0 : -ETIMEDOUT);
	}
	KUNIT_EXPECT_EQ(test, rw_engine_version(e, c), v + 2);
	mutex_lock(&job->run_lock);
	job->engine = NULL;
	/* Its set's first epoch: a run starts from nothing carried. */
	KUNIT_EXPECT_FALSE(test, job->joining);
	KUNIT_EXPECT_EQ(test, rw_job_carry_apply(job, e), 0);
	mutex_unlock(&job->run_lock);
	rw_s_job_done(test, job);

	/* Added at epoch 2, a box that joins: no run before its chunks. */
	set->epoch = 2;
	job = rw_s_job(test, set);
	e = rw_kt_engine(test, &cfg);
	mutex_lock(&job->run_lock);
	KUNIT_EXPECT_TRUE(test, job->joining);
	KUNIT_EXPECT_EQ(test, rw_job_carry_apply(job, e), -EAGAIN);
	KUNIT_EXPECT_FALSE(test, rw_engine_params_set(e));
	mutex_unlock(&job->run_lock);
	rw_s_job_done(test, job);
}

/*
 * A fourth box joins three at a run's end (job_carry.c): each old box
 * keeps the chunks it still owns and gives the others; each box's next run
 * waits for every chunk it gains and then starts from the bytes the old
 * runs ended with, as one engine of its share in the new set holding the
 * pattern does. Only the chunks whose owner changes move (about a quarter:
 * to the box that joins, and the few that the bytes' balance shifts).
 */
static void rw_shard_handover_test(struct kunit *test)
{
	struct rw_boxset *from = kunit_kzalloc(test, sizeof(*from), GFP_KERNEL);
	struct rw_boxset *to = kunit_kzalloc(test, sizeof(*to), GFP_KERNEL);
	u32 b, c, n, given = 0, moved = 0, wanted, owned;
	struct rw_engine *e, *want, *next;
	struct rw_carry_desc d, other;
	unsigned long *have;
	u8 *pat, *gifts, *slot, *a, *o;
	u64 len, rec, i, blen, off, first, *map;
	struct rw_carry *k;
	struct rw_job *job;
	const char *msg;
	u32 giver, t;
	void *buf;

	KUNIT_ASSERT_TRUE(test, from && to);
	rw_s_set(from, rw_s_ids[0]);
	rw_s_set4(to, 12);
	e = rw_s_patterned(test, from, NULL, 0);
	len = rw_engine_image_len(e);
	rw_carry_desc_of(e, &d);
	n = d.nr_chunks;
	rec = rw_carry_rec_len(&d);
	pat = vmalloc(len);
	gifts = vmalloc(rec * n);
	have = kunit_kzalloc(test, BITS_TO_LONGS(n) * sizeof(long), GFP_KERNEL);
	a = kunit_kzalloc(test, n, GFP_KERNEL);
	o = kunit_kzalloc(test, n, GFP_KERNEL);
	map = kunit_kzalloc(test, DIV_ROUND_UP(n, 64) * sizeof(u64),
			    GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, pat && gifts && have && a && o && map);
	for (i = 0; i < len; i++)
		pat[i] = (u8)(i * 7 + 1);
	KUNIT_ASSERT_EQ(test, rw_boxset_owners(from, "shard", n, d.last_short,
					       a, NULL), 0);
	KUNIT_ASSERT_EQ(test, rw_boxset_owners(to, "shard", n, d.last_short,
					       o, NULL), 0);
	for (c = 0; c < n; c++)
		moved += rw_boxset_chunk_moves(from, a, to, o, c);

	/* The old boxes' runs end: what each gives, once each. */
	for (b = 0; b < RW_S_BOXES; b++) {
		job = rw_s_run_ends(test, rw_s_ids[b], pat, len);
		k = rw_job_gift_take_out(job);
		KUNIT_EXPECT_NULL(test, job->gift);
		mutex_unlock(&job->run_lock);
		KUNIT_ASSERT_NOT_NULL(test, k);
		KUNIT_EXPECT_EQ(test, rw_gift_desc(k, &giver)->nr_chunks, n);
		KUNIT_EXPECT_EQ(test, giver, rw_s_ids[b]);
		buf = rw_gift_buf(k, &blen);
		for (c = 0; c < n; c++) {
			const u8 *g = rw_gift_rec(k, c);

			/* It gives what it had and another box has now. */
			KUNIT_EXPECT_EQ(test, !!g, a[c] == b && o[c] != b);
			if (!g)
				continue;
			KUNIT_EXPECT_FALSE(test, test_and_set_bit(c, have));
			memcpy(gifts + c * rec, g, rec);
			given++;
		}
		/* Each taker's records lie in one piece, in chunk order. */
		for (t = 0, off = 0; t <= RW_S_BOXES; t++) {
			u32 m = rw_gift_map(k, t, 0, n, map, &first);

			if (!m)
				continue;
			KUNIT_EXPECT_EQ(test, first, off);
			for (c = 0; c < n; c++) {
				bool in = map[c / 64] >> (c % 64) & 1;

				KUNIT_EXPECT_EQ(test, in, a[c] == b && o[c] == t);
				if (!in)
					continue;
				KUNIT_EXPECT_PTR_EQ(test, rw_gift_rec(k, c),
						    (const u8 *)buf + off);
				off += rec;
			}
		}
		KUNIT_EXPECT_EQ(test, off, blen);
		rw_gift_done(job, k);
		rw_s_job_done(test, job);
	}
	KUNIT_EXPECT_EQ(test, given, moved);
	KUNIT_EXPECT_GE(test, moved, n / 8);
	KUNIT_EXPECT_LE(test, moved, n / 2);

	/* Every box of the new set: its run waits, then has the bytes. */
	for (b = 0; b <= RW_S_BOXES; b++) {
		rw_s_set4(to, to->box[b].id);
		if (b < RW_S_BOXES) {
			job = rw_s_run_ends(test, to->self, pat, len);
		} else {
			/* The box that joins: nothing of its own. */
			job = rw_s_job(test, to);
			mutex_lock(&job->run_lock);
			KUNIT_EXPECT_EQ(test, rw_job_carry_expect(job, &d, &msg),
					0);
			KUNIT_EXPECT_GT(test, READ_ONCE(job->mem_held), 0ULL);
			other = d;
			other.layout_hash ^= 1;
			KUNIT_EXPECT_EQ(test,
					rw_job_carry_expect(job, &other, &msg),
					-EEXIST);
		}
		next = rw_s_patterned(test, to, NULL, 0);
		want = rw_s_patterned(test, to, pat, len);
		for (wanted = 0, owned = 0, c = 0; c < n; c++) {
			bool gains = o[c] == b && (b == RW_S_BOXES || a[c] != b);

			owned += o[c] == b;
			slot = rw_job_carry_want(job, c);
			/* Wanted: exactly the chunks it gains. */
			KUNIT_EXPECT_EQ(test, !!slot, gains);
			if (!slot)
				continue;
			KUNIT_EXPECT_TRUE(test, test_bit(c, have));
			if (!wanted++) {
				KUNIT_EXPECT_EQ(test,
						rw_job_carry_apply(job, next),
						-EAGAIN);
				KUNIT_EXPECT_GT(test, READ_ONCE(job->carry_due),
						0U);
			}
			memcpy(slot, gifts + c * rec, rec);
			rw_job_carry_in(job, c);
			KUNIT_EXPECT_NULL(test, rw_job_carry_want(job, c));
		}
		KUNIT_EXPECT_EQ(test, rw_engine_nr_owned(next), owned);
		/* job show's count: every chunk it gains has come. */
		KUNIT_EXPECT_EQ(test, READ_ONCE(job->carry_due), 0U);
		if (b == RW_S_BOXES)
			KUNIT_EXPECT_EQ(test, wanted, owned);
		KUNIT_EXPECT_EQ(test, rw_job_carry_apply(job, next), 0);
		mutex_unlock(&job->run_lock);
		rw_s_same_image(test, next, want, len);
		rw_s_job_done(test, job);
	}
	vfree(pat);
	vfree(gifts);
}

static struct kunit_case rw_shard_test_cases[] = {
	KUNIT_CASE(rw_shard_owned_test),
	KUNIT_CASE(rw_shard_footprint_test),
	KUNIT_CASE(rw_shard_refused_test),
	KUNIT_CASE(rw_shard_same_bits_test),
	KUNIT_CASE(rw_shard_carry_test),
	KUNIT_CASE(rw_shard_handover_test),
	KUNIT_CASE(rw_shard_stop_test),
	{}
};

static struct kunit_suite rw_shard_test_suite = {
	.name = "rackweave_shard",
	.test_cases = rw_shard_test_cases,
};

kunit_test_suite(rw_shard_test_suite);
