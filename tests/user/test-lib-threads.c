// SPDX-License-Identifier: GPL-2.0
/*
 * One context, two threads. A blocking pull held inside the "module" must
 * not stop the other thread's calls (the context lock is not held across
 * the sleep); concurrent calls keep the context consistent; the one async
 * slot goes to exactly one of two racing threads.
 *
 * Threads other than the main one never call cmocka: they record what
 * they saw and the main thread checks it. A deadlock shows up as a join
 * that times out, not as a hung test run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test-lib-mock.c"

#define RWT_ROUNDS	2000

static const uint8_t rwt_token[RW_JOB_TOKEN_LEN];
static const struct rw_tensor_desc rwt_model[] = {
	{ .key = 1, .nelems = 640, .dtype = RW_DTYPE_F32 },
	{ .key = 2, .nelems = 10, .dtype = RW_DTYPE_F32 },
};

static int rwt_setup(void **state)
{
	struct rw_ctx *ctx;
	struct rw_setup s;

	if (rwm_ctx_setup(state))
		return -1;
	ctx = *state;
	rwm_fill_setup(&s, 4096, 1, 2, 2600);
	rwm_expect(RW_IOC_ATTACH, 0, NULL);
	rwm_expect(RW_IOC_DECLARE, 0, NULL);
	rwm_expect(RW_IOC_SETUP, 0, &s);
	if (rw_attach(ctx, "job", rwt_token, 0, 0) ||
	    rw_declare(ctx, rwt_model, 2, 0) || rw_map(ctx) || !rwm_done()) {
		rwm_ctx_teardown(state);
		return -1;
	}
	return 0;
}

/* Join @t within @ms milliseconds; false if it is still running. */
static bool rwt_join(pthread_t t, int ms)
{
	struct timespec ts;

	rwm_deadline(&ts, ms);
	return pthread_timedjoin_np(t, NULL, &ts) == 0;
}

struct rwt_result {
	struct rw_ctx *ctx;
	int err[8];
	uint64_t offset;
};

static void *rwt_blocking_pull(void *arg)
{
	struct rwt_result *r = arg;

	r->err[0] = rw_pull(r->ctx, NULL, 0, 0);
	return NULL;
}

/* Everything a second thread does while the first sleeps in a pull. */
static void *rwt_meanwhile(void *arg)
{
	struct rwt_result *r = arg;
	struct rw_tensor_view v = { 0 };

	r->err[0] = rw_set_timeout(r->ctx, 250);
	r->err[1] = rw_tensor(r->ctx, 2, &v);
	r->offset = v.offset;
	r->err[2] = rw_versions(r->ctx) ? 0 : -EFAULT;
	r->err[3] = rw_pull_start(r->ctx, NULL, 0, 0);
	r->err[4] = rw_wait(r->ctx, 1000);
	r->err[5] = rw_push(r->ctx, NULL, 0, RW_XFER_NONBLOCK);
	return NULL;
}

static void rwt_pull_does_not_block_others(void **state)
{
	struct rwt_result a = { .ctx = *state }, b = { .ctx = *state };
	pthread_t ta, tb;

	rwm_expect_block(RW_IOC_PULL, 0, NULL);
	assert_int_equal(pthread_create(&ta, NULL, rwt_blocking_pull, &a), 0);
	assert_true(rwm_wait_blocked(1, 5000));

	rwm_expect(RW_IOC_PULL, -EAGAIN, NULL);
	rwm_expect_poll(1, POLLIN);
	rwm_expect(RW_IOC_PULL, 0, NULL);
	rwm_expect(RW_IOC_PUSH, 0, NULL);
	assert_int_equal(pthread_create(&tb, NULL, rwt_meanwhile, &b), 0);
	if (!rwt_join(tb, 5000)) {
		rwm_unblock();
		fail_msg("a call waited for the sleeping pull");
	}
	assert_int_equal(b.err[0], 0);
	assert_int_equal(b.err[1], 0);
	assert_int_equal(b.offset, 2560);
	assert_int_equal(b.err[2], 0);
	assert_int_equal(b.err[3], -EINPROGRESS);
	assert_int_equal(b.err[4], 0);
	assert_int_equal(b.err[5], 0);

	/* The sleeper is still inside its pull until the module lets go. */
	assert_true(rwm_wait_blocked(1, 0));
	rwm_unblock();
	assert_true(rwt_join(ta, 5000));
	assert_int_equal(a.err[0], 0);
	assert_true(rwm_done());
}

struct rwt_hammer {
	struct rw_ctx *ctx;
	unsigned int id;
	unsigned int errors;
	unsigned int started;	/* async pulls issued (not -EBUSY) */
};

/* Blocking transfers with changing timeouts, lookups, views. */
static void *rwt_hammer(void *arg)
{
	struct rwt_hammer *h = arg;
	struct rw_tensor_view v = { 0 };
	unsigned int i;
	int err;

	for (i = 0; i < RWT_ROUNDS; i++) {
		h->errors += rw_set_timeout(h->ctx, h->id ? 0x100 : 0x200) != 0;
		h->errors += rw_push(h->ctx, NULL, 0, 0) != 0;
		h->errors += rw_pull(h->ctx, NULL, 0, 0) != 0;
		h->errors += rw_tensor(h->ctx, 1 + (i & 1), &v) != 0;
		h->errors += v.offset != ((i & 1) ? 2560 : 0);
		h->errors += rw_tensor(h->ctx, 3, &v) != -ENOENT;
		/* The other thread may hold the async slot for a moment. */
		err = rw_pull_start(h->ctx, NULL, 0, 0);
		h->started += !err;
		h->errors += err && err != -EBUSY;
	}
	return NULL;
}

static void rwt_two_threads(void **state)
{
	struct rwt_hammer h[2] = { { *state, 0, 0, 0 }, { *state, 1, 0, 0 } };
	pthread_t t[2];
	int i;

	rwm.auto_ioctl = true;
	rwm.auto_ret = 0;
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, rwt_hammer, &h[i]), 0);
	for (i = 0; i < 2; i++)
		assert_true(rwt_join(t[i], 60000));
	assert_int_equal(h[0].errors, 0);
	assert_int_equal(h[1].errors, 0);
	assert_int_equal(rwm.nr_push, 2 * RWT_ROUNDS);
	assert_true(h[0].started + h[1].started > 0);
	assert_int_equal(rwm.nr_pull,
			 2 * RWT_ROUNDS + h[0].started + h[1].started);
	/* Each blocking call took one of the two timeouts whole (or none). */
	assert_int_equal(rwm.timeouts_seen & ~0x300U, 0);
	assert_int_equal(rwm.unexpected, 0);
}

struct rwt_race {
	struct rw_ctx *ctx;
	pthread_barrier_t *go;
	unsigned int started, busy, other;
};

static void *rwt_race(void *arg)
{
	struct rwt_race *r = arg;
	unsigned int i;
	int err;

	pthread_barrier_wait(r->go);
	for (i = 0; i < RWT_ROUNDS; i++) {
		err = rw_pull_start(r->ctx, NULL, 0, 0);
		if (err == -EINPROGRESS)
			r->started++;
		else if (err == -EBUSY)
			r->busy++;
		else
			r->other++;
	}
	return NULL;
}

/* Two threads race for the async slot: exactly one request is taken. */
static void rwt_one_async_slot(void **state)
{
	pthread_barrier_t go;
	struct rwt_race r[2] = { { *state, &go, 0, 0, 0 }, { *state, &go, 0, 0, 0 } };
	pthread_t t[2];
	int i, err0, err1;

	rwm.auto_ioctl = true;
	rwm.auto_ret = -EAGAIN;
	assert_int_equal(pthread_barrier_init(&go, NULL, 2), 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, rwt_race, &r[i]), 0);
	for (i = 0; i < 2; i++)
		assert_true(rwt_join(t[i], 60000));
	pthread_barrier_destroy(&go);
	assert_int_equal(r[0].started + r[1].started, 1);
	assert_int_equal(r[0].busy + r[1].busy, 2 * RWT_ROUNDS - 1);
	assert_int_equal(r[0].other + r[1].other, 0);
	assert_int_equal(rwm.nr_pull, 1);

	/* Finish it; a second waiter finds nothing (or the first busy). */
	pthread_mutex_lock(&rwm.lock);
	rwm.auto_ret = 0;
	rwm.auto_poll = true;
	pthread_mutex_unlock(&rwm.lock);
	err0 = rw_wait(*state, 1000);
	err1 = rw_wait(*state, 1000);
	assert_int_equal(err0, 0);
	assert_int_equal(err1, 0);
	assert_int_equal(rwm.nr_pull, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, rwt_setup, rwm_ctx_teardown)
		T(rwt_pull_does_not_block_others),
		T(rwt_two_threads),
		T(rwt_one_async_slot),
#undef T
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("librackweave threads", tests,
					   NULL, NULL);
}
