// SPDX-License-Identifier: GPL-2.0
/*
 * RackWeave: an in-kernel parameter box for distributed training.
 *
 * This file only orders the subsystems: each rw_<subsys>_init() runs after
 * everything it depends on, failures unwind in reverse, and exit mirrors
 * init. Module parameters are validated as they are parsed (params.c), so
 * by the time rw_init() runs they are known good.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>

#include "rw.h"
#include "agg/agg.h"
#include "chardev.h"
#include "genl.h"
#include "ibdev.h"
#include "job.h"
#include "params.h"
#include "rdma/rdma.h"

static int __init rw_init(void)
{
	int ret;

	ret = rw_agg_init();
	if (ret)
		goto err_agg;
	ret = rw_wire_init();
	if (ret)
		goto err_wire;
	ret = rw_ibdev_init();
	if (ret)
		goto err_ibdev;
	ret = rw_chardev_init();
	if (ret)
		goto err_chardev;
	ret = rw_genl_init();
	if (ret)
		goto err_genl;

	pr_info("RackWeave %s loaded: chunk_size=%u max_jobs=%u aggregation=%s features=%#llx\n",
		RW_VERSION_STRING, rw_params_chunk_size(), rw_params_max_jobs(),
		rw_agg_impl_name(), (unsigned long long)RW_FEATURES);
	return 0;

err_genl:
	rw_chardev_exit();
err_chardev:
	rw_ibdev_exit();
err_ibdev:
	rw_wire_exit();
err_wire:
err_agg:
	pr_err("failed to load: %d\n", ret);
	return ret;
}

static void __exit rw_exit(void)
{
	rw_genl_exit();
	/* Remote workers detach like files, before the jobs go. */
	rw_wire_exit();
	rw_job_exit();
	rw_chardev_exit();
	rw_ibdev_exit();
	pr_info("RackWeave unloaded\n");
}

module_init(rw_init);
module_exit(rw_exit);

MODULE_AUTHOR("RackWeave developers");
MODULE_DESCRIPTION("RackWeave parameter box: in-kernel gradient aggregation over RDMA");
MODULE_LICENSE("GPL");
MODULE_VERSION(RW_VERSION_STRING);
