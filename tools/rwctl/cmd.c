// SPDX-License-Identifier: GPL-2.0
/*
 * What every object's commands share: usage errors, numbers from the
 * command line, opening and closing the output in the mode -j/-p asked
 * for, and the module's status fetched and shown. cli.c dispatches to the
 * objects; the objects call these.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "print.h"
#include "rwctl.h"
#include "status.h"

int rwctl_usage_error(struct rwctl *ctl, const char *obj, const char *fmt, ...)
{
	va_list ap;

	fputs("rwctl: ", ctl->err);
	va_start(ap, fmt);
	vfprintf(ctl->err, fmt, ap);
	va_end(ap);
	fprintf(ctl->err, "\nTry 'rwctl %s%shelp'.\n", obj ? obj : "",
		obj ? " " : "");
	return RWCTL_EXIT_USAGE;
}

int rwctl_parse_u32(const char *what, const char *s, uint32_t min,
		    uint32_t max, uint32_t *val, char *msg, size_t msglen)
{
	unsigned long long v;
	char *end;

	/* strtoull() would take "-1", " 1" and "+1". */
	if (s[0] < '0' || s[0] > '9')
		goto bad;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		goto bad;
	if (errno == ERANGE || v < min || v > max) {
		snprintf(msg, msglen, "%s '%s' is out of range (%u..%u)", what,
			 s, min, max);
		return -EINVAL;
	}
	*val = (uint32_t)v;
	return 0;
bad:
	snprintf(msg, msglen, "%s '%s' is not a number", what, s);
	return -EINVAL;
}

int rwctl_parse_size(const char *what, const char *s, uint64_t *val,
		     char *msg, size_t msglen)
{
	static const struct {
		const char *unit;
		unsigned int shift;
	} units[] = {
		{ "", 0 }, { "b", 0 },
		{ "k", 10 }, { "kib", 10 },
		{ "m", 20 }, { "mib", 20 },
		{ "g", 30 }, { "gib", 30 },
		{ "t", 40 }, { "tib", 40 },
	};
	unsigned long long v;
	char *end;
	size_t i;

	if (s[0] < '0' || s[0] > '9')
		goto bad;
	errno = 0;
	v = strtoull(s, &end, 10);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(end, units[i].unit))
			break;
	if (i == sizeof(units) / sizeof(units[0]))
		goto bad;
	if (errno == ERANGE || v > (UINT64_MAX >> units[i].shift)) {
		snprintf(msg, msglen,
			 "%s '%s' is too large (a size must be below 16 EiB)",
			 what, s);
		return -ERANGE;
	}
	*val = (uint64_t)v << units[i].shift;
	return 0;
bad:
	snprintf(msg, msglen,
		 "%s '%s' is not a size: bytes, or a whole number with K, M, G or T (KiB, MiB, GiB, TiB)",
		 what, s);
	return -EINVAL;
}

void rwctl_begin_output(struct rwctl *ctl, struct rwctl_printer *p)
{
	rwctl_pr_init(p, ctl->out, (ctl->json ? RWCTL_PR_JSON : 0) |
				   (ctl->pretty ? RWCTL_PR_PRETTY : 0));
}

int rwctl_fetch_status(struct rwctl *ctl, struct rwctl_status *st)
{
	char msg[512] = "";
	int err;

	memset(st, 0, sizeof(*st));
	err = ctl->fetch(st, msg, sizeof(msg));
	if (err) {
		fprintf(ctl->err, "rwctl: %s\n", msg[0] ? msg : strerror(-err));
		rwctl_status_free(st);
		return RWCTL_EXIT_ERR;
	}
	return RWCTL_EXIT_OK;
}

int rwctl_end_output(struct rwctl *ctl, struct rwctl_printer *p)
{
	int err = rwctl_pr_end(p);

	if (err == -EIO) {
		fprintf(ctl->err, "rwctl: cannot write the output\n");
		return RWCTL_EXIT_ERR;
	}
	if (err) {
		/* A printing bug, not the user's problem; still say so. */
		fprintf(ctl->err, "rwctl: internal error: malformed output\n");
		return RWCTL_EXIT_ERR;
	}
	return RWCTL_EXIT_OK;
}

int rwctl_show(struct rwctl *ctl,
	       void (*print)(struct rwctl_printer *p,
			     const struct rwctl_status *st))
{
	struct rwctl_printer p;
	struct rwctl_status st;
	int ret;

	ret = rwctl_fetch_status(ctl, &st);
	if (ret)
		return ret;
	rwctl_begin_output(ctl, &p);
	print(&p, &st);
	rwctl_status_free(&st);
	return rwctl_end_output(ctl, &p);
}
