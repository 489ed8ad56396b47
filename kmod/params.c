// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters. Each is checked by its own kernel_param_ops, so a bad
 * value on the insmod/modprobe command line fails the load with -EINVAL and
 * a message saying what would have been accepted, instead of a box that
 * comes up with a setting it cannot honour.
 *
 * The parameters are read-only once loaded: they are defaults for jobs
 * created later, and a job's own settings come over netlink. push_window
 * alone may change at run time (/sys/module/rackweave/parameters): it is
 * a worker host's, read when a remote attachment declares.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "params.h"

static unsigned int rw_chunk_size = RW_CHUNK_SIZE_DEFAULT;
static unsigned int rw_max_jobs = RW_MAX_JOBS_DEFAULT;
static unsigned int rw_push_window;

VISIBLE_IF_KUNIT int rw_params_parse_chunk_size(const char *val,
						unsigned int *out)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v))
		return -EINVAL;
	if (v < RW_CHUNK_SIZE_MIN || v > RW_CHUNK_SIZE_MAX ||
	    !is_power_of_2(v))
		return -EINVAL;
	*out = v;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_params_parse_chunk_size);

VISIBLE_IF_KUNIT int rw_params_parse_max_jobs(const char *val,
					      unsigned int *out)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v))
		return -EINVAL;
	if (v < 1 || v > RW_MAX_JOBS_LIMIT)
		return -EINVAL;
	*out = v;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_params_parse_max_jobs);

VISIBLE_IF_KUNIT int rw_params_parse_push_window(const char *val,
						 unsigned int *out)
{
	unsigned int v;

	if (kstrtouint(val, 0, &v) || v > RW_PUSH_WINDOW_MAX)
		return -EINVAL;
	*out = v;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_params_parse_push_window);

static int rw_param_set_push_window(const char *val,
				    const struct kernel_param *kp)
{
	unsigned int v;

	if (rw_params_parse_push_window(val, &v)) {
		/* Written through sysfs, the value ends in a newline. */
		pr_err("push_window=%.*s rejected: must be KiB from 0 (no window) to %u\n",
		       (int)strcspn(val, "\n"), val, RW_PUSH_WINDOW_MAX);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops rw_push_window_ops = {
	.set = rw_param_set_push_window,
	.get = param_get_uint,
};

static int rw_param_set_chunk_size(const char *val,
				   const struct kernel_param *kp)
{
	if (rw_params_parse_chunk_size(val, kp->arg)) {
		pr_err("chunk_size=%s rejected: must be a power of two from %u to %u bytes\n",
		       val, RW_CHUNK_SIZE_MIN, RW_CHUNK_SIZE_MAX);
		return -EINVAL;
	}
	return 0;
}

static int rw_param_set_max_jobs(const char *val, const struct kernel_param *kp)
{
	if (rw_params_parse_max_jobs(val, kp->arg)) {
		pr_err("max_jobs=%s rejected: must be an integer from 1 to %u\n",
		       val, RW_MAX_JOBS_LIMIT);
		return -EINVAL;
	}
	return 0;
}

static const struct kernel_param_ops rw_chunk_size_ops = {
	.set = rw_param_set_chunk_size,
	.get = param_get_uint,
};

static const struct kernel_param_ops rw_max_jobs_ops = {
	.set = rw_param_set_max_jobs,
	.get = param_get_uint,
};

module_param_cb(chunk_size, &rw_chunk_size_ops, &rw_chunk_size, 0444);
MODULE_PARM_DESC(chunk_size,
		 "Default chunk size in bytes for new jobs: a power of two from 4096 to 1048576 (default 32768)");
module_param_cb(max_jobs, &rw_max_jobs_ops, &rw_max_jobs, 0444);
MODULE_PARM_DESC(max_jobs, "Most jobs the box serves at once: 1 to 1024 (default 64)");

unsigned int rw_params_chunk_size(void)
{
	return rw_chunk_size;
}
EXPORT_SYMBOL_IF_KUNIT(rw_params_chunk_size);

unsigned int rw_params_max_jobs(void)
{
	return rw_max_jobs;
}
EXPORT_SYMBOL_IF_KUNIT(rw_params_max_jobs);

/*
 * A worker host's pushes on their way on one link at most, in KiB (0:
 * as many as the box has receives for). Queued pushes wait for room in
 * it and go highest priority first (uapi "priority"): the smaller the
 * window, the sooner a late push of a first layer overtakes the last
 * layers' queued before it, and the less of a fast link it fills.
 */
module_param_cb(push_window, &rw_push_window_ops, &rw_push_window, 0644);
MODULE_PARM_DESC(push_window, "KiB of pushes on their way per link of a remote attachment: 0 (no window but the box's receives, the default) to 1048576");

unsigned int rw_params_push_window(void)
{
	return READ_ONCE(rw_push_window);
}
EXPORT_SYMBOL_IF_KUNIT(rw_params_push_window);
