// SPDX-License-Identifier: GPL-2.0
/*
 * librackweave against a scripted kernel: the test binary is linked with
 * -Wl,--wrap=ioctl,--wrap=open, so the library's ioctl() lands in
 * __wrap_ioctl() below and its open() is observed on the way to the real
 * one. The device is /dev/null, a real character device that accepts
 * O_RDWR, so contexts are genuine file descriptors.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rackweave.h>

int __wrap_ioctl(int fd, unsigned long req, ...);
int __wrap_open(const char *path, int flags, ...);
int __real_open(const char *path, int flags, ...);

/* What the "kernel" last received, and how often it was asked. */
static struct rw_version_info rw_test_req;
static unsigned int rw_test_ioctl_calls;

/* What the library last passed to open(). */
static char rw_test_opened_path[256];
static int rw_test_opened_flags;

/*
 * Scripted RW_IOC_VERSION: each call consumes a will_return() value, a
 * negative errno to fail with, or 0 followed by a pointer to the reply the
 * module writes back.
 */
int __wrap_ioctl(int fd, unsigned long req, ...)
{
	const struct rw_version_info *reply;
	struct rw_version_info *arg;
	va_list ap;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, struct rw_version_info *);
	va_end(ap);

	check_expected(fd);
	check_expected(req);
	rw_test_ioctl_calls++;
	memcpy(&rw_test_req, arg, sizeof(rw_test_req));

	ret = mock_type(int);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	reply = mock_ptr_type(const struct rw_version_info *);
	memcpy(arg, reply, sizeof(*arg));
	return 0;
}

int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	snprintf(rw_test_opened_path, sizeof(rw_test_opened_path), "%s", path);
	rw_test_opened_flags = flags;
	return __real_open(path, flags, mode);
}

static const struct rw_version_info rw_test_good_reply = {
	.size = sizeof(struct rw_version_info),
	.version = RW_VERSION_CODE,
	.abi = RW_ABI_VERSION,
	.features = RW_FEATURES_ALL,
};

static int rw_test_setup(void **state)
{
	struct rw_ctx *ctx;

	rw_test_ioctl_calls = 0;
	memset(&rw_test_req, 0, sizeof(rw_test_req));
	assert_int_equal(rw_ctx_open(&ctx, "/dev/null"), 0);
	*state = ctx;
	return 0;
}

static int rw_test_teardown(void **state)
{
	rw_ctx_close(*state);
	return 0;
}

/* The next ioctl must be RW_IOC_VERSION on @ctx's descriptor. */
static void rw_test_expect_version(struct rw_ctx *ctx)
{
	expect_value(__wrap_ioctl, fd, rw_ctx_fd(ctx));
	expect_value(__wrap_ioctl, req, RW_IOC_VERSION);
}

static void rw_test_open_missing(void **state)
{
	/* Any non-NULL value: a failed open must reset it. */
	struct rw_ctx *ctx = (struct rw_ctx *)state;

	assert_int_equal(rw_ctx_open(&ctx, "/nonexistent/rackweave"), -ENOENT);
	assert_null(ctx);
}

static void rw_test_open_default_path(void **state)
{
	struct rw_ctx *ctx = NULL;
	int err;

	(void)state;
	err = rw_ctx_open(&ctx, NULL);
	assert_string_equal(rw_test_opened_path, RW_DEV_PATH);
	if (err)
		assert_null(ctx);
	rw_ctx_close(ctx);
}

static void rw_test_open_flags(void **state)
{
	struct rw_ctx *ctx = *state;
	int fd = rw_ctx_fd(ctx);

	assert_true(fd >= 0);
	assert_string_equal(rw_test_opened_path, "/dev/null");
	assert_int_equal(rw_test_opened_flags, O_RDWR | O_CLOEXEC);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDWR);
}

static void rw_test_bad_args(void **state)
{
	struct rw_version_info out;

	/* No ioctl may happen: __wrap_ioctl has no expectations queued. */
	assert_int_equal(rw_ctx_open(NULL, "/dev/null"), -EINVAL);
	assert_int_equal(rw_ctx_fd(NULL), -EINVAL);
	assert_int_equal(rw_ctx_version(NULL, &out), -EINVAL);
	assert_int_equal(rw_ctx_version(*state, NULL), -EINVAL);
	assert_int_equal(rw_test_ioctl_calls, 0);
	rw_ctx_close(NULL);
}

static void rw_test_contexts_independent(void **state)
{
	struct rw_ctx *other;

	assert_int_equal(rw_ctx_open(&other, "/dev/null"), 0);
	assert_int_not_equal(rw_ctx_fd(other), rw_ctx_fd(*state));
	rw_ctx_close(other);
	assert_true(fcntl(rw_ctx_fd(*state), F_GETFD) >= 0);
}

static void rw_test_version_success(void **state)
{
	struct rw_ctx *ctx = *state;
	struct rw_version_info out;

	rw_test_expect_version(ctx);
	will_return(__wrap_ioctl, 0);
	will_return(__wrap_ioctl, &rw_test_good_reply);

	assert_int_equal(rw_ctx_version(ctx, &out), 0);
	assert_int_equal(out.version, RW_VERSION_CODE);
	assert_int_equal(out.abi, RW_ABI_VERSION);
	assert_int_equal(out.features, RW_FEATURES_ALL);
	assert_int_equal(rw_test_ioctl_calls, 1);
}

static void rw_test_version_request(void **state)
{
	struct rw_ctx *ctx = *state;
	struct rw_version_info out;
	size_t i;

	/* Garbage in the caller's struct must not leak into the request. */
	memset(&out, 0xff, sizeof(out));
	rw_test_expect_version(ctx);
	will_return(__wrap_ioctl, 0);
	will_return(__wrap_ioctl, &rw_test_good_reply);

	assert_int_equal(rw_ctx_version(ctx, &out), 0);
	assert_int_equal(rw_test_req.size, RW_VERSION_INFO_SIZE);
	assert_int_equal(rw_test_req.flags, 0);
	assert_int_equal(rw_test_req.version, 0);
	assert_int_equal(rw_test_req.abi, 0);
	assert_int_equal(rw_test_req.features, 0);
	for (i = 0; i < sizeof(rw_test_req.reserved) / sizeof(rw_test_req.reserved[0]); i++)
		assert_int_equal(rw_test_req.reserved[i], 0);
}

static void rw_test_version_abi_mismatch(void **state)
{
	struct rw_version_info reply = rw_test_good_reply, out, before;
	struct rw_ctx *ctx = *state;

	reply.abi = RW_ABI_VERSION + 1;
	memset(&out, 0xaa, sizeof(out));
	before = out;
	rw_test_expect_version(ctx);
	will_return(__wrap_ioctl, 0);
	will_return(__wrap_ioctl, &reply);

	assert_int_equal(rw_ctx_version(ctx, &out), -EPROTO);
	assert_memory_equal(&out, &before, sizeof(out));
}

static void rw_test_version_errno(void **state)
{
	static const int errs[] = { -ENOTTY, -EINVAL, -EFAULT, -ENODEV };
	struct rw_ctx *ctx = *state;
	struct rw_version_info out, before;
	size_t i;

	memset(&out, 0x55, sizeof(out));
	before = out;
	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		rw_test_expect_version(ctx);
		will_return(__wrap_ioctl, errs[i]);
		assert_int_equal(rw_ctx_version(ctx, &out), errs[i]);
		assert_memory_equal(&out, &before, sizeof(out));
	}
}

static void rw_test_version_eintr(void **state)
{
	struct rw_ctx *ctx = *state;
	struct rw_version_info out;

	rw_test_expect_version(ctx);
	will_return(__wrap_ioctl, -EINTR);
	rw_test_expect_version(ctx);
	will_return(__wrap_ioctl, 0);
	will_return(__wrap_ioctl, &rw_test_good_reply);

	assert_int_equal(rw_ctx_version(ctx, &out), 0);
	assert_int_equal(rw_test_ioctl_calls, 2);
	assert_int_equal(out.abi, RW_ABI_VERSION);
}

/* A newer module may fill reserved words; this library must not object. */
static void rw_test_version_reserved_out(void **state)
{
	struct rw_version_info reply = rw_test_good_reply, out;
	struct rw_ctx *ctx = *state;

	reply.reserved[0] = 42;
	reply.features |= 1ULL << 63;
	rw_test_expect_version(ctx);
	will_return(__wrap_ioctl, 0);
	will_return(__wrap_ioctl, &reply);

	assert_int_equal(rw_ctx_version(ctx, &out), 0);
	assert_int_equal(out.features, RW_FEATURES_ALL | 1ULL << 63);
}

static void rw_test_strerror(void **state)
{
	(void)state;
	assert_non_null(strstr(rw_strerror(-ENOENT), "module"));
	assert_ptr_equal(rw_strerror(-ENOENT), rw_strerror(ENOENT));
	assert_non_null(strstr(rw_strerror(-EPROTO), "ABI"));
	assert_string_equal(rw_strerror(-EBUSY), strerrordesc_np(EBUSY));
	assert_string_equal(rw_strerror(0), "success");
	assert_string_equal(rw_strerror(-99999), "unknown error");
}

/* The shared object exports exactly the API, under RACKWEAVE_0.1. */
static void rw_test_symbol_versions(void **state)
{
	static const char *const syms[] = {
		"rw_ctx_open", "rw_ctx_close", "rw_ctx_fd", "rw_ctx_version",
		"rw_strerror",
	};
	void *h;
	size_t i;

	(void)state;
	h = dlopen(RW_TEST_LIBDIR "/librackweave.so.0", RTLD_NOW | RTLD_LOCAL);
	assert_non_null(h);
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		assert_non_null(dlvsym(h, syms[i], "RACKWEAVE_0.1"));
	assert_null(dlsym(h, "rw_ioctl"));
	assert_null(dlsym(h, "rw_errors"));
	dlclose(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rw_test_open_missing),
		cmocka_unit_test(rw_test_open_default_path),
		cmocka_unit_test_setup_teardown(rw_test_open_flags,
						rw_test_setup, rw_test_teardown),
		cmocka_unit_test_setup_teardown(rw_test_bad_args,
						rw_test_setup, rw_test_teardown),
		cmocka_unit_test_setup_teardown(rw_test_contexts_independent,
						rw_test_setup, rw_test_teardown),
		cmocka_unit_test_setup_teardown(rw_test_version_success,
						rw_test_setup, rw_test_teardown),
		cmocka_unit_test_setup_teardown(rw_test_version_request,
						rw_test_setup, rw_test_teardown),
		cmocka_unit_test_setup_teardown(rw_test_version_abi_mismatch,
						rw_test_setup, rw_test_teardown),
		cmocka_unit_test_setup_teardown(rw_test_version_errno,
						rw_test_setup, rw_test_teardown),
		cmocka_unit_test_setup_teardown(rw_test_version_eintr,
						rw_test_setup, rw_test_teardown),
		cmocka_unit_test_setup_teardown(rw_test_version_reserved_out,
						rw_test_setup, rw_test_teardown),
		cmocka_unit_test(rw_test_strerror),
		cmocka_unit_test(rw_test_symbol_versions),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("librackweave", tests, NULL, NULL);
}
