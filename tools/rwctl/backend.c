// SPDX-License-Identifier: GPL-2.0
/*
 * What every command on a job (job, policy, topo, stats) shares: the
 * backend it asks, the check of the job name it makes before asking, and
 * the module's refusals worded for the user.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rackweave.h>

#include "backend.h"
#include "genl.h"
#include "rwctl.h"

int rwctl_job_check_name(const char *name, char *msg, size_t msglen)
{
	size_t len = strlen(name), i;
	unsigned char c;

	if (!len)
		return rwctl_genl_fail(msg, msglen, -EINVAL,
				       "job name is empty");
	if (len > RW_JOB_NAME_MAX - 1)
		return rwctl_genl_fail(msg, msglen, -EINVAL,
				       "job name '%s' is too long (%zu bytes; at most %d)",
				       name, len, RW_JOB_NAME_MAX - 1);
	for (i = 0; i < len; i++) {
		c = (unsigned char)name[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-')
			continue;
		return rwctl_genl_fail(msg, msglen, -EINVAL,
				       "job name '%s' has an invalid character at byte %zu (allowed: A-Z a-z 0-9 . _ -)",
				       name, i + 1);
	}
	return 0;
}

void rwctl_job_explain(char *buf, size_t len, const char *cmd,
		       const char *name, int err, const char *why,
		       const char *extack)
{
	char what[512];

	switch (-err) {
	case EEXIST:
		snprintf(what, sizeof(what), "a job named '%s' already exists",
			 name);
		break;
	case ENOENT:
		snprintf(what, sizeof(what), "no job named '%s'", name);
		break;
	case EPERM:
		snprintf(what, sizeof(what), "needs CAP_NET_ADMIN (run as root)");
		break;
	case EBUSY:
		snprintf(what, sizeof(what), "job '%s' is busy", name);
		break;
	case ENOSPC:
		snprintf(what, sizeof(what),
			 "the box serves its maximum number of jobs (max_jobs)");
		break;
	case EOPNOTSUPP:
		snprintf(what, sizeof(what),
			 "the loaded rackweave module does not know this command; load the module of rwctl's release (%s)",
			 RW_VERSION_STRING);
		break;
	default:
		snprintf(what, sizeof(what), "%s", strerror(-err));
		break;
	}
	if (why)
		snprintf(what, sizeof(what), "%s", why);
	/* The job commands' only ENOENT; the ack would just say it again. */
	else if (err == -ENOENT)
		extack = NULL;
	snprintf(buf, len, "%s: %s%s%s", cmd, what,
		 extack && extack[0] ? ": " : "", extack ? extack : "");
}

const struct rwctl_job_backend *rwctl_job_backend(const struct rwctl *ctl)
{
	return ctl->job_backend ? ctl->job_backend : &rwctl_job_genl_backend;
}

int rwctl_job_report(struct rwctl *ctl, const char *cmd, const char *name,
		     int err, const struct rwctl_err *e, const char *why)
{
	char buf[1024];

	if (e->kernel) {
		rwctl_job_explain(buf, sizeof(buf), cmd, name ? name : "", err,
				  why, e->extack);
		fprintf(ctl->err, "rwctl: %s\n", buf);
	} else {
		fprintf(ctl->err, "rwctl: %s\n", e->msg[0] ? e->msg :
			strerror(-err));
	}
	return RWCTL_EXIT_ERR;
}
