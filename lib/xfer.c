// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * Push and pull: RW_IOC_PUSH, RW_IOC_PULL and RW_IOC_PUSHPULL, blocking or
 * not, and the asynchronous form built on the non-blocking one and poll().
 *
 * Locking: a blocking pull may sleep for a whole iteration of the slowest
 * worker, so no transfer holds the context lock across its ioctl; the lock
 * is taken only to read the timeout and to hand the one async slot over.
 * The module serialises what needs serialising.
 *
 * Signals: a blocking transfer is never restarted after EINTR. A pull
 * could be, but a caller whose handler set a "stop" flag wants to get
 * control back; and a pushpull interrupted while it waits for the pull
 * has pushed, which only the caller can sort out (a second push of the
 * same chunks fails with EALREADY if the first went through). The async
 * path issues only non-blocking requests, which the module interrupts
 * before they do anything, so it simply issues them again.
 *
 * Async: rw_pull_start() issues a non-blocking pull; on EAGAIN the library
 * keeps a copy of the request and rw_wait() polls the device (POLLIN: "the
 * last pull that returned EAGAIN would succeed now") and issues it again.
 * rw_pushpull_start() is a non-blocking push, then the same for the pull,
 * rather than one RW_IOC_PUSHPULL: after EAGAIN from a combined call the
 * library could not tell whether the push had happened, and issuing it
 * again would then push twice. A push that says EAGAIN pushed nothing
 * (uapi) and is retried once poll() reports POLLOUT.
 *
 * poll() may say "ready" while the request still cannot go through: the
 * module's POLLOUT looks only at chunks pushed in the current iteration,
 * not at a gate that has yet to admit the push, and another thread may
 * have raced us. After a few such wake-ups in a row rw_wait() backs off
 * (up to RW_WAIT_BACKOFF_MAX_US) rather than spin on the CPU the trainer
 * wants.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctx.h"

static int rw_xfer_check(const struct rw_range *r, uint32_t n, uint32_t flags)
{
	if (flags & ~RW_XFER_FLAGS_ALL)
		return -EINVAL;
	if (n && !r)
		return -EINVAL;
	if (n > RW_XFER_MAX_RANGES)
		return -E2BIG;
	return 0;
}

static int rw_xfer_ioctl(struct rw_ctx *ctx, unsigned long req,
			 const struct rw_range *r, uint32_t n, uint32_t flags,
			 uint32_t timeout_ms)
{
	struct rw_xfer x;

	memset(&x, 0, sizeof(x));
	x.size = sizeof(x);
	x.flags = flags;
	x.nr = n;
	x.timeout_ms = timeout_ms;
	x.ranges = n ? (uintptr_t)r : 0;
	return rw_ioctl_once(ctx, req, &x);
}

static int rw_xfer(struct rw_ctx *ctx, unsigned long req,
		   const struct rw_range *r, uint32_t n, uint32_t flags)
{
	uint32_t timeout_ms = 0;
	int err;

	if (!ctx)
		return -EINVAL;
	err = rw_xfer_check(r, n, flags);
	if (err)
		return err;
	if (!(flags & RW_XFER_NONBLOCK)) {
		pthread_mutex_lock(&ctx->lock);
		timeout_ms = ctx->timeout_ms;
		pthread_mutex_unlock(&ctx->lock);
	}
	return rw_xfer_ioctl(ctx, req, r, n, flags, timeout_ms);
}

int rw_push(struct rw_ctx *ctx, const struct rw_range *r, uint32_t n,
	    uint32_t flags)
{
	return rw_xfer(ctx, RW_IOC_PUSH, r, n, flags);
}

int rw_pull(struct rw_ctx *ctx, const struct rw_range *r, uint32_t n,
	    uint32_t flags)
{
	return rw_xfer(ctx, RW_IOC_PULL, r, n, flags);
}

int rw_pushpull(struct rw_ctx *ctx, const struct rw_range *r, uint32_t n,
		uint32_t flags)
{
	return rw_xfer(ctx, RW_IOC_PUSHPULL, r, n, flags);
}

int rw_params_init(struct rw_ctx *ctx, const void *buf, size_t len,
		   const struct rw_range *r, uint32_t n, uint32_t flags)
{
	struct rw_params_init pi;
	int err;

	/* The ranges and RW_INIT_KEYS are a transfer's (RW_XFER_KEYS). */
	if (!ctx || !buf || flags & ~RW_INIT_KEYS)
		return -EINVAL;
	err = rw_xfer_check(r, n, flags);
	if (err)
		return err;
	memset(&pi, 0, sizeof(pi));
	pi.size = sizeof(pi);
	pi.flags = flags;
	pi.nr = n;
	pi.ranges = n ? (uintptr_t)r : 0;
	pi.data = (uintptr_t)buf;
	pi.len = len;
	return rw_ioctl_once(ctx, RW_IOC_PARAMS_INIT, &pi);
}

int rw_params_wait(struct rw_ctx *ctx, uint32_t timeout_ms)
{
	struct rw_params_init pi;

	if (!ctx)
		return -EINVAL;
	memset(&pi, 0, sizeof(pi));
	pi.size = sizeof(pi);
	pi.flags = RW_INIT_WAIT;
	pi.timeout_ms = timeout_ms;
	return rw_ioctl_once(ctx, RW_IOC_PARAMS_INIT, &pi);
}

int rw_set_timeout(struct rw_ctx *ctx, uint32_t ms)
{
	if (!ctx)
		return -EINVAL;
	pthread_mutex_lock(&ctx->lock);
	ctx->timeout_ms = ms;
	pthread_mutex_unlock(&ctx->lock);
	return 0;
}

/* ---- asynchronous transfers ---- */

static void rw_async_set_stage(struct rw_ctx *ctx, enum rw_async_stage stage)
{
	pthread_mutex_lock(&ctx->lock);
	ctx->async.stage = stage;
	pthread_mutex_unlock(&ctx->lock);
}

/*
 * Take the context's one async slot and copy the request into it: the
 * caller's array need not outlive the start call.
 */
static int rw_async_claim(struct rw_ctx *ctx, const struct rw_range *r,
			  uint32_t n, uint32_t flags)
{
	struct rw_async *a = &ctx->async;
	struct rw_range *ranges;

	pthread_mutex_lock(&ctx->lock);
	if (a->stage != RW_ASYNC_NONE) {
		pthread_mutex_unlock(&ctx->lock);
		return -EBUSY;
	}
	a->stage = RW_ASYNC_ISSUING;
	pthread_mutex_unlock(&ctx->lock);

	/* The slot is ours now: the rest of *a is used without the lock. */
	if (n > a->cap) {
		ranges = realloc(a->ranges, n * sizeof(*ranges));
		if (!ranges) {
			rw_async_set_stage(ctx, RW_ASYNC_NONE);
			return -ENOMEM;
		}
		a->ranges = ranges;
		a->cap = n;
	}
	if (n)
		memcpy(a->ranges, r, n * sizeof(*r));
	a->nr = n;
	a->flags = flags & ~RW_XFER_NONBLOCK;
	return 0;
}

/*
 * Issue the pending request from *@stage on without sleeping: 0 when the
 * pull is done; -EAGAIN with *@stage what to wait for; or the error.
 */
static int rw_async_issue(struct rw_ctx *ctx, enum rw_async_stage *stage)
{
	const struct rw_async *a = &ctx->async;
	unsigned long req;
	int err;

	for (;;) {
		req = *stage == RW_ASYNC_PUSH ? RW_IOC_PUSH : RW_IOC_PULL;
		/*
		 * A non-blocking request never sleeps, so EINTR can only
		 * mean it was interrupted before doing anything: issue again.
		 */
		do {
			err = rw_xfer_ioctl(ctx, req, a->ranges, a->nr,
					    a->flags | RW_XFER_NONBLOCK, 0);
		} while (err == -EINTR);
		if (err || *stage == RW_ASYNC_PULL)
			return err;
		*stage = RW_ASYNC_PULL;
	}
}

static int rw_async_start(struct rw_ctx *ctx, const struct rw_range *r,
			  uint32_t n, uint32_t flags, enum rw_async_stage stage)
{
	int err;

	if (!ctx)
		return -EINVAL;
	err = rw_xfer_check(r, n, flags);
	if (err)
		return err;
	err = rw_async_claim(ctx, r, n, flags);
	if (err)
		return err;

	err = rw_async_issue(ctx, &stage);
	if (err == -EAGAIN) {
		rw_async_set_stage(ctx, stage);
		return -EINPROGRESS;
	}
	rw_async_set_stage(ctx, RW_ASYNC_NONE);
	return err;
}

int rw_pull_start(struct rw_ctx *ctx, const struct rw_range *r, uint32_t n,
		  uint32_t flags)
{
	return rw_async_start(ctx, r, n, flags, RW_ASYNC_PULL);
}

int rw_pushpull_start(struct rw_ctx *ctx, const struct rw_range *r,
		      uint32_t n, uint32_t flags)
{
	return rw_async_start(ctx, r, n, flags, RW_ASYNC_PUSH);
}

#define RW_WAIT_BACKOFF_US	100
#define RW_WAIT_BACKOFF_MAX_US	2000

/* Sleep a little longer after each fruitless wake-up, never past @left_ms. */
static void rw_wait_backoff(unsigned int spins, int left_ms)
{
	long us = (long)spins * RW_WAIT_BACKOFF_US;
	struct timespec ts;

	if (us > RW_WAIT_BACKOFF_MAX_US)
		us = RW_WAIT_BACKOFF_MAX_US;
	if (left_ms >= 0 && us > (long)left_ms * 1000)
		us = (long)left_ms * 1000;
	ts.tv_sec = 0;
	ts.tv_nsec = us * 1000;
	nanosleep(&ts, NULL);
}

static int64_t rw_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds poll() may wait before @deadline; -1 without a deadline. */
static int rw_wait_left(int timeout_ms, int64_t deadline)
{
	int64_t left;

	if (timeout_ms < 0)
		return -1;
	left = deadline - rw_now_ms();
	return left > 0 ? (int)left : 0;
}

int rw_wait(struct rw_ctx *ctx, int timeout_ms)
{
	struct rw_async *a;
	enum rw_async_stage stage, prev;
	unsigned int spins = 0;
	struct pollfd pfd;
	bool keep = false;
	int64_t deadline;
	int err, ret;

	if (!ctx)
		return -EINVAL;
	a = &ctx->async;

	pthread_mutex_lock(&ctx->lock);
	stage = a->stage;
	if (stage == RW_ASYNC_NONE) {
		pthread_mutex_unlock(&ctx->lock);
		return 0;
	}
	if (stage == RW_ASYNC_ISSUING || a->waiting) {
		pthread_mutex_unlock(&ctx->lock);
		return -EBUSY;
	}
	a->waiting = true;
	pthread_mutex_unlock(&ctx->lock);

	deadline = rw_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	for (;;) {
		pfd.fd = ctx->fd;
		pfd.events = stage == RW_ASYNC_PUSH ? POLLOUT : POLLIN;
		pfd.revents = 0;
		ret = poll(&pfd, 1, rw_wait_left(timeout_ms, deadline));
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret <= 0) {
			/* The request is intact: a later rw_wait() resumes it. */
			err = ret < 0 ? rw_neg_errno() : -ETIMEDOUT;
			keep = true;
			break;
		}
		prev = stage;
		err = rw_async_issue(ctx, &stage);
		if (err != -EAGAIN)
			break;
		/* An error condition that the request itself does not report. */
		if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL)) {
			err = -EIO;
			break;
		}
		if (timeout_ms >= 0 && rw_wait_left(timeout_ms, deadline) == 0) {
			err = -ETIMEDOUT;
			keep = true;
			break;
		}
		/* The push went through: a wait for the pull is progress. */
		spins = stage == prev ? spins + 1 : 0;
		if (spins > 1)
			rw_wait_backoff(spins - 1, rw_wait_left(timeout_ms, deadline));
	}

	pthread_mutex_lock(&ctx->lock);
	a->waiting = false;
	a->stage = keep ? stage : RW_ASYNC_NONE;
	pthread_mutex_unlock(&ctx->lock);
	return err;
}

void rw_async_release(struct rw_ctx *ctx)
{
	free(ctx->async.ranges);
	memset(&ctx->async, 0, sizeof(ctx->async));
}
