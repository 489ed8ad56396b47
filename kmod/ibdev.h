/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RW_IBDEV_H
#define _RW_IBDEV_H

#include <linux/types.h>
#include "rackweave.h"

/* A snapshot of one RDMA device, handed to rw_ibdev_for_each() callbacks. */
struct rw_ibdev_info {
	char name[RW_DEV_NAME_MAX];
	int numa_node;			/* NUMA_NO_NODE if it has none */
	u32 index;
	u32 ports;
	u64 node_guid;			/* host byte order */
};

int rw_ibdev_init(void);
void rw_ibdev_exit(void);

/*
 * Call @fn for each tracked device, in registration order, with the device
 * list locked: @fn must not sleep for long and must not call back into
 * ibdev. Stops at the first non-zero return and returns it.
 */
int rw_ibdev_for_each(int (*fn)(const struct rw_ibdev_info *info, void *arg),
		      void *arg);

#endif /* _RW_IBDEV_H */
