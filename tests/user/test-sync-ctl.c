// SPDX-License-Identifier: GPL-2.0
/*
 * The adaptive controller (rw_gate_controller, model at the top of
 * kmod/sync/adapt.c) and the ADAPTIVE admission rules around it, on the
 * hand-computed timelines of tests/common/gate_timelines.h: one cmocka
 * test per timeline, run by the same interpreter the KUnit suite
 * rackweave_sync uses (tests/kunit/sync_test.c), so both sides check the
 * same table. The arithmetic is worked out next to each timeline there.
 *
 * One more test guards the interpreter itself: every expected value in
 * the table, made wrong, must fail its timeline at exactly that row.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "synctest.h"
#include "../common/gate_timelines.h"

#define NR_TL	ARRAY_SIZE(rw_gtl_timelines)

/* Run @tl on fresh heap storage; the index of the failing op, or -1. */
static int run_on_heap(const struct rw_gtl *tl, struct rw_gtl_fail *f)
{
	struct rw_gate g;
	struct rw_gate_worker *w = calloc(tl->cfg.nr_workers, sizeof(*w));
	u64 *ts = calloc(rw_gtl_nr_ts(tl), sizeof(*ts));
	int ret;

	assert_non_null(w);
	assert_non_null(ts);
	ret = rw_gtl_run(tl, &g, w, ts, f);
	free(w);
	free(ts);
	return ret;
}

static void ctl_timeline(void **state)
{
	const struct rw_gtl *tl = *state;
	struct rw_gtl_fail f;

	if (run_on_heap(tl, &f) != -1)
		fail_msg(RW_GTL_FMT, tl->name, f.op, f.what,
			 (long long)f.got, (long long)f.want);
}

/* Ops whose row carries an expected value (SET_GRANT's is an input). */
static bool checks_want(u8 op)
{
	return op != RW_GTL_OP_ITER && op != RW_GTL_OP_ITERS &&
	       op != RW_GTL_OP_SET_GRANT;
}

/*
 * Mutation check of the interpreter: for every row with an expected
 * value, a copy of its timeline with that value off by one must fail at
 * that row, not earlier, not later, not at all.
 */
static void ctl_every_row_checked(void **state)
{
	u32 t, i, rows;

	(void)state;
	for (t = 0; t < NR_TL; t++) {
		const struct rw_gtl *tl = &rw_gtl_timelines[t];
		struct rw_gtl_op *ops = malloc(tl->nr_ops * sizeof(*ops));
		struct rw_gtl copy = *tl;
		struct rw_gtl_fail f;
		int ret;

		assert_non_null(ops);
		copy.ops = ops;
		rows = 0;
		for (i = 0; i < tl->nr_ops; i++) {
			if (!checks_want(tl->ops[i].op))
				continue;
			memcpy(ops, tl->ops, tl->nr_ops * sizeof(*ops));
			ops[i].want++;
			ret = run_on_heap(&copy, &f);
			if (ret != (int)i)
				fail_msg("%s: row %u off by one: run returned %d",
					 tl->name, i, ret);
			rows++;
		}
		free(ops);
		if (!rows)
			fail_msg("%s: no row checks anything", tl->name);
	}
}

int main(void)
{
	struct CMUnitTest tests[NR_TL + 1];
	u32 i;

	for (i = 0; i < NR_TL; i++) {
		const struct CMUnitTest t =
			cmocka_unit_test_prestate(ctl_timeline,
						  (void *)&rw_gtl_timelines[i]);

		tests[i] = t;
		tests[i].name = rw_gtl_timelines[i].name;
	}
	tests[NR_TL] = (struct CMUnitTest)cmocka_unit_test(ctl_every_row_checked);

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("sync-ctl", tests, NULL, NULL);
}
