// SPDX-License-Identifier: GPL-2.0
/*
 * rw_bind_numa(): the node comes from RW_IOC_SETUP; -1 changes nothing;
 * without NUMA support the call says -ENOSYS; otherwise the thread runs on
 * the node and prefers its memory. libnuma is scripted by the mock.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test-lib-mock.c"

static void rwt_expect_node(struct rw_setup *s, int node)
{
	rwm_fill_setup(s, 4096, 1, 2, 2600);
	s->node = node;
	rwm_expect(RW_IOC_SETUP, 0, s);
}

static void rwt_bind(void **state)
{
	struct rw_ctx *ctx = *state;
	struct rw_setup s;

	rwt_expect_node(&s, 1);
	assert_int_equal(rw_bind_numa(ctx), 0);
	assert_int_equal(rwm.numa_run_node, 1);
	assert_int_equal(rwm.numa_pref_node, 1);
	assert_int_equal(rwm_call(0)->arg.setup.size, RW_SETUP_SIZE);
	assert_true(rwm_done());
}

static void rwt_bind_node0(void **state)
{
	struct rw_ctx *ctx = *state;
	struct rw_setup s;

	rwt_expect_node(&s, 0);
	assert_int_equal(rw_bind_numa(ctx), 0);
	assert_int_equal(rwm.numa_run_node, 0);
	assert_int_equal(rwm.numa_pref_node, 0);
}

static void rwt_no_preference(void **state)
{
	struct rw_ctx *ctx = *state;
	struct rw_setup s;

	rwm.numa_available = -1;	/* not even asked */
	rwt_expect_node(&s, -1);
	assert_int_equal(rw_bind_numa(ctx), 0);
	assert_int_equal(rwm.numa_calls, 0);
	assert_true(rwm_done());
}

static void rwt_no_numa(void **state)
{
	struct rw_ctx *ctx = *state;
	struct rw_setup s;

	rwm.numa_available = -1;
	rwt_expect_node(&s, 0);
	assert_int_equal(rw_bind_numa(ctx), -ENOSYS);
	assert_int_equal(rwm.numa_run_node, -2);
	assert_int_equal(rwm.numa_pref_node, -2);
}

/* The thread could not be moved: the memory policy is left alone too. */
static void rwt_run_fails(void **state)
{
	struct rw_ctx *ctx = *state;
	struct rw_setup s;

	rwm.numa_run_ret = -1;
	rwm.numa_run_errno = EINVAL;
	rwt_expect_node(&s, 3);
	assert_int_equal(rw_bind_numa(ctx), -EINVAL);
	assert_int_equal(rwm.numa_run_node, 3);
	assert_int_equal(rwm.numa_pref_node, -2);
}

static void rwt_setup_fails(void **state)
{
	struct rw_ctx *ctx = *state;

	rwm_expect(RW_IOC_SETUP, -ENOTCONN, NULL);
	assert_int_equal(rw_bind_numa(ctx), -ENOTCONN);
	assert_int_equal(rw_bind_numa(NULL), -EINVAL);
	assert_int_equal(rwm.numa_calls, 0);
	assert_true(rwm_done());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) \
	cmocka_unit_test_setup_teardown(f, rwm_ctx_setup, rwm_ctx_teardown)
		T(rwt_bind),
		T(rwt_bind_node0),
		T(rwt_no_preference),
		T(rwt_no_numa),
		T(rwt_run_fails),
		T(rwt_setup_fails),
#undef T
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("librackweave NUMA binding", tests,
					   NULL, NULL);
}
