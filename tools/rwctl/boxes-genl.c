// SPDX-License-Identifier: GPL-2.0
/*
 * A job's box set in netlink attributes, both ways: RW_JOB_A_BOXES (one
 * RW_JOB_A_BOX nest per box: RW_BOX_A_ID, _ADDR, _PORT and, in a topology
 * with a layout, _CHUNKS and _BYTES), RW_JOB_A_BOX_SELF and
 * RW_JOB_A_BOX_EPOCH, in "job add" and "policy set" requests and in job
 * and topology replies.
 *
 * As in genl.c, every fixed-size attribute states minlen and maxlen alike
 * (libnl checks only the minimum by default).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "boxes.h"
#include "genl.h"

static const struct nla_policy rwctl_box_policy[RW_BOX_A_MAX + 1] = {
	[RW_BOX_A_ID]		= { .type = NLA_U32, .minlen = 4, .maxlen = 4 },
	[RW_BOX_A_ADDR]		= { .type = NLA_UNSPEC, .minlen = 4, .maxlen = 16 },
	[RW_BOX_A_PORT]		= { .type = NLA_U16, .minlen = 2, .maxlen = 2 },
	[RW_BOX_A_CHUNKS]	= { .type = NLA_U32, .minlen = 4, .maxlen = 4 },
	[RW_BOX_A_BYTES]	= { .type = NLA_U64, .minlen = 8, .maxlen = 8 },
};

#define rwctl_boxes_bad(msg, msglen, kind, fmt, ...)			\
	rwctl_genl_fail(msg, msglen, -EPROTO,				\
			"malformed %s reply from the rackweave module: box set: " \
			fmt, kind, ##__VA_ARGS__)

static int rwctl_box_put(struct nl_msg *m, const struct rwctl_box *x)
{
	struct nlattr *e = nla_nest_start(m, RW_JOB_A_BOX);

	if (!e || nla_put_u32(m, RW_BOX_A_ID, x->id) ||
	    nla_put(m, RW_BOX_A_ADDR, x->family == AF_INET ? 4 : 16, x->addr) ||
	    (x->port && nla_put_u16(m, RW_BOX_A_PORT, x->port)))
		return -EMSGSIZE;
	return nla_nest_end(m, e) ? -EMSGSIZE : 0;
}

int rwctl_boxes_put(struct nl_msg *m, const struct rwctl_boxes *b)
{
	struct nlattr *list = nla_nest_start(m, RW_JOB_A_BOXES);
	size_t i;

	if (!list)
		return -EMSGSIZE;
	for (i = 0; i < b->nr; i++)
		if (rwctl_box_put(m, &b->box[i]))
			return -EMSGSIZE;
	/* An empty nest is the request to drop the set: keep it. */
	if (nla_nest_end_keep_empty(m, list))
		return -EMSGSIZE;
	if (!b->nr)
		return 0;
	if (nla_put_u32(m, RW_JOB_A_BOX_SELF, b->self) ||
	    (b->epoch && nla_put_u32(m, RW_JOB_A_BOX_EPOCH, b->epoch)))
		return -EMSGSIZE;
	return 0;
}

/* One RW_JOB_A_BOX entry into @x. */
static int rwctl_box_parse_entry(struct nlattr *entry, struct rwctl_box *x,
				 size_t i, bool shares, const char *kind,
				 char *msg, size_t msglen)
{
	struct nlattr *tb[RW_BOX_A_MAX + 1];
	int err, len;

	err = rwctl_genl_parse_nested(tb, RW_BOX_A_MAX, entry,
				      rwctl_box_policy);
	if (err < 0)
		return rwctl_boxes_bad(msg, msglen, kind, "box %zu: %s", i,
				       rwctl_genl_strerror(err));
	if (!tb[RW_BOX_A_ID] || !tb[RW_BOX_A_ADDR] || !tb[RW_BOX_A_PORT])
		return rwctl_boxes_bad(msg, msglen, kind,
				       "box %zu lacks its id, address or port",
				       i);
	len = nla_len(tb[RW_BOX_A_ADDR]);
	if (len != 4 && len != 16)
		return rwctl_boxes_bad(msg, msglen, kind,
				       "box %zu has an address of %d bytes", i,
				       len);
	x->id = nla_get_u32(tb[RW_BOX_A_ID]);
	x->family = len == 4 ? AF_INET : AF_INET6;
	memcpy(x->addr, nla_data(tb[RW_BOX_A_ADDR]), (size_t)len);
	x->port = nla_get_u16(tb[RW_BOX_A_PORT]);
	if (!tb[RW_BOX_A_CHUNKS] && !tb[RW_BOX_A_BYTES])
		return 0;
	if (!shares)
		return rwctl_boxes_bad(msg, msglen, kind,
				       "box %u has a share where none belongs",
				       x->id);
	if (!tb[RW_BOX_A_CHUNKS] || !tb[RW_BOX_A_BYTES])
		return rwctl_boxes_bad(msg, msglen, kind,
				       "box %u has part of a share", x->id);
	x->has_share = true;
	x->chunks = nla_get_u32(tb[RW_BOX_A_CHUNKS]);
	x->bytes = nla_get_u64(tb[RW_BOX_A_BYTES]);
	return 0;
}

int rwctl_boxes_parse_reply(struct nlattr **tb, struct rwctl_boxes *b,
			    bool shares, const char *kind, char *msg,
			    size_t msglen)
{
	struct nlattr *list = tb[RW_JOB_A_BOXES], *entry;
	size_t i, k;
	int rem, err;

	memset(b, 0, sizeof(*b));
	if (!list && !tb[RW_JOB_A_BOX_SELF] && !tb[RW_JOB_A_BOX_EPOCH])
		return 0;
	if (!list || !tb[RW_JOB_A_BOX_SELF] || !tb[RW_JOB_A_BOX_EPOCH])
		return rwctl_boxes_bad(msg, msglen, kind,
				       "its boxes, self and epoch do not come together");
	b->self = nla_get_u32(tb[RW_JOB_A_BOX_SELF]);
	b->epoch = nla_get_u32(tb[RW_JOB_A_BOX_EPOCH]);
	nla_for_each_nested(entry, list, rem) {
		if (nla_type(entry) != RW_JOB_A_BOX)
			continue;
		if (b->nr == RW_JOB_MAX_BOXES)
			return rwctl_boxes_bad(msg, msglen, kind,
					       "more than %d boxes",
					       RW_JOB_MAX_BOXES);
		err = rwctl_box_parse_entry(entry, &b->box[b->nr], b->nr,
					    shares, kind, msg, msglen);
		if (err)
			return err;
		b->nr++;
	}
	if (rem > 0)
		return rwctl_boxes_bad(msg, msglen, kind, "trailing bytes");
	if (!b->nr)
		return rwctl_boxes_bad(msg, msglen, kind, "no box");
	for (i = 0, k = b->nr; i < b->nr; i++)
		if (b->box[i].id == b->self)
			k = i;
	/* Self 0: this box left the job's set by a move. */
	if (k == b->nr && b->self)
		return rwctl_boxes_bad(msg, msglen, kind,
				       "this box's id %u is not in it", b->self);
	/* A share for one box is a share for all. */
	for (i = 1; i < b->nr; i++)
		if (b->box[i].has_share != b->box[0].has_share)
			return rwctl_boxes_bad(msg, msglen, kind,
					       "a share for some boxes only");
	return 0;
}

int rwctl_boxes_parse_move(struct nlattr *move,
			   const struct nla_policy *policy,
			   int maxtype, struct rwctl_boxes *b,
			   const char *kind, char *msg, size_t msglen)
{
	struct nlattr *tb[RW_JOB_A_MAX + 1];

	memset(b, 0, sizeof(*b));
	if (!move)
		return 0;
	if (maxtype > RW_JOB_A_MAX ||
	    nla_parse_nested(tb, maxtype, move, policy) < 0)
		return rwctl_boxes_bad(msg, msglen, kind,
				       "the set it moves to does not parse");
	if (!tb[RW_JOB_A_BOXES])
		return rwctl_boxes_bad(msg, msglen, kind,
				       "it moves to no set");
	return rwctl_boxes_parse_reply(tb, b, false, kind, msg, msglen);
}
