// SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT
/*
 * Error messages in RackWeave's terms. strerror() says "No such file or
 * directory"; a user of this library needs to hear that the module is not
 * loaded. Codes without a RackWeave meaning fall back to the C library's
 * description, through strerrordesc_np(), which unlike strerror() returns a
 * static string and is therefore thread-safe.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rackweave.h>

#include "ctx.h"

static const struct {
	int err;
	const char *msg;
} rw_errors[] = {
	{ ENOENT, "not found: the file named (a token or checkpoint file), the RackWeave device (is the rackweave module loaded?), the job, or a tensor key" },
	{ ENXIO, "RackWeave device node exists but no module is behind it" },
	{ ENODEV, "the job was deleted (or no RackWeave module is behind the device node)" },
	{ EACCES, "access denied: wrong job token, or no permission on the RackWeave device" },
	{ EPERM, "not permitted: observers cannot declare, push or pull; job commands need CAP_NET_ADMIN" },
	{ EPROTO, "the rackweave module speaks another ABI than this library" },
	{ ENOTTY, "not a RackWeave device, or the module does not know the request" },
	{ EINVAL, "invalid argument, or a request the module rejected as malformed" },
	{ ENOMEM, "out of memory, in this process or on the box for the job's run (the module does not wake the OOM killer for one: declare again once memory is free)" },
	{ EDQUOT, "the job's run would need more memory than its max-memory allows (see rwctl job show JOB; raise it with rwctl policy set JOB max-memory SIZE; the box's kernel log has the figures)" },
	{ ENOSPC, "no room: not enough is left of the box's memory budget (the module's max_memory) for the job's run while other runs hold the rest (rwctl status), or no space left on the device a file is written to" },
	{ EADDRINUSE, "this rank is already attached to the job by another process" },
	{ ERANGE, "rank not below the job's worker count" },
	{ EXDEV, "the job is spread over several boxes: attach with rw_attach_remote_flags(RW_ATTACH_BOXES) naming every box of its set (rwctl topo show JOB on a box lists them); or the boxes named disagree on the set; or RW_ATTACH_BOXES named a job that is whole on one box" },
	{ EISCONN, "this context is attached already; open another one to attach again" },
	{ ENOTCONN, "not attached to a job, or no model layout declared or mapped yet" },
	{ EEXIST, "the job has a different model layout (keys, sizes, types and order must match)" },
	{ EOPNOTSUPP, "the module cannot aggregate this tensor type yet (only F32)" },
	{ E2BIG, "too many tensors, chunks or ranges for the module" },
	{ EOVERFLOW, "model too large: a size does not fit in 64 bits" },
	{ ESTALE, "this worker was evicted from the job; open a new context and attach again" },
	{ EALREADY, "a chunk was pushed twice in one iteration; nothing was pushed (pull first)" },
	{ EAGAIN, "the transfer would wait for other workers (poll the device and retry); at attach, a box of the job is still taking the chunks a move of its box set gave it (attach again in a moment)" },
	{ EINPROGRESS, "transfer pending; complete it with rw_wait()" },
	{ ETIMEDOUT, "timed out waiting for the job's other workers, or for a remote box to answer" },
	{ EINTR, "interrupted by a signal; a push may have happened (pushing again says EALREADY if so)" },
	{ ENOSYS, "NUMA is not available on this system" },
	{ ECONNRESET, "the connection to the remote box was lost; open a new context and attach again" },
	{ EHOSTUNREACH, "no RDMA route to the box's address (is an RDMA device on that network?)" },
	{ ECONNREFUSED, "nothing listens at the box's address and port (rwctl listen add on the box)" },
	{ EAFNOSUPPORT, "the box's address is neither IPv4 nor IPv6" },
};

/* The one cause of this thread's latest ENOENT (ctx.h), or NULL. */
static __thread const char *rw_enoent_what;

int rw_enoent(const char *what)
{
	rw_enoent_what = what;
	return -ENOENT;
}

const char *rw_strerror(int err)
{
	const char *desc;
	size_t i;

	if (err < 0)
		err = -err;
	if (err == 0)
		return "success";
	if (err == ENOENT && rw_enoent_what)
		return rw_enoent_what;

	for (i = 0; i < sizeof(rw_errors) / sizeof(rw_errors[0]); i++)
		if (rw_errors[i].err == err)
			return rw_errors[i].msg;

	desc = strerrordesc_np(err);
	return desc ? desc : "unknown error";
}
