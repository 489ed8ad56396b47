// SPDX-License-Identifier: GPL-2.0
/*
 * RW_CMD_TOPO_GET over generic netlink and the parser of its reply:
 *
 *   RW_JOB_A_NAME, and once a layout is declared RW_JOB_A_CHUNKS and three
 *   nests of RW_JOB_A_ENTRY entries: RW_JOB_A_CORES, RW_JOB_A_NICS and
 *   RW_JOB_A_CHUNK_MAP, whose RW_TOPO_A_TRUNCATED flag sits beside its runs;
 *   a job's box set as boxes-genl.c reads it, its shares once declared.
 *
 * Integers are checked for their exact length (libnl checks the minimum);
 * u64 values may come padded by RW_TOPO_A_PAD, which is skipped like any
 * attribute this rwctl does not read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "boxes.h"
#include "genl.h"
#include "topo.h"

#define RWCTL_TOPO_U32	{ .type = NLA_U32, .minlen = 4, .maxlen = 4 }
#define RWCTL_TOPO_U64	{ .type = NLA_U64, .minlen = 8, .maxlen = 8 }

static const struct nla_policy rwctl_topo_reply_policy[RW_JOB_A_MAX + 1] = {
	[RW_JOB_A_NAME]		= { .type = NLA_STRING, .maxlen = RW_JOB_NAME_MAX },
	[RW_JOB_A_CHUNKS]	= RWCTL_TOPO_U32,
	[RW_JOB_A_CORES]	= { .type = NLA_NESTED },
	[RW_JOB_A_NICS]		= { .type = NLA_NESTED },
	[RW_JOB_A_CHUNK_MAP]	= { .type = NLA_NESTED },
	[RW_JOB_A_BOXES]	= { .type = NLA_NESTED },
	[RW_JOB_A_BOX_SELF]	= RWCTL_TOPO_U32,
	[RW_JOB_A_BOX_EPOCH]	= RWCTL_TOPO_U32,
};

static const struct nla_policy rwctl_topo_policy[RW_TOPO_A_MAX + 1] = {
	[RW_TOPO_A_CPU]		= RWCTL_TOPO_U32,
	[RW_TOPO_A_NODE]	= RWCTL_TOPO_U32,
	[RW_TOPO_A_NIC]		= RWCTL_TOPO_U32,
	[RW_TOPO_A_CHUNKS]	= RWCTL_TOPO_U32,
	[RW_TOPO_A_BYTES]	= RWCTL_TOPO_U64,
	[RW_TOPO_A_BUSY_NS]	= RWCTL_TOPO_U64,
	[RW_TOPO_A_FIRST]	= RWCTL_TOPO_U32,
	[RW_TOPO_A_COUNT]	= RWCTL_TOPO_U32,
	[RW_TOPO_A_TRUNCATED]	= { .type = NLA_FLAG },
};

#define rwctl_topo_bad(msg, msglen, fmt, ...)				\
	rwctl_genl_fail(msg, msglen, -EPROTO,				\
			"malformed topology reply from the rackweave module: " \
			fmt, ##__VA_ARGS__)

void rwctl_topo_free(struct rwctl_topo *t)
{
	free(t->cores);
	free(t->nics);
	free(t->runs);
	memset(t, 0, sizeof(*t));
}

/* Bit per RW_TOPO_A_* each kind of entry must carry. */
#define RWCTL_BIT(a)		(1U << (a))
#define RWCTL_CORE_ATTRS	(RWCTL_BIT(RW_TOPO_A_CPU) | RWCTL_BIT(RW_TOPO_A_NODE) | \
				 RWCTL_BIT(RW_TOPO_A_CHUNKS) | RWCTL_BIT(RW_TOPO_A_BYTES) | \
				 RWCTL_BIT(RW_TOPO_A_BUSY_NS))
#define RWCTL_NIC_ATTRS		(RWCTL_BIT(RW_TOPO_A_NIC) | RWCTL_BIT(RW_TOPO_A_NODE) | \
				 RWCTL_BIT(RW_TOPO_A_CHUNKS) | RWCTL_BIT(RW_TOPO_A_BYTES))
#define RWCTL_RUN_ATTRS		(RWCTL_BIT(RW_TOPO_A_FIRST) | RWCTL_BIT(RW_TOPO_A_COUNT) | \
				 RWCTL_BIT(RW_TOPO_A_CPU) | RWCTL_BIT(RW_TOPO_A_NIC) | \
				 RWCTL_BIT(RW_TOPO_A_NODE))

enum rwctl_topo_kind { RWCTL_TOPO_CORES, RWCTL_TOPO_NICS, RWCTL_TOPO_RUNS };

static const struct {
	const char *what;		/* for messages */
	unsigned int attrs;
	size_t size;
} rwctl_topo_kinds[] = {
	[RWCTL_TOPO_CORES] = { "core", RWCTL_CORE_ATTRS, sizeof(struct rwctl_topo_core) },
	[RWCTL_TOPO_NICS]  = { "nic", RWCTL_NIC_ATTRS, sizeof(struct rwctl_topo_nic) },
	[RWCTL_TOPO_RUNS]  = { "chunk map run", RWCTL_RUN_ATTRS, sizeof(struct rwctl_topo_run) },
};

static uint32_t rwctl_u32(struct nlattr **tb, int type)
{
	return nla_get_u32(tb[type]);
}

/* Entry @tb of a list of @kind into element @i of @arr. */
static int rwctl_topo_entry(struct rwctl_topo *t, enum rwctl_topo_kind kind,
			    void *arr, size_t i, struct nlattr **tb,
			    char *msg, size_t msglen)
{
	struct rwctl_topo_core *c;
	struct rwctl_topo_nic *n;
	struct rwctl_topo_run *r;

	switch (kind) {
	case RWCTL_TOPO_CORES:
		c = (struct rwctl_topo_core *)arr + i;
		c->cpu = rwctl_u32(tb, RW_TOPO_A_CPU);
		c->node = rwctl_u32(tb, RW_TOPO_A_NODE);
		c->chunks = rwctl_u32(tb, RW_TOPO_A_CHUNKS);
		c->bytes = nla_get_u64(tb[RW_TOPO_A_BYTES]);
		c->busy_ns = nla_get_u64(tb[RW_TOPO_A_BUSY_NS]);
		return 0;
	case RWCTL_TOPO_NICS:
		n = (struct rwctl_topo_nic *)arr + i;
		n->nic = rwctl_u32(tb, RW_TOPO_A_NIC);
		n->node = rwctl_u32(tb, RW_TOPO_A_NODE);
		n->chunks = rwctl_u32(tb, RW_TOPO_A_CHUNKS);
		n->bytes = nla_get_u64(tb[RW_TOPO_A_BYTES]);
		return 0;
	case RWCTL_TOPO_RUNS:
		r = (struct rwctl_topo_run *)arr + i;
		r->first = rwctl_u32(tb, RW_TOPO_A_FIRST);
		r->count = rwctl_u32(tb, RW_TOPO_A_COUNT);
		r->cpu = rwctl_u32(tb, RW_TOPO_A_CPU);
		r->nic = rwctl_u32(tb, RW_TOPO_A_NIC);
		r->node = rwctl_u32(tb, RW_TOPO_A_NODE);
		if (!r->count ||
		    (uint64_t)r->first + r->count > t->nr_chunks)
			return rwctl_topo_bad(msg, msglen,
					      "chunk map run %zu (chunks %u+%u) outside the job's %u chunks",
					      i, r->first, r->count,
					      t->nr_chunks);
		return 0;
	}
	return 0;
}

/* The nest @list of @kind into a new array; *@nr its length. */
static int rwctl_topo_list(struct rwctl_topo *t, struct nlattr *list,
			   enum rwctl_topo_kind kind, void **arr, size_t *nr,
			   char *msg, size_t msglen)
{
	struct nlattr *tb[RW_TOPO_A_MAX + 1];
	struct nlattr *entry;
	unsigned int have;
	int rem, err, a;
	size_t n;

	/* One spare element so that an empty list still allocates. */
	n = list ? rwctl_genl_count(list, RW_JOB_A_ENTRY) : 0;
	*arr = calloc(n + 1, rwctl_topo_kinds[kind].size);
	if (!*arr)
		return rwctl_genl_fail(msg, msglen, -ENOMEM, "out of memory");
	if (!list)
		return 0;

	nla_for_each_nested(entry, list, rem) {
		if (kind == RWCTL_TOPO_RUNS &&
		    nla_type(entry) == RW_TOPO_A_TRUNCATED) {
			t->truncated = true;
			continue;
		}
		if (nla_type(entry) != RW_JOB_A_ENTRY)
			continue;
		err = rwctl_genl_parse_nested(tb, RW_TOPO_A_MAX, entry,
					      rwctl_topo_policy);
		if (err < 0)
			return rwctl_topo_bad(msg, msglen, "%s %zu: %s",
					      rwctl_topo_kinds[kind].what, *nr,
					      rwctl_genl_strerror(err));
		have = 0;
		for (a = 0; a <= RW_TOPO_A_MAX; a++)
			if (tb[a])
				have |= RWCTL_BIT(a);
		if ((have & rwctl_topo_kinds[kind].attrs) !=
		    rwctl_topo_kinds[kind].attrs)
			return rwctl_topo_bad(msg, msglen,
					      "%s %zu lacks an attribute",
					      rwctl_topo_kinds[kind].what, *nr);
		err = rwctl_topo_entry(t, kind, *arr, *nr, tb, msg, msglen);
		if (err)
			return err;
		++*nr;
	}
	if (rem > 0)
		return rwctl_topo_bad(msg, msglen, "trailing bytes in the %s list",
				      rwctl_topo_kinds[kind].what);
	return 0;
}

static int rwctl_topo_cmp_core(const void *a, const void *b)
{
	const struct rwctl_topo_core *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static int rwctl_topo_cmp_nic(const void *a, const void *b)
{
	const struct rwctl_topo_nic *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->nic < y->nic ? -1 : x->nic > y->nic;
}

static int rwctl_topo_cmp_run(const void *a, const void *b)
{
	const struct rwctl_topo_run *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

int rwctl_genl_parse_topo(struct nlmsghdr *nlh, struct rwctl_topo *t,
			  char *msg, size_t msglen)
{
	struct nlattr *tb[RW_JOB_A_MAX + 1];
	void *arr;
	int err;

	memset(t, 0, sizeof(*t));
	err = rwctl_genl_parse_msg(nlh, tb, RW_JOB_A_MAX,
				   rwctl_topo_reply_policy);
	if (err < 0)
		return rwctl_topo_bad(msg, msglen, "%s", rwctl_genl_strerror(err));
	if (!tb[RW_JOB_A_NAME] || nla_len(tb[RW_JOB_A_NAME]) < 2)
		return rwctl_topo_bad(msg, msglen, "no job name");
	nla_strlcpy(t->name, tb[RW_JOB_A_NAME], sizeof(t->name));
	err = rwctl_boxes_parse_reply(tb, &t->boxes, !!tb[RW_JOB_A_CHUNKS],
				      "topology", msg, msglen);
	if (err)
		return err;

	if (!tb[RW_JOB_A_CHUNKS]) {
		if (tb[RW_JOB_A_CORES] || tb[RW_JOB_A_NICS] ||
		    tb[RW_JOB_A_CHUNK_MAP])
			return rwctl_topo_bad(msg, msglen,
					      "cores, nics or chunk map without a chunk count");
		return 0;
	}
	t->declared = true;
	t->nr_chunks = nla_get_u32(tb[RW_JOB_A_CHUNKS]);

	err = rwctl_topo_list(t, tb[RW_JOB_A_CORES], RWCTL_TOPO_CORES, &arr,
			      &t->nr_cores, msg, msglen);
	t->cores = arr;
	if (err)
		return err;
	err = rwctl_topo_list(t, tb[RW_JOB_A_NICS], RWCTL_TOPO_NICS, &arr,
			      &t->nr_nics, msg, msglen);
	t->nics = arr;
	if (err)
		return err;
	err = rwctl_topo_list(t, tb[RW_JOB_A_CHUNK_MAP], RWCTL_TOPO_RUNS, &arr,
			      &t->nr_runs, msg, msglen);
	t->runs = arr;
	if (err)
		return err;

	qsort(t->cores, t->nr_cores, sizeof(*t->cores), rwctl_topo_cmp_core);
	qsort(t->nics, t->nr_nics, sizeof(*t->nics), rwctl_topo_cmp_nic);
	qsort(t->runs, t->nr_runs, sizeof(*t->runs), rwctl_topo_cmp_run);
	return 0;
}

/* State of one RW_CMD_TOPO_GET: the one reply expected. */
struct rwctl_topo_req {
	struct rwctl_topo *t;
	unsigned int replies;
};

static int rwctl_topo_on_reply(struct nlmsghdr *nlh, void *arg, char *msg,
			       size_t msglen)
{
	struct rwctl_topo_req *req = arg;

	if (req->replies++)
		return rwctl_genl_fail(msg, msglen, -EPROTO,
				       "the rackweave module sent more than one topology reply");
	return rwctl_genl_parse_topo(nlh, req->t, msg, msglen);
}

static int rwctl_topo_put_name(struct nl_msg *m, const void *arg)
{
	return nla_put_string(m, RW_JOB_A_NAME, arg);
}

int rwctl_topo_genl_get(const char *name, struct rwctl_topo *t,
			struct rwctl_err *e)
{
	struct rwctl_topo_req req = { .t = t };
	int err;

	err = rwctl_genl_request(RW_CMD_TOPO_GET, false, rwctl_topo_put_name,
				 name, rwctl_topo_on_reply, &req, e);
	if (err)
		return err;
	if (!req.replies)
		return rwctl_genl_fail(e->msg, sizeof(e->msg), -EPROTO,
				       "the rackweave module acknowledged the topology request without a reply");
	if (strcmp(t->name, name))
		return rwctl_genl_fail(e->msg, sizeof(e->msg), -EPROTO,
				       "the rackweave module answered for job '%s' instead of '%s'",
				       t->name, name);
	return 0;
}
