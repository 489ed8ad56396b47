// SPDX-License-Identifier: GPL-2.0
/*
 * The job commands of the "rackweave" family: RW_CMD_JOB_NEW, _DEL and
 * _GET (documented in uapi/rackweave.h). Policies do the type, length and
 * range checks; what a policy cannot say (name characters, powers of two,
 * band order, optimizer ranges, a box set's rules) is checked by
 * rw_job_new() and reported in the extended ack. A job's box set goes out
 * of here for the topology too (rw_genl_put_boxes()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <net/genetlink.h>
#include <kunit/visibility.h>

#include "rw.h"
#include "genl.h"
#include "genl_job.h"
#include "job.h"
#include "mem.h"
#include "chunk/boxset.h"

/* Not const: 6.1's policy holds a plain pointer to it. */
static struct netlink_range_validation rw_chunk_range = {
	.min = RW_CHUNK_SIZE_MIN, .max = RW_CHUNK_SIZE_MAX,
};

/* A box id: past what NLA_POLICY_RANGE's s16 bounds hold. */
static struct netlink_range_validation rw_box_id_range = {
	.min = 1, .max = RW_BOX_MAX_ID,
};

/* A box of a job's set; the reply-only counts are refused. */
static const struct nla_policy rw_box_policy[RW_BOX_A_MAX + 1] = {
	[RW_BOX_A_ID]		= NLA_POLICY_FULL_RANGE(NLA_U32, &rw_box_id_range),
	[RW_BOX_A_ADDR]		= NLA_POLICY_RANGE(NLA_BINARY, 4, 16),
	[RW_BOX_A_PORT]		= NLA_POLICY_MIN(NLA_U16, 1),
};

/* The settings of a job: what RW_CMD_JOB_NEW and _POLICY_SET both take. */
#define RW_JOB_SETTINGS_POLICY						\
	[RW_JOB_A_NAME]		= { .type = NLA_NUL_STRING,		\
				    .len = RW_JOB_NAME_MAX - 1 },	\
	[RW_JOB_A_WORKERS]	= NLA_POLICY_RANGE(NLA_U32, 1,		\
						   RW_JOB_MAX_WORKERS),	\
	[RW_JOB_A_CHUNK_SIZE]	= NLA_POLICY_FULL_RANGE(NLA_U32,	\
							&rw_chunk_range), \
	[RW_JOB_A_SYNC]		= NLA_POLICY_MAX(NLA_U32, __RW_SYNC_MAX - 1), \
	[RW_JOB_A_STALENESS]	= NLA_POLICY_RANGE(NLA_U32, 1,		\
						   RW_JOB_MAX_STALENESS), \
	[RW_JOB_A_STALENESS_LO]	= NLA_POLICY_RANGE(NLA_U32, 1,		\
						   RW_JOB_MAX_STALENESS), \
	[RW_JOB_A_STALENESS_HI]	= NLA_POLICY_RANGE(NLA_U32, 1,		\
						   RW_JOB_MAX_STALENESS), \
	[RW_JOB_A_EVICT_MS]	= { .type = NLA_U32 },			\
	[RW_JOB_A_QUORUM]	= { .type = NLA_U32 },			\
	[RW_JOB_A_OPTIM]	= NLA_POLICY_MAX(NLA_U32, __RW_OPTIM_MAX - 1), \
	[RW_JOB_A_LR]		= { .type = NLA_U32 },			\
	[RW_JOB_A_MOMENTUM]	= { .type = NLA_U32 },			\
	[RW_JOB_A_WEIGHT_DECAY]	= { .type = NLA_U32 },			\
	[RW_JOB_A_BETA1]	= { .type = NLA_U32 },			\
	[RW_JOB_A_BETA2]	= { .type = NLA_U32 },			\
	[RW_JOB_A_EPS]		= { .type = NLA_U32 },			\
	[RW_JOB_A_MAX_MEMORY]	= { .type = NLA_U64 },			\
	[RW_JOB_A_BOXES]	= NLA_POLICY_NESTED_ARRAY(rw_box_policy), \
	[RW_JOB_A_BOX_SELF]	= NLA_POLICY_FULL_RANGE(NLA_U32,	\
						&rw_box_id_range),	\
	[RW_JOB_A_BOX_EPOCH]	= NLA_POLICY_MIN(NLA_U32, 1)

const struct nla_policy rw_job_new_policy[RW_JOB_A_MAX + 1] = {
	RW_JOB_SETTINGS_POLICY,
	[RW_JOB_A_TOKEN]	= NLA_POLICY_EXACT_LEN(RW_JOB_TOKEN_LEN),
};
EXPORT_SYMBOL_IF_KUNIT(rw_job_new_policy);

const struct nla_policy rw_job_del_policy[RW_JOB_A_MAX + 1] = {
	[RW_JOB_A_NAME]		= { .type = NLA_NUL_STRING,
				    .len = RW_JOB_NAME_MAX - 1 },
	[RW_JOB_A_FLAGS]	= NLA_POLICY_MASK(NLA_U32, RW_JOB_DEL_FLAGS_ALL),
};
EXPORT_SYMBOL_IF_KUNIT(rw_job_del_policy);

/* What RW_CMD_JOB_NEW takes, less the token. */
const struct nla_policy rw_policy_set_policy[RW_JOB_A_MAX + 1] = {
	RW_JOB_SETTINGS_POLICY,
};
EXPORT_SYMBOL_IF_KUNIT(rw_policy_set_policy);

const struct nla_policy rw_job_get_policy[RW_JOB_A_MAX + 1] = {
	[RW_JOB_A_NAME]		= { .type = NLA_NUL_STRING,
				    .len = RW_JOB_NAME_MAX - 1 },
};
EXPORT_SYMBOL_IF_KUNIT(rw_job_get_policy);

/* Defaults: lr 0.01, momentum 0.9, betas 0.9 and 0.999, eps 1e-8. */
#define RW_F32_0_01	0x3c23d70aU
#define RW_F32_0_9	0x3f666666U
#define RW_F32_0_999	0x3f7fbe77U
#define RW_F32_1E_8	0x322bcc77U

static u32 rw_attr_u32(struct genl_info *info, int attr, u32 def)
{
	return info->attrs[attr] ? nla_get_u32(info->attrs[attr]) : def;
}

/*
 * RW_JOB_A_QUORUM, if given, into @cfg (whose workers are known): K =
 * workers is stored as 0, every member. ERANGE outside 1..workers.
 */
static int rw_genl_quorum(struct genl_info *info, struct rw_job_config *cfg)
{
	u32 k;

	if (!info->attrs[RW_JOB_A_QUORUM])
		return 0;
	k = nla_get_u32(info->attrs[RW_JOB_A_QUORUM]);
	if (!k || k > cfg->workers) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[RW_JOB_A_QUORUM],
				    "quorum must be from 1 to the job's workers");
		return -ERANGE;
	}
	cfg->quorum = k == cfg->workers ? 0 : k;
	return 0;
}

/* One box of RW_JOB_A_BOXES and, when the run's counts are given, its share. */
static int rw_genl_put_box(struct sk_buff *skb, const struct rw_box *b,
			   const u32 *chunks, const u64 *bytes)
{
	struct nlattr *e = nla_nest_start(skb, RW_JOB_A_BOX);

	if (!e || nla_put_u32(skb, RW_BOX_A_ID, b->id) ||
	    nla_put(skb, RW_BOX_A_ADDR, b->family == RW_BOX_AF_INET ? 4 : 16,
		    b->addr) ||
	    nla_put_u16(skb, RW_BOX_A_PORT, b->port ? b->port : RW_WIRE_PORT) ||
	    (chunks && (nla_put_u32(skb, RW_BOX_A_CHUNKS, *chunks) ||
			nla_put_u64_64bit(skb, RW_BOX_A_BYTES, *bytes,
					  RW_BOX_A_PAD))))
		return -EMSGSIZE;
	nla_nest_end(skb, e);
	return 0;
}

int rw_genl_put_boxes(struct sk_buff *skb, const struct rw_boxset *s,
		      const u32 *chunks, const u64 *bytes)
{
	struct nlattr *list;
	u32 i;

	list = nla_nest_start(skb, RW_JOB_A_BOXES);
	if (!list)
		return -EMSGSIZE;
	for (i = 0; i < s->nr; i++)
		if (rw_genl_put_box(skb, &s->box[i], chunks ? &chunks[i] : NULL,
				    bytes ? &bytes[i] : NULL))
			return -EMSGSIZE;
	nla_nest_end(skb, list);
	if (nla_put_u32(skb, RW_JOB_A_BOX_SELF, s->self) ||
	    nla_put_u32(skb, RW_JOB_A_BOX_EPOCH, s->epoch))
		return -EMSGSIZE;
	return 0;
}

/*
 * RW_JOB_A_BOXES, _BOX_SELF and _BOX_EPOCH of a request into *@out: a set
 * allocated here (kfree() it) with epoch 0 if none was given, or NULL for
 * an empty RW_JOB_A_BOXES (no set). *@given says whether the request
 * spoke of a set at all. The policy checked each attribute; what is left
 * is their combination. 0, or -EINVAL (-ENOMEM) with an extended ack.
 */
static int rw_genl_boxes(struct genl_info *info, struct rw_boxset **out,
			 bool *given)
{
	struct nlattr *list = info->attrs[RW_JOB_A_BOXES];
	struct nlattr *self = info->attrs[RW_JOB_A_BOX_SELF];
	struct nlattr *epoch = info->attrs[RW_JOB_A_BOX_EPOCH];
	struct nlattr *tb[RW_BOX_A_MAX + 1], *e;
	struct rw_boxset *s;
	struct rw_box *b;
	int rem, ret, len;

	/* The uapi's limits are the set's own (chunk/boxset.h). */
	BUILD_BUG_ON(RW_JOB_MAX_BOXES != RW_OWNER_MAX_BOXES);
	BUILD_BUG_ON(RW_BOX_MAX_ID != RW_BOX_ID_MAX);
	*out = NULL;
	*given = list || self || epoch;
	if (!list && (self || epoch)) {
		NL_SET_ERR_MSG_ATTR(info->extack, self ? self : epoch,
				    "this box's id and the epoch go with a box set (RW_JOB_A_BOXES)");
		return -EINVAL;
	}
	if (!list)
		return 0;
	if (!nla_len(list)) {
		if (!self && !epoch)
			return 0;
		NL_SET_ERR_MSG_ATTR(info->extack, list,
				    "an empty box set (none) takes no id or epoch");
		return -EINVAL;
	}
	if (!self) {
		NL_SET_ERR_MSG_ATTR(info->extack, list,
				    "a box set needs this box's id (RW_JOB_A_BOX_SELF)");
		return -EINVAL;
	}
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	ret = -EINVAL;
	nla_for_each_nested(e, list, rem) {
		if (nla_type(e) != RW_JOB_A_BOX) {
			NL_SET_ERR_MSG_ATTR(info->extack, e,
					    "a box set holds RW_JOB_A_BOX entries only");
			goto bad;
		}
		if (s->nr == RW_JOB_MAX_BOXES) {
			NL_SET_ERR_MSG_ATTR(info->extack, e,
					    "a box set holds 1 to 64 boxes");
			goto bad;
		}
		ret = nla_parse_nested(tb, RW_BOX_A_MAX, e, rw_box_policy,
				       info->extack);
		if (ret)
			goto bad;
		ret = -EINVAL;
		if (!tb[RW_BOX_A_ID] || !tb[RW_BOX_A_ADDR]) {
			NL_SET_ERR_MSG_ATTR(info->extack, e,
					    "a box needs its id and address");
			goto bad;
		}
		len = nla_len(tb[RW_BOX_A_ADDR]);
		if (len != 4 && len != 16) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[RW_BOX_A_ADDR],
					    "a box's address is 4 (IPv4) or 16 (IPv6) bytes");
			goto bad;
		}
		b = &s->box[s->nr++];
		b->id = nla_get_u32(tb[RW_BOX_A_ID]);
		b->family = len == 4 ? RW_BOX_AF_INET : RW_BOX_AF_INET6;
		/* Stored as given or its default, so one box has one port. */
		b->port = tb[RW_BOX_A_PORT] ? nla_get_u16(tb[RW_BOX_A_PORT]) :
					      RW_WIRE_PORT;
		nla_memcpy(b->addr, tb[RW_BOX_A_ADDR], len);
	}
	s->self = nla_get_u32(self);
	s->epoch = epoch ? nla_get_u32(epoch) : 0;
	*out = s;
	return 0;
bad:
	kfree(s);
	return ret;
}

/* RW_JOB_A_MOVE: the set a job moves to, as RW_JOB_A_BOXES has one. */
static int rw_genl_put_move(struct sk_buff *skb, const struct rw_boxset *s)
{
	struct nlattr *e = nla_nest_start(skb, RW_JOB_A_MOVE);

	if (!e || rw_genl_put_boxes(skb, s, NULL, NULL))
		return -EMSGSIZE;
	nla_nest_end(skb, e);
	return 0;
}

/*
 * @boxes is @job's set and @move the set it moves to: job->boxes and
 * job->move read under the registry lock (a dump) or copies of them
 * (rw_job_boxes_copy()), as either may be replaced.
 */
static int rw_job_fill(struct sk_buff *skb, const struct rw_job *job,
		       const struct rw_boxset *boxes,
		       const struct rw_boxset *move, u32 portid, u32 seq,
		       int flags, const u8 *token)
{
	const struct rw_job_config *c = &job->cfg;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &rw_genl_family, flags,
			  token ? RW_CMD_JOB_NEW : RW_CMD_JOB_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, RW_JOB_A_NAME, c->name) ||
	    nla_put_u32(skb, RW_JOB_A_ID, job->id) ||
	    nla_put_u32(skb, RW_JOB_A_WORKERS, c->workers) ||
	    nla_put_u32(skb, RW_JOB_A_CHUNK_SIZE, c->chunk_size) ||
	    nla_put_u32(skb, RW_JOB_A_SYNC, c->sync) ||
	    (c->sync == RW_SYNC_SSP &&
	     nla_put_u32(skb, RW_JOB_A_STALENESS, c->staleness)) ||
	    (c->sync == RW_SYNC_ADAPTIVE &&
	     (nla_put_u32(skb, RW_JOB_A_STALENESS_LO, c->staleness_lo) ||
	      nla_put_u32(skb, RW_JOB_A_STALENESS_HI, c->staleness_hi))) ||
	    nla_put_u32(skb, RW_JOB_A_EVICT_MS, c->evict_ms) ||
	    (c->sync == RW_SYNC_BSP &&
	     nla_put_u32(skb, RW_JOB_A_QUORUM,
			 c->quorum ? c->quorum : c->workers)) ||
	    nla_put_u32(skb, RW_JOB_A_OPTIM, c->optim) ||
	    nla_put_u32(skb, RW_JOB_A_LR, c->lr) ||
	    nla_put_u32(skb, RW_JOB_A_MOMENTUM, c->momentum) ||
	    nla_put_u32(skb, RW_JOB_A_WEIGHT_DECAY, c->weight_decay) ||
	    nla_put_u32(skb, RW_JOB_A_BETA1, c->beta1) ||
	    nla_put_u32(skb, RW_JOB_A_BETA2, c->beta2) ||
	    nla_put_u32(skb, RW_JOB_A_EPS, c->eps) ||
	    nla_put_u32(skb, RW_JOB_A_ATTACHED, READ_ONCE(job->attached)) ||
	    nla_put_u32(skb, RW_JOB_A_MAPPINGS, atomic_read(&job->mappings)) ||
	    nla_put_u64_64bit(skb, RW_JOB_A_MAX_MEMORY, c->max_memory,
			      RW_JOB_A_UNSPEC) ||
	    nla_put_u64_64bit(skb, RW_JOB_A_MEMORY_LIMIT,
			      rw_mem_job_limit(c->max_memory), RW_JOB_A_UNSPEC) ||
	    nla_put_u64_64bit(skb, RW_JOB_A_MEMORY, READ_ONCE(job->mem_held),
			      RW_JOB_A_UNSPEC) ||
	    (READ_ONCE(job->run_chunks) &&
	     (nla_put_u32(skb, RW_JOB_A_TENSORS, READ_ONCE(job->run_tensors)) ||
	      nla_put_u32(skb, RW_JOB_A_CHUNKS, READ_ONCE(job->run_chunks)) ||
	      nla_put_u64_64bit(skb, RW_JOB_A_MODEL_BYTES,
				READ_ONCE(job->run_bytes), RW_JOB_A_UNSPEC))) ||
	    (token && nla_put(skb, RW_JOB_A_TOKEN, RW_JOB_TOKEN_LEN, token)) ||
	    (boxes && rw_genl_put_boxes(skb, boxes, NULL, NULL)) ||
	    (move && rw_genl_put_move(skb, move)) ||
	    (READ_ONCE(job->carry_due) &&
	     nla_put_u32(skb, RW_JOB_A_CARRY_DUE, READ_ONCE(job->carry_due)))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* An entry of RW_JOB_A_BOXES at most (nest, id, address, port). */
#define RW_GENL_BOX_SIZE	48

static int rw_job_reply(struct genl_info *info, struct rw_job *job,
			const u8 *token)
{
	struct rw_boxset *boxes = rw_job_boxes_copy(job, false);
	struct rw_boxset *move = NULL;
	struct sk_buff *skb;
	int ret = -ENOMEM;

	if (IS_ERR(boxes))
		return PTR_ERR(boxes);
	move = rw_job_boxes_copy(job, true);
	if (IS_ERR(move)) {
		move = NULL;
		goto out;
	}
	skb = genlmsg_new(NLMSG_GOODSIZE +
			  ((boxes ? boxes->nr : 0) + (move ? move->nr : 0)) *
			  RW_GENL_BOX_SIZE, GFP_KERNEL);
	if (!skb)
		goto out;
	ret = rw_job_fill(skb, job, boxes, move, info->snd_portid,
			  info->snd_seq, 0, token);
	if (ret) {
		nlmsg_free(skb);
		goto out;
	}
	ret = genlmsg_reply(skb, info);
out:
	kfree(boxes);
	kfree(move);
	return ret;
}

int rw_genl_job_new(struct sk_buff *skb, struct genl_info *info)
{
	struct rw_job_config cfg = {};
	u8 token[RW_JOB_TOKEN_LEN];
	struct rw_boxset *boxes;
	const char *msg = NULL;
	struct rw_job *job;
	bool given;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, RW_JOB_A_NAME) ||
	    GENL_REQ_ATTR_CHECK(info, RW_JOB_A_WORKERS))
		return -EINVAL;
	nla_strscpy(cfg.name, info->attrs[RW_JOB_A_NAME], sizeof(cfg.name));
	cfg.workers = nla_get_u32(info->attrs[RW_JOB_A_WORKERS]);
	cfg.chunk_size = rw_attr_u32(info, RW_JOB_A_CHUNK_SIZE, 0);
	if (info->attrs[RW_JOB_A_TOKEN]) {
		cfg.has_token = true;
		nla_memcpy(cfg.token, info->attrs[RW_JOB_A_TOKEN],
			   sizeof(cfg.token));
	}
	cfg.sync = rw_attr_u32(info, RW_JOB_A_SYNC, RW_SYNC_BSP);
	cfg.staleness = rw_attr_u32(info, RW_JOB_A_STALENESS, 0);
	cfg.staleness_lo = rw_attr_u32(info, RW_JOB_A_STALENESS_LO, 0);
	cfg.staleness_hi = rw_attr_u32(info, RW_JOB_A_STALENESS_HI, 0);
	cfg.evict_ms = rw_attr_u32(info, RW_JOB_A_EVICT_MS, 0);
	ret = rw_genl_quorum(info, &cfg);
	if (ret)
		return ret;
	cfg.optim = rw_attr_u32(info, RW_JOB_A_OPTIM, RW_OPTIM_SGD);
	cfg.lr = rw_attr_u32(info, RW_JOB_A_LR, RW_F32_0_01);
	cfg.momentum = rw_attr_u32(info, RW_JOB_A_MOMENTUM, RW_F32_0_9);
	cfg.weight_decay = rw_attr_u32(info, RW_JOB_A_WEIGHT_DECAY, 0);
	cfg.beta1 = rw_attr_u32(info, RW_JOB_A_BETA1, RW_F32_0_9);
	cfg.beta2 = rw_attr_u32(info, RW_JOB_A_BETA2, RW_F32_0_999);
	cfg.eps = rw_attr_u32(info, RW_JOB_A_EPS, RW_F32_1E_8);
	if (info->attrs[RW_JOB_A_MAX_MEMORY])
		cfg.max_memory = nla_get_u64(info->attrs[RW_JOB_A_MAX_MEMORY]);
	ret = rw_genl_boxes(info, &boxes, &given);
	if (ret)
		return ret;
	if (boxes && !boxes->epoch)
		boxes->epoch = 1;
	cfg.boxes = boxes;

	ret = rw_job_new(&cfg, &msg, token, &job);
	kfree(boxes);
	memzero_explicit(cfg.token, sizeof(cfg.token));
	if (ret) {
		/* GENL_SET_ERR_MSG wants a literal; msg points to one. */
		if (msg && info->extack)
			info->extack->_msg = msg;
		return ret;
	}
	/* The token goes back only if the module made it up. */
	ret = rw_job_reply(info, job, cfg.has_token ? NULL : token);
	memzero_explicit(token, sizeof(token));
	if (ret)
		pr_warn("job %s created but the reply failed: %d\n",
			job->cfg.name, ret);
	rw_job_put(job);
	return 0;
}

int rw_genl_job_del(struct sk_buff *skb, struct genl_info *info)
{
	char name[RW_JOB_NAME_MAX];
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, RW_JOB_A_NAME))
		return -EINVAL;
	nla_strscpy(name, info->attrs[RW_JOB_A_NAME], sizeof(name));
	ret = rw_job_del(name, rw_attr_u32(info, RW_JOB_A_FLAGS, 0));
	if (ret == -EBUSY)
		GENL_SET_ERR_MSG(info, "workers are attached; delete with force to detach them");
	else if (ret == -ENOENT)
		GENL_SET_ERR_MSG(info, "no job by that name");
	return ret;
}

int rw_genl_policy_set(struct sk_buff *skb, struct genl_info *info)
{
	struct rw_boxset *boxes = NULL;
	char name[RW_JOB_NAME_MAX];
	struct rw_job_config cfg;
	const char *msg = NULL;
	struct rw_job *job;
	bool given;
	u32 mask = 0;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, RW_JOB_A_NAME))
		return -EINVAL;
	nla_strscpy(name, info->attrs[RW_JOB_A_NAME], sizeof(name));
	job = rw_job_get(name);
	if (!job) {
		GENL_SET_ERR_MSG(info, "no job by that name");
		return -ENOENT;
	}
	/* Unnamed settings keep their values; groups change as a whole. */
	cfg = job->cfg;
	rw_job_put(job);
	if (info->attrs[RW_JOB_A_WORKERS]) {
		cfg.workers = nla_get_u32(info->attrs[RW_JOB_A_WORKERS]);
		mask |= RW_JOB_SET_WORKERS;
	}
	if (info->attrs[RW_JOB_A_CHUNK_SIZE]) {
		cfg.chunk_size = nla_get_u32(info->attrs[RW_JOB_A_CHUNK_SIZE]);
		mask |= RW_JOB_SET_CHUNK;
	}
	if (info->attrs[RW_JOB_A_SYNC] || info->attrs[RW_JOB_A_STALENESS] ||
	    info->attrs[RW_JOB_A_STALENESS_LO] ||
	    info->attrs[RW_JOB_A_STALENESS_HI]) {
		cfg.sync = rw_attr_u32(info, RW_JOB_A_SYNC, cfg.sync);
		cfg.staleness = rw_attr_u32(info, RW_JOB_A_STALENESS,
					    cfg.staleness);
		cfg.staleness_lo = rw_attr_u32(info, RW_JOB_A_STALENESS_LO,
					       cfg.staleness_lo);
		cfg.staleness_hi = rw_attr_u32(info, RW_JOB_A_STALENESS_HI,
					       cfg.staleness_hi);
		/* Backup workers are BSP's: another mode drops them. */
		if (cfg.sync != RW_SYNC_BSP)
			cfg.quorum = 0;
		mask |= RW_JOB_SET_SYNC;
	}
	if (info->attrs[RW_JOB_A_QUORUM]) {
		ret = rw_genl_quorum(info, &cfg);
		if (ret)
			return ret;
		mask |= RW_JOB_SET_SYNC;
	}
	if (info->attrs[RW_JOB_A_EVICT_MS]) {
		cfg.evict_ms = nla_get_u32(info->attrs[RW_JOB_A_EVICT_MS]);
		mask |= RW_JOB_SET_EVICT;
	}
	if (info->attrs[RW_JOB_A_MAX_MEMORY]) {
		cfg.max_memory = nla_get_u64(info->attrs[RW_JOB_A_MAX_MEMORY]);
		mask |= RW_JOB_SET_MEMORY;
	}
	if (info->attrs[RW_JOB_A_OPTIM] || info->attrs[RW_JOB_A_LR] ||
	    info->attrs[RW_JOB_A_MOMENTUM] ||
	    info->attrs[RW_JOB_A_WEIGHT_DECAY] ||
	    info->attrs[RW_JOB_A_BETA1] || info->attrs[RW_JOB_A_BETA2] ||
	    info->attrs[RW_JOB_A_EPS]) {
		cfg.optim = rw_attr_u32(info, RW_JOB_A_OPTIM, cfg.optim);
		cfg.lr = rw_attr_u32(info, RW_JOB_A_LR, cfg.lr);
		cfg.momentum = rw_attr_u32(info, RW_JOB_A_MOMENTUM,
					   cfg.momentum);
		cfg.weight_decay = rw_attr_u32(info, RW_JOB_A_WEIGHT_DECAY,
					       cfg.weight_decay);
		cfg.beta1 = rw_attr_u32(info, RW_JOB_A_BETA1, cfg.beta1);
		cfg.beta2 = rw_attr_u32(info, RW_JOB_A_BETA2, cfg.beta2);
		cfg.eps = rw_attr_u32(info, RW_JOB_A_EPS, cfg.eps);
		mask |= RW_JOB_SET_OPTIM;
	}
	ret = rw_genl_boxes(info, &boxes, &given);
	if (ret)
		return ret;
	/* No set (NULL) removes the job's. */
	cfg.boxes = boxes;
	if (given)
		mask |= RW_JOB_SET_BOXES;
	if (!mask) {
		GENL_SET_ERR_MSG(info, "no setting to change");
		return -EINVAL;
	}
	ret = rw_job_set_policy(name, &cfg, mask, &msg);
	kfree(boxes);
	if (ret) {
		if (msg && info->extack)
			info->extack->_msg = msg;
		else if (ret == -ENOENT)
			GENL_SET_ERR_MSG(info, "no job by that name");
		return ret;
	}
	job = rw_job_get(name);
	if (!job)
		return 0;
	ret = rw_job_reply(info, job, NULL);
	rw_job_put(job);
	return ret;
}

int rw_genl_job_get(struct sk_buff *skb, struct genl_info *info)
{
	char name[RW_JOB_NAME_MAX];
	struct rw_job *job;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, RW_JOB_A_NAME))
		return -EINVAL;
	nla_strscpy(name, info->attrs[RW_JOB_A_NAME], sizeof(name));
	job = rw_job_get(name);
	if (!job) {
		GENL_SET_ERR_MSG(info, "no job by that name");
		return -ENOENT;
	}
	ret = rw_job_reply(info, job, NULL);
	rw_job_put(job);
	return ret;
}

struct rw_job_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
};

static int rw_job_dump_one(struct rw_job *job, void *arg)
{
	struct rw_job_dump *d = arg;

	/* rw_job_walk() holds the registry lock: the sets hold still. */
	return rw_job_fill(d->skb, job, job->boxes, job->move,
			   NETLINK_CB(d->cb->skb).portid,
			   d->cb->nlh->nlmsg_seq, NLM_F_MULTI, NULL);
}

/*
 * Restartable: cb->args[0] is the id to resume from. A dump that spans a
 * change of the job set is flagged NLM_F_DUMP_INTR (cb->seq).
 */
int rw_genl_job_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct rw_job_dump d = { .skb = skb, .cb = cb };
	unsigned long cursor = cb->args[0];
	void *hdr;
	int ret;

	if (cursor == ULONG_MAX)
		return 0;
	cb->seq = rw_job_generation();
	ret = rw_job_walk(&cursor, rw_job_dump_one, &d);
	cb->args[0] = cursor;
	if (ret && ret != -EMSGSIZE)
		return ret;
	if (skb->len) {
		hdr = genlmsg_data(nlmsg_data(nlmsg_hdr(skb)));
		genl_dump_check_consistent(cb, hdr);
	}
	return skb->len;
}
