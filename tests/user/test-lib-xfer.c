// SPDX-License-Identifier: GPL-2.0
/*
 * rw_push(), rw_pull(), rw_pushpull() and rw_set_timeout(): the struct
 * rw_xfer each one sends, the checks made before asking the module, and
 * the module's errors passed back, EINTR included (never restarted).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test-lib-mock.c"

typedef int (*rwt_xfer_fn)(struct rw_ctx *, const struct rw_range *,
			   uint32_t, uint32_t);

static const struct {
	const char *name;
	rwt_xfer_fn fn;
	unsigned long req;
} rwt_ops[] = {
	{ "push", rw_push, RW_IOC_PUSH },
	{ "pull", rw_pull, RW_IOC_PULL },
	{ "pushpull", rw_pushpull, RW_IOC_PUSHPULL },
};

#define RWT_NOPS	(sizeof(rwt_ops) / sizeof(rwt_ops[0]))

static void rwt_check_xfer(const struct rwm_call *c, unsigned long req,
			   uint32_t flags, uint32_t nr, uint32_t timeout)
{
	assert_int_equal(c->req, req);
	assert_int_equal(c->arg.xfer.size, RW_XFER_SIZE);
	assert_int_equal(c->arg.xfer.flags, flags);
	assert_int_equal(c->arg.xfer.nr, nr);
	assert_int_equal(c->arg.xfer.timeout_ms, timeout);
	assert_true(rwm_zero(c->arg.xfer.reserved, sizeof(c->arg.xfer.reserved)));
}

/* n == 0: every chunk, and no array pointer at all. */
static void rwt_all_chunks(void **state)
{
	struct rw_ctx *ctx = *state;
	size_t i;

	for (i = 0; i < RWT_NOPS; i++) {
		rwm_expect(rwt_ops[i].req, 0, NULL);
		assert_int_equal(rwt_ops[i].fn(ctx, NULL, 0, 0), 0);
		rwt_check_xfer(rwm_call(i), rwt_ops[i].req, 0, 0, 0);
		assert_int_equal(rwm_call(i)->arg.xfer.ranges, 0);
		assert_int_equal(rwm_call(i)->fd, rw_ctx_fd(ctx));
	}
	assert_true(rwm_done());
}

static void rwt_ranges(void **state)
{
	const struct rw_range r[3] = { { 0, 2 }, { 5, 1 }, { 9, 100 } };
	struct rw_ctx *ctx = *state;
	size_t i;

	for (i = 0; i < RWT_NOPS; i++) {
		rwm_expect(rwt_ops[i].req, 0, NULL);
		assert_int_equal(rwt_ops[i].fn(ctx, r, 3, 0), 0);
		rwt_check_xfer(rwm_call(i), rwt_ops[i].req, 0, 3, 0);
		assert_int_equal(rwm_call(i)->arg.xfer.ranges, (uintptr_t)r);
		assert_memory_equal(rwm_call(i)->ranges, r, sizeof(r));
	}
	assert_true(rwm_done());
}

static void rwt_flags(void **state)
{
	const struct rw_range keys[2] = { { 1, 0 }, { 2, 0 } };
	struct rw_ctx *ctx = *state;
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < RWT_NOPS; i++) {
		rwm_expect(rwt_ops[i].req, 0, NULL);
		assert_int_equal(rwt_ops[i].fn(ctx, keys, 2, RW_XFER_KEYS), 0);
		rwt_check_xfer(rwm_call(n++), rwt_ops[i].req, RW_XFER_KEYS, 2, 0);
		rwm_expect(rwt_ops[i].req, 0, NULL);
		assert_int_equal(rwt_ops[i].fn(ctx, keys, 2,
					       RW_XFER_KEYS | RW_XFER_NONBLOCK), 0);
		rwt_check_xfer(rwm_call(n++), rwt_ops[i].req,
			       RW_XFER_KEYS | RW_XFER_NONBLOCK, 2, 0);
	}
	assert_true(rwm_done());
}

/* The context's timeout goes with blocking calls, never non-blocking ones. */
static void rwt_timeout(void **state)
{
	struct rw_ctx *ctx = *state;
	size_t i;

	assert_int_equal(rw_set_timeout(ctx, 1500), 0);
	assert_int_equal(rw_set_timeout(NULL, 1), -EINVAL);
	for (i = 0; i < RWT_NOPS; i++) {
		rwm_expect(rwt_ops[i].req, 0, NULL);
		assert_int_equal(rwt_ops[i].fn(ctx, NULL, 0, 0), 0);
		rwt_check_xfer(rwm_call(2 * i), rwt_ops[i].req, 0, 0, 1500);
		rwm_expect(rwt_ops[i].req, -EAGAIN, NULL);
		assert_int_equal(rwt_ops[i].fn(ctx, NULL, 0, RW_XFER_NONBLOCK),
				 -EAGAIN);
		rwt_check_xfer(rwm_call(2 * i + 1), rwt_ops[i].req,
			       RW_XFER_NONBLOCK, 0, 0);
	}
	assert_int_equal(rw_set_timeout(ctx, 0), 0);
	rwm_expect(RW_IOC_PULL, -ETIMEDOUT, NULL);
	assert_int_equal(rw_pull(ctx, NULL, 0, 0), -ETIMEDOUT);
	rwt_check_xfer(rwm_call(6), RW_IOC_PULL, 0, 0, 0);
	assert_true(rwm_done());
}

static void rwt_local_checks(void **state)
{
	const struct rw_range r = { 0, 1 };
	struct rw_ctx *ctx = *state;
	size_t i;

	for (i = 0; i < RWT_NOPS; i++) {
		assert_int_equal(rwt_ops[i].fn(NULL, NULL, 0, 0), -EINVAL);
		assert_int_equal(rwt_ops[i].fn(ctx, NULL, 1, 0), -EINVAL);
		assert_int_equal(rwt_ops[i].fn(ctx, &r, 1, 1U << 2), -EINVAL);
		assert_int_equal(rwt_ops[i].fn(ctx, &r, 1, 1U << 31), -EINVAL);
		assert_int_equal(rwt_ops[i].fn(ctx, &r, RW_XFER_MAX_RANGES + 1, 0),
				 -E2BIG);
	}
	assert_int_equal(rwm_ncalls(), 0);
}

/* RW_XFER_MAX_RANGES itself is the module's to judge. */
static void rwt_max_ranges(void **state)
{
	struct rw_ctx *ctx = *state;
	struct rw_range *r;

	r = calloc(RW_XFER_MAX_RANGES, sizeof(*r));
	assert_non_null(r);
	rwm_expect(RW_IOC_PUSH, 0, NULL);
	assert_int_equal(rw_push(ctx, r, RW_XFER_MAX_RANGES, 0), 0);
	assert_int_equal(rwm_call(0)->arg.xfer.nr, RW_XFER_MAX_RANGES);
	free(r);
	assert_true(rwm_done());
}

static void rwt_errors(void **state)
{
	static const int errs[] = {
		-EINVAL, -ENOENT, -EALREADY, -E2BIG, -ENOTCONN, -ESTALE,
		-ENODEV, -EPERM, -ETIMEDOUT,
	};
	struct rw_ctx *ctx = *state;
	size_t i, k;

	for (i = 0; i < RWT_NOPS; i++) {
		for (k = 0; k < sizeof(errs) / sizeof(errs[0]); k++) {
			rwm_expect(rwt_ops[i].req, errs[k], NULL);
			if (rwt_ops[i].fn(ctx, NULL, 0, 0) != errs[k])
				fail_msg("%s: %d not passed on", rwt_ops[i].name,
					 errs[k]);
		}
	}
	assert_true(rwm_done());
}

/* A signal ends the call: one ioctl, -EINTR, no silent second push. */
static void rwt_eintr(void **state)
{
	struct rw_ctx *ctx = *state;
	size_t i;

	for (i = 0; i < RWT_NOPS; i++) {
		rwm_expect(rwt_ops[i].req, -EINTR, NULL);
		assert_int_equal(rwt_ops[i].fn(ctx, NULL, 0, 0), -EINTR);
		assert_int_equal(rwm_ncalls(), i + 1);
	}
	assert_true(rwm_done());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) \
	cmocka_unit_test_setup_teardown(f, rwm_ctx_setup, rwm_ctx_teardown)
		T(rwt_all_chunks),
		T(rwt_ranges),
		T(rwt_flags),
		T(rwt_timeout),
		T(rwt_local_checks),
		T(rwt_max_ranges),
		T(rwt_errors),
		T(rwt_eintr),
#undef T
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("librackweave push and pull", tests,
					   NULL, NULL);
}
