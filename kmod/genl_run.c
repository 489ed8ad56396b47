// SPDX-License-Identifier: GPL-2.0
/*
 * What a running job looks like: RW_CMD_TOPO_GET (where its chunks live and
 * how loaded each core and NIC is, and, for a job spread over several
 * boxes, each box's share of them) and RW_CMD_STATS_GET (counters of the
 * job and of each rank). Both read-only and unprivileged; the layouts are
 * documented in uapi/rackweave.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "chunk/boxset.h"
#include "engine/engine.h"
#include "engine/query.h"
#include "genl.h"
#include "genl_job.h"
#include "genl_run.h"
#include "job.h"
#include "sync/sync.h"

/* Look the job up from RW_JOB_A_NAME, saying so in the ack if it is not. */
static struct rw_job *rw_genl_job(struct genl_info *info)
{
	char name[RW_JOB_NAME_MAX];
	struct rw_job *job;

	if (GENL_REQ_ATTR_CHECK(info, RW_JOB_A_NAME))
		return ERR_PTR(-EINVAL);
	nla_strscpy(name, info->attrs[RW_JOB_A_NAME], sizeof(name));
	job = rw_job_get(name);
	if (!job) {
		GENL_SET_ERR_MSG(info, "no job by that name");
		return ERR_PTR(-ENOENT);
	}
	return job;
}

static int rw_put_topo(struct sk_buff *skb, const struct rw_engine_topo *t)
{
	struct nlattr *list, *e;
	u32 i, first, runs = 0;

	list = nla_nest_start(skb, RW_JOB_A_CORES);
	if (!list)
		return -EMSGSIZE;
	for (i = 0; i < t->nr_cores; i++) {
		e = nla_nest_start(skb, RW_JOB_A_ENTRY);
		if (!e || nla_put_u32(skb, RW_TOPO_A_CPU, t->cores[i].cpu) ||
		    nla_put_u32(skb, RW_TOPO_A_NODE, t->cores[i].node) ||
		    nla_put_u32(skb, RW_TOPO_A_CHUNKS, t->cores[i].chunks) ||
		    nla_put_u64_64bit(skb, RW_TOPO_A_BYTES, t->cores[i].bytes,
				      RW_TOPO_A_PAD) ||
		    nla_put_u64_64bit(skb, RW_TOPO_A_BUSY_NS,
				      t->cores[i].busy_ns, RW_TOPO_A_PAD))
			return -EMSGSIZE;
		nla_nest_end(skb, e);
	}
	nla_nest_end(skb, list);

	list = nla_nest_start(skb, RW_JOB_A_NICS);
	if (!list)
		return -EMSGSIZE;
	for (i = 0; i < t->nr_nics; i++) {
		e = nla_nest_start(skb, RW_JOB_A_ENTRY);
		if (!e || nla_put_u32(skb, RW_TOPO_A_NIC, t->nics[i].nic) ||
		    nla_put_u32(skb, RW_TOPO_A_NODE, t->nics[i].node) ||
		    nla_put_u32(skb, RW_TOPO_A_CHUNKS, t->nics[i].chunks) ||
		    nla_put_u64_64bit(skb, RW_TOPO_A_BYTES, t->nics[i].bytes,
				      RW_TOPO_A_PAD))
			return -EMSGSIZE;
		nla_nest_end(skb, e);
	}
	nla_nest_end(skb, list);

	/* Runs of consecutive chunks on one core and NIC. */
	list = nla_nest_start(skb, RW_JOB_A_CHUNK_MAP);
	if (!list)
		return -EMSGSIZE;
	for (first = 0; first < t->nr_chunks; first = i) {
		u16 core = t->place[first].core, nic = t->place[first].nic;

		for (i = first + 1; i < t->nr_chunks; i++)
			if (t->place[i].core != core || t->place[i].nic != nic)
				break;
		if (runs++ == RW_TOPO_MAX_RUNS) {
			if (nla_put_flag(skb, RW_TOPO_A_TRUNCATED))
				return -EMSGSIZE;
			break;
		}
		e = nla_nest_start(skb, RW_JOB_A_ENTRY);
		if (!e || nla_put_u32(skb, RW_TOPO_A_FIRST, first) ||
		    nla_put_u32(skb, RW_TOPO_A_COUNT, i - first) ||
		    nla_put_u32(skb, RW_TOPO_A_CPU, t->cores[core].cpu) ||
		    nla_put_u32(skb, RW_TOPO_A_NIC, t->nics[nic].nic) ||
		    nla_put_u32(skb, RW_TOPO_A_NODE, t->cores[core].node))
			return -EMSGSIZE;
		nla_nest_end(skb, e);
	}
	nla_nest_end(skb, list);
	return 0;
}

VISIBLE_IF_KUNIT int rw_genl_box_shares(const struct rw_boxset *s,
					const char *name, u32 nr,
					u32 (*len)(const void *arg, u32 chunk),
					const void *arg, u32 *chunks,
					u64 *bytes)
{
	u8 *owner;
	u32 c;
	int ret;

	owner = kvmalloc(max_t(u32, nr, 1), GFP_KERNEL);
	if (!owner)
		return -ENOMEM;
	memset(bytes, 0, sizeof(*bytes) * RW_OWNER_MAX_BOXES);
	/* Every chunk but the last is full: is the last shorter? */
	ret = rw_boxset_owners(s, name, nr, nr > 1 && len(arg, nr - 1) <
			       len(arg, 0), owner, chunks);
	for (c = 0; !ret && c < nr; c++)
		bytes[owner[c]] += len(arg, c);
	kvfree(owner);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(rw_genl_box_shares);

static u32 rw_genl_chunk_len(const void *engine, u32 chunk)
{
	return rw_engine_chunk_len(engine, chunk);
}

/* The boxes' shares of a run, for the topology. */
struct rw_genl_shares {
	u32 chunks[RW_OWNER_MAX_BOXES];
	u64 bytes[RW_OWNER_MAX_BOXES];
};

/*
 * The job's box set as the topology reports it, into *@boxes (NULL if it
 * has none; kfree() it): the run's own while a run exists, and each box's
 * share of the run into *@sh (NULL without a run).
 */
static int rw_genl_topo_boxes(struct rw_job *job, const struct rw_engine_topo *t,
			      struct rw_boxset **boxes,
			      struct rw_genl_shares **sh)
{
	struct rw_boxset *s;

	lockdep_assert_held(&job->run_lock);
	*sh = NULL;
	*boxes = NULL;
	/* Fixed while a run exists (run_lock): the run's own. */
	s = rw_job_boxes_copy(job, false);
	if (IS_ERR(s))
		return PTR_ERR(s);
	*boxes = s;
	if (!s || !job->engine)
		return 0;
	*sh = kmalloc(sizeof(**sh), GFP_KERNEL);
	if (!*sh)
		return -ENOMEM;
	return rw_genl_box_shares(s, job->cfg.name, t->nr_chunks,
				  rw_genl_chunk_len, job->engine,
				  (*sh)->chunks, (*sh)->bytes);
}

int rw_genl_topo_get(struct sk_buff *skb, struct genl_info *info)
{
	struct rw_genl_shares *sh = NULL;
	struct rw_boxset *boxes = NULL;
	struct rw_engine_topo t = {};
	struct sk_buff *msg;
	struct rw_job *job;
	size_t size = NLMSG_GOODSIZE;
	void *hdr;
	int ret = 0;

	job = rw_genl_job(info);
	if (IS_ERR(job))
		return PTR_ERR(job);
	mutex_lock(&job->run_lock);
	if (job->engine)
		ret = rw_engine_topo(job->engine, &t);
	if (!ret)
		ret = rw_genl_topo_boxes(job, &t, &boxes, &sh);
	mutex_unlock(&job->run_lock);
	if (ret)
		goto out;
	size += (size_t)t.nr_cores * 64 + (size_t)t.nr_nics * 48 +
		(size_t)min_t(u32, t.nr_chunks, RW_TOPO_MAX_RUNS + 1) * 56 +
		(boxes ? (size_t)boxes->nr * 72 + 32 : 0);
	ret = -ENOMEM;
	msg = genlmsg_new(size, GFP_KERNEL);
	if (!msg)
		goto out;
	ret = -EMSGSIZE;
	hdr = genlmsg_put_reply(msg, info, &rw_genl_family, 0,
				RW_CMD_TOPO_GET);
	if (!hdr || nla_put_string(msg, RW_JOB_A_NAME, job->cfg.name) ||
	    (t.cores && (nla_put_u32(msg, RW_JOB_A_CHUNKS, t.nr_chunks) ||
			 rw_put_topo(msg, &t))) ||
	    (boxes && rw_genl_put_boxes(msg, boxes, sh ? sh->chunks : NULL,
					sh ? sh->bytes : NULL))) {
		nlmsg_free(msg);
		goto out;
	}
	genlmsg_end(msg, hdr);
	ret = genlmsg_reply(msg, info);
out:
	kfree(sh);
	kfree(boxes);
	rw_engine_topo_free(&t);
	rw_job_put(job);
	return ret;
}

static int rw_put_u64s(struct sk_buff *skb, const u32 *attrs, const u64 *v,
		       u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (nla_put_u64_64bit(skb, attrs[i], v[i], RW_STAT_A_PAD))
			return -EMSGSIZE;
	return 0;
}

/* What the job's totals add up from its ranks. */
struct rw_rank_sums {
	u64 pulls, bytes, errors, evictions, late;
};

/*
 * One entry per rank, read once each; their sums go to *@sum for the
 * job's totals. Counters count since the job was created (past runs'
 * kept in the job); evictions are the gate's, this run's and the past
 * runs', less the departures it counted as evictions.
 */
static int rw_put_worker_stats(struct sk_buff *skb, struct rw_job *job,
			       struct rw_rank_sums *sum)
{
	static const u32 attrs[] = {
		RW_STAT_A_CLOCK, RW_STAT_A_PUSHES, RW_STAT_A_PULLS,
		RW_STAT_A_BYTES, RW_STAT_A_CHUNKS, RW_STAT_A_PARKS,
		RW_STAT_A_PARKED_NS, RW_STAT_A_EVICTIONS, RW_STAT_A_ERRORS,
		RW_STAT_A_LATE_DROPPED,
	};
	struct nlattr *list, *e;
	u32 r;

	lockdep_assert_held(&job->run_lock);
	list = nla_nest_start(skb, RW_JOB_A_WORKER_STATS);
	if (!list)
		return -EMSGSIZE;
	for (r = 0; r < job->cfg.workers; r++) {
		struct rw_worker_counters *wc = &job->wc[r];
		struct rw_gate_stats gs = {};
		u64 clock = 0;
		bool live = false;
		u64 v[ARRAY_SIZE(attrs)];

		if (job->sync)
			rw_sync_worker_stats(job->sync, r, &gs, &clock, &live);
		v[0] = clock;
		v[1] = atomic64_read(&wc->pushes);
		v[2] = atomic64_read(&wc->pulls);
		v[3] = atomic64_read(&wc->bytes);
		v[4] = atomic64_read(&wc->chunks);
		v[5] = gs.parks + atomic64_read(&wc->past_parks);
		v[6] = gs.parked_ns + atomic64_read(&wc->past_parked_ns);
		v[7] = gs.evictions + atomic64_read(&wc->past_evictions) -
		       atomic64_read(&wc->leaves);
		v[8] = atomic64_read(&wc->errors);
		v[9] = atomic64_read(&wc->late) +
		       (job->engine ? rw_engine_late(job->engine, r) : 0);
		sum->late += v[9];
		sum->pulls += v[2];
		sum->bytes += v[3];
		sum->evictions += v[7];
		sum->errors += v[8];
		e = nla_nest_start(skb, RW_JOB_A_ENTRY);
		if (!e || nla_put_u32(skb, RW_STAT_A_RANK, r) ||
		    nla_put_u32(skb, RW_STAT_A_ATTACHED,
				!!READ_ONCE(job->ranks[r])) ||
		    nla_put_u32(skb, RW_STAT_A_LIVE, live) ||
		    rw_put_u64s(skb, attrs, v, ARRAY_SIZE(attrs)))
			return -EMSGSIZE;
		nla_nest_end(skb, e);
	}
	nla_nest_end(skb, list);
	return 0;
}

static int rw_put_job_stats(struct sk_buff *skb, struct rw_job *job,
			    const struct rw_rank_sums *sum)
{
	static const u32 attrs[] = {
		RW_STAT_A_PUSHES, RW_STAT_A_PULLS, RW_STAT_A_BYTES,
		RW_STAT_A_CHUNKS, RW_STAT_A_STEPS, RW_STAT_A_BUSY,
		RW_STAT_A_MIGRATIONS, RW_STAT_A_ERRORS, RW_STAT_A_MIN_CLOCK,
		RW_STAT_A_MAX_SKEW, RW_STAT_A_EVICTIONS, RW_STAT_A_LATE_DROPPED,
	};
	/* A job over several boxes: what moves gave and took. */
	static const u32 moved[] = { RW_STAT_A_MOVED_OUT, RW_STAT_A_MOVED_IN };
	u64 m[ARRAY_SIZE(moved)];
	struct rw_engine_stats es = {};
	struct rw_sync_info si = {};
	struct nlattr *nest;
	u64 v[ARRAY_SIZE(attrs)];

	lockdep_assert_held(&job->run_lock);
	if (job->engine)
		rw_engine_get_stats(job->engine, &es);
	if (job->sync)
		rw_sync_info(job->sync, &si);
	/* Counters add the past runs'; the gate's state is this run's. */
	es.pushes += job->past.pushes;
	es.busy += job->past.busy;
	es.steps += job->past.steps;
	es.migrations += job->past.migrations;
	es.errors += job->past.errors;
	v[0] = es.pushes;
	v[1] = sum->pulls;
	v[2] = sum->bytes;
	v[3] = es.pushes;
	v[4] = es.steps;
	v[5] = es.busy;
	v[6] = es.migrations;
	v[7] = sum->errors + es.errors;
	v[8] = si.min_clock;
	v[9] = si.max_skew;
	v[10] = sum->evictions;
	v[11] = sum->late;
	m[0] = atomic64_read(&job->moved_out);
	m[1] = atomic64_read(&job->moved_in);
	nest = nla_nest_start(skb, RW_JOB_A_STATS);
	if (!nest || rw_put_u64s(skb, attrs, v, ARRAY_SIZE(attrs)) ||
	    nla_put_u32(skb, RW_STAT_A_EPOCH, si.epoch) ||
	    nla_put_u32(skb, RW_STAT_A_LIVE, si.nr_live) ||
	    nla_put_u32(skb, RW_STAT_A_PARKED, si.nr_parked) ||
	    ((job->boxes || m[0] || m[1]) &&
	     rw_put_u64s(skb, moved, m, ARRAY_SIZE(moved))))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

int rw_genl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	struct rw_rank_sums sum = {};
	struct sk_buff *msg;
	struct rw_job *job;
	void *hdr;
	int ret;

	job = rw_genl_job(info);
	if (IS_ERR(job))
		return PTR_ERR(job);
	ret = -ENOMEM;
	msg = genlmsg_new(NLMSG_GOODSIZE + (size_t)job->cfg.workers * 208,
			  GFP_KERNEL);
	if (!msg)
		goto out;
	ret = -EMSGSIZE;
	mutex_lock(&job->run_lock);
	hdr = genlmsg_put_reply(msg, info, &rw_genl_family, 0,
				RW_CMD_STATS_GET);
	/* Ranks first: the job's totals are their sums (order is free). */
	if (hdr && !nla_put_string(msg, RW_JOB_A_NAME, job->cfg.name) &&
	    !rw_put_worker_stats(msg, job, &sum) &&
	    !rw_put_job_stats(msg, job, &sum))
		ret = 0;
	mutex_unlock(&job->run_lock);
	if (ret) {
		nlmsg_free(msg);
		goto out;
	}
	genlmsg_end(msg, hdr);
	ret = genlmsg_reply(msg, info);
out:
	rw_job_put(job);
	return ret;
}
