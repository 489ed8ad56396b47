/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generic netlink transport every command shares (genl.c): the socket,
 * one request and its answer, strict attribute parsing, and the error a
 * request reports. Each object parses its own replies into plain structs
 * (job-genl.c, status-genl.c, ...); everything after that boundary
 * (printing, tests) never sees a netlink attribute.
 */
#ifndef RWCTL_GENL_H
#define RWCTL_GENL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nla_policy;
struct nlattr;
struct nlmsghdr;
struct nl_msg;
struct nl_sock;

/* What a request to the module returns besides its errno. */
struct rwctl_err {
	/*
	 * true: the module refused the request with the errno returned; the
	 * caller words it. false: @msg is a complete sentence (module not
	 * loaded, malformed reply, ...).
	 */
	bool kernel;
	char msg[512];
	char extack[256];		/* the module's extended ack, or "" */
};

/* Format a message into @msg and return @err: how parsers report. */
int rwctl_genl_fail(char *msg, size_t msglen, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * Shared by every command: a generic netlink socket with extended acks
 * asked for, and the "rackweave" family resolved. Returns 0 (free *@skp with
 * nl_socket_free) or a negative errno with a sentence in @msg: -ENOENT when
 * the family is not registered (module not loaded).
 */
int rwctl_genl_open(struct nl_sock **skp, int *family, char *msg,
		    size_t msglen);


/*
 * nla_parse() of the attributes of a generic netlink message (no family
 * header) or of a nest, that also refuses bytes left after the last whole
 * attribute, which libnl ignores: a truncated message or nest is malformed,
 * not shorter. Returns 0 or a negative libnl error (-NLE_MSG_TRUNC for
 * leftovers, -NLE_MSG_TOOSHORT for a message without a genl header).
 */
int rwctl_genl_parse_msg(struct nlmsghdr *nlh, struct nlattr **tb,
			 int maxtype, const struct nla_policy *policy);
int rwctl_genl_parse_nested(struct nlattr **tb, int maxtype,
			    struct nlattr *nest,
			    const struct nla_policy *policy);

/* nl_geterror() with words of its own for what the two parsers above add. */
const char *rwctl_genl_strerror(int err);

/* Entries of type @type in the nest @list; others are not counted. */
size_t rwctl_genl_count(struct nlattr *list, int type);

/* Fill the request: 0, or non-zero if it does not fit. */
typedef int (*rwctl_genl_put_fn)(struct nl_msg *m, const void *arg);

/*
 * Take one reply message: 0, or a negative errno with a sentence in @msg,
 * after which the remaining replies are read and dropped.
 */
typedef int (*rwctl_genl_reply_fn)(struct nlmsghdr *nlh, void *arg,
				   char *msg, size_t msglen);

/*
 * Send command @cmd of the rackweave family (a dump if @dump) with the
 * attributes @put adds (NULL: none) and hand every reply to @on_reply
 * (NULL: replies are ignored). Returns 0; the module's refusal as a
 * negative errno with e->kernel set and e->extack filled; -EAGAIN if a
 * dump raced with a change; or another negative errno with e->msg saying
 * what went wrong (module not loaded, malformed reply, ...).
 */
int rwctl_genl_request(int cmd, bool dump, rwctl_genl_put_fn put,
		       const void *put_arg, rwctl_genl_reply_fn on_reply,
		       void *reply_arg, struct rwctl_err *e);

#endif /* RWCTL_GENL_H */
