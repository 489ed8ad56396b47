// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl status over generic netlink: RW_CMD_STATUS_GET and its reply parsed
 * into struct rwctl_status (the module's version and features, its memory
 * budget, the NUMA nodes and RDMA devices it sees, its RDMA listeners and
 * connections).
 *
 * The parser trusts nothing: libnl's policies only check minimum lengths, so
 * every fixed-size attribute here states minlen and maxlen alike, and every
 * string a maxlen equal to the buffer it is copied into. Attribute types
 * newer than this rwctl are ignored, as the append-only uapi allows.
 */
#include <errno.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/netlink.h>

#include "genl.h"
#include "status.h"

#define RWCTL_U32_POLICY	{ .type = NLA_U32, .minlen = 4, .maxlen = 4 }
#define RWCTL_U64_POLICY	{ .type = NLA_U64, .minlen = 8, .maxlen = 8 }
#define RWCTL_S32_POLICY	{ .type = NLA_S32, .minlen = 4, .maxlen = 4 }

static const struct nla_policy rwctl_status_policy[RW_A_MAX + 1] = {
	[RW_A_VERSION]		= { .type = NLA_STRING, .maxlen = RWCTL_VERSION_MAX },
	[RW_A_VERSION_CODE]	= RWCTL_U32_POLICY,
	[RW_A_FEATURES]		= RWCTL_U64_POLICY,
	[RW_A_CPUS_ONLINE]	= RWCTL_U32_POLICY,
	[RW_A_NODES]		= { .type = NLA_NESTED },
	[RW_A_DEVICES]		= { .type = NLA_NESTED },
	[RW_A_AGG_IMPL]		= { .type = NLA_STRING, .maxlen = RW_AGG_IMPL_NAME_MAX },
	[RW_A_LISTENERS]	= { .type = NLA_NESTED },
	[RW_A_CONNECTIONS]	= { .type = NLA_NESTED },
	[RW_A_REMOTES]		= { .type = NLA_NESTED },
	[RW_A_MEM_BUDGET]	= RWCTL_U64_POLICY,
	[RW_A_MEM_USED]		= RWCTL_U64_POLICY,
};

static const struct nla_policy rwctl_node_policy[RW_NODE_A_MAX + 1] = {
	[RW_NODE_A_ID]		= RWCTL_U32_POLICY,
	[RW_NODE_A_NR_CPUS]	= RWCTL_U32_POLICY,
	[RW_NODE_A_CPULIST]	= { .type = NLA_STRING, .maxlen = RW_CPULIST_MAX },
	[RW_NODE_A_MEM_MB]	= RWCTL_U64_POLICY,
};

static const struct nla_policy rwctl_dev_policy[RW_DEV_A_MAX + 1] = {
	[RW_DEV_A_NAME]		= { .type = NLA_STRING, .maxlen = RW_DEV_NAME_MAX },
	[RW_DEV_A_NODE]		= RWCTL_S32_POLICY,
	[RW_DEV_A_PORTS]	= RWCTL_U32_POLICY,
	[RW_DEV_A_NODE_GUID]	= RWCTL_U64_POLICY,
	[RW_DEV_A_INDEX]	= RWCTL_U32_POLICY,
};

static const struct nla_policy rwctl_listen_policy[RW_LISTEN_A_MAX + 1] = {
	[RW_LISTEN_A_ADDR]	= { .type = NLA_UNSPEC, .minlen = 4, .maxlen = 16 },
	[RW_LISTEN_A_PORT]	= { .type = NLA_U16, .minlen = 2, .maxlen = 2 },
	[RW_LISTEN_A_DEV]	= { .type = NLA_STRING, .maxlen = RW_DEV_NAME_MAX },
	[RW_LISTEN_A_UP]	= { .type = NLA_U8, .minlen = 1, .maxlen = 1 },
	[RW_LISTEN_A_REQUESTS]	= RWCTL_U64_POLICY,
	[RW_LISTEN_A_ACCEPTED]	= RWCTL_U64_POLICY,
	[RW_LISTEN_A_CONNECTED]	= RWCTL_U64_POLICY,
	[RW_LISTEN_A_REF_PROTO]	= RWCTL_U64_POLICY,
	[RW_LISTEN_A_REF_AUTH]	= RWCTL_U64_POLICY,
	[RW_LISTEN_A_REF_CLOCK]	= RWCTL_U64_POLICY,
	[RW_LISTEN_A_REF_BUSY]	= RWCTL_U64_POLICY,
	[RW_LISTEN_A_REF_RANGE]	= RWCTL_U64_POLICY,
	[RW_LISTEN_A_REF_IN_USE] = RWCTL_U64_POLICY,
	[RW_LISTEN_A_REF_STALE]	= RWCTL_U64_POLICY,
	[RW_LISTEN_A_REF_OTHER]	= RWCTL_U64_POLICY,
	[RW_LISTEN_A_VIOL_PROTO] = RWCTL_U64_POLICY,
	[RW_LISTEN_A_VIOL_ACCESS] = RWCTL_U64_POLICY,
};

static const struct nla_policy rwctl_conn_policy[RW_CONN_A_MAX + 1] = {
	[RW_CONN_A_ADDR]	= { .type = NLA_UNSPEC, .minlen = 4, .maxlen = 16 },
	[RW_CONN_A_PORT]	= { .type = NLA_U16, .minlen = 2, .maxlen = 2 },
	[RW_CONN_A_DEV]		= { .type = NLA_STRING, .maxlen = RW_DEV_NAME_MAX },
	[RW_CONN_A_JOB]		= { .type = NLA_STRING, .maxlen = RW_JOB_NAME_MAX },
	[RW_CONN_A_RANK]	= RWCTL_U32_POLICY,
	[RW_CONN_A_PUSHES]	= RWCTL_U64_POLICY,
	[RW_CONN_A_WRITES]	= RWCTL_U64_POLICY,
	[RW_CONN_A_MESSAGES]	= RWCTL_U64_POLICY,
	[RW_CONN_A_BROKEN]	= { .type = NLA_U8, .minlen = 1, .maxlen = 1 },
	[RW_CONN_A_OBSERVER]	= { .type = NLA_FLAG },
};

#define rwctl_genl_bad(msg, msglen, fmt, ...)				\
	rwctl_genl_fail(msg, msglen, -EPROTO,				\
			"malformed status reply from the rackweave module: " \
			fmt, ##__VA_ARGS__)

void rwctl_status_free(struct rwctl_status *st)
{
	free(st->nodes);
	free(st->devs);
	free(st->listeners);
	free(st->conns);
	free(st->remotes);
	memset(st, 0, sizeof(*st));
}

/* How one kind of list entry of the status reply is read. */
struct rwctl_genl_list {
	const char *what;		/* "node", "device", ... */
	int type;			/* the entries' nest type */
	int maxtype;
	const struct nla_policy *policy;
	const int *required;		/* attributes every entry has; 0 ends */
	size_t size;			/* of one element of the array */
	/* Fill @elem from @tb: 0, or -EPROTO with a sentence in @msg. */
	int (*fill)(struct nlattr **tb, void *elem, size_t i, char *msg,
		    size_t msglen);
};

/* Room for the attributes of any list entry. */
#define RWCTL_LIST_TB		32

/*
 * The entries of @list (absent: none) into a calloc'ed array in *@arr, one
 * spare element so that an empty list still allocates, and their number in
 * *@nr: each parsed against its policy, every required attribute present,
 * no trailing bytes.
 */
static int rwctl_genl_parse_list(struct nlattr *list,
				 const struct rwctl_genl_list *k, void **arr,
				 size_t *nr, char *msg, size_t msglen)
{
	struct nlattr *tb[RWCTL_LIST_TB];
	struct nlattr *entry;
	const int *a;
	int rem, err;
	size_t n;

	n = list ? rwctl_genl_count(list, k->type) : 0;
	*arr = calloc(n + 1, k->size);
	if (!*arr)
		return rwctl_genl_fail(msg, msglen, -ENOMEM, "out of memory");
	if (!list)
		return 0;
	nla_for_each_nested(entry, list, rem) {
		if (nla_type(entry) != k->type)
			continue;
		err = rwctl_genl_parse_nested(tb, k->maxtype, entry, k->policy);
		if (err < 0)
			return rwctl_genl_bad(msg, msglen, "%s entry: %s",
					      k->what, rwctl_genl_strerror(err));
		for (a = k->required; *a; a++)
			if (!tb[*a])
				return rwctl_genl_bad(msg, msglen,
						      "%s entry %zu lacks an attribute",
						      k->what, *nr);
		err = k->fill(tb, (char *)*arr + *nr * k->size, *nr, msg,
			      msglen);
		if (err)
			return err;
		(*nr)++;
	}
	if (rem > 0)
		return rwctl_genl_bad(msg, msglen, "trailing bytes in %s list",
				      k->what);
	return 0;
}

static int rwctl_genl_fill_node(struct nlattr **tb, void *elem, size_t i,
				char *msg, size_t msglen)
{
	struct rwctl_node *node = elem;

	(void)i;
	(void)msg;
	(void)msglen;
	node->id = nla_get_u32(tb[RW_NODE_A_ID]);
	node->nr_cpus = nla_get_u32(tb[RW_NODE_A_NR_CPUS]);
	nla_strlcpy(node->cpulist, tb[RW_NODE_A_CPULIST],
		    sizeof(node->cpulist));
	node->mem_mb = nla_get_u64(tb[RW_NODE_A_MEM_MB]);
	return 0;
}

static int rwctl_genl_fill_dev(struct nlattr **tb, void *elem, size_t i,
			       char *msg, size_t msglen)
{
	struct rwctl_device *d = elem;

	(void)i;
	(void)msg;
	(void)msglen;
	nla_strlcpy(d->name, tb[RW_DEV_A_NAME], sizeof(d->name));
	d->node = nla_get_s32(tb[RW_DEV_A_NODE]);
	d->ports = nla_get_u32(tb[RW_DEV_A_PORTS]);
	d->node_guid = nla_get_u64(tb[RW_DEV_A_NODE_GUID]);
	d->index = nla_get_u32(tb[RW_DEV_A_INDEX]);
	return 0;
}

/* An address of 4 or 16 bytes into @addr: its family, or 0 for neither. */
static int rwctl_genl_addr(struct nlattr *a, uint8_t *addr)
{
	int len = nla_len(a);

	if (len != 4 && len != 16)
		return 0;
	memcpy(addr, nla_data(a), (size_t)len);
	return len == 4 ? AF_INET : AF_INET6;
}

static int rwctl_genl_fill_listener(struct nlattr **tb, void *elem, size_t i,
				    char *msg, size_t msglen)
{
	struct rwctl_listener *l = elem;
	int r;

	l->family = rwctl_genl_addr(tb[RW_LISTEN_A_ADDR], l->addr);
	if (!l->family)
		return rwctl_genl_bad(msg, msglen,
				      "listener entry %zu: address of %d bytes",
				      i, nla_len(tb[RW_LISTEN_A_ADDR]));
	l->port = nla_get_u16(tb[RW_LISTEN_A_PORT]);
	nla_strlcpy(l->dev, tb[RW_LISTEN_A_DEV], sizeof(l->dev));
	l->up = nla_get_u8(tb[RW_LISTEN_A_UP]);
	l->requests = nla_get_u64(tb[RW_LISTEN_A_REQUESTS]);
	l->accepted = nla_get_u64(tb[RW_LISTEN_A_ACCEPTED]);
	l->connected = nla_get_u64(tb[RW_LISTEN_A_CONNECTED]);
	/* The refusal attributes are consecutive, in enum order. */
	for (r = 0; r < RWCTL_REF_NR; r++)
		if (tb[RW_LISTEN_A_REF_PROTO + r])
			l->refused[r] = nla_get_u64(tb[RW_LISTEN_A_REF_PROTO + r]);
	/* So are the violations' (a module before them sends none). */
	for (r = 0; r < RWCTL_VIOL_NR; r++)
		if (tb[RW_LISTEN_A_VIOL_PROTO + r])
			l->violations[r] =
				nla_get_u64(tb[RW_LISTEN_A_VIOL_PROTO + r]);
	return 0;
}

static int rwctl_genl_fill_conn(struct nlattr **tb, void *elem, size_t i,
				char *msg, size_t msglen)
{
	struct rwctl_conn *c = elem;

	c->family = rwctl_genl_addr(tb[RW_CONN_A_ADDR], c->addr);
	if (!c->family)
		return rwctl_genl_bad(msg, msglen,
				      "connection entry %zu: address of %d bytes",
				      i, nla_len(tb[RW_CONN_A_ADDR]));
	c->port = nla_get_u16(tb[RW_CONN_A_PORT]);
	nla_strlcpy(c->dev, tb[RW_CONN_A_DEV], sizeof(c->dev));
	nla_strlcpy(c->job, tb[RW_CONN_A_JOB], sizeof(c->job));
	c->rank = nla_get_u32(tb[RW_CONN_A_RANK]);
	/* Optional: a module before the data path sends none. */
	if (tb[RW_CONN_A_PUSHES])
		c->pushes = nla_get_u64(tb[RW_CONN_A_PUSHES]);
	if (tb[RW_CONN_A_WRITES])
		c->writes = nla_get_u64(tb[RW_CONN_A_WRITES]);
	if (tb[RW_CONN_A_MESSAGES])
		c->messages = nla_get_u64(tb[RW_CONN_A_MESSAGES]);
	if (tb[RW_CONN_A_BROKEN])
		c->broken = nla_get_u8(tb[RW_CONN_A_BROKEN]);
	c->observer = !!tb[RW_CONN_A_OBSERVER];
	return 0;
}

static const int rwctl_node_required[] = {
	RW_NODE_A_ID, RW_NODE_A_NR_CPUS, RW_NODE_A_CPULIST, RW_NODE_A_MEM_MB, 0
};
static const int rwctl_dev_required[] = {
	RW_DEV_A_NAME, RW_DEV_A_NODE, RW_DEV_A_PORTS, RW_DEV_A_NODE_GUID,
	RW_DEV_A_INDEX, 0
};
static const int rwctl_listen_required[] = {
	RW_LISTEN_A_ADDR, RW_LISTEN_A_PORT, RW_LISTEN_A_DEV, RW_LISTEN_A_UP,
	RW_LISTEN_A_REQUESTS, RW_LISTEN_A_ACCEPTED, RW_LISTEN_A_CONNECTED, 0
};
static const int rwctl_conn_required[] = {
	RW_CONN_A_ADDR, RW_CONN_A_PORT, RW_CONN_A_DEV, RW_CONN_A_JOB,
	RW_CONN_A_RANK, 0
};

_Static_assert(RW_NODE_A_MAX < RWCTL_LIST_TB && RW_DEV_A_MAX < RWCTL_LIST_TB &&
	       RW_LISTEN_A_MAX < RWCTL_LIST_TB && RW_CONN_A_MAX < RWCTL_LIST_TB,
	       "a list entry's attributes fit RWCTL_LIST_TB");

static const struct rwctl_genl_list rwctl_list_nodes = {
	"node", RW_A_NODES_ENTRY, RW_NODE_A_MAX, rwctl_node_policy,
	rwctl_node_required, sizeof(struct rwctl_node), rwctl_genl_fill_node,
};
static const struct rwctl_genl_list rwctl_list_devs = {
	"device", RW_A_DEVICES_ENTRY, RW_DEV_A_MAX, rwctl_dev_policy,
	rwctl_dev_required, sizeof(struct rwctl_device), rwctl_genl_fill_dev,
};
static const struct rwctl_genl_list rwctl_list_listeners = {
	"listener", RW_A_LISTENERS_ENTRY, RW_LISTEN_A_MAX, rwctl_listen_policy,
	rwctl_listen_required, sizeof(struct rwctl_listener),
	rwctl_genl_fill_listener,
};
static const struct rwctl_genl_list rwctl_list_conns = {
	"connection", RW_A_CONNECTIONS_ENTRY, RW_CONN_A_MAX, rwctl_conn_policy,
	rwctl_conn_required, sizeof(struct rwctl_conn), rwctl_genl_fill_conn,
};
static const struct rwctl_genl_list rwctl_list_remotes = {
	"remote", RW_A_REMOTES_ENTRY, RW_CONN_A_MAX, rwctl_conn_policy,
	rwctl_conn_required, sizeof(struct rwctl_conn), rwctl_genl_fill_conn,
};

int rwctl_genl_parse_status(struct nlmsghdr *nlh, struct rwctl_status *st,
			    char *msg, size_t msglen)
{
	struct nlattr *tb[RW_A_MAX + 1];
	void *a;
	int err;

	err = rwctl_genl_parse_msg(nlh, tb, RW_A_MAX, rwctl_status_policy);
	if (err < 0)
		return rwctl_genl_bad(msg, msglen, "%s", rwctl_genl_strerror(err));

	if (!tb[RW_A_VERSION] || !tb[RW_A_VERSION_CODE] ||
	    !tb[RW_A_FEATURES] || !tb[RW_A_CPUS_ONLINE])
		return rwctl_genl_bad(msg, msglen,
				      "version, features or CPU count missing");

	nla_strlcpy(st->version, tb[RW_A_VERSION], sizeof(st->version));
	st->version_code = nla_get_u32(tb[RW_A_VERSION_CODE]);
	st->features = nla_get_u64(tb[RW_A_FEATURES]);
	st->cpus_online = nla_get_u32(tb[RW_A_CPUS_ONLINE]);
	if (tb[RW_A_AGG_IMPL])
		nla_strlcpy(st->agg_impl, tb[RW_A_AGG_IMPL], sizeof(st->agg_impl));
	/* A module older than memory limits sends neither. */
	if (!tb[RW_A_MEM_BUDGET] != !tb[RW_A_MEM_USED])
		return rwctl_genl_bad(msg, msglen,
				      "memory budget without its use, or the other way round");
	if (tb[RW_A_MEM_BUDGET]) {
		st->has_mem = true;
		st->mem_budget = nla_get_u64(tb[RW_A_MEM_BUDGET]);
		st->mem_used = nla_get_u64(tb[RW_A_MEM_USED]);
	}

	/*
	 * An absent list is an empty one: nothing to report is not an error.
	 * Each array is kept even when a later entry fails, for the free.
	 */
	err = rwctl_genl_parse_list(tb[RW_A_NODES], &rwctl_list_nodes, &a,
				    &st->nr_nodes, msg, msglen);
	st->nodes = a;
	if (err)
		return err;
	err = rwctl_genl_parse_list(tb[RW_A_DEVICES], &rwctl_list_devs, &a,
				    &st->nr_devs, msg, msglen);
	st->devs = a;
	if (err)
		return err;
	err = rwctl_genl_parse_list(tb[RW_A_LISTENERS], &rwctl_list_listeners,
				    &a, &st->nr_listeners, msg, msglen);
	st->listeners = a;
	if (err)
		return err;
	err = rwctl_genl_parse_list(tb[RW_A_CONNECTIONS], &rwctl_list_conns,
				    &a, &st->nr_conns, msg, msglen);
	st->conns = a;
	if (err)
		return err;
	err = rwctl_genl_parse_list(tb[RW_A_REMOTES], &rwctl_list_remotes,
				    &a, &st->nr_remotes, msg, msglen);
	st->remotes = a;
	return err;
}

/* The status request's reply: parsed once; a second would be a module bug. */
struct rwctl_genl_status_reply {
	struct rwctl_status *st;
	bool replied;
};

static int rwctl_genl_on_status(struct nlmsghdr *nlh, void *arg, char *msg,
				size_t msglen)
{
	struct rwctl_genl_status_reply *r = arg;

	if (r->replied)
		return 0;
	r->replied = true;
	return rwctl_genl_parse_status(nlh, r->st, msg, msglen);
}

int rwctl_genl_status_get(struct rwctl_status *st, char *msg, size_t msglen)
{
	struct rwctl_genl_status_reply r = { .st = st };
	struct rwctl_err e;
	int err;

	memset(&e, 0, sizeof(e));
	err = rwctl_genl_request(RW_CMD_STATUS_GET, false, NULL, NULL,
				 rwctl_genl_on_status, &r, &e);
	if (err && e.kernel)
		return rwctl_genl_fail(msg, msglen, err,
				       "the rackweave module refused the status request: %s%s%s",
				       strerror(-err), e.extack[0] ? ": " : "",
				       e.extack);
	if (err)
		return rwctl_genl_fail(msg, msglen, err, "%s", e.msg);
	if (!r.replied)
		return rwctl_genl_fail(msg, msglen, -EPROTO,
				       "the rackweave module acknowledged the status request without a reply");
	return 0;
}
