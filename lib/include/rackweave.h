/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * librackweave: the user-space interface to the RackWeave kernel module.
 *
 * Every function returns 0 (or a non-negative value where documented) on
 * success and a negative errno on failure; errno is never part of the API.
 * There is no global state: a struct rw_ctx belongs to whoever opened it and
 * distinct contexts may be used from distinct threads without locking. One
 * context used from several threads needs the caller's own lock only around
 * rw_ctx_close().
 *
 * The numbers shared with the kernel (ioctl structs, feature bits, netlink
 * family) come from <rackweave/uapi.h>, included here, and are documented in
 * its opening comment.
 */
#ifndef RACKWEAVE_H
#define RACKWEAVE_H

#include <rackweave/uapi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of librackweave itself, distinct from the module's RW_VERSION_*. */
#define RW_LIB_VERSION_MAJOR	0
#define RW_LIB_VERSION_MINOR	1
#define RW_LIB_VERSION_PATCH	0

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

#ifdef __cplusplus
}
#endif

#endif /* RACKWEAVE_H */
