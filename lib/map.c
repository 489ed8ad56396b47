// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * The shared buffers. As with io_uring, the module reports the geometry
 * and the mmap offsets (RW_IOC_SETUP) and every pointer the library hands
 * out is derived from that reply: the library never assumes RW_MMAP_*
 * itself. The reply is checked against the invariants the uapi header
 * states before anything is mapped, so a confused module cannot make the
 * library point past a buffer.
 *
 * The pages are the chunk engine's own: the parameters change under the
 * reader whenever an optimizer step lands (which is why they are mapped
 * read-only and the versions are volatile), and the gradient buffer is
 * read by the engine after a push.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ctx.h"

static int rw_setup_fetch(struct rw_ctx *ctx, struct rw_setup *out)
{
	struct rw_setup s;
	int err;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	err = rw_ioctl(ctx, RW_IOC_SETUP, &s);
	if (!err)
		*out = s;
	return err;
}

int rw_setup_get(struct rw_ctx *ctx, struct rw_setup *out)
{
	if (!ctx || !out)
		return -EINVAL;
	return rw_setup_fetch(ctx, out);
}

/* The uapi header's promises about a setup reply; -EPROTO if broken. */
static int rw_setup_check(const struct rw_setup *s, bool observer)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t buf = (uint64_t)s->nr_chunks * s->chunk_size;

	if (!s->chunk_size || (s->chunk_size & (s->chunk_size - 1)) ||
	    !s->nr_chunks || !s->nr_tensors)
		return -EPROTO;
	if (!s->model_bytes || s->model_bytes > buf ||
	    s->model_bytes <= buf - s->chunk_size)
		return -EPROTO;
	if (s->params_len != buf || (!observer && s->grad_len != buf))
		return -EPROTO;
	if (s->versions_len / sizeof(uint64_t) < s->nr_chunks)
		return -EPROTO;
	if ((s->grad_offset | s->params_offset | s->versions_offset) & (page - 1))
		return -EPROTO;
	return 0;
}

/* mmap() of one buffer; NULL and *err on failure. */
static void *rw_map_one(struct rw_ctx *ctx, uint64_t off, uint64_t len,
			int prot, int *err)
{
	void *p;

	p = mmap(NULL, len, prot, MAP_SHARED, ctx->fd, (off_t)off);
	if (p == MAP_FAILED) {
		*err = rw_neg_errno();
		return NULL;
	}
	return p;
}

int rw_map(struct rw_ctx *ctx)
{
	void *grad = NULL, *params, *versions;
	struct rw_setup s;
	bool observer;
	int err = 0;

	if (!ctx)
		return -EINVAL;

	pthread_mutex_lock(&ctx->lock);
	if (ctx->mapped)
		goto out;
	if (!ctx->attached) {
		err = -ENOTCONN;
		goto out;
	}
	observer = ctx->attach_flags & RW_ATTACH_OBSERVER;

	err = rw_setup_fetch(ctx, &s);
	if (err)
		goto out;
	err = rw_setup_check(&s, observer);
	if (err)
		goto out;
	/* What this process declared must be what the module laid out. */
	if (ctx->model.nr && (ctx->model.nr != s.nr_tensors ||
			      ctx->model.bytes != s.model_bytes)) {
		err = -EEXIST;
		goto out;
	}

	if (!observer) {
		grad = rw_map_one(ctx, s.grad_offset, s.grad_len,
				  PROT_READ | PROT_WRITE, &err);
		if (!grad)
			goto out;
	}
	params = rw_map_one(ctx, s.params_offset, s.params_len, PROT_READ, &err);
	if (!params)
		goto err_grad;
	versions = rw_map_one(ctx, s.versions_offset, s.versions_len,
			      PROT_READ, &err);
	if (!versions)
		goto err_params;

	ctx->setup = s;
	ctx->grad = grad;
	ctx->params = params;
	ctx->versions = versions;
	ctx->mapped = true;
	goto out;

err_params:
	munmap(params, s.params_len);
err_grad:
	if (grad)
		munmap(grad, s.grad_len);
out:
	pthread_mutex_unlock(&ctx->lock);
	return err;
}

void rw_map_release(struct rw_ctx *ctx)
{
	if (!ctx->mapped)
		return;
	if (ctx->grad)
		munmap(ctx->grad, ctx->setup.grad_len);
	munmap(ctx->params, ctx->setup.params_len);
	munmap(ctx->versions, ctx->setup.versions_len);
	ctx->grad = ctx->params = ctx->versions = NULL;
	ctx->mapped = false;
}

int rw_tensor(struct rw_ctx *ctx, uint64_t key, struct rw_tensor_view *v)
{
	uint64_t off, len, cs;
	uint32_t idx;
	int err;

	if (!ctx || !v)
		return -EINVAL;

	pthread_mutex_lock(&ctx->lock);
	if (!ctx->mapped || !ctx->model.nr) {
		err = -ENOTCONN;
		goto out;
	}
	err = rw_model_find(&ctx->model, key, &idx);
	if (err == -ENOENT)
		rw_enoent(RW_ENOENT_KEY);
	if (err)
		goto out;

	off = ctx->model.offsets[idx];
	len = ctx->model.t[idx].nelems * rw_dtype_size(ctx->model.t[idx].dtype);
	cs = ctx->setup.chunk_size;
	v->key = key;
	v->nelems = ctx->model.t[idx].nelems;
	v->offset = off;
	v->dtype = ctx->model.t[idx].dtype;
	v->first_chunk = (uint32_t)(off / cs);
	v->nr_chunks = (uint32_t)((off + len - 1) / cs - off / cs + 1);
	v->grad = ctx->grad ? (char *)ctx->grad + off : NULL;
	v->params = (const char *)ctx->params + off;
out:
	pthread_mutex_unlock(&ctx->lock);
	return err;
}

const volatile uint64_t *rw_versions(struct rw_ctx *ctx)
{
	const volatile uint64_t *v;

	if (!ctx)
		return NULL;
	pthread_mutex_lock(&ctx->lock);
	v = ctx->mapped ? ctx->versions : NULL;
	pthread_mutex_unlock(&ctx->lock);
	return v;
}
