// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl's JSON reader: what it takes (rwctl's own -j and -jp output,
 * escapes, UTF-8, whole numbers to UINT64_MAX, documents one per line) and
 * each thing it refuses, with the byte it stopped at.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json.h"

/* The one document of @text; fails the test if it is not exactly one. */
static struct rwctl_json *rw_one(const char *text)
{
	struct rwctl_json *v, *extra;
	size_t pos = 0;
	char msg[128];

	assert_int_equal(rwctl_json_next(text, strlen(text), &pos, &v, msg,
					 sizeof(msg)), 1);
	assert_int_equal(rwctl_json_next(text, strlen(text), &pos, &extra, msg,
					 sizeof(msg)), 0);
	assert_null(extra);
	return v;
}

static void rw_test_values(void **state)
{
	const struct rwctl_json *e;
	struct rwctl_json *v;

	(void)state;
	v = rw_one(" {\"a\": [1, 18446744073709551615, 18446744073709551616,"
		   " -1, 1.5, 2e3, 0], \"b\": {\"c\": null, \"d\": true,"
		   " \"e\": false}, \"s\": \"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\xc3\xa9\"}\n");
	assert_int_equal(v->type, RWCTL_JSON_OBJ);
	e = rwctl_json_get(v, "a");
	assert_non_null(e);
	e = e->child;
	assert_true(e->is_u64);
	assert_int_equal(e->u64, 1);
	e = e->next;
	assert_true(e->is_u64);
	assert_int_equal(e->u64, UINT64_MAX);
	/* Past 64 bits, negative, fractions, exponents: numbers, not whole. */
	for (e = e->next; e->next; e = e->next) {
		assert_int_equal(e->type, RWCTL_JSON_NUM);
		assert_false(e->is_u64);
	}
	assert_true(e->is_u64);
	assert_int_equal(e->u64, 0);
	e = rwctl_json_get(v, "b");
	assert_int_equal(rwctl_json_get(e, "c")->type, RWCTL_JSON_NULL);
	assert_true(rwctl_json_get(e, "d")->b);
	assert_false(rwctl_json_get(e, "e")->b);
	assert_null(rwctl_json_get(e, "x"));
	assert_string_equal(rwctl_json_get(v, "s")->str,
			    "\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80\xc3\xa9");
	assert_string_equal(rwctl_json_what(v), "an object");
	rwctl_json_free(v);
}

/* Documents one per line, or -jp's over several; blank lines between. */
static void rw_test_stream(void **state)
{
	static const char text[] = "{\"n\":1}\n\n{\n    \"n\": 2\n}\n[]\r\n\"x\"";
	struct rwctl_json *v;
	size_t pos = 0;
	uint64_t want = 1;
	char msg[128];
	int n = 0;

	(void)state;
	while (rwctl_json_next(text, sizeof(text) - 1, &pos, &v, msg,
			       sizeof(msg)) == 1) {
		if (n < 2)
			assert_int_equal(rwctl_json_get(v, "n")->u64, want++);
		rwctl_json_free(v);
		n++;
	}
	assert_int_equal(n, 4);
	assert_int_equal(pos, sizeof(text) - 1);
}

static const struct {
	const char *text;
	size_t at;		/* the byte the reader stopped at */
	const char *why;
} rw_bad[] = {
	{ "{\"a\":1,}", 7, "expected a key in quotes" },
	{ "[1,]", 3, "expected a value" },
	{ "{\"a\" 1}", 5, "expected ':' after a key" },
	{ "{\"a\":1 \"b\":2}", 7, "expected ',' or '}'" },
	{ "{\"a\":1,\"a\":2}", 10, "the key \"a\" twice in one object" },
	{ "[01]", 2, "leading zero" },
	{ "[1.]", 3, "without digits after '.'" },
	{ "[1e]", 3, "without digits in its exponent" },
	{ "[-]", 2, "expected a value" },
	{ "[tru]", 1, "expected a value" },
	{ "['a']", 1, "expected a value" },
	{ "{\"a\":1", 6, "expected ',' or '}'" },
	{ "\"abc", 4, "without its closing" },
	{ "\"a\tb\"", 2, "a control character in a string" },
	{ "\"\\x\"", 2, "a bad escape" },
	{ "\"\\u12\"", 5, "four hex digits" },
	{ "\"\\u0000\"", 7, "\\u0000" },
	{ "\"\\ud83d\"", 7, "without its low one" },
	{ "\"\\ude00\"", 7, "a low surrogate" },
	{ "\"\xc3\"", 1, "invalid UTF-8" },
	{ "\"\xc0\xaf\"", 1, "invalid UTF-8" },
	{ "\"\xed\xa0\x80\"", 1, "invalid UTF-8" },
	{ "{}{}", 2, "expected a new line after a document" },
	{ "12x", 2, "expected a new line after a document" },
	{ "{\"a\":", 5, "the text ends where a value should be" },
};

static void rw_test_refused(void **state)
{
	struct rwctl_json *v;
	char msg[128];
	size_t i, pos;

	(void)state;
	for (i = 0; i < sizeof(rw_bad) / sizeof(rw_bad[0]); i++) {
		pos = 0;
		msg[0] = '\0';
		assert_int_equal(rwctl_json_next(rw_bad[i].text,
						 strlen(rw_bad[i].text), &pos,
						 &v, msg, sizeof(msg)), -EINVAL);
		assert_null(v);
		if (!strstr(msg, rw_bad[i].why) || pos != rw_bad[i].at)
			fail_msg("'%s': '%s' at %zu, wanted '%s' at %zu",
				 rw_bad[i].text, msg, pos, rw_bad[i].why,
				 rw_bad[i].at);
	}
}

/* A NUL byte is not whitespace; nesting stops at 64 levels. */
static void rw_test_limits(void **state)
{
	char deep[200], msg[128];
	struct rwctl_json *v;
	size_t pos = 0;

	(void)state;
	assert_int_equal(rwctl_json_next("[1]\0[2]", 7, &pos, &v, msg,
					 sizeof(msg)), -EINVAL);
	assert_int_equal(pos, 3);

	memset(deep, '[', 64);
	memset(deep + 64, ']', 64);
	pos = 0;
	assert_int_equal(rwctl_json_next(deep, 128, &pos, &v, msg,
					 sizeof(msg)), 1);
	rwctl_json_free(v);
	memset(deep, '[', 65);
	memset(deep + 65, ']', 65);
	pos = 0;
	assert_int_equal(rwctl_json_next(deep, 130, &pos, &v, msg,
					 sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "nested deeper than 64"));

	pos = 0;
	assert_int_equal(rwctl_json_next(" \n\t\r", 4, &pos, &v, msg,
					 sizeof(msg)), 0);
	assert_int_equal(pos, 4);
	assert_null(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rw_test_values),
		cmocka_unit_test(rw_test_stream),
		cmocka_unit_test(rw_test_refused),
		cmocka_unit_test(rw_test_limits),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("rwctl-json", tests, NULL, NULL);
}
