// SPDX-License-Identifier: GPL-2.0
/*
 * Jobs: configuration checks, the registry (names unique, deleted jobs
 * gone, references outliving deletion) and the token compare.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "rw.h"
#include "job.h"
#include "chunk/boxset.h"

#define RW_JT_LR	0x3c23d70aU	/* 0.01 */
#define RW_JT_HALF	0x3f000000U	/* 0.5 */
#define RW_JT_ONE	0x3f800000U	/* 1.0 */
#define RW_JT_NAN	0x7fc00000U

static void rw_jt_config(struct rw_job_config *c, const char *name)
{
	memset(c, 0, sizeof(*c));
	strscpy(c->name, name, sizeof(c->name));
	c->workers = 4;
	c->sync = RW_SYNC_BSP;
	c->optim = RW_OPTIM_MOMENTUM;
	c->lr = RW_JT_LR;
	c->momentum = RW_JT_HALF;
	c->beta1 = RW_JT_HALF;
	c->beta2 = RW_JT_HALF;
	c->eps = RW_JT_LR;
}

struct rw_jt_case {
	const char *desc;
	void (*edit)(struct rw_job_config *c);
	int ret;
};

static void rw_jt_ok(struct rw_job_config *c)
{
}

static void rw_jt_empty_name(struct rw_job_config *c)
{
	c->name[0] = '\0';
}

static void rw_jt_bad_char(struct rw_job_config *c)
{
	strscpy(c->name, "a b", 4);
}

static void rw_jt_slash(struct rw_job_config *c)
{
	strscpy(c->name, "../x", 5);
}

static void rw_jt_no_workers(struct rw_job_config *c)
{
	c->workers = 0;
}

static void rw_jt_many_workers(struct rw_job_config *c)
{
	c->workers = 257;
}

static void rw_jt_chunk_odd(struct rw_job_config *c)
{
	c->chunk_size = 12288;
}

static void rw_jt_chunk_big(struct rw_job_config *c)
{
	c->chunk_size = 1 << 21;
}

static void rw_jt_chunk_ok(struct rw_job_config *c)
{
	c->chunk_size = 65536;
}

static void rw_jt_sync_bad(struct rw_job_config *c)
{
	c->sync = 9;
}

static void rw_jt_ssp_zero(struct rw_job_config *c)
{
	c->sync = RW_SYNC_SSP;
}

static void rw_jt_ssp_ok(struct rw_job_config *c)
{
	c->sync = RW_SYNC_SSP;
	c->staleness = 3;
}

static void rw_jt_band_inverted(struct rw_job_config *c)
{
	c->sync = RW_SYNC_ADAPTIVE;
	c->staleness_lo = 15;
	c->staleness_hi = 3;
}

static void rw_jt_band_ok(struct rw_job_config *c)
{
	c->sync = RW_SYNC_ADAPTIVE;
	c->staleness_lo = 3;
	c->staleness_hi = 15;
}

static void rw_jt_optim_bad(struct rw_job_config *c)
{
	c->optim = 7;
}

static void rw_jt_lr_nan(struct rw_job_config *c)
{
	c->lr = RW_JT_NAN;
}

static void rw_jt_mom_one(struct rw_job_config *c)
{
	c->momentum = RW_JT_ONE;
}

static const struct rw_jt_case rw_jt_cases[] = {
	{ "defaults", rw_jt_ok, 0 },
	{ "empty name", rw_jt_empty_name, -EINVAL },
	{ "space in name", rw_jt_bad_char, -EINVAL },
	{ "slash in name", rw_jt_slash, -EINVAL },
	{ "no workers", rw_jt_no_workers, -EINVAL },
	{ "257 workers", rw_jt_many_workers, -EINVAL },
	{ "chunk not a power of two", rw_jt_chunk_odd, -EINVAL },
	{ "chunk above 1 MiB", rw_jt_chunk_big, -EINVAL },
	{ "chunk 64 KiB", rw_jt_chunk_ok, 0 },
	{ "unknown sync mode", rw_jt_sync_bad, -EINVAL },
	{ "SSP without a bound", rw_jt_ssp_zero, -EINVAL },
	{ "SSP 3", rw_jt_ssp_ok, 0 },
	{ "adaptive band inverted", rw_jt_band_inverted, -EINVAL },
	{ "adaptive 3..15", rw_jt_band_ok, 0 },
	{ "unknown optimizer", rw_jt_optim_bad, -EINVAL },
	{ "NaN learning rate", rw_jt_lr_nan, -EINVAL },
	{ "momentum 1.0", rw_jt_mom_one, -EINVAL },
};

static void rw_jt_desc(const struct rw_jt_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rw_jt, rw_jt_cases, rw_jt_desc);

static void rw_job_config_test(struct kunit *test)
{
	const struct rw_jt_case *tc = test->param_value;
	struct rw_job_config c;
	const char *msg;

	rw_jt_config(&c, "kunit-job");
	tc->edit(&c);
	KUNIT_EXPECT_EQ(test, rw_job_check_config(&c, &msg), tc->ret);
	/* A refusal always says why. */
	KUNIT_EXPECT_EQ(test, !msg, !tc->ret);
}

static void rw_job_registry_test(struct kunit *test)
{
	u8 token[RW_JOB_TOKEN_LEN], other[RW_JOB_TOKEN_LEN];
	struct rw_job *a, *b, *dup, *held;
	struct rw_job_config c;
	const char *msg;

	rw_jt_config(&c, "kunit-a");
	KUNIT_ASSERT_EQ(test, rw_job_new(&c, &msg, token, &a), 0);
	/* Generated token: not all zero, and it opens the job. */
	KUNIT_EXPECT_TRUE(test, memchr_inv(token, 0, sizeof(token)));
	KUNIT_EXPECT_TRUE(test, rw_job_token_ok(a, token));
	memcpy(other, token, sizeof(other));
	other[RW_JOB_TOKEN_LEN - 1] ^= 1;
	KUNIT_EXPECT_FALSE(test, rw_job_token_ok(a, other));
	KUNIT_EXPECT_EQ(test, rw_job_token_check(a, token), 0);
	KUNIT_EXPECT_EQ(test, rw_job_token_check(a, other), -EACCES);

	/* Same name twice: refused, the first is untouched. */
	KUNIT_EXPECT_EQ(test, rw_job_new(&c, &msg, other, &dup), -EEXIST);
	KUNIT_EXPECT_TRUE(test, rw_job_token_ok(a, token));

	/* A given token is used as is. */
	rw_jt_config(&c, "kunit-b");
	c.has_token = true;
	memset(c.token, 0xab, sizeof(c.token));
	KUNIT_ASSERT_EQ(test, rw_job_new(&c, &msg, other, &b), 0);
	KUNIT_EXPECT_EQ(test, memcmp(other, c.token, sizeof(other)), 0);
	KUNIT_EXPECT_TRUE(test, rw_job_token_ok(b, c.token));
	KUNIT_EXPECT_NE(test, a->id, b->id);

	/* Lookups take references; deletion wipes the token at once. */
	held = rw_job_get("kunit-a");
	KUNIT_EXPECT_PTR_EQ(test, held, a);
	KUNIT_EXPECT_EQ(test, rw_job_del("kunit-a", 0), 0);
	KUNIT_EXPECT_NULL(test, rw_job_get("kunit-a"));
	KUNIT_EXPECT_FALSE(test, rw_job_token_ok(held, token));
	/*
	 * An attach that looked the job up before the deletion: gone, not a
	 * wrong token (the storm's attach got EACCES in a forced deletion).
	 */
	KUNIT_EXPECT_EQ(test, rw_job_token_check(held, token), -ENOENT);
	KUNIT_EXPECT_EQ(test, rw_job_del("kunit-a", 0), -ENOENT);
	KUNIT_EXPECT_EQ(test, rw_job_del("kunit-b", 2), -EINVAL);
	rw_job_put(held);
	rw_job_put(a);

	KUNIT_EXPECT_EQ(test, rw_job_del("kunit-b", RW_JOB_DEL_FORCE), 0);
	rw_job_put(b);
}

/* Boxes 1..@n at 10.0.0.id, epoch @epoch, this box @self. */
static void rw_jt_set(struct rw_boxset *s, u32 n, u32 epoch, u32 self)
{
	u32 i;

	memset(s, 0, sizeof(*s));
	s->nr = n;
	s->epoch = epoch;
	s->self = self;
	for (i = 0; i < n; i++) {
		s->box[i].id = i + 1;
		s->box[i].family = RW_BOX_AF_INET;
		s->box[i].addr[0] = 10;
		s->box[i].addr[3] = i + 1;
	}
}

/* policy set of a set: 0 or the errno; *@msg its words. */
static int rw_jt_move(const char *name, struct rw_boxset *s,
		      const char **msg)
{
	struct rw_job_config c = { .boxes = s };

	return rw_job_set_policy(name, &c, RW_JOB_SET_BOXES, msg);
}

/*
 * A set given while a run is active is the job's move, checked against
 * the job's set, one at a time, taken when the run ends; a box that leaves
 * keeps the set without itself.
 */
static void rw_job_move_test(struct kunit *test)
{
	struct rw_boxset *set, *to, *got;
	struct rw_job_config c;
	const char *msg = NULL;
	u8 token[RW_JOB_TOKEN_LEN];
	struct rw_job *job;

	set = kunit_kzalloc(test, sizeof(*set), GFP_KERNEL);
	to = kunit_kzalloc(test, sizeof(*to), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, set);
	KUNIT_ASSERT_NOT_NULL(test, to);
	rw_jt_set(set, 3, 4, 2);
	rw_jt_config(&c, "kunit-move");
	c.boxes = set;
	KUNIT_ASSERT_EQ(test, rw_job_new(&c, &msg, token, &job), 0);
	/* A run: an observer holds it (no rank). */
	KUNIT_ASSERT_EQ(test, rw_job_take_rank(job, 0, NULL, true), 0);

	rw_jt_set(to, 4, 6, 2);
	KUNIT_EXPECT_EQ(test, rw_jt_move("kunit-move", to, &msg), -EINVAL);
	KUNIT_EXPECT_STREQ(test, msg, "a move's set has the epoch after the job's");
	rw_jt_set(to, 4, 0, 1);
	KUNIT_EXPECT_EQ(test, rw_jt_move("kunit-move", to, &msg), -EINVAL);
	KUNIT_EXPECT_STREQ(test, msg, "in a move, this box's id is its id in the job's set");
	KUNIT_EXPECT_EQ(test, rw_jt_move("kunit-move", NULL, &msg), -EBUSY);
	KUNIT_EXPECT_STREQ(test, msg, "a job's box set is removed between runs");
	got = rw_job_boxes_copy(job, true);
	KUNIT_EXPECT_NULL(test, got);

	/* Box 2 leaves: its epoch the next by default, its self 0. */
	rw_jt_set(to, 4, 0, 2);
	to->box[1].id = 9;
	KUNIT_EXPECT_EQ(test, rw_jt_move("kunit-move", to, &msg), 0);
	got = rw_job_boxes_copy(job, true);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, got);
	KUNIT_EXPECT_EQ(test, got->epoch, 5U);
	KUNIT_EXPECT_EQ(test, got->self, 0U);
	KUNIT_EXPECT_EQ(test, got->nr, 4U);
	kfree(got);
	rw_jt_set(to, 3, 0, 2);
	KUNIT_EXPECT_EQ(test, rw_jt_move("kunit-move", to, &msg), -EBUSY);
	KUNIT_EXPECT_STREQ(test, msg, "the job is moving to another box set already");
	/* The job's set holds until the run ends. */
	got = rw_job_boxes_copy(job, false);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, got);
	KUNIT_EXPECT_EQ(test, got->epoch, 4U);
	kfree(got);

	rw_job_release_user(job);
	got = rw_job_boxes_copy(job, false);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, got);
	KUNIT_EXPECT_EQ(test, got->epoch, 5U);
	KUNIT_EXPECT_EQ(test, got->self, 0U);
	KUNIT_EXPECT_EQ(test, got->box[1].id, 9U);
	kfree(got);
	KUNIT_EXPECT_NULL(test, rw_job_boxes_copy(job, true));
	/* Between runs a set must hold this box again. */
	rw_jt_set(to, 3, 0, 7);
	KUNIT_EXPECT_EQ(test, rw_jt_move("kunit-move", to, &msg), -EINVAL);
	KUNIT_EXPECT_EQ(test, rw_job_del("kunit-move", 0), 0);
	rw_job_put(job);
}

static struct kunit_case rw_job_test_cases[] = {
	KUNIT_CASE_PARAM(rw_job_config_test, rw_jt_gen_params),
	KUNIT_CASE(rw_job_registry_test),
	KUNIT_CASE(rw_job_move_test),
	{}
};

static struct kunit_suite rw_job_test_suite = {
	.name = "rackweave_job",
	.test_cases = rw_job_test_cases,
};

kunit_test_suite(rw_job_test_suite);
