/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * librackweave: the user-space interface to the RackWeave kernel module.
 *
 * Every function returns 0 (or a non-negative value where documented) on
 * success and a negative errno on failure; errno is never part of the API.
 * There is no global state: a struct rw_ctx belongs to whoever opened it and
 * distinct contexts may be used from distinct threads without locking. One
 * context may also be shared by several threads: a mutex inside it guards
 * its state, and a blocking push or pull sleeps in the kernel without
 * holding it. The caller's own lock is needed only around rw_ctx_close().
 *
 * A worker's life: rw_ctx_open, rw_attach (job name, token, rank),
 * rw_declare (the model's tensors), rw_map (the shared buffers), then per
 * iteration rw_pull, compute into the gradient buffer, rw_push.
 *
 * The numbers shared with the kernel (ioctl structs, feature bits, netlink
 * family) come from <rackweave/uapi.h>, included here, and are documented in
 * its opening comment.
 */
#ifndef RACKWEAVE_H
#define RACKWEAVE_H

#include <stddef.h>
#include <stdint.h>
#include <rackweave/uapi.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Version of librackweave: RackWeave releases the module, the library and
 * rwctl together, so it is the release's, RW_VERSION_* of the uapi header
 * (the one source of the version). The soname (librackweave.so.0) and the
 * symbol versions (RACKWEAVE_0.1, ...) track the ABI, not the release.
 */
#define RW_LIB_VERSION_MAJOR	RW_VERSION_MAJOR
#define RW_LIB_VERSION_MINOR	RW_VERSION_MINOR
#define RW_LIB_VERSION_PATCH	RW_VERSION_PATCH

/* An open handle on the RackWeave character device. Opaque. */
struct rw_ctx;

/*
 * Open the character device at @path (NULL: RW_DEV_PATH) read-write and
 * close-on-exec. On success *@ctx is a new context; on failure it is NULL.
 */
int rw_ctx_open(struct rw_ctx **ctx, const char *path);

/* Close the device and free @ctx. NULL is ignored. */
void rw_ctx_close(struct rw_ctx *ctx);

/* The device file descriptor (>= 0), owned by @ctx, or -EINVAL. */
int rw_ctx_fd(const struct rw_ctx *ctx);

/*
 * Ask the module for its version, ABI and features (RW_IOC_VERSION). Fails
 * with -EPROTO if the module speaks another ABI than RW_ABI_VERSION. *@out is
 * written only on success.
 */
int rw_ctx_version(struct rw_ctx *ctx, struct rw_version_info *out);

/*
 * A sentence describing @err (negative or positive errno) in terms of
 * RackWeave, e.g. -ENOENT: the device node is missing. Never NULL; the
 * string is static and safe to use from any thread.
 */
const char *rw_strerror(int err);

/* ---- RACKWEAVE_0.2: jobs, shared buffers, push and pull ---- */

/*
 * Read a job token from @path: either exactly RW_JOB_TOKEN_LEN raw bytes
 * (what `rwctl job add ... token-file PATH` takes) or 2 * RW_JOB_TOKEN_LEN
 * hex digits with an optional trailing newline (what rwctl prints).
 * -EINVAL for anything else; -errno from open() or read(). @token is
 * written on success only.
 */
int rw_token_read(const char *path, uint8_t token[RW_JOB_TOKEN_LEN]);

/*
 * Bind @ctx to job @job as the worker of rank @rank, or with
 * RW_ATTACH_OBSERVER (rank 0) as a read-only observer (RW_IOC_ATTACH).
 * -EACCES wrong token, -ENOENT no such job, -ERANGE rank too high,
 * -EADDRINUSE rank taken, -EISCONN already attached.
 */
int rw_attach(struct rw_ctx *ctx, const char *job, const uint8_t *token,
	      uint32_t rank, uint32_t flags);

/* ---- RACKWEAVE_0.3: jobs on another host ---- */

/*
 * Bind @ctx to job @job on the box at @box ("ADDR", "ADDR:PORT",
 * "[ADDR6]:PORT"; the port defaults to RW_WIRE_PORT) as the worker of
 * rank @rank: the module here connects to the box over RDMA
 * (RW_ATTACH_REMOTE). A box with several NICs: one address per NIC,
 * separated by commas, one connection each, chunk c on connection
 * c % count. Everything after works as for a local job, with this
 * host's memory behind the mappings. -EINVAL for an address that does not
 * parse; the box's refusal (-EACCES for an unknown job or a wrong token,
 * -ERANGE, -EADDRINUSE); -EHOSTUNREACH, -ETIMEDOUT or -ECONNREFUSED when
 * no box answers there. A lost connection later makes every call fail
 * with -ECONNRESET.
 */
int rw_attach_remote(struct rw_ctx *ctx, const char *job,
		     const uint8_t *token, uint32_t rank, const char *box);

/*
 * RACKWEAVE_0.5: rw_attach_remote() with @flags: 0 (a worker), or
 * RW_ATTACH_OBSERVER (rank 0, one box address): the job's read-only
 * observer on another host. After rw_declare() and rw_map() it maps this
 * host's copy of the parameters and versions, which the box refreshes
 * within RW_WIRE_OBSERVE_MS of a step (uapi "Observers"); it may save
 * and restore checkpoints, not push or pull (-EPERM). Its rw_declare()
 * asks the box to check the layout (-ENOTCONN: the job has no run yet;
 * -EEXIST: another layout).
 */
int rw_attach_remote_flags(struct rw_ctx *ctx, const char *job,
			   const uint8_t *token, uint32_t rank,
			   const char *box, uint32_t flags);

/*
 * Declare the model: @n tensors in the order they lie in the flat buffer
 * (RW_IOC_DECLARE; RW_DECLARE_VERIFY only checks). The library keeps a
 * copy to locate tensors (rw_tensor). Reserved fields of @t are ignored
 * and sent as zero. An observer cannot declare: on an observer the call
 * only records the layout, and rw_map checks it against the job's.
 * -EEXIST: the job has another layout.
 */
int rw_declare(struct rw_ctx *ctx, const struct rw_tensor_desc *t,
	       uint32_t n, uint32_t flags);

/*
 * RW_IOC_SETUP, then map the gradient buffer (read-write) and the
 * parameters and versions (read-only), all MAP_SHARED; observers map no
 * gradient buffer. The mappings live until rw_ctx_close(). Mapping an
 * already mapped context does nothing and returns 0.
 */
int rw_map(struct rw_ctx *ctx);

/* The job's geometry now (RW_IOC_SETUP), whether or not @ctx is mapped. */
int rw_setup_get(struct rw_ctx *ctx, struct rw_setup *out);

/* Where one declared tensor lies, once rw_map() has succeeded. */
struct rw_tensor_view {
	uint64_t key;
	uint64_t nelems;
	uint64_t offset;	/* bytes from the start of the flat buffer */
	uint32_t dtype;		/* RW_DTYPE_* */
	uint32_t first_chunk;	/* chunks [first_chunk, first_chunk + nr_chunks) */
	uint32_t nr_chunks;	/*   hold the tensor (for struct rw_range) */
	void *grad;		/* in the gradient buffer; NULL for observers */
	const void *params;	/* in the parameter buffer */
};

/* Fill *@v for tensor @key: -ENOENT unknown key, -ENOTCONN not mapped. */
int rw_tensor(struct rw_ctx *ctx, uint64_t key, struct rw_tensor_view *v);

/*
 * @n elements of a tensor of @dtype (RW_DTYPE_*) to float, and float to
 * it: for trainers that compute in float on a 16-bit model. Widening is
 * exact; narrowing rounds to nearest, ties to even, as the box publishes
 * 16-bit parameters (a NaN stays a NaN, quiet; past the largest finite
 * value, infinity). F32 copies. 0, or -EINVAL for an unknown @dtype.
 */
int rw_dtype_to_float(float *dst, const void *src, size_t n, uint32_t dtype);
int rw_dtype_from_float(void *dst, const float *src, size_t n,
			uint32_t dtype);

/*
 * The versions buffer: entry c counts the optimizer steps applied to chunk
 * c (setup.nr_chunks entries). NULL until rw_map() has succeeded.
 */
const volatile uint64_t *rw_versions(struct rw_ctx *ctx);

/*
 * Transfers (RW_IOC_PUSH, _PULL, _PUSHPULL) of @n ranges at @r, chunk
 * ranges or, with RW_XFER_KEYS, whole tensors (first = key, count = 0);
 * @n == 0 means every chunk. With RW_XFER_NONBLOCK, -EAGAIN instead of
 * sleeping. A blocking call waits at most the context's timeout
 * (rw_set_timeout; default none), then -ETIMEDOUT. A signal ends the wait
 * with -EINTR.
 */
int rw_push(struct rw_ctx *ctx, const struct rw_range *r, uint32_t n,
	    uint32_t flags);
int rw_pull(struct rw_ctx *ctx, const struct rw_range *r, uint32_t n,
	    uint32_t flags);
int rw_pushpull(struct rw_ctx *ctx, const struct rw_range *r, uint32_t n,
		uint32_t flags);

/*
 * Initial parameters of the run (RW_IOC_PARAMS_INIT): before anyone's
 * first push, copy the chunks @r selects (@n 0: all; RW_INIT_KEYS: tensor
 * keys) from @buf, @len bytes laid out as the parameter buffer (@len =
 * setup.params_len). Once per run: then -EBUSY. rw_params_wait() blocks
 * until some worker set them or the run began (@timeout_ms, 0: no limit).
 */
int rw_params_init(struct rw_ctx *ctx, const void *buf, size_t len,
		   const struct rw_range *r, uint32_t n, uint32_t flags);
int rw_params_wait(struct rw_ctx *ctx, uint32_t timeout_ms);

/*
 * Checkpoints (docs/checkpoint.md). rw_checkpoint_save() writes the job's
 * parameters, optimizer state and chunk versions, taken between
 * iterations (RW_IOC_CHECKPOINT; @timeout_ms bounds the wait for the
 * iterations in flight, 0: none), to @path: through @path.tmp, fsynced
 * and renamed, so @path is the old file or the whole new one.
 * rw_checkpoint_restore() checks the file at @path whole (magic, format,
 * lengths, checksum) and against the job's run (layout, optimizer,
 * hyper-parameters), then loads it (RW_IOC_PARAMS_INIT with
 * RW_INIT_CHECKPOINT): before the run's first push, once; -EBUSY after.
 * rw_checkpoint_head() reads and checks only a file's head and length
 * (no checksum, no device): its step, and *@file_len (may be NULL).
 * Each returns 0 or a negative errno (-EINVAL: a bad file, or one of
 * another run) and then, if @why is not NULL, writes one line naming
 * @path and what is wrong; a failure changes neither the job nor @path.
 */
int rw_checkpoint_save(struct rw_ctx *ctx, const char *path,
		       uint32_t timeout_ms, char *why, size_t whylen);
int rw_checkpoint_restore(struct rw_ctx *ctx, const char *path, char *why,
			  size_t whylen);
int rw_checkpoint_head(const char *path, struct rw_ckpt_head *head,
		       uint64_t *file_len, char *why, size_t whylen);

/*
 * The head a checkpoint of the job's run would have now (RW_IOC_CHECKPOINT
 * with RW_CKPT_HEAD_ONLY; over RDMA too): its layout hash, optimizer and
 * hyper-parameters, state arrays, lengths and step. 0, or -ENOTCONN (no
 * run yet) or another negative errno.
 */
int rw_job_head(struct rw_ctx *ctx, struct rw_ckpt_head *head);

/* Limit every later blocking transfer on @ctx to @ms milliseconds (0: none). */
int rw_set_timeout(struct rw_ctx *ctx, uint32_t ms);

/*
 * Asynchronous transfers for event loops: issue without sleeping; 0 if the
 * transfer is complete, -EINPROGRESS if the library now holds it pending
 * (one per context; -EBUSY while another is), another -errno if it failed.
 * rw_pushpull_start pushes, then pulls. A pending transfer is finished by
 * rw_wait(), which polls rw_ctx_fd() and re-issues it.
 */
int rw_pull_start(struct rw_ctx *ctx, const struct rw_range *r, uint32_t n,
		  uint32_t flags);
int rw_pushpull_start(struct rw_ctx *ctx, const struct rw_range *r,
		      uint32_t n, uint32_t flags);

/*
 * Complete the pending transfer: 0 when done (or if none is pending),
 * -ETIMEDOUT after @timeout_ms (< 0: no limit; the transfer stays
 * pending), or the transfer's error (it is dropped).
 */
int rw_wait(struct rw_ctx *ctx, int timeout_ms);

/*
 * Run the calling thread on the NUMA node holding most of the job's memory
 * (setup.node) and prefer that node for its allocations. 0 without change
 * if the job has no preferred node; -ENOSYS without NUMA support.
 */
int rw_bind_numa(struct rw_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* RACKWEAVE_H */
