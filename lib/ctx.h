/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * The context shared by the library's files: what a struct rw_ctx holds,
 * which lock guards what, and the system-call helpers every file uses.
 * Not installed.
 */
#ifndef RW_LIB_CTX_H
#define RW_LIB_CTX_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rackweave.h>
#include <rackweave/uapi.h>
#include "../uapi/rackweave_sizes.h"

#include "model.h"

/* Stages of the one asynchronous transfer a context may hold. */
enum rw_async_stage {
	RW_ASYNC_NONE,		/* nothing pending */
	RW_ASYNC_ISSUING,	/* a start call owns the request */
	RW_ASYNC_PUSH,		/* push said EAGAIN: wait for POLLOUT */
	RW_ASYNC_PULL,		/* pull said EAGAIN: wait for POLLIN */
};

/*
 * The pending request. @stage is read and written under ctx->lock; while
 * it is not RW_ASYNC_NONE the rest belongs to the one thread that set it
 * (a start call, then the rw_wait() that set @waiting), which uses it
 * without the lock.
 */
struct rw_async {
	enum rw_async_stage stage;
	bool waiting;			/* a thread is inside rw_wait() */
	uint32_t flags;			/* the caller's RW_XFER_KEYS */
	uint32_t nr;
	struct rw_range *ranges;	/* library copy of @nr ranges */
	uint32_t cap;			/* entries allocated at @ranges */
};

/*
 * One open device. @fd is constant from rw_ctx_open() to rw_ctx_close()
 * and used without the lock. @lock guards every other field; nothing holds
 * it across a call that may sleep in the kernel (blocking transfers, poll).
 */
struct rw_ctx {
	int fd;
	pthread_mutex_t lock;

	/* Set once by a successful rw_attach(). */
	bool attached;
	uint32_t attach_flags;
	uint32_t rank;

	/* The declared tensors (rw_declare), nr == 0 before. */
	struct rw_model model;

	/* Set once by a successful rw_map(); unmapped by rw_ctx_close(). */
	bool mapped;
	struct rw_setup setup;
	void *grad;			/* NULL for observers */
	void *params;
	void *versions;

	uint32_t timeout_ms;		/* of blocking transfers; 0: none */
	struct rw_async async;
};

/* -errno after a failed system call, never 0 even if libc forgot errno. */
int rw_neg_errno(void);

/*
 * What the calling thread's latest call to fail with ENOENT did not find,
 * one of RW_ENOENT_*: rw_strerror(-ENOENT) says it instead of every cause
 * at once (error.c). Returns -ENOENT.
 */
int rw_enoent(const char *what);
#define RW_ENOENT_DEVICE "not found: the RackWeave device (is the rackweave module loaded? modprobe rackweave)"
#define RW_ENOENT_TOKEN	"not found: the token file"
#define RW_ENOENT_CKPT	"not found: the checkpoint file"
#define RW_ENOENT_JOB	"not found: the box has no job of that name (rwctl job list)"
#define RW_ENOENT_KEY	"not found: a tensor key that is not in the model's layout"
#define RW_ENOENT_RUN	"not found: the job has no run to check the model against (RW_DECLARE_VERIFY before any worker declared)"

/* ioctl() restarted on EINTR: only for requests without side effects. */
int rw_ioctl(struct rw_ctx *ctx, unsigned long req, void *arg);

/* ioctl() once: 0 or -errno, including -EINTR. */
int rw_ioctl_once(struct rw_ctx *ctx, unsigned long req, void *arg);

/* Release what rw_map() and the async code own (rw_ctx_close). */
void rw_map_release(struct rw_ctx *ctx);
void rw_async_release(struct rw_ctx *ctx);

#endif /* RW_LIB_CTX_H */
