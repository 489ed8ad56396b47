// SPDX-License-Identifier: GPL-2.0
/*
 * Memory limits: the max_memory parameter's values, charges against a
 * job's limit and the box's budget (EDQUOT, ENOSPC, nothing changed on a
 * refusal), the engine's footprint against what the engine allocates, and
 * a declare over the job's limit refused before any engine exists.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include <linux/string.h>

#include "rw.h"
#include "engine/engine.h"
#include "job.h"
#include "mem.h"
#include "worker.h"

struct rw_mem_case {
	const char *val;
	int ret;
	u64 out;
};

static const struct rw_mem_case rw_mem_cases[] = {
	{ "0",		0,	0 },
	{ "4096",	0,	4096 },
	{ "512M",	0,	512ULL << 20 },
	{ "1G\n",	0,	1ULL << 30 },
	{ "64k",	0,	64ULL << 10 },
	{ "",		-EINVAL, 0 },
	{ "\n",		-EINVAL, 0 },
	{ "-1",		-EINVAL, 0 },
	{ "many",	-EINVAL, 0 },
	{ "12Q",	-EINVAL, 0 },
	{ "1G 2G",	-EINVAL, 0 },
	{ "1024T",	-ERANGE, 0 },		/* more than the machine has */
};

static void rw_mem_case_desc(const struct rw_mem_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", c->val);
}

KUNIT_ARRAY_PARAM(rw_mem, rw_mem_cases, rw_mem_case_desc);

static void rw_mem_parse_test(struct kunit *test)
{
	const struct rw_mem_case *c = test->param_value;
	u64 out = 0xdeadbeef;

	KUNIT_EXPECT_EQ(test, rw_mem_parse(c->val, &out), c->ret);
	KUNIT_EXPECT_EQ(test, out, c->ret ? 0xdeadbeefULL : c->out);
}

/* A job's limit: up to it is taken, a byte more is EDQUOT, nothing kept. */
static void rw_mem_job_limit_test(struct kunit *test)
{
	u64 used = rw_mem_used(), held = 0, lim = 1 << 20;

	KUNIT_EXPECT_EQ(test, rw_mem_job_limit(lim), lim);
	KUNIT_EXPECT_EQ(test, rw_mem_job_limit(0), rw_mem_budget() / 2);
	KUNIT_ASSERT_EQ(test, rw_mem_charge("kunit", lim, &held, lim / 2), 0);
	KUNIT_EXPECT_EQ(test, held, lim / 2);
	KUNIT_EXPECT_EQ(test, rw_mem_used(), used + lim / 2);
	KUNIT_EXPECT_EQ(test, rw_mem_charge("kunit", lim, &held, lim / 2 + 1),
			-EDQUOT);
	KUNIT_EXPECT_EQ(test, held, lim / 2);
	KUNIT_EXPECT_EQ(test, rw_mem_used(), used + lim / 2);
	KUNIT_EXPECT_EQ(test, rw_mem_charge("kunit", lim, &held, lim / 2), 0);
	KUNIT_EXPECT_EQ(test, held, lim);
	rw_mem_uncharge(&held, lim / 2);
	rw_mem_uncharge(&held, lim / 2);
	KUNIT_EXPECT_EQ(test, held, 0ULL);
	KUNIT_EXPECT_EQ(test, rw_mem_used(), used);
	/* A size that would wrap around is over the limit, not under it. */
	held = 1;
	KUNIT_EXPECT_EQ(test, rw_mem_charge("kunit", U64_MAX, &held, U64_MAX),
			-EDQUOT);
	KUNIT_EXPECT_EQ(test, rw_mem_used(), used);
}

/* The box's budget: what is left of it can be taken, one byte more not. */
static void rw_mem_budget_test(struct kunit *test)
{
	u64 used = rw_mem_used(), budget = rw_mem_budget(), held = 0;

	KUNIT_ASSERT_GE(test, budget, used);
	KUNIT_EXPECT_EQ(test, rw_mem_charge("kunit", U64_MAX, &held,
					    budget - used + 1), -ENOSPC);
	KUNIT_EXPECT_EQ(test, held, 0ULL);
	KUNIT_EXPECT_EQ(test, rw_mem_used(), used);
	KUNIT_ASSERT_EQ(test, rw_mem_charge("kunit", U64_MAX, &held,
					    budget - used), 0);
	KUNIT_EXPECT_EQ(test, rw_mem_used(), budget);
	KUNIT_EXPECT_EQ(test, rw_mem_charge("kunit", U64_MAX, &held, 1),
			-ENOSPC);
	rw_mem_uncharge(&held, budget - used);
	KUNIT_EXPECT_EQ(test, rw_mem_used(), used);
}

/* 1,000,000 f32 in 32 KiB chunks: 123 chunks. */
static const struct rw_layout_tensor rw_mt_tensors[] = {
	{ .key = 7, .nelems = 1000000, .dtype = RW_DTYPE_F32 },
};

static void rw_mt_config(struct rw_engine_config *c, u32 workers, u32 optim)
{
	memset(c, 0, sizeof(*c));
	c->name = "kunit-mem";
	c->tensors = rw_mt_tensors;
	c->nr_tensors = 1;
	c->chunk_size = 32768;
	c->nr_workers = workers;
	c->hp.optim = optim;
}

/*
 * The footprint covers the arenas (parameters, state, one slot per
 * worker) and stays within a few percent of them; state arrays and
 * workers each add their chunks' worth.
 */
static void rw_mem_footprint_test(struct kunit *test)
{
	struct rw_engine_config c;
	u64 sgd2, sgd4, adam2, arenas = 123ULL * 32768;

	rw_mt_config(&c, 2, RW_AGG_SGD);
	KUNIT_ASSERT_EQ(test, rw_engine_footprint(&c, &sgd2), 0);
	rw_mt_config(&c, 4, RW_AGG_SGD);
	KUNIT_ASSERT_EQ(test, rw_engine_footprint(&c, &sgd4), 0);
	rw_mt_config(&c, 2, RW_AGG_ADAM);
	KUNIT_ASSERT_EQ(test, rw_engine_footprint(&c, &adam2), 0);

	KUNIT_EXPECT_GE(test, sgd2, 3 * arenas);
	KUNIT_EXPECT_LE(test, sgd2, 3 * arenas + 3 * arenas / 20);
	KUNIT_EXPECT_GE(test, sgd4 - sgd2, 2 * arenas);
	KUNIT_EXPECT_LE(test, sgd4 - sgd2, 2 * arenas + 2 * arenas / 10);
	KUNIT_EXPECT_GE(test, adam2 - sgd2, 2 * arenas);
	KUNIT_EXPECT_LE(test, adam2 - sgd2, 2 * arenas + 2 * arenas / 100);

	c.nr_tensors = 0;
	KUNIT_EXPECT_EQ(test, rw_engine_footprint(&c, &sgd2), -EINVAL);
}

static void rw_mt_job(struct kunit *test, const char *name, u64 max_memory,
		      u8 *token, struct rw_job **job)
{
	struct rw_job_config c = {
		.workers = 2, .chunk_size = 32768, .sync = RW_SYNC_BSP,
		.optim = RW_OPTIM_SGD, .lr = 0x3c23d70aU,
		.max_memory = max_memory,
	};
	const char *msg;

	strscpy(c.name, name, sizeof(c.name));
	KUNIT_ASSERT_EQ(test, rw_job_new(&c, &msg, token, job), 0);
}

/*
 * A declare over the job's limit is refused before anything is built;
 * under it the run holds its footprint, given back when the run ends.
 */
static void rw_mem_declare_test(struct kunit *test)
{
	const struct rw_tensor_desc t = {
		.key = 7, .nelems = 1000000, .dtype = RW_DTYPE_F32,
	};
	u8 token[RW_JOB_TOKEN_LEN];
	struct rw_engine_config c;
	struct rw_job *small, *big;
	struct rw_worker *a, *b;
	u64 need, used = rw_mem_used();

	rw_mt_config(&c, 2, RW_AGG_SGD);
	KUNIT_ASSERT_EQ(test, rw_engine_footprint(&c, &need), 0);

	rw_mt_job(test, "kunit-mem-small", need - 1, token, &small);
	a = rw_worker_new();
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_EQ(test, rw_worker_attach(a, "kunit-mem-small", token, 0,
					       0), 0);
	KUNIT_EXPECT_EQ(test, rw_worker_declare(a, &t, 1, 0, NULL), -EDQUOT);
	KUNIT_EXPECT_PTR_EQ(test, small->engine, NULL);
	KUNIT_EXPECT_EQ(test, small->mem_held, 0ULL);
	KUNIT_EXPECT_EQ(test, rw_mem_used(), used);
	rw_worker_free(a);

	rw_mt_job(test, "kunit-mem-big", need, token, &big);
	b = rw_worker_new();
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_EQ(test, rw_worker_attach(b, "kunit-mem-big", token, 0, 0),
			0);
	KUNIT_EXPECT_EQ(test, rw_worker_declare(b, &t, 1, 0, NULL), 0);
	KUNIT_EXPECT_NOT_NULL(test, big->engine);
	KUNIT_EXPECT_EQ(test, big->mem_held, need);
	KUNIT_EXPECT_EQ(test, rw_mem_used(), used + need);
	rw_worker_free(b);
	KUNIT_EXPECT_PTR_EQ(test, big->engine, NULL);
	KUNIT_EXPECT_EQ(test, big->mem_held, 0ULL);
	KUNIT_EXPECT_EQ(test, rw_mem_used(), used);

	KUNIT_EXPECT_EQ(test, rw_job_del("kunit-mem-small", 0), 0);
	KUNIT_EXPECT_EQ(test, rw_job_del("kunit-mem-big", 0), 0);
	rw_job_put(small);
	rw_job_put(big);
}

static struct kunit_case rw_mem_test_cases[] = {
	KUNIT_CASE_PARAM(rw_mem_parse_test, rw_mem_gen_params),
	KUNIT_CASE(rw_mem_job_limit_test),
	KUNIT_CASE(rw_mem_budget_test),
	KUNIT_CASE(rw_mem_footprint_test),
	KUNIT_CASE(rw_mem_declare_test),
	{}
};

static struct kunit_suite rw_mem_test_suite = {
	.name = "rackweave_mem",
	.test_cases = rw_mem_test_cases,
};

kunit_test_suite(rw_mem_test_suite);
