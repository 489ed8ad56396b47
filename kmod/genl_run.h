/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a running job looks like, as the "rackweave" family reports it:
 * RW_CMD_TOPO_GET and RW_CMD_STATS_GET, implemented in genl_run.c; genl.c
 * puts them in its ops table.
 */
#ifndef _RW_GENL_RUN_H
#define _RW_GENL_RUN_H

struct genl_info;
struct sk_buff;

int rw_genl_topo_get(struct sk_buff *skb, struct genl_info *info);
int rw_genl_stats_get(struct sk_buff *skb, struct genl_info *info);

#if IS_ENABLED(CONFIG_KUNIT)
#include <linux/types.h>

struct rw_boxset;

/*
 * Each box's share of a run of @nr chunks of the job @name under @s:
 * @chunks[b] and @bytes[b] (RW_OWNER_MAX_BOXES entries each) for the box
 * at index b, a chunk's bytes from @len(@arg, chunk). 0, -ENOMEM, or
 * -EINVAL as rw_boxset_owners().
 */
int rw_genl_box_shares(const struct rw_boxset *s, const char *name, u32 nr,
		       u32 (*len)(const void *arg, u32 chunk), const void *arg,
		       u32 *chunks, u64 *bytes);
#endif

#endif /* _RW_GENL_RUN_H */
