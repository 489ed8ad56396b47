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

static const struct {
	int err;
	const char *msg;
} rw_errors[] = {
	{ ENOENT, "RackWeave device not found (is the rackweave module loaded?)" },
	{ ENXIO, "RackWeave device node exists but no module is behind it" },
	{ ENODEV, "RackWeave device node exists but no module is behind it" },
	{ EACCES, "permission denied on the RackWeave device" },
	{ EPERM, "operation not permitted (CAP_SYS_ADMIN may be required)" },
	{ EPROTO, "the rackweave module speaks another ABI than this library" },
	{ ENOTTY, "not a RackWeave device, or the module does not know the request" },
	{ EINVAL, "invalid argument, or a request the module rejected as malformed" },
	{ ENOMEM, "out of memory" },
};

const char *rw_strerror(int err)
{
	const char *desc;
	size_t i;

	if (err < 0)
		err = -err;
	if (err == 0)
		return "success";

	for (i = 0; i < sizeof(rw_errors) / sizeof(rw_errors[0]); i++)
		if (rw_errors[i].err == err)
			return rw_errors[i].msg;

	desc = strerrordesc_np(err);
	return desc ? desc : "unknown error";
}
