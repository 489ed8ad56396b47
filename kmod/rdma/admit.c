// SPDX-License-Identifier: GPL-2.0
/*
 * Who gets in: the checks a connect request passes before the box creates
 * anything for the peer, cheapest first and never allocating:
 *
 *   1. the private data is a RackWeave request (EPROTO);
 *   2. its tag names a job and its authenticator is right for that job's
 *      token, both compared in constant time; the peer learns nothing of
 *      which failed (EACCES);
 *   3. its rank is below RW_JOB_MAX_WORKERS, which no job exceeds (ERANGE);
 *   4. its time is within RW_WIRE_MAX_SKEW_S of ours and its nonce is new
 *      (ETIMEDOUT), remembered in its rank's table (rdma/replay.c);
 *   5. its rank is below the job's worker count (ERANGE);
 *   6. an epoch other than 0 resumes a membership: the rank must still be
 *      live in the job's gate, in that epoch (ESTALE);
 *   7. its rank's table had room for it (EBUSY: more than RW_REPLAY_SLOTS
 *      requests of the rank in one second, or a time behind its last).
 *
 * The nonce is remembered before 5 and 6 because what they refuse may be
 * right later within the window (a policy set adds ranks; a later run has
 * the same epochs), and a replay must not get in then. It costs a slot of
 * the request's own rank only (ranks beyond the workers share one table),
 * so no flood of refused requests keeps another rank out. 7 comes last
 * only to give the more useful answer: its request is covered all the same.
 *
 * An observer (RW_WIRE_REQ_OBSERVER, rank 0) is checked as rank 0 is
 * but keeps its nonces in the table beyond the workers: it holds no rank.
 * Whether the rank is free is the attach's to say (EADDRINUSE), as for a
 * local worker; such a request holds a slot of the rank it asked for.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "job.h"
#include "rdma/admit.h"
#include "rdma/auth.h"
#include "rdma/replay.h"
#include "sync/sync.h"

static int rw_admit_epoch(struct rw_job *job, u32 rank, u32 epoch)
{
	u32 cur;
	int ret = -ESTALE;

	if (!epoch)
		return 0;
	mutex_lock(&job->run_lock);
	if (job->sync && !rw_sync_worker_epoch(job->sync, rank, &cur) &&
	    cur == epoch)
		ret = 0;
	mutex_unlock(&job->run_lock);
	return ret;
}

int rw_admit_check(const void *data, size_t len, s64 now,
		   struct rw_admit *out, const char **why)
{
	struct rw_wire_req_info *req = &out->req;
	struct rw_job *job;
	int ret, busy;

	out->job = NULL;
	ret = rw_wire_req_parse(data, len, req, why);
	if (ret)
		return ret;

	job = rw_job_get_by_tag(req->job_tag);
	/* Parsed: @data holds a whole struct rw_wire_req. */
	if (!job || !rw_auth_req_ok(job->token, data) ||
	    READ_ONCE(job->deleted)) {
		*why = "unknown job or wrong authenticator";
		ret = -EACCES;
		goto out_put;
	}

	if (!req->box && req->rank >= RW_JOB_MAX_WORKERS) {
		*why = "rank not below the job's worker count";
		ret = -ERANGE;
		goto out_put;
	}
	spin_lock(&job->replay_lock);
	/*
	 * Observers and giving boxes hold no rank: theirs is the table
	 * beyond the workers.
	 */
	busy = rw_replay_check(&job->replay[req->observer || req->box ?
					    job->replay_nr :
					    min(req->rank, job->replay_nr)],
			       req->nonce, (s64)req->time_s, now,
			       RW_WIRE_MAX_SKEW_S);
	spin_unlock(&job->replay_lock);
	if (busy == -ETIMEDOUT) {
		*why = "clock too far off, or a replayed request";
		ret = busy;
		goto out_put;
	}

	if (!req->box && req->rank >= READ_ONCE(job->cfg.workers)) {
		*why = "rank not below the job's worker count";
		ret = -ERANGE;
		goto out_put;
	}
	/* A giving box's epoch is its set's: the gift's taker checks it. */
	ret = req->box ? 0 : rw_admit_epoch(job, req->rank, req->epoch);
	if (ret) {
		*why = "epoch is not the rank's live membership";
		goto out_put;
	}
	if (busy) {
		*why = "too many connects of the rank within a second, or a time behind its last";
		ret = busy;
		goto out_put;
	}
	out->job = job;
	return 0;

out_put:
	rw_job_put(job);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_admit_check);
