// SPDX-License-Identifier: GPL-2.0
/*
 * RW_CMD_LISTEN_ADD and _DEL, and RW_A_LISTENERS, RW_A_CONNECTIONS and
 * RW_A_REMOTES of the status reply: the box's RDMA listeners
 * (rdma/listen.c) and remote workers (rdma/conn.c), and this host's
 * attachments to other boxes (rdma/host.h), as netlink sees them. Addresses
 * travel as 4 or 16 raw bytes in network order, the port in host order.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <net/genetlink.h>

#include "rw.h"
#include "genl_listen.h"
#include "rdma/rdma.h"

const struct nla_policy rw_listen_policy[RW_LISTEN_A_MAX + 1] = {
	[RW_LISTEN_A_ADDR] = NLA_POLICY_MIN_LEN(sizeof(struct in_addr)),
	[RW_LISTEN_A_PORT] = NLA_POLICY_MIN(NLA_U16, 1),
};

/* The request's address and port: 0, or -EINVAL with an extended ack. */
static int rw_genl_listen_addr(struct genl_info *info,
			       struct sockaddr_storage *ss)
{
	struct nlattr *a = info->attrs[RW_LISTEN_A_ADDR];
	u16 port = RW_WIRE_PORT;

	if (!a) {
		NL_SET_ERR_MSG(info->extack, "an address to listen on is required");
		return -EINVAL;
	}
	if (info->attrs[RW_LISTEN_A_PORT])
		port = nla_get_u16(info->attrs[RW_LISTEN_A_PORT]);
	if (rw_sockaddr_fill(ss, nla_data(a), nla_len(a), port)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "address must be 4 (IPv4) or 16 (IPv6) bytes");
		return -EINVAL;
	}
	return 0;
}

int rw_genl_listen_add(struct sk_buff *skb, struct genl_info *info)
{
	struct sockaddr_storage ss;
	const char *msg;
	int ret;

	ret = rw_genl_listen_addr(info, &ss);
	if (ret)
		return ret;
	ret = rw_listen_add(&ss, &msg);
	/* NL_SET_ERR_MSG wants a literal; msg points to one. */
	if (ret && msg && info->extack)
		info->extack->_msg = msg;
	return ret;
}

int rw_genl_listen_del(struct sk_buff *skb, struct genl_info *info)
{
	struct sockaddr_storage ss;
	int ret;

	ret = rw_genl_listen_addr(info, &ss);
	if (ret)
		return ret;
	ret = rw_listen_del(&ss);
	if (ret == -ENOENT)
		NL_SET_ERR_MSG(info->extack, "the box does not listen there");
	return ret;
}

/* An address and its port: 4 or 16 bytes, and the port in host order. */
static int rw_genl_put_addr(struct sk_buff *skb,
			    const struct sockaddr_storage *ss, int addr_attr,
			    int port_attr)
{
	const struct sockaddr_in6 *sin6 = (const void *)ss;
	const struct sockaddr_in *sin = (const void *)ss;

	if (ss->ss_family == AF_INET)
		return nla_put(skb, addr_attr, sizeof(sin->sin_addr),
			       &sin->sin_addr) ||
		       nla_put_u16(skb, port_attr, ntohs(sin->sin_port));
	return nla_put(skb, addr_attr, sizeof(sin6->sin6_addr),
		       &sin6->sin6_addr) ||
	       nla_put_u16(skb, port_attr, ntohs(sin6->sin6_port));
}

static int rw_genl_put_listener(const struct rw_listen_info *l, void *arg)
{
	static const u16 ref_attr[RW_REF_NR] = {
		[RW_REF_PROTO] = RW_LISTEN_A_REF_PROTO,
		[RW_REF_AUTH] = RW_LISTEN_A_REF_AUTH,
		[RW_REF_CLOCK] = RW_LISTEN_A_REF_CLOCK,
		[RW_REF_BUSY] = RW_LISTEN_A_REF_BUSY,
		[RW_REF_RANGE] = RW_LISTEN_A_REF_RANGE,
		[RW_REF_IN_USE] = RW_LISTEN_A_REF_IN_USE,
		[RW_REF_STALE] = RW_LISTEN_A_REF_STALE,
		[RW_REF_OTHER] = RW_LISTEN_A_REF_OTHER,
	};
	static const u16 viol_attr[RW_VIOL_NR] = {
		[RW_VIOL_PROTO] = RW_LISTEN_A_VIOL_PROTO,
		[RW_VIOL_ACCESS] = RW_LISTEN_A_VIOL_ACCESS,
	};
	struct sk_buff *skb = arg;
	struct nlattr *nest;
	int i, bad;

	nest = nla_nest_start(skb, RW_A_LISTENERS_ENTRY);
	if (!nest)
		return -EMSGSIZE;
	bad = rw_genl_put_addr(skb, &l->addr, RW_LISTEN_A_ADDR,
			       RW_LISTEN_A_PORT) ||
	      nla_put_string(skb, RW_LISTEN_A_DEV, l->dev) ||
	      nla_put_u8(skb, RW_LISTEN_A_UP, l->up) ||
	      nla_put_u64_64bit(skb, RW_LISTEN_A_REQUESTS, l->requests,
				RW_LISTEN_A_PAD) ||
	      nla_put_u64_64bit(skb, RW_LISTEN_A_ACCEPTED, l->accepted,
				RW_LISTEN_A_PAD) ||
	      nla_put_u64_64bit(skb, RW_LISTEN_A_CONNECTED, l->connected,
				RW_LISTEN_A_PAD);
	for (i = 0; i < RW_REF_NR && !bad; i++)
		bad = nla_put_u64_64bit(skb, ref_attr[i], l->refused[i],
					RW_LISTEN_A_PAD);
	for (i = 0; i < RW_VIOL_NR && !bad; i++)
		bad = nla_put_u64_64bit(skb, viol_attr[i], l->violations[i],
					RW_LISTEN_A_PAD);
	if (bad) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * One connection as entry @type: a box's remote worker, or (@broken not
 * negative) this host's attachment to another box, which says whether
 * its connection is lost.
 */
static int rw_genl_put_conn_entry(struct sk_buff *skb, int type,
				  const struct rw_conn_info *c, int broken)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	if (rw_genl_put_addr(skb, &c->peer, RW_CONN_A_ADDR, RW_CONN_A_PORT) ||
	    nla_put_string(skb, RW_CONN_A_DEV, c->dev) ||
	    nla_put_string(skb, RW_CONN_A_JOB, c->job) ||
	    nla_put_u32(skb, RW_CONN_A_RANK, c->rank) ||
	    (c->observer && nla_put_flag(skb, RW_CONN_A_OBSERVER)) ||
	    nla_put_u64_64bit(skb, RW_CONN_A_PUSHES, c->pushes,
			      RW_CONN_A_PAD) ||
	    nla_put_u64_64bit(skb, RW_CONN_A_WRITES, c->writes,
			      RW_CONN_A_PAD) ||
	    nla_put_u64_64bit(skb, RW_CONN_A_MESSAGES, c->messages,
			      RW_CONN_A_PAD) ||
	    (broken >= 0 && nla_put_u8(skb, RW_CONN_A_BROKEN, broken))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int rw_genl_put_conn(const struct rw_conn_info *c, void *arg)
{
	return rw_genl_put_conn_entry(arg, RW_A_CONNECTIONS_ENTRY, c, -1);
}

static int rw_genl_put_remote(const struct rw_conn_info *c, bool broken,
			      void *arg)
{
	return rw_genl_put_conn_entry(arg, RW_A_REMOTES_ENTRY, c, broken);
}

int rw_genl_put_listeners(struct sk_buff *skb)
{
	struct nlattr *nest;
	int ret;

	nest = nla_nest_start(skb, RW_A_LISTENERS);
	if (!nest)
		return -EMSGSIZE;
	ret = rw_listen_for_each(rw_genl_put_listener, skb);
	if (ret) {
		nla_nest_cancel(skb, nest);
		return ret;
	}
	nla_nest_end(skb, nest);

	nest = nla_nest_start(skb, RW_A_CONNECTIONS);
	if (!nest)
		return -EMSGSIZE;
	ret = rw_conn_for_each(rw_genl_put_conn, skb);
	if (ret) {
		nla_nest_cancel(skb, nest);
		return ret;
	}
	nla_nest_end(skb, nest);

	nest = nla_nest_start(skb, RW_A_REMOTES);
	if (!nest)
		return -EMSGSIZE;
	ret = rw_remote_for_each(rw_genl_put_remote, skb);
	if (ret) {
		nla_nest_cancel(skb, nest);
		return ret;
	}
	nla_nest_end(skb, nest);
	return 0;
}
