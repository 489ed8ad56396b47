// SPDX-License-Identifier: GPL-2.0
/*
 * The local data path without a file: chunk-range selection, attach (token,
 * rank, twice), declare and verify, references held by workers and
 * mappings (the job's run ends with its last user, a deleted job lives on
 * while mapped), forced deletion, a BSP push/pull through the engine's own
 * pages, and the netlink attribute policies of the job commands.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <net/genetlink.h>

#include "rw.h"
#include "engine/engine.h"
#include "genl_job.h"
#include "job.h"
#include "worker.h"
#include "worker_xfer.h"
#include "chunk/layout.h"

/* Two tensors: 100 and 3000 f32 at 4 KiB chunks: offsets 0 and 448. */
static const struct rw_layout_tensor rw_wt_tensors[] = {
	{ .key = 1, .nelems = 100, .dtype = RW_DTYPE_F32 },
	{ .key = 2, .nelems = 3000, .dtype = RW_DTYPE_F32 },
};

static const struct rw_tensor_desc rw_wt_desc[] = {
	{ .key = 1, .nelems = 100, .dtype = RW_DTYPE_F32 },
	{ .key = 2, .nelems = 3000, .dtype = RW_DTYPE_F32 },
};

struct rw_wt_sel {
	const char *desc;
	bool keys;
	u32 nr;
	struct rw_range r[2];
	int ret;
	unsigned long bits;	/* chunks selected */
};

static const struct rw_wt_sel rw_wt_sels[] = {
	{ "all", false, 0, {}, 0, 0xf },
	{ "first chunk", false, 1, { { 0, 1 } }, 0, 0x1 },
	{ "last chunk", false, 1, { { 3, 1 } }, 0, 0x8 },
	{ "two ranges", false, 2, { { 0, 1 }, { 2, 2 } }, 0, 0xd },
	{ "past the end", false, 1, { { 3, 2 } }, -EINVAL, 0 },
	{ "first beyond", false, 1, { { 4, 1 } }, -EINVAL, 0 },
	{ "empty range", false, 1, { { 0, 0 } }, -EINVAL, 0 },
	{ "huge first", false, 1, { { U64_MAX, 1 } }, -EINVAL, 0 },
	{ "huge count", false, 1, { { 1, U64_MAX } }, -EINVAL, 0 },
	{ "key 1", true, 1, { { 1, 0 } }, 0, 0x1 },
	{ "key 2 spans all", true, 1, { { 2, 0 } }, 0, 0xf },
	{ "key with count", true, 1, { { 2, 1 } }, -EINVAL, 0 },
	{ "unknown key", true, 1, { { 9, 0 } }, -ENOENT, 0 },
};

static void rw_wt_select(struct kunit *test)
{
	u64 offsets[2];
	u32 by_key[2];
	struct rw_layout l;
	unsigned long sel[1];
	u32 i;

	KUNIT_ASSERT_EQ(test, rw_layout_init(&l, rw_wt_tensors, 2, 4096,
					     offsets, by_key), 0);
	KUNIT_ASSERT_EQ(test, l.geom.nr_chunks, 4U);
	for (i = 0; i < ARRAY_SIZE(rw_wt_sels); i++) {
		const struct rw_wt_sel *c = &rw_wt_sels[i];
		int ret;

		sel[0] = 0;
		ret = rw_xfer_select(&l, c->r, c->nr, c->keys, sel);
		KUNIT_EXPECT_EQ_MSG(test, ret, c->ret, "%s", c->desc);
		if (!ret)
			KUNIT_EXPECT_EQ_MSG(test, sel[0], c->bits, "%s", c->desc);
	}
}

static void rw_wt_config(struct rw_job_config *c, const char *name, u32 sync)
{
	memset(c, 0, sizeof(*c));
	strscpy(c->name, name, sizeof(c->name));
	c->workers = 2;
	c->chunk_size = 4096;
	c->sync = sync;
	c->staleness = 2;
	c->optim = RW_OPTIM_SGD;
	c->lr = 0x3f000000U;		/* 0.5 */
	c->momentum = 0x3f000000U;
	c->beta1 = 0x3f000000U;
	c->beta2 = 0x3f000000U;
	c->eps = 0x3c23d70aU;
}

static struct rw_job *rw_wt_job(struct kunit *test, const char *name,
				u32 sync, u8 *token)
{
	struct rw_job_config c;
	const char *msg;
	struct rw_job *job;

	rw_wt_config(&c, name, sync);
	KUNIT_ASSERT_EQ(test, rw_job_new(&c, &msg, token, &job), 0);
	return job;
}

static void rw_wt_attach(struct kunit *test)
{
	u8 token[RW_JOB_TOKEN_LEN], bad[RW_JOB_TOKEN_LEN];
	struct rw_worker *a, *b;
	struct rw_job *job;

	job = rw_wt_job(test, "kunit-attach", RW_SYNC_BSP, token);
	memcpy(bad, token, sizeof(bad));
	bad[RW_JOB_TOKEN_LEN - 1] ^= 1;
	a = rw_worker_new();
	b = rw_worker_new();
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);

	KUNIT_EXPECT_EQ(test, rw_worker_attach(a, "kunit-attach", bad, 0, 0),
			-EACCES);
	KUNIT_EXPECT_EQ(test, rw_worker_attach(a, "kunit-none", token, 0, 0),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, rw_worker_attach(a, "kunit-attach", token, 2, 0),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, rw_worker_attach(a, "kunit-attach", token, 0,
					       1U << 7), -EINVAL);
	KUNIT_EXPECT_EQ(test, job->attached, 0U);
	KUNIT_EXPECT_EQ(test, rw_worker_attach(a, "kunit-attach", token, 0, 0),
			0);
	KUNIT_EXPECT_EQ(test, rw_worker_attach(a, "kunit-attach", token, 1, 0),
			-EISCONN);
	KUNIT_EXPECT_EQ(test, rw_worker_attach(b, "kunit-attach", token, 0, 0),
			-EADDRINUSE);
	KUNIT_EXPECT_EQ(test, job->attached, 1U);
	KUNIT_EXPECT_EQ(test, rw_job_del("kunit-attach", 0), -EBUSY);
	rw_worker_free(a);
	KUNIT_EXPECT_EQ(test, job->attached, 0U);
	KUNIT_EXPECT_EQ(test, job->users, 0U);
	/* The rank is free again. */
	KUNIT_EXPECT_EQ(test, rw_worker_attach(b, "kunit-attach", token, 0, 0),
			0);
	rw_worker_free(b);
	KUNIT_EXPECT_EQ(test, rw_job_del("kunit-attach", 0), 0);
	rw_job_put(job);
}

static void rw_wt_declare(struct kunit *test)
{
	struct rw_tensor_desc other[2], f16[1];
	u8 token[RW_JOB_TOKEN_LEN];
	struct rw_worker *a, *b;
	struct rw_setup st = {};
	struct rw_job *job;

	job = rw_wt_job(test, "kunit-declare", RW_SYNC_BSP, token);
	a = rw_worker_new();
	b = rw_worker_new();
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, rw_worker_declare(a, rw_wt_desc, 2, 0, NULL),
			-ENOTCONN);
	KUNIT_ASSERT_EQ(test, rw_worker_attach(a, "kunit-declare", token, 0, 0),
			0);
	KUNIT_ASSERT_EQ(test, rw_worker_attach(b, "kunit-declare", token, 1, 0),
			0);
	KUNIT_EXPECT_EQ(test, rw_worker_setup(a, &st), -ENOTCONN);
	KUNIT_EXPECT_EQ(test, rw_worker_declare(b, rw_wt_desc, 2,
						RW_DECLARE_VERIFY, NULL), -ENOENT);
	f16[0] = rw_wt_desc[0];
	f16[0].dtype = 3;
	KUNIT_EXPECT_EQ(test, rw_worker_declare(a, f16, 1, 0, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, rw_worker_declare(a, rw_wt_desc, 0, 0, NULL), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, job->engine, NULL);

	KUNIT_ASSERT_EQ(test, rw_worker_declare(a, rw_wt_desc, 2, 0, NULL), 0);
	KUNIT_ASSERT_NOT_NULL(test, job->engine);
	memcpy(other, rw_wt_desc, sizeof(other));
	other[1].nelems++;
	KUNIT_EXPECT_EQ(test, rw_worker_declare(b, other, 2, 0, NULL), -EEXIST);
	f16[0].dtype = RW_DTYPE_F16;
	KUNIT_EXPECT_EQ(test, rw_worker_declare(b, f16, 1, 0, NULL), -EEXIST);
	KUNIT_EXPECT_EQ(test, rw_worker_declare(b, rw_wt_desc, 1, 0, NULL), -EEXIST);
	KUNIT_EXPECT_EQ(test, rw_worker_declare(b, rw_wt_desc, 2,
						RW_DECLARE_VERIFY, NULL), 0);
	/* The declared layout did not change. */
	KUNIT_EXPECT_EQ(test, rw_engine_layout(job->engine)->tensors[1].nelems,
			3000ULL);

	KUNIT_ASSERT_EQ(test, rw_worker_setup(a, &st), 0);
	KUNIT_EXPECT_EQ(test, st.nr_chunks, 4U);
	KUNIT_EXPECT_EQ(test, st.model_bytes, 448ULL + 12000);
	KUNIT_EXPECT_EQ(test, st.grad_len, 4ULL * 4096);
	KUNIT_EXPECT_EQ(test, st.params_offset, RW_MMAP_PARAMS);
	KUNIT_EXPECT_EQ(test, st.versions_len, (u64)PAGE_SIZE);

	rw_worker_free(a);
	KUNIT_EXPECT_NOT_NULL(test, job->engine);	/* b still attached */
	rw_worker_free(b);
	KUNIT_EXPECT_PTR_EQ(test, job->engine, NULL);	/* the run is over */
	KUNIT_EXPECT_EQ(test, job->run_chunks, 0U);
	KUNIT_EXPECT_EQ(test, rw_job_del("kunit-declare", 0), 0);
	rw_job_put(job);
}

/* mmap checks and the references mappings hold. */
static void rw_wt_map_refs(struct kunit *test)
{
	u8 token[RW_JOB_TOKEN_LEN];
	struct rw_worker *a, *obs;
	enum rw_engine_buf buf;
	struct rw_job *job, *mj;
	unsigned int before;
	u64 base;

	job = rw_wt_job(test, "kunit-map", RW_SYNC_BSP, token);
	a = rw_worker_new();
	obs = rw_worker_new();
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, obs);
	KUNIT_ASSERT_EQ(test, rw_worker_attach(a, "kunit-map", token, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, rw_worker_map(a, 0, 4096, true, true, &buf, &base,
					    &mj), -ENOTCONN);
	KUNIT_ASSERT_EQ(test, rw_worker_declare(a, rw_wt_desc, 2, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, rw_worker_attach(obs, "kunit-map", token, 0,
					       RW_ATTACH_OBSERVER), 0);

	/* Out of bounds, private gradient, writable parameters. */
	KUNIT_EXPECT_EQ(test, rw_worker_map(a, 4 * 4096, 4096, true, true, &buf,
					    &base, &mj), -EINVAL);
	KUNIT_EXPECT_EQ(test, rw_worker_map(a, 4096, 4 * 4096, true, true, &buf,
					    &base, &mj), -EINVAL);
	KUNIT_EXPECT_EQ(test, rw_worker_map(a, 0, 4096, true, false, &buf,
					    &base, &mj), -EINVAL);
	KUNIT_EXPECT_EQ(test, rw_worker_map(a, RW_MMAP_PARAMS, 4096, true, true,
					    &buf, &base, &mj), -EACCES);
	KUNIT_EXPECT_EQ(test, rw_worker_map(a, RW_MMAP_VERSIONS + PAGE_SIZE,
					    PAGE_SIZE, false, true, &buf, &base,
					    &mj), -EINVAL);
	KUNIT_EXPECT_EQ(test, rw_worker_map(a, 3 * RW_MMAP_PARAMS, 4096, false,
					    true, &buf, &base, &mj), -EINVAL);
	KUNIT_EXPECT_EQ(test, rw_worker_map(obs, 0, 4096, true, true, &buf,
					    &base, &mj), -EACCES);
	KUNIT_EXPECT_EQ(test, atomic_read(&job->mappings), 0);

	/* A good mapping pins the job, past its deletion and the files. */
	before = kref_read(&job->ref);
	KUNIT_ASSERT_EQ(test, rw_worker_map(obs, RW_MMAP_PARAMS + 4096, 4096,
					    false, true, &buf, &base, &mj), 0);
	KUNIT_EXPECT_EQ(test, (int)buf, (int)RW_BUF_PARAMS);
	KUNIT_EXPECT_EQ(test, base, RW_MMAP_PARAMS);
	KUNIT_EXPECT_PTR_EQ(test, mj, job);
	KUNIT_EXPECT_EQ(test, kref_read(&job->ref), before + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&job->mappings), 1);
	KUNIT_EXPECT_NOT_NULL(test, rw_worker_page(obs, RW_BUF_PARAMS, 4096));
	KUNIT_EXPECT_PTR_EQ(test, rw_worker_page(obs, RW_BUF_PARAMS, 4 * 4096),
			    NULL);
	KUNIT_EXPECT_EQ(test, rw_job_del("kunit-map", RW_JOB_DEL_FORCE), 0);
	rw_worker_free(a);
	rw_worker_free(obs);
	KUNIT_EXPECT_PTR_EQ(test, job->engine, NULL);
	/* What the mapping's close does. */
	atomic_dec(&job->mappings);
	KUNIT_EXPECT_EQ(test, kref_read(&job->ref), 2U);
	rw_job_put(mj);
	rw_job_put(job);
}

/* Fill a worker's gradient with one binary32 bit pattern (no FPU here). */
static void rw_wt_fill(struct rw_job *job, u32 rank, u32 v)
{
	u32 c, i, n = rw_engine_nr_chunks(job->engine);

	for (c = 0; c < n; c++) {
		u32 *p = page_address(rw_engine_page(job->engine, RW_BUF_GRAD,
						       rank, c * 4096));

		for (i = 0; i < 4096 / sizeof(u32); i++)
			p[i] = v;
	}
}

/* Two workers, BSP, SGD with lr 0.5: p -= 0.5 * (g0 + g1) / 2. */
static void rw_wt_bsp(struct kunit *test)
{
	u8 token[RW_JOB_TOKEN_LEN];
	struct rw_range r = { 1, 1 };
	struct rw_worker *a, *b;
	struct rw_job *job;
	u32 p[4];
	u64 v;
	int it;

	job = rw_wt_job(test, "kunit-bsp", RW_SYNC_BSP, token);
	a = rw_worker_new();
	b = rw_worker_new();
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, rw_worker_xfer(a, RW_XFER_PUSH, NULL, 0, 0, 0),
			-ENOTCONN);
	KUNIT_ASSERT_EQ(test, rw_worker_attach(a, "kunit-bsp", token, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, rw_worker_attach(b, "kunit-bsp", token, 1, 0), 0);
	KUNIT_ASSERT_EQ(test, rw_worker_declare(a, rw_wt_desc, 2, 0, NULL), 0);
	KUNIT_ASSERT_EQ(test, rw_worker_declare(b, rw_wt_desc, 2, 0, NULL), 0);

	for (it = 1; it <= 3; it++) {
		rw_wt_fill(job, 0, 0x3f800000U);	/* 1.0 */
		rw_wt_fill(job, 1, 0x40400000U);	/* 3.0 */
		KUNIT_ASSERT_EQ(test, rw_worker_xfer(a, RW_XFER_PUSH, &r, 1, 0,
						     0), 0);
		KUNIT_EXPECT_EQ(test, rw_worker_xfer(a, RW_XFER_PUSH, &r, 1, 0,
						     0), -EALREADY);
		KUNIT_ASSERT_EQ(test, rw_worker_xfer(a, RW_XFER_PUSH, NULL, 0,
						     0, 0), -EALREADY);
		r.first = 0;
		r.count = 4;
		KUNIT_ASSERT_EQ(test, rw_worker_xfer(a, RW_XFER_PUSH, &r, 1, 0,
						     0), -EALREADY);
		r.count = 1;
		KUNIT_ASSERT_EQ(test, rw_worker_xfer(a, RW_XFER_PUSH, &r, 1, 0,
						     0), 0);
		r.first = 2;
		r.count = 2;
		KUNIT_ASSERT_EQ(test, rw_worker_xfer(a, RW_XFER_PUSH, &r, 1, 0,
						     0), 0);
		r.first = 1;
		r.count = 1;
		/* b has not pushed: a's pull cannot complete. */
		KUNIT_EXPECT_EQ(test, rw_worker_xfer(a, RW_XFER_PULL, NULL, 0,
						     RW_XFER_NONBLOCK, 0),
				-EAGAIN);
		KUNIT_ASSERT_EQ(test, rw_worker_xfer(b, RW_XFER_BOTH, NULL, 0,
						     0, 0), 0);
		KUNIT_ASSERT_EQ(test, rw_worker_xfer(a, RW_XFER_PULL, NULL, 0,
						     0, 1000), 0);
		v = rw_engine_version(job->engine, 3);
		KUNIT_EXPECT_EQ(test, v, (u64)it);
	}
	memcpy(p, page_address(rw_engine_page(job->engine, RW_BUF_PARAMS, 0,
					      0)), sizeof(p));
	/* Three steps of -0.5 * (1 + 3) / 2 = -1 each. */
	KUNIT_EXPECT_EQ(test, p[0], 0xc0400000U);	/* -3.0 */
	KUNIT_EXPECT_EQ(test, p[3], 0xc0400000U);
	KUNIT_EXPECT_EQ(test, atomic64_read(&job->wc[0].pushes), 9LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&job->wc[0].chunks), 12LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&job->wc[1].bytes), 3LL * 12448);

	/*
	 * A PUSHPULL whose pull part cannot finish has pushed; issued again
	 * it only pulls (no EALREADY, no second gradient in the step).
	 */
	KUNIT_EXPECT_EQ(test, rw_worker_xfer(a, RW_XFER_BOTH, NULL, 0,
					     RW_XFER_NONBLOCK, 0), -EAGAIN);
	KUNIT_EXPECT_EQ(test, rw_worker_xfer(a, RW_XFER_BOTH, NULL, 0,
					     RW_XFER_NONBLOCK, 0), -EAGAIN);
	KUNIT_EXPECT_EQ(test, atomic64_read(&job->wc[0].pushes), 10LL);
	KUNIT_ASSERT_EQ(test, rw_worker_xfer(b, RW_XFER_BOTH, NULL, 0, 0, 0),
			0);
	KUNIT_EXPECT_EQ(test, rw_worker_xfer(a, RW_XFER_BOTH, NULL, 0, 0, 1000),
			0);
	KUNIT_EXPECT_EQ(test, rw_engine_version(job->engine, 0), 4ULL);

	/* Forced deletion: the workers learn it, nothing else breaks. */
	KUNIT_EXPECT_EQ(test, rw_job_del("kunit-bsp", 0), -EBUSY);
	KUNIT_EXPECT_EQ(test, rw_job_del("kunit-bsp", RW_JOB_DEL_FORCE), 0);
	KUNIT_EXPECT_EQ(test, rw_worker_xfer(a, RW_XFER_PULL, NULL, 0, 0, 0),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, job->attached, 0U);
	rw_worker_free(a);
	rw_worker_free(b);
	KUNIT_EXPECT_PTR_EQ(test, job->engine, NULL);
	/*
	 * The run is over; its counts stay with the job (stats count since
	 * creation): 4 iterations of 4 chunks, pushed by both workers.
	 */
	KUNIT_EXPECT_EQ(test, job->past.steps, 16ULL);
	KUNIT_EXPECT_EQ(test, job->past.pushes, 32ULL);
	rw_job_put(job);
}

/* Attribute validation: what the policies alone refuse. */
struct rw_wt_attr {
	const char *desc;
	const struct nla_policy *policy;
	int type;
	u32 len;		/* payload bytes */
	u32 value;
	int ret;
};

static const struct rw_wt_attr rw_wt_attrs[] = {
	{ "workers ok", rw_policy_set_policy, RW_JOB_A_WORKERS, 4, 8, 0 },
	{ "workers 0", rw_policy_set_policy, RW_JOB_A_WORKERS, 4, 0, -ERANGE },
	{ "workers 257", rw_policy_set_policy, RW_JOB_A_WORKERS, 4, 257,
	  -ERANGE },
	{ "workers as u16", rw_policy_set_policy, RW_JOB_A_WORKERS, 2, 8,
	  -EINVAL },
	{ "chunk 1024", rw_policy_set_policy, RW_JOB_A_CHUNK_SIZE, 4, 1024,
	  -ERANGE },
	{ "chunk 2 MiB", rw_policy_set_policy, RW_JOB_A_CHUNK_SIZE, 4,
	  2 << 20, -ERANGE },
	{ "sync 4", rw_policy_set_policy, RW_JOB_A_SYNC, 4, 4, -ERANGE },
	{ "optim average", rw_policy_set_policy, RW_JOB_A_OPTIM, 4,
	  RW_OPTIM_AVERAGE, 0 },
	{ "optim 5", rw_policy_set_policy, RW_JOB_A_OPTIM, 4, 5, -ERANGE },
	{ "staleness 1025", rw_policy_set_policy, RW_JOB_A_STALENESS, 4, 1025,
	  -ERANGE },
	{ "no token in policy set", rw_policy_set_policy, RW_JOB_A_TOKEN, 4, 1,
	  -EINVAL },
	{ "no stats in policy set", rw_policy_set_policy, RW_JOB_A_STATS, 4, 1,
	  -EINVAL },
	{ "token of 4 bytes", rw_job_new_policy, RW_JOB_A_TOKEN, 4, 1,
	  -ERANGE },
	{ "unknown del flag", rw_job_del_policy, RW_JOB_A_FLAGS, 4, 2,
	  -EINVAL },
	{ "force flag", rw_job_del_policy, RW_JOB_A_FLAGS, 4, 1, 0 },
	{ "get takes no workers", rw_job_get_policy, RW_JOB_A_WORKERS, 4, 1,
	  -EINVAL },
	{ "beyond the max", rw_job_get_policy, RW_JOB_A_MAX + 1, 4, 1,
	  -EINVAL },
};

static void rw_wt_policies(struct kunit *test)
{
	struct nlattr *tb[RW_JOB_A_MAX + 1];
	u32 i;

	for (i = 0; i < ARRAY_SIZE(rw_wt_attrs); i++) {
		const struct rw_wt_attr *c = &rw_wt_attrs[i];
		struct sk_buff *skb = alloc_skb(256, GFP_KERNEL);
		int ret;

		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_ASSERT_EQ(test, nla_put(skb, c->type, c->len, &c->value),
				0);
		ret = nla_parse(tb, RW_JOB_A_MAX, (struct nlattr *)skb->data,
				skb->len, c->policy, NULL);
		KUNIT_EXPECT_EQ_MSG(test, ret, c->ret, "%s", c->desc);
		kfree_skb(skb);
	}
}

static struct kunit_case rw_worker_test_cases[] = {
	KUNIT_CASE(rw_wt_select),
	KUNIT_CASE(rw_wt_attach),
	KUNIT_CASE(rw_wt_declare),
	KUNIT_CASE(rw_wt_map_refs),
	KUNIT_CASE(rw_wt_bsp),
	KUNIT_CASE(rw_wt_policies),
	{}
};

static struct kunit_suite rw_worker_test_suite = {
	.name = "rackweave_worker",
	.test_cases = rw_worker_test_cases,
};

kunit_test_suite(rw_worker_test_suite);
