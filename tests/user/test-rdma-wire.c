// SPDX-License-Identifier: GPL-2.0
/*
 * cmocka runner of tests/common/wire_cases.h: the RDMA wire's pure half
 * (kmod/rdma/wire.c) built in user space, every case named when it
 * fails. The KUnit runner is tests/kunit/wire_test.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "common/wire_cases.h"
#include "common/wire_ctl_cases.h"

/* Both tables, each case named when it fails. */
static void wire_tables(void **state)
{
	const char *name = "", *fail;

	(void)state;
	fail = rw_wc_run_tables(&name);
	if (fail)
		fail_msg("%s: %s", name, fail);
}

static void wire_rej(void **state)
{
	const char *fail = rw_wc_rej_run();

	(void)state;
	if (fail)
		fail_msg("%s", fail);
}

static void wire_msgs(void **state)
{
	const char *fail;

	(void)state;
	fail = rw_wc_setup_run();
	if (fail)
		fail_msg("setup broken by %s: not refused", fail);
	fail = rw_wc_reply_run();
	if (fail)
		fail_msg("reply broken by %s: not refused", fail);
	fail = rw_wc_replies_run();
	if (fail)
		fail_msg("an attachment's replies: %s", fail);
	fail = rw_wc_request_run();
	if (fail)
		fail_msg("request broken by %s: not refused", fail);
	fail = rw_wc_answer_run();
	if (fail)
		fail_msg("%s", fail);
	fail = rw_wc_notice_run();
	if (fail)
		fail_msg("notice broken by %s: not refused", fail);
	fail = rw_wc_gift_run();
	if (fail)
		fail_msg("gift broken by %s: not refused", fail);
}

static void wire_assign(void **state)
{
	const char *fail = rw_wc_assign_run();

	(void)state;
	if (fail)
		fail_msg("chunk -> connection: %s", fail);
}

static void wire_layout(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct rw_wire_req), RW_WIRE_REQ_SIZE);
	assert_int_equal(offsetof(struct rw_wire_req, auth), 40);
	assert_int_equal(sizeof(struct rw_wire_rej), RW_WIRE_REJ_SIZE);
	assert_int_equal(RW_IMM(RW_IMM_PARAMS, 0xab, 0x12345), 0x2ab12345U);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wire_tables),
		cmocka_unit_test(wire_rej),
		cmocka_unit_test(wire_msgs),
		cmocka_unit_test(wire_assign),
		cmocka_unit_test(wire_layout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
