/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rwctl status: the module's status as a plain C struct, the generic
 * netlink query that fills it (status-genl.c) and the status command
 * (status.c).
 */
#ifndef RWCTL_STATUS_H
#define RWCTL_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rackweave.h>

struct nlmsghdr;
struct rwctl_printer;

#define RWCTL_VERSION_MAX	32	/* "MAJOR.MINOR.PATCH" with its NUL */

struct rwctl_node {
	unsigned int id;
	unsigned int nr_cpus;
	char cpulist[RW_CPULIST_MAX];
	uint64_t mem_mb;
};

struct rwctl_device {
	char name[RW_DEV_NAME_MAX];
	int node;			/* NUMA node, -1 for none */
	unsigned int ports;
	uint64_t node_guid;		/* host byte order */
	unsigned int index;
};

/* Refusals of a listener, in the order of enum rw_listen_attr's. */
enum {
	RWCTL_REF_PROTO, RWCTL_REF_AUTH, RWCTL_REF_CLOCK, RWCTL_REF_BUSY,
	RWCTL_REF_RANGE, RWCTL_REF_IN_USE, RWCTL_REF_STALE, RWCTL_REF_OTHER,
	RWCTL_REF_NR
};

/*
 * Connections a listener accepted that the box closed for breaking the
 * rules, by kind, in the order of enum rw_listen_attr's _VIOL_*.
 */
enum {
	RWCTL_VIOL_PROTO, RWCTL_VIOL_ACCESS,
	RWCTL_VIOL_NR
};

struct rwctl_listener {
	int family;			/* AF_INET or AF_INET6 */
	uint8_t addr[16];		/* network order; 4 bytes for IPv4 */
	unsigned int port;
	char dev[RW_DEV_NAME_MAX];	/* "" while down */
	bool up;
	uint64_t requests, accepted, connected;
	uint64_t refused[RWCTL_REF_NR];
	uint64_t violations[RWCTL_VIOL_NR];
};

/*
 * A remote worker connected to the box now, or (in remotes) this host's
 * attachment to a job on another box, seen from this side: the box's
 * address, this host's device, chunks pushed there and parameters written
 * here.
 */
struct rwctl_conn {
	int family;			/* AF_INET or AF_INET6 */
	uint8_t addr[16];		/* the peer's, network order */
	unsigned int port;
	char dev[RW_DEV_NAME_MAX];	/* the box's RDMA device */
	char job[RW_JOB_NAME_MAX];
	unsigned int rank;
	bool observer;			/* the job's observer: no rank */
	uint64_t pushes;		/* gradient chunks received */
	uint64_t writes;		/* parameter chunks written */
	uint64_t messages;		/* control messages, both ways */
	bool broken;			/* remotes: the connection is lost */
};

struct rwctl_status {
	char version[RWCTL_VERSION_MAX];
	unsigned int version_code;
	unsigned int abi;		/* from RW_IOC_VERSION; 0: not known */
	uint64_t features;		/* RW_FEAT_* */
	unsigned int cpus_online;
	char agg_impl[RW_AGG_IMPL_NAME_MAX];	/* "" if not reported */
	/*
	 * The box's memory budget (the max_memory parameter, or its default,
	 * half the machine's memory) and what runs are charged now, in
	 * bytes; both or neither (a module older than memory limits).
	 */
	bool has_mem;
	uint64_t mem_budget;
	uint64_t mem_used;
	struct rwctl_node *nodes;
	size_t nr_nodes;
	struct rwctl_device *devs;
	size_t nr_devs;
	struct rwctl_listener *listeners;
	size_t nr_listeners;
	struct rwctl_conn *conns;
	size_t nr_conns;
	struct rwctl_conn *remotes;
	size_t nr_remotes;
};

/* Free the arrays and zero @st; safe on a zeroed or half-parsed struct. */
void rwctl_status_free(struct rwctl_status *st);

/*
 * Parse one RW_CMD_STATUS_GET reply into @st (which must be zeroed). Every
 * attribute is checked against a policy with exact lengths for integers and
 * bounded, NUL-terminated strings; the two memory figures come together or
 * not at all; attributes newer than this rwctl are ignored. Returns 0 or -EPROTO with a sentence in @msg; on failure @st may
 * hold partial data and must still be freed.
 */
int rwctl_genl_parse_status(struct nlmsghdr *nlh, struct rwctl_status *st,
			    char *msg, size_t msglen);

/*
 * Ask the module over generic netlink. Returns 0 or a negative errno with a
 * sentence for the user in @msg: -ENOENT if the family is not registered
 * (module not loaded), the module's own error (and extended ack message)
 * if it refused, -EPROTO for a malformed reply.
 */
int rwctl_genl_status_get(struct rwctl_status *st, char *msg, size_t msglen);


/* The real status source: generic netlink, plus the ABI from the device. */
int rwctl_status_fetch(struct rwctl_status *st, char *msg, size_t msglen);

/* "rwctl status show": one JSON object, or a few lines of text. */
void rwctl_status_print(struct rwctl_printer *p, const struct rwctl_status *st);

#endif /* RWCTL_STATUS_H */
