// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * Device context: opening /dev/rackweave and the version handshake that every
 * other request relies on.
 *
 * The library keeps no global state: everything lives in the context (see
 * ctx.h for which lock guards what), so contexts are independent across
 * threads. Each call works on a private copy of the ioctl struct and writes
 * the caller's struct only once the reply has been validated, so a failed
 * call leaves it untouched.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ctx.h"

/* The module pins the same numbers with BUILD_BUG_ON. */
_Static_assert(_IOC_SIZE(RW_IOC_VERSION) == RW_VERSION_INFO_SIZE,
	       "RW_IOC_VERSION encodes the wrong size");

int rw_neg_errno(void)
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
	err = -pthread_mutex_init(&ctx->lock, NULL);
	if (err)
		goto err_free;

	ctx->fd = open(path ? path : RW_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (ctx->fd < 0) {
		err = rw_neg_errno();
		if (err == -ENOENT)
			rw_enoent(RW_ENOENT_DEVICE);
		goto err_mutex;
	}

	*ctxp = ctx;
	return 0;

err_mutex:
	pthread_mutex_destroy(&ctx->lock);
err_free:
	free(ctx);
	return err;
}

/*
 * The mappings go before the file: each keeps the job's memory alive on
 * its own, and unmapping first means no buffer outlives the context that
 * described it.
 */
void rw_ctx_close(struct rw_ctx *ctx)
{
	if (!ctx)
		return;
	rw_map_release(ctx);
	rw_async_release(ctx);
	rw_model_free(&ctx->model);
	close(ctx->fd);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
}

int rw_ctx_fd(const struct rw_ctx *ctx)
{
	return ctx ? ctx->fd : -EINVAL;
}

/*
 * Issue an ioctl, restarting it if a signal interrupted it: for requests
 * without side effects that a restart could repeat (not push).
 */
/* The module's ENOENT for @req, named (rw_enoent). */
static int rw_ioctl_err(unsigned long req)
{
	int err = rw_neg_errno();

	if (err != -ENOENT)
		return err;
	switch (req) {
	case RW_IOC_ATTACH:
		return rw_enoent(RW_ENOENT_JOB);
	case RW_IOC_DECLARE:
		return rw_enoent(RW_ENOENT_RUN);
	case RW_IOC_PUSH:
	case RW_IOC_PULL:
	case RW_IOC_PUSHPULL:
	case RW_IOC_PARAMS_INIT:
		return rw_enoent(RW_ENOENT_KEY);
	default:
		return err;
	}
}

int rw_ioctl(struct rw_ctx *ctx, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(ctx->fd, req, arg);
	} while (ret < 0 && errno == EINTR);

	return ret < 0 ? rw_ioctl_err(req) : 0;
}

int rw_ioctl_once(struct rw_ctx *ctx, unsigned long req, void *arg)
{
	return ioctl(ctx->fd, req, arg) < 0 ? rw_ioctl_err(req) : 0;
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
