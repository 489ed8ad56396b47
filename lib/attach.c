// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * Joining a job: RW_IOC_ATTACH with the job's name, token and this
 * worker's rank (and, for a job on another host, its box's address), then
 * RW_IOC_DECLARE with the model's tensors.
 *
 * The library checks what it can say more precisely than the module (a
 * name that does not fit, unknown flags) and leaves the rest to the module,
 * which owns the job. Both calls run under the context lock: they are
 * short, and holding it keeps "attached" and "declared" in step with what
 * the module knows.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"

/* The request without the box's address: 0 or -EINVAL. */
static int rw_attach_fill(struct rw_attach *a, const char *job,
			  const uint8_t *token, uint32_t rank, uint32_t flags)
{
	size_t len;

	if (!job || !token)
		return -EINVAL;
	len = strnlen(job, sizeof(a->job));
	if (len == 0 || len >= sizeof(a->job))
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->flags = flags;
	memcpy(a->job, job, len);
	memcpy(a->token, token, sizeof(a->token));
	a->rank = rank;
	return 0;
}

/*
 * "ADDR", "ADDR:PORT", "[ADDR6]" or "[ADDR6]:PORT" (a bare IPv6 address
 * too), @box_len bytes of @box: one listener of the box into @a. 0 or
 * -EINVAL.
 */
static int rw_attach_parse_one(struct rw_attach_addr *a, const char *box,
			       size_t box_len)
{
	char host[INET6_ADDRSTRLEN + 2], one[INET6_ADDRSTRLEN + 16];
	const char *port = NULL, *close;
	unsigned long p = 0;
	size_t len;
	char *end;

	if (!box_len || box_len >= sizeof(one))
		return -EINVAL;
	memcpy(one, box, box_len);
	one[box_len] = 0;
	box = one;
	if (box[0] == '[') {
		close = strchr(box, ']');
		if (!close || (close[1] && close[1] != ':'))
			return -EINVAL;
		len = (size_t)(close - box - 1);
		if (len >= sizeof(host))
			return -EINVAL;
		memcpy(host, box + 1, len);
		host[len] = 0;
		if (close[1] == ':')
			port = close + 2;
	} else {
		const char *colon = strchr(box, ':');

		/* One colon: ADDR:PORT; more: a bare IPv6 address. */
		if (colon && !strchr(colon + 1, ':')) {
			len = (size_t)(colon - box);
			port = colon + 1;
		} else {
			len = strlen(box);
		}
		if (len >= sizeof(host))
			return -EINVAL;
		memcpy(host, box, len);
		host[len] = 0;
	}
	if (port) {
		if (!*port || *port == '-' || *port == '+')
			return -EINVAL;
		errno = 0;
		p = strtoul(port, &end, 10);
		if (errno || *end || p == 0 || p > 65535)
			return -EINVAL;
	}
	a->port = (uint16_t)p;
	if (inet_pton(AF_INET, host, a->addr) == 1) {
		a->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, host, a->addr) == 1) {
		a->family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

/*
 * The box's listeners, one per NIC, separated by commas: the first into
 * @a, the others into @more (RW_WIRE_MAX_NICS - 1 entries), which @a
 * then points to. 0 or -EINVAL.
 */
static int rw_attach_parse_box(struct rw_attach *a, const char *box,
			       struct rw_attach_addr *more)
{
	struct rw_attach_addr first;
	const char *comma;
	uint32_t n = 0;
	size_t len;
	int err;

	if (!box)
		return -EINVAL;
	memset(&first, 0, sizeof(first));
	for (;;) {
		comma = strchr(box, ',');
		len = comma ? (size_t)(comma - box) : strlen(box);
		if (n == RW_WIRE_MAX_NICS)
			return -EINVAL;
		err = rw_attach_parse_one(n ? &more[n - 1] : &first, box, len);
		if (err)
			return err;
		n++;
		if (!comma)
			break;
		box = comma + 1;
	}
	a->box_family = first.family;
	a->box_port = first.port;
	memcpy(a->box_addr, first.addr, sizeof(a->box_addr));
	if (n > 1) {
		a->box_more = (uintptr_t)more;
		a->nr_box_more = n - 1;
	}
	return 0;
}

static int rw_attach_send(struct rw_ctx *ctx, struct rw_attach *a)
{
	int err;

	pthread_mutex_lock(&ctx->lock);
	if (ctx->attached) {
		err = -EISCONN;
		goto out;
	}
	err = rw_ioctl(ctx, RW_IOC_ATTACH, a);
	if (err)
		goto out;
	ctx->attached = true;
	ctx->attach_flags = a->flags;
	ctx->rank = a->rank;
out:
	pthread_mutex_unlock(&ctx->lock);
	explicit_bzero(a, sizeof(*a));
	return err;
}

int rw_attach_remote_flags(struct rw_ctx *ctx, const char *job,
			   const uint8_t *token, uint32_t rank,
			   const char *box, uint32_t flags)
{
	struct rw_attach_addr more[RW_WIRE_MAX_NICS - 1];
	struct rw_attach a;
	int err;

	if (!ctx || (flags & ~(RW_ATTACH_OBSERVER | RW_ATTACH_BOXES)))
		return -EINVAL;
	memset(more, 0, sizeof(more));
	err = rw_attach_fill(&a, job, token, rank, RW_ATTACH_REMOTE | flags);
	if (!err)
		err = rw_attach_parse_box(&a, box, more);
	if (err) {
		explicit_bzero(&a, sizeof(a));
		return err;
	}
	return rw_attach_send(ctx, &a);
}

int rw_attach_remote(struct rw_ctx *ctx, const char *job,
		     const uint8_t *token, uint32_t rank, const char *box)
{
	return rw_attach_remote_flags(ctx, job, token, rank, box, 0);
}

int rw_attach(struct rw_ctx *ctx, const char *job, const uint8_t *token,
	      uint32_t rank, uint32_t flags)
{
	struct rw_attach a;
	int err;

	/* A remote job needs its box's address: rw_attach_remote(). */
	if (!ctx || (flags & ~RW_ATTACH_OBSERVER))
		return -EINVAL;
	err = rw_attach_fill(&a, job, token, rank, flags);
	if (err)
		return err;
	return rw_attach_send(ctx, &a);
}

/*
 * Observers may not declare (the module says EPERM), yet they need the
 * layout to find tensors in the parameters they map: for them the layout
 * is only recorded, and rw_map() compares it with the module's. A remote
 * observer's declaration goes to its host's module, which has the box
 * check it and sizes this host's copy of the parameters by it.
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
	if (!(ctx->attach_flags & RW_ATTACH_OBSERVER) ||
	    ctx->attach_flags & RW_ATTACH_REMOTE) {
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
