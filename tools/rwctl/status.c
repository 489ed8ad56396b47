// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl status: what the module is (version, ABI, features) and what it
 * sees (online CPUs, its memory budget, NUMA nodes, RDMA devices).
 *
 *   rackweave 0.1.0 (abi 1)
 *   features: version-ioctl genl-status ib-client jobs local-path events
 *   cpus: 2 online
 *   memory: 300 MiB used of a 1.00 GiB budget (max_memory)
 *   node 0: cpus 0 (1 cpu), 512 MiB
 *   devices: 1 (rxe0)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <rackweave.h>

#include "dev.h"
#include "print.h"
#include "rwctl.h"
#include "status.h"

static const struct {
	uint64_t bit;
	const char *name;
} rwctl_features[] = {
	{ RW_FEAT_VERSION_IOCTL, "version-ioctl" },
	{ RW_FEAT_GENL_STATUS, "genl-status" },
	{ RW_FEAT_IB_CLIENT, "ib-client" },
	{ RW_FEAT_JOBS, "jobs" },
	{ RW_FEAT_LOCAL_PATH, "local-path" },
	{ RW_FEAT_EVENTS, "events" },
	{ RW_FEAT_WIRE_LISTEN, "wire-listen" },
	{ RW_FEAT_PARAMS_INIT, "params-init" },
	{ RW_FEAT_CHECKPOINT, "checkpoint" },
};

int rwctl_status_fetch(struct rwctl_status *st, char *msg, size_t msglen)
{
	struct rw_version_info info;
	struct rw_ctx *ctx;
	int err;

	err = rwctl_genl_status_get(st, msg, msglen);
	if (err)
		return err;

	/*
	 * The ABI travels only through the character device. Not being able
	 * to open it (no udev rule yet, no permission) costs the "abi" field
	 * and nothing else; a module on another ABI is an error, since every
	 * number rwctl sends or reads may then mean something else.
	 */
	if (rw_ctx_open(&ctx, NULL))
		return 0;
	err = rw_ctx_version(ctx, &info);
	rw_ctx_close(ctx);
	if (err == -EPROTO) {
		snprintf(msg, msglen,
			 "the rackweave module %s speaks another ABI than rwctl %s (abi %d); use the rwctl of the module's release",
			 st->version, RW_VERSION_STRING, RW_ABI_VERSION);
		return err;
	}
	if (!err)
		st->abi = info.abi;
	return 0;
}

static const char *rwctl_feature_name(unsigned int bit)
{
	size_t i;

	for (i = 0; i < sizeof(rwctl_features) / sizeof(rwctl_features[0]); i++)
		if (rwctl_features[i].bit == 1ULL << bit)
			return rwctl_features[i].name;
	return NULL;
}

static void rwctl_status_print_features(struct rwctl_printer *p,
					uint64_t mask)
{
	const char *name;
	char unknown[16];
	unsigned int bit;

	rwctl_pr_text(p, "features:");
	rwctl_pr_arr_open(p, "features");
	for (bit = 0; bit < 64; bit++) {
		if (!(mask & (1ULL << bit)))
			continue;
		/* A newer module's bit: name it by number, do not drop it. */
		name = rwctl_feature_name(bit);
		if (!name) {
			snprintf(unknown, sizeof(unknown), "bit%u", bit);
			name = unknown;
		}
		rwctl_pr_str(p, NULL, " %s", name);
	}
	rwctl_pr_arr_close(p);
	if (!mask)
		rwctl_pr_text(p, " none");
	rwctl_pr_u64(p, "features_mask", NULL, mask);
	rwctl_pr_nl(p);
}

static void rwctl_status_print_node(struct rwctl_printer *p,
				    const struct rwctl_node *n)
{
	rwctl_pr_obj_open(p, NULL);
	rwctl_pr_u32(p, "id", "node %u:", n->id);
	if (n->nr_cpus) {
		rwctl_pr_str(p, "cpulist", " cpus %s", n->cpulist);
		rwctl_pr_u32(p, "nr_cpus",
			     n->nr_cpus == 1 ? " (%u cpu)," : " (%u cpus),",
			     n->nr_cpus);
	} else {
		rwctl_pr_str(p, "cpulist", NULL, n->cpulist);
		rwctl_pr_u32(p, "nr_cpus", NULL, n->nr_cpus);
		rwctl_pr_text(p, " no cpus,");
	}
	rwctl_pr_u64(p, "mem_mb", " %" PRIu64 " MiB", n->mem_mb);
	rwctl_pr_obj_close(p);
	rwctl_pr_nl(p);
}

void rwctl_status_print(struct rwctl_printer *p, const struct rwctl_status *st)
{
	char used[RWCTL_PR_HUMAN_LEN], budget[RWCTL_PR_HUMAN_LEN];
	size_t i;

	rwctl_pr_obj_open(p, NULL);

	rwctl_pr_str(p, "version", "rackweave %s", st->version);
	rwctl_pr_u32(p, "version_code", NULL, st->version_code);
	if (st->abi)
		rwctl_pr_u32(p, "abi", " (abi %u)", st->abi);
	rwctl_pr_nl(p);

	rwctl_status_print_features(p, st->features);

	rwctl_pr_u32(p, "cpus_online", "cpus: %u online", st->cpus_online);
	rwctl_pr_nl(p);
	if (st->agg_impl[0]) {
		rwctl_pr_str(p, "agg_impl", "aggregation: %s", st->agg_impl);
		rwctl_pr_nl(p);
	}
	if (st->has_mem) {
		rwctl_pr_text(p, "memory: %s used of a %s budget (max_memory)",
			      rwctl_pr_fmt_bytes(used, st->mem_used),
			      rwctl_pr_fmt_bytes(budget, st->mem_budget));
		rwctl_pr_u64(p, "mem_budget", NULL, st->mem_budget);
		rwctl_pr_u64(p, "mem_used", NULL, st->mem_used);
		rwctl_pr_nl(p);
	}

	rwctl_pr_arr_open(p, "nodes");
	for (i = 0; i < st->nr_nodes; i++)
		rwctl_status_print_node(p, &st->nodes[i]);
	rwctl_pr_arr_close(p);

	rwctl_pr_text(p, "devices: %zu", st->nr_devs);
	rwctl_pr_arr_open(p, "devices");
	for (i = 0; i < st->nr_devs; i++)
		rwctl_dev_print_one(p, &st->devs[i], i ? ", %s" : " (%s", false);
	rwctl_pr_arr_close(p);
	if (st->nr_devs)
		rwctl_pr_text(p, ")");
	rwctl_pr_nl(p);

	rwctl_pr_obj_close(p);
}

static int rwctl_status_show(struct rwctl *ctl, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return rwctl_show(ctl, rwctl_status_print);
}

static const struct rwctl_cmd rwctl_status_cmds[] = {
	{
		.name = "show",
		.help = "version, features, CPUs, memory budget, NUMA nodes and devices",
		.run = rwctl_status_show,
	},
	{ .name = NULL },
};

const struct rwctl_obj rwctl_obj_status = {
	.name = "status",
	.help = "what the rackweave module is and what it sees",
	.cmds = rwctl_status_cmds,
};
