// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/rackweave: the trainer's door to the box.
 *
 * The node is world-accessible (0666) on purpose: trainers run as ordinary
 * users, and what guards a job is its token, checked at attach, not the
 * file mode. Every ioctl struct begins with its size and flags; the size
 * must match the struct this module knows, unknown flags and non-zero
 * reserved fields are refused, so a field added later can never be
 * misread as a request the module does not understand.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "rw.h"
#include "chardev.h"

static bool rw_mem_is_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

static long rw_ioctl_version(void __user *uarg)
{
	struct rw_version_info info;

	if (copy_from_user(&info, uarg, sizeof(info)))
		return -EFAULT;
	if (info.size != sizeof(info) || info.flags & ~RW_VERSION_FLAGS_ALL ||
	    !rw_mem_is_zero(info.reserved, sizeof(info.reserved)))
		return -EINVAL;

	info.version = RW_VERSION_CODE;
	info.abi = RW_ABI_VERSION;
	info.features = RW_FEATURES;
	if (copy_to_user(uarg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

static long rw_chardev_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case RW_IOC_VERSION:
		return rw_ioctl_version(uarg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations rw_chardev_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= rw_chardev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice rw_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= RW_DEV_NAME,
	.fops	= &rw_chardev_fops,
	.mode	= 0666,
};

int rw_chardev_init(void)
{
	BUILD_BUG_ON(sizeof(struct rw_version_info) != RW_VERSION_INFO_SIZE);
	BUILD_BUG_ON(offsetof(struct rw_version_info, features) != 16);
	BUILD_BUG_ON(offsetof(struct rw_version_info, reserved) != 24);

	return misc_register(&rw_miscdev);
}

void rw_chardev_exit(void)
{
	misc_deregister(&rw_miscdev);
}
