// SPDX-License-Identifier: GPL-2.0
/* Helpers of the suites that run a real chunk engine (engine_kunit.h). */
#include "engine_kunit.h"

void rw_kt_grad(u32 *buf, u32 len, u32 step, u32 worker, u32 chunk)
{
	u32 x = 0x9e3779b9u * (step + 1) ^ 0x85ebca6bu * (worker + 1) ^
		0xc2b2ae35u * (chunk + 1);
	u32 i;

	for (i = 0; i < len / 4; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (x & 0x80000000u) | ((0x7b + x % 3) << 23) |
			 (x & 0x7fffff);
	}
}

static int rw_kt_engine_init(struct kunit_resource *res, void *context)
{
	struct rw_engine *e = rw_engine_create(context);

	if (IS_ERR(e))
		return PTR_ERR(e);
	res->data = e;
	return 0;
}

static void rw_kt_engine_free(struct kunit_resource *res)
{
	rw_engine_destroy(res->data);
}

struct rw_engine *rw_kt_engine(struct kunit *test,
			       const struct rw_engine_config *cfg)
{
	struct rw_engine *e;

	e = kunit_alloc_resource(test, rw_kt_engine_init, rw_kt_engine_free,
				 GFP_KERNEL, (void *)cfg);
	KUNIT_ASSERT_NOT_NULL_MSG(test, e, "engine creation failed");
	return e;
}
