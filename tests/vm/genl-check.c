// SPDX-License-Identifier: GPL-2.0
/*
 * genl-check: sends well-formed and malformed messages to the "rackweave"
 * generic netlink family from inside a VM and prints TAP. Malformed input
 * must be refused with its errno and leave the family answering.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <rackweave/uapi.h>

static int failed;
static struct nl_sock *sk;
static int family;

static int last_ret;

static void check(int cond, const char *what)
{
	printf("%sok - genl: %s\n", cond ? "" : "not ", what);
	if (!cond) {
		printf("#   last libnl result: %d (%s)\n", last_ret,
		       nl_geterror(last_ret));
		failed = 1;
	}
}

struct reply {
	int got_version;
	int nodes;
	int jobs;		/* job messages seen */
	int token;		/* a RW_JOB_A_TOKEN of the right length seen */
	unsigned int quorum;	/* the last RW_JOB_A_QUORUM seen */
};

static int on_reply(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[RW_A_MAX + 1], *pos;
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct reply *r = arg;
	int rem;

	if (gh->cmd == RW_CMD_JOB_NEW || gh->cmd == RW_CMD_JOB_GET) {
		struct nlattr *jb[RW_JOB_A_MAX + 1];

		if (genlmsg_parse(nlmsg_hdr(msg), 0, jb, RW_JOB_A_MAX, NULL))
			return NL_SKIP;
		r->jobs++;
		if (jb[RW_JOB_A_QUORUM])
			r->quorum = nla_get_u32(jb[RW_JOB_A_QUORUM]);
		if (jb[RW_JOB_A_TOKEN] &&
		    nla_len(jb[RW_JOB_A_TOKEN]) == RW_JOB_TOKEN_LEN)
			r->token = 1;
		return NL_OK;
	}

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, RW_A_MAX, NULL))
		return NL_SKIP;
	if (tb[RW_A_VERSION] &&
	    !strcmp(nla_get_string(tb[RW_A_VERSION]), RW_VERSION_STRING))
		r->got_version = 1;
	if (tb[RW_A_NODES])
		nla_for_each_nested(pos, tb[RW_A_NODES], rem)
			r->nodes++;
	return NL_OK;
}

struct att {
	int type;
	const void *data;
	int len;
};

/* Sends cmd with attributes @a[0..n); returns 0 or -errno. */
static int request_attrs(int cmd, int flags, const struct att *a, int n,
			 struct reply *r)
{
	struct nl_msg *msg = nlmsg_alloc();
	int ret, i;

	genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, flags, cmd,
		    RW_GENL_VERSION);
	for (i = 0; i < n; i++)
		nla_put(msg, a[i].type, a[i].len, a[i].data);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_reply, r);
	ret = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (ret < 0)
		return -EIO;
	ret = nl_recvmsgs_default(sk);
	last_ret = ret;
	/* libnl maps the kernel's errno to its own codes; map back. */
	switch (ret) {
	case 0:
		return 0;
	case -NLE_INVAL:
		return -EINVAL;
	case -NLE_RANGE:
		return -ERANGE;
	case -NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	case -NLE_PERM:
		return -EPERM;
	case -NLE_EXIST:
		return -EEXIST;
	case -NLE_OBJ_NOTFOUND:
		return -ENOENT;
	default:
		return ret < 0 ? -EIO : 0;
	}
}

/* Sends cmd, optionally with one attribute; returns 0 or -errno. */
static int request(int cmd, int attr, const void *data, int len,
		   struct reply *r)
{
	struct att a = { attr, data, len };

	return request_attrs(cmd, 0, &a, attr ? 1 : 0, r);
}

static int still_answers(void)
{
	struct reply r = { 0 };

	return request(RW_CMD_STATUS_GET, 0, NULL, 0, &r) == 0 && r.got_version;
}

static void job_checks(void)
{
	unsigned int w4 = 4, w0 = 0, big = 3000, ssp = RW_SYNC_SSP;
	unsigned char tok[RW_JOB_TOKEN_LEN + 1] = { 0 };
	struct reply r = { 0 };
	int ret;
	const struct att good[] = {
		{ RW_JOB_A_NAME, "gc-job", 7 }, { RW_JOB_A_WORKERS, &w4, 4 },
	};
	const struct att no_workers[] = { { RW_JOB_A_NAME, "gc-x", 5 } };
	const struct att zero_workers[] = {
		{ RW_JOB_A_NAME, "gc-x", 5 }, { RW_JOB_A_WORKERS, &w0, 4 },
	};
	const struct att bad_chunk[] = {
		{ RW_JOB_A_NAME, "gc-x", 5 }, { RW_JOB_A_WORKERS, &w4, 4 },
		{ RW_JOB_A_CHUNK_SIZE, &big, 4 },
	};
	const struct att short_token[] = {
		{ RW_JOB_A_NAME, "gc-x", 5 }, { RW_JOB_A_WORKERS, &w4, 4 },
		{ RW_JOB_A_TOKEN, tok, RW_JOB_TOKEN_LEN - 1 },
	};
	const struct att long_token[] = {
		{ RW_JOB_A_NAME, "gc-x", 5 }, { RW_JOB_A_WORKERS, &w4, 4 },
		{ RW_JOB_A_TOKEN, tok, RW_JOB_TOKEN_LEN + 1 },
	};
	const struct att bad_name[] = {
		{ RW_JOB_A_NAME, "gc x", 5 }, { RW_JOB_A_WORKERS, &w4, 4 },
	};
	const struct att ssp_no_bound[] = {
		{ RW_JOB_A_NAME, "gc-x", 5 }, { RW_JOB_A_WORKERS, &w4, 4 },
		{ RW_JOB_A_SYNC, &ssp, 4 },
	};
	const struct att w_u16[] = {
		{ RW_JOB_A_NAME, "gc-x", 5 }, { RW_JOB_A_WORKERS, &w4, 2 },
	};
	unsigned int q0 = 0, q5 = 5, q3 = 3;
	const struct att quorum0[] = {
		{ RW_JOB_A_NAME, "gc-x", 5 }, { RW_JOB_A_WORKERS, &w4, 4 },
		{ RW_JOB_A_QUORUM, &q0, 4 },
	};
	const struct att quorum5[] = {
		{ RW_JOB_A_NAME, "gc-x", 5 }, { RW_JOB_A_WORKERS, &w4, 4 },
		{ RW_JOB_A_QUORUM, &q5, 4 },
	};
	const struct att quorum_ssp[] = {
		{ RW_JOB_A_NAME, "gc-x", 5 }, { RW_JOB_A_WORKERS, &w4, 4 },
		{ RW_JOB_A_SYNC, &ssp, 4 }, { RW_JOB_A_STALENESS, &w4, 4 },
		{ RW_JOB_A_QUORUM, &q3, 4 },
	};
	const struct att set_quorum0[] = {
		{ RW_JOB_A_NAME, "gc-job", 7 }, { RW_JOB_A_QUORUM, &q0, 4 },
	};
	const struct att set_quorum5[] = {
		{ RW_JOB_A_NAME, "gc-job", 7 }, { RW_JOB_A_QUORUM, &q5, 4 },
	};
	const struct att set_quorum3[] = {
		{ RW_JOB_A_NAME, "gc-job", 7 }, { RW_JOB_A_QUORUM, &q3, 4 },
	};
	const struct att name_only[] = { { RW_JOB_A_NAME, "gc-job", 7 } };
	const struct att missing[] = { { RW_JOB_A_NAME, "gc-none", 8 } };

	ret = request_attrs(RW_CMD_JOB_NEW, 0, good, 2, &r);
	check(ret == 0 && r.jobs == 1 && r.token,
	      "JOB_NEW creates a job and returns its generated token once");
	memset(&r, 0, sizeof(r));
	ret = request_attrs(RW_CMD_JOB_NEW, 0, good, 2, &r);
	check(ret == -EEXIST, "JOB_NEW with a taken name -> EEXIST");
	ret = request_attrs(RW_CMD_JOB_NEW, 0, no_workers, 1, &r);
	check(ret == -EINVAL, "JOB_NEW without workers -> EINVAL");
	ret = request_attrs(RW_CMD_JOB_NEW, 0, zero_workers, 2, &r);
	check(ret == -ERANGE, "JOB_NEW with 0 workers -> ERANGE");
	ret = request_attrs(RW_CMD_JOB_NEW, 0, bad_chunk, 3, &r);
	check(ret == -ERANGE, "JOB_NEW with chunk size 3000 -> ERANGE");
	ret = request_attrs(RW_CMD_JOB_NEW, 0, short_token, 3, &r);
	check(ret == -ERANGE, "JOB_NEW with a 31-byte token -> ERANGE");
	ret = request_attrs(RW_CMD_JOB_NEW, 0, long_token, 3, &r);
	check(ret == -ERANGE, "JOB_NEW with a 33-byte token -> ERANGE");
	ret = request_attrs(RW_CMD_JOB_NEW, 0, bad_name, 2, &r);
	check(ret == -EINVAL, "JOB_NEW with a space in the name -> EINVAL");
	ret = request_attrs(RW_CMD_JOB_NEW, 0, ssp_no_bound, 3, &r);
	check(ret == -EINVAL, "JOB_NEW SSP without a bound -> EINVAL");
	ret = request_attrs(RW_CMD_JOB_NEW, 0, w_u16, 2, &r);
	check(ret == -EINVAL, "JOB_NEW with a 2-byte u32 -> EINVAL");
	ret = request_attrs(RW_CMD_JOB_NEW, 0, quorum0, 3, &r);
	check(ret == -ERANGE, "JOB_NEW with quorum 0 -> ERANGE");
	ret = request_attrs(RW_CMD_JOB_NEW, 0, quorum5, 3, &r);
	check(ret == -ERANGE, "JOB_NEW with quorum 5 of 4 workers -> ERANGE");
	ret = request_attrs(RW_CMD_JOB_NEW, 0, quorum_ssp, 5, &r);
	check(ret == -EINVAL, "JOB_NEW with a quorum under SSP -> EINVAL");
	ret = request_attrs(RW_CMD_POLICY_SET, 0, set_quorum0, 2, &r);
	check(ret == -ERANGE, "POLICY_SET quorum 0 -> ERANGE");
	ret = request_attrs(RW_CMD_POLICY_SET, 0, set_quorum5, 2, &r);
	check(ret == -ERANGE, "POLICY_SET quorum 5 of 4 workers -> ERANGE");
	memset(&r, 0, sizeof(r));
	ret = request_attrs(RW_CMD_POLICY_SET, 0, set_quorum3, 2, &r);
	check(ret == 0 && r.quorum == 3, "POLICY_SET quorum 3: the reply says 3");
	ret = request_attrs(RW_CMD_POLICY_SET, 0, set_quorum0, 2, &r);
	check(ret == -ERANGE, "POLICY_SET quorum 0 again -> ERANGE");
	memset(&r, 0, sizeof(r));
	ret = request_attrs(RW_CMD_JOB_GET, 0, name_only, 1, &r);
	check(ret == 0 && r.quorum == 3, "a refused quorum changed nothing");

	/* None of the refusals created anything: the dump has one job. */
	memset(&r, 0, sizeof(r));
	ret = request_attrs(RW_CMD_JOB_GET, NLM_F_DUMP, NULL, 0, &r);
	check(ret == 0 && r.jobs == 1 && !r.token,
	      "JOB_GET dump lists exactly the one job, without its token");
	memset(&r, 0, sizeof(r));
	ret = request_attrs(RW_CMD_JOB_GET, 0, name_only, 1, &r);
	check(ret == 0 && r.jobs == 1, "JOB_GET by name");
	ret = request_attrs(RW_CMD_JOB_GET, 0, missing, 1, &r);
	check(ret == -ENOENT, "JOB_GET of an unknown name -> ENOENT");
	ret = request_attrs(RW_CMD_JOB_DEL, 0, missing, 1, &r);
	check(ret == -ENOENT, "JOB_DEL of an unknown name -> ENOENT");
	/* Success has no reply of its own: ask for the ack. */
	ret = request_attrs(RW_CMD_JOB_DEL, NLM_F_ACK, name_only, 1, &r);
	check(ret == 0, "JOB_DEL deletes the job");
	memset(&r, 0, sizeof(r));
	ret = request_attrs(RW_CMD_JOB_GET, NLM_F_DUMP, NULL, 0, &r);
	check(ret == 0 && r.jobs == 0, "JOB_GET dump is empty afterwards");
}

/* As an unprivileged user: reads work, mutations get EPERM. */
static void unprivileged_checks(void)
{
	unsigned int w4 = 4;
	struct reply r = { 0 };
	const struct att good[] = {
		{ RW_JOB_A_NAME, "gc-job", 7 }, { RW_JOB_A_WORKERS, &w4, 4 },
	};
	int ret;

	ret = request_attrs(RW_CMD_JOB_NEW, 0, good, 2, &r);
	check(ret == -EPERM, "JOB_NEW without CAP_NET_ADMIN -> EPERM");
	ret = request_attrs(RW_CMD_JOB_DEL, 0, good, 1, &r);
	check(ret == -EPERM, "JOB_DEL without CAP_NET_ADMIN -> EPERM");
	ret = request_attrs(RW_CMD_JOB_GET, NLM_F_DUMP, NULL, 0, &r);
	check(ret == 0 && r.jobs == 0, "JOB_GET dump works unprivileged");
	check(still_answers(), "STATUS_GET works unprivileged");
}

int main(int argc, char **argv)
{
	bool unprivileged = argc > 1 && !strcmp(argv[1], "--unprivileged");
	struct reply r = { 0 };
	char junk[8] = "abcdefg";
	unsigned int u = 1;
	int ret;

	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk)) {
		check(0, "connect a generic netlink socket");
		return 1;
	}
	/* One answer per request: the reply, or the error. */
	nl_socket_disable_auto_ack(sk);
	family = genl_ctrl_resolve(sk, RW_GENL_NAME);
	check(family > 0, "family \"rackweave\" resolves");
	if (family <= 0)
		return 1;
	if (unprivileged) {
		unprivileged_checks();
		nl_socket_free(sk);
		return failed;
	}

	ret = request(RW_CMD_STATUS_GET, 0, NULL, 0, &r);
	check(ret == 0 && r.got_version, "STATUS_GET answers with the version");
	check(r.nodes >= 1, "STATUS_GET lists at least one NUMA node");

	ret = request(RW_CMD_STATUS_GET, RW_A_CPUS_ONLINE, &u, sizeof(u), &r);
	check(ret == -EINVAL && still_answers(),
	      "STATUS_GET with an attribute it does not take -> EINVAL");
	ret = request(RW_CMD_STATUS_GET, RW_A_MAX + 5, junk, sizeof(junk), &r);
	check(ret == -EINVAL && still_answers(),
	      "STATUS_GET with an unknown attribute -> EINVAL");
	ret = request(RW_CMD_MAX + 1, 0, NULL, 0, &r);
	check(ret == -EOPNOTSUPP && still_answers(),
	      "unknown command -> EOPNOTSUPP");
	ret = request(RW_CMD_UNSPEC, 0, NULL, 0, &r);
	check(ret == -EOPNOTSUPP && still_answers(),
	      "command 0 -> EOPNOTSUPP");
	job_checks();

	nl_socket_free(sk);
	return failed;
}
