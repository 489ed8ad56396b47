/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The box's memory budget and each job's limit (mem.c): a run is charged
 * its engine's whole footprint before anything is allocated, and the
 * charge goes back when the run ends.
 */
#ifndef _RW_MEM_H
#define _RW_MEM_H

#include <linux/types.h>

/* The budget in force (the max_memory parameter, or its default). */
u64 rw_mem_budget(void);
/* Bytes charged now, all jobs together. */
u64 rw_mem_used(void);
/* A job's limit in force, for its max-memory setting @setting (0: default). */
u64 rw_mem_job_limit(u64 setting);

/*
 * Charge @bytes to job @name, whose max-memory setting is @setting and
 * which holds *@held now; on success *@held grows by @bytes. -EDQUOT over
 * the job's limit, -ENOSPC over the box's budget (the kernel log says
 * which, with the figures); nothing changes then.
 */
int rw_mem_charge(const char *name, u64 setting, u64 *held, u64 bytes);
/* Give back @bytes of *@held. */
void rw_mem_uncharge(u64 *held, u64 bytes);

#if IS_ENABLED(CONFIG_KUNIT)
int rw_mem_parse(const char *val, u64 *out);
#endif

#endif /* _RW_MEM_H */
