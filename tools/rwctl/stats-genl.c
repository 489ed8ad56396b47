// SPDX-License-Identifier: GPL-2.0
/*
 * RW_CMD_STATS_GET over generic netlink and the parser of its reply:
 *
 *   RW_JOB_A_NAME, RW_JOB_A_STATS (a nest of RW_STAT_A_* for the job) and
 *   RW_JOB_A_WORKER_STATS (a nest of RW_JOB_A_ENTRY entries, one per rank,
 *   each a nest of RW_STAT_A_*).
 *
 * RW_STAT_A_LATE_DROPPED is always there once parsed: 0 when the module
 * did not send it.
 *
 * Every value lands in one array indexed by its attribute, so the parser
 * is a policy table and a loop; the uapi says which are u32 and which u64,
 * and each must have exactly its length.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "genl.h"
#include "stats.h"

#define RWCTL_STAT_U32	{ .type = NLA_U32, .minlen = 4, .maxlen = 4 }
#define RWCTL_STAT_U64	{ .type = NLA_U64, .minlen = 8, .maxlen = 8 }

static const struct nla_policy rwctl_stats_reply_policy[RW_JOB_A_MAX + 1] = {
	[RW_JOB_A_NAME]		= { .type = NLA_STRING, .maxlen = RW_JOB_NAME_MAX },
	[RW_JOB_A_STATS]	= { .type = NLA_NESTED },
	[RW_JOB_A_WORKER_STATS]	= { .type = NLA_NESTED },
};

static const struct nla_policy rwctl_stat_policy[RW_STAT_A_MAX + 1] = {
	[RW_STAT_A_RANK]	= RWCTL_STAT_U32,
	[RW_STAT_A_ATTACHED]	= RWCTL_STAT_U32,
	[RW_STAT_A_LIVE]	= RWCTL_STAT_U32,
	[RW_STAT_A_CLOCK]	= RWCTL_STAT_U64,
	[RW_STAT_A_PUSHES]	= RWCTL_STAT_U64,
	[RW_STAT_A_PULLS]	= RWCTL_STAT_U64,
	[RW_STAT_A_BYTES]	= RWCTL_STAT_U64,
	[RW_STAT_A_CHUNKS]	= RWCTL_STAT_U64,
	[RW_STAT_A_PARKS]	= RWCTL_STAT_U64,
	[RW_STAT_A_PARKED_NS]	= RWCTL_STAT_U64,
	[RW_STAT_A_EVICTIONS]	= RWCTL_STAT_U64,
	[RW_STAT_A_ERRORS]	= RWCTL_STAT_U64,
	[RW_STAT_A_STEPS]	= RWCTL_STAT_U64,
	[RW_STAT_A_BUSY]	= RWCTL_STAT_U64,
	[RW_STAT_A_MIGRATIONS]	= RWCTL_STAT_U64,
	[RW_STAT_A_MIN_CLOCK]	= RWCTL_STAT_U64,
	[RW_STAT_A_MAX_SKEW]	= RWCTL_STAT_U64,
	[RW_STAT_A_EPOCH]	= RWCTL_STAT_U32,
	[RW_STAT_A_PARKED]	= RWCTL_STAT_U32,
	[RW_STAT_A_LATE_DROPPED] = RWCTL_STAT_U64,
	[RW_STAT_A_MOVED_OUT]	= RWCTL_STAT_U64,
	[RW_STAT_A_MOVED_IN]	= RWCTL_STAT_U64,
};

_Static_assert(RW_STAT_A_MAX < 32, "struct rwctl_stat_set.mask holds a bit per attribute");

#define rwctl_stats_bad(msg, msglen, fmt, ...)				\
	rwctl_genl_fail(msg, msglen, -EPROTO,				\
			"malformed statistics reply from the rackweave module: " \
			fmt, ##__VA_ARGS__)

void rwctl_stats_free(struct rwctl_stats *s)
{
	free(s->workers);
	memset(s, 0, sizeof(*s));
}

/* The values of the nest @nest into @set; @what names it in messages. */
static int rwctl_stats_set(struct nlattr *nest, struct rwctl_stat_set *set,
			   const char *what, size_t idx, char *msg,
			   size_t msglen)
{
	struct nlattr *tb[RW_STAT_A_MAX + 1];
	int a, err;

	err = rwctl_genl_parse_nested(tb, RW_STAT_A_MAX, nest,
				      rwctl_stat_policy);
	if (err < 0)
		return rwctl_stats_bad(msg, msglen, "%s %zu: %s", what, idx,
				       rwctl_genl_strerror(err));
	memset(set, 0, sizeof(*set));
	for (a = 1; a <= RW_STAT_A_MAX; a++) {
		if (!tb[a] || !rwctl_stat_policy[a].type)
			continue;
		set->v[a] = rwctl_stat_policy[a].type == NLA_U32 ?
			    nla_get_u32(tb[a]) : nla_get_u64(tb[a]);
		set->mask |= 1U << a;
	}
	/*
	 * Modules older than BSP quorums drop no gradient and do not send
	 * the count: none were dropped.
	 */
	set->mask |= 1U << RW_STAT_A_LATE_DROPPED;
	return 0;
}

static int rwctl_stats_cmp_rank(const void *a, const void *b)
{
	const struct rwctl_stat_set *x = a, *y = b;

	return x->v[RW_STAT_A_RANK] < y->v[RW_STAT_A_RANK] ? -1 :
	       x->v[RW_STAT_A_RANK] > y->v[RW_STAT_A_RANK];
}

static int rwctl_stats_workers(struct nlattr *list, struct rwctl_stats *s,
			       char *msg, size_t msglen)
{
	struct nlattr *entry;
	struct rwctl_stat_set *w;
	int rem, err;
	size_t n, i;

	/* One spare element so that an empty list still allocates. */
	n = list ? rwctl_genl_count(list, RW_JOB_A_ENTRY) : 0;
	s->workers = calloc(n + 1, sizeof(*s->workers));
	if (!s->workers)
		return rwctl_genl_fail(msg, msglen, -ENOMEM, "out of memory");
	if (!list)
		return 0;

	nla_for_each_nested(entry, list, rem) {
		if (nla_type(entry) != RW_JOB_A_ENTRY)
			continue;
		w = &s->workers[s->nr_workers];
		err = rwctl_stats_set(entry, w, "worker entry", s->nr_workers,
				      msg, msglen);
		if (err)
			return err;
		if (!(w->mask & (1U << RW_STAT_A_RANK)))
			return rwctl_stats_bad(msg, msglen,
					       "worker entry %zu without its rank",
					       s->nr_workers);
		s->nr_workers++;
	}
	if (rem > 0)
		return rwctl_stats_bad(msg, msglen,
				       "trailing bytes in the worker list");

	qsort(s->workers, s->nr_workers, sizeof(*s->workers),
	      rwctl_stats_cmp_rank);
	for (i = 1; i < s->nr_workers; i++)
		if (s->workers[i].v[RW_STAT_A_RANK] ==
		    s->workers[i - 1].v[RW_STAT_A_RANK])
			return rwctl_stats_bad(msg, msglen,
					       "rank %llu reported twice",
					       (unsigned long long)s->workers[i].v[RW_STAT_A_RANK]);
	return 0;
}

int rwctl_genl_parse_stats(struct nlmsghdr *nlh, struct rwctl_stats *s,
			   char *msg, size_t msglen)
{
	struct nlattr *tb[RW_JOB_A_MAX + 1];
	int err;

	memset(s, 0, sizeof(*s));
	err = rwctl_genl_parse_msg(nlh, tb, RW_JOB_A_MAX,
				   rwctl_stats_reply_policy);
	if (err < 0)
		return rwctl_stats_bad(msg, msglen, "%s", rwctl_genl_strerror(err));
	if (!tb[RW_JOB_A_NAME] || nla_len(tb[RW_JOB_A_NAME]) < 2)
		return rwctl_stats_bad(msg, msglen, "no job name");
	nla_strlcpy(s->name, tb[RW_JOB_A_NAME], sizeof(s->name));
	if (!tb[RW_JOB_A_STATS])
		return rwctl_stats_bad(msg, msglen, "no job totals");
	err = rwctl_stats_set(tb[RW_JOB_A_STATS], &s->job, "job totals", 0,
			      msg, msglen);
	if (err)
		return err;
	return rwctl_stats_workers(tb[RW_JOB_A_WORKER_STATS], s, msg, msglen);
}

/* State of one RW_CMD_STATS_GET: the one reply expected. */
struct rwctl_stats_req {
	struct rwctl_stats *s;
	unsigned int replies;
};

static int rwctl_stats_on_reply(struct nlmsghdr *nlh, void *arg, char *msg,
				size_t msglen)
{
	struct rwctl_stats_req *req = arg;

	if (req->replies++)
		return rwctl_genl_fail(msg, msglen, -EPROTO,
				       "the rackweave module sent more than one statistics reply");
	return rwctl_genl_parse_stats(nlh, req->s, msg, msglen);
}

static int rwctl_stats_put_name(struct nl_msg *m, const void *arg)
{
	return nla_put_string(m, RW_JOB_A_NAME, arg);
}

int rwctl_stats_genl_get(const char *name, struct rwctl_stats *s,
			 struct rwctl_err *e)
{
	struct rwctl_stats_req req = { .s = s };
	int err;

	err = rwctl_genl_request(RW_CMD_STATS_GET, false, rwctl_stats_put_name,
				 name, rwctl_stats_on_reply, &req, e);
	if (err)
		return err;
	if (!req.replies)
		return rwctl_genl_fail(e->msg, sizeof(e->msg), -EPROTO,
				       "the rackweave module acknowledged the statistics request without a reply");
	if (strcmp(s->name, name))
		return rwctl_genl_fail(e->msg, sizeof(e->msg), -EPROTO,
				       "the rackweave module answered for job '%s' instead of '%s'",
				       s->name, name);
	return 0;
}
