// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "rackweave": the control plane rwctl talks to.
 *
 * Declarative on purpose: attribute policies do the validation, and since
 * the family leaves resv_start_op at 0, every command gets strict parsing
 * and a command without a policy rejects any attribute at all. Read-only
 * commands (status, job get, topology, statistics) need no privilege;
 * mutations (job new and del, policy set, listen add and del) carry
 * GENL_ADMIN_PERM, and the "events" group needs CAP_NET_ADMIN to join.
 * The layout of every message is documented in uapi/rackweave.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "rw.h"
#include "agg/agg.h"
#include "genl.h"
#include "genl_job.h"
#include "genl_listen.h"
#include "genl_run.h"
#include "ibdev.h"
#include "mem.h"

/*
 * A node's CPUs are those whose cpu_to_node() is the node: the partition the
 * placement code uses. (cpumask_of_node() is not a partition under NUMA
 * emulation, where every fake node lists all CPUs of its physical node.)
 */
static int rw_genl_put_node(struct sk_buff *skb, int nid,
			    struct cpumask *scratch, char *buf)
{
	struct nlattr *nest;
	unsigned int cpu;
	u64 mem_mb;

	cpumask_clear(scratch);
	for_each_online_cpu(cpu)
		if (cpu_to_node(cpu) == nid)
			cpumask_set_cpu(cpu, scratch);
	scnprintf(buf, RW_CPULIST_MAX, "%*pbl", cpumask_pr_args(scratch));
	mem_mb = (u64)node_present_pages(nid) >> (20 - PAGE_SHIFT);

	nest = nla_nest_start(skb, RW_A_NODES_ENTRY);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, RW_NODE_A_ID, nid) ||
	    nla_put_u32(skb, RW_NODE_A_NR_CPUS, cpumask_weight(scratch)) ||
	    nla_put_string(skb, RW_NODE_A_CPULIST, buf) ||
	    nla_put_u64_64bit(skb, RW_NODE_A_MEM_MB, mem_mb, RW_NODE_A_UNSPEC)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int rw_genl_put_nodes(struct sk_buff *skb)
{
	cpumask_var_t scratch;
	struct nlattr *nest;
	char *buf;
	int nid, ret = -ENOMEM;

	buf = kmalloc(RW_CPULIST_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (!zalloc_cpumask_var(&scratch, GFP_KERNEL))
		goto out_buf;

	ret = -EMSGSIZE;
	nest = nla_nest_start(skb, RW_A_NODES);
	if (!nest)
		goto out_mask;
	for_each_online_node(nid) {
		ret = rw_genl_put_node(skb, nid, scratch, buf);
		if (ret) {
			nla_nest_cancel(skb, nest);
			goto out_mask;
		}
	}
	nla_nest_end(skb, nest);
	ret = 0;
out_mask:
	free_cpumask_var(scratch);
out_buf:
	kfree(buf);
	return ret;
}

static int rw_genl_put_device(const struct rw_ibdev_info *info, void *arg)
{
	struct sk_buff *skb = arg;
	struct nlattr *nest;

	nest = nla_nest_start(skb, RW_A_DEVICES_ENTRY);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, RW_DEV_A_NAME, info->name) ||
	    nla_put_s32(skb, RW_DEV_A_NODE, info->numa_node) ||
	    nla_put_u32(skb, RW_DEV_A_PORTS, info->ports) ||
	    nla_put_u64_64bit(skb, RW_DEV_A_NODE_GUID, info->node_guid,
			      RW_DEV_A_UNSPEC) ||
	    nla_put_u32(skb, RW_DEV_A_INDEX, info->index)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int rw_genl_fill_status(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *nest;
	void *hdr;
	int ret;

	hdr = genlmsg_put_reply(skb, info, &rw_genl_family, 0, RW_CMD_STATUS_GET);
	if (!hdr)
		return -EMSGSIZE;

	ret = -EMSGSIZE;
	if (nla_put_string(skb, RW_A_VERSION, RW_VERSION_STRING) ||
	    nla_put_u32(skb, RW_A_VERSION_CODE, RW_VERSION_CODE) ||
	    nla_put_u64_64bit(skb, RW_A_FEATURES, RW_FEATURES, RW_A_UNSPEC) ||
	    nla_put_u32(skb, RW_A_CPUS_ONLINE, num_online_cpus()) ||
	    nla_put_string(skb, RW_A_AGG_IMPL, rw_agg_impl_name()) ||
	    nla_put_u64_64bit(skb, RW_A_MEM_BUDGET, rw_mem_budget(),
			      RW_A_UNSPEC) ||
	    nla_put_u64_64bit(skb, RW_A_MEM_USED, rw_mem_used(), RW_A_UNSPEC))
		goto cancel;
	ret = rw_genl_put_nodes(skb);
	if (ret)
		goto cancel;

	ret = -EMSGSIZE;
	nest = nla_nest_start(skb, RW_A_DEVICES);
	if (!nest)
		goto cancel;
	ret = rw_ibdev_for_each(rw_genl_put_device, skb);
	if (ret) {
		nla_nest_cancel(skb, nest);
		goto cancel;
	}
	nla_nest_end(skb, nest);
	ret = rw_genl_put_listeners(skb);
	if (ret)
		goto cancel;

	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return ret;
}

static int rw_genl_status_get(struct sk_buff *unused, struct genl_info *info)
{
	size_t size = NLMSG_GOODSIZE;
	struct sk_buff *skb;
	int ret;

	/* The device list can outgrow one page; retry with room to spare. */
	for (;;) {
		skb = genlmsg_new(size, GFP_KERNEL);
		if (!skb)
			return -ENOMEM;
		ret = rw_genl_fill_status(skb, info);
		if (!ret)
			return genlmsg_reply(skb, info);
		nlmsg_free(skb);
		if (ret != -EMSGSIZE || size * 4 > SZ_1M)
			return ret;
		size *= 4;
	}
}

static const struct genl_ops rw_genl_ops[] = {
	{
		.cmd	= RW_CMD_STATUS_GET,
		.doit	= rw_genl_status_get,
	},
	{
		.cmd	= RW_CMD_JOB_NEW,
		.doit	= rw_genl_job_new,
		.policy	= rw_job_new_policy,
		.maxattr = RW_JOB_A_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= RW_CMD_JOB_DEL,
		.doit	= rw_genl_job_del,
		.policy	= rw_job_del_policy,
		.maxattr = RW_JOB_A_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= RW_CMD_JOB_GET,
		.doit	= rw_genl_job_get,
		.dumpit	= rw_genl_job_dump,
		.policy	= rw_job_get_policy,
		.maxattr = RW_JOB_A_MAX,
	},
	{
		.cmd	= RW_CMD_POLICY_SET,
		.doit	= rw_genl_policy_set,
		.policy	= rw_policy_set_policy,
		.maxattr = RW_JOB_A_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= RW_CMD_TOPO_GET,
		.doit	= rw_genl_topo_get,
		.policy	= rw_job_get_policy,
		.maxattr = RW_JOB_A_MAX,
	},
	{
		.cmd	= RW_CMD_STATS_GET,
		.doit	= rw_genl_stats_get,
		.policy	= rw_job_get_policy,
		.maxattr = RW_JOB_A_MAX,
	},
	{
		.cmd	= RW_CMD_LISTEN_ADD,
		.doit	= rw_genl_listen_add,
		.policy	= rw_listen_policy,
		.maxattr = RW_LISTEN_A_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= RW_CMD_LISTEN_DEL,
		.doit	= rw_genl_listen_del,
		.policy	= rw_listen_policy,
		.maxattr = RW_LISTEN_A_MAX,
		.flags	= GENL_ADMIN_PERM,
	},
};

/* Events tell who attached, who was evicted, which device went: admin only. */
static const struct genl_multicast_group rw_genl_mcgrps[] = {
	{ .name = RW_GENL_MCGRP_EVENTS, .flags = GENL_MCAST_CAP_NET_ADMIN },
};

/*
 * Events are dropped outside the family's registered life: senders check
 * this under rcu_read_lock(), and exit waits for them (synchronize_rcu)
 * before the family goes.
 */
static bool rw_genl_live;

struct genl_family rw_genl_family __ro_after_init = {
	.name		= RW_GENL_NAME,
	.version	= RW_GENL_VERSION,
	.module		= THIS_MODULE,
	.netnsok	= true,
	.parallel_ops	= true,
	.ops		= rw_genl_ops,
	.n_ops		= ARRAY_SIZE(rw_genl_ops),
	.mcgrps		= rw_genl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(rw_genl_mcgrps),
};

void rw_genl_event(u32 event, const char *job, int rank, const char *dev,
		   gfp_t gfp)
{
	struct sk_buff *skb;
	void *hdr;

	if (!READ_ONCE(rw_genl_live))
		return;
	skb = genlmsg_new(NLMSG_GOODSIZE, gfp);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &rw_genl_family, 0, RW_CMD_EVENT);
	if (!hdr || nla_put_u32(skb, RW_JOB_A_EVENT, event) ||
	    (job && nla_put_string(skb, RW_JOB_A_NAME, job)) ||
	    (rank >= 0 && nla_put_u32(skb, RW_JOB_A_RANK, rank)) ||
	    (dev && nla_put_string(skb, RW_JOB_A_DEV, dev))) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	rcu_read_lock();
	if (READ_ONCE(rw_genl_live) &&
	    genl_has_listeners(&rw_genl_family, &init_net, 0))
		genlmsg_multicast(&rw_genl_family, skb, 0, 0, GFP_ATOMIC);
	else
		nlmsg_free(skb);
	rcu_read_unlock();
}

int rw_genl_init(void)
{
	int ret = genl_register_family(&rw_genl_family);

	if (!ret)
		WRITE_ONCE(rw_genl_live, true);
	return ret;
}

void rw_genl_exit(void)
{
	WRITE_ONCE(rw_genl_live, false);
	synchronize_rcu();
	genl_unregister_family(&rw_genl_family);
}
