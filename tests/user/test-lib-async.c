// SPDX-License-Identifier: GPL-2.0
/*
 * rw_pull_start(), rw_pushpull_start() and rw_wait(): a non-blocking issue,
 * EAGAIN, poll() on the device for the right event, the request issued
 * again (from the library's own copy) until it completes; timeouts that
 * keep the request, errors that drop it, one request per context.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test-lib-mock.c"

#define NB	RW_XFER_NONBLOCK

static void rwt_check(unsigned int i, unsigned long req, uint32_t flags,
		      uint32_t nr)
{
	const struct rwm_call *c = rwm_call(i);

	assert_int_equal(c->req, req);
	assert_int_equal(c->arg.xfer.size, RW_XFER_SIZE);
	assert_int_equal(c->arg.xfer.flags, flags);
	assert_int_equal(c->arg.xfer.nr, nr);
	assert_int_equal(c->arg.xfer.timeout_ms, 0);
	assert_true(rwm_zero(c->arg.xfer.reserved, sizeof(c->arg.xfer.reserved)));
}

static void rwt_pull_done_at_once(void **state)
{
	struct rw_ctx *ctx = *state;

	rwm_expect(RW_IOC_PULL, 0, NULL);
	assert_int_equal(rw_pull_start(ctx, NULL, 0, 0), 0);
	rwt_check(0, RW_IOC_PULL, NB, 0);
	/* Nothing pending: rw_wait neither polls nor issues anything. */
	assert_int_equal(rw_wait(ctx, 1000), 0);
	assert_int_equal(rwm.npcalls, 0);
	assert_true(rwm_done());
}

/* EAGAIN, POLLIN, the same pull again from the library's copy. */
static void rwt_pull_eagain_poll(void **state)
{
	struct rw_range *r = calloc(2, sizeof(*r));
	struct rw_ctx *ctx = *state;

	assert_non_null(r);
	r[0] = (struct rw_range){ 4, 2 };
	r[1] = (struct rw_range){ 1, 0 };
	rwm_expect(RW_IOC_PULL, -EAGAIN, NULL);
	assert_int_equal(rw_pull_start(ctx, r, 2, RW_XFER_KEYS), -EINPROGRESS);
	/* The caller's array may go away once the start call returns. */
	memset(r, 0xff, 2 * sizeof(*r));
	free(r);

	rwm_expect_poll(1, POLLIN);
	rwm_expect(RW_IOC_PULL, 0, NULL);
	assert_int_equal(rw_wait(ctx, 5000), 0);
	assert_true(rwm_done());

	assert_int_equal(rwm.npcalls, 1);
	assert_int_equal(rwm.pcalls[0].fd, rw_ctx_fd(ctx));
	assert_int_equal(rwm.pcalls[0].events, POLLIN);
	assert_true(rwm.pcalls[0].timeout > 0 && rwm.pcalls[0].timeout <= 5000);
	rwt_check(1, RW_IOC_PULL, NB | RW_XFER_KEYS, 2);
	assert_int_equal(rwm_call(1)->ranges[0].first, 4);
	assert_int_equal(rwm_call(1)->ranges[0].count, 2);
	assert_int_equal(rwm_call(1)->ranges[1].first, 1);
	assert_int_equal(rwm_call(1)->ranges[1].count, 0);

	/* Done: the next wait is a no-op, the next start is accepted. */
	assert_int_equal(rw_wait(ctx, 0), 0);
	rwm_expect(RW_IOC_PULL, 0, NULL);
	assert_int_equal(rw_pull_start(ctx, NULL, 0, 0), 0);
	assert_true(rwm_done());
}

/* POLLIN but EAGAIN again (another waiter, a spurious wake): keep going. */
static void rwt_pull_spurious(void **state)
{
	struct rw_ctx *ctx = *state;

	rwm_expect(RW_IOC_PULL, -EAGAIN, NULL);
	assert_int_equal(rw_pull_start(ctx, NULL, 0, 0), -EINPROGRESS);
	rwm_expect_poll(1, POLLIN);
	rwm_expect(RW_IOC_PULL, -EAGAIN, NULL);
	rwm_expect_poll(-EINTR, 0);
	rwm_expect_poll(1, POLLIN);
	rwm_expect(RW_IOC_PULL, 0, NULL);
	assert_int_equal(rw_wait(ctx, -1), 0);
	assert_int_equal(rwm.npcalls, 3);
	assert_int_equal(rwm.pcalls[0].timeout, -1);
	assert_int_equal(rwm.pcalls[2].timeout, -1);
	assert_true(rwm_done());
}

/* A timeout keeps the request: the next rw_wait finishes it. */
static void rwt_pull_timeout(void **state)
{
	struct rw_ctx *ctx = *state;

	rwm_expect(RW_IOC_PULL, -EAGAIN, NULL);
	assert_int_equal(rw_pull_start(ctx, NULL, 0, 0), -EINPROGRESS);
	rwm_expect_poll(0, 0);
	assert_int_equal(rw_wait(ctx, 0), -ETIMEDOUT);
	assert_int_equal(rwm.pcalls[0].timeout, 0);
	rwm_expect_poll(0, 0);
	assert_int_equal(rw_wait(ctx, 20), -ETIMEDOUT);
	/* Still pending: a new request is refused. */
	assert_int_equal(rw_pull_start(ctx, NULL, 0, 0), -EBUSY);
	assert_int_equal(rw_pushpull_start(ctx, NULL, 0, 0), -EBUSY);

	/* Ready, but still EAGAIN when the time is up: -ETIMEDOUT, kept. */
	rwm_expect_poll(1, POLLIN);
	rwm_expect(RW_IOC_PULL, -EAGAIN, NULL);
	assert_int_equal(rw_wait(ctx, 0), -ETIMEDOUT);

	rwm_expect_poll(1, POLLIN);
	rwm_expect(RW_IOC_PULL, 0, NULL);
	assert_int_equal(rw_wait(ctx, 1000), 0);
	assert_int_equal(rwm_ncalls(), 3);
	assert_true(rwm_done());
}

/* The module's verdict on the re-issued request ends it. */
static void rwt_pull_error(void **state)
{
	static const int errs[] = { -ESTALE, -ENODEV, -EINVAL, -EPERM };
	struct rw_ctx *ctx = *state;
	size_t i;

	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		rwm_expect(RW_IOC_PULL, -EAGAIN, NULL);
		assert_int_equal(rw_pull_start(ctx, NULL, 0, 0), -EINPROGRESS);
		rwm_expect_poll(1, POLLIN);
		rwm_expect(RW_IOC_PULL, errs[i], NULL);
		assert_int_equal(rw_wait(ctx, 1000), errs[i]);
		assert_int_equal(rw_wait(ctx, 1000), 0);	/* dropped */
	}
	assert_true(rwm_done());
}

/* An error on the first issue: returned, nothing pending. */
static void rwt_start_error(void **state)
{
	struct rw_ctx *ctx = *state;

	rwm_expect(RW_IOC_PULL, -ENODEV, NULL);
	assert_int_equal(rw_pull_start(ctx, NULL, 0, 0), -ENODEV);
	rwm_expect(RW_IOC_PUSH, -EALREADY, NULL);
	assert_int_equal(rw_pushpull_start(ctx, NULL, 0, 0), -EALREADY);
	rwm_expect(RW_IOC_PUSH, 0, NULL);
	rwm_expect(RW_IOC_PULL, -ESTALE, NULL);
	assert_int_equal(rw_pushpull_start(ctx, NULL, 0, 0), -ESTALE);
	assert_int_equal(rw_wait(ctx, 0), 0);
	assert_int_equal(rwm.npcalls, 0);
	assert_true(rwm_done());
}

static void rwt_local_checks(void **state)
{
	const struct rw_range r = { 0, 1 };
	struct rw_ctx *ctx = *state;

	assert_int_equal(rw_pull_start(NULL, &r, 1, 0), -EINVAL);
	assert_int_equal(rw_pull_start(ctx, NULL, 1, 0), -EINVAL);
	assert_int_equal(rw_pull_start(ctx, &r, 1, 1U << 5), -EINVAL);
	assert_int_equal(rw_pushpull_start(ctx, &r, RW_XFER_MAX_RANGES + 1, 0),
			 -E2BIG);
	assert_int_equal(rw_wait(NULL, 0), -EINVAL);
	assert_int_equal(rwm_ncalls(), 0);
	/* None of those left anything pending. */
	rwm_expect(RW_IOC_PULL, 0, NULL);
	assert_int_equal(rw_pull_start(ctx, &r, 1, NB), 0);
	rwt_check(0, RW_IOC_PULL, NB, 1);
	assert_true(rwm_done());
}

/* A non-blocking request interrupted before it did anything: again. */
static void rwt_eintr_reissued(void **state)
{
	struct rw_ctx *ctx = *state;

	rwm_expect(RW_IOC_PUSH, -EINTR, NULL);
	rwm_expect(RW_IOC_PUSH, 0, NULL);
	rwm_expect(RW_IOC_PULL, -EINTR, NULL);
	rwm_expect(RW_IOC_PULL, -EAGAIN, NULL);
	assert_int_equal(rw_pushpull_start(ctx, NULL, 0, 0), -EINPROGRESS);
	rwm_expect_poll(1, POLLIN);
	rwm_expect(RW_IOC_PULL, -EINTR, NULL);
	rwm_expect(RW_IOC_PULL, 0, NULL);
	assert_int_equal(rw_wait(ctx, -1), 0);
	assert_true(rwm_done());
}

static void rwt_pushpull_at_once(void **state)
{
	const struct rw_range r = { 3, 4 };
	struct rw_ctx *ctx = *state;

	rwm_expect(RW_IOC_PUSH, 0, NULL);
	rwm_expect(RW_IOC_PULL, 0, NULL);
	assert_int_equal(rw_pushpull_start(ctx, &r, 1, 0), 0);
	rwt_check(0, RW_IOC_PUSH, NB, 1);
	rwt_check(1, RW_IOC_PULL, NB, 1);
	assert_int_equal(rwm_call(0)->ranges[0].first, 3);
	assert_int_equal(rwm_call(1)->ranges[0].count, 4);
	assert_true(rwm_done());
}

/* Pushed at once, the pull waits: POLLIN, then only the pull again. */
static void rwt_pushpull_pull_waits(void **state)
{
	struct rw_ctx *ctx = *state;

	rwm_expect(RW_IOC_PUSH, 0, NULL);
	rwm_expect(RW_IOC_PULL, -EAGAIN, NULL);
	assert_int_equal(rw_pushpull_start(ctx, NULL, 0, 0), -EINPROGRESS);
	rwm_expect_poll(1, POLLIN);
	rwm_expect(RW_IOC_PULL, 0, NULL);
	assert_int_equal(rw_wait(ctx, 1000), 0);
	assert_int_equal(rwm.pcalls[0].events, POLLIN);
	assert_int_equal(rwm_ncalls(), 3);
	assert_true(rwm_done());
}

/* The push itself must wait (a chunk in flight): POLLOUT, push, pull. */
static void rwt_pushpull_push_waits(void **state)
{
	struct rw_ctx *ctx = *state;

	rwm_expect(RW_IOC_PUSH, -EAGAIN, NULL);
	assert_int_equal(rw_pushpull_start(ctx, NULL, 0, RW_XFER_KEYS),
			 -EINPROGRESS);
	rwm_expect_poll(1, POLLOUT);
	rwm_expect(RW_IOC_PUSH, 0, NULL);
	rwm_expect(RW_IOC_PULL, -EAGAIN, NULL);
	rwm_expect_poll(1, POLLIN);
	rwm_expect(RW_IOC_PULL, 0, NULL);
	assert_int_equal(rw_wait(ctx, -1), 0);
	assert_int_equal(rwm.npcalls, 2);
	assert_int_equal(rwm.pcalls[0].events, POLLOUT);
	assert_int_equal(rwm.pcalls[1].events, POLLIN);
	rwt_check(1, RW_IOC_PUSH, NB | RW_XFER_KEYS, 0);
	rwt_check(2, RW_IOC_PULL, NB | RW_XFER_KEYS, 0);
	rwt_check(3, RW_IOC_PULL, NB | RW_XFER_KEYS, 0);
	assert_true(rwm_done());
}

/* A timeout between push and pull resumes at the pull, not the push. */
static void rwt_pushpull_resume(void **state)
{
	struct rw_ctx *ctx = *state;

	rwm_expect(RW_IOC_PUSH, -EAGAIN, NULL);
	assert_int_equal(rw_pushpull_start(ctx, NULL, 0, 0), -EINPROGRESS);
	rwm_expect_poll(1, POLLOUT);
	rwm_expect(RW_IOC_PUSH, 0, NULL);
	rwm_expect(RW_IOC_PULL, -EAGAIN, NULL);
	assert_int_equal(rw_wait(ctx, 0), -ETIMEDOUT);
	rwm_expect_poll(1, POLLIN);
	rwm_expect(RW_IOC_PULL, 0, NULL);
	assert_int_equal(rw_wait(ctx, 0), 0);
	assert_int_equal(rwm.pcalls[1].events, POLLIN);
	assert_true(rwm_done());
}

/* poll() says the device is in error but the pull still says EAGAIN. */
static void rwt_poll_error(void **state)
{
	struct rw_ctx *ctx = *state;

	rwm_expect(RW_IOC_PULL, -EAGAIN, NULL);
	assert_int_equal(rw_pull_start(ctx, NULL, 0, 0), -EINPROGRESS);
	rwm_expect_poll(1, POLLERR);
	rwm_expect(RW_IOC_PULL, -EAGAIN, NULL);
	assert_int_equal(rw_wait(ctx, -1), -EIO);
	assert_int_equal(rw_wait(ctx, -1), 0);

	/* poll() itself failing is not the request's fault: it stays. */
	rwm_expect(RW_IOC_PULL, -EAGAIN, NULL);
	assert_int_equal(rw_pull_start(ctx, NULL, 0, 0), -EINPROGRESS);
	rwm_expect_poll(-ENOMEM, 0);
	assert_int_equal(rw_wait(ctx, -1), -ENOMEM);
	rwm_expect_poll(1, POLLIN);
	rwm_expect(RW_IOC_PULL, 0, NULL);
	assert_int_equal(rw_wait(ctx, -1), 0);
	assert_true(rwm_done());
}

/*
 * The module's POLLOUT does not see a gate that has yet to admit a push:
 * ready, EAGAIN, again and again. rw_wait backs off instead of spinning.
 */
static void rwt_backoff(void **state)
{
	struct rw_ctx *ctx = *state;
	struct timespec t0, t1;
	double ms;
	int i;

	rwm_expect(RW_IOC_PUSH, -EAGAIN, NULL);
	assert_int_equal(rw_pushpull_start(ctx, NULL, 0, 0), -EINPROGRESS);
	for (i = 0; i < 6; i++) {
		rwm_expect_poll(1, POLLOUT);
		rwm_expect(RW_IOC_PUSH, -EAGAIN, NULL);
	}
	rwm_expect_poll(1, POLLOUT);
	rwm_expect(RW_IOC_PUSH, 0, NULL);
	rwm_expect(RW_IOC_PULL, 0, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(rw_wait(ctx, -1), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	/* 100 + 200 + 300 + 400 + 500 us after the first fruitless wake-up. */
	assert_true(ms >= 1.4);
	assert_true(rwm_done());
}

/* Closing a context with a request pending frees it (run under ASan/valgrind). */
static void rwt_close_pending(void **state)
{
	struct rw_range r[40] = { { 0, 1 } };
	struct rw_ctx *ctx = *state;

	rwm_expect(RW_IOC_PULL, -EAGAIN, NULL);
	assert_int_equal(rw_pull_start(ctx, r, 40, 0), -EINPROGRESS);
	rw_ctx_close(ctx);
	*state = NULL;
	assert_true(rwm_done());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) \
	cmocka_unit_test_setup_teardown(f, rwm_ctx_setup, rwm_ctx_teardown)
		T(rwt_pull_done_at_once),
		T(rwt_pull_eagain_poll),
		T(rwt_pull_spurious),
		T(rwt_pull_timeout),
		T(rwt_pull_error),
		T(rwt_start_error),
		T(rwt_local_checks),
		T(rwt_eintr_reissued),
		T(rwt_pushpull_at_once),
		T(rwt_pushpull_pull_waits),
		T(rwt_pushpull_push_waits),
		T(rwt_pushpull_resume),
		T(rwt_poll_error),
		T(rwt_backoff),
		T(rwt_close_pending),
#undef T
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("librackweave async transfers",
					   tests, NULL, NULL);
}
