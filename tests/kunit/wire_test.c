// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite rackweave_wire: the RDMA wire's pure half in the module, on
 * the tables of tests/common/wire_cases.h (the cmocka runner is
 * tests/user/test-rdma-wire.c).
 */
#include <kunit/test.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "../common/wire_cases.h"
#include "../common/wire_ctl_cases.h"

static void rw_wc_imm_desc(const struct rw_wc_imm *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static void rw_wc_req_desc(const struct rw_wc_req *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rw_wc_imm, rw_wc_imms, rw_wc_imm_desc);
KUNIT_ARRAY_PARAM(rw_wc_req, rw_wc_reqs, rw_wc_req_desc);

static void rw_wire_imm_test(struct kunit *test)
{
	const struct rw_wc_imm *c = test->param_value;
	const char *fail = rw_wc_imm_run(c);

	KUNIT_EXPECT_NULL_MSG(test, fail, "%s: %s", c->name, fail);
}

static void rw_wire_req_test(struct kunit *test)
{
	const struct rw_wc_req *c = test->param_value;
	const char *fail = rw_wc_req_run(c);

	KUNIT_EXPECT_NULL_MSG(test, fail, "%s: %s", c->name, fail);
}

static void rw_wire_rej_test(struct kunit *test)
{
	const char *fail = rw_wc_rej_run();

	KUNIT_EXPECT_NULL_MSG(test, fail, "%s", fail);
}

static void rw_wire_msg_test(struct kunit *test)
{
	const char *fail = rw_wc_setup_run();

	KUNIT_EXPECT_NULL_MSG(test, fail, "setup broken by %s", fail);
	fail = rw_wc_reply_run();
	KUNIT_EXPECT_NULL_MSG(test, fail, "reply broken by %s", fail);
	fail = rw_wc_replies_run();
	KUNIT_EXPECT_NULL_MSG(test, fail, "an attachment's replies: %s", fail);
	fail = rw_wc_request_run();
	KUNIT_EXPECT_NULL_MSG(test, fail, "request broken by %s", fail);
	fail = rw_wc_answer_run();
	KUNIT_EXPECT_NULL_MSG(test, fail, "%s", fail);
	fail = rw_wc_notice_run();
	KUNIT_EXPECT_NULL_MSG(test, fail, "notice broken by %s", fail);
	fail = rw_wc_gift_run();
	KUNIT_EXPECT_NULL_MSG(test, fail, "gift broken by %s", fail);
}

static void rw_wire_assign_test(struct kunit *test)
{
	const char *fail = rw_wc_assign_run();

	KUNIT_EXPECT_NULL_MSG(test, fail, "%s", fail);
}

static void rw_wire_layout_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct rw_wire_req), RW_WIRE_REQ_SIZE);
	KUNIT_EXPECT_EQ(test, offsetof(struct rw_wire_req, nic), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct rw_wire_req, job_tag), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct rw_wire_setup_reply, nic), 52);
	KUNIT_EXPECT_EQ(test, offsetof(struct rw_wire_req, auth), 40);
	KUNIT_EXPECT_EQ(test, sizeof(struct rw_wire_rej), RW_WIRE_REJ_SIZE);
	/* On the wire and in peers already built: never renumbered. */
	KUNIT_EXPECT_EQ(test, RW_IMM_PUSH, 1);
	KUNIT_EXPECT_EQ(test, RW_IMM_PARAMS, 2);
	KUNIT_EXPECT_EQ(test, RW_WIRE_MAGIC, 0x31575752U);
}

static struct kunit_case rw_wire_test_cases[] = {
	KUNIT_CASE_PARAM(rw_wire_imm_test, rw_wc_imm_gen_params),
	KUNIT_CASE_PARAM(rw_wire_req_test, rw_wc_req_gen_params),
	KUNIT_CASE(rw_wire_rej_test),
	KUNIT_CASE(rw_wire_msg_test),
	KUNIT_CASE(rw_wire_assign_test),
	KUNIT_CASE(rw_wire_layout_test),
	{}
};

static struct kunit_suite rw_wire_test_suite = {
	.name = "rackweave_wire",
	.test_cases = rw_wire_test_cases,
};

kunit_test_suite(rw_wire_test_suite);
