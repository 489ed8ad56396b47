/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _RW_JOB_H
#define _RW_JOB_H

#include <linux/kref.h>
#include <linux/types.h>

#include "rackweave.h"
#include "agg/agg_impl.h"
#include "sync/gate.h"

/* What a job is asked to be, as validated by rw_job_new(). */
struct rw_job_config {
	char name[RW_JOB_NAME_MAX];
	u32 workers;
	u32 chunk_size;			/* 0: the module default */
	bool has_token;
	u8 token[RW_JOB_TOKEN_LEN];
	u32 sync;			/* enum rw_sync_mode */
	u32 staleness, staleness_lo, staleness_hi;
	u32 evict_ms;
	u32 optim;			/* enum rw_optim */
	/* binary32 bit patterns, as on the wire */
	u32 lr, momentum, weight_decay, beta1, beta2, eps;
};

/*
 * A job: a named tenant of the box. Immutable after creation except the
 * fields marked; freed when the last reference goes.
 */
struct rw_job {
	struct kref ref;
	u32 id;
	struct rw_job_config cfg;	/* token wiped from here at creation */
	u8 token[RW_JOB_TOKEN_LEN];	/* wiped when the job is deleted */
	u32 attached;			/* rw_jobs_lock */
};

/* The registry needs no set-up; this deletes every job at unload. */
void rw_job_exit(void);

/*
 * Create a job. *@msg says what was wrong on -EINVAL. On success the job is
 * registered, *@token holds its token (generated when none was given) and
 * a reference is returned in *@out.
 */
int rw_job_new(const struct rw_job_config *cfg, const char **msg,
	       u8 *token, struct rw_job **out);
int rw_job_del(const char *name, u32 flags);

struct rw_job *rw_job_get(const char *name);
void rw_job_put(struct rw_job *job);

/*
 * Walk jobs with id >= *@cursor in id order, calling @fn with the registry
 * locked; on a non-zero return stop and leave *@cursor at that job, so a
 * netlink dump resumes there. Returns @fn's value or 0.
 */
int rw_job_walk(unsigned long *cursor, int (*fn)(struct rw_job *job, void *arg),
		void *arg);
/* Changes with every job added or deleted (dump consistency). */
u32 rw_job_generation(void);

/* Constant-time token check. */
bool rw_job_token_ok(const struct rw_job *job, const u8 *token);

#if IS_ENABLED(CONFIG_KUNIT)
int rw_job_check_config(const struct rw_job_config *cfg, const char **msg);
#endif

#endif /* _RW_JOB_H */
