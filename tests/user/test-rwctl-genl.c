// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing of RW_CMD_STATUS_GET replies. Each test builds a reply with libnl
 * as the module would (or as a broken module might) and hands it to
 * rwctl_genl_parse_status(): well-formed replies must come out as the same
 * numbers and strings, malformed ones must be refused with -EPROTO and a
 * message, and attributes from a newer module must be ignored.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <rackweave.h>

#include "status.h"

#define RW_TEST_FAMILY	0x1c	/* any id: the parser does not look at it */

struct rw_fixture {
	struct nl_msg *msg;
	struct rwctl_status st;
	char why[256];
};

static int rw_test_setup(void **state)
{
	struct rw_fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->msg = nlmsg_alloc();
	assert_non_null(fx->msg);
	assert_non_null(genlmsg_put(fx->msg, NL_AUTO_PORT, NL_AUTO_SEQ,
				    RW_TEST_FAMILY, 0, 0, RW_CMD_STATUS_GET,
				    RW_GENL_VERSION));
	*state = fx;
	return 0;
}

static int rw_test_teardown(void **state)
{
	struct rw_fixture *fx = *state;

	rwctl_status_free(&fx->st);
	nlmsg_free(fx->msg);
	free(fx);
	return 0;
}

static int rw_parse(struct rw_fixture *fx)
{
	rwctl_status_free(&fx->st);
	fx->why[0] = '\0';
	return rwctl_genl_parse_status(nlmsg_hdr(fx->msg), &fx->st, fx->why,
				       sizeof(fx->why));
}

static void rw_assert_malformed(struct rw_fixture *fx)
{
	assert_int_equal(rw_parse(fx), -EPROTO);
	assert_non_null(strstr(fx->why, "malformed status reply"));
}

/* The four attributes every reply carries, as the module sends them. */
static void rw_put_header(struct nl_msg *m)
{
	assert_int_equal(nla_put_string(m, RW_A_VERSION, RW_VERSION_STRING), 0);
	assert_int_equal(nla_put_u32(m, RW_A_VERSION_CODE, RW_VERSION_CODE), 0);
	assert_int_equal(nla_put_u64(m, RW_A_FEATURES, RW_FEATURES_ALL), 0);
	assert_int_equal(nla_put_u32(m, RW_A_CPUS_ONLINE, 4), 0);
}

static void rw_put_node(struct nl_msg *m, uint32_t id, uint32_t nr,
			const char *cpulist, uint64_t mem_mb)
{
	struct nlattr *e = nla_nest_start(m, RW_A_NODES_ENTRY);

	assert_non_null(e);
	assert_int_equal(nla_put_u32(m, RW_NODE_A_ID, id), 0);
	assert_int_equal(nla_put_u32(m, RW_NODE_A_NR_CPUS, nr), 0);
	assert_int_equal(nla_put_string(m, RW_NODE_A_CPULIST, cpulist), 0);
	assert_int_equal(nla_put_u64(m, RW_NODE_A_MEM_MB, mem_mb), 0);
	nla_nest_end(m, e);
}

/* A device entry; attributes in @skip (bit per RW_DEV_A_*) are left out. */
static void rw_put_dev(struct nl_msg *m, const char *name, int32_t node,
		       uint64_t guid, unsigned int skip)
{
	struct nlattr *e = nla_nest_start(m, RW_A_DEVICES_ENTRY);

	assert_non_null(e);
	if (!(skip & 1U << RW_DEV_A_NAME))
		assert_int_equal(nla_put_string(m, RW_DEV_A_NAME, name), 0);
	if (!(skip & 1U << RW_DEV_A_NODE))
		assert_int_equal(nla_put_s32(m, RW_DEV_A_NODE, node), 0);
	if (!(skip & 1U << RW_DEV_A_PORTS))
		assert_int_equal(nla_put_u32(m, RW_DEV_A_PORTS, 1), 0);
	if (!(skip & 1U << RW_DEV_A_NODE_GUID))
		assert_int_equal(nla_put_u64(m, RW_DEV_A_NODE_GUID, guid), 0);
	if (!(skip & 1U << RW_DEV_A_INDEX))
		assert_int_equal(nla_put_u32(m, RW_DEV_A_INDEX, 3), 0);
	nla_nest_end(m, e);
}

static void rw_test_full_reply(void **state)
{
	struct rw_fixture *fx = *state;
	struct nlattr *list;

	rw_put_header(fx->msg);
	list = nla_nest_start(fx->msg, RW_A_NODES);
	rw_put_node(fx->msg, 0, 1, "0", 512);
	rw_put_node(fx->msg, 1, 3, "1-3", 1ULL << 40);
	nla_nest_end(fx->msg, list);
	list = nla_nest_start(fx->msg, RW_A_DEVICES);
	rw_put_dev(fx->msg, "rxe0", 0, 0x505400fffe123456ULL, 0);
	rw_put_dev(fx->msg, "siw0", -1, 0, 0);
	nla_nest_end(fx->msg, list);

	assert_int_equal(rw_parse(fx), 0);
	assert_string_equal(fx->st.version, RW_VERSION_STRING);
	assert_int_equal(fx->st.version_code, RW_VERSION_CODE);
	assert_int_equal(fx->st.features, RW_FEATURES_ALL);
	assert_int_equal(fx->st.cpus_online, 4);
	assert_int_equal(fx->st.abi, 0);	/* not a netlink attribute */

	assert_int_equal(fx->st.nr_nodes, 2);
	assert_int_equal(fx->st.nodes[1].id, 1);
	assert_int_equal(fx->st.nodes[1].nr_cpus, 3);
	assert_string_equal(fx->st.nodes[1].cpulist, "1-3");
	assert_int_equal(fx->st.nodes[1].mem_mb, 1ULL << 40);

	assert_int_equal(fx->st.nr_devs, 2);
	assert_string_equal(fx->st.devs[0].name, "rxe0");
	assert_int_equal(fx->st.devs[0].node, 0);
	assert_int_equal(fx->st.devs[0].ports, 1);
	assert_int_equal(fx->st.devs[0].node_guid, 0x505400fffe123456ULL);
	assert_int_equal(fx->st.devs[0].index, 3);
	assert_string_equal(fx->st.devs[1].name, "siw0");
	assert_int_equal(fx->st.devs[1].node, -1);
}

/* No lists, or empty lists: a module with no devices yet. */
static void rw_test_empty_lists(void **state)
{
	struct rw_fixture *fx = *state;

	rw_put_header(fx->msg);
	assert_int_equal(rw_parse(fx), 0);
	assert_int_equal(fx->st.nr_nodes, 0);
	assert_int_equal(fx->st.nr_devs, 0);

	nla_nest_end(fx->msg, nla_nest_start(fx->msg, RW_A_DEVICES));
	assert_int_equal(rw_parse(fx), 0);
	assert_int_equal(fx->st.nr_devs, 0);
}

static void rw_test_missing_header(void **state)
{
	struct rw_fixture *fx = *state;

	/* Everything but RW_A_VERSION. */
	assert_int_equal(nla_put_u32(fx->msg, RW_A_VERSION_CODE, 1), 0);
	assert_int_equal(nla_put_u64(fx->msg, RW_A_FEATURES, 0), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_A_CPUS_ONLINE, 1), 0);
	rw_assert_malformed(fx);
}

static void rw_test_int_too_long(void **state)
{
	struct rw_fixture *fx = *state;
	uint64_t v = 4;

	assert_int_equal(nla_put_string(fx->msg, RW_A_VERSION, RW_VERSION_STRING), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_A_VERSION_CODE, 1), 0);
	assert_int_equal(nla_put_u64(fx->msg, RW_A_FEATURES, 0), 0);
	/* A u32 sent as eight bytes: libnl's minimum-length check passes it. */
	assert_int_equal(nla_put(fx->msg, RW_A_CPUS_ONLINE, sizeof(v), &v), 0);
	rw_assert_malformed(fx);
}

static void rw_test_int_too_short(void **state)
{
	struct rw_fixture *fx = *state;
	uint32_t v = 7;

	assert_int_equal(nla_put_string(fx->msg, RW_A_VERSION, RW_VERSION_STRING), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_A_VERSION_CODE, 1), 0);
	assert_int_equal(nla_put(fx->msg, RW_A_FEATURES, sizeof(v), &v), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_A_CPUS_ONLINE, 1), 0);
	rw_assert_malformed(fx);
}

static void rw_test_string_unterminated(void **state)
{
	struct rw_fixture *fx = *state;

	assert_int_equal(nla_put(fx->msg, RW_A_VERSION, 5, RW_VERSION_STRING), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_A_VERSION_CODE, 1), 0);
	assert_int_equal(nla_put_u64(fx->msg, RW_A_FEATURES, 0), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_A_CPUS_ONLINE, 1), 0);
	rw_assert_malformed(fx);
}

/* RW_DEV_NAME_MAX counts the NUL: 63 characters fit, 64 do not. */
static void rw_test_name_length(void **state)
{
	struct rw_fixture *fx = *state;
	char name[RW_DEV_NAME_MAX + 1];
	struct nlattr *list;

	memset(name, 'n', sizeof(name));
	name[RW_DEV_NAME_MAX - 1] = '\0';
	rw_put_header(fx->msg);
	list = nla_nest_start(fx->msg, RW_A_DEVICES);
	rw_put_dev(fx->msg, name, 0, 1, 0);
	nla_nest_end(fx->msg, list);
	assert_int_equal(rw_parse(fx), 0);
	assert_string_equal(fx->st.devs[0].name, name);
}

static void rw_test_name_too_long(void **state)
{
	struct rw_fixture *fx = *state;
	char name[RW_DEV_NAME_MAX + 1];
	struct nlattr *list;

	memset(name, 'n', sizeof(name));
	name[RW_DEV_NAME_MAX] = '\0';
	rw_put_header(fx->msg);
	list = nla_nest_start(fx->msg, RW_A_DEVICES);
	rw_put_dev(fx->msg, name, 0, 1, 0);
	nla_nest_end(fx->msg, list);
	rw_assert_malformed(fx);
}

static void rw_test_dev_missing_attr(void **state)
{
	struct rw_fixture *fx = *state;
	struct nlattr *list;

	rw_put_header(fx->msg);
	list = nla_nest_start(fx->msg, RW_A_DEVICES);
	rw_put_dev(fx->msg, "rxe0", 0, 1, 0);
	rw_put_dev(fx->msg, "rxe1", 0, 1, 1U << RW_DEV_A_INDEX);
	nla_nest_end(fx->msg, list);
	rw_assert_malformed(fx);
	assert_non_null(strstr(fx->why, "device entry 1"));
}

static void rw_test_dev_node_wrong_size(void **state)
{
	struct rw_fixture *fx = *state;
	struct nlattr *list, *e;
	int16_t node = -1;

	rw_put_header(fx->msg);
	list = nla_nest_start(fx->msg, RW_A_DEVICES);
	e = nla_nest_start(fx->msg, RW_A_DEVICES_ENTRY);
	assert_int_equal(nla_put_string(fx->msg, RW_DEV_A_NAME, "rxe0"), 0);
	assert_int_equal(nla_put(fx->msg, RW_DEV_A_NODE, sizeof(node), &node), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_DEV_A_PORTS, 1), 0);
	assert_int_equal(nla_put_u64(fx->msg, RW_DEV_A_NODE_GUID, 1), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_DEV_A_INDEX, 1), 0);
	nla_nest_end(fx->msg, e);
	nla_nest_end(fx->msg, list);
	rw_assert_malformed(fx);
}

static void rw_test_node_missing_attr(void **state)
{
	struct rw_fixture *fx = *state;
	struct nlattr *list, *e;

	rw_put_header(fx->msg);
	list = nla_nest_start(fx->msg, RW_A_NODES);
	e = nla_nest_start(fx->msg, RW_A_NODES_ENTRY);
	assert_int_equal(nla_put_u32(fx->msg, RW_NODE_A_ID, 0), 0);
	nla_nest_end(fx->msg, e);
	nla_nest_end(fx->msg, list);
	rw_assert_malformed(fx);
}

/* Append-only uapi: attribute types this rwctl does not know are skipped. */
static void rw_test_newer_module(void **state)
{
	struct rw_fixture *fx = *state;
	struct nlattr *list, *e;

	rw_put_header(fx->msg);
	assert_int_equal(nla_put_u64(fx->msg, RW_A_MAX + 1, 99), 0);
	assert_int_equal(nla_put_string(fx->msg, RW_A_MAX + 7, "future"), 0);
	list = nla_nest_start(fx->msg, RW_A_DEVICES);
	rw_put_dev(fx->msg, "rxe0", 2, 1, 0);
	e = nla_nest_start(fx->msg, RW_A_DEVICES_ENTRY + 1);	/* unknown entry type */
	assert_int_equal(nla_put_u32(fx->msg, 1, 0), 0);
	nla_nest_end(fx->msg, e);
	nla_nest_end(fx->msg, list);

	assert_int_equal(rw_parse(fx), 0);
	assert_int_equal(fx->st.nr_devs, 1);
	assert_int_equal(fx->st.devs[0].node, 2);
}

/* A fresh reply for the next case of a test. */
static void rw_reset(struct rw_fixture *fx)
{
	nlmsg_free(fx->msg);
	fx->msg = nlmsg_alloc();
	assert_non_null(fx->msg);
	assert_non_null(genlmsg_put(fx->msg, NL_AUTO_PORT, NL_AUTO_SEQ,
				    RW_TEST_FAMILY, 0, 0, RW_CMD_STATUS_GET,
				    RW_GENL_VERSION));
}

/* The box's memory figure @type as the module puts it: aligned by a pad. */
static void rw_put_mem(struct nl_msg *m, int type, uint64_t v)
{
	assert_int_equal(nla_put(m, RW_A_UNSPEC, 0, NULL), 0);
	assert_int_equal(nla_put_u64(m, type, v), 0);
}

/* The box's memory budget and use: both or neither, eight bytes each. */
static void rw_test_memory(void **state)
{
	struct rw_fixture *fx = *state;
	uint32_t v4 = 1;

	/* A module older than memory limits sends neither. */
	rw_put_header(fx->msg);
	assert_int_equal(rw_parse(fx), 0);
	assert_false(fx->st.has_mem);

	rw_put_mem(fx->msg, RW_A_MEM_BUDGET, 12ULL << 30);
	rw_put_mem(fx->msg, RW_A_MEM_USED, 300ULL << 20);
	assert_int_equal(rw_parse(fx), 0);
	assert_true(fx->st.has_mem);
	assert_true(fx->st.mem_budget == 12ULL << 30);
	assert_true(fx->st.mem_used == 300ULL << 20);

	rw_reset(fx);
	rw_put_header(fx->msg);
	rw_put_mem(fx->msg, RW_A_MEM_BUDGET, UINT64_MAX);
	rw_put_mem(fx->msg, RW_A_MEM_USED, 0);
	assert_int_equal(rw_parse(fx), 0);
	assert_true(fx->st.mem_budget == UINT64_MAX);
	assert_true(fx->st.mem_used == 0);

	/* One without the other. */
	rw_reset(fx);
	rw_put_header(fx->msg);
	rw_put_mem(fx->msg, RW_A_MEM_BUDGET, 1);
	rw_assert_malformed(fx);
	assert_non_null(strstr(fx->why, "memory budget without its use"));
	rw_reset(fx);
	rw_put_header(fx->msg);
	rw_put_mem(fx->msg, RW_A_MEM_USED, 1);
	rw_assert_malformed(fx);

	/* A u32 where a u64 belongs. */
	rw_reset(fx);
	rw_put_header(fx->msg);
	rw_put_mem(fx->msg, RW_A_MEM_BUDGET, 1);
	assert_int_equal(nla_put(fx->msg, RW_A_MEM_USED, sizeof(v4), &v4), 0);
	rw_assert_malformed(fx);
}

static void rw_test_status_free(void **state)
{
	struct rw_fixture *fx = *state;
	struct nlattr *list;

	rw_put_header(fx->msg);
	list = nla_nest_start(fx->msg, RW_A_NODES);
	rw_put_node(fx->msg, 0, 1, "0", 1);
	nla_nest_end(fx->msg, list);
	assert_int_equal(rw_parse(fx), 0);
	assert_non_null(fx->st.nodes);

	rwctl_status_free(&fx->st);
	assert_null(fx->st.nodes);
	assert_null(fx->st.devs);
	assert_int_equal(fx->st.nr_nodes, 0);
	rwctl_status_free(&fx->st);	/* twice is harmless */
}

#define RW_T(fn) cmocka_unit_test_setup_teardown(fn, rw_test_setup, rw_test_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		RW_T(rw_test_full_reply),
		RW_T(rw_test_empty_lists),
		RW_T(rw_test_missing_header),
		RW_T(rw_test_int_too_long),
		RW_T(rw_test_int_too_short),
		RW_T(rw_test_string_unterminated),
		RW_T(rw_test_name_length),
		RW_T(rw_test_name_too_long),
		RW_T(rw_test_dev_missing_attr),
		RW_T(rw_test_dev_node_wrong_size),
		RW_T(rw_test_node_missing_attr),
		RW_T(rw_test_newer_module),
		RW_T(rw_test_memory),
		RW_T(rw_test_status_free),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("rwctl-genl", tests, NULL, NULL);
}
