// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl listen: the "ADDR [port N]" parser and the address formatter, the
 * RW_A_LISTENERS nest of RW_CMD_STATUS_GET replies (built with libnl as the
 * module would, or as a broken one might), "listen show" and "dev show" in
 * text and JSON through rwctl_run() against a scripted status, and
 * "listen add" / "listen del" against a scripted backend.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <rackweave.h>

#include "genl.h"
#include "listen.h"
#include "rwctl.h"
#include "rwtest.h"
#include "status.h"

#define RW_TEST_FAMILY	0x21
#define BIT(a)		(1U << (a))

#define RW_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const uint8_t rw_v4[4] = { 10, 77, 0, 1 };
static const uint8_t rw_v6[16] = { 0xfe, 0x80, [15] = 1 };
static const uint8_t rw_v6_lo[16] = { [15] = 1 };
static const uint8_t rw_peer[4] = { 10, 88, 0, 2 };

/* ---- "ADDR [port N]" ---- */

static void rw_test_parse_good(void **state)
{
	static const struct {
		const char *args[4];
		int argc;
		size_t len;
		const uint8_t *addr;
		unsigned int port;
	} good[] = {
		{ { "10.77.0.1" }, 1, 4, rw_v4, RW_WIRE_PORT },
		{ { "10.77.0.1", "port", "7000" }, 3, 4, rw_v4, 7000 },
		{ { "fe80::1" }, 1, 16, rw_v6, RW_WIRE_PORT },
		{ { "::1", "port", "65535" }, 3, 16, rw_v6_lo, 65535 },
		{ { "10.77.0.1", "port", "1" }, 3, 4, rw_v4, 1 },
	};
	struct rwctl_listen_req r;
	char msg[256], *argv[4];
	size_t i;

	(void)state;
	assert_int_equal(RW_WIRE_PORT, 18515);
	for (i = 0; i < RW_ARRAY_SIZE(good); i++) {
		memcpy(argv, good[i].args, sizeof(argv));
		memset(&r, 0xa5, sizeof(r));
		msg[0] = '\0';
		if (rwctl_listen_parse(good[i].argc, argv, &r, msg, sizeof(msg)))
			fail_msg("case %zu: %s", i, msg);
		assert_int_equal(r.addr_len, good[i].len);
		assert_int_equal(r.port, good[i].port);
		assert_memory_equal(r.addr, good[i].addr, good[i].len);
		/* An IPv4 address leaves the rest of the buffer zeroed. */
		if (good[i].len == 4)
			assert_memory_equal(r.addr + 4, rw_v6_lo, 12);
	}
}

static void rw_test_parse_bad(void **state)
{
	static const struct {
		const char *args[4];
		int argc;
		const char *msg;
	} bad[] = {
		{ { NULL }, 0, "an address to listen on is required" },
		{ { "10.1.1" }, 1, "'10.1.1' is not an IPv4 or IPv6 address" },
		{ { "host.example" }, 1,
		  "'host.example' is not an IPv4 or IPv6 address" },
		{ { "10.0.0.1", "port" }, 2, "port needs a value" },
		{ { "10.0.0.1", "port", "0" }, 3,
		  "port '0' is out of range (1..65535)" },
		{ { "10.0.0.1", "port", "65536" }, 3,
		  "port '65536' is out of range (1..65535)" },
		{ { "10.0.0.1", "port", "x7" }, 3, "port 'x7' is not a number" },
		{ { "10.0.0.1", "prot", "5" }, 3,
		  "unknown argument 'prot' (port N)" },
		{ { "10.0.0.1", "7000" }, 2, "unknown argument '7000' (port N)" },
		/* The command table stops a fourth word before it gets here. */
		{ { "10.0.0.1", "port", "5", "x" }, 4, "unknown argument '" },
	};
	struct rwctl_listen_req r;
	char msg[256], *argv[4];
	size_t i;

	(void)state;
	for (i = 0; i < RW_ARRAY_SIZE(bad); i++) {
		memcpy(argv, bad[i].args, sizeof(argv));
		msg[0] = '\0';
		if (rwctl_listen_parse(bad[i].argc, argv, &r, msg,
				       sizeof(msg)) != -EINVAL)
			fail_msg("case %zu accepted", i);
		if (i == RW_ARRAY_SIZE(bad) - 1 ? !strstr(msg, bad[i].msg) :
		    strcmp(msg, bad[i].msg))
			fail_msg("case %zu: want '%s', got '%s'", i, bad[i].msg,
				 msg);
		/* rwctl_parse_u32()'s own words for the two out of range. */
		if (i == 4 || i == 5)
			assert_non_null(strstr(msg, "out of range"));
	}
}

static void rw_test_format(void **state)
{
	char buf[INET6_ADDRSTRLEN + 16];

	(void)state;
	rwctl_listen_format(buf, sizeof(buf), AF_INET, rw_v4, RW_WIRE_PORT);
	assert_string_equal(buf, "10.77.0.1:18515");
	rwctl_listen_format(buf, sizeof(buf), AF_INET6, rw_v6, RW_WIRE_PORT);
	assert_string_equal(buf, "[fe80::1]:18515");
	rwctl_listen_format(buf, sizeof(buf), AF_INET6, rw_v6_lo, 65535);
	assert_string_equal(buf, "[::1]:65535");
}

/* ---- RW_A_LISTENERS in the status reply ---- */

struct rw_fx {
	struct nl_msg *msg;
	struct rwctl_status st;
	char why[256];
};

static int rw_msg_setup(void **state)
{
	struct rw_fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->msg = rw_test_genl_msg(RW_TEST_FAMILY, RW_CMD_STATUS_GET);
	*state = fx;
	return 0;
}

static int rw_msg_teardown(void **state)
{
	struct rw_fx *fx = *state;

	rwctl_status_free(&fx->st);
	nlmsg_free(fx->msg);
	free(fx);
	return 0;
}

static void rw_reset(struct rw_fx *fx)
{
	nlmsg_free(fx->msg);
	fx->msg = rw_test_genl_msg(RW_TEST_FAMILY, RW_CMD_STATUS_GET);
}

static int rw_parse(struct rw_fx *fx)
{
	rwctl_status_free(&fx->st);
	fx->why[0] = '\0';
	return rwctl_genl_parse_status(nlmsg_hdr(fx->msg), &fx->st, fx->why,
				       sizeof(fx->why));
}

static void rw_assert_malformed(struct rw_fx *fx, const char *what)
{
	rw_assert_malformed_why(rw_parse(fx), fx->why,
				"malformed status reply", what);
}

/* The four attributes every status reply carries. */
static void rw_put_header(struct nl_msg *m)
{
	assert_int_equal(nla_put_string(m, RW_A_VERSION, RW_VERSION_STRING), 0);
	assert_int_equal(nla_put_u32(m, RW_A_VERSION_CODE, RW_VERSION_CODE), 0);
	assert_int_equal(nla_put_u64(m, RW_A_FEATURES, RW_FEATURES_ALL), 0);
	assert_int_equal(nla_put_u32(m, RW_A_CPUS_ONLINE, 4), 0);
}

struct rw_lsn {
	const uint8_t *addr;
	int addr_len;
	uint16_t port;
	const char *dev;
	uint8_t up;
	uint64_t requests, accepted, connected;
	uint64_t refused[RWCTL_REF_NR];
	uint64_t violations[RWCTL_VIOL_NR];
};

/*
 * up on rxe0: refused proto 1, auth 2, clock 1, in-use 1; one of its two
 * connections closed for an access outside its window.
 */
static const struct rw_lsn rw_lsn_v4 = {
	.addr = rw_v4, .addr_len = 4, .port = RW_WIRE_PORT, .dev = "rxe0",
	.up = 1, .requests = 7, .accepted = 2, .connected = 1,
	.refused = {
		[RWCTL_REF_PROTO] = 1, [RWCTL_REF_AUTH] = 2,
		[RWCTL_REF_CLOCK] = 1, [RWCTL_REF_IN_USE] = 1,
	},
	.violations = { [RWCTL_VIOL_ACCESS] = 1 },
};

/* Down: its device went. */
static const struct rw_lsn rw_lsn_v6 = {
	.addr = rw_v6, .addr_len = 16, .port = 7000, .dev = "",
	.up = 0, .requests = 3, .accepted = 0, .connected = 0,
};

/*
 * One RW_A_LISTENERS_ENTRY as the module sends it: u64s after a pad
 * attribute, as nla_put_u64_64bit() may; attributes in @skip left out, and
 * attribute @bad (0: none) sent as @bad_len bytes instead of its own.
 */
static void rw_put_lsn_bad(struct nl_msg *m, const struct rw_lsn *l,
			   unsigned int skip, int bad, int bad_len)
{
	static const uint8_t junk[16] = { 1 };
	struct nlattr *e = nla_nest_start(m, RW_A_LISTENERS_ENTRY);
	int r;

	assert_non_null(e);
	if (bad) {
		skip |= BIT(bad);
		assert_int_equal(nla_put(m, bad, bad_len, junk), 0);
	}
	if (!(skip & BIT(RW_LISTEN_A_ADDR)))
		assert_int_equal(nla_put(m, RW_LISTEN_A_ADDR, l->addr_len,
					 l->addr), 0);
	if (!(skip & BIT(RW_LISTEN_A_PORT)))
		assert_int_equal(nla_put_u16(m, RW_LISTEN_A_PORT, l->port), 0);
	if (!(skip & BIT(RW_LISTEN_A_DEV)))
		assert_int_equal(nla_put_string(m, RW_LISTEN_A_DEV, l->dev), 0);
	if (!(skip & BIT(RW_LISTEN_A_UP)))
		assert_int_equal(nla_put_u8(m, RW_LISTEN_A_UP, l->up), 0);
	assert_int_equal(nla_put(m, RW_LISTEN_A_PAD, 0, NULL), 0);
	rw_test_put_u64(m, skip, RW_LISTEN_A_REQUESTS, l->requests);
	rw_test_put_u64(m, skip, RW_LISTEN_A_ACCEPTED, l->accepted);
	rw_test_put_u64(m, skip, RW_LISTEN_A_CONNECTED, l->connected);
	for (r = 0; r < RWCTL_REF_NR; r++)
		rw_test_put_u64(m, skip, RW_LISTEN_A_REF_PROTO + r,
				l->refused[r]);
	for (r = 0; r < RWCTL_VIOL_NR; r++)
		rw_test_put_u64(m, skip, RW_LISTEN_A_VIOL_PROTO + r,
				l->violations[r]);
	nla_nest_end(m, e);
}

static void rw_put_lsn(struct nl_msg *m, const struct rw_lsn *l,
		       unsigned int skip)
{
	rw_put_lsn_bad(m, l, skip, 0, 0);
}

/* One RW_A_CONNECTIONS_ENTRY (rank 1 of "cj" on rxe0); @skip as above. */
static void rw_put_conn(struct nl_msg *m, const uint8_t *addr, int len,
			unsigned int skip)
{
	struct nlattr *e = nla_nest_start(m, RW_A_CONNECTIONS_ENTRY);

	assert_non_null(e);
	if (!(skip & BIT(RW_CONN_A_ADDR)))
		assert_int_equal(nla_put(m, RW_CONN_A_ADDR, len, addr), 0);
	if (!(skip & BIT(RW_CONN_A_PORT)))
		assert_int_equal(nla_put_u16(m, RW_CONN_A_PORT, 40675), 0);
	if (!(skip & BIT(RW_CONN_A_DEV)))
		assert_int_equal(nla_put_string(m, RW_CONN_A_DEV, "rxe0"), 0);
	if (!(skip & BIT(RW_CONN_A_JOB)))
		assert_int_equal(nla_put_string(m, RW_CONN_A_JOB, "cj"), 0);
	if (!(skip & BIT(RW_CONN_A_RANK)))
		assert_int_equal(nla_put_u32(m, RW_CONN_A_RANK, 1), 0);
	/* Counters are optional: a module before the data path has none. */
	if (!(skip & BIT(RW_CONN_A_PUSHES))) {
		assert_int_equal(nla_put_u64(m, RW_CONN_A_PUSHES, 115), 0);
		assert_int_equal(nla_put_u64(m, RW_CONN_A_WRITES, 138), 0);
		assert_int_equal(nla_put_u64(m, RW_CONN_A_MESSAGES, 2), 0);
	}
	nla_nest_end(m, e);
}

static void rw_put_two(struct nl_msg *m)
{
	struct nlattr *list, *e;

	rw_put_header(m);
	list = nla_nest_start(m, RW_A_LISTENERS);
	assert_non_null(list);
	rw_put_lsn(m, &rw_lsn_v4, 0);
	rw_put_lsn(m, &rw_lsn_v6, 0);
	nla_nest_end(m, list);
	list = nla_nest_start(m, RW_A_CONNECTIONS);
	assert_non_null(list);
	rw_put_conn(m, rw_peer, sizeof(rw_peer), 0);
	nla_nest_end(m, list);
	/* A remote attachment: the same attributes, and _BROKEN. */
	list = nla_nest_start(m, RW_A_REMOTES);
	assert_non_null(list);
	e = nla_nest_start(m, RW_A_REMOTES_ENTRY);
	assert_non_null(e);
	assert_int_equal(nla_put(m, RW_CONN_A_ADDR, 4, rw_v4), 0);
	assert_int_equal(nla_put_u16(m, RW_CONN_A_PORT, 18515), 0);
	assert_int_equal(nla_put_string(m, RW_CONN_A_DEV, ""), 0);
	assert_int_equal(nla_put_string(m, RW_CONN_A_JOB, "far"), 0);
	assert_int_equal(nla_put_u32(m, RW_CONN_A_RANK, 3), 0);
	assert_int_equal(nla_put_u64(m, RW_CONN_A_PUSHES, 46), 0);
	assert_int_equal(nla_put_u8(m, RW_CONN_A_BROKEN, 1), 0);
	nla_nest_end(m, e);
	nla_nest_end(m, list);
}

static void rw_test_status_listeners(void **state)
{
	struct rw_fx *fx = *state;
	const struct rwctl_listener *l;

	rw_put_two(fx->msg);
	assert_int_equal(rw_parse(fx), 0);
	assert_string_equal(fx->why, "");
	assert_int_equal(fx->st.nr_listeners, 2);

	l = &fx->st.listeners[0];
	assert_int_equal(l->family, AF_INET);
	assert_memory_equal(l->addr, rw_v4, 4);
	assert_int_equal(l->port, 18515);
	assert_string_equal(l->dev, "rxe0");
	assert_true(l->up);
	assert_int_equal(l->requests, 7);
	assert_int_equal(l->accepted, 2);
	assert_int_equal(l->connected, 1);
	assert_int_equal(l->refused[RWCTL_REF_PROTO], 1);
	assert_int_equal(l->refused[RWCTL_REF_AUTH], 2);
	assert_int_equal(l->refused[RWCTL_REF_CLOCK], 1);
	assert_int_equal(l->refused[RWCTL_REF_BUSY], 0);
	assert_int_equal(l->refused[RWCTL_REF_RANGE], 0);
	assert_int_equal(l->refused[RWCTL_REF_IN_USE], 1);
	assert_int_equal(l->refused[RWCTL_REF_STALE], 0);
	assert_int_equal(l->refused[RWCTL_REF_OTHER], 0);
	assert_int_equal(l->violations[RWCTL_VIOL_PROTO], 0);
	assert_int_equal(l->violations[RWCTL_VIOL_ACCESS], 1);

	l = &fx->st.listeners[1];
	assert_int_equal(l->family, AF_INET6);
	assert_memory_equal(l->addr, rw_v6, 16);
	assert_int_equal(l->port, 7000);
	assert_string_equal(l->dev, "");
	assert_false(l->up);
	assert_int_equal(l->requests, 3);
	assert_int_equal(l->accepted, 0);
	assert_int_equal(l->connected, 0);
	assert_memory_equal(l->refused, rw_lsn_v6.refused,
			    sizeof(l->refused));

	assert_int_equal(fx->st.nr_conns, 1);
	assert_int_equal(fx->st.conns[0].family, AF_INET);
	assert_memory_equal(fx->st.conns[0].addr, rw_peer, 4);
	assert_int_equal(fx->st.conns[0].port, 40675);
	assert_string_equal(fx->st.conns[0].dev, "rxe0");
	assert_string_equal(fx->st.conns[0].job, "cj");
	assert_int_equal(fx->st.conns[0].rank, 1);
	assert_int_equal(fx->st.conns[0].pushes, 115);
	assert_int_equal(fx->st.conns[0].writes, 138);
	assert_int_equal(fx->st.conns[0].messages, 2);
	assert_false(fx->st.conns[0].broken);

	assert_int_equal(fx->st.nr_remotes, 1);
	assert_int_equal(fx->st.remotes[0].family, AF_INET);
	assert_memory_equal(fx->st.remotes[0].addr, rw_v4, 4);
	assert_int_equal(fx->st.remotes[0].port, 18515);
	assert_string_equal(fx->st.remotes[0].dev, "");
	assert_string_equal(fx->st.remotes[0].job, "far");
	assert_int_equal(fx->st.remotes[0].rank, 3);
	assert_int_equal(fx->st.remotes[0].pushes, 46);
	assert_int_equal(fx->st.remotes[0].writes, 0);
	assert_true(fx->st.remotes[0].broken);
}

/* A module without the data path sends no counters: they read as 0. */
static void rw_test_status_conn_no_counters(void **state)
{
	struct rw_fx *fx = *state;
	struct nlattr *list;

	rw_reset(fx);
	rw_put_header(fx->msg);
	list = nla_nest_start(fx->msg, RW_A_CONNECTIONS);
	rw_put_conn(fx->msg, rw_peer, 4, BIT(RW_CONN_A_PUSHES));
	nla_nest_end(fx->msg, list);
	assert_int_equal(rw_parse(fx), 0);
	assert_int_equal(fx->st.nr_conns, 1);
	assert_int_equal(fx->st.conns[0].rank, 1);
	assert_int_equal(fx->st.conns[0].pushes, 0);
	assert_int_equal(fx->st.conns[0].messages, 0);
}

/* An observer's entry: the flag, its rank 0 as sent; others have none. */
static void rw_test_status_conn_observer(void **state)
{
	struct rw_fx *fx = *state;
	struct nlattr *list, *e;

	rw_reset(fx);
	rw_put_header(fx->msg);
	list = nla_nest_start(fx->msg, RW_A_CONNECTIONS);
	rw_put_conn(fx->msg, rw_peer, 4, 0);
	e = nla_nest_start(fx->msg, RW_A_CONNECTIONS_ENTRY);
	assert_int_equal(nla_put(fx->msg, RW_CONN_A_ADDR, 4, rw_peer), 0);
	assert_int_equal(nla_put_u16(fx->msg, RW_CONN_A_PORT, 40676), 0);
	assert_int_equal(nla_put_string(fx->msg, RW_CONN_A_DEV, "rxe0"), 0);
	assert_int_equal(nla_put_string(fx->msg, RW_CONN_A_JOB, "cj"), 0);
	assert_int_equal(nla_put_u32(fx->msg, RW_CONN_A_RANK, 0), 0);
	assert_int_equal(nla_put_flag(fx->msg, RW_CONN_A_OBSERVER), 0);
	nla_nest_end(fx->msg, e);
	nla_nest_end(fx->msg, list);
	assert_int_equal(rw_parse(fx), 0);
	assert_int_equal(fx->st.nr_conns, 2);
	assert_false(fx->st.conns[0].observer);
	assert_true(fx->st.conns[1].observer);
	assert_int_equal(fx->st.conns[1].rank, 0);
	assert_int_equal(fx->st.conns[1].port, 40676);
}

/* A connection entry without one of its attributes, or a bad address. */
static void rw_test_status_conn_malformed(void **state)
{
	static const uint8_t five[5] = { 10, 88, 0, 2, 1 };
	static const int required[] = {
		RW_CONN_A_ADDR, RW_CONN_A_PORT, RW_CONN_A_DEV, RW_CONN_A_JOB,
		RW_CONN_A_RANK,
	};
	struct rw_fx *fx = *state;
	struct nlattr *list;
	size_t i;

	for (i = 0; i <= RW_ARRAY_SIZE(required); i++) {
		rw_reset(fx);
		rw_put_header(fx->msg);
		list = nla_nest_start(fx->msg, RW_A_CONNECTIONS);
		if (i < RW_ARRAY_SIZE(required))
			rw_put_conn(fx->msg, rw_peer, 4, BIT(required[i]));
		else
			rw_put_conn(fx->msg, five, 5, 0);
		nla_nest_end(fx->msg, list);
		rw_assert_malformed(fx, i < RW_ARRAY_SIZE(required) ?
				    "connection entry 0 lacks an attribute" :
				    "connection entry 0: address of 5 bytes");
	}
}

/* Each refusal counter lands in its own slot. */
static void rw_test_status_refusal_order(void **state)
{
	struct rw_fx *fx = *state;
	struct rw_lsn one = rw_lsn_v4;
	struct nlattr *list;
	int r;

	for (r = 0; r < RWCTL_REF_NR; r++)
		one.refused[r] = 100 + r;
	for (r = 0; r < RWCTL_VIOL_NR; r++)
		one.violations[r] = 200 + r;
	rw_put_header(fx->msg);
	list = nla_nest_start(fx->msg, RW_A_LISTENERS);
	rw_put_lsn(fx->msg, &one, 0);
	nla_nest_end(fx->msg, list);
	assert_int_equal(rw_parse(fx), 0);
	assert_int_equal(fx->st.nr_listeners, 1);
	for (r = 0; r < RWCTL_REF_NR; r++)
		assert_int_equal(fx->st.listeners[0].refused[r], 100 + r);
	for (r = 0; r < RWCTL_VIOL_NR; r++)
		assert_int_equal(fx->st.listeners[0].violations[r], 200 + r);
}

/*
 * Refusal and violation attributes are optional: an older module may send
 * none (the violations came later than the refusals).
 */
static void rw_test_status_no_refusals(void **state)
{
	struct rw_fx *fx = *state;
	unsigned int skip = 0;
	struct nlattr *list;
	int r;

	for (r = 0; r < RWCTL_REF_NR; r++)
		skip |= BIT(RW_LISTEN_A_REF_PROTO + r);
	for (r = 0; r < RWCTL_VIOL_NR; r++)
		skip |= BIT(RW_LISTEN_A_VIOL_PROTO + r);
	rw_put_header(fx->msg);
	list = nla_nest_start(fx->msg, RW_A_LISTENERS);
	rw_put_lsn(fx->msg, &rw_lsn_v4, skip);
	nla_nest_end(fx->msg, list);
	assert_int_equal(rw_parse(fx), 0);
	assert_int_equal(fx->st.nr_listeners, 1);
	assert_int_equal(fx->st.listeners[0].requests, 7);
	for (r = 0; r < RWCTL_REF_NR; r++)
		assert_int_equal(fx->st.listeners[0].refused[r], 0);
	for (r = 0; r < RWCTL_VIOL_NR; r++)
		assert_int_equal(fx->st.listeners[0].violations[r], 0);

	/* Only the first: it alone is set. */
	rw_reset(fx);
	rw_put_header(fx->msg);
	list = nla_nest_start(fx->msg, RW_A_LISTENERS);
	rw_put_lsn(fx->msg, &rw_lsn_v4, skip & ~BIT(RW_LISTEN_A_REF_PROTO));
	nla_nest_end(fx->msg, list);
	assert_int_equal(rw_parse(fx), 0);
	assert_int_equal(fx->st.listeners[0].refused[RWCTL_REF_PROTO], 1);
	for (r = 1; r < RWCTL_REF_NR; r++)
		assert_int_equal(fx->st.listeners[0].refused[r], 0);
}

static void rw_test_status_no_listeners(void **state)
{
	struct rw_fx *fx = *state;

	rw_put_header(fx->msg);
	assert_int_equal(rw_parse(fx), 0);
	assert_int_equal(fx->st.nr_listeners, 0);
	assert_non_null(fx->st.listeners);

	/* The kernel keeps an empty nest; libnl would drop it. */
	nla_nest_end_keep_empty(fx->msg,
				nla_nest_start(fx->msg, RW_A_LISTENERS));
	assert_int_equal(rw_parse(fx), 0);
	assert_int_equal(fx->st.nr_listeners, 0);
}

static void rw_test_status_missing(void **state)
{
	static const int required[] = {
		RW_LISTEN_A_ADDR, RW_LISTEN_A_PORT, RW_LISTEN_A_DEV,
		RW_LISTEN_A_UP, RW_LISTEN_A_REQUESTS, RW_LISTEN_A_ACCEPTED,
		RW_LISTEN_A_CONNECTED,
	};
	struct rw_fx *fx = *state;
	struct nlattr *list;
	size_t i;

	for (i = 0; i < RW_ARRAY_SIZE(required); i++) {
		rw_reset(fx);
		rw_put_header(fx->msg);
		list = nla_nest_start(fx->msg, RW_A_LISTENERS);
		rw_put_lsn(fx->msg, &rw_lsn_v4, 0);
		rw_put_lsn(fx->msg, &rw_lsn_v6, BIT(required[i]));
		nla_nest_end(fx->msg, list);
		rw_assert_malformed(fx, "listener entry 1 lacks an attribute");
	}

	/* The first entry, without its port. */
	rw_reset(fx);
	rw_put_header(fx->msg);
	list = nla_nest_start(fx->msg, RW_A_LISTENERS);
	rw_put_lsn(fx->msg, &rw_lsn_v4, BIT(RW_LISTEN_A_PORT));
	nla_nest_end(fx->msg, list);
	rw_assert_malformed(fx, "listener entry 0 lacks an attribute");
}

static void rw_test_status_addr_len(void **state)
{
	static const uint8_t five[5] = { 10, 77, 0, 1, 9 };
	struct rw_fx *fx = *state;
	struct rw_lsn l = rw_lsn_v4;
	struct nlattr *list;

	l.addr = five;
	l.addr_len = 5;
	rw_put_header(fx->msg);
	list = nla_nest_start(fx->msg, RW_A_LISTENERS);
	rw_put_lsn(fx->msg, &l, 0);
	nla_nest_end(fx->msg, list);
	rw_assert_malformed(fx, "listener entry 0: address of 5 bytes");

	/* Shorter than any address: refused by the policy. */
	rw_reset(fx);
	l.addr_len = 3;
	rw_put_header(fx->msg);
	list = nla_nest_start(fx->msg, RW_A_LISTENERS);
	rw_put_lsn(fx->msg, &l, 0);
	nla_nest_end(fx->msg, list);
	rw_assert_malformed(fx, "listener entry");
}

/* Attributes of the wrong size: each makes the whole reply malformed. */
static void rw_test_status_lengths(void **state)
{
	static const struct {
		int attr, len;
	} bad[] = {
		{ RW_LISTEN_A_REQUESTS, 4 },	/* a u64 counter as four bytes */
		{ RW_LISTEN_A_REF_AUTH, 12 },	/* a refusal counter of twelve */
		{ RW_LISTEN_A_PORT, 4 },	/* a port sent as a u32 */
		{ RW_LISTEN_A_UP, 2 },
	};
	struct rw_fx *fx = *state;
	struct nlattr *list;
	size_t i;

	for (i = 0; i < RW_ARRAY_SIZE(bad); i++) {
		rw_reset(fx);
		rw_put_header(fx->msg);
		list = nla_nest_start(fx->msg, RW_A_LISTENERS);
		rw_put_lsn_bad(fx->msg, &rw_lsn_v4, 0, bad[i].attr, bad[i].len);
		nla_nest_end(fx->msg, list);
		rw_assert_malformed(fx, "listener entry");
	}
}

/* A device name without room for its NUL, and a nest cut short. */
static void rw_test_status_dev_and_cut(void **state)
{
	char name[RW_DEV_NAME_MAX + 1];
	struct rw_fx *fx = *state;
	struct rw_lsn l = rw_lsn_v4;
	struct nlattr *list;

	memset(name, 'n', sizeof(name));
	name[RW_DEV_NAME_MAX - 1] = '\0';
	l.dev = name;
	rw_put_header(fx->msg);
	list = nla_nest_start(fx->msg, RW_A_LISTENERS);
	rw_put_lsn(fx->msg, &l, 0);
	nla_nest_end(fx->msg, list);
	assert_int_equal(rw_parse(fx), 0);
	assert_string_equal(fx->st.listeners[0].dev, name);

	rw_reset(fx);
	name[RW_DEV_NAME_MAX - 1] = 'n';
	name[RW_DEV_NAME_MAX] = '\0';
	rw_put_header(fx->msg);
	list = nla_nest_start(fx->msg, RW_A_LISTENERS);
	rw_put_lsn(fx->msg, &l, 0);
	nla_nest_end(fx->msg, list);
	rw_assert_malformed(fx, "listener entry");

	rw_reset(fx);
	rw_put_two(fx->msg);
	rw_test_genl_cut(fx->msg, 8);
	rw_assert_malformed(fx, NULL);
}

/* Append-only uapi: newer attributes and entry types are skipped. */
static void rw_test_status_newer(void **state)
{
	struct rw_fx *fx = *state;
	struct nlattr *list, *e;

	rw_put_header(fx->msg);
	list = nla_nest_start(fx->msg, RW_A_LISTENERS);
	e = nla_nest_start(fx->msg, RW_A_LISTENERS_ENTRY + 1);
	assert_int_equal(nla_put_u32(fx->msg, 1, 0), 0);
	nla_nest_end(fx->msg, e);
	rw_put_lsn(fx->msg, &rw_lsn_v6, 0);
	nla_nest_end(fx->msg, list);
	assert_int_equal(nla_put_u64(fx->msg, RW_A_MAX + 2, 5), 0);
	assert_int_equal(rw_parse(fx), 0);
	assert_int_equal(fx->st.nr_listeners, 1);
	assert_int_equal(fx->st.listeners[0].family, AF_INET6);
	assert_int_equal(fx->st.listeners[0].requests, 3);
}

/* ---- "listen show", "dev show" and "listen add/del" ---- */

static struct {
	unsigned int add_calls, del_calls, fetch_calls;
	int err;
	bool kernel;
	const char *msg;
	const char *extack;
	struct rwctl_listen_req last;
	bool no_listeners;
} rw_be;

static void rw_listener_fill(struct rwctl_listener *l, const struct rw_lsn *s)
{
	l->family = s->addr_len == 4 ? AF_INET : AF_INET6;
	memcpy(l->addr, s->addr, (size_t)s->addr_len);
	l->port = s->port;
	snprintf(l->dev, sizeof(l->dev), "%s", s->dev);
	l->up = s->up;
	l->requests = s->requests;
	l->accepted = s->accepted;
	l->connected = s->connected;
	memcpy(l->refused, s->refused, sizeof(l->refused));
	memcpy(l->violations, s->violations, sizeof(l->violations));
}

static int rw_fetch(struct rwctl_status *st, char *msg, size_t msglen)
{
	(void)msg;
	(void)msglen;
	rw_be.fetch_calls++;
	rw_test_status_fill(st);
	if (rw_be.no_listeners)
		return 0;
	st->listeners = calloc(2, sizeof(*st->listeners));
	assert_non_null(st->listeners);
	rw_listener_fill(&st->listeners[0], &rw_lsn_v4);
	rw_listener_fill(&st->listeners[1], &rw_lsn_v6);
	st->nr_listeners = 2;
	st->conns = calloc(1, sizeof(*st->conns));
	assert_non_null(st->conns);
	st->conns[0].family = AF_INET;
	memcpy(st->conns[0].addr, rw_peer, sizeof(rw_peer));
	st->conns[0].port = 40675;
	snprintf(st->conns[0].dev, sizeof(st->conns[0].dev), "rxe0");
	snprintf(st->conns[0].job, sizeof(st->conns[0].job), "cj");
	st->conns[0].rank = 1;
	st->conns[0].pushes = 115;
	st->conns[0].writes = 138;
	st->conns[0].messages = 2;
	st->nr_conns = 1;
	/* This host attached to two jobs elsewhere; one link went. */
	st->remotes = calloc(2, sizeof(*st->remotes));
	assert_non_null(st->remotes);
	st->remotes[0].family = AF_INET;
	memcpy(st->remotes[0].addr, rw_v4, 4);
	st->remotes[0].port = 18515;
	snprintf(st->remotes[0].dev, sizeof(st->remotes[0].dev), "rxe0");
	snprintf(st->remotes[0].job, sizeof(st->remotes[0].job), "far");
	st->remotes[0].rank = 3;
	st->remotes[0].pushes = 46;
	st->remotes[0].writes = 69;
	st->remotes[0].messages = 2;
	st->remotes[1] = st->remotes[0];
	st->remotes[1].dev[0] = 0;
	st->remotes[1].rank = 0;
	st->remotes[1].observer = true;
	st->remotes[1].broken = true;
	st->nr_remotes = 2;
	return 0;
}

static int rw_be_reply(const struct rwctl_listen_req *r, struct rwctl_err *e)
{
	rw_be.last = *r;
	if (!rw_be.err)
		return 0;
	e->kernel = rw_be.kernel;
	if (rw_be.msg)
		snprintf(e->msg, sizeof(e->msg), "%s", rw_be.msg);
	if (rw_be.extack)
		snprintf(e->extack, sizeof(e->extack), "%s", rw_be.extack);
	return rw_be.err;
}

static int rw_be_add(const struct rwctl_listen_req *r, struct rwctl_err *e)
{
	rw_be.add_calls++;
	return rw_be_reply(r, e);
}

static int rw_be_del(const struct rwctl_listen_req *r, struct rwctl_err *e)
{
	rw_be.del_calls++;
	return rw_be_reply(r, e);
}

static const struct rwctl_listen_backend rw_test_backend = {
	.add = rw_be_add,
	.del = rw_be_del,
};

static struct rw_result rw_last;

static const struct rwctl rw_tmpl = {
	.fetch = rw_fetch,
	.listen_backend = &rw_test_backend,
};

/* Changes must not need the status. */
static const struct rwctl rw_tmpl_change = {
	.fetch = rw_test_no_fetch,
	.listen_backend = &rw_test_backend,
};

#define RUN(...)	RW_RUN(&rw_last, &rw_tmpl, __VA_ARGS__)
#define CHANGE(...)	RW_RUN(&rw_last, &rw_tmpl_change, __VA_ARGS__)

static int rw_setup(void **state)
{
	(void)state;
	memset(&rw_be, 0, sizeof(rw_be));
	return 0;
}

static const char rw_text[] =
	"10.77.0.1:18515  rxe0  up  requests 7  accepted 2  connected 1\n"
	"  refused 5: proto 1, auth 2, clock 1, in-use 1\n"
	"  closed for violations 1: access 1\n"
	"[fe80::1]:7000  down (its RDMA device went; add it again)"
	"  requests 3  accepted 0  connected 0\n"
	"connections:\n"
	"  10.88.0.2:40675  rxe0  job cj  rank 1  pushes 115  writes 138"
	"  messages 2\n"
	"attached to other boxes:\n"
	"  10.77.0.1:18515  rxe0  job far  rank 3  pushes 46  writes 69"
	"  messages 2\n"
	"  10.77.0.1:18515  job far  observer  pushes 46  writes 69"
	"  messages 2  connection lost\n";

static const char rw_json[] =
	"{\"listeners\":["
	"{\"addr\":\"10.77.0.1\",\"port\":18515,\"device\":\"rxe0\",\"up\":true,"
	"\"requests\":7,\"accepted\":2,\"connected\":1,\"refused_total\":5,"
	"\"refused\":{\"proto\":1,\"auth\":2,\"clock\":1,\"busy\":0,\"rank\":0,"
	"\"in-use\":1,\"stale\":0,\"other\":0},\"violations_total\":1,"
	"\"violations\":{\"proto\":0,\"access\":1}},"
	"{\"addr\":\"fe80::1\",\"port\":7000,\"device\":\"\",\"up\":false,"
	"\"requests\":3,\"accepted\":0,\"connected\":0,\"refused_total\":0,"
	"\"refused\":{\"proto\":0,\"auth\":0,\"clock\":0,\"busy\":0,\"rank\":0,"
	"\"in-use\":0,\"stale\":0,\"other\":0},\"violations_total\":0,"
	"\"violations\":{\"proto\":0,\"access\":0}}],"
	"\"connections\":[{\"addr\":\"10.88.0.2\",\"port\":40675,"
	"\"device\":\"rxe0\",\"job\":\"cj\",\"rank\":1,\"observer\":false,\"pushes\":115,"
	"\"writes\":138,\"messages\":2}],"
	"\"remotes\":[{\"addr\":\"10.77.0.1\",\"port\":18515,"
	"\"device\":\"rxe0\",\"job\":\"far\",\"rank\":3,\"observer\":false,\"pushes\":46,"
	"\"writes\":69,\"messages\":2,\"broken\":false},"
	"{\"addr\":\"10.77.0.1\",\"port\":18515,"
	"\"device\":\"\",\"job\":\"far\",\"rank\":0,\"observer\":true,\"pushes\":46,"
	"\"writes\":69,\"messages\":2,\"broken\":true}]}\n";

static void rw_test_show_text(void **state)
{
	(void)state;
	RUN("listen", "show");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.err, "");
	assert_non_null(strstr(rw_last.out,
		"10.77.0.1:18515  rxe0  up  requests 7  accepted 2  connected 1\n"));
	assert_non_null(strstr(rw_last.out,
		"\n  refused 5: proto 1, auth 2, clock 1, in-use 1\n"));
	assert_non_null(strstr(rw_last.out, "[fe80::1]:7000  down"));
	assert_string_equal(rw_last.out, rw_text);

	/* The alias, and the object alone: its first command. */
	RUN("listen", "list");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out, rw_text);
	RUN("listen");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out, rw_text);
	assert_int_equal(rw_be.fetch_calls, 3);
	assert_int_equal(rw_be.add_calls + rw_be.del_calls, 0);

	rw_be.no_listeners = true;
	RUN("listen", "show");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out, "");
}

static void rw_test_show_json(void **state)
{
	(void)state;
	RUN("-j", "listen", "show");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.err, "");
	rw_assert_json(rw_last.out);
	assert_non_null(strstr(rw_last.out, "\"addr\":\"10.77.0.1\""));
	assert_non_null(strstr(rw_last.out, "\"port\":18515"));
	assert_non_null(strstr(rw_last.out, "\"refused_total\":5"));
	assert_non_null(strstr(rw_last.out, "\"in-use\":1"));
	assert_non_null(strstr(rw_last.out, "\"violations_total\":1"));
	assert_string_equal(rw_last.out, rw_json);

	RUN("-j", "-p", "listen", "show");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	rw_assert_json(rw_last.out);
	assert_non_null(strstr(rw_last.out, "\"addr\": \"fe80::1\""));

	rw_be.no_listeners = true;
	RUN("-j", "listen", "show");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out,
			    "{\"listeners\":[],\"connections\":[],\"remotes\":[]}\n");
}

static void rw_test_dev_show(void **state)
{
	(void)state;
	RUN("-j", "dev", "show");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	rw_assert_json(rw_last.out);
	assert_non_null(strstr(rw_last.out, "\"devices\":[{\"name\":\"rxe0\""));
	assert_non_null(strstr(rw_last.out,
		"],\"listeners\":[{\"addr\":\"10.77.0.1\",\"port\":18515,"));
	assert_non_null(strstr(rw_last.out, "\"refused_total\":5"));

	RUN("dev", "show");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out,
		"listeners:\n"
		"10.77.0.1:18515  rxe0  up  requests 7  accepted 2  connected 1\n"));

	rw_be.no_listeners = true;
	RUN("dev", "show");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_null(strstr(rw_last.out, "listeners"));
	RUN("-j", "dev", "show");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out, "\"listeners\":[]}\n"));
}

static void rw_test_add_del(void **state)
{
	(void)state;
	CHANGE("listen", "add", "10.77.0.1", "port", "7000");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.out, "");
	assert_string_equal(rw_last.err, "");
	assert_int_equal(rw_be.add_calls, 1);
	assert_int_equal(rw_be.del_calls, 0);
	assert_int_equal(rw_be.last.addr_len, 4);
	assert_memory_equal(rw_be.last.addr, rw_v4, 4);
	assert_int_equal(rw_be.last.port, 7000);

	CHANGE("listen", "del", "fe80::1");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_string_equal(rw_last.err, "");
	assert_int_equal(rw_be.add_calls, 1);
	assert_int_equal(rw_be.del_calls, 1);
	assert_int_equal(rw_be.last.addr_len, 16);
	assert_memory_equal(rw_be.last.addr, rw_v6, 16);
	assert_int_equal(rw_be.last.port, RW_WIRE_PORT);

	CHANGE("listen", "delete", "::1", "port", "65535");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_int_equal(rw_be.del_calls, 2);
	assert_int_equal(rw_be.last.port, 65535);
}

static void rw_test_change_errors(void **state)
{
	(void)state;
	rw_be.kernel = true;
	rw_be.err = -EEXIST;
	rw_be.extack = "listener exists";
	CHANGE("listen", "add", "10.77.0.1", "port", "7000");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_ERR);
	assert_string_equal(rw_last.out, "");
	/* The sentence replaces the module's ack. */
	assert_string_equal(rw_last.err,
		"rwctl: listen add: the box already listens on 10.77.0.1:7000\n");

	rw_be.extack = NULL;
	rw_be.err = -EADDRNOTAVAIL;
	CHANGE("listen", "add", "fe80::1");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "rwctl: listen add: no RDMA device has the address of [fe80::1]:18515");

	rw_be.err = -EADDRINUSE;
	CHANGE("listen", "add", "10.77.0.1");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR,
		       "rwctl: listen add: another RDMA listener on this host has 10.77.0.1:18515\n");

	rw_be.err = -ENOENT;
	CHANGE("listen", "del", "10.77.0.1", "port", "7000");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_ERR);
	assert_string_equal(rw_last.out, "");
	assert_string_equal(rw_last.err,
		"rwctl: listen del: the box does not listen on 10.77.0.1:7000\n");

	rw_be.err = -EPERM;
	CHANGE("listen", "del", "10.77.0.1");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_ERR);
	assert_string_equal(rw_last.err,
		"rwctl: listen del: needs CAP_NET_ADMIN (run as root)\n");
	CHANGE("listen", "add", "10.77.0.1");
	rw_assert_exit(&rw_last, RWCTL_EXIT_ERR, "needs CAP_NET_ADMIN");

	/* Not the module's refusal: the backend's own sentence. */
	rw_be.kernel = false;
	rw_be.err = -ENOENT;
	rw_be.msg = "the rackweave module is not loaded";
	CHANGE("listen", "add", "10.77.0.1");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_ERR);
	assert_string_equal(rw_last.err,
		"rwctl: the rackweave module is not loaded\n");

	assert_int_equal(rw_be.add_calls, 5);
	assert_int_equal(rw_be.del_calls, 2);
}

static void rw_test_change_usage(void **state)
{
	static const char *const bad[][6] = {
		{ "listen", "add", NULL },
		{ "listen", "del", NULL },
		{ "listen", "add", "10.1.1", NULL },
		{ "listen", "add", "10.0.0.1", "port", NULL },
		{ "listen", "add", "10.0.0.1", "port", "0", NULL },
		{ "listen", "del", "10.0.0.1", "prot", "5", NULL },
		{ "listen", "add", "10.0.0.1", "port", "5", "x" },
		{ "listen", "bogus", NULL },
		{ "listen", "show", "x", NULL },
	};
	static const char *const why[] = {
		"an address to listen on is required",
		"an address to listen on is required",
		"'10.1.1' is not an IPv4 or IPv6 address",
		"port needs a value",
		"port '0' is out of range (1..65535)",
		"unknown argument 'prot' (port N)",
		"unexpected argument 'x'",
		"unknown command 'bogus' for object 'listen'",
		"unexpected argument 'x'",
	};
	const char *args[7];
	size_t i;

	(void)state;
	for (i = 0; i < RW_ARRAY_SIZE(bad); i++) {
		memcpy(args, bad[i], sizeof(bad[i]));
		args[6] = NULL;
		rw_test_rwctl(&rw_last, &rw_tmpl_change, args);
		if (rw_last.rc != RWCTL_EXIT_USAGE || !strstr(rw_last.err, why[i]))
			fail_msg("case %zu: %d %s", i, rw_last.rc, rw_last.err);
		rw_assert_usage_of(&rw_last, "listen", why[i]);
	}
	assert_int_equal(rw_be.add_calls + rw_be.del_calls, 0);
}

static void rw_test_help(void **state)
{
	(void)state;
	RUN("listen", "help");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out,
			       "Usage: rwctl [OPTIONS] listen { COMMAND | help }"));
	assert_non_null(strstr(rw_last.out, "  add ADDR [port N]"));
	assert_non_null(strstr(rw_last.out, "default 18515"));
	RUN("help");
	assert_int_equal(rw_last.rc, RWCTL_EXIT_OK);
	assert_non_null(strstr(rw_last.out, "listen"));
	assert_int_equal(rw_be.add_calls + rw_be.del_calls + rw_be.fetch_calls, 0);
}

#define RW_T(fn)	cmocka_unit_test_setup(fn, rw_setup)
#define RW_M(fn)	cmocka_unit_test_setup_teardown(fn, rw_msg_setup, rw_msg_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		RW_T(rw_test_parse_good),
		RW_T(rw_test_parse_bad),
		RW_T(rw_test_format),
		RW_M(rw_test_status_listeners),
		RW_M(rw_test_status_refusal_order),
		RW_M(rw_test_status_no_refusals),
		RW_M(rw_test_status_no_listeners),
		RW_M(rw_test_status_missing),
		RW_M(rw_test_status_addr_len),
		RW_M(rw_test_status_lengths),
		RW_M(rw_test_status_dev_and_cut),
		RW_M(rw_test_status_newer),
		RW_M(rw_test_status_conn_malformed),
		RW_M(rw_test_status_conn_no_counters),
		RW_M(rw_test_status_conn_observer),
		RW_T(rw_test_show_text),
		RW_T(rw_test_show_json),
		RW_T(rw_test_dev_show),
		RW_T(rw_test_add_del),
		RW_T(rw_test_change_errors),
		RW_T(rw_test_change_usage),
		RW_T(rw_test_help),
	};
	int ret;

	cmocka_set_message_output(CM_OUTPUT_TAP);
	ret = cmocka_run_group_tests_name("rwctl-listen", tests, NULL, NULL);
	rw_result_free(&rw_last);
	return ret;
}
