// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * Joining a job: RW_IOC_ATTACH with the job's name, token and this
 * worker's rank, then RW_IOC_DECLARE with the model's tensors.
 *
 * The library checks what it can say more precisely than the module (a
 * name that does not fit, unknown flags) and leaves the rest to the module,
 * which owns the job. Both calls run under the context lock: they are
 * short, and holding it keeps "attached" and "declared" in step with what
 * the module knows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"

int rw_attach(struct rw_ctx *ctx, const char *job, const uint8_t *token,
	      uint32_t rank, uint32_t flags)
{
	struct rw_attach a;
	size_t len;
	int err;

	if (!ctx || !job || !token || (flags & ~RW_ATTACH_FLAGS_ALL))
		return -EINVAL;
	len = strnlen(job, sizeof(a.job));
	if (len == 0 || len >= sizeof(a.job))
		return -EINVAL;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.flags = flags;
	memcpy(a.job, job, len);
	memcpy(a.token, token, sizeof(a.token));
	a.rank = rank;

	pthread_mutex_lock(&ctx->lock);
	if (ctx->attached) {
		err = -EISCONN;
		goto out;
	}
	err = rw_ioctl(ctx, RW_IOC_ATTACH, &a);
	if (err)
		goto out;
	ctx->attached = true;
	ctx->attach_flags = flags;
	ctx->rank = rank;
out:
	pthread_mutex_unlock(&ctx->lock);
	explicit_bzero(&a, sizeof(a));
	return err;
}

/*
 * Observers may not declare (the module says EPERM), yet they need the
 * layout to find tensors in the parameters they map: for them the layout
 * is only recorded, and rw_map() compares it with the module's.
 */
int rw_declare(struct rw_ctx *ctx, const struct rw_tensor_desc *t,
	       uint32_t n, uint32_t flags)
{
	struct rw_model model, old;
	struct rw_declare d;
	int err;

	if (!ctx || (flags & ~RW_DECLARE_FLAGS_ALL))
		return -EINVAL;
	err = rw_model_build(&model, t, n);
	if (err)
		return err;

	memset(&d, 0, sizeof(d));
	d.size = sizeof(d);
	d.flags = flags;
	d.nr_tensors = n;
	d.tensors = (uintptr_t)model.t;

	pthread_mutex_lock(&ctx->lock);
	if (!ctx->attached) {
		err = -ENOTCONN;
		goto err_unlock;
	}
	if (ctx->mapped && (model.bytes != ctx->setup.model_bytes ||
			    n != ctx->setup.nr_tensors)) {
		err = -EEXIST;
		goto err_unlock;
	}
	if (!(ctx->attach_flags & RW_ATTACH_OBSERVER)) {
		err = rw_ioctl(ctx, RW_IOC_DECLARE, &d);
		if (err)
			goto err_unlock;
	}
	old = ctx->model;
	ctx->model = model;
	pthread_mutex_unlock(&ctx->lock);
	rw_model_free(&old);
	return 0;

err_unlock:
	pthread_mutex_unlock(&ctx->lock);
	rw_model_free(&model);
	return err;
}
