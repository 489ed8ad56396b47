// SPDX-License-Identifier: GPL-2.0
/*
 * The backend of "job checkpoint" and "job restore" on the device: open
 * RW_DEV_PATH through librackweave, attach to the job as an observer with
 * its token (an observer neither pushes nor pulls, so it can wait for the
 * workers' iterations in flight without holding one of its own), and let
 * rw_checkpoint_save() or rw_checkpoint_restore() do the rest. The
 * module lets an observer restore a checkpoint, though not set plain
 * initial parameters.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ckpt.h"

/* An observer of r->job: 0 with *@ctx open, or the reason in @why. */
static int rwctl_ckpt_attach(const struct rwctl_ckpt_req *r,
			     struct rw_ctx **ctx, char *why, size_t whylen)
{
	struct rw_version_info info;
	int err;

	err = rw_ctx_open(ctx, NULL);
	if (err == -ENOENT || err == -ENXIO || err == -ENODEV)
		snprintf(why, whylen,
			 "rackweave module not loaded (no %s); load it with: modprobe rackweave",
			 RW_DEV_PATH);
	else if (err)
		snprintf(why, whylen, "cannot open %s: %s", RW_DEV_PATH,
			 rw_strerror(err));
	if (err)
		return err;
	err = rw_ctx_version(*ctx, &info);
	if (!err && !(info.features & RW_FEAT_CHECKPOINT))
		err = -EOPNOTSUPP;
	if (err) {
		snprintf(why, whylen, "%s",
			 err == -EOPNOTSUPP ?
			 "the loaded rackweave module has no checkpoints; load the module of rwctl's release (" RW_VERSION_STRING ")" :
			 rw_strerror(err));
		goto err_close;
	}
	err = rw_attach(*ctx, r->job, r->token, 0, RW_ATTACH_OBSERVER);
	if (err == -ENOENT)
		snprintf(why, whylen, "no job named '%s'", r->job);
	else if (err == -EACCES)
		snprintf(why, whylen, "wrong token for job '%s' (token file '%s')",
			 r->job, r->token_file);
	else if (err)
		snprintf(why, whylen, "cannot attach to job '%s' as an observer: %s",
			 r->job, rw_strerror(err));
	if (err)
		goto err_close;
	return 0;

err_close:
	rw_ctx_close(*ctx);
	*ctx = NULL;
	return err;
}

/* The file's step and length for the summary, once it is written or loaded. */
static int rwctl_ckpt_info(const struct rwctl_ckpt_req *r,
			   struct rwctl_ckpt_info *info, char *why,
			   size_t whylen)
{
	struct rw_ckpt_head h;
	int err;

	err = rw_checkpoint_head(r->file, &h, &info->bytes, why, whylen);
	if (!err)
		info->step = h.step;
	return err;
}

static int rwctl_ckpt_dev_save(const struct rwctl_ckpt_req *r,
			       struct rwctl_ckpt_info *info, char *why,
			       size_t whylen)
{
	struct rw_ctx *ctx;
	int err;

	err = rwctl_ckpt_attach(r, &ctx, why, whylen);
	if (err)
		return err;
	err = rw_checkpoint_save(ctx, r->file, r->timeout_ms, why, whylen);
	rw_ctx_close(ctx);
	return err ? err : rwctl_ckpt_info(r, info, why, whylen);
}

static int rwctl_ckpt_dev_restore(const struct rwctl_ckpt_req *r,
				  struct rwctl_ckpt_info *info, char *why,
				  size_t whylen)
{
	struct rw_ctx *ctx;
	int err;

	err = rwctl_ckpt_attach(r, &ctx, why, whylen);
	if (err)
		return err;
	err = rw_checkpoint_restore(ctx, r->file, why, whylen);
	rw_ctx_close(ctx);
	return err ? err : rwctl_ckpt_info(r, info, why, whylen);
}

const struct rwctl_ckpt_backend rwctl_ckpt_dev_backend = {
	.save = rwctl_ckpt_dev_save,
	.restore = rwctl_ckpt_dev_restore,
};
