// SPDX-License-Identifier: GPL-2.0
/*
 * Chunk owners across a job's boxes (kmod/chunk/owner.c): the cases of
 * tests/common/owner_cases.h, which KUnit runs too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "chunktest.h"
#include "owner_cases.h"

static void owner_balance(void **state)
{
	(void)state;
	assert_null(rw_oc_balance());
}

static void owner_order(void **state)
{
	(void)state;
	assert_null(rw_oc_order());
}

static void owner_movement(void **state)
{
	u32 moved[3];
	const char *fail;

	(void)state;
	fail = rw_oc_movement(moved);
	print_message("# moved of %u chunks: %u adding a 4th box to 3 (ideal %u), %u draining one of 4 (%u), %u draining one of 8 (%u)\n",
		      RW_OC_MAX, moved[0], RW_OC_MAX / 4, moved[1],
		      RW_OC_MAX / 4, moved[2], RW_OC_MAX / 8);
	assert_null(fail);
}

static void owner_bad_input(void **state)
{
	(void)state;
	assert_null(rw_oc_bad());
}

static void owner_known(void **state)
{
	const char *fail;
	u64 got = 0;

	(void)state;
	fail = rw_oc_known(&got);
	print_message("# known table: 0x%016llx\n", (unsigned long long)got);
	assert_null(fail);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(owner_balance),
		cmocka_unit_test(owner_order),
		cmocka_unit_test(owner_movement),
		cmocka_unit_test(owner_bad_input),
		cmocka_unit_test(owner_known),
	};

	return cmocka_run_group_tests_name("chunk-owner", tests, NULL, NULL);
}
