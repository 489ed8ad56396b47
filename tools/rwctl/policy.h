/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RWCTL_POLICY_H
#define RWCTL_POLICY_H

#include <stddef.h>

struct rwctl_job;
struct rwctl_printer;

/*
 * "rwctl policy show": {"jobs":[...]} as "job show" has it, each job with
 * its name, sync mode and bounds (a BSP job's quorum), evict_ms, optimizer
 * and the hyper-parameters reported; in text a block of three lines per
 * job.
 */
void rwctl_policy_print(struct rwctl_printer *p, const struct rwctl_job *jobs,
			size_t nr);

#endif /* RWCTL_POLICY_H */
