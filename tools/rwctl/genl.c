// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink transport every rwctl command shares: the socket with
 * the "rackweave" family resolved and extended acks asked for, one request
 * and its answer, the extended ack's message, and strict attribute parsing.
 * What a command sends and how its reply reads are the objects' own
 * (job-genl.c, status-genl.c, topo-genl.c, ...).
 *
 * One request: the command's attributes are put by a callback, each reply
 * message goes to another; what comes back is 0, the module's refusal, or
 * a sentence saying what else went wrong. Doit requests ask for an ack, so
 * a reply is followed by the ack or an error. A dump ends with NLMSG_DONE
 * (which may carry an error); a dump that raced with a change is flagged
 * NLM_F_DUMP_INTR, is read to its end and then reported as -EAGAIN so that
 * the caller can retry.
 *
 * Parsing trusts nothing: rwctl_genl_parse_msg() and _nested() also refuse
 * bytes after the last whole attribute, which libnl ignores.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include <rackweave.h>

#include "genl.h"

int rwctl_genl_fail(char *msg, size_t msglen, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
	return err;
}

/* nla_parse() plus the check for bytes after the last whole attribute. */
static int rwctl_genl_parse_attrs(struct nlattr **tb, int maxtype,
				  struct nlattr *head, int len,
				  const struct nla_policy *policy)
{
	struct nlattr *nla;
	int rem, err;

	err = nla_parse(tb, maxtype, head, len, policy);
	if (err < 0)
		return err;
	nla_for_each_attr(nla, head, len, rem)
		;
	return rem > 0 ? -NLE_MSG_TRUNC : 0;
}

const char *rwctl_genl_strerror(int err)
{
	switch (err) {
	case -NLE_MSG_TRUNC:
		return "bytes left after the last attribute (cut short?)";
	case -NLE_MSG_TOOSHORT:
		return "no generic netlink header";
	case -NLE_RANGE:
		return "an attribute of the wrong length";
	case -NLE_INVAL:
		return "a string without its terminating NUL";
	default:
		return nl_geterror(err);
	}
}

int rwctl_genl_parse_msg(struct nlmsghdr *nlh, struct nlattr **tb,
			 int maxtype, const struct nla_policy *policy)
{
	struct genlmsghdr *ghdr = nlmsg_data(nlh);

	if (!genlmsg_valid_hdr(nlh, 0))
		return -NLE_MSG_TOOSHORT;
	return rwctl_genl_parse_attrs(tb, maxtype, genlmsg_attrdata(ghdr, 0),
				      genlmsg_attrlen(ghdr, 0), policy);
}

int rwctl_genl_parse_nested(struct nlattr **tb, int maxtype,
			    struct nlattr *nest,
			    const struct nla_policy *policy)
{
	return rwctl_genl_parse_attrs(tb, maxtype, nla_data(nest),
				      nla_len(nest), policy);
}

size_t rwctl_genl_count(struct nlattr *list, int type)
{
	struct nlattr *entry;
	size_t n = 0;
	int rem;

	nla_for_each_nested(entry, list, rem)
		if (nla_type(entry) == type)
			n++;
	return n;
}

/*
 * The text of NLMSGERR_ATTR_MSG, which the kernel appends after the error
 * (and after the echoed request unless NETLINK_CAP_ACK capped it).
 */
static void rwctl_genl_extack(const struct nlmsgerr *e, char *buf,
			      size_t len)
{
	static const struct nla_policy policy[NLMSGERR_ATTR_MAX + 1] = {
		[NLMSGERR_ATTR_MSG] = { .type = NLA_STRING },
	};
	const struct nlmsghdr *nlh = (const void *)((const char *)e - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*e);

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	if (nlh->nlmsg_len < NLMSG_HDRLEN + off)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)e + off),
		      nlh->nlmsg_len - NLMSG_HDRLEN - off, policy) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		nla_strlcpy(buf, tb[NLMSGERR_ATTR_MSG], len);
}

int rwctl_genl_open(struct nl_sock **skp, int *family, char *msg,
		    size_t msglen)
{
	struct nl_sock *sk;
	int one = 1;
	int err;

	*skp = NULL;
	sk = nl_socket_alloc();
	if (!sk)
		return rwctl_genl_fail(msg, msglen, -ENOMEM, "out of memory");

	err = genl_connect(sk);
	if (err < 0) {
		err = rwctl_genl_fail(msg, msglen, -EIO,
				      "cannot open a generic netlink socket: %s",
				      nl_geterror(err));
		goto fail;
	}
	/* Best effort: older kernels just give a bare errno. */
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_CAP_ACK,
		   &one, sizeof(one));

	*family = genl_ctrl_resolve(sk, RW_GENL_NAME);
	if (*family == -NLE_OBJ_NOTFOUND) {
		err = rwctl_genl_fail(msg, msglen, -ENOENT,
				      "rackweave module not loaded (generic netlink family '%s' not found); load it with: modprobe rackweave",
				      RW_GENL_NAME);
		goto fail;
	}
	if (*family < 0) {
		err = rwctl_genl_fail(msg, msglen, -EIO,
				      "cannot look up generic netlink family '%s': %s",
				      RW_GENL_NAME, nl_geterror(*family));
		goto fail;
	}
	*skp = sk;
	return 0;
fail:
	nl_socket_free(sk);
	return err;
}

/* State of one request, shared by the receive callbacks. */
struct rwctl_genl_req {
	rwctl_genl_reply_fn on_reply;
	void *reply_arg;
	struct rwctl_err *e;
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
	struct rwctl_err *e = req->e;
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
		       void *reply_arg, struct rwctl_err *e)
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
