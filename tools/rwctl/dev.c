// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl dev: the RDMA devices the module's ib_client has been given.
 *
 *   rxe0    node 0  ports 1  guid 5054:00ff:fe12:3456
 *   mlx5_0  node -  ports 2  guid 248a:0703:0049:d468
 *
 * A device without a NUMA node shows "node -" in text and -1 in JSON, so
 * scripts get a number and people get no misleading "node -1". The box's
 * listeners follow the devices (see listen.c).
 */
#include <stdio.h>
#include <string.h>

#include "dev.h"
#include "listen.h"
#include "status.h"
#include "print.h"
#include "rwctl.h"

void rwctl_dev_format_guid(char buf[RWCTL_GUID_LEN], unsigned long long guid)
{
	snprintf(buf, RWCTL_GUID_LEN, "%04llx:%04llx:%04llx:%04llx",
		 (guid >> 48) & 0xffff, (guid >> 32) & 0xffff,
		 (guid >> 16) & 0xffff, guid & 0xffff);
}

void rwctl_dev_print_one(struct rwctl_printer *p, const struct rwctl_device *d,
			 const char *name_fmt, bool detail)
{
	char guid[RWCTL_GUID_LEN];

	rwctl_dev_format_guid(guid, d->node_guid);

	rwctl_pr_obj_open(p, NULL);
	rwctl_pr_str(p, "name", name_fmt, d->name);
	if (d->node >= 0) {
		rwctl_pr_s32(p, "numa_node", detail ? "  node %d" : NULL,
			     d->node);
	} else {
		rwctl_pr_s32(p, "numa_node", NULL, d->node);
		if (detail)
			rwctl_pr_text(p, "  node -");
	}
	rwctl_pr_u32(p, "ports", detail ? "  ports %u" : NULL, d->ports);
	rwctl_pr_str(p, "node_guid", detail ? "  guid %s" : NULL, guid);
	rwctl_pr_u32(p, "index", NULL, d->index);
	rwctl_pr_obj_close(p);
}

void rwctl_dev_print(struct rwctl_printer *p, const struct rwctl_status *st)
{
	char name_fmt[24];
	unsigned int width = 0;
	size_t i, len;

	/* Align the columns on the longest name; JSON ignores the format. */
	for (i = 0; i < st->nr_devs; i++) {
		len = strnlen(st->devs[i].name, sizeof(st->devs[i].name));
		if (len > width)
			width = len;
	}
	snprintf(name_fmt, sizeof(name_fmt), "%%-%us", width);

	rwctl_pr_obj_open(p, NULL);
	rwctl_pr_arr_open(p, "devices");
	for (i = 0; i < st->nr_devs; i++) {
		rwctl_dev_print_one(p, &st->devs[i], name_fmt, true);
		rwctl_pr_nl(p);
	}
	rwctl_pr_arr_close(p);
	if (st->nr_listeners)
		rwctl_pr_text(p, "listeners:\n");
	rwctl_listen_print_list(p, st);
	rwctl_pr_obj_close(p);
}

static int rwctl_dev_show(struct rwctl *ctl, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return rwctl_show(ctl, rwctl_dev_print);
}

static const struct rwctl_cmd rwctl_dev_cmds[] = {
	{
		.name = "show",
		.alias = "list",
		.help = "devices with NUMA node, ports and node GUID",
		.run = rwctl_dev_show,
	},
	{ .name = NULL },
};

const struct rwctl_obj rwctl_obj_dev = {
	.name = "dev",
	.help = "RDMA devices the rackweave module uses",
	.cmds = rwctl_dev_cmds,
};
