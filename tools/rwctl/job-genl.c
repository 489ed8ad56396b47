// SPDX-License-Identifier: GPL-2.0
/*
 * The job commands over generic netlink: RW_CMD_JOB_NEW, RW_CMD_JOB_DEL and
 * RW_CMD_JOB_GET (doit or dump), and the parser of a job message into
 * struct rwctl_job.
 *
 * As in genl.c, every fixed-size attribute states minlen and maxlen alike
 * (libnl checks only the minimum by default), and strings a maxlen equal to
 * the buffer they are copied into.
 *
 * Doit requests ask for an ack, so a reply is followed by the ack or an
 * error. A dump ends with NLMSG_DONE (which may carry an error); a dump
 * that raced with a change is flagged NLM_F_DUMP_INTR, is read to its end
 * and then reported as -EAGAIN so that the caller can retry.
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
#include "job.h"

#define RWCTL_JOB_U32	{ .type = NLA_U32, .minlen = 4, .maxlen = 4 }

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
	err = genlmsg_parse(nlh, 0, tb, RW_JOB_A_MAX, rwctl_job_policy);
	if (err < 0)
		return rwctl_job_bad(msg, msglen, "%s", nl_geterror(err));

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
	return 0;
}

/* State of one request, shared by the receive callbacks. */
struct rwctl_job_req {
	struct rwctl_job_list *list;	/* replies collected, if wanted */
	struct rwctl_job_err *e;
	bool done;
	bool intr;			/* NLM_F_DUMP_INTR seen */
	int parse_err;
	int kernel_err;
};

static int rwctl_job_on_reply(struct nl_msg *m, void *arg)
{
	struct rwctl_job_req *req = arg;
	struct rwctl_job *jobs;

	if (!req->list || req->parse_err)
		return NL_SKIP;
	jobs = realloc(req->list->jobs,
		       (req->list->nr + 1) * sizeof(*req->list->jobs));
	if (!jobs) {
		req->parse_err = rwctl_genl_fail(req->e->msg, sizeof(req->e->msg),
						-ENOMEM, "out of memory");
		return NL_SKIP;
	}
	req->list->jobs = jobs;
	req->parse_err = rwctl_genl_parse_job(nlmsg_hdr(m),
					      &jobs[req->list->nr],
					      req->e->msg, sizeof(req->e->msg));
	if (!req->parse_err)
		req->list->nr++;
	return NL_OK;
}

static int rwctl_job_on_ack(struct nl_msg *m, void *arg)
{
	struct rwctl_job_req *req = arg;

	(void)m;
	req->done = true;
	return NL_STOP;
}

/* NLMSG_DONE of a dump; its payload is 0 or a negative errno. */
static int rwctl_job_on_finish(struct nl_msg *m, void *arg)
{
	struct rwctl_job_req *req = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(m);
	int err;

	req->done = true;
	if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(err)) {
		memcpy(&err, nlmsg_data(nlh), sizeof(err));
		if (err < 0)
			req->kernel_err = err;
	}
	return NL_STOP;
}

static int rwctl_job_on_intr(struct nl_msg *m, void *arg)
{
	struct rwctl_job_req *req = arg;

	(void)m;
	req->intr = true;
	return NL_OK;
}

static int rwctl_job_on_error(struct sockaddr_nl *who, struct nlmsgerr *e,
			      void *arg)
{
	struct rwctl_job_req *req = arg;

	(void)who;
	req->done = true;
	req->kernel_err = e->error < 0 ? e->error : -EPROTO;
	rwctl_genl_extack(e, req->e->extack, sizeof(req->e->extack));
	return NL_STOP;
}

/*
 * Send @m (already filled in) and read until the ack, the error or the end
 * of the dump. Replies go into @list when it is not NULL.
 */
static int rwctl_job_exchange(struct nl_sock *sk, struct nl_msg *m,
			      struct rwctl_job_list *list,
			      struct rwctl_job_err *e)
{
	struct rwctl_job_req req = { .list = list, .e = e };
	struct nl_cb *cb;
	int err;

	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return rwctl_genl_fail(e->msg, sizeof(e->msg), -ENOMEM,
				      "out of memory");
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, rwctl_job_on_reply, &req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, rwctl_job_on_ack, &req);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, rwctl_job_on_finish, &req);
	nl_cb_set(cb, NL_CB_DUMP_INTR, NL_CB_CUSTOM, rwctl_job_on_intr, &req);
	nl_cb_err(cb, NL_CB_CUSTOM, rwctl_job_on_error, &req);

	err = nl_send_auto(sk, m);
	if (err < 0) {
		err = rwctl_genl_fail(e->msg, sizeof(e->msg), -EIO,
				     "cannot send to the rackweave module: %s",
				     nl_geterror(err));
		goto out;
	}
	while (!req.done) {
		err = nl_recvmsgs(sk, cb);
		if (err < 0 && !req.done) {
			err = rwctl_genl_fail(e->msg, sizeof(e->msg), -EIO,
					     "no answer from the rackweave module: %s",
					     nl_geterror(err));
			goto out;
		}
	}

	if (req.kernel_err) {
		e->kernel = true;
		err = req.kernel_err;
	} else if (req.parse_err) {
		err = req.parse_err;		/* e->msg says what */
	} else if (req.intr) {
		err = rwctl_genl_fail(e->msg, sizeof(e->msg), -EAGAIN,
				     "the job list changed while it was read");
	} else {
		err = 0;
	}
out:
	nl_cb_put(cb);
	return err;
}

/* Socket, family and a message with the genl header of @cmd. */
static int rwctl_job_begin(struct nl_sock **sk, struct nl_msg **m, int cmd,
			   int flags, struct rwctl_job_err *e)
{
	int family, err;

	*m = NULL;
	err = rwctl_genl_open(sk, &family, e->msg, sizeof(e->msg));
	if (err)
		return err;
	*m = nlmsg_alloc();
	if (!*m || !genlmsg_put(*m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
				flags, cmd, RW_GENL_VERSION)) {
		nlmsg_free(*m);
		*m = NULL;
		nl_socket_free(*sk);
		*sk = NULL;
		return rwctl_genl_fail(e->msg, sizeof(e->msg), -ENOMEM,
				      "out of memory");
	}
	return 0;
}

static void rwctl_job_end(struct nl_sock *sk, struct nl_msg *m)
{
	nlmsg_free(m);
	nl_socket_free(sk);
}

static int rwctl_job_put_float(struct nl_msg *m, int type, float f)
{
	uint32_t bits;

	memcpy(&bits, &f, sizeof(bits));
	return nla_put_u32(m, type, bits);
}

static int rwctl_job_put_add(struct nl_msg *m, const struct rwctl_job_add *a)
{
	size_t i;

	if (nla_put_string(m, RW_JOB_A_NAME, a->name) ||
	    nla_put_u32(m, RW_JOB_A_WORKERS, a->workers))
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
	if (a->has_evict_ms && nla_put_u32(m, RW_JOB_A_EVICT_MS, a->evict_ms))
		return -EMSGSIZE;
	if (a->has_optim && nla_put_u32(m, RW_JOB_A_OPTIM, a->optim))
		return -EMSGSIZE;
	for (i = 0; i < RWCTL_NR_HP; i++)
		if ((a->hp_mask & (1U << i)) &&
		    rwctl_job_put_float(m, rwctl_job_hp_attr[i], a->hp[i]))
			return -EMSGSIZE;
	return 0;
}

static int rwctl_job_genl_add(const struct rwctl_job_add *a,
			      struct rwctl_job *out, struct rwctl_job_err *e)
{
	struct rwctl_job_list list = { 0 };
	struct nl_sock *sk;
	struct nl_msg *m;
	int err;

	err = rwctl_job_begin(&sk, &m, RW_CMD_JOB_NEW, 0, e);
	if (err)
		return err;
	if (rwctl_job_put_add(m, a)) {
		err = rwctl_genl_fail(e->msg, sizeof(e->msg), -EMSGSIZE,
				     "the request does not fit in a message");
		goto out;
	}
	err = rwctl_job_exchange(sk, m, &list, e);
	if (!err && list.nr != 1)
		err = rwctl_genl_fail(e->msg, sizeof(e->msg), -EPROTO,
				     "the rackweave module answered the new job with %zu replies instead of one",
				     list.nr);
	if (!err)
		*out = list.jobs[0];
out:
	rwctl_job_list_free(&list);
	rwctl_job_end(sk, m);
	return err;
}

static int rwctl_job_genl_del(const char *name, bool force,
			      struct rwctl_job_err *e)
{
	struct nl_sock *sk;
	struct nl_msg *m;
	int err;

	err = rwctl_job_begin(&sk, &m, RW_CMD_JOB_DEL, 0, e);
	if (err)
		return err;
	if (nla_put_string(m, RW_JOB_A_NAME, name) ||
	    (force && nla_put_u32(m, RW_JOB_A_FLAGS, RW_JOB_DEL_FORCE))) {
		err = rwctl_genl_fail(e->msg, sizeof(e->msg), -EMSGSIZE,
				     "the request does not fit in a message");
		goto out;
	}
	err = rwctl_job_exchange(sk, m, NULL, e);
out:
	rwctl_job_end(sk, m);
	return err;
}

static int rwctl_job_genl_get(const char *name, struct rwctl_job_list *list,
			      struct rwctl_job_err *e)
{
	struct nl_sock *sk;
	struct nl_msg *m;
	int err;

	err = rwctl_job_begin(&sk, &m, RW_CMD_JOB_GET, name ? 0 : NLM_F_DUMP,
			      e);
	if (err)
		return err;
	if (name && nla_put_string(m, RW_JOB_A_NAME, name)) {
		err = rwctl_genl_fail(e->msg, sizeof(e->msg), -EMSGSIZE,
				     "the request does not fit in a message");
		goto out;
	}
	err = rwctl_job_exchange(sk, m, list, e);
	if (!err && name && list->nr != 1)
		err = rwctl_genl_fail(e->msg, sizeof(e->msg), -EPROTO,
				     "the rackweave module answered with %zu jobs instead of one",
				     list->nr);
out:
	rwctl_job_end(sk, m);
	return err;
}

const struct rwctl_job_backend rwctl_job_genl_backend = {
	.add = rwctl_job_genl_add,
	.del = rwctl_job_genl_del,
	.get = rwctl_job_genl_get,
};
