// SPDX-License-Identifier: GPL-2.0
/*
 * cmocka tests of kmod/rdma/replay.c built in user space: the clock window
 * of connect requests, replayed nonces, a full cache and slots freed when
 * their time leaves the window.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rdma/replay.h"

#define NOW	1795000000LL
#define SKEW	300

static void replay_window(void **state)
{
	struct rw_replay r;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(rw_replay_check(&r, 1, NOW + SKEW + 1, NOW, SKEW),
			 -ETIMEDOUT);
	assert_int_equal(rw_replay_check(&r, 2, NOW - SKEW - 1, NOW, SKEW),
			 -ETIMEDOUT);
	/* Refused requests leave nothing: both nonces are still new. */
	assert_int_equal(rw_replay_check(&r, 1, NOW + SKEW, NOW, SKEW), 0);
	assert_int_equal(rw_replay_check(&r, 2, NOW - SKEW, NOW, SKEW), 0);
	assert_int_equal(rw_replay_check(&r, 3, NOW, NOW, SKEW), 0);
}

static void replay_nonce(void **state)
{
	struct rw_replay r;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(rw_replay_check(&r, 42, NOW, NOW, SKEW), 0);
	/* Another time does not make an old nonce new while it is remembered. */
	assert_int_equal(rw_replay_check(&r, 42, NOW + 10, NOW + 5, SKEW),
			 -ETIMEDOUT);
	assert_int_equal(rw_replay_check(&r, 42, NOW + SKEW, NOW + SKEW, SKEW),
			 -ETIMEDOUT);
	/*
	 * Its slot is kept until its time leaves the window: one second
	 * later, a request with its time would be refused for the clock.
	 */
	assert_int_equal(rw_replay_check(&r, 42, NOW + 1, NOW + SKEW + 1, SKEW),
			 0);
}

static void replay_full(void **state)
{
	struct rw_replay r;
	uint64_t n;

	(void)state;
	memset(&r, 0, sizeof(r));
	for (n = 0; n < RW_REPLAY_SLOTS; n++)
		assert_int_equal(rw_replay_check(&r, 1000 + n, NOW, NOW, SKEW),
				 0);
	assert_int_equal(rw_replay_check(&r, 7, NOW, NOW, SKEW), -EBUSY);
	/* Every remembered nonce is still refused, not forgotten. */
	for (n = 0; n < RW_REPLAY_SLOTS; n++)
		assert_int_equal(rw_replay_check(&r, 1000 + n, NOW, NOW, SKEW),
				 -ETIMEDOUT);
	/* Once their times leave the window the slots are free again. */
	assert_int_equal(rw_replay_check(&r, 7, NOW + SKEW + 1, NOW + SKEW + 1,
					 SKEW), 0);
	assert_int_equal(rw_replay_check(&r, 8, NOW + SKEW + 1, NOW + SKEW + 1,
					 SKEW), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(replay_window),
		cmocka_unit_test(replay_nonce),
		cmocka_unit_test(replay_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
