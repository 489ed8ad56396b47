// SPDX-License-Identifier: GPL-2.0
/*
 * rw_attach() and rw_declare() against the scripted module: what reaches
 * RW_IOC_ATTACH and RW_IOC_DECLARE byte for byte, what the library refuses
 * before asking, and that the module's errors come back unchanged and
 * leave the context as it was.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "test-lib-mock.c"

static const uint8_t rwt_token[RW_JOB_TOKEN_LEN] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 0xff,
};

static void rwt_attach_ok(struct rw_ctx *ctx)
{
	rwm_expect(RW_IOC_ATTACH, 0, NULL);
	assert_int_equal(rw_attach(ctx, "job-a", rwt_token, 2, 0), 0);
}

static void rwt_attach_request(void **state)
{
	struct rw_ctx *ctx = *state;
	const struct rw_attach *a;

	rwt_attach_ok(ctx);
	assert_true(rwm_done());
	assert_int_equal(rwm_ncalls(), 1);
	assert_int_equal(rwm_call(0)->fd, rw_ctx_fd(ctx));
	a = &rwm_call(0)->arg.attach;
	assert_int_equal(a->size, RW_ATTACH_SIZE);
	assert_int_equal(a->flags, 0);
	assert_string_equal(a->job, "job-a");
	/* The name is NUL-padded to the end: no stack garbage reaches the module. */
	assert_true(rwm_zero(a->job + 5, sizeof(a->job) - 5));
	assert_memory_equal(a->token, rwt_token, RW_JOB_TOKEN_LEN);
	assert_int_equal(a->rank, 2);
	assert_int_equal(a->box_family, 0);
	assert_int_equal(a->box_port, 0);
	assert_true(rwm_zero(a->box_addr, sizeof(a->box_addr)));
	assert_true(rwm_zero(&a->reserved, sizeof(a->reserved)));
	assert_true(!a->box_more && !a->nr_box_more);
}

static void rwt_attach_observer(void **state)
{
	struct rw_ctx *ctx = *state;

	rwm_expect(RW_IOC_ATTACH, 0, NULL);
	assert_int_equal(rw_attach(ctx, "j", rwt_token, 0, RW_ATTACH_OBSERVER), 0);
	assert_int_equal(rwm_call(0)->arg.attach.flags, RW_ATTACH_OBSERVER);
	assert_int_equal(rwm_call(0)->arg.attach.rank, 0);
	assert_true(rwm_done());
}

/* Longest name that fits: RW_JOB_NAME_MAX - 1 bytes and the NUL. */
static void rwt_attach_name_limits(void **state)
{
	char name[RW_JOB_NAME_MAX + 1];
	struct rw_ctx *ctx = *state;

	memset(name, 'n', sizeof(name));
	name[RW_JOB_NAME_MAX] = 0;
	assert_int_equal(rw_attach(ctx, name, rwt_token, 0, 0), -EINVAL);
	name[RW_JOB_NAME_MAX - 1] = 0;
	rwm_expect(RW_IOC_ATTACH, 0, NULL);
	assert_int_equal(rw_attach(ctx, name, rwt_token, 0, 0), 0);
	assert_int_equal(rwm_call(0)->arg.attach.job[RW_JOB_NAME_MAX - 1], 0);
	assert_int_equal(strlen(rwm_call(0)->arg.attach.job), RW_JOB_NAME_MAX - 1);
	assert_true(rwm_done());
}

static void rwt_attach_bad_args(void **state)
{
	struct rw_ctx *ctx = *state;

	assert_int_equal(rw_attach(NULL, "j", rwt_token, 0, 0), -EINVAL);
	assert_int_equal(rw_attach(ctx, NULL, rwt_token, 0, 0), -EINVAL);
	assert_int_equal(rw_attach(ctx, "", rwt_token, 0, 0), -EINVAL);
	assert_int_equal(rw_attach(ctx, "j", NULL, 0, 0), -EINVAL);
	assert_int_equal(rw_attach(ctx, "j", rwt_token, 0, 1U << 1), -EINVAL);
	assert_int_equal(rw_attach(ctx, "j", rwt_token, 0, 1U << 31), -EINVAL);
	assert_int_equal(rwm_ncalls(), 0);
}

/* rw_attach_remote(): the box's address as RW_IOC_ATTACH carries it. */
static void rwt_attach_remote_request(void **state)
{
	static const struct {
		const char *box;
		uint16_t family, port;
		uint8_t addr[16];
	} ok[] = {
		{ "10.0.0.1", AF_INET, 0, { 10, 0, 0, 1 } },
		{ "192.168.7.9:9000", AF_INET, 9000, { 192, 168, 7, 9 } },
		{ "[fe80::1]:7", AF_INET6, 7,
		  { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 } },
		{ "::1", AF_INET6, 0, { [15] = 1 } },
		{ "[::ffff:10.0.0.2]", AF_INET6, 0,
		  { [10] = 0xff, [11] = 0xff, [12] = 10, [15] = 2 } },
	};
	struct rw_ctx *ctx;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		const struct rw_attach *a;

		rwm_reset();
		assert_int_equal(rw_ctx_open(&ctx, "/dev/null"), 0);
		rwm_expect(RW_IOC_ATTACH, 0, NULL);
		assert_int_equal(rw_attach_remote(ctx, "far", rwt_token, 1,
						  ok[i].box), 0);
		a = &rwm_call(0)->arg.attach;
		assert_int_equal(a->flags, RW_ATTACH_REMOTE);
		assert_string_equal(a->job, "far");
		assert_int_equal(a->rank, 1);
		assert_memory_equal(a->token, rwt_token, RW_JOB_TOKEN_LEN);
		assert_int_equal(a->box_family, ok[i].family);
		assert_int_equal(a->box_port, ok[i].port);
		assert_memory_equal(a->box_addr, ok[i].addr, 16);
		assert_int_equal(a->box_more, 0);
		assert_int_equal(a->nr_box_more, 0);
		assert_int_equal(a->reserved, 0);
		assert_true(rwm_done());
		rw_ctx_close(ctx);
	}
	(void)state;
}

/* A box with several NICs: one listener each, the first in the request. */
static void rwt_attach_remote_nics(void **state)
{
	const struct rwm_call *call;
	const struct rw_attach *a;
	struct rw_ctx *ctx;

	rwm_reset();
	assert_int_equal(rw_ctx_open(&ctx, "/dev/null"), 0);
	rwm_expect(RW_IOC_ATTACH, 0, NULL);
	assert_int_equal(rw_attach_remote(ctx, "far", rwt_token, 3,
					  "10.0.0.1,10.0.1.1:9000,[::1]:7"), 0);
	call = rwm_call(0);
	a = &call->arg.attach;
	assert_int_equal(a->flags, RW_ATTACH_REMOTE);
	assert_int_equal(a->rank, 3);
	assert_int_equal(a->box_family, AF_INET);
	assert_int_equal(a->box_port, 0);
	assert_memory_equal(a->box_addr, ((uint8_t[16]){ 10, 0, 0, 1 }), 16);
	assert_int_equal(a->nr_box_more, 2);
	assert_true(a->box_more != 0);
	assert_int_equal(a->reserved, 0);
	assert_int_equal(call->box_more[0].family, AF_INET);
	assert_int_equal(call->box_more[0].port, 9000);
	assert_memory_equal(call->box_more[0].addr,
			    ((uint8_t[16]){ 10, 0, 1, 1 }), 16);
	assert_int_equal(call->box_more[0].reserved, 0);
	assert_int_equal(call->box_more[1].family, AF_INET6);
	assert_int_equal(call->box_more[1].port, 7);
	assert_memory_equal(call->box_more[1].addr,
			    ((uint8_t[16]){ [15] = 1 }), 16);
	assert_true(rwm_done());
	rw_ctx_close(ctx);
	(void)state;
}

/* Addresses that do not parse never reach the module. */
static void rwt_attach_remote_bad(void **state)
{
	static const char *const bad[] = {
		"", "box.example", "10.0.0.1:", "10.0.0.1:0", "10.0.0.1:65536",
		"10.0.0.1:-1", "10.0.0.1:+5", "10.0.0.1:80x", "10.0.0.256",
		"[::1", "[::1]x", "[::1]:", "[10.0.0.1]x", "1.2.3.4:5:6",
		"[0123456789abcdef0123456789abcdef0123456789abcdef]",
		"10.0.0.1,", ",10.0.0.1", "10.0.0.1,,10.0.0.2",
		"10.0.0.1,box.example", "10.0.0.1,10.0.0.2:0",
		"1.1.1.1,1.1.1.2,1.1.1.3,1.1.1.4,1.1.1.5,1.1.1.6,1.1.1.7,1.1.1.8,1.1.1.9",
	};
	struct rw_ctx *ctx = *state;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(rw_attach_remote(ctx, "far", rwt_token, 0,
						  bad[i]), -EINVAL);
	assert_int_equal(rw_attach_remote(ctx, "far", rwt_token, 0, NULL),
			 -EINVAL);
	assert_int_equal(rw_attach_remote(NULL, "far", rwt_token, 0,
					  "10.0.0.1"), -EINVAL);
	assert_int_equal(rw_attach_remote(ctx, "", rwt_token, 0, "10.0.0.1"),
			 -EINVAL);
	assert_int_equal(rw_attach_remote(ctx, "far", NULL, 0, "10.0.0.1"),
			 -EINVAL);
	/* rw_attach() is for jobs here: the flag alone means no address. */
	assert_int_equal(rw_attach(ctx, "far", rwt_token, 0, RW_ATTACH_REMOTE),
			 -EINVAL);
	assert_int_equal(rwm_ncalls(), 0);
}

/* Each documented error comes back as is, and the context stays free. */
static void rwt_attach_errors(void **state)
{
	static const int errs[] = {
		-ENOENT, -EACCES, -ERANGE, -EADDRINUSE, -EISCONN, -EINVAL,
	};
	struct rw_ctx *ctx = *state;
	size_t i;

	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		rwm_expect(RW_IOC_ATTACH, errs[i], NULL);
		assert_int_equal(rw_attach(ctx, "job", rwt_token, 1, 0), errs[i]);
		/* ENOENT from attach is the job, and rw_strerror says that alone. */
		if (errs[i] == -ENOENT) {
			assert_non_null(strstr(rw_strerror(-ENOENT), "no job of that name"));
			assert_null(strstr(rw_strerror(-ENOENT), "token"));
		}
	}
	/* None of those attached: a declare is refused locally. */
	assert_int_equal(rw_declare(ctx, (struct rw_tensor_desc[]){ { 1, 1, 0, 0 } },
				    1, 0), -ENOTCONN);
	rwt_attach_ok(ctx);
	assert_true(rwm_done());
}

/* EINTR before the module saw the request: attach is simply issued again. */
static void rwt_attach_eintr(void **state)
{
	struct rw_ctx *ctx = *state;

	rwm_expect(RW_IOC_ATTACH, -EINTR, NULL);
	rwm_expect(RW_IOC_ATTACH, 0, NULL);
	assert_int_equal(rw_attach(ctx, "job", rwt_token, 0, 0), 0);
	assert_true(rwm_done());
}

static void rwt_attach_twice(void **state)
{
	struct rw_ctx *ctx = *state;

	rwt_attach_ok(ctx);
	assert_int_equal(rw_attach(ctx, "job-a", rwt_token, 2, 0), -EISCONN);
	assert_int_equal(rwm_ncalls(), 1);
}

static void rwt_declare_request(void **state)
{
	/* Priorities go as given: the module checks them. */
	const struct rw_tensor_desc t[3] = {
		{ .key = 7, .nelems = 640, .dtype = RW_DTYPE_F32, .priority = 0xdead },
		{ .key = 3, .nelems = 10, .dtype = RW_DTYPE_F16 },
		{ .key = 1ULL << 40, .nelems = 1, .dtype = RW_DTYPE_BF16, .priority = 1 },
	};
	struct rw_ctx *ctx = *state;
	const struct rwm_call *c;
	size_t i;

	rwt_attach_ok(ctx);
	rwm_expect(RW_IOC_DECLARE, 0, NULL);
	assert_int_equal(rw_declare(ctx, t, 3, 0), 0);
	assert_true(rwm_done());

	c = rwm_call(1);
	assert_int_equal(c->req, RW_IOC_DECLARE);
	assert_int_equal(c->arg.declare.size, RW_DECLARE_SIZE);
	assert_int_equal(c->arg.declare.flags, 0);
	assert_int_equal(c->arg.declare.nr_tensors, 3);
	assert_int_equal(c->arg.declare.reserved0, 0);
	assert_true(rwm_zero(c->arg.declare.reserved, sizeof(c->arg.declare.reserved)));
	assert_int_not_equal(c->arg.declare.tensors, 0);
	/* A copy, not the caller's array. */
	assert_int_not_equal(c->arg.declare.tensors, (uintptr_t)t);
	for (i = 0; i < 3; i++) {
		assert_int_equal(c->tensors[i].key, t[i].key);
		assert_int_equal(c->tensors[i].nelems, t[i].nelems);
		assert_int_equal(c->tensors[i].dtype, t[i].dtype);
		assert_int_equal(c->tensors[i].priority, t[i].priority);
	}
}

static void rwt_declare_verify(void **state)
{
	const struct rw_tensor_desc t = { .key = 1, .nelems = 5 };
	struct rw_ctx *ctx = *state;

	rwt_attach_ok(ctx);
	rwm_expect(RW_IOC_DECLARE, 0, NULL);
	assert_int_equal(rw_declare(ctx, &t, 1, RW_DECLARE_VERIFY), 0);
	assert_int_equal(rwm_call(1)->arg.declare.flags, RW_DECLARE_VERIFY);
	assert_true(rwm_done());
}

/* Refused before the module is asked: nothing it could accept. */
static void rwt_declare_local_checks(void **state)
{
	const struct rw_tensor_desc dup[2] = { { 5, 1, 0, 0 }, { 5, 2, 0, 0 } };
	const struct rw_tensor_desc zero = { 1, 0, 0, 0 };
	const struct rw_tensor_desc dtype = { 1, 4, 3, 0 };
	const struct rw_tensor_desc huge = { 1, UINT64_MAX / 2, RW_DTYPE_F32, 0 };
	const struct rw_tensor_desc ok = { 1, 4, 0, 0 };
	struct rw_ctx *ctx = *state;

	rwt_attach_ok(ctx);
	assert_int_equal(rw_declare(NULL, &ok, 1, 0), -EINVAL);
	assert_int_equal(rw_declare(ctx, NULL, 1, 0), -EINVAL);
	assert_int_equal(rw_declare(ctx, &ok, 0, 0), -EINVAL);
	assert_int_equal(rw_declare(ctx, &ok, 1, 1U << 1), -EINVAL);
	assert_int_equal(rw_declare(ctx, dup, 2, 0), -EINVAL);
	assert_int_equal(rw_declare(ctx, &zero, 1, 0), -EINVAL);
	assert_int_equal(rw_declare(ctx, &dtype, 1, 0), -EINVAL);
	assert_int_equal(rw_declare(ctx, &huge, 1, 0), -EOVERFLOW);
	assert_int_equal(rw_declare(ctx, &ok, RW_MAX_TENSORS + 1, 0), -E2BIG);
	assert_int_equal(rwm_ncalls(), 1);
	assert_true(rwm_done());
}

static void rwt_declare_errors(void **state)
{
	static const int errs[] = {
		-EEXIST, -ENOENT, -EOPNOTSUPP, -E2BIG, -EPERM, -ENOTCONN,
	};
	const struct rw_tensor_desc t = { .key = 1, .nelems = 5 };
	struct rw_ctx *ctx = *state;
	size_t i;

	rwt_attach_ok(ctx);
	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		rwm_expect(RW_IOC_DECLARE, errs[i], NULL);
		assert_int_equal(rw_declare(ctx, &t, 1, 0), errs[i]);
	}
	assert_true(rwm_done());
}

/* An observer's layout is recorded without RW_IOC_DECLARE (EPERM there). */
static void rwt_declare_observer(void **state)
{
	const struct rw_tensor_desc t = { .key = 1, .nelems = 5 };
	struct rw_ctx *ctx = *state;

	rwm_expect(RW_IOC_ATTACH, 0, NULL);
	assert_int_equal(rw_attach(ctx, "j", rwt_token, 0, RW_ATTACH_OBSERVER), 0);
	assert_int_equal(rw_declare(ctx, &t, 1, 0), 0);
	assert_int_equal(rwm_ncalls(), 1);
	assert_true(rwm_done());
}

/*
 * A remote observer: RW_IOC_ATTACH with both flags; its layout goes to
 * the module (its host asks the box to check it), unlike a local one's.
 */
static void rwt_remote_observer(void **state)
{
	const struct rw_tensor_desc t = { .key = 1, .nelems = 5 };
	struct rw_ctx *ctx = *state;

	/* Bad input changes nothing: no call reaches the module. */
	assert_int_equal(rw_attach_remote_flags(ctx, "far", rwt_token, 0,
						"10.0.0.1", 0x80), -EINVAL);
	assert_int_equal(rw_attach_remote_flags(ctx, "far", rwt_token, 0,
						"10.0.0.1", RW_ATTACH_REMOTE),
			 -EINVAL);
	assert_int_equal(rw_attach_remote_flags(NULL, "far", rwt_token, 0,
						"10.0.0.1", RW_ATTACH_OBSERVER),
			 -EINVAL);
	assert_int_equal(rwm_ncalls(), 0);
	rwm_expect(RW_IOC_ATTACH, 0, NULL);
	rwm_expect(RW_IOC_DECLARE, 0, NULL);
	assert_int_equal(rw_attach_remote_flags(ctx, "far", rwt_token, 0,
						"10.0.0.1:9000",
						RW_ATTACH_OBSERVER), 0);
	assert_int_equal(rwm_call(0)->arg.attach.flags,
			 RW_ATTACH_REMOTE | RW_ATTACH_OBSERVER);
	assert_int_equal(rwm_call(0)->arg.attach.box_port, 9000);
	assert_int_equal(rw_declare(ctx, &t, 1, 0), 0);
	assert_int_equal(rwm_ncalls(), 2);
	assert_int_equal(rwm_call(1)->arg.declare.nr_tensors, 1);
	assert_true(rwm_done());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) \
	cmocka_unit_test_setup_teardown(f, rwm_ctx_setup, rwm_ctx_teardown)
		T(rwt_attach_request),
		T(rwt_attach_observer),
		T(rwt_attach_name_limits),
		T(rwt_attach_bad_args),
		T(rwt_attach_remote_request),
		T(rwt_attach_remote_nics),
		T(rwt_attach_remote_bad),
		T(rwt_attach_errors),
		T(rwt_attach_eintr),
		T(rwt_attach_twice),
		T(rwt_declare_request),
		T(rwt_declare_verify),
		T(rwt_declare_local_checks),
		T(rwt_declare_errors),
		T(rwt_declare_observer),
		T(rwt_remote_observer),
#undef T
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("librackweave attach and declare",
					   tests, NULL, NULL);
}
