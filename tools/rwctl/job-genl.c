// SPDX-License-Identifier: GPL-2.0
/*
 * The job commands over generic netlink: RW_CMD_JOB_NEW, RW_CMD_JOB_DEL,
 * RW_CMD_JOB_GET (doit or dump) and RW_CMD_POLICY_SET, and the parser of a
 * job message into struct rwctl_job. The exchange itself is genl-req.c's.
 *
 * As in genl.c, every fixed-size attribute states minlen and maxlen alike
 * (libnl checks only the minimum by default), and strings a maxlen equal to
 * the buffer they are copied into.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>

#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "genl.h"
#include "backend.h"
#include "boxes.h"
#include "job.h"
#include "stats.h"
#include "topo.h"

#define RWCTL_JOB_U32	{ .type = NLA_U32, .minlen = 4, .maxlen = 4 }
#define RWCTL_JOB_U64	{ .type = NLA_U64, .minlen = 8, .maxlen = 8 }

static const struct nla_policy rwctl_job_policy[RW_JOB_A_MAX + 1] = {
	[RW_JOB_A_NAME]		= { .type = NLA_STRING, .maxlen = RW_JOB_NAME_MAX },
	[RW_JOB_A_ID]		= RWCTL_JOB_U32,
	[RW_JOB_A_WORKERS]	= RWCTL_JOB_U32,
	[RW_JOB_A_CHUNK_SIZE]	= RWCTL_JOB_U32,
	[RW_JOB_A_TOKEN]	= { .type = NLA_UNSPEC, .minlen = RW_JOB_TOKEN_LEN,
				    .maxlen = RW_JOB_TOKEN_LEN },
	[RW_JOB_A_SYNC]		= RWCTL_JOB_U32,
	[RW_JOB_A_STALENESS]	= RWCTL_JOB_U32,
	[RW_JOB_A_STALENESS_LO]	= RWCTL_JOB_U32,
	[RW_JOB_A_STALENESS_HI]	= RWCTL_JOB_U32,
	[RW_JOB_A_EVICT_MS]	= RWCTL_JOB_U32,
	[RW_JOB_A_OPTIM]	= RWCTL_JOB_U32,
	[RW_JOB_A_LR]		= RWCTL_JOB_U32,
	[RW_JOB_A_MOMENTUM]	= RWCTL_JOB_U32,
	[RW_JOB_A_WEIGHT_DECAY]	= RWCTL_JOB_U32,
	[RW_JOB_A_BETA1]	= RWCTL_JOB_U32,
	[RW_JOB_A_BETA2]	= RWCTL_JOB_U32,
	[RW_JOB_A_EPS]		= RWCTL_JOB_U32,
	[RW_JOB_A_FLAGS]	= RWCTL_JOB_U32,
	[RW_JOB_A_ATTACHED]	= RWCTL_JOB_U32,
	[RW_JOB_A_MAPPINGS]	= RWCTL_JOB_U32,
	[RW_JOB_A_TENSORS]	= RWCTL_JOB_U32,
	[RW_JOB_A_CHUNKS]	= RWCTL_JOB_U32,
	[RW_JOB_A_MODEL_BYTES]	= RWCTL_JOB_U64,
	[RW_JOB_A_QUORUM]	= RWCTL_JOB_U32,
	[RW_JOB_A_MAX_MEMORY]	= RWCTL_JOB_U64,
	[RW_JOB_A_MEMORY_LIMIT]	= RWCTL_JOB_U64,
	[RW_JOB_A_MEMORY]	= RWCTL_JOB_U64,
	[RW_JOB_A_BOXES]	= { .type = NLA_NESTED },
	[RW_JOB_A_BOX_SELF]	= RWCTL_JOB_U32,
	[RW_JOB_A_BOX_EPOCH]	= RWCTL_JOB_U32,
	[RW_JOB_A_MOVE]		= { .type = NLA_NESTED },
	[RW_JOB_A_CARRY_DUE]	= RWCTL_JOB_U32,
};

/* Attribute of each enum rwctl_job_hp. */
static const int rwctl_job_hp_attr[RWCTL_NR_HP] = {
	[RWCTL_HP_LR]		= RW_JOB_A_LR,
	[RWCTL_HP_MOMENTUM]	= RW_JOB_A_MOMENTUM,
	[RWCTL_HP_WEIGHT_DECAY]	= RW_JOB_A_WEIGHT_DECAY,
	[RWCTL_HP_BETA1]	= RW_JOB_A_BETA1,
	[RWCTL_HP_BETA2]	= RW_JOB_A_BETA2,
	[RWCTL_HP_EPS]		= RW_JOB_A_EPS,
};

#define rwctl_job_bad(msg, msglen, fmt, ...)				\
	rwctl_genl_fail(msg, msglen, -EPROTO,				\
		       "malformed job reply from the rackweave module: " \
		       fmt, ##__VA_ARGS__)

void rwctl_job_list_free(struct rwctl_job_list *list)
{
	free(list->jobs);
	list->jobs = NULL;
	list->nr = 0;
}

static float rwctl_job_get_float(struct nlattr *a)
{
	uint32_t bits = nla_get_u32(a);
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

int rwctl_genl_parse_job(struct nlmsghdr *nlh, struct rwctl_job *job,
			 char *msg, size_t msglen)
{
	static const int required[] = {
		RW_JOB_A_NAME, RW_JOB_A_ID, RW_JOB_A_WORKERS,
		RW_JOB_A_CHUNK_SIZE, RW_JOB_A_SYNC, RW_JOB_A_EVICT_MS,
		RW_JOB_A_OPTIM, RW_JOB_A_ATTACHED,
	};
	struct nlattr *tb[RW_JOB_A_MAX + 1];
	size_t i;
	int err;

	memset(job, 0, sizeof(*job));
	err = rwctl_genl_parse_msg(nlh, tb, RW_JOB_A_MAX, rwctl_job_policy);
	if (err < 0)
		return rwctl_job_bad(msg, msglen, "%s", rwctl_genl_strerror(err));

	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if (!tb[required[i]])
			return rwctl_job_bad(msg, msglen,
					     "attribute %d missing", required[i]);

	if (nla_len(tb[RW_JOB_A_NAME]) < 2)
		return rwctl_job_bad(msg, msglen, "empty job name");
	nla_strlcpy(job->name, tb[RW_JOB_A_NAME], sizeof(job->name));
	job->id = nla_get_u32(tb[RW_JOB_A_ID]);
	job->workers = nla_get_u32(tb[RW_JOB_A_WORKERS]);
	job->chunk_size = nla_get_u32(tb[RW_JOB_A_CHUNK_SIZE]);
	job->sync = nla_get_u32(tb[RW_JOB_A_SYNC]);
	job->evict_ms = nla_get_u32(tb[RW_JOB_A_EVICT_MS]);
	job->optim = nla_get_u32(tb[RW_JOB_A_OPTIM]);
	job->attached = nla_get_u32(tb[RW_JOB_A_ATTACHED]);
	/* Older modules have no quorum: every worker's gradient, as 0 says. */
	job->quorum = tb[RW_JOB_A_QUORUM] ?
		      nla_get_u32(tb[RW_JOB_A_QUORUM]) : 0;
	if (!job->quorum)
		job->quorum = job->workers;
	if (tb[RW_JOB_A_MAPPINGS])
		job->mappings = nla_get_u32(tb[RW_JOB_A_MAPPINGS]);
	/* A run's layout comes whole or not at all. */
	if (tb[RW_JOB_A_TENSORS] || tb[RW_JOB_A_CHUNKS] ||
	    tb[RW_JOB_A_MODEL_BYTES]) {
		if (!tb[RW_JOB_A_TENSORS] || !tb[RW_JOB_A_CHUNKS] ||
		    !tb[RW_JOB_A_MODEL_BYTES])
			return rwctl_job_bad(msg, msglen,
					     "job '%s' with part of its layout",
					     job->name);
		job->has_run = true;
		job->tensors = nla_get_u32(tb[RW_JOB_A_TENSORS]);
		job->chunks = nla_get_u32(tb[RW_JOB_A_CHUNKS]);
		job->model_bytes = nla_get_u64(tb[RW_JOB_A_MODEL_BYTES]);
	}
	/* Memory limits likewise; a module older than them sends none. */
	if (tb[RW_JOB_A_MAX_MEMORY] || tb[RW_JOB_A_MEMORY_LIMIT] ||
	    tb[RW_JOB_A_MEMORY]) {
		if (!tb[RW_JOB_A_MAX_MEMORY] || !tb[RW_JOB_A_MEMORY_LIMIT] ||
		    !tb[RW_JOB_A_MEMORY])
			return rwctl_job_bad(msg, msglen,
					     "job '%s' with part of its memory figures",
					     job->name);
		job->has_memory = true;
		job->max_memory = nla_get_u64(tb[RW_JOB_A_MAX_MEMORY]);
		job->memory_limit = nla_get_u64(tb[RW_JOB_A_MEMORY_LIMIT]);
		job->memory = nla_get_u64(tb[RW_JOB_A_MEMORY]);
	}

	switch (job->sync) {
	case RW_SYNC_SSP:
		if (!tb[RW_JOB_A_STALENESS])
			return rwctl_job_bad(msg, msglen,
					     "SSP job '%s' without its staleness bound",
					     job->name);
		job->staleness = nla_get_u32(tb[RW_JOB_A_STALENESS]);
		break;
	case RW_SYNC_ADAPTIVE:
		if (!tb[RW_JOB_A_STALENESS_LO] || !tb[RW_JOB_A_STALENESS_HI])
			return rwctl_job_bad(msg, msglen,
					     "adaptive job '%s' without its staleness band",
					     job->name);
		job->staleness_lo = nla_get_u32(tb[RW_JOB_A_STALENESS_LO]);
		job->staleness_hi = nla_get_u32(tb[RW_JOB_A_STALENESS_HI]);
		break;
	default:
		break;
	}

	for (i = 0; i < RWCTL_NR_HP; i++) {
		if (!tb[rwctl_job_hp_attr[i]])
			continue;
		job->hp[i] = rwctl_job_get_float(tb[rwctl_job_hp_attr[i]]);
		job->hp_mask |= 1U << i;
	}

	if (tb[RW_JOB_A_TOKEN]) {
		memcpy(job->token, nla_data(tb[RW_JOB_A_TOKEN]),
		       RW_JOB_TOKEN_LEN);
		job->has_token = true;
	}
	if (tb[RW_JOB_A_CARRY_DUE])
		job->carry_due = nla_get_u32(tb[RW_JOB_A_CARRY_DUE]);
	err = rwctl_boxes_parse_reply(tb, &job->boxes, false, "job", msg,
				      msglen);
	if (err)
		return err;
	return rwctl_boxes_parse_move(tb[RW_JOB_A_MOVE], rwctl_job_policy,
				      RW_JOB_A_MAX, &job->move, "job", msg,
				      msglen);
}

static int rwctl_job_put_float(struct nl_msg *m, int type, float f)
{
	uint32_t bits;

	memcpy(&bits, &f, sizeof(bits));
	return nla_put_u32(m, type, bits);
}

int rwctl_job_put_settings(struct nl_msg *m, const struct rwctl_job_add *a)
{
	size_t i;

	if (nla_put_string(m, RW_JOB_A_NAME, a->name))
		return -EMSGSIZE;
	if (a->has_workers && nla_put_u32(m, RW_JOB_A_WORKERS, a->workers))
		return -EMSGSIZE;
	if (a->has_chunk_size &&
	    nla_put_u32(m, RW_JOB_A_CHUNK_SIZE, a->chunk_size))
		return -EMSGSIZE;
	if (a->has_token &&
	    nla_put(m, RW_JOB_A_TOKEN, RW_JOB_TOKEN_LEN, a->token))
		return -EMSGSIZE;
	if (a->has_sync) {
		if (nla_put_u32(m, RW_JOB_A_SYNC, a->sync))
			return -EMSGSIZE;
		if (a->sync == RW_SYNC_SSP &&
		    nla_put_u32(m, RW_JOB_A_STALENESS, a->staleness))
			return -EMSGSIZE;
		if (a->sync == RW_SYNC_ADAPTIVE &&
		    (nla_put_u32(m, RW_JOB_A_STALENESS_LO, a->staleness_lo) ||
		     nla_put_u32(m, RW_JOB_A_STALENESS_HI, a->staleness_hi)))
			return -EMSGSIZE;
	}
	/* "all" was turned into the worker count by rwctl_job_check_quorum(). */
	if (a->has_quorum && nla_put_u32(m, RW_JOB_A_QUORUM, a->quorum))
		return -EMSGSIZE;
	if (a->has_evict_ms && nla_put_u32(m, RW_JOB_A_EVICT_MS, a->evict_ms))
		return -EMSGSIZE;
	/* 0 ("default") too: policy set goes back to the default with it. */
	if (a->has_max_memory &&
	    nla_put_u64(m, RW_JOB_A_MAX_MEMORY, a->max_memory))
		return -EMSGSIZE;
	if (a->has_optim && nla_put_u32(m, RW_JOB_A_OPTIM, a->optim))
		return -EMSGSIZE;
	for (i = 0; i < RWCTL_NR_HP; i++)
		if ((a->hp_mask & (1U << i)) &&
		    rwctl_job_put_float(m, rwctl_job_hp_attr[i], a->hp[i]))
			return -EMSGSIZE;
	if (a->has_boxes && rwctl_boxes_put(m, &a->boxes))
		return -EMSGSIZE;
	return 0;
}

static int rwctl_job_put_add(struct nl_msg *m, const void *arg)
{
	return rwctl_job_put_settings(m, arg);
}

static int rwctl_job_put_name(struct nl_msg *m, const void *arg)
{
	return nla_put_string(m, RW_JOB_A_NAME, arg);
}

/* "job del": the name and, if forced, the flag. */
struct rwctl_job_del_req {
	const char *name;
	bool force;
};

static int rwctl_job_put_del(struct nl_msg *m, const void *arg)
{
	const struct rwctl_job_del_req *d = arg;

	if (nla_put_string(m, RW_JOB_A_NAME, d->name))
		return -EMSGSIZE;
	if (d->force && nla_put_u32(m, RW_JOB_A_FLAGS, RW_JOB_DEL_FORCE))
		return -EMSGSIZE;
	return 0;
}

/* Each reply appended to the struct rwctl_job_list @arg. */
static int rwctl_job_on_reply(struct nlmsghdr *nlh, void *arg, char *msg,
			      size_t msglen)
{
	struct rwctl_job_list *list = arg;
	struct rwctl_job *jobs;
	int err;

	jobs = realloc(list->jobs, (list->nr + 1) * sizeof(*list->jobs));
	if (!jobs)
		return rwctl_genl_fail(msg, msglen, -ENOMEM, "out of memory");
	list->jobs = jobs;
	err = rwctl_genl_parse_job(nlh, &jobs[list->nr], msg, msglen);
	if (!err)
		list->nr++;
	return err;
}

/* RW_CMD_JOB_NEW or RW_CMD_POLICY_SET: one job comes back. */
static int rwctl_job_genl_set(int cmd, const struct rwctl_job_add *a,
			      struct rwctl_job *out, struct rwctl_err *e)
{
	struct rwctl_job_list list = { 0 };
	int err;

	err = rwctl_genl_request(cmd, false, rwctl_job_put_add, a,
				 rwctl_job_on_reply, &list, e);
	if (!err && list.nr != 1)
		err = rwctl_genl_fail(e->msg, sizeof(e->msg), -EPROTO,
				      "the rackweave module answered with %zu jobs instead of one",
				      list.nr);
	if (!err)
		*out = list.jobs[0];
	if (list.jobs)
		memset(list.jobs, 0, list.nr * sizeof(*list.jobs));
	rwctl_job_list_free(&list);
	return err;
}

static int rwctl_job_genl_add(const struct rwctl_job_add *a,
			      struct rwctl_job *out, struct rwctl_err *e)
{
	return rwctl_job_genl_set(RW_CMD_JOB_NEW, a, out, e);
}

static int rwctl_job_genl_policy(const struct rwctl_job_add *a,
				 struct rwctl_job *out, struct rwctl_err *e)
{
	return rwctl_job_genl_set(RW_CMD_POLICY_SET, a, out, e);
}

static int rwctl_job_genl_del(const char *name, bool force,
			      struct rwctl_err *e)
{
	struct rwctl_job_del_req d = { .name = name, .force = force };

	return rwctl_genl_request(RW_CMD_JOB_DEL, false, rwctl_job_put_del, &d,
				  NULL, NULL, e);
}

static int rwctl_job_genl_get(const char *name, struct rwctl_job_list *list,
			      struct rwctl_err *e)
{
	int err;

	err = rwctl_genl_request(RW_CMD_JOB_GET, !name,
				 name ? rwctl_job_put_name : NULL, name,
				 rwctl_job_on_reply, list, e);
	if (!err && name && list->nr != 1)
		err = rwctl_genl_fail(e->msg, sizeof(e->msg), -EPROTO,
				      "the rackweave module answered with %zu jobs instead of one",
				      list->nr);
	return err;
}

const struct rwctl_job_backend rwctl_job_genl_backend = {
	.add = rwctl_job_genl_add,
	.del = rwctl_job_genl_del,
	.get = rwctl_job_genl_get,
	.policy = rwctl_job_genl_policy,
	.topo = rwctl_topo_genl_get,
	.stats = rwctl_stats_genl_get,
};
