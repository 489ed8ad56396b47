// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * Device context: opening /dev/rackweave and the version handshake that every
 * other request relies on.
 *
 * A context holds nothing but the file descriptor, so the library keeps no
 * global state and contexts are independent across threads. Each call works
 * on a private copy of the ioctl struct and writes the caller's struct only
 * once the reply has been validated, so a failed call leaves it untouched.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <rackweave.h>

/* The module pins the same numbers with BUILD_BUG_ON. */
_Static_assert(sizeof(struct rw_version_info) == RW_VERSION_INFO_SIZE,
	       "struct rw_version_info changed size");
_Static_assert(_IOC_SIZE(RW_IOC_VERSION) == RW_VERSION_INFO_SIZE,
	       "RW_IOC_VERSION encodes the wrong size");

struct rw_ctx {
	int fd;		/* set by rw_ctx_open, constant until rw_ctx_close */
};

/* errno after a failed system call, never 0 even if libc forgot to set it. */
static int rw_neg_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}

int rw_ctx_open(struct rw_ctx **ctxp, const char *path)
{
	struct rw_ctx *ctx;
	int err;

	if (!ctxp)
		return -EINVAL;
	*ctxp = NULL;

	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;

	ctx->fd = open(path ? path : RW_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (ctx->fd < 0) {
		err = rw_neg_errno();
		goto err_free;
	}

	*ctxp = ctx;
	return 0;

err_free:
	free(ctx);
	return err;
}

void rw_ctx_close(struct rw_ctx *ctx)
{
	if (!ctx)
		return;
	close(ctx->fd);
	free(ctx);
}

int rw_ctx_fd(const struct rw_ctx *ctx)
{
	return ctx ? ctx->fd : -EINVAL;
}

/*
 * Issue an ioctl, restarting it if a signal interrupted it: the requests this
 * library makes have no side effects that a restart could repeat.
 */
static int rw_ioctl(struct rw_ctx *ctx, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(ctx->fd, req, arg);
	} while (ret < 0 && errno == EINTR);

	return ret < 0 ? rw_neg_errno() : 0;
}

int rw_ctx_version(struct rw_ctx *ctx, struct rw_version_info *out)
{
	struct rw_version_info info;
	int err;

	if (!ctx || !out)
		return -EINVAL;

	/* uapi: size set, flags 0, every other byte 0 (reserved included). */
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	info.flags = 0;

	err = rw_ioctl(ctx, RW_IOC_VERSION, &info);
	if (err)
		return err;

	/*
	 * Only the ABI is checked: reserved words may carry output from a newer
	 * module (append only), which this library simply does not read.
	 */
	if (info.abi != RW_ABI_VERSION)
		return -EPROTO;

	*out = info;
	return 0;
}
