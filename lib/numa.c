// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * NUMA placement of a worker thread. The module allocates a job's chunks
 * mostly on one node and reports it in setup.node; a worker that computes
 * its gradients on that node's CPUs, into memory of that node, keeps the
 * push and pull traffic off the interconnect. libnuma does the binding:
 * numa_run_on_node() and numa_set_preferred() both act on the calling
 * thread only, so other threads of the trainer are left where they are.
 */
#include <errno.h>
#include <numa.h>

#include "ctx.h"

int rw_bind_numa(struct rw_ctx *ctx)
{
	struct rw_setup s;
	int err;

	if (!ctx)
		return -EINVAL;
	err = rw_setup_get(ctx, &s);
	if (err)
		return err;
	if (s.node < 0)
		return 0;
	if (numa_available() < 0)
		return -ENOSYS;

	errno = 0;
	if (numa_run_on_node(s.node) < 0)
		return rw_neg_errno();
	numa_set_preferred(s.node);
	return 0;
}
