// SPDX-License-Identifier: GPL-2.0
/*
 * Memory limits. Every run of a job is charged, before its engine
 * allocates anything, with the engine's whole footprint
 * (rw_engine_footprint(): parameters, optimizer state, every worker's
 * slots, versions, bookkeeping and RDMA windows), against two limits:
 *
 *   - the job's own, its max-memory setting (rwctl job add ... max-memory),
 *     by default half the box's budget, so that no one tenant can take the
 *     whole box unless the administrator says so;
 *   - the box's budget, the max_memory module parameter, by default half
 *     the machine's memory, writable at run time
 *     (/sys/module/rackweave/parameters/max_memory).
 *
 * A run over either is refused before any allocation: EDQUOT for the
 * job's limit, ENOSPC for the box's budget, with a line in the kernel log
 * naming the limit and the figures. The charge goes back when the run
 * ends. Lowering a limit below what is charged ends no run: new runs wait
 * for room.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "mem.h"

static DEFINE_SPINLOCK(rw_mem_lock);	/* protects the charges */
static u64 rw_mem_charged;
static u64 rw_max_memory;		/* 0: the default */

static u64 rw_mem_ram(void)
{
	return (u64)totalram_pages() << PAGE_SHIFT;
}

u64 rw_mem_budget(void)
{
	u64 v = READ_ONCE(rw_max_memory);

	return v ? v : rw_mem_ram() / 2;
}
EXPORT_SYMBOL_IF_KUNIT(rw_mem_budget);

u64 rw_mem_used(void)
{
	return READ_ONCE(rw_mem_charged);
}
EXPORT_SYMBOL_IF_KUNIT(rw_mem_used);

u64 rw_mem_job_limit(u64 setting)
{
	return setting ? setting : rw_mem_budget() / 2;
}
EXPORT_SYMBOL_IF_KUNIT(rw_mem_job_limit);

int rw_mem_charge(const char *name, u64 setting, u64 *held, u64 bytes)
{
	u64 limit = rw_mem_job_limit(setting), budget = rw_mem_budget();
	u64 job_after, box_after, box_before;
	int ret = 0;

	spin_lock(&rw_mem_lock);
	box_before = rw_mem_charged;
	if (check_add_overflow(*held, bytes, &job_after) || job_after > limit)
		ret = -EDQUOT;
	else if (check_add_overflow(rw_mem_charged, bytes, &box_after) ||
		 box_after > budget)
		ret = -ENOSPC;
	if (!ret) {
		WRITE_ONCE(rw_mem_charged, box_after);
		WRITE_ONCE(*held, job_after);
	}
	spin_unlock(&rw_mem_lock);

	if (ret == -EDQUOT)
		pr_info("job %s: a run needs %llu KiB, over the job's max-memory of %llu KiB (%llu KiB held)\n",
			name, bytes >> 10, limit >> 10, READ_ONCE(*held) >> 10);
	else if (ret == -ENOSPC)
		pr_info("job %s: a run needs %llu KiB, over what the box's max_memory of %llu KiB has left (%llu KiB)\n",
			name, bytes >> 10, budget >> 10,
			(budget > box_before ? budget - box_before : 0) >> 10);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_mem_charge);

void rw_mem_uncharge(u64 *held, u64 bytes)
{
	spin_lock(&rw_mem_lock);
	if (!WARN_ON(rw_mem_charged < bytes || *held < bytes)) {
		WRITE_ONCE(rw_mem_charged, rw_mem_charged - bytes);
		WRITE_ONCE(*held, *held - bytes);
	}
	spin_unlock(&rw_mem_lock);
}
EXPORT_SYMBOL_IF_KUNIT(rw_mem_uncharge);

/* "0" (the default), or a size: bytes, or with a K, M, G or T suffix. */
VISIBLE_IF_KUNIT int rw_mem_parse(const char *val, u64 *out)
{
	char *end;
	u64 v;

	if (!val || !*val || !isdigit(*val))
		return -EINVAL;
	v = memparse(val, &end);
	if (*end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	if (v > rw_mem_ram())
		return -ERANGE;
	*out = v;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_mem_parse);

static int rw_param_set_max_memory(const char *val,
				   const struct kernel_param *kp)
{
	u64 v;
	int ret = rw_mem_parse(val, &v);

	if (ret) {
		pr_err("max_memory=%s rejected: must be 0 (half the machine's memory) or a size up to %llu MiB, such as 4G or 512M\n",
		       val, rw_mem_ram() >> 20);
		return ret;
	}
	WRITE_ONCE(*(u64 *)kp->arg, v);
	return 0;
}

/* Reads give the budget in force, in bytes. */
static int rw_param_get_max_memory(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%llu\n", rw_mem_budget());
}

static const struct kernel_param_ops rw_max_memory_ops = {
	.set = rw_param_set_max_memory,
	.get = rw_param_get_max_memory,
};

module_param_cb(max_memory, &rw_max_memory_ops, &rw_max_memory, 0644);
MODULE_PARM_DESC(max_memory,
		 "Memory all jobs' runs may take together, in bytes or with K, M, G, T (0, the default: half the machine's memory); writable at run time");
