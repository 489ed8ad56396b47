/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The job and policy commands of the "rackweave" family, implemented in
 * genl_job.c; genl.c puts them in its ops table. The topology and
 * statistics commands are in genl_run.h; the topology borrows the box set's
 * attributes from here.
 */
#ifndef _RW_GENL_JOB_H
#define _RW_GENL_JOB_H

#include <net/genetlink.h>

#include "rackweave.h"

extern const struct nla_policy rw_job_new_policy[RW_JOB_A_MAX + 1];
extern const struct nla_policy rw_job_del_policy[RW_JOB_A_MAX + 1];
/* Also the policy of the commands that name one job (genl_run.h). */
extern const struct nla_policy rw_job_get_policy[RW_JOB_A_MAX + 1];
extern const struct nla_policy rw_policy_set_policy[RW_JOB_A_MAX + 1];

int rw_genl_job_new(struct sk_buff *skb, struct genl_info *info);
int rw_genl_job_del(struct sk_buff *skb, struct genl_info *info);
int rw_genl_job_get(struct sk_buff *skb, struct genl_info *info);
int rw_genl_job_dump(struct sk_buff *skb, struct netlink_callback *cb);
int rw_genl_policy_set(struct sk_buff *skb, struct genl_info *info);

struct rw_boxset;

/*
 * A job's box set @s as replies carry it: RW_JOB_A_BOXES, _BOX_SELF and
 * _BOX_EPOCH; with @chunks and @bytes (each @s->nr entries, by index in
 * @s) every box also has its share of the run (the topology, genl_run.c).
 * 0 or -EMSGSIZE; the caller cancels the message.
 */
int rw_genl_put_boxes(struct sk_buff *skb, const struct rw_boxset *s,
		      const u32 *chunks, const u64 *bytes);

#endif /* _RW_GENL_JOB_H */
