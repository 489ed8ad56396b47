// SPDX-License-Identifier: GPL-2.0
/*
 * The "events" multicast group of the rackweave family as a source of
 * struct rwctl_event.
 *
 * libnl resolves the family and the group and joins it; reading is done
 * here on the socket's descriptor, one datagram at a time, so that the
 * wait can be bounded and interrupted by SIGINT/SIGTERM (ppoll with those
 * two unblocked), a receive-buffer overrun (ENOBUFS) is told apart from
 * other errors, and several messages in one datagram are each returned.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/socket.h>

#include "genl.h"
#include "monitor.h"

/* Events are a few dozen bytes; a datagram larger than this is cut short. */
#define RWCTL_MONITOR_BUF	65536

/* Room for bursts while rwctl prints: the kernel drops events beyond it. */
#define RWCTL_MONITOR_RCVBUF	(1 << 20)

static const struct nla_policy rwctl_event_policy[RW_JOB_A_MAX + 1] = {
	[RW_JOB_A_EVENT]	= { .type = NLA_U32, .minlen = 4, .maxlen = 4 },
	[RW_JOB_A_NAME]		= { .type = NLA_STRING, .maxlen = RW_JOB_NAME_MAX },
	[RW_JOB_A_RANK]		= { .type = NLA_U32, .minlen = 4, .maxlen = 4 },
	[RW_JOB_A_DEV]		= { .type = NLA_STRING, .maxlen = RW_DEV_NAME_MAX },
};

struct rwctl_monitor_genl {
	struct nl_sock *sk;		/* NULL when reading a test's @fd */
	int fd;
	int family;
	size_t len;			/* bytes of the datagram in @buf */
	size_t off;			/* where its next message starts */
	unsigned char buf[RWCTL_MONITOR_BUF];
};

#define rwctl_event_bad(msg, msglen, fmt, ...)				\
	rwctl_genl_fail(msg, msglen, -EPROTO,				\
			"malformed event from the rackweave module: "	\
			fmt, ##__VA_ARGS__)

int rwctl_genl_parse_event(struct nlmsghdr *nlh, int family,
			   struct rwctl_event *ev, char *msg, size_t msglen)
{
	struct nlattr *tb[RW_JOB_A_MAX + 1];
	struct genlmsghdr *ghdr;
	int err;

	memset(ev, 0, sizeof(*ev));
	if (nlh->nlmsg_type != family)
		return 0;
	if (!genlmsg_valid_hdr(nlh, 0))
		return rwctl_event_bad(msg, msglen, "no generic netlink header");
	ghdr = nlmsg_data(nlh);
	if (ghdr->cmd != RW_CMD_EVENT)
		return 0;

	err = rwctl_genl_parse_msg(nlh, tb, RW_JOB_A_MAX, rwctl_event_policy);
	if (err < 0)
		return rwctl_event_bad(msg, msglen, "%s",
				       rwctl_genl_strerror(err));
	if (!tb[RW_JOB_A_EVENT])
		return rwctl_event_bad(msg, msglen, "no event type");
	ev->type = nla_get_u32(tb[RW_JOB_A_EVENT]);
	if (tb[RW_JOB_A_NAME]) {
		if (nla_len(tb[RW_JOB_A_NAME]) < 2)
			return rwctl_event_bad(msg, msglen, "empty job name");
		nla_strlcpy(ev->job, tb[RW_JOB_A_NAME], sizeof(ev->job));
		ev->has_job = true;
	}
	if (tb[RW_JOB_A_RANK]) {
		ev->rank = nla_get_u32(tb[RW_JOB_A_RANK]);
		ev->has_rank = true;
	}
	if (tb[RW_JOB_A_DEV]) {
		if (nla_len(tb[RW_JOB_A_DEV]) < 2)
			return rwctl_event_bad(msg, msglen, "empty device name");
		nla_strlcpy(ev->dev, tb[RW_JOB_A_DEV], sizeof(ev->dev));
		ev->has_dev = true;
	}
	return 1;
}

int rwctl_monitor_wait(int fd, int64_t timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec ts, *tsp = NULL;
	sigset_t mask;
	int n;

	if (timeout_ms >= 0) {
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (timeout_ms % 1000) * 1000000L;
		tsp = &ts;
	}
	sigprocmask(SIG_BLOCK, NULL, &mask);
	sigdelset(&mask, SIGINT);
	sigdelset(&mask, SIGTERM);
	n = ppoll(&pfd, 1, tsp, &mask);
	if (n < 0)
		return -errno;
	if (n && !(pfd.revents & POLLIN))
		return pfd.revents & POLLNVAL ? -EBADF : -EIO;
	return n ? 1 : 0;
}

static int64_t rwctl_monitor_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read one datagram into h->buf; 1, or what rwctl_monitor_next returns. */
static int rwctl_monitor_recv(struct rwctl_monitor_genl *h,
			      struct rwctl_err *e)
{
	struct sockaddr_nl from;
	socklen_t fromlen = sizeof(from);
	ssize_t n;

	memset(&from, 0, sizeof(from));
	n = recvfrom(h->fd, h->buf, sizeof(h->buf), MSG_DONTWAIT | MSG_TRUNC,
		     h->sk ? (struct sockaddr *)&from : NULL,
		     h->sk ? &fromlen : NULL);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		if (errno == ENOBUFS)
			return -ENOBUFS;
		return rwctl_genl_fail(e->msg, sizeof(e->msg), -errno,
				       "cannot read events: %s", strerror(errno));
	}
	if ((size_t)n > sizeof(h->buf))
		return rwctl_event_bad(e->msg, sizeof(e->msg),
				       "a datagram of %zd bytes (more than %d)",
				       n, RWCTL_MONITOR_BUF);
	/* Only the kernel may speak for the module. */
	if (h->sk && from.nl_pid)
		return 0;
	h->len = (size_t)n;
	h->off = 0;
	return 1;
}

static int rwctl_monitor_next(void *handle, struct rwctl_event *ev,
			      int64_t timeout_ms, struct rwctl_err *e)
{
	struct rwctl_monitor_genl *h = handle;
	int64_t end = timeout_ms >= 0 ? rwctl_monitor_now_ms() + timeout_ms : 0;
	int64_t left = -1;
	struct nlmsghdr *nlh;
	int rem, ret;

	for (;;) {
		while (h->off < h->len) {
			nlh = (struct nlmsghdr *)(h->buf + h->off);
			rem = (int)(h->len - h->off);
			if (!nlmsg_ok(nlh, rem)) {
				h->off = h->len;
				return rwctl_event_bad(e->msg, sizeof(e->msg),
						       "%d bytes that are not a whole message",
						       rem);
			}
			h->off += NLMSG_ALIGN(nlh->nlmsg_len);
			ret = rwctl_genl_parse_event(nlh, h->family, ev,
						     e->msg, sizeof(e->msg));
			if (ret)
				return ret;
		}

		if (timeout_ms >= 0) {
			left = end - rwctl_monitor_now_ms();
			if (left < 0)
				left = 0;
		}
		ret = rwctl_monitor_wait(h->fd, left);
		if (ret < 0 && ret != -EINTR)
			return rwctl_genl_fail(e->msg, sizeof(e->msg), ret,
					       "cannot wait for events: %s",
					       strerror(-ret));
		if (ret <= 0)
			return ret;
		ret = rwctl_monitor_recv(h, e);
		if (ret < 0)
			return ret;
	}
}

static void rwctl_monitor_close(void *handle)
{
	struct rwctl_monitor_genl *h = handle;

	if (!h)
		return;
	if (h->sk)
		nl_socket_free(h->sk);	/* closes h->fd */
	else
		close(h->fd);
	free(h);
}

int rwctl_monitor_genl_from_fd(void **handle, int fd, int family,
			       struct rwctl_err *e)
{
	struct rwctl_monitor_genl *h;

	*handle = NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return rwctl_genl_fail(e->msg, sizeof(e->msg), -ENOMEM,
				       "out of memory");
	h->fd = fd;
	h->family = family;
	*handle = h;
	return 0;
}

static int rwctl_monitor_open(void **handle, struct rwctl_err *e)
{
	struct rwctl_monitor_genl *h;
	struct nl_sock *sk;
	int family, grp, err;

	*handle = NULL;
	err = rwctl_genl_open(&sk, &family, e->msg, sizeof(e->msg));
	if (err)
		return err;
	grp = genl_ctrl_resolve_grp(sk, RW_GENL_NAME, RW_GENL_MCGRP_EVENTS);
	if (grp == -NLE_OBJ_NOTFOUND) {
		err = rwctl_genl_fail(e->msg, sizeof(e->msg), -EOPNOTSUPP,
				      "the loaded rackweave module has no '%s' multicast group; load the module of rwctl's release (%s)",
				      RW_GENL_MCGRP_EVENTS, RW_VERSION_STRING);
		goto fail;
	}
	if (grp < 0) {
		err = rwctl_genl_fail(e->msg, sizeof(e->msg), -EIO,
				      "cannot look up the '%s' multicast group: %s",
				      RW_GENL_MCGRP_EVENTS, nl_geterror(grp));
		goto fail;
	}
	err = nl_socket_add_membership(sk, grp);
	if (err == -NLE_PERM || err == -NLE_NOACCESS) {
		e->kernel = true;
		err = rwctl_genl_fail(e->msg, sizeof(e->msg), -EPERM,
				      "joining the '%s' multicast group needs CAP_NET_ADMIN",
				      RW_GENL_MCGRP_EVENTS);
		goto fail;
	}
	if (err < 0) {
		err = rwctl_genl_fail(e->msg, sizeof(e->msg), -EIO,
				      "cannot join the '%s' multicast group: %s",
				      RW_GENL_MCGRP_EVENTS, nl_geterror(err));
		goto fail;
	}
	/* Best effort: the default buffer only loses events sooner. */
	nl_socket_set_buffer_size(sk, RWCTL_MONITOR_RCVBUF, 0);

	err = rwctl_monitor_genl_from_fd(handle, nl_socket_get_fd(sk), family,
					 e);
	if (err)
		goto fail;
	h = *handle;
	h->sk = sk;
	return 0;
fail:
	nl_socket_free(sk);
	return err;
}

const struct rwctl_monitor_backend rwctl_monitor_genl_backend = {
	.open = rwctl_monitor_open,
	.next = rwctl_monitor_next,
	.close = rwctl_monitor_close,
};
