// SPDX-License-Identifier: GPL-2.0
/*
 * The shape of librackweave 0.2 as a program links against it: every new
 * function exported under RACKWEAVE_0.2, the 0.1 ones unchanged, nothing
 * internal visible, and rw_strerror() speaking RackWeave for the errors
 * the new calls return.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test-lib-mock.c"

static void rwt_symbols(void **state)
{
	static const char *const v01[] = {
		"rw_ctx_open", "rw_ctx_close", "rw_ctx_fd", "rw_ctx_version",
		"rw_strerror",
	};
	static const char *const v02[] = {
		"rw_token_read", "rw_attach", "rw_declare", "rw_map",
		"rw_setup_get", "rw_tensor", "rw_versions", "rw_push",
		"rw_pull", "rw_pushpull", "rw_set_timeout", "rw_pull_start",
		"rw_pushpull_start", "rw_wait", "rw_bind_numa",
	};
	static const char *const hidden[] = {
		"rw_ioctl", "rw_ioctl_once", "rw_neg_errno", "rw_model_build",
		"rw_model_find", "rw_model_free", "rw_dtype_size",
		"rw_map_release", "rw_async_release",
	};
	void *h;
	size_t i;

	(void)state;
	h = dlopen(RW_TEST_LIBDIR "/librackweave.so.0", RTLD_NOW | RTLD_LOCAL);
	assert_non_null(h);
	for (i = 0; i < sizeof(v01) / sizeof(v01[0]); i++)
		assert_non_null(dlvsym(h, v01[i], "RACKWEAVE_0.1"));
	for (i = 0; i < sizeof(v02) / sizeof(v02[0]); i++) {
		if (!dlvsym(h, v02[i], "RACKWEAVE_0.2"))
			fail_msg("%s is not exported as RACKWEAVE_0.2", v02[i]);
		assert_null(dlvsym(h, v02[i], "RACKWEAVE_0.1"));
	}
	for (i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++)
		if (dlsym(h, hidden[i]))
			fail_msg("%s is exported", hidden[i]);
	dlclose(h);
}

static void rwt_strerror(void **state)
{
	static const struct {
		int err;
		const char *word;
	} msgs[] = {
		{ EACCES, "token" },
		{ EADDRINUSE, "rank" },
		{ ERANGE, "worker count" },
		{ EEXIST, "layout" },
		{ ESTALE, "evicted" },
		{ ENODEV, "deleted" },
		{ EALREADY, "twice" },
		{ ENOTCONN, "attached" },
		{ EISCONN, "attached already" },
		{ ETIMEDOUT, "timed out" },
		{ EINPROGRESS, "rw_wait" },
		{ EAGAIN, "poll" },
		{ ENOSYS, "NUMA" },
		{ EOPNOTSUPP, "F32" },
		{ EINTR, "signal" },
		{ ENOENT, "module" },
		{ ENOENT, "token" },
		{ EPROTO, "ABI" },
		{ EDQUOT, "max-memory" },
		{ EDQUOT, "rwctl policy set JOB max-memory SIZE" },
		{ ENOSPC, "memory budget (the module's max_memory)" },
		{ ENOSPC, "rwctl status" },
		{ ENOSPC, "no space left on the device" },
		{ ENOMEM, "out of memory" },
		{ ENOMEM, "OOM killer" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++) {
		if (!strstr(rw_strerror(-msgs[i].err), msgs[i].word))
			fail_msg("rw_strerror(%d) = \"%s\" lacks \"%s\"",
				 -msgs[i].err, rw_strerror(-msgs[i].err),
				 msgs[i].word);
		assert_ptr_equal(rw_strerror(msgs[i].err),
				 rw_strerror(-msgs[i].err));
	}
	/* Codes without a RackWeave meaning keep the C library's words. */
	assert_string_equal(rw_strerror(-EBUSY), strerrordesc_np(EBUSY));
}

/*
 * rw_strerror(-ENOENT) names what the thread's latest call to fail with
 * ENOENT did not find, not every cause at once; another thread still
 * hears them all.
 */
static void *rwt_enoent_elsewhere(void *arg)
{
	(void)arg;
	return (void *)rw_strerror(-ENOENT);
}

static void rwt_strerror_enoent(void **state)
{
	uint8_t token[RW_JOB_TOKEN_LEN];
	struct rw_ctx *ctx = NULL;
	pthread_t t;
	void *other;

	(void)state;
	assert_int_equal(rw_ctx_open(&ctx, "/nonexistent/rackweave"), -ENOENT);
	assert_non_null(strstr(rw_strerror(-ENOENT), "RackWeave device"));
	assert_null(strstr(rw_strerror(-ENOENT), "token"));
	assert_int_equal(rw_token_read("/nonexistent/token", token), -ENOENT);
	assert_non_null(strstr(rw_strerror(ENOENT), "the token file"));
	assert_null(strstr(rw_strerror(-ENOENT), "device"));
	assert_int_equal(pthread_create(&t, NULL, rwt_enoent_elsewhere, NULL), 0);
	assert_int_equal(pthread_join(t, &other), 0);
	assert_non_null(strstr(other, "module"));
	assert_non_null(strstr(other, "token"));
}

static void rwt_versions_in_header(void **state)
{
	(void)state;
	assert_int_equal(RW_LIB_VERSION_MAJOR, 0);
	assert_int_equal(RW_LIB_VERSION_MINOR, 2);
	assert_int_equal(sizeof(struct rw_tensor_view), 56);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rwt_symbols),
		cmocka_unit_test(rwt_strerror),
		cmocka_unit_test(rwt_strerror_enoent),
		cmocka_unit_test(rwt_versions_in_header),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("librackweave 0.2 API", tests, NULL,
					   NULL);
}
