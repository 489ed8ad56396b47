// SPDX-License-Identifier: GPL-2.0
/*
 * RW_CMD_STATUS_GET over generic netlink: the socket and family every
 * command shares, and the status reply parsed into struct rwctl_status.
 * The exchange itself (send, read to the ack or error) is genl-req.c's.
 *
 * The parser trusts nothing: libnl's policies only check minimum lengths, so
 * every fixed-size attribute here states minlen and maxlen alike, and every
 * string a maxlen equal to the buffer it is copied into. Attribute types
 * newer than this rwctl are ignored, as the append-only uapi allows.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "genl.h"
#include "job.h"

#define RWCTL_U32_POLICY	{ .type = NLA_U32, .minlen = 4, .maxlen = 4 }
#define RWCTL_U64_POLICY	{ .type = NLA_U64, .minlen = 8, .maxlen = 8 }
#define RWCTL_S32_POLICY	{ .type = NLA_S32, .minlen = 4, .maxlen = 4 }

static const struct nla_policy rwctl_status_policy[RW_A_MAX + 1] = {
	[RW_A_VERSION]		= { .type = NLA_STRING, .maxlen = RWCTL_VERSION_MAX },
	[RW_A_VERSION_CODE]	= RWCTL_U32_POLICY,
	[RW_A_FEATURES]		= RWCTL_U64_POLICY,
	[RW_A_CPUS_ONLINE]	= RWCTL_U32_POLICY,
	[RW_A_NODES]		= { .type = NLA_NESTED },
	[RW_A_DEVICES]		= { .type = NLA_NESTED },
	[RW_A_AGG_IMPL]		= { .type = NLA_STRING, .maxlen = RW_AGG_IMPL_NAME_MAX },
};

static const struct nla_policy rwctl_node_policy[RW_NODE_A_MAX + 1] = {
	[RW_NODE_A_ID]		= RWCTL_U32_POLICY,
	[RW_NODE_A_NR_CPUS]	= RWCTL_U32_POLICY,
	[RW_NODE_A_CPULIST]	= { .type = NLA_STRING, .maxlen = RW_CPULIST_MAX },
	[RW_NODE_A_MEM_MB]	= RWCTL_U64_POLICY,
};

static const struct nla_policy rwctl_dev_policy[RW_DEV_A_MAX + 1] = {
	[RW_DEV_A_NAME]		= { .type = NLA_STRING, .maxlen = RW_DEV_NAME_MAX },
	[RW_DEV_A_NODE]		= RWCTL_S32_POLICY,
	[RW_DEV_A_PORTS]	= RWCTL_U32_POLICY,
	[RW_DEV_A_NODE_GUID]	= RWCTL_U64_POLICY,
	[RW_DEV_A_INDEX]	= RWCTL_U32_POLICY,
};

int rwctl_genl_fail(char *msg, size_t msglen, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
	return err;
}

#define rwctl_genl_bad(msg, msglen, fmt, ...)				\
	rwctl_genl_fail(msg, msglen, -EPROTO,				\
			"malformed status reply from the rackweave module: " \
			fmt, ##__VA_ARGS__)

/* nla_parse() plus the check for bytes after the last whole attribute. */
static int rwctl_genl_parse_attrs(struct nlattr **tb, int maxtype,
				  struct nlattr *head, int len,
				  const struct nla_policy *policy)
{
	struct nlattr *nla;
	int rem, err;

	err = nla_parse(tb, maxtype, head, len, policy);
	if (err < 0)
		return err;
	nla_for_each_attr(nla, head, len, rem)
		;
	return rem > 0 ? -NLE_MSG_TRUNC : 0;
}

const char *rwctl_genl_strerror(int err)
{
	switch (err) {
	case -NLE_MSG_TRUNC:
		return "bytes left after the last attribute (cut short?)";
	case -NLE_MSG_TOOSHORT:
		return "no generic netlink header";
	case -NLE_RANGE:
		return "an attribute of the wrong length";
	case -NLE_INVAL:
		return "a string without its terminating NUL";
	default:
		return nl_geterror(err);
	}
}

int rwctl_genl_parse_msg(struct nlmsghdr *nlh, struct nlattr **tb,
			 int maxtype, const struct nla_policy *policy)
{
	struct genlmsghdr *ghdr = nlmsg_data(nlh);

	if (!genlmsg_valid_hdr(nlh, 0))
		return -NLE_MSG_TOOSHORT;
	return rwctl_genl_parse_attrs(tb, maxtype, genlmsg_attrdata(ghdr, 0),
				      genlmsg_attrlen(ghdr, 0), policy);
}

int rwctl_genl_parse_nested(struct nlattr **tb, int maxtype,
			    struct nlattr *nest,
			    const struct nla_policy *policy)
{
	return rwctl_genl_parse_attrs(tb, maxtype, nla_data(nest),
				      nla_len(nest), policy);
}

void rwctl_status_free(struct rwctl_status *st)
{
	free(st->nodes);
	free(st->devs);
	memset(st, 0, sizeof(*st));
}

size_t rwctl_genl_count(struct nlattr *list, int type)
{
	struct nlattr *entry;
	size_t n = 0;
	int rem;

	nla_for_each_nested(entry, list, rem)
		if (nla_type(entry) == type)
			n++;
	return n;
}

static int rwctl_genl_parse_nodes(struct nlattr *list, struct rwctl_status *st,
				  char *msg, size_t msglen)
{
	struct nlattr *tb[RW_NODE_A_MAX + 1];
	struct nlattr *entry;
	struct rwctl_node *node;
	int rem, err;
	size_t n;

	/* One spare element so that an empty list still allocates. */
	n = list ? rwctl_genl_count(list, RW_A_NODES_ENTRY) : 0;
	st->nodes = calloc(n + 1, sizeof(*st->nodes));
	if (!st->nodes)
		return rwctl_genl_fail(msg, msglen, -ENOMEM, "out of memory");
	if (!list)
		return 0;

	nla_for_each_nested(entry, list, rem) {
		if (nla_type(entry) != RW_A_NODES_ENTRY)
			continue;
		err = rwctl_genl_parse_nested(tb, RW_NODE_A_MAX, entry,
					      rwctl_node_policy);
		if (err < 0)
			return rwctl_genl_bad(msg, msglen, "node entry: %s",
					      rwctl_genl_strerror(err));
		if (!tb[RW_NODE_A_ID] || !tb[RW_NODE_A_NR_CPUS] ||
		    !tb[RW_NODE_A_CPULIST] || !tb[RW_NODE_A_MEM_MB])
			return rwctl_genl_bad(msg, msglen,
					      "node entry %zu lacks an attribute",
					      st->nr_nodes);

		node = &st->nodes[st->nr_nodes++];
		node->id = nla_get_u32(tb[RW_NODE_A_ID]);
		node->nr_cpus = nla_get_u32(tb[RW_NODE_A_NR_CPUS]);
		nla_strlcpy(node->cpulist, tb[RW_NODE_A_CPULIST],
			    sizeof(node->cpulist));
		node->mem_mb = nla_get_u64(tb[RW_NODE_A_MEM_MB]);
	}
	if (rem > 0)
		return rwctl_genl_bad(msg, msglen, "trailing bytes in node list");
	return 0;
}

static int rwctl_genl_parse_devs(struct nlattr *list, struct rwctl_status *st,
				 char *msg, size_t msglen)
{
	struct nlattr *tb[RW_DEV_A_MAX + 1];
	struct rwctl_device *d;
	struct nlattr *entry;
	int rem, err;
	size_t n;

	/* One spare element so that an empty list still allocates. */
	n = list ? rwctl_genl_count(list, RW_A_DEVICES_ENTRY) : 0;
	st->devs = calloc(n + 1, sizeof(*st->devs));
	if (!st->devs)
		return rwctl_genl_fail(msg, msglen, -ENOMEM, "out of memory");
	if (!list)
		return 0;

	nla_for_each_nested(entry, list, rem) {
		if (nla_type(entry) != RW_A_DEVICES_ENTRY)
			continue;
		err = rwctl_genl_parse_nested(tb, RW_DEV_A_MAX, entry,
					      rwctl_dev_policy);
		if (err < 0)
			return rwctl_genl_bad(msg, msglen, "device entry: %s",
					      rwctl_genl_strerror(err));
		if (!tb[RW_DEV_A_NAME] || !tb[RW_DEV_A_NODE] ||
		    !tb[RW_DEV_A_PORTS] || !tb[RW_DEV_A_NODE_GUID] ||
		    !tb[RW_DEV_A_INDEX])
			return rwctl_genl_bad(msg, msglen,
					      "device entry %zu lacks an attribute",
					      st->nr_devs);

		d = &st->devs[st->nr_devs++];
		nla_strlcpy(d->name, tb[RW_DEV_A_NAME], sizeof(d->name));
		d->node = nla_get_s32(tb[RW_DEV_A_NODE]);
		d->ports = nla_get_u32(tb[RW_DEV_A_PORTS]);
		d->node_guid = nla_get_u64(tb[RW_DEV_A_NODE_GUID]);
		d->index = nla_get_u32(tb[RW_DEV_A_INDEX]);
	}
	if (rem > 0)
		return rwctl_genl_bad(msg, msglen, "trailing bytes in device list");
	return 0;
}

int rwctl_genl_parse_status(struct nlmsghdr *nlh, struct rwctl_status *st,
			    char *msg, size_t msglen)
{
	struct nlattr *tb[RW_A_MAX + 1];
	int err;

	err = rwctl_genl_parse_msg(nlh, tb, RW_A_MAX, rwctl_status_policy);
	if (err < 0)
		return rwctl_genl_bad(msg, msglen, "%s", rwctl_genl_strerror(err));

	if (!tb[RW_A_VERSION] || !tb[RW_A_VERSION_CODE] ||
	    !tb[RW_A_FEATURES] || !tb[RW_A_CPUS_ONLINE])
		return rwctl_genl_bad(msg, msglen,
				      "version, features or CPU count missing");

	nla_strlcpy(st->version, tb[RW_A_VERSION], sizeof(st->version));
	st->version_code = nla_get_u32(tb[RW_A_VERSION_CODE]);
	st->features = nla_get_u64(tb[RW_A_FEATURES]);
	st->cpus_online = nla_get_u32(tb[RW_A_CPUS_ONLINE]);
	if (tb[RW_A_AGG_IMPL])
		nla_strlcpy(st->agg_impl, tb[RW_A_AGG_IMPL], sizeof(st->agg_impl));

	/* An absent list is an empty one: nothing to report is not an error. */
	err = rwctl_genl_parse_nodes(tb[RW_A_NODES], st, msg, msglen);
	if (err)
		return err;
	return rwctl_genl_parse_devs(tb[RW_A_DEVICES], st, msg, msglen);
}

/*
 * The text of NLMSGERR_ATTR_MSG, which the kernel appends after the error
 * (and after the echoed request unless NETLINK_CAP_ACK capped it).
 */
void rwctl_genl_extack(const struct nlmsgerr *e, char *buf, size_t len)
{
	static const struct nla_policy policy[NLMSGERR_ATTR_MAX + 1] = {
		[NLMSGERR_ATTR_MSG] = { .type = NLA_STRING },
	};
	const struct nlmsghdr *nlh = (const void *)((const char *)e - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*e);

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	if (nlh->nlmsg_len < NLMSG_HDRLEN + off)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)e + off),
		      nlh->nlmsg_len - NLMSG_HDRLEN - off, policy) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		nla_strlcpy(buf, tb[NLMSGERR_ATTR_MSG], len);
}

int rwctl_genl_open(struct nl_sock **skp, int *family, char *msg,
		    size_t msglen)
{
	struct nl_sock *sk;
	int one = 1;
	int err;

	*skp = NULL;
	sk = nl_socket_alloc();
	if (!sk)
		return rwctl_genl_fail(msg, msglen, -ENOMEM, "out of memory");

	err = genl_connect(sk);
	if (err < 0) {
		err = rwctl_genl_fail(msg, msglen, -EIO,
				      "cannot open a generic netlink socket: %s",
				      nl_geterror(err));
		goto fail;
	}
	/* Best effort: older kernels just give a bare errno. */
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));

	*family = genl_ctrl_resolve(sk, RW_GENL_NAME);
	if (*family == -NLE_OBJ_NOTFOUND) {
		err = rwctl_genl_fail(msg, msglen, -ENOENT,
				      "rackweave module not loaded (generic netlink family '%s' not found); load it with: modprobe rackweave",
				      RW_GENL_NAME);
		goto fail;
	}
	if (*family < 0) {
		err = rwctl_genl_fail(msg, msglen, -EIO,
				      "cannot look up generic netlink family '%s': %s",
				      RW_GENL_NAME, nl_geterror(*family));
		goto fail;
	}
	*skp = sk;
	return 0;
fail:
	nl_socket_free(sk);
	return err;
}

/* The status request's reply: parsed once; a second would be a module bug. */
struct rwctl_genl_status_reply {
	struct rwctl_status *st;
	bool replied;
};

static int rwctl_genl_on_status(struct nlmsghdr *nlh, void *arg, char *msg,
				size_t msglen)
{
	struct rwctl_genl_status_reply *r = arg;

	if (r->replied)
		return 0;
	r->replied = true;
	return rwctl_genl_parse_status(nlh, r->st, msg, msglen);
}

int rwctl_genl_status_get(struct rwctl_status *st, char *msg, size_t msglen)
{
	struct rwctl_genl_status_reply r = { .st = st };
	struct rwctl_job_err e;
	int err;

	memset(&e, 0, sizeof(e));
	err = rwctl_genl_request(RW_CMD_STATUS_GET, false, NULL, NULL,
				 rwctl_genl_on_status, &r, &e);
	if (err && e.kernel)
		return rwctl_genl_fail(msg, msglen, err,
				       "the rackweave module refused the status request: %s%s%s",
				       strerror(-err), e.extack[0] ? ": " : "",
				       e.extack);
	if (err)
		return rwctl_genl_fail(msg, msglen, err, "%s", e.msg);
	if (!r.replied)
		return rwctl_genl_fail(msg, msglen, -EPROTO,
				       "the rackweave module acknowledged the status request without a reply");
	return 0;
}
