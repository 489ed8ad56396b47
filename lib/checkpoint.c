// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * rw_checkpoint_save(), rw_checkpoint_restore() and rw_checkpoint_head():
 * checkpoint files (the format: ckpt.c) between a path and the module's
 * RW_IOC_CHECKPOINT and RW_IOC_PARAMS_INIT with RW_INIT_CHECKPOINT.
 *
 * Nothing is half done. A save writes PATH.tmp, fsyncs it and renames it
 * over PATH, so PATH is always the old file or the whole new one. A
 * restore checks the whole file, then the job's head against it, before
 * the one request that changes anything; the module checks again and
 * loads the state all at once or not at all.
 *
 * A file is held in memory once: the module copies the image straight
 * into the buffer the file is written from, and a file read for a
 * restore is converted in place and handed to the module as it lies.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt.h"
#include "ctx.h"

/* The structs' sizes are pinned in uapi/rackweave_sizes.h (ctx.h). */

/* The words of rwctl's "optim" (tools/rwctl/job-args.c), for messages. */
static const char *const rw_ckpt_optims[] = {
	[RW_OPTIM_SGD]		= "sgd",
	[RW_OPTIM_MOMENTUM]	= "momentum",
	[RW_OPTIM_NESTEROV]	= "nesterov",
	[RW_OPTIM_ADAM]		= "adam",
	[RW_OPTIM_AVERAGE]	= "average",
};

/* The words rwctl uses for hparams[0..5] (uapi order). */
static const char *const rw_ckpt_hparams[6] = {
	"lr", "momentum", "weight-decay", "beta1", "beta2", "eps",
};

/* "sgd", "adam", ..., or NULL for an optimizer this library does not know. */
static const char *rw_ckpt_optim_name(uint32_t optim)
{
	if (optim < sizeof(rw_ckpt_optims) / sizeof(rw_ckpt_optims[0]))
		return rw_ckpt_optims[optim];
	return NULL;
}

/* The C library's words for a file error; thread-safe, unlike strerror(). */
static const char *rw_ckpt_strerr(int err)
{
	const char *desc = strerrordesc_np(-err);

	return desc ? desc : "unknown error";
}

/* ---- files ---- */

/* Write all of @buf, restarting after signals. */
static int rw_ckpt_write_all(int fd, const unsigned char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return rw_neg_errno();
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read up to @len bytes (fewer only at the end of the file). */
static int rw_ckpt_read_all(int fd, unsigned char *buf, size_t len,
			    size_t *got)
{
	ssize_t n;

	*got = 0;
	while (*got < len) {
		n = read(fd, buf + *got, len - *got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return rw_neg_errno();
		if (!n)
			break;
		*got += (size_t)n;
	}
	return 0;
}

/* Make the rename of a file in @path's directory durable. */
static void rw_ckpt_sync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd;

	if (!copy)
		return;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(copy);
	if (fd < 0)
		return;
	/* The file itself is safe; only a crash could undo the rename. */
	(void)fsync(fd);
	close(fd);
}

/*
 * The temporary file a save writes, @path.tmp, created before the module
 * is asked for anything (a path that cannot be written holds no worker
 * up). 0 with *@fd and *@tmp (free it), or the reason.
 */
static int rw_ckpt_create(const char *path, char **tmp, int *fd, char *why,
			  size_t whylen)
{
	int err;

	if (asprintf(tmp, "%s.tmp", path) < 0) {
		*tmp = NULL;
		return rw_ckpt_fail(why, whylen, -ENOMEM,
				    "%s: not saved: out of memory", path);
	}
	/* O_NOFOLLOW: a planted symlink must not redirect the write. */
	*fd = open(*tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		   0666);
	if (*fd >= 0)
		return 0;
	err = rw_neg_errno();
	rw_ckpt_fail(why, whylen, err, "%s: not saved: cannot create %s: %s",
		     path, *tmp, rw_ckpt_strerr(err));
	free(*tmp);
	*tmp = NULL;
	return err;
}

/*
 * @len bytes to @tmp (open at @fd, which this closes), fsynced, renamed
 * over @path. On failure @path is untouched and @tmp is gone.
 */
static int rw_ckpt_commit(const char *path, const char *tmp, int fd,
			  const void *buf, size_t len, char *why,
			  size_t whylen)
{
	const char *what = "write";
	int err;

	err = rw_ckpt_write_all(fd, buf, len);
	if (!err && fsync(fd))
		err = rw_neg_errno();
	if (close(fd) && !err)
		err = rw_neg_errno();
	if (!err && rename(tmp, path)) {
		what = "rename";
		err = rw_neg_errno();
	}
	if (!err) {
		rw_ckpt_sync_dir(path);
		return 0;
	}
	unlink(tmp);
	return rw_ckpt_fail(why, whylen, err, "%s: not saved: cannot %s %s%s: %s",
			    path, what, tmp, strcmp(what, "rename") ? "" :
			    " over it", rw_ckpt_strerr(err));
}

/*
 * Open @path and check its prefix and head, and, for a regular file, its
 * length against the head (before gigabytes are read). On success the
 * file is open at *@fd (the caller closes it), its first *@got bytes in
 * @first (RW_CKPT_IMAGE_OFF), the head in *@h and the file's whole length
 * in *@want. -errno of open/read, or -EINVAL, with @why.
 */
static int rw_ckpt_open_head(const char *path, int *fd, unsigned char *first,
			     size_t *got, struct rw_ckpt_head *h, size_t *want,
			     char *why, size_t whylen)
{
	char reason[256];
	struct stat st;
	int err;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		err = errno == ENOENT ? rw_enoent(RW_ENOENT_CKPT) :
		      rw_neg_errno();
		return rw_ckpt_fail(why, whylen, err, "%s: cannot open it: %s",
				    path, rw_ckpt_strerr(err));
	}
	err = rw_ckpt_read_all(*fd, first, RW_CKPT_IMAGE_OFF, got);
	if (err) {
		rw_ckpt_fail(why, whylen, err, "%s: cannot read it: %s", path,
			     rw_ckpt_strerr(err));
		goto fail;
	}
	err = rw_ckpt_decode_head(first, *got, h, want, reason, sizeof(reason));
	/* A pipe or a device has no length to check: decoding tells. */
	if (!err && !fstat(*fd, &st) && S_ISREG(st.st_mode))
		err = rw_ckpt_len_check(h, (uint64_t)st.st_size, reason,
					sizeof(reason));
	if (err) {
		rw_ckpt_fail(why, whylen, err, "%s: %s", path, reason);
		goto fail;
	}
	return 0;
fail:
	close(*fd);
	*fd = -1;
	return err;
}

/*
 * Read a whole checkpoint file into *@buf (*@len bytes), its prefix, head
 * and length checked first (rw_ckpt_open_head); the checksum and the rest
 * are decoding's. -errno with @why.
 */
static int rw_ckpt_read_file(const char *path, unsigned char **buf,
			     size_t *len, char *why, size_t whylen)
{
	unsigned char head[RW_CKPT_IMAGE_OFF], *p;
	struct rw_ckpt_head h;
	size_t got, more, want;
	int fd, err;

	*buf = NULL;
	err = rw_ckpt_open_head(path, &fd, head, &got, &h, &want, why, whylen);
	if (err)
		return err;
	/* One byte more than the head says tells "too long" from "exact". */
	p = malloc(want + 1);
	if (!p) {
		err = rw_ckpt_fail(why, whylen, -ENOMEM,
				   "%s: cannot allocate %zu bytes to read it",
				   path, want + 1);
		goto out;
	}
	memcpy(p, head, got);
	err = rw_ckpt_read_all(fd, p + got, want + 1 - got, &more);
	if (err) {
		rw_ckpt_fail(why, whylen, err, "%s: cannot read it: %s", path,
			     rw_ckpt_strerr(err));
		free(p);
		goto out;
	}
	*buf = p;
	*len = got + more;
out:
	close(fd);
	return err;
}

int rw_checkpoint_head(const char *path, struct rw_ckpt_head *head,
		       uint64_t *file_len, char *why, size_t whylen)
{
	unsigned char buf[RW_CKPT_IMAGE_OFF];
	struct rw_ckpt_head h;
	size_t got, want;
	int fd, err;

	if (!path || !head)
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "rw_checkpoint_head: no path or head");
	err = rw_ckpt_open_head(path, &fd, buf, &got, &h, &want, why, whylen);
	if (err)
		return err;
	close(fd);
	*head = h;
	if (file_len)
		*file_len = want;
	return 0;
}

/* ---- the device ---- */

static int rw_ckpt_ioctl(struct rw_ctx *ctx, struct rw_ckpt_head *h,
			 void *image, uint64_t len, uint32_t timeout_ms)
{
	struct rw_checkpoint c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.flags = image ? 0 : RW_CKPT_HEAD_ONLY;
	c.timeout_ms = timeout_ms;
	c.head = (uintptr_t)h;
	c.data = (uintptr_t)image;
	c.len = image ? len : 0;
	memset(h, 0, sizeof(*h));
	/* The head alone never sleeps; a copy may, and a signal ends it. */
	if (!image)
		return rw_ioctl(ctx, RW_IOC_CHECKPOINT, &c);
	return rw_ioctl_once(ctx, RW_IOC_CHECKPOINT, &c);
}

int rw_job_head(struct rw_ctx *ctx, struct rw_ckpt_head *head)
{
	if (!ctx || !head)
		return -EINVAL;
	return rw_ckpt_ioctl(ctx, head, NULL, 0, 0);
}

/* Everything but the step: the same run, whatever it trained meanwhile. */
static bool rw_ckpt_same_run(const struct rw_ckpt_head *a,
			     const struct rw_ckpt_head *b)
{
	struct rw_ckpt_head x = *a;

	x.step = b->step;
	return !memcmp(&x, b, sizeof(x));
}

/* What the module's refusal @err of a checkpoint or restore means. */
static const char *rw_ckpt_dev_why(int err)
{
	switch (-err) {
	case ENOTCONN:
		return "the job has no run yet (no worker has declared the model), or this context is not attached";
	case ENOTTY:
		return "the loaded rackweave module has no checkpoints (RW_IOC_CHECKPOINT); load a newer one";
	case EOPNOTSUPP:
		return "the box this worker is attached to takes no checkpoint requests over RDMA (an older module): checkpoint and restore the job there";
	case EINTR:
		return "interrupted by a signal";
	default:
		return rw_strerror(err);
	}
}

static int rw_ckpt_save_fail(const char *path, int err, char *why,
			     size_t whylen, uint32_t timeout_ms)
{
	switch (-err) {
	case ETIMEDOUT:
		return rw_ckpt_fail(why, whylen, err,
				    "%s: not saved: the iterations in flight did not finish within %"
				    PRIu32 " ms (the workers went on)",
				    path, timeout_ms);
	case EBUSY:
		return rw_ckpt_fail(why, whylen, err,
				    "%s: not saved: this worker is inside an iteration (it pulled and has not pushed); save between its push and its next pull, or from an observer",
				    path);
	default:
		return rw_ckpt_fail(why, whylen, err, "%s: not saved: %s", path,
				    rw_ckpt_dev_why(err));
	}
}

/*
 * The job's head and image into a new file buffer *@buf (the image at
 * RW_CKPT_IMAGE_OFF). The run may change between the head alone and the
 * copy (a job deleted and created again): then the copy fails with
 * EINVAL or brings another head, and the whole is tried once more.
 */
static int rw_ckpt_fetch(struct rw_ctx *ctx, const char *path,
			 uint32_t timeout_ms, unsigned char **buf,
			 struct rw_ckpt_head *h, char *why, size_t whylen)
{
	struct rw_ckpt_head first, again;
	char reason[256];
	int err, attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		err = rw_ckpt_ioctl(ctx, &first, NULL, 0, 0);
		if (err)
			return rw_ckpt_save_fail(path, err, why, whylen, 0);
		if (rw_ckpt_head_check(&first, reason, sizeof(reason)))
			return rw_ckpt_fail(why, whylen, -EPROTO,
					    "%s: not saved: the module's checkpoint head is inconsistent: %s",
					    path, reason);
		*buf = malloc(rw_ckpt_file_len(&first));
		if (!*buf)
			return rw_ckpt_fail(why, whylen, -ENOMEM,
					    "%s: not saved: cannot allocate %zu bytes",
					    path, rw_ckpt_file_len(&first));
		err = rw_ckpt_ioctl(ctx, h, *buf + RW_CKPT_IMAGE_OFF,
				    first.image_len, timeout_ms);
		if (!err && rw_ckpt_same_run(&first, h))
			return 0;
		free(*buf);
		*buf = NULL;
		if (err && err != -EINVAL)
			return rw_ckpt_save_fail(path, err, why, whylen,
						 timeout_ms);
		/* An EINVAL of the same run is the module's last word. */
		if (err && (rw_ckpt_ioctl(ctx, &again, NULL, 0, 0) ||
			    rw_ckpt_same_run(&first, &again)))
			return rw_ckpt_save_fail(path, err, why, whylen,
						 timeout_ms);
	}
	return rw_ckpt_fail(why, whylen, -EAGAIN,
			    "%s: not saved: the job's run changed while it was saved, twice; try again",
			    path);
}

int rw_checkpoint_save(struct rw_ctx *ctx, const char *path,
		       uint32_t timeout_ms, char *why, size_t whylen)
{
	unsigned char *buf = NULL;
	struct rw_ckpt_head h;
	char reason[256], *tmp;
	size_t len;
	int fd = -1, err;

	if (!ctx || !path || !path[0])
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "rw_checkpoint_save: no context or no path");
	err = rw_ckpt_create(path, &tmp, &fd, why, whylen);
	if (err)
		return err;
	err = rw_ckpt_fetch(ctx, path, timeout_ms, &buf, &h, why, whylen);
	if (err)
		goto err_tmp;
	len = rw_ckpt_file_len(&h);
	err = rw_ckpt_encode(&h, buf + RW_CKPT_IMAGE_OFF, buf, len, reason,
			     sizeof(reason));
	if (err) {
		err = rw_ckpt_fail(why, whylen, -EPROTO,
				   "%s: not saved: the module's checkpoint is inconsistent: %s",
				   path, reason);
		goto err_tmp;
	}
	err = rw_ckpt_commit(path, tmp, fd, buf, len, why, whylen);
	goto out;

err_tmp:
	close(fd);
	unlink(tmp);
out:
	free(buf);
	free(tmp);
	return err;
}

/* Which hyper-parameters differ, as "lr 0.01 in the file, 0.1 in the job". */
static void rw_ckpt_hparams_diff(const struct rw_ckpt_head *f,
				 const struct rw_ckpt_head *j, char *buf,
				 size_t len)
{
	size_t used = 0;
	float a, b;
	int i, n;

	buf[0] = '\0';
	for (i = 0; i < 6; i++) {
		if (f->hparams[i] == j->hparams[i])
			continue;
		memcpy(&a, &f->hparams[i], sizeof(a));
		memcpy(&b, &j->hparams[i], sizeof(b));
		n = snprintf(buf + used, len - used, "%s%s %g in the file, %g in the job",
			     used ? "; " : "", rw_ckpt_hparams[i], a, b);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
}

static const char *rw_ckpt_optim_str(uint32_t optim, char *buf, size_t len)
{
	const char *name = rw_ckpt_optim_name(optim);

	if (name)
		return name;
	snprintf(buf, len, "optim%" PRIu32, optim);
	return buf;
}

/* Whether the file's head @f fits the job's @j: 0, or -EINVAL and why. */
static int rw_ckpt_match(const char *path, const struct rw_ckpt_head *f,
			 const struct rw_ckpt_head *j, char *why, size_t whylen)
{
	char a[16], b[16], diff[512];

	if (f->layout_hash != j->layout_hash || f->nr_tensors != j->nr_tensors ||
	    f->nr_chunks != j->nr_chunks || f->chunk_size != j->chunk_size ||
	    f->params_len != j->params_len)
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "%s: another model layout: the file's %" PRIu32
				    " tensors in %" PRIu32 " chunks of %" PRIu32
				    " bytes (layout hash 0x%016" PRIx64 "), the job's %"
				    PRIu32 " tensors in %" PRIu32 " chunks of %" PRIu32
				    " bytes (0x%016" PRIx64 ")", path,
				    f->nr_tensors, f->nr_chunks, f->chunk_size,
				    (uint64_t)f->layout_hash, j->nr_tensors,
				    j->nr_chunks, j->chunk_size,
				    (uint64_t)j->layout_hash);
	if (f->optim != j->optim)
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "%s: another optimizer: the file's %s, the job's %s",
				    path, rw_ckpt_optim_str(f->optim, a, sizeof(a)),
				    rw_ckpt_optim_str(j->optim, b, sizeof(b)));
	rw_ckpt_hparams_diff(f, j, diff, sizeof(diff));
	if (diff[0])
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "%s: other hyper-parameters: %s", path, diff);
	if (f->nr_state != j->nr_state)
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "%s: another optimizer state: %" PRIu32
				    " arrays in the file, %" PRIu32 " in the job",
				    path, f->nr_state, j->nr_state);
	/* What is left (image_len, magic, ...) follows from the above. */
	if (!rw_ckpt_same_run(f, j))
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "%s: its head does not match the job's run", path);
	return 0;
}

int rw_checkpoint_restore(struct rw_ctx *ctx, const char *path, char *why,
			  size_t whylen)
{
	struct rw_ckpt_head file, job;
	struct rw_params_init pi;
	unsigned char *buf;
	char reason[256];
	size_t len = 0;
	void *image;
	int err;

	if (!ctx || !path || !path[0])
		return rw_ckpt_fail(why, whylen, -EINVAL,
				    "rw_checkpoint_restore: no context or no path");
	err = rw_ckpt_read_file(path, &buf, &len, why, whylen);
	if (err)
		return err;
	err = rw_ckpt_decode(buf, len, &file, &image, reason, sizeof(reason));
	if (err) {
		rw_ckpt_fail(why, whylen, err, "%s: %s", path, reason);
		goto out;
	}
	err = rw_ckpt_ioctl(ctx, &job, NULL, 0, 0);
	if (err) {
		rw_ckpt_fail(why, whylen, err, "%s: not restored: %s", path,
			     rw_ckpt_dev_why(err));
		goto out;
	}
	err = rw_ckpt_match(path, &file, &job, why, whylen);
	if (err)
		goto out;

	memset(&pi, 0, sizeof(pi));
	pi.size = sizeof(pi);
	pi.flags = RW_INIT_CHECKPOINT;
	pi.data = (uintptr_t)(buf + RW_CKPT_PREFIX_LEN);
	pi.len = sizeof(file) + file.image_len;
	err = rw_ioctl_once(ctx, RW_IOC_PARAMS_INIT, &pi);
	if (err == -EBUSY)
		rw_ckpt_fail(why, whylen, err,
			     "%s: not restored: the job's run has begun (a worker pushed) or its state was set already; restore into a new run, before its first push",
			     path);
	else if (err == -EINVAL)
		rw_ckpt_fail(why, whylen, err,
			     "%s: not restored: the module found the checkpoint not to match the job's run",
			     path);
	else if (err)
		rw_ckpt_fail(why, whylen, err, "%s: not restored: %s", path,
			     rw_ckpt_dev_why(err));
out:
	free(buf);
	return err;
}
