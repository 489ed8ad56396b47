// SPDX-License-Identifier: GPL-2.0
/*
 * Jobs: the named, isolated tenants of the box. This file keeps the
 * registry (ids in an xarray, names unique, at most max_jobs), validates a
 * job's configuration and guards its token: 32 random bytes unless the
 * administrator supplies them, compared in constant time, wiped when the
 * job goes. The engine and the gate of a job come to life when its first
 * worker attaches and declares the model layout.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/algapi.h>
#include <linux/ctype.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "job.h"
#include "params.h"
#include "agg/agg.h"

static DEFINE_MUTEX(rw_jobs_lock);		/* protects everything below */
static DEFINE_XARRAY_ALLOC1(rw_jobs);
static u32 rw_jobs_count;
static u32 rw_jobs_gen;

static bool rw_job_name_ok(const char *name)
{
	size_t i, len = strnlen(name, RW_JOB_NAME_MAX);

	if (!len || len >= RW_JOB_NAME_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && !strchr("._-", name[i]))
			return false;
	return true;
}

/* The optimizer settings as the aggregation kernels take them. */
static void rw_job_hparams(const struct rw_job_config *cfg,
			   struct rw_agg_hparams *hp)
{
	memset(hp, 0, sizeof(*hp));
	hp->optim = cfg->optim;
	memcpy(&hp->lr, &cfg->lr, sizeof(u32));
	memcpy(&hp->momentum, &cfg->momentum, sizeof(u32));
	memcpy(&hp->weight_decay, &cfg->weight_decay, sizeof(u32));
	memcpy(&hp->beta1, &cfg->beta1, sizeof(u32));
	memcpy(&hp->beta2, &cfg->beta2, sizeof(u32));
	memcpy(&hp->eps, &cfg->eps, sizeof(u32));
}

VISIBLE_IF_KUNIT int rw_job_check_config(const struct rw_job_config *cfg,
					 const char **msg)
{
	struct rw_agg_hparams hp;
	struct rw_agg_step st;
	u32 cs = cfg->chunk_size;

	*msg = NULL;
	if (!rw_job_name_ok(cfg->name))
		*msg = "job name must be 1-31 characters of A-Z a-z 0-9 . _ -";
	else if (!cfg->workers || cfg->workers > RW_JOB_MAX_WORKERS)
		*msg = "workers must be 1-256";
	else if (cs && (cs < RW_CHUNK_SIZE_MIN || cs > RW_CHUNK_SIZE_MAX ||
			!is_power_of_2(cs)))
		*msg = "chunk size must be a power of two from 4096 to 1048576";
	else if (cfg->sync >= __RW_SYNC_MAX)
		*msg = "unknown sync mode";
	else if (cfg->sync == RW_SYNC_SSP &&
		 (!cfg->staleness || cfg->staleness > RW_JOB_MAX_STALENESS))
		*msg = "SSP needs a staleness bound from 1 to 1024";
	else if (cfg->sync == RW_SYNC_ADAPTIVE &&
		 (!cfg->staleness_lo || cfg->staleness_lo > cfg->staleness_hi ||
		  cfg->staleness_hi > RW_JOB_MAX_STALENESS))
		*msg = "adaptive needs 1 <= low <= high <= 1024";
	else if (cfg->optim >= __RW_OPTIM_MAX)
		*msg = "unknown optimizer";
	if (*msg)
		return -EINVAL;

	rw_job_hparams(cfg, &hp);
	if (rw_agg_step_prepare(&st, &hp, cfg->workers, 1)) {
		*msg = "optimizer hyper-parameters out of range";
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_check_config);

static struct rw_job *rw_job_find_locked(const char *name)
{
	struct rw_job *job;
	unsigned long id;

	lockdep_assert_held(&rw_jobs_lock);
	xa_for_each(&rw_jobs, id, job)
		if (!strcmp(job->cfg.name, name))
			return job;
	return NULL;
}

static void rw_job_release(struct kref *ref)
{
	struct rw_job *job = container_of(ref, struct rw_job, ref);

	memzero_explicit(job->token, sizeof(job->token));
	kfree(job);
}

void rw_job_put(struct rw_job *job)
{
	if (job)
		kref_put(&job->ref, rw_job_release);
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_put);

struct rw_job *rw_job_get(const char *name)
{
	struct rw_job *job;

	mutex_lock(&rw_jobs_lock);
	job = rw_job_find_locked(name);
	if (job)
		kref_get(&job->ref);
	mutex_unlock(&rw_jobs_lock);
	return job;
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_get);

int rw_job_new(const struct rw_job_config *cfg, const char **msg,
	       u8 *token, struct rw_job **out)
{
	struct rw_job *job;
	u32 id;
	int ret;

	ret = rw_job_check_config(cfg, msg);
	if (ret)
		return ret;
	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return -ENOMEM;
	kref_init(&job->ref);
	job->cfg = *cfg;
	memzero_explicit(job->cfg.token, sizeof(job->cfg.token));
	if (!job->cfg.chunk_size)
		job->cfg.chunk_size = rw_params_chunk_size();
	if (cfg->has_token)
		memcpy(job->token, cfg->token, sizeof(job->token));
	else
		get_random_bytes(job->token, sizeof(job->token));

	mutex_lock(&rw_jobs_lock);
	if (rw_job_find_locked(cfg->name)) {
		ret = -EEXIST;
	} else if (rw_jobs_count >= rw_params_max_jobs()) {
		ret = -ENOSPC;
	} else {
		ret = xa_alloc(&rw_jobs, &id, job, xa_limit_32b, GFP_KERNEL);
		if (!ret) {
			job->id = id;
			rw_jobs_count++;
			rw_jobs_gen++;
			kref_get(&job->ref);	/* the registry's */
		}
	}
	mutex_unlock(&rw_jobs_lock);
	if (ret) {
		rw_job_put(job);
		return ret;
	}
	memcpy(token, job->token, sizeof(job->token));
	*out = job;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_new);

int rw_job_del(const char *name, u32 flags)
{
	struct rw_job *job;
	int ret = 0;

	if (flags & ~RW_JOB_DEL_FLAGS_ALL)
		return -EINVAL;
	mutex_lock(&rw_jobs_lock);
	job = rw_job_find_locked(name);
	if (!job)
		ret = -ENOENT;
	else if (job->attached && !(flags & RW_JOB_DEL_FORCE))
		ret = -EBUSY;
	if (!ret) {
		xa_erase(&rw_jobs, job->id);
		rw_jobs_count--;
		rw_jobs_gen++;
		/* Nobody can attach with it any more, whoever still holds it. */
		memzero_explicit(job->token, sizeof(job->token));
	}
	mutex_unlock(&rw_jobs_lock);
	if (!ret)
		rw_job_put(job);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_del);

int rw_job_walk(unsigned long *cursor, int (*fn)(struct rw_job *job, void *arg),
		void *arg)
{
	struct rw_job *job;
	unsigned long id;
	int ret = 0;

	mutex_lock(&rw_jobs_lock);
	xa_for_each_start(&rw_jobs, id, job, *cursor) {
		ret = fn(job, arg);
		if (ret) {
			*cursor = id;
			break;
		}
	}
	if (!ret)
		*cursor = ULONG_MAX;
	mutex_unlock(&rw_jobs_lock);
	return ret;
}

u32 rw_job_generation(void)
{
	return READ_ONCE(rw_jobs_gen);
}

bool rw_job_token_ok(const struct rw_job *job, const u8 *token)
{
	return !crypto_memneq(job->token, token, sizeof(job->token));
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_token_ok);

/* Module unload: the netlink family is gone, so nothing adds jobs now. */
void rw_job_exit(void)
{
	struct rw_job *job;
	unsigned long id;

	mutex_lock(&rw_jobs_lock);
	xa_for_each(&rw_jobs, id, job) {
		xa_erase(&rw_jobs, id);
		memzero_explicit(job->token, sizeof(job->token));
		rw_job_put(job);
	}
	rw_jobs_count = 0;
	mutex_unlock(&rw_jobs_lock);
	xa_destroy(&rw_jobs);
}
