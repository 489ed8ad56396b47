// SPDX-License-Identifier: GPL-2.0
/*
 * rwctl listen: where the box takes connections from workers on other
 * hosts, and what became of the requests.
 *
 *   10.77.0.1:18515  rxe0  up  requests 7  accepted 2  connected 1
 *     refused 5: proto 1, auth 2, clock 1, in-use 1
 *     closed for violations 1: access 1
 *   connections:
 *     10.88.0.2:40675  rxe0  job train rank 0  pushes 4  writes 6  messages 2
 *     10.88.0.3:41102  rxe0  job train observer  pushes 0  writes 38  messages 2
 *   attached to other boxes:
 *     10.88.0.1:18515  rxe0  job other rank 1  pushes 8  writes 10  messages 2
 *
 * Text lists only the refusal reasons and violations that happened; JSON
 * has them all. "rank" counts ranks not below the job's worker count
 * (ERANGE), "in-use" ranks held by another worker (EADDRINUSE). A
 * violation is a connection the listener accepted and the box closed for
 * breaking the rules: "proto" a message or push against the protocol,
 * "access" an RDMA access outside the peer's own window.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "backend.h"
#include "genl.h"
#include "listen.h"
#include "print.h"
#include "rwctl.h"
#include "status.h"

static const char *const rwctl_ref_names[RWCTL_REF_NR] = {
	[RWCTL_REF_PROTO] = "proto",
	[RWCTL_REF_AUTH] = "auth",
	[RWCTL_REF_CLOCK] = "clock",
	[RWCTL_REF_BUSY] = "busy",
	[RWCTL_REF_RANGE] = "rank",
	[RWCTL_REF_IN_USE] = "in-use",
	[RWCTL_REF_STALE] = "stale",
	[RWCTL_REF_OTHER] = "other",
};

static const char *const rwctl_viol_names[RWCTL_VIOL_NR] = {
	[RWCTL_VIOL_PROTO] = "proto",
	[RWCTL_VIOL_ACCESS] = "access",
};

int rwctl_listen_parse(int argc, char **argv, struct rwctl_listen_req *r,
		       char *msg, size_t msglen)
{
	uint32_t port = RW_WIRE_PORT;

	memset(r, 0, sizeof(*r));
	if (argc < 1) {
		snprintf(msg, msglen, "an address to listen on is required");
		return -EINVAL;
	}
	if (inet_pton(AF_INET, argv[0], r->addr) == 1) {
		r->addr_len = 4;
	} else if (inet_pton(AF_INET6, argv[0], r->addr) == 1) {
		r->addr_len = 16;
	} else {
		snprintf(msg, msglen,
			 "'%s' is not an IPv4 or IPv6 address", argv[0]);
		return -EINVAL;
	}
	if (argc == 3 && !strcmp(argv[1], "port")) {
		if (rwctl_parse_u32("port", argv[2], 1, 65535, &port, msg,
				    msglen))
			return -EINVAL;
	} else if (argc == 2 && !strcmp(argv[1], "port")) {
		snprintf(msg, msglen, "port needs a value");
		return -EINVAL;
	} else if (argc > 1) {
		snprintf(msg, msglen, "unknown argument '%s' (port N)",
			 argv[argc > 3 ? 3 : 1]);
		return -EINVAL;
	}
	r->port = port;
	return 0;
}

/* The address alone into @a (JSON's "addr"), and with its port into @buf. */
static void rwctl_listen_render(char a[INET6_ADDRSTRLEN], char *buf,
				size_t len, int family, const uint8_t *addr,
				unsigned int port)
{
	if (!inet_ntop(family, addr, a, INET6_ADDRSTRLEN))
		snprintf(a, INET6_ADDRSTRLEN, "?");
	snprintf(buf, len, family == AF_INET6 ? "[%s]:%u" : "%s:%u", a, port);
}

void rwctl_listen_format(char *buf, size_t len, int family,
			 const uint8_t *addr, unsigned int port)
{
	char a[INET6_ADDRSTRLEN];

	rwctl_listen_render(a, buf, len, family, addr, port);
}

/*
 * @n counters named @names under @key, their sum under @key_total; text
 * (only if the sum is not 0) "\n  @title SUM: name N, ..." with only the
 * counters that are not 0.
 */
static void rwctl_listen_print_counts(struct rwctl_printer *p,
				      const char *key, const char *key_total,
				      const char *title,
				      const char *const *names,
				      const uint64_t *counts, int n)
{
	const char *sep = ": ";
	uint64_t total = 0;
	int r;

	for (r = 0; r < n; r++)
		total += counts[r];
	rwctl_pr_u64(p, key_total, NULL, total);
	rwctl_pr_obj_open(p, key);
	if (total)
		rwctl_pr_text(p, "\n  %s %" PRIu64, title, total);
	for (r = 0; r < n; r++) {
		char fmt[32];

		snprintf(fmt, sizeof(fmt), "%s%s %%" PRIu64, sep, names[r]);
		rwctl_pr_u64(p, names[r], counts[r] ? fmt : NULL, counts[r]);
		if (counts[r])
			sep = ", ";
	}
	rwctl_pr_obj_close(p);
}

static void rwctl_listen_print_one(struct rwctl_printer *p,
				   const struct rwctl_listener *l)
{
	char where[INET6_ADDRSTRLEN + 16], a[INET6_ADDRSTRLEN];

	rwctl_listen_render(a, where, sizeof(where), l->family, l->addr,
			    l->port);

	rwctl_pr_obj_open(p, NULL);
	rwctl_pr_text(p, "%s", where);
	rwctl_pr_str(p, "addr", NULL, a);
	rwctl_pr_u32(p, "port", NULL, l->port);
	rwctl_pr_str(p, "device", l->up ? "  %s" : NULL, l->dev);
	rwctl_pr_bool(p, "up", NULL, l->up);
	rwctl_pr_text(p, l->up ? "  up" : "  down (its RDMA device went; add it again)");
	rwctl_pr_u64(p, "requests", "  requests %" PRIu64, l->requests);
	rwctl_pr_u64(p, "accepted", "  accepted %" PRIu64, l->accepted);
	rwctl_pr_u64(p, "connected", "  connected %" PRIu64, l->connected);
	rwctl_listen_print_counts(p, "refused", "refused_total", "refused",
				  rwctl_ref_names, l->refused, RWCTL_REF_NR);
	rwctl_listen_print_counts(p, "violations", "violations_total",
				  "closed for violations", rwctl_viol_names,
				  l->violations, RWCTL_VIOL_NR);
	rwctl_pr_obj_close(p);
	rwctl_pr_nl(p);
}

void rwctl_listen_print_list(struct rwctl_printer *p,
			     const struct rwctl_status *st)
{
	size_t i;

	rwctl_pr_arr_open(p, "listeners");
	for (i = 0; i < st->nr_listeners; i++)
		rwctl_listen_print_one(p, &st->listeners[i]);
	rwctl_pr_arr_close(p);
}

/*
 * @n connections under @key, after the heading @title when there are any:
 * the box's remote workers, or (@remote) this host's attachments to other
 * boxes, which also say whether they are still up.
 */
static void rwctl_listen_print_conns(struct rwctl_printer *p,
				     const char *key, const char *title,
				     const struct rwctl_conn *conns, size_t n,
				     bool remote)
{
	char where[INET6_ADDRSTRLEN + 16], a[INET6_ADDRSTRLEN];
	const struct rwctl_conn *c;
	size_t i;

	if (n)
		rwctl_pr_text(p, "%s\n", title);
	rwctl_pr_arr_open(p, key);
	for (i = 0; i < n; i++) {
		c = &conns[i];
		rwctl_listen_render(a, where, sizeof(where), c->family,
				    c->addr, c->port);
		rwctl_pr_obj_open(p, NULL);
		rwctl_pr_text(p, "  %s", where);
		rwctl_pr_str(p, "addr", NULL, a);
		rwctl_pr_u32(p, "port", NULL, c->port);
		/* A lost attachment has no device left. */
		rwctl_pr_str(p, "device", c->dev[0] ? "  %s" : NULL, c->dev);
		rwctl_pr_str(p, "job", "  job %s", c->job);
		/* An observer holds no rank: the word instead of rank 0. */
		rwctl_pr_u32(p, "rank", c->observer ? NULL : "  rank %u",
			     c->rank);
		rwctl_pr_bool(p, "observer", c->observer ? "  observer" : NULL,
			      c->observer);
		rwctl_pr_u64(p, "pushes", "  pushes %" PRIu64, c->pushes);
		rwctl_pr_u64(p, "writes", "  writes %" PRIu64, c->writes);
		rwctl_pr_u64(p, "messages", "  messages %" PRIu64, c->messages);
		if (remote)
			rwctl_pr_bool(p, "broken", c->broken ?
				      "  connection lost" : NULL, c->broken);
		rwctl_pr_obj_close(p);
		rwctl_pr_nl(p);
	}
	rwctl_pr_arr_close(p);
}

static void rwctl_listen_print(struct rwctl_printer *p,
			       const struct rwctl_status *st)
{
	rwctl_pr_obj_open(p, NULL);
	rwctl_listen_print_list(p, st);
	rwctl_listen_print_conns(p, "connections", "connections:", st->conns,
				 st->nr_conns, false);
	rwctl_listen_print_conns(p, "remotes", "attached to other boxes:",
				 st->remotes, st->nr_remotes, true);
	rwctl_pr_obj_close(p);
}

static int rwctl_listen_show(struct rwctl *ctl, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return rwctl_show(ctl, rwctl_listen_print);
}

static const struct rwctl_listen_backend *
rwctl_listen_backend(const struct rwctl *ctl)
{
	return ctl->listen_backend ? ctl->listen_backend :
		&rwctl_listen_genl_backend;
}

/* "listen add" and "listen del": @add says which. */
static int rwctl_listen_change(struct rwctl *ctl, int argc, char **argv,
			       bool add)
{
	const struct rwctl_listen_backend *be = rwctl_listen_backend(ctl);
	const char *cmd = add ? "listen add" : "listen del";
	char msg[256], where[INET6_ADDRSTRLEN + 16], why[320];
	struct rwctl_listen_req r;
	struct rwctl_err e;
	int err;

	if (rwctl_listen_parse(argc, argv, &r, msg, sizeof(msg)))
		return rwctl_usage_error(ctl, "listen", "%s", msg);
	rwctl_listen_format(where, sizeof(where),
			    r.addr_len == 4 ? AF_INET : AF_INET6, r.addr,
			    r.port);
	memset(&e, 0, sizeof(e));
	err = add ? be->add(&r, &e) : be->del(&r, &e);
	if (!err)
		return RWCTL_EXIT_OK;
	switch (-err) {
	case EEXIST:
		snprintf(why, sizeof(why), "the box already listens on %s",
			 where);
		break;
	case ENOENT:
		snprintf(why, sizeof(why), "the box does not listen on %s",
			 where);
		break;
	case EADDRNOTAVAIL:
		snprintf(why, sizeof(why),
			 "no RDMA device has the address of %s (rwctl dev show lists them)",
			 where);
		break;
	case EADDRINUSE:
		snprintf(why, sizeof(why),
			 "another RDMA listener on this host has %s", where);
		break;
	case ENOSPC:
		snprintf(why, sizeof(why),
			 "the box has its most listeners (%u); delete one first",
			 RW_LISTEN_MAX);
		break;
	case EPERM:
	case EOPNOTSUPP:
		/* The job commands' words for these fit any command. */
		return rwctl_job_report(ctl, cmd, NULL, err, &e, NULL);
	default:
		/* Keep the module's ack: it says more than the errno. */
		snprintf(why, sizeof(why), "%s", strerror(-err));
		return rwctl_job_report(ctl, cmd, NULL, err, &e, why);
	}
	/* The sentence says all the module's ack would. */
	e.extack[0] = '\0';
	return rwctl_job_report(ctl, cmd, NULL, err, &e, why);
}

static int rwctl_listen_add(struct rwctl *ctl, int argc, char **argv)
{
	return rwctl_listen_change(ctl, argc, argv, true);
}

static int rwctl_listen_del(struct rwctl *ctl, int argc, char **argv)
{
	return rwctl_listen_change(ctl, argc, argv, false);
}

static const struct rwctl_cmd rwctl_listen_cmds[] = {
	{
		.name = "show",
		.alias = "list",
		.help = "listeners (requests, connections, refusals, violations), remote workers, attachments to other boxes",
		.run = rwctl_listen_show,
	},
	{
		.name = "add",
		.args = "ADDR [port N]",
		.help = "take workers' connections on ADDR (needs CAP_NET_ADMIN)",
		.details =
"  ADDR        an IPv4 or IPv6 address of an RDMA device of the box\n"
"  port N      1-65535; default " RW_STR(RW_WIRE_PORT) "\n"
"  Adding a listener that is down (its device went) binds it again.\n",
		.max_args = 3,
		.run = rwctl_listen_add,
	},
	{
		.name = "del",
		.alias = "delete",
		.args = "ADDR [port N]",
		.help = "stop listening there; its connections stay up",
		.max_args = 3,
		.run = rwctl_listen_del,
	},
	{ .name = NULL },
};

const struct rwctl_obj rwctl_obj_listen = {
	.name = "listen",
	.help = "where workers on other hosts connect (RDMA)",
	.cmds = rwctl_listen_cmds,
};
