// SPDX-License-Identifier: GPL-2.0
/*
 * genl-check: sends well-formed and malformed messages to the "rackweave"
 * generic netlink family from inside a VM and prints TAP. Malformed input
 * must be refused with its errno and leave the family answering.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <rackweave/uapi.h>

static int failed;
static struct nl_sock *sk;
static int family;

static int last_ret;

static void check(int cond, const char *what)
{
	printf("%sok - genl: %s\n", cond ? "" : "not ", what);
	if (!cond) {
		printf("#   last libnl result: %d (%s)\n", last_ret,
		       nl_geterror(last_ret));
		failed = 1;
	}
}

struct reply {
	int got_version;
	int nodes;
};

static int on_reply(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[RW_A_MAX + 1], *pos;
	struct reply *r = arg;
	int rem;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, RW_A_MAX, NULL))
		return NL_SKIP;
	if (tb[RW_A_VERSION] &&
	    !strcmp(nla_get_string(tb[RW_A_VERSION]), RW_VERSION_STRING))
		r->got_version = 1;
	if (tb[RW_A_NODES])
		nla_for_each_nested(pos, tb[RW_A_NODES], rem)
			r->nodes++;
	return NL_OK;
}

/* Sends cmd, optionally with one attribute; returns 0 or -errno. */
static int request(int cmd, int attr, const void *data, int len,
		   struct reply *r)
{
	struct nl_msg *msg = nlmsg_alloc();
	int ret;

	genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0, cmd,
		    RW_GENL_VERSION);
	if (attr)
		nla_put(msg, attr, len, data);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_reply, r);
	ret = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (ret < 0)
		return -EIO;
	ret = nl_recvmsgs_default(sk);
	last_ret = ret;
	/* libnl maps the kernel's errno to its own codes; map back. */
	if (ret == -NLE_INVAL)
		return -EINVAL;
	if (ret == -NLE_OPNOTSUPP)
		return -EOPNOTSUPP;
	if (ret == -NLE_PERM)
		return -EPERM;
	return ret < 0 ? -EIO : 0;
}

static int still_answers(void)
{
	struct reply r = { 0 };

	return request(RW_CMD_STATUS_GET, 0, NULL, 0, &r) == 0 && r.got_version;
}

int main(void)
{
	struct reply r = { 0 };
	char junk[8] = "abcdefg";
	unsigned int u = 1;
	int ret;

	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk)) {
		check(0, "connect a generic netlink socket");
		return 1;
	}
	/* One answer per request: the reply, or the error. */
	nl_socket_disable_auto_ack(sk);
	family = genl_ctrl_resolve(sk, RW_GENL_NAME);
	check(family > 0, "family \"rackweave\" resolves");
	if (family <= 0)
		return 1;

	ret = request(RW_CMD_STATUS_GET, 0, NULL, 0, &r);
	check(ret == 0 && r.got_version, "STATUS_GET answers with the version");
	check(r.nodes >= 1, "STATUS_GET lists at least one NUMA node");

	ret = request(RW_CMD_STATUS_GET, RW_A_CPUS_ONLINE, &u, sizeof(u), &r);
	check(ret == -EINVAL && still_answers(),
	      "STATUS_GET with an attribute it does not take -> EINVAL");
	ret = request(RW_CMD_STATUS_GET, RW_A_MAX + 5, junk, sizeof(junk), &r);
	check(ret == -EINVAL && still_answers(),
	      "STATUS_GET with an unknown attribute -> EINVAL");
	ret = request(RW_CMD_MAX + 1, 0, NULL, 0, &r);
	check(ret == -EOPNOTSUPP && still_answers(),
	      "unknown command -> EOPNOTSUPP");
	ret = request(RW_CMD_UNSPEC, 0, NULL, 0, &r);
	check(ret == -EOPNOTSUPP && still_answers(),
	      "command 0 -> EOPNOTSUPP");

	nl_socket_free(sk);
	return failed;
}
