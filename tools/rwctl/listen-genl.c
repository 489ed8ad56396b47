// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl listen over generic netlink: RW_CMD_LISTEN_ADD and _DEL with the
 * address and port. The listeners themselves come with the status reply
 * (status-genl.c).
 */
#include <netlink/attr.h>
#include <netlink/msg.h>

#include <rackweave.h>

#include "genl.h"
#include "listen.h"

static int rwctl_listen_put(struct nl_msg *m, const void *arg)
{
	const struct rwctl_listen_req *r = arg;

	return nla_put(m, RW_LISTEN_A_ADDR, (int)r->addr_len, r->addr) ||
	       nla_put_u16(m, RW_LISTEN_A_PORT, (uint16_t)r->port);
}

static int rwctl_listen_genl_add(const struct rwctl_listen_req *r,
				 struct rwctl_err *e)
{
	return rwctl_genl_request(RW_CMD_LISTEN_ADD, false, rwctl_listen_put,
				  r, NULL, NULL, e);
}

static int rwctl_listen_genl_del(const struct rwctl_listen_req *r,
				 struct rwctl_err *e)
{
	return rwctl_genl_request(RW_CMD_LISTEN_DEL, false, rwctl_listen_put,
				  r, NULL, NULL, e);
}

const struct rwctl_listen_backend rwctl_listen_genl_backend = {
	.add = rwctl_listen_genl_add,
	.del = rwctl_listen_genl_del,
};
