// SPDX-License-Identifier: GPL-2.0
/*
 * A job's box set (kmod/chunk/boxset.c): the cases of
 * tests/common/boxset_cases.h, which KUnit runs too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "chunktest.h"
#include "boxset_cases.h"

static void boxset_refusals(void **state)
{
	(void)state;
	assert_null(rw_bc_refusals());
}

static void boxset_digest(void **state)
{
	(void)state;
	assert_null(rw_bc_digest());
}

static void boxset_owners(void **state)
{
	(void)state;
	assert_null(rw_bc_owners());
}

static void boxset_known(void **state)
{
	const char *fail;
	u64 digest = 0, seed = 0;

	(void)state;
	fail = rw_bc_known(&digest, &seed);
	print_message("# known digest 0x%016llx, seed of resnet50 0x%016llx\n",
		      (unsigned long long)digest, (unsigned long long)seed);
	assert_null(fail);
}

static void boxset_move_check(void **state)
{
	(void)state;
	assert_null(rw_bc_move_check());
}

static void boxset_moves(void **state)
{
	u32 added = 0, drained = 0;
	const char *fail;

	(void)state;
	fail = rw_bc_moves(&added, &drained);
	print_message("# 4096 chunks moved: %u when a fourth box joined three, %u when one of four left\n",
		      added, drained);
	assert_null(fail);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(boxset_refusals),
		cmocka_unit_test(boxset_digest),
		cmocka_unit_test(boxset_owners),
		cmocka_unit_test(boxset_known),
		cmocka_unit_test(boxset_move_check),
		cmocka_unit_test(boxset_moves),
	};

	return cmocka_run_group_tests_name("chunk-boxset", tests, NULL, NULL);
}
