// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl's printer and the status/dev printers built on it: one fixed status,
 * rendered as text, compact JSON and pretty JSON, compared byte for byte and
 * run through a strict JSON validator. The validator is tested too, on
 * documents it must reject.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rackweave.h>

#include "dev.h"
#include "jsoncheck.h"
#include "print.h"
#include "rwtest.h"
#include "status.h"

enum rw_test_what { RW_STATUS, RW_DEV };

/* Render @st as rwctl would; returns the output (owned by the caller). */
static char *rw_test_render(const struct rwctl_status *st,
			    enum rw_test_what what, unsigned int flags)
{
	struct rwctl_printer p;
	struct rw_capture c;
	char *out;

	rw_capture_open(&c);
	rwctl_pr_init(&p, c.f, flags);
	if (what == RW_STATUS)
		rwctl_status_print(&p, st);
	else
		rwctl_dev_print(&p, st);
	assert_int_equal(rwctl_pr_end(&p), 0);
	rw_capture_str(&c);
	out = c.buf;
	c.buf = NULL;
	rw_capture_free(&c);
	return out;
}

static void rw_test_assert_json(const char *text)
{
	size_t off = 0;

	if (!rw_json_valid(text, &off))
		fail_msg("invalid JSON at offset %zu: %s", off, text);
}

static int rw_test_setup(void **state)
{
	struct rwctl_status *st = calloc(1, sizeof(*st));

	assert_non_null(st);
	rw_test_status_fill(st);
	*state = st;
	return 0;
}

static int rw_test_teardown(void **state)
{
	rwctl_status_free(*state);
	free(*state);
	return 0;
}

static void rw_test_status_text(void **state)
{
	char *out = rw_test_render(*state, RW_STATUS, 0);

	assert_string_equal(out,
		"rackweave 0.1.0 (abi 1)\n"
		"features: version-ioctl genl-status ib-client jobs local-path events wire-listen params-init checkpoint\n"
		"cpus: 4 online\n"
		"node 0: cpus 0 (1 cpu), 512 MiB\n"
		"node 1: cpus 1-3 (3 cpus), 1024 MiB\n"
		"devices: 2 (rxe0, siw_eth1)\n");
	free(out);
}

static void rw_test_status_json(void **state)
{
	char *out = rw_test_render(*state, RW_STATUS, RWCTL_PR_JSON);

	rw_test_assert_json(out);
	assert_string_equal(out,
		"{\"version\":\"0.1.0\",\"version_code\":256,\"abi\":1,"
		"\"features\":[\"version-ioctl\",\"genl-status\",\"ib-client\","
		"\"jobs\",\"local-path\",\"events\",\"wire-listen\",\"params-init\",\"checkpoint\"],\"features_mask\":511,\"cpus_online\":4,"
		"\"nodes\":[{\"id\":0,\"cpulist\":\"0\",\"nr_cpus\":1,\"mem_mb\":512},"
		"{\"id\":1,\"cpulist\":\"1-3\",\"nr_cpus\":3,\"mem_mb\":1024}],"
		"\"devices\":[{\"name\":\"rxe0\",\"numa_node\":0,\"ports\":1,"
		"\"node_guid\":\"5054:00ff:fe12:3456\",\"index\":1},"
		"{\"name\":\"siw_eth1\",\"numa_node\":-1,\"ports\":2,"
		"\"node_guid\":\"0000:0000:00ab:cdef\",\"index\":7}]}\n");
	free(out);
}

/* The aggregation line appears when the module reports its kernels. */
static void rw_test_status_agg_impl(void **state)
{
	struct rwctl_status *st = *state;
	char *out;

	snprintf(st->agg_impl, sizeof(st->agg_impl), "%s", "avx512");
	out = rw_test_render(st, RW_STATUS, 0);
	assert_non_null(strstr(out, "cpus: 4 online\naggregation: avx512\nnode 0:"));
	free(out);
	out = rw_test_render(st, RW_STATUS, RWCTL_PR_JSON);
	rw_test_assert_json(out);
	assert_non_null(strstr(out, "\"cpus_online\":4,\"agg_impl\":\"avx512\","));
	free(out);
}

/*
 * The memory line appears when the module reports its budget (what runs
 * are charged, of the max_memory budget); JSON gets it in bytes.
 */
static void rw_test_status_memory(void **state)
{
	struct rwctl_status *st = *state;
	char *out;

	st->has_mem = true;
	st->mem_budget = 1ULL << 30;
	st->mem_used = 300ULL << 20;
	out = rw_test_render(st, RW_STATUS, 0);
	assert_string_equal(out,
		"rackweave 0.1.0 (abi 1)\n"
		"features: version-ioctl genl-status ib-client jobs local-path events wire-listen params-init checkpoint\n"
		"cpus: 4 online\n"
		"memory: 300 MiB used of a 1.00 GiB budget (max_memory)\n"
		"node 0: cpus 0 (1 cpu), 512 MiB\n"
		"node 1: cpus 1-3 (3 cpus), 1024 MiB\n"
		"devices: 2 (rxe0, siw_eth1)\n");
	free(out);
	out = rw_test_render(st, RW_STATUS, RWCTL_PR_JSON);
	rw_test_assert_json(out);
	assert_non_null(strstr(out,
		"\"cpus_online\":4,\"mem_budget\":1073741824,\"mem_used\":314572800,\"nodes\":["));
	free(out);

	/* After the aggregation line; nothing used yet. */
	snprintf(st->agg_impl, sizeof(st->agg_impl), "%s", "avx2");
	st->mem_budget = 12567891968ULL;
	st->mem_used = 0;
	out = rw_test_render(st, RW_STATUS, 0);
	assert_non_null(strstr(out,
		"aggregation: avx2\nmemory: 0 B used of a 11.7 GiB budget (max_memory)\nnode 0:"));
	free(out);
	out = rw_test_render(st, RW_STATUS, RWCTL_PR_JSON | RWCTL_PR_PRETTY);
	rw_test_assert_json(out);
	assert_non_null(strstr(out,
		"    \"agg_impl\": \"avx2\",\n"
		"    \"mem_budget\": 12567891968,\n"
		"    \"mem_used\": 0,\n"));
	free(out);

	/* An older module's status has neither (rw_test_status_text). */
	st->has_mem = false;
	out = rw_test_render(st, RW_STATUS, RWCTL_PR_JSON);
	assert_null(strstr(out, "mem_budget"));
	assert_null(strstr(out, "mem_used"));
	free(out);
}

static void rw_test_status_json_pretty(void **state)
{
	char *out = rw_test_render(*state, RW_STATUS,
				   RWCTL_PR_JSON | RWCTL_PR_PRETTY);

	rw_test_assert_json(out);
	assert_string_equal(out,
		"{\n"
		"    \"version\": \"0.1.0\",\n"
		"    \"version_code\": 256,\n"
		"    \"abi\": 1,\n"
		"    \"features\": [\n"
		"        \"version-ioctl\",\n"
		"        \"genl-status\",\n"
		"        \"ib-client\",\n"
		"        \"jobs\",\n"
		"        \"local-path\",\n"
		"        \"events\",\n"
		"        \"wire-listen\",\n"
		"        \"params-init\",\n"
		"        \"checkpoint\"\n"
		"    ],\n"
		"    \"features_mask\": 511,\n"
		"    \"cpus_online\": 4,\n"
		"    \"nodes\": [\n"
		"        {\n"
		"            \"id\": 0,\n"
		"            \"cpulist\": \"0\",\n"
		"            \"nr_cpus\": 1,\n"
		"            \"mem_mb\": 512\n"
		"        },\n"
		"        {\n"
		"            \"id\": 1,\n"
		"            \"cpulist\": \"1-3\",\n"
		"            \"nr_cpus\": 3,\n"
		"            \"mem_mb\": 1024\n"
		"        }\n"
		"    ],\n"
		"    \"devices\": [\n"
		"        {\n"
		"            \"name\": \"rxe0\",\n"
		"            \"numa_node\": 0,\n"
		"            \"ports\": 1,\n"
		"            \"node_guid\": \"5054:00ff:fe12:3456\",\n"
		"            \"index\": 1\n"
		"        },\n"
		"        {\n"
		"            \"name\": \"siw_eth1\",\n"
		"            \"numa_node\": -1,\n"
		"            \"ports\": 2,\n"
		"            \"node_guid\": \"0000:0000:00ab:cdef\",\n"
		"            \"index\": 7\n"
		"        }\n"
		"    ]\n"
		"}\n");
	free(out);
}

/* No ABI (device unreadable), no features, a CPU-less node, no devices. */
static void rw_test_status_sparse(void **state)
{
	struct rwctl_status *st = *state;
	char *out;

	st->abi = 0;
	st->features = 0;
	st->nodes[1].nr_cpus = 0;
	st->nodes[1].cpulist[0] = '\0';
	st->nr_devs = 0;

	out = rw_test_render(st, RW_STATUS, 0);
	assert_string_equal(out,
		"rackweave 0.1.0\n"
		"features: none\n"
		"cpus: 4 online\n"
		"node 0: cpus 0 (1 cpu), 512 MiB\n"
		"node 1: no cpus, 1024 MiB\n"
		"devices: 0\n");
	free(out);

	out = rw_test_render(st, RW_STATUS, RWCTL_PR_JSON);
	rw_test_assert_json(out);
	assert_null(strstr(out, "\"abi\""));
	assert_non_null(strstr(out, "\"features\":[],\"features_mask\":0,"));
	assert_non_null(strstr(out, "{\"id\":1,\"cpulist\":\"\",\"nr_cpus\":0,"));
	assert_non_null(strstr(out, "\"devices\":[]}"));
	free(out);
}

/* Bits a newer module may set are shown by number, not dropped. */
static void rw_test_status_unknown_feature(void **state)
{
	struct rwctl_status *st = *state;
	char *out;

	st->features = RW_FEAT_GENL_STATUS | 1ULL << 40;
	out = rw_test_render(st, RW_STATUS, 0);
	assert_non_null(strstr(out, "\nfeatures: genl-status bit40\n"));
	free(out);

	out = rw_test_render(st, RW_STATUS, RWCTL_PR_JSON);
	rw_test_assert_json(out);
	assert_non_null(strstr(out,
		"\"features\":[\"genl-status\",\"bit40\"],"
		"\"features_mask\":1099511627778,"));
	free(out);
}

static void rw_test_dev_text(void **state)
{
	char *out = rw_test_render(*state, RW_DEV, 0);

	assert_string_equal(out,
		"rxe0      node 0  ports 1  guid 5054:00ff:fe12:3456\n"
		"siw_eth1  node -  ports 2  guid 0000:0000:00ab:cdef\n");
	free(out);
}

static void rw_test_dev_json(void **state)
{
	char *out = rw_test_render(*state, RW_DEV, RWCTL_PR_JSON);

	rw_test_assert_json(out);
	assert_string_equal(out,
		"{\"devices\":[{\"name\":\"rxe0\",\"numa_node\":0,\"ports\":1,"
		"\"node_guid\":\"5054:00ff:fe12:3456\",\"index\":1},"
		"{\"name\":\"siw_eth1\",\"numa_node\":-1,\"ports\":2,"
		"\"node_guid\":\"0000:0000:00ab:cdef\",\"index\":7}],"
		"\"listeners\":[]}\n");
	free(out);
}

static void rw_test_dev_empty(void **state)
{
	struct rwctl_status *st = *state;
	char *out;

	st->nr_devs = 0;
	out = rw_test_render(st, RW_DEV, 0);
	assert_string_equal(out, "");
	free(out);

	out = rw_test_render(st, RW_DEV, RWCTL_PR_JSON);
	assert_string_equal(out, "{\"devices\":[],\"listeners\":[]}\n");
	free(out);

	out = rw_test_render(st, RW_DEV, RWCTL_PR_JSON | RWCTL_PR_PRETTY);
	rw_test_assert_json(out);
	assert_string_equal(out, "{\n    \"devices\": [],\n    \"listeners\": []\n}\n");
	free(out);
}

/* Pretty without JSON changes nothing: -p alone is not -j. */
static void rw_test_pretty_alone_is_text(void **state)
{
	char *plain = rw_test_render(*state, RW_DEV, 0);
	char *pretty = rw_test_render(*state, RW_DEV, RWCTL_PR_PRETTY);

	assert_string_equal(plain, pretty);
	free(plain);
	free(pretty);
}

static void rw_test_json_escaping(void **state)
{
	struct rwctl_status *st = *state;
	char *out;

	/* quote, backslash, tab, a control byte, é in UTF-8, a stray 0xff */
	strcpy(st->devs[0].name, "rx\"e\\0\t\x01\xc3\xa9\xff");
	out = rw_test_render(st, RW_DEV, RWCTL_PR_JSON);
	rw_test_assert_json(out);
	assert_non_null(strstr(out,
		"\"name\":\"rx\\\"e\\\\0\\t\\u0001\xc3\xa9\\ufffd\","));
	free(out);

	out = rw_test_render(st, RW_STATUS, RWCTL_PR_JSON | RWCTL_PR_PRETTY);
	rw_test_assert_json(out);
	free(out);
}

static void rw_test_json_string_edges(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "", "\"\"" },
		{ "/", "\"/\"" },
		{ "\n\r\b\f", "\"\\n\\r\\b\\f\"" },
		{ "\x1f\x7f", "\"\\u001f\x7f\"" },
		{ "\xe2\x82\xac", "\"\xe2\x82\xac\"" },		/* U+20AC */
		{ "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"" },	/* U+1F600 */
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },		/* overlong '/' */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },	/* surrogate */
		{ "\xe2\x82", "\"\\ufffd\\ufffd\"" },		/* truncated */
	};
	struct rw_capture c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rw_capture_open(&c);
		rwctl_pr_json_string(c.f, cases[i].in);
		assert_string_equal(rw_capture_str(&c), cases[i].out);
		rw_test_assert_json(c.buf);
		rw_capture_free(&c);
	}
}

/* Each mode prints only what is meant for it. */
static void rw_test_mode_filters(void **state)
{
	struct rwctl_printer p;
	struct rw_capture c;

	(void)state;
	rw_capture_open(&c);
	rwctl_pr_init(&p, c.f, 0);
	rwctl_pr_obj_open(&p, NULL);
	rwctl_pr_u32(&p, "hidden", NULL, 1);
	rwctl_pr_text(&p, "text %d", 2);
	rwctl_pr_s32(&p, "shown", " %d", -3);
	rwctl_pr_u64(&p, "big", " %" PRIu64, UINT64_MAX);
	rwctl_pr_nl(&p);
	rwctl_pr_obj_close(&p);
	assert_int_equal(rwctl_pr_end(&p), 0);
	assert_string_equal(rw_capture_str(&c), "text 2 -3 18446744073709551615\n");
	rw_capture_free(&c);

	rw_capture_open(&c);
	rwctl_pr_init(&p, c.f, RWCTL_PR_JSON);
	rwctl_pr_obj_open(&p, NULL);
	rwctl_pr_u32(&p, "hidden", NULL, 1);
	rwctl_pr_text(&p, "text %d", 2);
	rwctl_pr_s32(&p, "shown", " %d", -3);
	rwctl_pr_u64(&p, "big", " %" PRIu64, UINT64_MAX);
	rwctl_pr_nl(&p);
	rwctl_pr_obj_close(&p);
	assert_int_equal(rwctl_pr_end(&p), 0);
	assert_string_equal(rw_capture_str(&c),
		"{\"hidden\":1,\"shown\":-3,\"big\":18446744073709551615}\n");
	rw_capture_free(&c);
}

/* Misuse is reported by rwctl_pr_end(), never turned into broken JSON silently. */
static void rw_test_misuse(void **state)
{
	struct rwctl_printer p;
	struct rw_capture c;
	int i;

	(void)state;
	for (i = 0; i < 5; i++) {
		rw_capture_open(&c);
		rwctl_pr_init(&p, c.f, RWCTL_PR_JSON);
		switch (i) {
		case 0:		/* never closed */
			rwctl_pr_obj_open(&p, NULL);
			break;
		case 1:		/* member without a key */
			rwctl_pr_obj_open(&p, NULL);
			rwctl_pr_u32(&p, NULL, NULL, 1);
			rwctl_pr_obj_close(&p);
			break;
		case 2:		/* closed with the wrong bracket */
			rwctl_pr_arr_open(&p, NULL);
			rwctl_pr_obj_close(&p);
			rwctl_pr_arr_close(&p);
			break;
		case 3:		/* two documents */
			rwctl_pr_u32(&p, NULL, NULL, 1);
			rwctl_pr_u32(&p, NULL, NULL, 2);
			break;
		case 4:		/* nothing at all */
			break;
		}
		assert_int_equal(rwctl_pr_end(&p), -EINVAL);
		rw_capture_free(&c);
	}
}

static void rw_test_write_error(void **state)
{
	struct rwctl_printer p;
	FILE *f = fopen("/dev/full", "w");

	assert_non_null(f);
	rwctl_pr_init(&p, f, RWCTL_PR_JSON);
	rwctl_dev_print(&p, *state);
	assert_int_equal(rwctl_pr_end(&p), -EIO);
	fclose(f);
}

/* The validator must not be a tautology: it rejects what JSON rejects. */
static void rw_test_validator(void **state)
{
	static const char *const bad[] = {
		"", "{", "{\"a\":1,}", "[1,]", "{\"a\" 1}", "{'a':1}",
		"{\"a\":\"x\"y\"}", "[\"\x01\"]", "[\"tab\there\"]", "{\"a\":01}",
		"[1]x", "{\"a\":1}{\"b\":2}", "[\"\\x\"]", "[\"\\u12\"]",
		"[\"\xff\"]", "[\"\xc3\"]", "[tru]", "[-]", "[1.]", "[.5]",
		"[1e]", "[nul]", "{1:2}", "[\"open]",
	};
	static const char *const good[] = {
		"{}", "[]", " 0 ", "-0.5e+3", "\"\\u00e9\\n\\/\"",
		"{\"a\":[1,-2.5E3,true,false,null,\"\xc3\xa9\"],\"b\":{}}",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (rw_json_valid(bad[i], NULL))
			fail_msg("accepted invalid JSON: %s", bad[i]);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!rw_json_valid(good[i], NULL))
			fail_msg("rejected valid JSON: %s", good[i]);
}

static void rw_test_guid_format(void **state)
{
	char buf[RWCTL_GUID_LEN];

	(void)state;
	rwctl_dev_format_guid(buf, 0xffffffffffffffffULL);
	assert_string_equal(buf, "ffff:ffff:ffff:ffff");
	rwctl_dev_format_guid(buf, 0x0001000200030004ULL);
	assert_string_equal(buf, "0001:0002:0003:0004");
}

/* Three significant digits; rounding that reaches the next unit takes it. */
static void rw_test_human_units(void **state)
{
	static const struct {
		uint64_t v;
		const char *bytes;
		const char *ns;
	} cases[] = {
		{ 0, "0 B", "0 ns" },
		{ 999, "999 B", "999 ns" },
		{ 1000, "1000 B", "1.00 us" },
		{ 1023, "1023 B", "1.02 us" },
		{ 1024, "1.00 KiB", "1.02 us" },
		{ 1536, "1.50 KiB", "1.54 us" },
		{ 10234, "9.99 KiB", "10.2 us" },
		{ 10239, "10.0 KiB", "10.2 us" },
		{ 102399, "100 KiB", "102 us" },
		{ 999499, "976 KiB", "999 us" },
		{ 999999, "977 KiB", "1.00 ms" },
		{ 1048063, "1023 KiB", "1.05 ms" },
		{ 1048575, "1.00 MiB", "1.05 ms" },
		{ 12000000, "11.4 MiB", "12.0 ms" },
		{ 3200000000ULL, "2.98 GiB", "3.20 s" },
		{ 10000000000000ULL, "9.09 TiB", "10000 s" },
		{ UINT64_MAX, "16.0 EiB", "18446744074 s" },
	};
	char buf[RWCTL_PR_HUMAN_LEN];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (strcmp(rwctl_pr_fmt_bytes(buf, cases[i].v), cases[i].bytes))
			fail_msg("%" PRIu64 " bytes: %s", cases[i].v, buf);
		if (strcmp(rwctl_pr_fmt_ns(buf, cases[i].v), cases[i].ns))
			fail_msg("%" PRIu64 " ns: %s", cases[i].v, buf);
	}
}

static void rw_test_bool(void **state)
{
	struct rwctl_printer p;
	struct rw_capture c;

	(void)state;
	rw_capture_open(&c);
	rwctl_pr_init(&p, c.f, RWCTL_PR_JSON);
	rwctl_pr_obj_open(&p, NULL);
	rwctl_pr_bool(&p, "a", "%s", true);
	rwctl_pr_bool(&p, "b", NULL, false);
	rwctl_pr_obj_close(&p);
	assert_int_equal(rwctl_pr_end(&p), 0);
	assert_string_equal(rw_capture_str(&c), "{\"a\":true,\"b\":false}\n");
	rw_capture_free(&c);

	rw_capture_open(&c);
	rwctl_pr_init(&p, c.f, 0);
	rwctl_pr_bool(&p, "a", "[%s]", true);
	rwctl_pr_bool(&p, "b", "[%s]", false);
	rwctl_pr_bool(&p, "c", NULL, true);
	assert_int_equal(rwctl_pr_end(&p), 0);
	assert_string_equal(rw_capture_str(&c), "[yes][no]");
	rw_capture_free(&c);
}

#define RW_T(fn) cmocka_unit_test_setup_teardown(fn, rw_test_setup, rw_test_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		RW_T(rw_test_status_text),
		RW_T(rw_test_status_json),
		RW_T(rw_test_status_json_pretty),
		RW_T(rw_test_status_agg_impl),
		RW_T(rw_test_status_memory),
		RW_T(rw_test_status_sparse),
		RW_T(rw_test_status_unknown_feature),
		RW_T(rw_test_dev_text),
		RW_T(rw_test_dev_json),
		RW_T(rw_test_dev_empty),
		RW_T(rw_test_pretty_alone_is_text),
		RW_T(rw_test_json_escaping),
		cmocka_unit_test(rw_test_json_string_edges),
		cmocka_unit_test(rw_test_mode_filters),
		cmocka_unit_test(rw_test_misuse),
		RW_T(rw_test_write_error),
		cmocka_unit_test(rw_test_validator),
		cmocka_unit_test(rw_test_guid_format),
		cmocka_unit_test(rw_test_human_units),
		cmocka_unit_test(rw_test_bool),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("rwctl-print", tests, NULL, NULL);
}
