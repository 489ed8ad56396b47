// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl's command line, run through rwctl_run() exactly as main() does but
 * with captured streams and a scripted status source: option parsing, the
 * object and command tables, help at every level, exit codes, and which
 * stream each message goes to.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rackweave.h>

#include "jsoncheck.h"
#include "rwctl.h"
#include "rwtest.h"

static unsigned int rw_fetch_calls;
static int rw_fetch_err;		/* what the scripted module answers */

static int rw_test_fetch(struct rwctl_status *st, char *msg, size_t msglen)
{
	rw_fetch_calls++;
	if (rw_fetch_err) {
		snprintf(msg, msglen, "scripted failure %d", rw_fetch_err);
		return rw_fetch_err;
	}
	rw_test_status_fill(st);
	return 0;
}

static struct rw_result rw_last;

/* Run rwctl with the NULL-terminated arguments after "rwctl". */
static int rw_test_run(const char *arg, ...)
{
	const struct rwctl tmpl = { .fetch = rw_test_fetch };
	const char *args[16];
	int n = 0;
	va_list ap;

	va_start(ap, arg);
	for (; arg; arg = va_arg(ap, const char *)) {
		assert_true(n < 15);
		args[n++] = arg;
	}
	va_end(ap);
	args[n] = NULL;
	return rw_test_rwctl(&rw_last, &tmpl, args);
}

#define RUN(...) rw_test_run(__VA_ARGS__, (const char *)NULL)

static int rw_test_setup(void **state)
{
	(void)state;
	rw_fetch_calls = 0;
	rw_fetch_err = 0;
	return 0;
}

/* A usage error: exit 2, nothing on stdout, a hint on stderr, no query. */
static void rw_assert_usage(const char *what, const char *hint)
{
	assert_int_equal(rw_last.rc, RWCTL_EXIT_USAGE);
	assert_string_equal(rw_last.out, "");
	assert_non_null(strstr(rw_last.err, what));
	assert_non_null(strstr(rw_last.err, hint));
	assert_int_equal(rw_fetch_calls, 0);
}

/* Help: exit 0, the usage of @obj (NULL: top level) on stdout, no query. */
static void rw_assert_help(const char *obj)
{
	char want[64];

	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.err, "");
	if (obj) {
		snprintf(want, sizeof(want), "Usage: rwctl [OPTIONS] %s {", obj);
		assert_non_null(strstr(rw_last.out, want));
		assert_non_null(strstr(rw_last.out, "\n  show "));
	} else {
		assert_non_null(strstr(rw_last.out, "Usage: rwctl [OPTIONS] OBJECT"));
		assert_non_null(strstr(rw_last.out, "OBJECT := { status | dev | listen | job | policy | topo | stats | monitor }"));
	}
	assert_int_equal(rw_fetch_calls, 0);
}

static void rw_test_no_args(void **state)
{
	(void)state;
	RUN(NULL);
	assert_int_equal(rw_last.rc, RWCTL_EXIT_USAGE);
	assert_string_equal(rw_last.out, "");
	assert_non_null(strstr(rw_last.err, "Usage: rwctl"));
}

static void rw_test_unknown_object(void **state)
{
	(void)state;
	RUN("bogus");
	rw_assert_usage("unknown object 'bogus'", "Try 'rwctl help'.");
	RUN("-j", "devices");		/* no prefix matching */
	rw_assert_usage("unknown object 'devices'", "Try 'rwctl help'.");
}

static void rw_test_unknown_command(void **state)
{
	(void)state;
	RUN("dev", "bogus");
	rw_assert_usage("unknown command 'bogus' for object 'dev'",
			"Try 'rwctl dev help'.");
	RUN("status", "list");		/* "list" is an alias of dev only */
	rw_assert_usage("unknown command 'list' for object 'status'",
			"Try 'rwctl status help'.");
}

static void rw_test_unknown_option(void **state)
{
	(void)state;
	RUN("-x", "status");
	rw_assert_usage("unknown option '-x'", "rwctl help");
	RUN("--bogus", "status");
	rw_assert_usage("unknown option '--bogus'", "rwctl help");
	RUN("-jx", "status");
	rw_assert_usage("unknown option '-x'", "rwctl help");
	RUN("--js", "status");		/* long options are not abbreviated */
	rw_assert_usage("unknown option '--js'", "rwctl help");
}

static void rw_test_extra_args(void **state)
{
	(void)state;
	RUN("dev", "show", "rxe0");
	rw_assert_usage("unexpected argument 'rxe0'", "Try 'rwctl dev help'.");
	RUN("dev", "show", "-j");
	rw_assert_usage("options go before OBJECT", "Try 'rwctl dev help'.");
	RUN("help", "dev", "show");
	rw_assert_usage("unexpected argument 'show'", "rwctl help");
	RUN("help", "bogus");
	rw_assert_usage("unknown object 'bogus'", "rwctl help");
}

static void rw_test_help_top(void **state)
{
	(void)state;
	RUN("help");
	rw_assert_help(NULL);
	RUN("-h");
	rw_assert_help(NULL);
	RUN("--help");
	rw_assert_help(NULL);
	RUN("-h", "bogus");		/* -h wins over what follows */
	rw_assert_help(NULL);
}

static void rw_test_help_object(void **state)
{
	static const char *const objs[] = {
		"dev", "status", "job", "policy", "topo", "stats",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		RUN("help", objs[i]);
		rw_assert_help(objs[i]);
		RUN(objs[i], "help");
		rw_assert_help(objs[i]);
		RUN(objs[i], "show", "help");
		rw_assert_help(objs[i]);
		RUN("-j", objs[i], "help");
		rw_assert_help(objs[i]);
	}
	RUN("dev", "help");
	assert_non_null(strstr(rw_last.out, "(alias: list)"));

	/* monitor has no command words: its help is a synopsis. */
	RUN("monitor", "help");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out, "Usage: rwctl [OPTIONS] monitor [ count N ]"));
	assert_null(strstr(rw_last.out, "Commands:"));
	RUN("-j", "monitor", "timeout", "3", "help");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out, "Usage: rwctl [OPTIONS] monitor"));
	assert_int_equal(rw_fetch_calls, 0);
}

static void rw_test_version(void **state)
{
	(void)state;
	RUN("-V");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out, "rwctl " RW_VERSION_STRING " (abi 1)\n");
	RUN("--version", "bogus");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_int_equal(rw_fetch_calls, 0);
}

/* Default commands and aliases reach the same code. */
static void rw_test_dispatch(void **state)
{
	char *first;

	(void)state;
	RUN("status");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out, "rackweave 0.1.0 (abi 1)\n"));
	first = strdup(rw_last.out);
	RUN("status", "show");
	assert_string_equal(rw_last.out, first);
	free(first);

	RUN("dev");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out, "rxe0      node 0  ports 1"));
	first = strdup(rw_last.out);
	RUN("dev", "show");
	assert_string_equal(rw_last.out, first);
	RUN("dev", "list");
	assert_string_equal(rw_last.out, first);
	RUN("--", "dev");
	assert_string_equal(rw_last.out, first);
	free(first);
	assert_int_equal(rw_fetch_calls, 6);
	assert_string_equal(rw_last.err, "");
}

/* Every spelling of -j and -p gives the same document. */
static void rw_test_json_options(void **state)
{
	static const char *const pretty[][2] = {
		{ "-j", "-p" }, { "-p", "-j" }, { "-jp", NULL }, { "-pj", NULL },
		{ "--json", "--pretty" }, { "--pretty", "-j" },
	};
	char *compact;
	size_t i;

	(void)state;
	RUN("-j", "dev", "show");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_true(rw_json_valid(rw_last.out, NULL));
	assert_non_null(strstr(rw_last.out, "{\"devices\":[{\"name\":\"rxe0\""));
	compact = strdup(rw_last.out);
	RUN("--json", "dev");
	assert_string_equal(rw_last.out, compact);
	free(compact);

	for (i = 0; i < sizeof(pretty) / sizeof(pretty[0]); i++) {
		if (pretty[i][1])
			RUN(pretty[i][0], pretty[i][1], "dev", "show");
		else
			RUN(pretty[i][0], "dev", "show");
		assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
		assert_true(rw_json_valid(rw_last.out, NULL));
		assert_true(strncmp(rw_last.out, "{\n    \"devices\": [\n", 19) == 0);
	}

	RUN("-j", "status");
	assert_true(rw_json_valid(rw_last.out, NULL));
	assert_non_null(strstr(rw_last.out, "\"cpus_online\":4,"));
}

static void rw_test_pretty_without_json(void **state)
{
	char *text;

	(void)state;
	RUN("dev");
	text = strdup(rw_last.out);
	RUN("-p", "dev");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out, text);
	free(text);
}

/* A failing query: exit 1, its message on stderr, nothing on stdout. */
static void rw_test_fetch_error(void **state)
{
	(void)state;
	rw_fetch_err = -ENOENT;
	RUN("status");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_ERR);
	assert_string_equal(rw_last.out, "");
	assert_string_equal(rw_last.err, "rwctl: scripted failure -2\n");

	RUN("-j", "dev", "show");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_ERR);
	assert_string_equal(rw_last.out, "");
	assert_int_equal(rw_fetch_calls, 2);
}

static int rw_test_group_teardown(void **state)
{
	(void)state;
	rw_result_free(&rw_last);
	return 0;
}

#define RW_T(fn) cmocka_unit_test_setup(fn, rw_test_setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		RW_T(rw_test_no_args),
		RW_T(rw_test_unknown_object),
		RW_T(rw_test_unknown_command),
		RW_T(rw_test_unknown_option),
		RW_T(rw_test_extra_args),
		RW_T(rw_test_help_top),
		RW_T(rw_test_help_object),
		RW_T(rw_test_version),
		RW_T(rw_test_dispatch),
		RW_T(rw_test_json_options),
		RW_T(rw_test_pretty_without_json),
		RW_T(rw_test_fetch_error),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("rwctl-cli", tests, NULL,
					   rw_test_group_teardown);
}
