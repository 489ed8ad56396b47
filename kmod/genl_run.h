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

#endif /* _RW_GENL_RUN_H */
