// SPDX-License-Identifier: GPL-2.0
/*
 * genl-fuzz: random messages to the "rackweave" generic netlink family,
 * made from its commands and attribute policies (uapi/rackweave.h,
 * kmod/genl*.c), over a raw netlink socket so that every byte is ours.
 *
 *   genl-fuzz [--seed N] [--seconds S] [--iterations N] [--protect NAME]...
 *             [--keep NAME]... [--target NAME]... [--addr A.B.C.D]
 *             [--unprivileged]
 *
 * Each message is one command (known ones mostly; unknown numbers too) with
 * a genl version that is usually right, its policy's attributes present or
 * missing, each of the right type and a good value, a boundary value
 * (0, 1, the range's ends and one beyond, the type's ends), a wrong length
 * (0, 1, short, long, huge), a string without its NUL or with bad
 * characters, duplicated, flagged nested or byte-order, plus attributes
 * of no policy and of another command's namespace; sometimes the framing
 * itself is broken (nlmsg_len short or long, an attribute running past
 * the message, flags cleared or unknown), or two messages go in one send.
 * Every answer must be an ACK, a reply of the family that parses, or an
 * error with an errno the uapi documents; an answer that never comes is a
 * hang. The "events" group is listened to and every event must parse.
 *
 * Job names: mostly "fz0".."fz7" (so creations, policy changes and
 * deletions meet each other), the --target names (another fuzzer's job:
 * genl-fuzz may change its policy or delete it under it), random and
 * malformed names. A --protect name (the job a trainer trains meanwhile) is
 * only ever read (get, topology, statistics), never changed.
 *
 * With --unprivileged a forked child drops to nobody (no CAP_NET_ADMIN)
 * and fuzzes alongside with seed + 1: every mutation it sends must fail
 * (EPERM, or an earlier refusal), and joining "events" must fail.
 *
 * At the end the fz* jobs it made (not the --keep ones) are deleted.
 * Output: the seed first, TAP lines, counts; a failure names the seed and
 * the message number, so `--seed N --iterations M` replays it.
 */
#include <errno.h>
#include <grp.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rackweave/uapi.h>

#include "fuzz-common.h"

#define MSG_MAX		(48 * 1024)
#define RECV_MAX	(256 * 1024)
#define MAX_NAMES	8

enum kind {
	K_STR,		/* NLA_NUL_STRING, at most @hi bytes before the NUL */
	K_U32,		/* u32 in [lo, hi] */
	K_U16,		/* u16 in [lo, hi] */
	K_BIN,		/* binary, exactly @lo bytes (or @lo..@hi) */
	K_MASK,		/* u32 flags within @hi */
	K_ADDR,		/* a listener's address: 4 or 16 bytes */
};

struct attr_spec {
	uint16_t type;
	enum kind kind;
	uint32_t lo, hi;
	bool required;
};

struct cmd_spec {
	uint8_t cmd;
	const char *name;
	bool admin;		/* GENL_ADMIN_PERM */
	bool dump;		/* has a dumpit */
	uint16_t maxattr;	/* of its namespace */
	const struct attr_spec *attrs;
	unsigned int nr_attrs;
};

#define JOB_SETTINGS(req)						\
	{ RW_JOB_A_NAME, K_STR, 1, RW_JOB_NAME_MAX - 1, true },		\
	{ RW_JOB_A_WORKERS, K_U32, 1, RW_JOB_MAX_WORKERS, req },	\
	{ RW_JOB_A_CHUNK_SIZE, K_U32, RW_CHUNK_SIZE_MIN, RW_CHUNK_SIZE_MAX, false }, \
	{ RW_JOB_A_SYNC, K_U32, 0, __RW_SYNC_MAX - 1, false },		\
	{ RW_JOB_A_STALENESS, K_U32, 1, RW_JOB_MAX_STALENESS, false },	\
	{ RW_JOB_A_STALENESS_LO, K_U32, 1, RW_JOB_MAX_STALENESS, false }, \
	{ RW_JOB_A_STALENESS_HI, K_U32, 1, RW_JOB_MAX_STALENESS, false }, \
	{ RW_JOB_A_EVICT_MS, K_U32, 0, 100000, false },			\
	{ RW_JOB_A_QUORUM, K_U32, 1, 8, false },			\
	{ RW_JOB_A_OPTIM, K_U32, 0, __RW_OPTIM_MAX - 1, false },	\
	{ RW_JOB_A_LR, K_U32, 0x3c23d70a, 0x3f000000, false },		\
	{ RW_JOB_A_MOMENTUM, K_U32, 0, 0x3f7fffff, false },		\
	{ RW_JOB_A_WEIGHT_DECAY, K_U32, 0, 0x3c23d70a, false },		\
	{ RW_JOB_A_BETA1, K_U32, 0, 0x3f7fffff, false },		\
	{ RW_JOB_A_BETA2, K_U32, 0, 0x3f7fffff, false },		\
	{ RW_JOB_A_EPS, K_U32, 0x322bcc77, 0x3f800000, false }

static const struct attr_spec job_new_attrs[] = {
	JOB_SETTINGS(true),
	{ RW_JOB_A_TOKEN, K_BIN, RW_JOB_TOKEN_LEN, RW_JOB_TOKEN_LEN, false },
};

static const struct attr_spec policy_set_attrs[] = { JOB_SETTINGS(false) };

static const struct attr_spec job_del_attrs[] = {
	{ RW_JOB_A_NAME, K_STR, 1, RW_JOB_NAME_MAX - 1, true },
	{ RW_JOB_A_FLAGS, K_MASK, 0, RW_JOB_DEL_FLAGS_ALL, false },
};

static const struct attr_spec job_get_attrs[] = {
	{ RW_JOB_A_NAME, K_STR, 1, RW_JOB_NAME_MAX - 1, false },
};

static const struct attr_spec job_name_attrs[] = {
	{ RW_JOB_A_NAME, K_STR, 1, RW_JOB_NAME_MAX - 1, true },
};

static const struct attr_spec listen_attrs[] = {
	{ RW_LISTEN_A_ADDR, K_ADDR, 4, 16, true },
	{ RW_LISTEN_A_PORT, K_U16, 1, 65535, false },
};

#define CMD(c, adm, dmp, max, a) { c, #c, adm, dmp, max, a, ARRAY_SIZE(a) }
static const struct cmd_spec cmds[] = {
	{ RW_CMD_STATUS_GET, "RW_CMD_STATUS_GET", false, false, RW_A_MAX,
	  NULL, 0 },
	CMD(RW_CMD_JOB_NEW, true, false, RW_JOB_A_MAX, job_new_attrs),
	CMD(RW_CMD_JOB_DEL, true, false, RW_JOB_A_MAX, job_del_attrs),
	CMD(RW_CMD_JOB_GET, false, true, RW_JOB_A_MAX, job_get_attrs),
	CMD(RW_CMD_POLICY_SET, true, false, RW_JOB_A_MAX, policy_set_attrs),
	CMD(RW_CMD_TOPO_GET, false, false, RW_JOB_A_MAX, job_name_attrs),
	CMD(RW_CMD_STATS_GET, false, false, RW_JOB_A_MAX, job_name_attrs),
	CMD(RW_CMD_LISTEN_ADD, true, false, RW_LISTEN_A_MAX, listen_attrs),
	CMD(RW_CMD_LISTEN_DEL, true, false, RW_LISTEN_A_MAX, listen_attrs),
};

/* Every errno the uapi text names for the family, and netlink's own. */
static const int sane_errnos[] = {
	EINVAL, ERANGE, EOPNOTSUPP, EPERM, EEXIST, ENOENT, EBUSY, ENOSPC,
	EADDRNOTAVAIL, EADDRINUSE, EMSGSIZE, ENOMEM, E2BIG, EAFNOSUPPORT,
	ENODEV,
};

static struct {
	struct fz_opts o;
	const char *protect[MAX_NAMES];
	unsigned int nr_protect;
	const char *keep[MAX_NAMES];
	unsigned int nr_keep;
	const char *target[MAX_NAMES];
	unsigned int nr_target;
	uint8_t addr[4];
	bool have_addr;
	bool unprivileged;
} opt;

static const char *who = "genl-fuzz";
static int nl = -1, ev = -1;
static uint16_t family;
static uint32_t mcgrp;
static uint32_t seq_next = 1;
static uint64_t msg_no;

/* What the run counted. */
static struct {
	uint64_t messages, sends, acks, replies, dumps, events, ev_overruns;
	uint64_t err[160];
	uint64_t perm_refused;
	uint64_t by_cmd[__RW_CMD_MAX + 1];
	uint64_t ok_by_cmd[__RW_CMD_MAX + 1];
} cnt;

/* The message being built and, for a failure report, the last one sent. */
static unsigned char out[MSG_MAX * 2];
static size_t out_len;

static void dump_hex(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len && i < 512; i++)
		printf("%s%02x%s", i % 32 ? "" : "#   ", p[i],
		       i % 32 == 31 || i + 1 == len ? "\n" : "");
	if (len > 512)
		printf("#   ... %zu bytes\n", len);
}

__attribute__((noreturn, format(printf, 1, 2)))
static void die(const char *fmt, ...)
{
	va_list ap;

	printf("not ok - %s: ", who);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" (seed %llu, message %llu; replay: --seed %llu --iterations %llu)\n",
	       (unsigned long long)opt.o.seed, (unsigned long long)msg_no,
	       (unsigned long long)opt.o.seed,
	       (unsigned long long)msg_no + 1);
	printf("#   last message sent, %zu bytes:\n", out_len);
	dump_hex(out, out_len);
	fflush(stdout);
	exit(1);
}

static bool sane_errno(int e)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sane_errnos); i++)
		if (sane_errnos[i] == e)
			return true;
	return false;
}

/* ---- sockets ---- */

static int nl_socket(void)
{
	int fd = fz_nl_socket(RECV_MAX, true);

	if (fd < 0)
		die("netlink socket: %s", strerror(errno));
	return fd;
}

/* ---- building messages ---- */

static struct nlmsghdr *msg_start(uint16_t type, uint16_t flags, uint8_t cmd,
				  uint8_t version)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)(out + out_len);
	struct genlmsghdr *gh = NLMSG_DATA(nh);

	memset(nh, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	nh->nlmsg_type = type;
	nh->nlmsg_flags = flags;
	nh->nlmsg_seq = seq_next++;
	nh->nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	gh->cmd = cmd;
	gh->version = version;
	return nh;
}

/* Appends an attribute to @nh; false if it would not fit. */
static bool put(struct nlmsghdr *nh, uint16_t type, const void *data,
		size_t len)
{
	struct nlattr *a = (struct nlattr *)((unsigned char *)nh +
					     NLMSG_ALIGN(nh->nlmsg_len));

	if ((unsigned char *)a - out + NLA_HDRLEN + NLA_ALIGN(len) > MSG_MAX ||
	    NLA_HDRLEN + len > 0xffff)
		return false;
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((unsigned char *)a + NLA_HDRLEN, data, len);
	memset((unsigned char *)a + NLA_HDRLEN + len, 0,
	       NLA_ALIGN(len) - len);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + NLA_HDRLEN +
			NLA_ALIGN(len);
	return true;
}

static void put_u32(struct nlmsghdr *nh, uint16_t type, uint32_t v)
{
	put(nh, type, &v, sizeof(v));
}

/* A job name: see the file comment. @mutating: never a --protect name. */
static size_t gen_name(struct fz_rng *r, char *buf, bool mutating)
{
	static const char ok[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	uint64_t p = fz_below(r, 100);
	size_t n, i;

	if (p < 55) {
		return (size_t)sprintf(buf, "fz%u", (unsigned int)fz_below(r, 8)) + 1;
	} else if (p < 65 && opt.nr_target) {
		return (size_t)sprintf(buf, "%s",
				       opt.target[fz_below(r, opt.nr_target)]) + 1;
	} else if (p < 72 && opt.nr_protect && !mutating) {
		return (size_t)sprintf(buf, "%s",
				       opt.protect[fz_below(r, opt.nr_protect)]) + 1;
	} else if (p < 82) {
		/* Valid characters, lengths around the limit of 31. */
		n = fz_pct(r, 50) ? 28 + fz_below(r, 6) : 3 + fz_below(r, 40);
		buf[0] = 'f';
		buf[1] = 'z';
		for (i = 2; i < n; i++)
			buf[i] = ok[fz_below(r, sizeof(ok) - 1)];
		buf[n] = 0;
		return n + 1;
	} else if (p < 88) {
		/* A bad character, or a NUL inside. */
		n = 3 + fz_below(r, 20);
		sprintf(buf, "fz%u", (unsigned int)fz_below(r, 8));
		for (i = 3; i < n; i++)
			buf[i] = (char)(1 + fz_below(r, 255));
		if (fz_pct(r, 30))
			buf[3] = 0;
		buf[n] = 0;
		return n + 1;
	} else if (p < 94) {
		/* No terminating NUL. */
		n = sprintf(buf, "fz%u", (unsigned int)fz_below(r, 8));
		return (size_t)n;
	}
	buf[0] = 0;		/* "" */
	return fz_pct(r, 50) ? 1 : 0;
}

/* A wrong length for any attribute. */
static size_t gen_len(struct fz_rng *r)
{
	const size_t lens[] = { 0, 1, 2, 3, 5, 6, 7, 8, 12, 16, 31, 32, 33,
				64, 255, 256, 1024, 4096, 16384, 40000 };

	return lens[fz_below(r, ARRAY_SIZE(lens))];
}

static void gen_addr(struct fz_rng *r, struct nlmsghdr *nh, uint16_t type)
{
	uint8_t a[16] = { 0 };
	size_t len = fz_pct(r, 70) ? 4 : 16;
	uint64_t p = fz_below(r, 100);

	if (len == 4 && p < 40 && opt.have_addr) {
		memcpy(a, opt.addr, 4);
	} else if (len == 4 && p < 60) {
		a[0] = 127;
		a[3] = 1;
	} else if (len == 16 && p < 40) {
		a[10] = a[11] = 0xff;
		memcpy(a + 12, opt.have_addr ? opt.addr : (uint8_t[4]){ 127, 0, 0, 1 }, 4);
	} else if (p < 80) {
		fz_bytes(r, a, len);
	} else if (p < 90) {
		memset(a, 0xff, len);
	}
	put(nh, type, a, len);
}

static void gen_value(struct fz_rng *r, struct nlmsghdr *nh,
		      const struct attr_spec *s, bool mutating)
{
	unsigned char junk[40000];
	char name[80];
	uint16_t type = s->type;
	uint32_t v;
	uint16_t v16;
	size_t len;

	/* Header flags the policies do not expect. */
	if (fz_pct(r, 3))
		type |= NLA_F_NESTED;
	else if (fz_pct(r, 3))
		type |= NLA_F_NET_BYTEORDER;

	if (fz_pct(r, 8)) {
		/* Wrong length (type and content random). */
		len = gen_len(r);
		fz_bytes(r, junk, len < 64 ? len : 64);
		if (len > 64)
			memset(junk + 64, fz_pct(r, 50) ? 0 : 'a', len - 64);
		put(nh, type, junk, len);
		return;
	}
	switch (s->kind) {
	case K_STR:
		len = gen_name(r, name, mutating);
		put(nh, type, name, len);
		return;
	case K_U32:
	case K_MASK:
		if (fz_pct(r, 60))
			v = s->kind == K_MASK ? (uint32_t)fz_below(r, s->hi + 1) :
			    s->lo + (uint32_t)fz_below(r, (uint64_t)s->hi - s->lo + 1);
		else
			v = fz_u32_edge(r, s->lo, s->hi);
		put_u32(nh, type, v);
		return;
	case K_U16:
		v16 = fz_pct(r, 50) ? (uint16_t)fz_next(r) :
		      (uint16_t)fz_u32_edge(r, s->lo, s->hi);
		put(nh, type, &v16, sizeof(v16));
		return;
	case K_BIN:
		len = fz_pct(r, 85) ? s->lo : gen_len(r);
		fz_bytes(r, junk, len < 64 ? len : 64);
		put(nh, type, junk, len < 64 ? len : 64);
		return;
	case K_ADDR:
		gen_addr(r, nh, type);
		return;
	}
}

/* A nest of random attributes, sometimes nests within it. */
static void gen_nest(struct fz_rng *r, struct nlmsghdr *nh, uint16_t type,
		     int depth)
{
	size_t start = NLMSG_ALIGN(nh->nlmsg_len);
	struct nlattr *a;
	unsigned int i, n = (unsigned int)fz_below(r, 4);

	if (!put(nh, type | NLA_F_NESTED, NULL, 0))
		return;
	for (i = 0; i < n; i++) {
		if (depth < 3 && fz_pct(r, 30))
			gen_nest(r, nh, (uint16_t)fz_below(r, 40), depth + 1);
		else
			put_u32(nh, (uint16_t)fz_below(r, 40), (uint32_t)fz_next(r));
	}
	a = (struct nlattr *)((unsigned char *)nh + start);
	a->nla_len = (uint16_t)(nh->nlmsg_len - start);
}

static const struct cmd_spec *find_cmd(uint8_t cmd)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (cmds[i].cmd == cmd)
			return &cmds[i];
	return NULL;
}

/* What was sent, to judge its answer. */
struct sent {
	uint32_t seq;
	uint8_t cmd;
	bool processed;		/* the family runs it: a request of its type */
	bool admin;
	bool ping;		/* ours, not a generated one */
	bool foreign;		/* sent to another family's id (or none) */
};

/*
 * One message into out[] at out_len; returns what to expect of it.
 * Messages whose framing is broken may get no answer at all (netlink drops
 * a message whose nlmsg_len overruns the skb): those are not waited for.
 */
static struct sent gen_msg(struct fz_rng *r)
{
	const struct cmd_spec *cs;
	struct nlmsghdr *nh;
	struct genlmsghdr *gh;
	struct sent s = { 0 };
	uint16_t flags = NLM_F_REQUEST | NLM_F_ACK;
	uint8_t cmd, version = RW_GENL_VERSION;
	unsigned int i;
	size_t start = out_len, built;
	bool framed = true;

	if (fz_pct(r, 88)) {
		cs = &cmds[fz_below(r, ARRAY_SIZE(cmds))];
		cmd = cs->cmd;
	} else {
		const uint8_t odd[] = { RW_CMD_UNSPEC, RW_CMD_EVENT,
					RW_CMD_MAX + 1, 0x7f, 0xff };

		cmd = fz_pct(r, 60) ? odd[fz_below(r, ARRAY_SIZE(odd))] :
		      (uint8_t)fz_next(r);
		cs = find_cmd(cmd);
	}
	if (fz_pct(r, cs && cs->dump ? 40 : 8))
		flags |= NLM_F_DUMP;
	if (fz_pct(r, 4))
		flags |= (uint16_t)(fz_next(r) & 0x0ff0);
	if (fz_pct(r, 6)) {
		const uint8_t vs[] = { 0, 2, 3, 0x7f, 0xff };

		version = vs[fz_below(r, ARRAY_SIZE(vs))];
	}
	nh = msg_start(fz_pct(r, 2) ? (uint16_t)fz_below(r, 0x400) : family,
		       flags, cmd, version);
	gh = NLMSG_DATA(nh);
	if (fz_pct(r, 3))
		gh->reserved = (uint16_t)fz_next(r);

	if (cs) {
		bool mutating = cs->admin;

		for (i = 0; i < cs->nr_attrs; i++) {
			const struct attr_spec *as = &cs->attrs[i];

			if (!fz_pct(r, as->required ? 92 : 35))
				continue;
			gen_value(r, nh, as, mutating);
			if (fz_pct(r, 4))	/* duplicate */
				gen_value(r, nh, as, mutating);
		}
		/* Out of order: the first attribute again at the end. */
		if (cs->nr_attrs && fz_pct(r, 3))
			gen_value(r, nh, &cs->attrs[0], mutating);
	} else if (fz_pct(r, 50)) {
		put_u32(nh, RW_JOB_A_WORKERS, 1);
	}
	if (fz_pct(r, 5))	/* no policy has it */
		put_u32(nh, (uint16_t)((cs ? cs->maxattr : RW_JOB_A_MAX) + 1 +
				       fz_below(r, 0x3f00)), (uint32_t)fz_next(r));
	if (fz_pct(r, 3))	/* the type 0 attribute */
		put_u32(nh, 0, 0);
	if (fz_pct(r, 3))
		gen_nest(r, nh, (uint16_t)fz_below(r, RW_JOB_A_MAX + 2), 0);
	if (fz_pct(r, 3))	/* another namespace's attribute */
		put(nh, RW_LISTEN_A_ADDR, "\x7f\0\0\x01", 4);

	/* Broken framing. */
	built = NLMSG_ALIGN(nh->nlmsg_len);
	if (fz_pct(r, 3) && nh->nlmsg_len > NLMSG_HDRLEN + GENL_HDRLEN) {
		/* The last attribute claims more than there is. */
		struct nlattr *a = (struct nlattr *)((unsigned char *)nh +
						     NLMSG_HDRLEN + GENL_HDRLEN);

		a->nla_len = (uint16_t)(a->nla_len + 4 + fz_below(r, 3000));
	} else if (fz_pct(r, 2)) {
		struct nlattr *a = (struct nlattr *)((unsigned char *)nh +
						     NLMSG_HDRLEN + GENL_HDRLEN);

		if (nh->nlmsg_len > NLMSG_HDRLEN + GENL_HDRLEN)
			a->nla_len = (uint16_t)fz_below(r, NLA_HDRLEN);
	} else if (fz_pct(r, 2)) {
		/* A header cut short: no room for the genl header. */
		nh->nlmsg_len = NLMSG_HDRLEN + (uint32_t)fz_below(r, GENL_HDRLEN);
	} else if (fz_pct(r, 2)) {
		/* Longer than what is sent: dropped without an answer. */
		nh->nlmsg_len += 4 + (uint32_t)fz_below(r, 100);
		framed = false;
	} else if (fz_pct(r, 1)) {
		nh->nlmsg_len = (uint32_t)fz_below(r, NLMSG_HDRLEN);
		framed = false;
	}
	if (fz_pct(r, 2))
		nh->nlmsg_flags &= (uint16_t)~NLM_F_REQUEST;

	/* Sent as built, whatever nlmsg_len says now. */
	out_len = start + built;

	s.seq = nh->nlmsg_seq;
	s.cmd = cmd;
	s.foreign = nh->nlmsg_type != family;
	s.processed = framed && nh->nlmsg_type == family &&
		      (nh->nlmsg_flags & NLM_F_REQUEST) &&
		      nh->nlmsg_len >= NLMSG_HDRLEN + GENL_HDRLEN;
	s.admin = cs && cs->admin;
	return s;
}

/* ---- answers ---- */

/* The attributes of a reply or an event must parse. */
static void check_attrs(const unsigned char *p, int len, int depth)
{
	const struct nlattr *a;

	while (len >= NLA_HDRLEN) {
		a = (const struct nlattr *)p;
		if (a->nla_len < NLA_HDRLEN || a->nla_len > len)
			die("a reply's attribute %u has length %u of %d left",
			    a->nla_type, a->nla_len, len);
		if ((a->nla_type & NLA_F_NESTED) && depth < 4)
			check_attrs(p + NLA_HDRLEN, a->nla_len - NLA_HDRLEN,
				    depth + 1);
		len -= NLA_ALIGN(a->nla_len);
		p += NLA_ALIGN(a->nla_len);
	}
}

static void check_family_msg(const struct nlmsghdr *nh)
{
	const struct genlmsghdr *gh = NLMSG_DATA(nh);

	if (nh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		die("a reply of %u bytes", nh->nlmsg_len);
	if (!gh->cmd || gh->cmd > RW_CMD_MAX)
		die("a reply with command %u", gh->cmd);
	check_attrs((const unsigned char *)gh + GENL_HDRLEN,
		    (int)(nh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN), 0);
}

static struct sent pending[8];
static unsigned int nr_pending;

static struct sent *pending_find(uint32_t seq)
{
	unsigned int i;

	for (i = 0; i < nr_pending; i++)
		if (pending[i].seq == seq)
			return &pending[i];
	return NULL;
}

static void judge_error(const struct nlmsghdr *nh, int err)
{
	struct sent *s = pending_find(nh->nlmsg_seq);

	if (err > 0)
		die("an error message with a positive error %d", err);
	/*
	 * Our errnos are the documented ones. Another family answers as it
	 * will (tcp_metrics' delete of nothing is ESRCH): only its errno's
	 * sign is ours to check.
	 */
	if (err < 0 && !(s && s->foreign) && !sane_errno(-err))
		die("errno %d (%s) for command %u", -err, strerror(-err),
		    s ? s->cmd : 0);
	if (s && s->ping) {
		if (err)
			die("a plain status request failed: errno %d", -err);
		return;
	}
	if (err < 0)
		cnt.err[-err < (int)ARRAY_SIZE(cnt.err) ? -err : 0]++;
	else
		cnt.acks++;
	if (!s)
		return;
	if (opt.unprivileged && s->processed && s->admin && err == 0 &&
	    nh->nlmsg_type == NLMSG_ERROR)
		die("an unprivileged %s was accepted", find_cmd(s->cmd)->name);
	if (opt.unprivileged && s->processed && s->admin && err == -EPERM)
		cnt.perm_refused++;
	if (err == 0 && s->cmd <= RW_CMD_MAX && s->processed)
		cnt.ok_by_cmd[s->cmd]++;
}

/* Reads answers until the one for @seq ends (its ACK, error or DONE). */
static void wait_for(uint32_t seq)
{
	static unsigned char buf[RECV_MAX];
	const struct nlmsghdr *nh;
	bool done = false;
	ssize_t n;
	int len;

	while (!done) {
		n = recv(nl, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			die("no answer for a minute: a hang");
		if (n < 0 && errno == ENOBUFS)
			die("answers overran the socket");
		if (n < 0)
			die("recv: %s", strerror(errno));
		len = (int)n;
		for (nh = (const struct nlmsghdr *)buf; NLMSG_OK(nh, len);
		     nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nh);

				judge_error(nh, e->error);
				if (nh->nlmsg_seq == seq)
					done = true;
			} else if (nh->nlmsg_type == NLMSG_DONE) {
				int err = 0;

				if (nh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int))
					memcpy(&err, NLMSG_DATA(nh), sizeof(err));
				judge_error(nh, err);
				cnt.dumps++;
				if (nh->nlmsg_seq == seq)
					done = true;
			} else if (nh->nlmsg_type == family) {
				const struct sent *s = pending_find(nh->nlmsg_seq);

				check_family_msg(nh);
				if (!s || !s->ping)
					cnt.replies++;
			} else if (nh->nlmsg_type >= NLMSG_MIN_TYPE) {
				die("an answer of type %u", nh->nlmsg_type);
			}
		}
		if (len > 0)
			die("%d bytes of a truncated answer", len);
	}
}

/*
 * A dump with NLM_F_ACK ends with DONE and then, on kernels that ack
 * dumps, an ACK too: a status request after every batch resynchronizes,
 * and answers for older sequence numbers are judged as they come.
 */
static void send_and_judge(struct fz_rng *r)
{
	struct nlmsghdr *nh;
	size_t ping;
	unsigned int i, n = fz_pct(r, 5) ? 2 + (unsigned int)fz_below(r, 3) : 1;
	ssize_t ret;

	out_len = 0;
	nr_pending = 0;
	for (i = 0; i < n && out_len < MSG_MAX; i++) {
		pending[nr_pending++] = gen_msg(r);
		cnt.messages++;
		cnt.by_cmd[pending[nr_pending - 1].cmd <= RW_CMD_MAX ?
			   pending[nr_pending - 1].cmd : 0]++;
	}
	ret = send(nl, out, out_len, 0);
	cnt.sends++;
	if (ret < 0 && errno != EINVAL && errno != ENOBUFS && errno != EMSGSIZE)
		die("send: %s", strerror(errno));
	if (ret < 0)
		cnt.err[errno]++;
	/*
	 * Then, in a send of its own (a message whose nlmsg_len overruns
	 * the send makes netlink drop the rest of it), a status request
	 * whose answer ends the wait.
	 */
	ping = out_len;
	nh = msg_start(family, NLM_F_REQUEST | NLM_F_ACK, RW_CMD_STATUS_GET,
		       RW_GENL_VERSION);
	pending[nr_pending++] = (struct sent){ .seq = nh->nlmsg_seq,
		.cmd = RW_CMD_STATUS_GET, .ping = true };
	if (send(nl, out + ping, nh->nlmsg_len, 0) < 0)
		die("send: %s", strerror(errno));
	wait_for(nh->nlmsg_seq);
}

/* Events: every one must parse and name its kind. */
static void drain_events(void)
{
	static unsigned char buf[RECV_MAX];
	const struct nlmsghdr *nh;
	const struct genlmsghdr *gh;
	ssize_t n;
	int len;

	if (ev < 0)
		return;
	for (;;) {
		n = recv(ev, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && errno == ENOBUFS) {
			cnt.ev_overruns++;
			continue;
		}
		if (n <= 0)
			return;
		len = (int)n;
		for (nh = (const struct nlmsghdr *)buf; NLMSG_OK(nh, len);
		     nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_type != family)
				die("an event of type %u", nh->nlmsg_type);
			check_family_msg(nh);
			gh = NLMSG_DATA(nh);
			if (gh->cmd != RW_CMD_EVENT)
				die("an event with command %u", gh->cmd);
			cnt.events++;
		}
	}
}

/* ---- the family's id and group, and the cleanup ---- */

static void resolve(void)
{
	static unsigned char buf[8192];
	struct nlmsghdr *nh;
	const struct nlattr *a, *g, *ga;
	ssize_t n;
	int len, rem, grem, glen;

	out_len = 0;
	nh = msg_start(GENL_ID_CTRL, NLM_F_REQUEST, CTRL_CMD_GETFAMILY, 1);
	put(nh, CTRL_ATTR_FAMILY_NAME, RW_GENL_NAME, sizeof(RW_GENL_NAME));
	out_len = nh->nlmsg_len;
	if (send(nl, out, out_len, 0) < 0)
		die("send: %s", strerror(errno));
	n = recv(nl, buf, sizeof(buf), 0);
	nh = (struct nlmsghdr *)buf;
	if (n < (ssize_t)NLMSG_HDRLEN || nh->nlmsg_type != GENL_ID_CTRL)
		die("family %s not found (is rackweave.ko loaded?)", RW_GENL_NAME);
	len = (int)nh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	a = (const struct nlattr *)((unsigned char *)NLMSG_DATA(nh) + GENL_HDRLEN);
	for (rem = len; rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN;
	     rem -= NLA_ALIGN(a->nla_len),
	     a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len))) {
		if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID)
			memcpy(&family, (const char *)a + NLA_HDRLEN, 2);
		if ((a->nla_type & NLA_TYPE_MASK) != CTRL_ATTR_MCAST_GROUPS)
			continue;
		g = (const struct nlattr *)((const char *)a + NLA_HDRLEN);
		for (grem = a->nla_len - NLA_HDRLEN; grem >= NLA_HDRLEN;
		     grem -= NLA_ALIGN(g->nla_len),
		     g = (const struct nlattr *)((const char *)g + NLA_ALIGN(g->nla_len))) {
			ga = (const struct nlattr *)((const char *)g + NLA_HDRLEN);
			for (glen = g->nla_len - NLA_HDRLEN; glen >= NLA_HDRLEN;
			     glen -= NLA_ALIGN(ga->nla_len),
			     ga = (const struct nlattr *)((const char *)ga + NLA_ALIGN(ga->nla_len)))
				if ((ga->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_MCAST_GRP_ID)
					memcpy(&mcgrp, (const char *)ga + NLA_HDRLEN, 4);
			if (g->nla_len < NLA_HDRLEN)
				break;
		}
	}
	if (!family)
		die("no id for family %s", RW_GENL_NAME);
}

static bool kept(const char *name)
{
	unsigned int i;

	for (i = 0; i < opt.nr_keep; i++)
		if (!strcmp(name, opt.keep[i]))
			return true;
	for (i = 0; i < opt.nr_protect; i++)
		if (!strcmp(name, opt.protect[i]))
			return true;
	return false;
}

/* Deletes (forced) every job named fz* but the kept ones. */
static unsigned int cleanup(void)
{
	static unsigned char buf[RECV_MAX];
	static char names[RW_MAX_JOBS_LIMIT][RW_JOB_NAME_MAX];
	unsigned int nr = 0, i;
	struct nlmsghdr *nh;
	bool done = false;
	__u32 seq;
	ssize_t n;
	int len, rem;

	out_len = 0;
	nh = msg_start(family, NLM_F_REQUEST | NLM_F_DUMP, RW_CMD_JOB_GET,
		       RW_GENL_VERSION);
	out_len = nh->nlmsg_len;
	seq = nh->nlmsg_seq;
	if (send(nl, out, out_len, 0) < 0)
		die("send: %s", strerror(errno));
	while (!done) {
		n = recv(nl, buf, sizeof(buf), 0);
		if (n < 0)
			die("job dump: %s", strerror(errno));
		len = (int)n;
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, len);
		     nh = NLMSG_NEXT(nh, len)) {
			const struct nlattr *a;

			/*
			 * The socket is the fuzzer's: an event of the
			 * group it joined, or a late answer to one of
			 * its messages, may come first. Only the dump's
			 * own parts count.
			 */
			if (nh->nlmsg_seq != seq)
				continue;
			if (nh->nlmsg_type == NLMSG_DONE ||
			    nh->nlmsg_type == NLMSG_ERROR) {
				done = true;
				break;
			}
			a = (const struct nlattr *)((unsigned char *)NLMSG_DATA(nh) +
						    GENL_HDRLEN);
			for (rem = nh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
			     rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN;
			     rem -= NLA_ALIGN(a->nla_len),
			     a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len)))
				if (a->nla_type == RW_JOB_A_NAME &&
				    nr < RW_MAX_JOBS_LIMIT)
					snprintf(names[nr++], RW_JOB_NAME_MAX,
						 "%s", (const char *)a + NLA_HDRLEN);
		}
	}
	rem = 0;
	for (i = 0; i < nr; i++) {
		if (strncmp(names[i], "fz", 2) || kept(names[i]))
			continue;
		out_len = 0;
		nh = msg_start(family, NLM_F_REQUEST | NLM_F_ACK,
			       RW_CMD_JOB_DEL, RW_GENL_VERSION);
		put(nh, RW_JOB_A_NAME, names[i], strlen(names[i]) + 1);
		put_u32(nh, RW_JOB_A_FLAGS, RW_JOB_DEL_FORCE);
		out_len = nh->nlmsg_len;
		nr_pending = 0;
		if (send(nl, out, out_len, 0) < 0)
			die("send: %s", strerror(errno));
		wait_for(nh->nlmsg_seq);
		rem++;
	}
	return (unsigned int)rem;
}

/* ---- the run ---- */

static void report(double secs)
{
	unsigned int i;

	printf("# %s: seed %llu: %llu messages in %llu sends, %.1f s: %llu ACKs, %llu replies, %llu dump ends, %llu events (%llu overruns)\n",
	       who, (unsigned long long)opt.o.seed,
	       (unsigned long long)cnt.messages, (unsigned long long)cnt.sends,
	       secs, (unsigned long long)cnt.acks,
	       (unsigned long long)cnt.replies, (unsigned long long)cnt.dumps,
	       (unsigned long long)cnt.events,
	       (unsigned long long)cnt.ev_overruns);
	printf("# %s: errors:", who);
	for (i = 1; i < ARRAY_SIZE(cnt.err); i++)
		if (cnt.err[i])
			printf(" %s %llu", strerrorname_np((int)i),
			       (unsigned long long)cnt.err[i]);
	printf("\n# %s: accepted/sent by command:", who);
	for (i = 1; i <= RW_CMD_MAX; i++)
		printf(" %u:%llu/%llu", i, (unsigned long long)cnt.ok_by_cmd[i],
		       (unsigned long long)cnt.by_cmd[i]);
	printf("\n");
}

static int run(void)
{
	struct fz_rng r = { opt.o.seed };
	double start = fz_now();
	int ret;

	printf("# %s: seed %llu%s\n", who, (unsigned long long)opt.o.seed,
	       opt.unprivileged ? " (unprivileged)" : "");
	fflush(stdout);
	nl = nl_socket();
	resolve();
	ev = nl_socket();
	ret = setsockopt(ev, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &mcgrp,
			 sizeof(mcgrp));
	if (opt.unprivileged) {
		if (!ret)
			die("an unprivileged socket joined the events group");
		printf("ok - %s: joining \"events\" is refused (%s)\n", who,
		       strerrorname_np(errno));
		close(ev);
		ev = -1;
	} else if (ret) {
		die("joining events: %s", strerror(errno));
	}
	for (msg_no = 0; fz_more(&opt.o, start, msg_no); msg_no++) {
		send_and_judge(&r);
		if (msg_no % 32 == 0)
			drain_events();
	}
	drain_events();
	report(fz_now() - start);
	printf("ok - %s: %llu messages (seed %llu): every answer an ACK, a reply that parses or a documented errno\n",
	       who, (unsigned long long)cnt.messages,
	       (unsigned long long)opt.o.seed);
	if (opt.unprivileged)
		printf("ok - %s: no mutation accepted (%llu refused with EPERM)\n",
		       who, (unsigned long long)cnt.perm_refused);
	else
		printf("ok - %s: %llu events, each parsed; %u fz jobs left deleted\n",
		       who, (unsigned long long)cnt.events, cleanup());
	fflush(stdout);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: genl-fuzz [--seed N] [--seconds S] [--iterations N] [--protect NAME]... [--keep NAME]... [--target NAME]... [--addr A.B.C.D] [--unprivileged]\n");
	return 2;
}

int main(int argc, char **argv)
{
	pid_t child = 0;
	int i, st;

	for (i = 1; i < argc; i++) {
		if (fz_common_opt(&opt.o, argc, argv, &i))
			continue;
		if (!strcmp(argv[i], "--unprivileged"))
			opt.unprivileged = true;
		else if (i + 1 < argc && !strcmp(argv[i], "--protect") &&
			 opt.nr_protect < MAX_NAMES)
			opt.protect[opt.nr_protect++] = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--keep") &&
			 opt.nr_keep < MAX_NAMES)
			opt.keep[opt.nr_keep++] = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--target") &&
			 opt.nr_target < MAX_NAMES)
			opt.target[opt.nr_target++] = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--addr") &&
			 sscanf(argv[++i], "%hhu.%hhu.%hhu.%hhu", &opt.addr[0],
				&opt.addr[1], &opt.addr[2], &opt.addr[3]) == 4)
			opt.have_addr = true;
		else
			return usage();
	}
	fz_seed_default(&opt.o);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (opt.unprivileged) {
		/* The child drops to nobody; the parent goes on as root. */
		child = fork();
		if (child < 0)
			die("fork: %s", strerror(errno));
		if (child == 0) {
			if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
				die("dropping to nobody: %s", strerror(errno));
			who = "genl-fuzz (nobody)";
			opt.o.seed += 1;
			return run();
		}
		opt.unprivileged = false;
	}
	if (run())
		return 1;
	if (child) {
		if (waitpid(child, &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			return 1;
	}
	return 0;
}
