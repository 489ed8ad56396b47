// SPDX-License-Identifier: GPL-2.0
/*
 * Fixtures shared by the rwctl tests. Failing to set one up is a broken test
 * host, so they abort with a message rather than return errors.
 */
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <rackweave.h>

#include "genl.h"
#include "rwctl.h"
#include "rwtest.h"

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
	strcpy(st->version, "0.1.0");
	st->version_code = RW_VERSION_CODE;
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

void rw_test_genl_cut(struct nl_msg *m, unsigned int bytes)
{
	struct nlmsghdr *nlh = nlmsg_hdr(m);

	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN + bytes) {
		fputs("rwtest: message too short to cut\n", stderr);
		abort();
	}
	nlh->nlmsg_len -= bytes;
}
