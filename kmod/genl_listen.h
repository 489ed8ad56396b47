/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The listener commands of the "rackweave" family and the listeners in the
 * status reply, implemented in genl_listen.c over rdma/listen.c.
 */
#ifndef _RW_GENL_LISTEN_H
#define _RW_GENL_LISTEN_H

#include <net/genetlink.h>

#include "rackweave.h"

extern const struct nla_policy rw_listen_policy[RW_LISTEN_A_MAX + 1];

int rw_genl_listen_add(struct sk_buff *skb, struct genl_info *info);
int rw_genl_listen_del(struct sk_buff *skb, struct genl_info *info);
/* RW_A_LISTENERS, RW_A_CONNECTIONS and RW_A_REMOTES of the status reply. */
int rw_genl_put_listeners(struct sk_buff *skb);

#endif /* _RW_GENL_LISTEN_H */
