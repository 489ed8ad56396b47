/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the suites that run a real chunk engine share (engine_test.c,
 * elastic_test.c): deterministic gradients and engines that go with the
 * test, however it ends.
 */
#ifndef _RW_TESTS_KUNIT_ENGINE_KUNIT_H
#define _RW_TESTS_KUNIT_ENGINE_KUNIT_H

#include <kunit/test.h>

#include "engine/engine.h"

/*
 * A deterministic gradient for (@step, @worker, @chunk), made from integer
 * bit patterns (no FPU here): values in +-[0.06, 0.5).
 */
void rw_kt_grad(u32 *buf, u32 len, u32 step, u32 worker, u32 chunk);

/*
 * An engine destroyed when the test ends, however it ends: a failed
 * assertion must not leave aggregation threads running after the module
 * that holds their code is gone. Asserts that creation succeeded.
 */
struct rw_engine *rw_kt_engine(struct kunit *test,
			       const struct rw_engine_config *cfg);

#endif /* _RW_TESTS_KUNIT_ENGINE_KUNIT_H */
