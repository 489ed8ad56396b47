// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA device tracking through an ib_client.
 *
 * ib_core calls .add for every RDMA device present when we register and for
 * every device that appears later, and .remove before a device goes away
 * (also for all devices when we unregister; ib_unregister_client() is a full
 * fence, so no callback runs after it returns). We keep a small record per
 * device with the facts the control plane reports. Protection domains are
 * not shared through it: each connection allocates its own (rdma/conn.c),
 * so a key handed to one peer is good on that peer's QP alone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "rw.h"
#include "genl.h"
#include "ibdev.h"
#include "rdma/rdma.h"

struct rw_ibdev {
	struct list_head link;		/* in rw_ibdevs */
	struct ib_device *ibdev;
	struct rw_ibdev_info info;
};

/* Protects rw_ibdevs and every rw_ibdev's info. */
static DEFINE_MUTEX(rw_ibdevs_lock);
static LIST_HEAD(rw_ibdevs);

static struct ib_client rw_ib_client;

static void rw_ibdev_snapshot_name(struct rw_ibdev *d)
{
	lockdep_assert_held(&rw_ibdevs_lock);
	strscpy(d->info.name, dev_name(&d->ibdev->dev), sizeof(d->info.name));
}

static int rw_ibdev_add(struct ib_device *ibdev)
{
	struct rw_ibdev *d;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->ibdev = ibdev;
	d->info.numa_node = ibdev_to_node(ibdev);
	d->info.index = ibdev->index;
	d->info.ports = rdma_end_port(ibdev) - rdma_start_port(ibdev) + 1;
	d->info.node_guid = be64_to_cpu(ibdev->node_guid);

	mutex_lock(&rw_ibdevs_lock);
	rw_ibdev_snapshot_name(d);
	list_add_tail(&d->link, &rw_ibdevs);
	mutex_unlock(&rw_ibdevs_lock);

	ib_set_client_data(ibdev, &rw_ib_client, d);
	pr_info("RDMA device %s added (node %d, %u port%s)\n", d->info.name,
		d->info.numa_node, d->info.ports, d->info.ports == 1 ? "" : "s");
	rw_genl_event(RW_EVENT_DEV_ADDED, NULL, -1, d->info.name, GFP_KERNEL);
	return 0;
}

static void rw_ibdev_remove(struct ib_device *ibdev, void *client_data)
{
	struct rw_ibdev *d = client_data;

	/* Before rdma_cm's own .remove: our ids go while the device works. */
	rw_wire_dev_gone(ibdev);
	mutex_lock(&rw_ibdevs_lock);
	list_del(&d->link);
	mutex_unlock(&rw_ibdevs_lock);
	pr_info("RDMA device %s removed\n", d->info.name);
	rw_genl_event(RW_EVENT_DEV_GONE, NULL, -1, d->info.name, GFP_KERNEL);
	kfree(d);
}

static void rw_ibdev_rename(struct ib_device *ibdev, void *client_data)
{
	struct rw_ibdev *d = client_data;

	mutex_lock(&rw_ibdevs_lock);
	rw_ibdev_snapshot_name(d);
	mutex_unlock(&rw_ibdevs_lock);
}

static struct ib_client rw_ib_client = {
	.name	= "rackweave",
	.add	= rw_ibdev_add,
	.remove	= rw_ibdev_remove,
	.rename	= rw_ibdev_rename,
};

int rw_ibdev_for_each(int (*fn)(const struct rw_ibdev_info *info, void *arg),
		      void *arg)
{
	struct rw_ibdev *d;
	int ret = 0;

	mutex_lock(&rw_ibdevs_lock);
	list_for_each_entry(d, &rw_ibdevs, link) {
		ret = fn(&d->info, arg);
		if (ret)
			break;
	}
	mutex_unlock(&rw_ibdevs_lock);
	return ret;
}

int rw_ibdev_init(void)
{
	return ib_register_client(&rw_ib_client);
}

void rw_ibdev_exit(void)
{
	ib_unregister_client(&rw_ib_client);
	WARN_ON(!list_empty(&rw_ibdevs));
}
