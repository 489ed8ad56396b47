// SPDX-License-Identifier: GPL-2.0
/*
 * Jobs: the named, isolated tenants of the box. This file keeps the
 * registry (ids in an xarray, names unique, at most max_jobs), validates a
 * job's configuration and guards its token: 32 random bytes unless the
 * administrator supplies them, compared in constant time, wiped when the
 * job goes. The engine and the gate of a job come to life when its first
 * worker attaches and declares the model layout. A job spread over several
 * boxes keeps its box set here too (checked, copied, replaced between runs).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/algapi.h>
#include <linux/ctype.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/xarray.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "job.h"
#include "job_carry.h"
#include "job_move.h"
#include "mem.h"
#include "chunk/boxset.h"
#include "engine/engine.h"
#include "engine/query.h"
#include "genl.h"
#include "params.h"
#include "worker_xfer.h"
#include "sync/sync.h"
#include "agg/agg.h"
#include "rdma/auth.h"
#include "rdma/rdma.h"

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
void rw_job_hparams(const struct rw_job_config *cfg,
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

void rw_job_gate_config(const struct rw_job_config *c,
			struct rw_gate_config *gc)
{
	*gc = (struct rw_gate_config){
		.policy = c->sync,
		.nr_workers = c->workers,
		.s = c->staleness,
		.s_lo = c->staleness_lo,
		.s_hi = c->staleness_hi,
		.quorum = c->sync == RW_SYNC_BSP ? c->quorum : 0,
		.evict_timeout_ns = (u64)c->evict_ms * NSEC_PER_MSEC,
	};
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
	else if ((cs ? cs : rw_params_chunk_size()) < PAGE_SIZE)
		*msg = "chunk size must be at least the page size";
	else if (cfg->sync >= __RW_SYNC_MAX)
		*msg = "unknown sync mode";
	else if (cfg->sync == RW_SYNC_SSP &&
		 (!cfg->staleness || cfg->staleness > RW_JOB_MAX_STALENESS))
		*msg = "SSP needs a staleness bound from 1 to 1024";
	else if (cfg->sync == RW_SYNC_ADAPTIVE &&
		 (!cfg->staleness_lo || cfg->staleness_lo > cfg->staleness_hi ||
		  cfg->staleness_hi > RW_JOB_MAX_STALENESS))
		*msg = "adaptive needs 1 <= low <= high <= 1024";
	else if (cfg->quorum && cfg->sync != RW_SYNC_BSP)
		*msg = "a quorum (backup workers) applies to BSP only";
	else if (cfg->optim >= __RW_OPTIM_MAX)
		*msg = "unknown optimizer";
	if (*msg)
		return -EINVAL;
	if (cfg->quorum > cfg->workers) {
		*msg = "quorum must be from 1 to the job's workers";
		return -ERANGE;
	}

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
	/* Every file was released before its reference went: no run left. */
	WARN_ON(job->engine || job->sync);
	kvfree(job->replay);
	kvfree(job->wc);
	kvfree(job->ranks);
	kfree(job->boxes);
	kfree(job->move);
	rw_job_carry_free(job);
	if (job->move_charge)
		rw_mem_uncharge(&job->mem_held, job->move_charge);
	kfree(job);
}

/*
 * Size the per-rank arrays for @workers: with rw_jobs_lock held once the
 * job is listed (policy set), since attaches and walks read them. The
 * nonces move under replay_lock, which admit.c takes without it.
 */
static int rw_job_alloc_ranks(struct rw_job *job, u32 workers)
{
	struct rw_replay *replay, *old;
	struct rw_worker_counters *wc;
	struct rw_worker **ranks;

	ranks = kvcalloc(workers, sizeof(*ranks), GFP_KERNEL);
	wc = kvcalloc(workers, sizeof(*wc), GFP_KERNEL);
	/* Each rank's table, then the one for every rank beyond. */
	replay = kvcalloc(workers + 1, sizeof(*replay), GFP_KERNEL);
	if (!ranks || !wc || !replay) {
		kvfree(ranks);
		kvfree(wc);
		kvfree(replay);
		return -ENOMEM;
	}
	kvfree(job->ranks);
	kvfree(job->wc);
	job->ranks = ranks;
	job->wc = wc;

	spin_lock(&job->replay_lock);
	old = job->replay;
	if (old)
		rw_replay_move(replay, workers, old, job->replay_nr,
			       ktime_get_real_seconds(), RW_WIRE_MAX_SKEW_S);
	job->replay = replay;
	job->replay_nr = workers;
	spin_unlock(&job->replay_lock);
	kvfree(old);
	return 0;
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

struct rw_job *rw_job_get_by_tag(const u8 tag[RW_WIRE_TAG_LEN])
{
	struct rw_job *job, *found = NULL;
	unsigned long id;

	mutex_lock(&rw_jobs_lock);
	/* No early exit: how long this takes says nothing of where it matched. */
	xa_for_each(&rw_jobs, id, job)
		if (!crypto_memneq(job->wire_tag, tag, RW_WIRE_TAG_LEN))
			found = job;
	if (found)
		kref_get(&found->ref);
	mutex_unlock(&rw_jobs_lock);
	return found;
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_get_by_tag);

int rw_job_new(const struct rw_job_config *cfg, const char **msg,
	       u8 *token, struct rw_job **out)
{
	struct rw_boxset *boxes = NULL;
	struct rw_job *job;
	u32 id;
	int ret;

	ret = rw_job_check_config(cfg, msg);
	if (!ret && cfg->boxes)
		ret = rw_boxset_check(cfg->boxes, true, msg);
	if (ret)
		return ret;
	if (cfg->boxes) {
		boxes = kmemdup(cfg->boxes, sizeof(*boxes), GFP_KERNEL);
		if (!boxes)
			return -ENOMEM;
	}
	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job) {
		kfree(boxes);
		return -ENOMEM;
	}
	job->boxes = boxes;
	job->joining = boxes && boxes->epoch > 1;
	kref_init(&job->ref);
	mutex_init(&job->run_lock);
	spin_lock_init(&job->replay_lock);
	atomic_set(&job->mappings, 0);
	ret = rw_job_alloc_ranks(job, cfg->workers);
	if (ret) {
		kfree(job->boxes);
		kfree(job);
		return ret;
	}
	job->cfg = *cfg;
	/* The caller's set was copied: job->boxes is the job's. */
	job->cfg.boxes = NULL;
	memzero_explicit(job->cfg.token, sizeof(job->cfg.token));
	if (!job->cfg.chunk_size)
		job->cfg.chunk_size = rw_params_chunk_size();
	if (cfg->has_token)
		memcpy(job->token, cfg->token, sizeof(job->token));
	else
		get_random_bytes(job->token, sizeof(job->token));
	rw_auth_job_tag(job->token, job->cfg.name, job->wire_tag);

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
	rw_genl_event(RW_EVENT_JOB_NEW, job->cfg.name, -1, NULL, GFP_KERNEL);
	*out = job;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_new);

/* Unregister (rw_jobs_lock held): no attach finds it any more. */
static void rw_job_unlist(struct rw_job *job, u32 *ranks_out)
{
	u32 r, n = 0;

	lockdep_assert_held(&rw_jobs_lock);
	xa_erase(&rw_jobs, job->id);
	rw_jobs_count--;
	rw_jobs_gen++;
	WRITE_ONCE(job->deleted, true);
	/* deleted before the wipe: see rw_job_token_check() */
	smp_wmb();
	/* Nobody can attach with it any more, whoever still holds it. */
	memzero_explicit(job->token, sizeof(job->token));
	/* Forced: the attached workers lose their ranks (they get ENODEV). */
	for (r = 0; r < job->cfg.workers; r++) {
		if (job->ranks[r]) {
			job->ranks[r] = NULL;
			if (ranks_out)
				ranks_out[n++] = r;
		}
	}
	job->attached = 0;
	if (ranks_out && n < RW_JOB_MAX_WORKERS)
		ranks_out[n] = U32_MAX;
}

int rw_job_del(const char *name, u32 flags)
{
	u32 *gone = NULL;
	struct rw_job *job;
	int ret = 0;

	if (flags & ~RW_JOB_DEL_FLAGS_ALL)
		return -EINVAL;
	job = rw_job_get(name);
	if (!job)
		return -ENOENT;
	/* Sized for any worker count: policy set may change it meanwhile. */
	gone = kcalloc(RW_JOB_MAX_WORKERS, sizeof(*gone), GFP_KERNEL);
	if (!gone) {
		rw_job_put(job);
		return -ENOMEM;
	}
	mutex_lock(&job->run_lock);
	mutex_lock(&rw_jobs_lock);
	if (job->deleted)
		ret = -ENOENT;
	else if (job->attached && !(flags & RW_JOB_DEL_FORCE))
		ret = -EBUSY;
	else
		rw_job_unlist(job, gone);
	mutex_unlock(&rw_jobs_lock);
	if (!ret)
		rw_worker_job_gone(job, gone);
	mutex_unlock(&job->run_lock);
	if (!ret) {
		rw_wire_job_gone(job);
		rw_genl_event(RW_EVENT_JOB_DEL, job->cfg.name, -1, NULL,
			      GFP_KERNEL);
		rw_job_put(job);	/* the registry's */
	}
	kfree(gone);
	rw_job_put(job);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_del);

/*
 * @s is to replace @job's box set: an epoch of 0 becomes the old set's + 1
 * (1 if there was none). 0, or -EINVAL and *@msg as rw_boxset_check().
 */
static int rw_job_check_boxes(const struct rw_job *job, struct rw_boxset *s,
			      const char **msg)
{
	lockdep_assert_held(&rw_jobs_lock);
	if (!s->epoch && job->boxes && job->boxes->epoch == U32_MAX) {
		*msg = "the box set's epoch is at its last value; give one";
		return -EINVAL;
	}
	if (!s->epoch)
		s->epoch = job->boxes ? job->boxes->epoch + 1 : 1;
	return rw_boxset_check(s, true, msg);
}

int rw_job_set_policy(const char *name, const struct rw_job_config *cfg,
		      u32 mask, const char **msg)
{
	struct rw_boxset *boxes = NULL, *old = NULL;
	struct rw_gate_config gc;
	struct rw_job_config c;
	struct rw_job *job;
	bool live, moving;
	u64 charge = 0;
	int ret;

	*msg = NULL;
	if ((mask & RW_JOB_SET_BOXES) && cfg->boxes) {
		boxes = kmemdup(cfg->boxes, sizeof(*boxes), GFP_KERNEL);
		if (!boxes)
			return -ENOMEM;
	}
	job = rw_job_get(name);
	if (!job) {
		kfree(boxes);
		return -ENOENT;
	}
	mutex_lock(&job->run_lock);
	mutex_lock(&rw_jobs_lock);
	c = job->cfg;
	if (mask & RW_JOB_SET_WORKERS)
		c.workers = cfg->workers;
	if (mask & RW_JOB_SET_CHUNK)
		c.chunk_size = cfg->chunk_size;
	if (mask & RW_JOB_SET_SYNC) {
		c.sync = cfg->sync;
		c.staleness = cfg->staleness;
		c.staleness_lo = cfg->staleness_lo;
		c.staleness_hi = cfg->staleness_hi;
		c.quorum = cfg->quorum;
	}
	if (mask & RW_JOB_SET_EVICT)
		c.evict_ms = cfg->evict_ms;
	if (mask & RW_JOB_SET_MEMORY)
		c.max_memory = cfg->max_memory;
	if (mask & RW_JOB_SET_OPTIM) {
		c.optim = cfg->optim;
		c.lr = cfg->lr;
		c.momentum = cfg->momentum;
		c.weight_decay = cfg->weight_decay;
		c.beta1 = cfg->beta1;
		c.beta2 = cfg->beta2;
		c.eps = cfg->eps;
	}
	if (c.quorum == c.workers)
		c.quorum = 0;
	live = job->users || job->engine;
	/* A set given while a run is active is the run's move. */
	moving = live && (mask & RW_JOB_SET_BOXES);
	if (job->deleted) {
		ret = -ENOENT;
	} else if (live && mask & ~(RW_JOB_SET_SYNC | RW_JOB_SET_EVICT |
				    RW_JOB_SET_MEMORY | RW_JOB_SET_BOXES)) {
		*msg = "a run exists: workers, chunk size and optimizer change between runs";
		ret = -EBUSY;
	} else {
		/* Everything is checked before anything changes. */
		ret = rw_job_check_config(&c, msg);
		if (!ret && moving)
			ret = rw_job_check_move(job, boxes, msg);
		else if (!ret && boxes)
			ret = rw_job_check_boxes(job, boxes, msg);
		if (!ret && c.workers != job->cfg.workers)
			ret = rw_job_alloc_ranks(job, c.workers);
		/* Replaced whole, never changed in place (no run reads it). */
		if (!ret && moving) {
			ret = rw_job_move_reserve(job, boxes, &charge);
			if (ret)
				*msg = "no memory left for what the run's end keeps for the move";
		}
		if (!ret && moving) {
			job->move = boxes;
			job->move_charge = charge;
			WRITE_ONCE(job->move_epoch, boxes->epoch);
			boxes = NULL;
		} else if (!ret && (mask & RW_JOB_SET_BOXES)) {
			old = job->boxes;
			job->boxes = boxes;
			boxes = NULL;
			/* The operator's set: no move's chunks to wait for. */
			job->joining = false;
		}
		if (!ret && !job->sync)
			job->cfg = c;
	}
	mutex_unlock(&rw_jobs_lock);
	kfree(boxes);
	kfree(old);
	/*
	 * A running job: the gate (and through it the engine) takes the new
	 * sync settings at the next iteration boundary. run_lock keeps the
	 * run; the gate's lock is not taken under rw_jobs_lock.
	 */
	if (!ret && job->sync) {
		rw_job_gate_config(&c, &gc);
		ret = rw_sync_reconfigure(job->sync, &gc);
		if (ret)
			*msg = "the running gate refused the settings";
		mutex_lock(&rw_jobs_lock);
		if (!ret)
			job->cfg = c;
		mutex_unlock(&rw_jobs_lock);
	}
	mutex_unlock(&job->run_lock);
	if (!ret)
		rw_genl_event(RW_EVENT_POLICY, job->cfg.name, -1, NULL,
			      GFP_KERNEL);
	rw_job_put(job);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_set_policy);

struct rw_boxset *rw_job_boxes_copy(struct rw_job *job, bool move)
{
	struct rw_boxset *s = NULL, *from;

	mutex_lock(&rw_jobs_lock);
	from = move ? job->move : job->boxes;
	if (from) {
		s = kmemdup(from, sizeof(*s), GFP_KERNEL);
		if (!s)
			s = ERR_PTR(-ENOMEM);
	}
	mutex_unlock(&rw_jobs_lock);
	return s;
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_boxes_copy);

int rw_job_take_rank(struct rw_job *job, u32 rank, struct rw_worker *w,
		     bool observer)
{
	int ret = 0;

	mutex_lock(&rw_jobs_lock);
	if (job->deleted)
		ret = -ENOENT;
	else if (observer)
		;
	else if (rank >= job->cfg.workers)
		ret = -ERANGE;
	else if (job->ranks[rank])
		ret = -EADDRINUSE;
	if (!ret) {
		if (!observer) {
			job->ranks[rank] = w;
			job->attached++;
		}
		job->users++;
	}
	mutex_unlock(&rw_jobs_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_take_rank);

bool rw_job_drop_rank(struct rw_job *job, u32 rank, struct rw_worker *w,
		      bool observer)
{
	bool held = false;

	mutex_lock(&rw_jobs_lock);
	if (!observer && rank < job->cfg.workers && job->ranks[rank] == w) {
		job->ranks[rank] = NULL;
		job->attached--;
		held = true;
	}
	mutex_unlock(&rw_jobs_lock);
	return held;
}

/*
 * A run ends: its engine's and gate's counts join the job's past ones,
 * under run_lock, so that a stats reader (which holds it too) never sees a
 * counter go back (stats count since the job was created).
 */
static void rw_job_keep_counts(struct rw_job *job, struct rw_engine *e,
			       struct rw_sync *s)
{
	struct rw_engine_stats es;
	u32 r;

	lockdep_assert_held(&job->run_lock);
	if (e) {
		rw_engine_get_stats(e, &es);
		job->past.pushes += es.pushes;
		job->past.busy += es.busy;
		job->past.steps += es.steps;
		job->past.migrations += es.migrations;
		job->past.errors += es.errors;
	}
	for (r = 0; r < job->cfg.workers; r++) {
		struct rw_worker_counters *wc = &job->wc[r];
		struct rw_gate_stats gs = {};
		bool live;
		u64 clock;

		if (e)
			atomic64_add(rw_engine_late(e, r), &wc->late);
		if (!s || rw_sync_worker_stats(s, r, &gs, &clock, &live))
			continue;
		atomic64_add(gs.parks, &wc->past_parks);
		atomic64_add(gs.parked_ns, &wc->past_parked_ns);
		atomic64_add(gs.evictions, &wc->past_evictions);
	}
}

bool rw_job_release_user(struct rw_job *job)
{
	struct rw_boxset *moved = NULL;
	bool gives = false;
	u32 giver;
	u64 carry = 0;
	struct rw_engine *e = NULL;
	struct rw_sync *s = NULL;
	u64 charge = 0;

	mutex_lock(&job->run_lock);
	mutex_lock(&rw_jobs_lock);
	if (!--job->users) {
		e = job->engine;
		s = job->sync;
		charge = job->run_charge;
		/* The run ends: a move's set is the job's from now on. */
		if (job->move) {
			moved = job->boxes;
			job->boxes = job->move;
			job->move = NULL;
			WRITE_ONCE(job->move_epoch, 0);
			WRITE_ONCE(job->move_stop, 0);
			carry = job->move_charge;
			job->move_charge = 0;
		}
		job->engine = NULL;
		job->sync = NULL;
		job->run_charge = 0;
		WRITE_ONCE(job->run_chunks, 0);
		WRITE_ONCE(job->run_tensors, 0);
		WRITE_ONCE(job->run_bytes, 0);
	}
	mutex_unlock(&rw_jobs_lock);
	giver = moved ? moved->self : 0;
	kfree(moved);
	/* No worker is left: the engine is quiet, its state whole. */
	rw_job_carry_run_end(job, e);
	rw_job_carry_take(job, e, carry, giver);
	gives = job->gift;
	rw_job_keep_counts(job, e, s);
	mutex_unlock(&job->run_lock);
	/* Nobody else can reach them now: the last user is gone. */
	rw_sync_destroy(s);
	rw_engine_destroy(e);
	/* The memory is back: so is the charge. */
	if (charge)
		rw_mem_uncharge(&job->mem_held, charge);
	return gives;
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_release_user);

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

int rw_job_token_check(const struct rw_job *job, const u8 *token)
{
	if (rw_job_token_ok(job, token))
		return 0;
	/*
	 * A deletion between the caller's lookup and this check wiped the
	 * token: the job is gone, which is ENOENT, not a wrong token.
	 */
	smp_rmb();	/* pairs with the smp_wmb() in rw_job_unlist() */
	return READ_ONCE(job->deleted) ? -ENOENT : -EACCES;
}
EXPORT_SYMBOL_IF_KUNIT(rw_job_token_check);

/* Module unload: the netlink family is gone, so nothing adds jobs now. */
void rw_job_exit(void)
{
	struct rw_job *job;
	unsigned long id;

	mutex_lock(&rw_jobs_lock);
	xa_for_each(&rw_jobs, id, job) {
		/* Files hold the module: no worker is attached at unload. */
		rw_job_unlist(job, NULL);
		rw_job_put(job);
	}
	rw_jobs_count = 0;
	mutex_unlock(&rw_jobs_lock);
	xa_destroy(&rw_jobs);
}
