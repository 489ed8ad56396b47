/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the commands on a job get their answers, and how they report a
 * failure (backend.c): the backend table (generic netlink in job-genl.c,
 * or a test's own through struct rwctl.job_backend), the job name check
 * they all make first, and the module's refusals in words. Used by the
 * job, policy, topo and stats objects.
 */
#ifndef RWCTL_BACKEND_H
#define RWCTL_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

struct rwctl;
struct rwctl_err;
struct rwctl_job;
struct rwctl_job_add;
struct rwctl_job_list;
struct rwctl_stats;
struct rwctl_topo;

/*
 * Where jobs come from. Each returns 0 or a negative errno with @e filled
 * (-EAGAIN from get: a dump raced with a change). @out / @list / @t / @s
 * are zeroed by the caller and freed with rwctl_job_list_free(),
 * rwctl_topo_free() or rwctl_stats_free() whatever the result. Every
 * operation must be set.
 */
struct rwctl_job_backend {
	int (*add)(const struct rwctl_job_add *a, struct rwctl_job *out,
		   struct rwctl_err *e);
	int (*del)(const char *name, bool force, struct rwctl_err *e);
	/* @name NULL: every job (a dump). */
	int (*get)(const char *name, struct rwctl_job_list *list,
		   struct rwctl_err *e);
	/* RW_CMD_POLICY_SET: @a's settings (no token); @out the job after. */
	int (*policy)(const struct rwctl_job_add *a, struct rwctl_job *out,
		      struct rwctl_err *e);
	int (*topo)(const char *name, struct rwctl_topo *t,
		    struct rwctl_err *e);
	int (*stats)(const char *name, struct rwctl_stats *s,
		     struct rwctl_err *e);
};

extern const struct rwctl_job_backend rwctl_job_genl_backend;

/*
 * 0 if @name may name a job (1..RW_JOB_NAME_MAX-1 bytes of [A-Za-z0-9._-]),
 * else -EINVAL with a sentence in @msg.
 */
int rwctl_job_check_name(const char *name, char *msg, size_t msglen);

/*
 * The user's sentence for the module's refusal @err of @cmd ("job add",
 * "topo show", ...) on job @name: @why if not NULL, else what @err means
 * for a job command; the extended ack appended when there is one.
 */
void rwctl_job_explain(char *buf, size_t len, const char *cmd,
		       const char *name, int err, const char *why,
		       const char *extack);

/*
 * Report a failed request of @cmd on ctl->err: the module's refusal in
 * words (see rwctl_job_explain()), or the backend's own sentence. Returns
 * RWCTL_EXIT_ERR.
 */
int rwctl_job_report(struct rwctl *ctl, const char *cmd, const char *name,
		     int err, const struct rwctl_err *e, const char *why);

/* ctl->job_backend, or generic netlink when it is NULL. */
const struct rwctl_job_backend *rwctl_job_backend(const struct rwctl *ctl);

#endif /* RWCTL_BACKEND_H */
