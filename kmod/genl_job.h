/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RW_GENL_JOB_H
#define _RW_GENL_JOB_H

#include <net/genetlink.h>

#include "rackweave.h"

extern const struct nla_policy rw_job_new_policy[RW_JOB_A_MAX + 1];
extern const struct nla_policy rw_job_del_policy[RW_JOB_A_MAX + 1];
extern const struct nla_policy rw_job_get_policy[RW_JOB_A_MAX + 1];
extern const struct nla_policy rw_policy_set_policy[RW_JOB_A_MAX + 1];

int rw_genl_job_new(struct sk_buff *skb, struct genl_info *info);
int rw_genl_job_del(struct sk_buff *skb, struct genl_info *info);
int rw_genl_job_get(struct sk_buff *skb, struct genl_info *info);
int rw_genl_job_dump(struct sk_buff *skb, struct netlink_callback *cb);
int rw_genl_policy_set(struct sk_buff *skb, struct genl_info *info);
int rw_genl_topo_get(struct sk_buff *skb, struct genl_info *info);
int rw_genl_stats_get(struct sk_buff *skb, struct genl_info *info);

/* The family, for replies built outside genl.c. */
extern struct genl_family rw_genl_family;

#endif /* _RW_GENL_JOB_H */
