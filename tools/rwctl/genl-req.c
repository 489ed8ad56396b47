// SPDX-License-Identifier: GPL-2.0
/*
 * One request to the rackweave family and its answer: the exchange every
 * job, policy, topo and stats command makes. The command's attributes are
 * put by a callback, each reply message goes to another; what comes back
 * is 0, the module's refusal, or a sentence saying what else went wrong.
 *
 * Doit requests ask for an ack, so a reply is followed by the ack or an
 * error. A dump ends with NLMSG_DONE (which may carry an error); a dump
 * that raced with a change is flagged NLM_F_DUMP_INTR, is read to its end
 * and then reported as -EAGAIN so that the caller can retry.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <linux/netlink.h>

#include <netlink/errno.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "genl.h"
#include "job.h"

/* State of one request, shared by the receive callbacks. */
struct rwctl_genl_req {
	rwctl_genl_reply_fn on_reply;
	void *reply_arg;
	struct rwctl_job_err *e;
	bool done;
	bool intr;			/* NLM_F_DUMP_INTR seen */
	int parse_err;
	int kernel_err;
};

static int rwctl_req_on_reply(struct nl_msg *m, void *arg)
{
	struct rwctl_genl_req *req = arg;

	/* After a bad reply the rest is read and dropped. */
	if (!req->on_reply || req->parse_err)
		return NL_SKIP;
	req->parse_err = req->on_reply(nlmsg_hdr(m), req->reply_arg,
				       req->e->msg, sizeof(req->e->msg));
	return NL_OK;
}

static int rwctl_req_on_ack(struct nl_msg *m, void *arg)
{
	struct rwctl_genl_req *req = arg;

	(void)m;
	req->done = true;
	return NL_STOP;
}

/* NLMSG_DONE of a dump; its payload is 0 or a negative errno. */
static int rwctl_req_on_finish(struct nl_msg *m, void *arg)
{
	struct rwctl_genl_req *req = arg;
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

static int rwctl_req_on_intr(struct nl_msg *m, void *arg)
{
	struct rwctl_genl_req *req = arg;

	(void)m;
	req->intr = true;
	return NL_OK;
}

static int rwctl_req_on_error(struct sockaddr_nl *who, struct nlmsgerr *e,
			      void *arg)
{
	struct rwctl_genl_req *req = arg;

	(void)who;
	req->done = true;
	req->kernel_err = e->error < 0 ? e->error : -EPROTO;
	rwctl_genl_extack(e, req->e->extack, sizeof(req->e->extack));
	return NL_STOP;
}

/* Send @m (already filled in) and read until the ack, the error or DONE. */
static int rwctl_req_exchange(struct nl_sock *sk, struct nl_msg *m,
			      struct rwctl_genl_req *req)
{
	struct rwctl_job_err *e = req->e;
	struct nl_cb *cb;
	int err;

	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return rwctl_genl_fail(e->msg, sizeof(e->msg), -ENOMEM,
				       "out of memory");
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, rwctl_req_on_reply, req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, rwctl_req_on_ack, req);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, rwctl_req_on_finish, req);
	nl_cb_set(cb, NL_CB_DUMP_INTR, NL_CB_CUSTOM, rwctl_req_on_intr, req);
	nl_cb_err(cb, NL_CB_CUSTOM, rwctl_req_on_error, req);

	err = nl_send_auto(sk, m);
	if (err < 0) {
		err = rwctl_genl_fail(e->msg, sizeof(e->msg), -EIO,
				      "cannot send to the rackweave module: %s",
				      nl_geterror(err));
		goto out;
	}
	while (!req->done) {
		err = nl_recvmsgs(sk, cb);
		if (err < 0 && !req->done) {
			err = rwctl_genl_fail(e->msg, sizeof(e->msg), -EIO,
					      "no answer from the rackweave module: %s",
					      nl_geterror(err));
			goto out;
		}
	}

	if (req->kernel_err) {
		e->kernel = true;
		err = req->kernel_err;
	} else if (req->parse_err) {
		err = req->parse_err;		/* e->msg says what */
	} else if (req->intr) {
		err = rwctl_genl_fail(e->msg, sizeof(e->msg), -EAGAIN,
				      "the job list changed while it was read");
	} else {
		err = 0;
	}
out:
	nl_cb_put(cb);
	return err;
}

int rwctl_genl_request(int cmd, bool dump, rwctl_genl_put_fn put,
		       const void *put_arg, rwctl_genl_reply_fn on_reply,
		       void *reply_arg, struct rwctl_job_err *e)
{
	struct rwctl_genl_req req = {
		.on_reply = on_reply,
		.reply_arg = reply_arg,
		.e = e,
	};
	struct nl_msg *m = NULL;
	struct nl_sock *sk;
	int family, err;

	err = rwctl_genl_open(&sk, &family, e->msg, sizeof(e->msg));
	if (err)
		return err;
	m = nlmsg_alloc();
	if (!m || !genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
			       dump ? NLM_F_DUMP : 0, cmd, RW_GENL_VERSION)) {
		err = rwctl_genl_fail(e->msg, sizeof(e->msg), -ENOMEM,
				      "out of memory");
		goto out;
	}
	if (put && put(m, put_arg)) {
		err = rwctl_genl_fail(e->msg, sizeof(e->msg), -EMSGSIZE,
				      "the request does not fit in a message");
		goto out;
	}
	err = rwctl_req_exchange(sk, m, &req);
out:
	nlmsg_free(m);
	nl_socket_free(sk);
	return err;
}
