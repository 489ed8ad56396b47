// SPDX-License-Identifier: GPL-2.0
/*
 * Fixtures and checks shared by the rwctl tests. Failing to set a fixture
 * up is a broken test host, so they abort with a message rather than
 * return errors; the checks fail the running cmocka test.
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

#include "jsoncheck.h"
#include "print.h"
#include "rwctl.h"
#include "rwtest.h"
#include "status.h"

static void *rw_test_dup(const void *src, size_t size)
{
	void *p = malloc(size);

	if (!p) {
		fputs("rwtest: out of memory\n", stderr);
		abort();
	}
	return memcpy(p, src, size);
}

void rw_test_status_fill(struct rwctl_status *st)
{
	static const struct rwctl_node nodes[] = {
		{ .id = 0, .nr_cpus = 1, .cpulist = "0", .mem_mb = 512 },
		{ .id = 1, .nr_cpus = 3, .cpulist = "1-3", .mem_mb = 1024 },
	};
	static const struct rwctl_device devs[] = {
		{ .name = "rxe0", .node = 0, .ports = 1,
		  .node_guid = 0x505400fffe123456ULL, .index = 1 },
		{ .name = "siw_eth1", .node = -1, .ports = 2,
		  .node_guid = 0x0000000000abcdefULL, .index = 7 },
	};

	memset(st, 0, sizeof(*st));
	/* A module of an earlier release: the printers show what it sent. */
	strcpy(st->version, "0.1.0");
	st->version_code = 0x000100;
	st->abi = RW_ABI_VERSION;
	st->features = RW_FEATURES_ALL;
	st->cpus_online = 4;
	st->nodes = rw_test_dup(nodes, sizeof(nodes));
	st->nr_nodes = 2;
	st->devs = rw_test_dup(devs, sizeof(devs));
	st->nr_devs = 2;
}

void rw_capture_open(struct rw_capture *c)
{
	memset(c, 0, sizeof(*c));
	c->f = open_memstream(&c->buf, &c->len);
	if (!c->f) {
		perror("rwtest: open_memstream");
		abort();
	}
}

const char *rw_capture_str(struct rw_capture *c)
{
	if (c->f) {
		fclose(c->f);
		c->f = NULL;
	}
	return c->buf ? c->buf : "";
}

void rw_capture_free(struct rw_capture *c)
{
	if (c->f)
		fclose(c->f);
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

void rw_render_begin(struct rw_capture *c, struct rwctl_printer *p,
		     unsigned int flags)
{
	rw_capture_open(c);
	rwctl_pr_init(p, c->f, flags);
}

char *rw_render_end(struct rw_capture *c, struct rwctl_printer *p)
{
	char *out;

	assert_int_equal(rwctl_pr_end(p), 0);
	rw_capture_str(c);
	out = c->buf;
	c->buf = NULL;
	rw_capture_free(c);
	return out;
}

void rw_assert_json(const char *text)
{
	size_t off = 0;

	if (!rw_json_valid(text, &off))
		fail_msg("invalid JSON at offset %zu: %s", off, text);
}

void rw_assert_malformed_why(int err, const char *why, const char *kind,
			     const char *what)
{
	assert_int_equal(err, -EPROTO);
	if (!strstr(why, kind) || (what && !strstr(why, what)))
		fail_msg("want '%s' in: %s", what ? what : kind, why);
}

void rw_result_free(struct rw_result *res)
{
	free(res->out);
	free(res->err);
	res->out = NULL;
	res->err = NULL;
}

int rw_test_rwctl(struct rw_result *res, const struct rwctl *tmpl,
		  const char *const *args)
{
	struct rw_capture out, err;
	struct rwctl ctl = *tmpl;
	char *argv[64];
	int argc = 0;

	argv[argc++] = "rwctl";
	for (; *args; args++) {
		if (argc == 63) {
			fputs("rwtest: too many arguments\n", stderr);
			abort();
		}
		argv[argc++] = (char *)*args;
	}
	argv[argc] = NULL;

	rw_result_free(res);
	rw_capture_open(&out);
	rw_capture_open(&err);
	ctl.out = out.f;
	ctl.err = err.f;
	res->rc = rwctl_run(&ctl, argc, argv);
	rw_capture_str(&out);
	rw_capture_str(&err);
	res->out = out.buf ? out.buf : strdup("");
	res->err = err.buf ? err.buf : strdup("");
	return res->rc;
}

int rw_test_no_fetch(struct rwctl_status *st, char *msg, size_t msglen)
{
	(void)st;
	snprintf(msg, msglen, "status must not be fetched");
	return -EIO;
}

void rw_assert_exit(const struct rw_result *res, int rc, const char *what)
{
	if (res->rc != rc || !strstr(res->err, what))
		fail_msg("want exit %d and '%s', got %d: %s", rc, what, res->rc,
			 res->err);
	assert_string_equal(res->out, "");
}

void rw_assert_usage_of(const struct rw_result *res, const char *obj,
			const char *what)
{
	char hint[64];

	rw_assert_exit(res, RWCTL_EXIT_USAGE, what);
	snprintf(hint, sizeof(hint), "Try 'rwctl %s help'.", obj);
	assert_non_null(strstr(res->err, hint));
}

struct nl_msg *rw_test_genl_msg(int family, int cmd)
{
	struct nl_msg *m = nlmsg_alloc();

	if (!m || !genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0,
			       (uint8_t)cmd, RW_GENL_VERSION)) {
		fputs("rwtest: cannot build a netlink message\n", stderr);
		abort();
	}
	return m;
}

void rw_test_put_u32(struct nl_msg *m, unsigned int skip, int type,
		     uint32_t v)
{
	if (!(skip & (1U << type)))
		assert_int_equal(nla_put_u32(m, type, v), 0);
}

void rw_test_put_u64(struct nl_msg *m, unsigned int skip, int type,
		     uint64_t v)
{
	if (!(skip & (1U << type)))
		assert_int_equal(nla_put_u64(m, type, v), 0);
}

void rw_test_genl_cut(struct nl_msg *m, unsigned int bytes)
{
	struct nlmsghdr *nlh = nlmsg_hdr(m);

	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN + bytes) {
		fputs("rwtest: message too short to cut\n", stderr);
		abort();
	}
	nlh->nlmsg_len -= bytes;
}
