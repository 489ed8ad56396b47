// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameter validation: every value a user might type on the
 * modprobe command line, and what the module must do with it.
 */
#include <kunit/test.h>

#include "rw.h"
#include "params.h"

struct rw_param_case {
	const char *val;
	int ret;
	unsigned int out;
};

static const struct rw_param_case rw_chunk_size_cases[] = {
	{ "4096",	0,	4096 },
	{ "32768",	0,	32768 },
	{ "0x100000",	0,	1048576 },
	{ "65536\n",	0,	65536 },
	{ "2048",	-EINVAL, 0 },		/* below the minimum */
	{ "2097152",	-EINVAL, 0 },		/* above the maximum */
	{ "12288",	-EINVAL, 0 },		/* not a power of two */
	{ "0",		-EINVAL, 0 },
	{ "-4096",	-EINVAL, 0 },
	{ "",		-EINVAL, 0 },
	{ "32k",	-EINVAL, 0 },
	{ "99999999999999999999", -EINVAL, 0 },	/* overflows */
};

static const struct rw_param_case rw_max_jobs_cases[] = {
	{ "1",		0,	1 },
	{ "64",		0,	64 },
	{ "1024",	0,	1024 },
	{ "0",		-EINVAL, 0 },
	{ "1025",	-EINVAL, 0 },
	{ "-1",		-EINVAL, 0 },
	{ "many",	-EINVAL, 0 },
};

static const struct rw_param_case rw_push_window_cases[] = {
	{ "0",		0,	0 },		/* no window: the box's receives */
	{ "8",		0,	8 },
	{ "1048576",	0,	1048576 },
	{ "1048577",	-EINVAL, 0 },
	{ "-8",		-EINVAL, 0 },
	{ "8k",		-EINVAL, 0 },
	{ "",		-EINVAL, 0 },
};

static void rw_param_case_desc(const struct rw_param_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", c->val);
}

KUNIT_ARRAY_PARAM(rw_chunk_size, rw_chunk_size_cases, rw_param_case_desc);
KUNIT_ARRAY_PARAM(rw_max_jobs, rw_max_jobs_cases, rw_param_case_desc);
KUNIT_ARRAY_PARAM(rw_push_window, rw_push_window_cases, rw_param_case_desc);

/* A rejected value must leave the destination untouched. */
#define RW_SENTINEL 0xdeadbeefU

static void rw_params_chunk_size_test(struct kunit *test)
{
	const struct rw_param_case *c = test->param_value;
	unsigned int out = RW_SENTINEL;

	KUNIT_EXPECT_EQ(test, rw_params_parse_chunk_size(c->val, &out), c->ret);
	KUNIT_EXPECT_EQ(test, out, c->ret ? RW_SENTINEL : c->out);
}

static void rw_params_max_jobs_test(struct kunit *test)
{
	const struct rw_param_case *c = test->param_value;
	unsigned int out = RW_SENTINEL;

	KUNIT_EXPECT_EQ(test, rw_params_parse_max_jobs(c->val, &out), c->ret);
	KUNIT_EXPECT_EQ(test, out, c->ret ? RW_SENTINEL : c->out);
}

static void rw_params_push_window_test(struct kunit *test)
{
	const struct rw_param_case *c = test->param_value;
	unsigned int out = RW_SENTINEL;

	KUNIT_EXPECT_EQ(test, rw_params_parse_push_window(c->val, &out), c->ret);
	KUNIT_EXPECT_EQ(test, out, c->ret ? RW_SENTINEL : c->out);
}

/* The loaded module runs with values that pass its own checks. */
static void rw_params_loaded_values_test(struct kunit *test)
{
	unsigned int cs = rw_params_chunk_size(), mj = rw_params_max_jobs();
	char buf[16];
	unsigned int out;

	snprintf(buf, sizeof(buf), "%u", cs);
	KUNIT_EXPECT_EQ(test, rw_params_parse_chunk_size(buf, &out), 0);
	snprintf(buf, sizeof(buf), "%u", mj);
	KUNIT_EXPECT_EQ(test, rw_params_parse_max_jobs(buf, &out), 0);
}

static struct kunit_case rw_params_test_cases[] = {
	KUNIT_CASE_PARAM(rw_params_chunk_size_test, rw_chunk_size_gen_params),
	KUNIT_CASE_PARAM(rw_params_max_jobs_test, rw_max_jobs_gen_params),
	KUNIT_CASE_PARAM(rw_params_push_window_test, rw_push_window_gen_params),
	KUNIT_CASE(rw_params_loaded_values_test),
	{}
};

static struct kunit_suite rw_params_test_suite = {
	.name = "rackweave_params",
	.test_cases = rw_params_test_cases,
};

kunit_test_suite(rw_params_test_suite);
