// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/rackweave: the trainer's door to the box.
 *
 * The node is created 0660, root's: the udev rule that rackweave-tools
 * installs gives it to the group "rackweave", whose members (the trainer
 * accounts) may open it; the job's token, checked at attach, still guards
 * each job. A site without the rule has a root-only device.
 *
 * Every ioctl struct begins with its size and flags; the size must match
 * the struct this module knows, unknown flags and non-zero reserved
 * fields are refused, so a field added later can never be
 * misread as a request the module does not understand.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/fs.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "rw.h"
#include "chardev.h"
#include "rdma/rdma.h"
#include "job.h"
#include "worker.h"
#include "worker_ckpt.h"
#include "worker_xfer.h"
#include "trace.h"

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

/* One address of the box: 0, -EINVAL or -EAFNOSUPPORT. */
static int rw_attach_addr(const struct rw_attach_addr *a,
			  struct sockaddr_storage *box)
{
	u16 port = a->port ?: RW_WIRE_PORT;

	if (a->reserved)
		return -EINVAL;
	if (a->family == AF_INET) {
		/* An IPv4 address is the first 4 bytes, the rest zero. */
		if (!rw_mem_is_zero(a->addr + 4, sizeof(a->addr) - 4))
			return -EINVAL;
		return rw_sockaddr_fill(box, a->addr, 4, port);
	}
	if (a->family == AF_INET6)
		return rw_sockaddr_fill(box, a->addr, sizeof(a->addr), port);
	return -EAFNOSUPPORT;
}

/*
 * The box's addresses of a remote attach, the request's own and
 * @a->nr_box_more more from user space, into @box (RW_WIRE_MAX_NICS):
 * how many, or -EINVAL, -EAFNOSUPPORT, -EFAULT.
 */
static int rw_attach_boxes(const struct rw_attach *a,
			   struct sockaddr_storage *box)
{
	struct rw_attach_addr more[RW_WIRE_MAX_NICS - 1];
	struct rw_attach_addr first = {
		.family = a->box_family,
		.port = a->box_port,
	};
	u32 i;
	int ret;

	if (a->nr_box_more > ARRAY_SIZE(more) || !a->nr_box_more != !a->box_more)
		return -EINVAL;
	memcpy(first.addr, a->box_addr, sizeof(first.addr));
	ret = rw_attach_addr(&first, &box[0]);
	if (ret)
		return ret;
	if (copy_from_user(more, u64_to_user_ptr(a->box_more),
			   array_size(a->nr_box_more, sizeof(more[0]))))
		return -EFAULT;
	for (i = 0; i < a->nr_box_more; i++) {
		ret = rw_attach_addr(&more[i], &box[i + 1]);
		if (ret)
			return ret;
	}
	return a->nr_box_more + 1;
}

static long rw_ioctl_attach(struct rw_worker *w, void __user *uarg)
{
	struct sockaddr_storage *box = NULL;
	bool remote;
	struct rw_attach a;
	long ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	remote = a.flags & RW_ATTACH_REMOTE;
	if (a.size != sizeof(a) || a.flags & ~RW_ATTACH_FLAGS_ALL ||
	    a.reserved || (a.flags & RW_ATTACH_BOXES && !remote) ||
	    !memchr(a.job, 0, sizeof(a.job)) ||
	    (!remote && (a.box_family || a.box_port || a.box_more ||
			 a.nr_box_more ||
			 !rw_mem_is_zero(a.box_addr, sizeof(a.box_addr))))) {
		ret = -EINVAL;
		goto out;
	}
	if (remote) {
		box = kcalloc(RW_WIRE_MAX_NICS, sizeof(*box), GFP_KERNEL);
		ret = box ? rw_attach_boxes(&a, box) : -ENOMEM;
		if (ret > 0)
			ret = rw_worker_attach_remote(w, a.job, a.token, a.rank,
						      a.flags & ~RW_ATTACH_REMOTE,
						      box, (u32)ret);
	} else {
		ret = rw_worker_attach(w, a.job, a.token, a.rank, a.flags);
	}
out:
	memzero_explicit(a.token, sizeof(a.token));
	kfree(box);
	return ret;
}

/*
 * Copy an array from user space, charged to the caller's memory cgroup,
 * only for a file attached to a job: the device is open to every user.
 */
static void *rw_copy_array(struct rw_worker *w, u64 uptr, u32 n, size_t size)
{
	size_t bytes = array_size(n, size);
	void *p;

	if (!rw_worker_attached(w))
		return ERR_PTR(-ENOTCONN);
	p = kvmalloc(bytes, GFP_KERNEL_ACCOUNT);
	if (!p)
		return ERR_PTR(-ENOMEM);
	if (copy_from_user(p, u64_to_user_ptr(uptr), bytes)) {
		kvfree(p);
		return ERR_PTR(-EFAULT);
	}
	return p;
}

/* A request's @nr ranges at @uptr (NULL for none): E2BIG beyond the limit. */
static struct rw_range *rw_copy_ranges(struct rw_worker *w, u64 uptr, u32 nr)
{
	if (nr > RW_XFER_MAX_RANGES)
		return ERR_PTR(-E2BIG);
	return nr ? rw_copy_array(w, uptr, nr, sizeof(struct rw_range)) : NULL;
}

static long rw_ioctl_declare(struct rw_worker *w, void __user *uarg)
{
	struct rw_tensor_desc *t;
	struct rw_declare d;
	long ret;

	if (copy_from_user(&d, uarg, sizeof(d)))
		return -EFAULT;
	if (d.size != sizeof(d) || d.reserved0 || d.flags & ~RW_DECLARE_FLAGS_ALL ||
	    !rw_mem_is_zero(d.reserved, sizeof(d.reserved)) || !d.nr_tensors)
		return -EINVAL;
	if (d.nr_tensors > RW_MAX_TENSORS)
		return -E2BIG;
	t = rw_copy_array(w, d.tensors, d.nr_tensors, sizeof(*t));
	if (IS_ERR(t))
		return PTR_ERR(t);
	ret = rw_worker_declare(w, t, d.nr_tensors, d.flags, NULL);
	kvfree(t);
	return ret;
}

static long rw_ioctl_setup(struct rw_worker *w, void __user *uarg)
{
	struct rw_setup st;
	long ret;

	if (copy_from_user(&st, uarg, sizeof(st)))
		return -EFAULT;
	if (st.size != sizeof(st) || st.flags & ~RW_SETUP_FLAGS_ALL ||
	    !rw_mem_is_zero(st.reserved, sizeof(st.reserved)))
		return -EINVAL;
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	ret = rw_worker_setup(w, &st);
	if (ret)
		return ret;
	return copy_to_user(uarg, &st, sizeof(st)) ? -EFAULT : 0;
}

/* The job a trace event names: a remote or unattached file has none here. */
static const char *rw_ioctl_job_name(struct rw_worker *w)
{
	struct rw_job *job = rw_worker_job(w);

	return job ? job->cfg.name : "";
}

static long rw_ioctl_xfer(struct rw_worker *w, u32 op, void __user *uarg)
{
	struct rw_range *r;
	struct rw_xfer x;
	long ret;

	if (copy_from_user(&x, uarg, sizeof(x)))
		return -EFAULT;
	if (x.size != sizeof(x) || x.flags & ~RW_XFER_FLAGS_ALL ||
	    !rw_mem_is_zero(x.reserved, sizeof(x.reserved)))
		return -EINVAL;
	trace_rw_xfer(rw_ioctl_job_name(w), op, x.nr);
	r = rw_copy_ranges(w, x.ranges, x.nr);
	if (IS_ERR(r)) {
		ret = PTR_ERR(r);
		goto out;
	}
	ret = rw_worker_xfer(w, op, r, x.nr, x.flags, x.timeout_ms);
	kvfree(r);
out:
	trace_rw_xfer_done(rw_ioctl_job_name(w), op, ret);
	return ret;
}

static long rw_ioctl_params_init(struct rw_worker *w, void __user *uarg)
{
	struct rw_range *r;
	struct rw_params_init pi;
	long ret;

	if (copy_from_user(&pi, uarg, sizeof(pi)))
		return -EFAULT;
	if (pi.size != sizeof(pi) || pi.flags & ~RW_INIT_FLAGS_ALL ||
	    !rw_mem_is_zero(pi.reserved, sizeof(pi.reserved)))
		return -EINVAL;
	r = rw_copy_ranges(w, pi.ranges, pi.nr);
	if (IS_ERR(r))
		return PTR_ERR(r);
	ret = rw_worker_params_init(w, r, pi.nr, pi.flags, pi.data, pi.len,
				    pi.timeout_ms);
	kvfree(r);
	return ret;
}

static long rw_ioctl_checkpoint(struct rw_worker *w, void __user *uarg)
{
	struct rw_checkpoint c;

	if (copy_from_user(&c, uarg, sizeof(c)))
		return -EFAULT;
	if (c.size != sizeof(c) || c.flags & ~RW_CKPT_FLAGS_ALL || c.reserved0 ||
	    !rw_mem_is_zero(c.reserved, sizeof(c.reserved)))
		return -EINVAL;
	if (!rw_worker_attached(w))
		return -ENOTCONN;
	return rw_worker_checkpoint(w, c.flags, c.timeout_ms, c.head, c.data,
				    c.len);
}

static long rw_chardev_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	struct rw_worker *w = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case RW_IOC_VERSION:
		return rw_ioctl_version(uarg);
	case RW_IOC_ATTACH:
		return rw_ioctl_attach(w, uarg);
	case RW_IOC_DECLARE:
		return rw_ioctl_declare(w, uarg);
	case RW_IOC_SETUP:
		return rw_ioctl_setup(w, uarg);
	case RW_IOC_PUSH:
		return rw_ioctl_xfer(w, RW_XFER_PUSH, uarg);
	case RW_IOC_PULL:
		return rw_ioctl_xfer(w, RW_XFER_PULL, uarg);
	case RW_IOC_PUSHPULL:
		return rw_ioctl_xfer(w, RW_XFER_BOTH, uarg);
	case RW_IOC_PARAMS_INIT:
		return rw_ioctl_params_init(w, uarg);
	case RW_IOC_CHECKPOINT:
		return rw_ioctl_checkpoint(w, uarg);
	default:
		return -ENOTTY;
	}
}

/*
 * Each mapping (and each piece a split or a fork makes of one) holds a
 * reference to the job, so the job outlives its last mapping even after it
 * is deleted; the mapping's file keeps the engine (see worker.c).
 */
static void rw_vm_open(struct vm_area_struct *vma)
{
	struct rw_job *job = rw_worker_job(vma->vm_private_data);

	/* A remote attachment's buffers are the file's own: no job here. */
	if (!job)
		return;
	kref_get(&job->ref);
	atomic_inc(&job->mappings);
}

static void rw_vm_close(struct vm_area_struct *vma)
{
	struct rw_job *job = rw_worker_job(vma->vm_private_data);

	if (!job)
		return;
	atomic_dec(&job->mappings);
	rw_job_put(job);
}

static vm_fault_t rw_vm_fault(struct vm_fault *vmf)
{
	u64 base, off = (u64)vmf->pgoff << PAGE_SHIFT;
	enum rw_engine_buf buf = rw_worker_buf_at(off, &base);
	struct page *page;

	page = rw_worker_page(vmf->vma->vm_private_data, buf, off - base);
	if (!page)
		return VM_FAULT_SIGBUS;
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct rw_vm_ops = {
	.open	= rw_vm_open,
	.close	= rw_vm_close,
	.fault	= rw_vm_fault,
};

static int rw_chardev_mmap(struct file *file, struct vm_area_struct *vma)
{
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	enum rw_engine_buf buf;
	struct rw_job *job;
	u64 base;
	int ret;

	if (vma->vm_pgoff > (U64_MAX >> PAGE_SHIFT))
		return -EINVAL;
	ret = rw_worker_map(file->private_data, off,
			    vma->vm_end - vma->vm_start,
			    vma->vm_flags & VM_WRITE, vma->vm_flags & VM_MAYSHARE,
			    &buf, &base, &job);
	if (ret)
		return ret;
	/* Read-only buffers stay read-only: mprotect cannot add PROT_WRITE. */
	if (buf != RW_BUF_GRAD)
		vma->vm_flags &= ~VM_MAYWRITE;
	/* The buffers have a fixed size: mremap must not grow a mapping. */
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_private_data = file->private_data;
	vma->vm_ops = &rw_vm_ops;
	return 0;
}

static __poll_t rw_chardev_poll(struct file *file, poll_table *pt)
{
	return rw_worker_poll(file->private_data, file, pt);
}

static int rw_chardev_open(struct inode *inode, struct file *file)
{
	struct rw_worker *w = rw_worker_new();

	if (!w)
		return -ENOMEM;
	file->private_data = w;
	return nonseekable_open(inode, file);
}

static int rw_chardev_release(struct inode *inode, struct file *file)
{
	rw_worker_free(file->private_data);
	return 0;
}

static const struct file_operations rw_chardev_fops = {
	.owner		= THIS_MODULE,
	.open		= rw_chardev_open,
	.release	= rw_chardev_release,
	.unlocked_ioctl	= rw_chardev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= rw_chardev_mmap,
	.poll		= rw_chardev_poll,
	.llseek		= no_llseek,
};

static struct miscdevice rw_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= RW_DEV_NAME,
	.fops	= &rw_chardev_fops,
	.mode	= 0660,
};

int rw_chardev_init(void)
{
	BUILD_BUG_ON(sizeof(struct rw_version_info) != RW_VERSION_INFO_SIZE);
	BUILD_BUG_ON(offsetof(struct rw_version_info, features) != 16);
	BUILD_BUG_ON(offsetof(struct rw_version_info, reserved) != 24);
	BUILD_BUG_ON(sizeof(struct rw_attach) != RW_ATTACH_SIZE);
	BUILD_BUG_ON(offsetof(struct rw_attach, rank) != 72);
	BUILD_BUG_ON(offsetof(struct rw_attach, box_more) != 96);
	BUILD_BUG_ON(sizeof(struct rw_attach_addr) != RW_ATTACH_ADDR_SIZE);
	BUILD_BUG_ON(sizeof(struct rw_tensor_desc) != RW_TENSOR_DESC_SIZE);
	BUILD_BUG_ON(sizeof(struct rw_declare) != RW_DECLARE_SIZE);
	BUILD_BUG_ON(offsetof(struct rw_declare, tensors) != 16);
	BUILD_BUG_ON(sizeof(struct rw_setup) != RW_SETUP_SIZE);
	BUILD_BUG_ON(offsetof(struct rw_setup, node) != 96);
	BUILD_BUG_ON(sizeof(struct rw_range) != RW_RANGE_SIZE);
	BUILD_BUG_ON(sizeof(struct rw_xfer) != RW_XFER_SIZE);
	BUILD_BUG_ON(offsetof(struct rw_xfer, ranges) != 16);
	BUILD_BUG_ON(sizeof(struct rw_params_init) != RW_PARAMS_INIT_SIZE);
	BUILD_BUG_ON(sizeof(struct rw_ckpt_head) != RW_CKPT_HEAD_SIZE);
	BUILD_BUG_ON(sizeof(struct rw_checkpoint) != RW_CHECKPOINT_SIZE);

	return misc_register(&rw_miscdev);
}

void rw_chardev_exit(void)
{
	misc_deregister(&rw_miscdev);
}
