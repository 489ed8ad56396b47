/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RDMA transport as the rest of the module sees it: set-up and
 * teardown, device removal, and the box's listeners (rdma/listen.c), which
 * netlink configures and reports.
 */
#ifndef _RW_RDMA_RDMA_H
#define _RW_RDMA_RDMA_H

#include <linux/socket.h>
#include <linux/types.h>

#include "rackweave.h"

struct ib_device;
struct rw_job;

int rw_wire_init(void);
/* Every listener and connection goes; then nothing of the transport runs. */
void rw_wire_exit(void);
/* @dev is going (ib_client .remove): what uses it goes first. */
void rw_wire_dev_gone(struct ib_device *dev);
/* @job was deleted by force: its remote workers are disconnected. */
void rw_wire_job_gone(struct rw_job *job);
/*
 * The run of @job ended with a move whose gift (job_carry.h) goes to other
 * boxes: a work gives it (rdma/give.c), holding a reference to @job.
 */
void rw_give_start(struct rw_job *job);

/* Refusals, counted per listener by kind. */
enum rw_refusal {
	RW_REF_PROTO,			/* EPROTO: not a RackWeave request */
	RW_REF_AUTH,			/* EACCES */
	RW_REF_CLOCK,			/* ETIMEDOUT: clock or replay */
	RW_REF_BUSY,			/* EBUSY */
	RW_REF_RANGE,			/* ERANGE */
	RW_REF_IN_USE,			/* EADDRINUSE */
	RW_REF_STALE,			/* ESTALE */
	RW_REF_OTHER,			/* the box could not take it (ENOMEM...) */
	RW_REF_NR
};

/*
 * Why a connection was closed for breaking the rules, counted per
 * listener by kind (rw_conn_violation(), rdma/conn.c): each connection
 * counts once, for its first reason to close.
 */
enum rw_violation {
	RW_VIOL_PROTO,			/* a message or push against the protocol */
	RW_VIOL_ACCESS,			/* an RDMA access outside its own window */
	RW_VIOL_NR
};

/* A listener as netlink reports it. */
struct rw_listen_info {
	struct sockaddr_storage addr;	/* with the port */
	char dev[RW_DEV_NAME_MAX];	/* "" while down */
	bool up;
	u64 requests;
	u64 accepted;
	u64 connected;			/* connections open now */
	u64 refused[RW_REF_NR];
	u64 violations[RW_VIOL_NR];	/* its connections closed, by why */
};

/* A remote worker connected now, as netlink reports it. */
struct rw_conn_info {
	struct sockaddr_storage peer;
	char dev[RW_DEV_NAME_MAX];
	char job[RW_JOB_NAME_MAX];
	u32 rank;
	bool observer;			/* the job's observer (rank 0) */
	u64 pushes;			/* gradient chunks received */
	u64 writes;			/* parameter chunks written */
	u64 messages;			/* control messages, both ways */
};

/*
 * Call @fn for each attachment of this host to a job on another box
 * (rdma/host_life.c), oldest first, @info seen from this side (the box's
 * address, this host's device), @broken once its connection is lost.
 * Stops at @fn's first non-zero return and returns it.
 */
int rw_remote_for_each(int (*fn)(const struct rw_conn_info *info,
				 bool broken, void *arg), void *arg);

/*
 * Call @fn for each connection, oldest first, under a spinlock: @fn must
 * not sleep. Stops at @fn's first non-zero return and returns it.
 */
int rw_conn_for_each(int (*fn)(const struct rw_conn_info *info, void *arg),
		     void *arg);

/*
 * @ss for an IPv4 (@len 4) or IPv6 (@len 16) address in network order and
 * @port in host order: 0, or -EAFNOSUPPORT for any other length. Netlink
 * and the attach ioctl both describe a listener so.
 */
int rw_sockaddr_fill(struct sockaddr_storage *ss, const void *addr,
		     size_t len, u16 port);

struct rw_box;
/* Where box @b of a job's set is reached (its port, or RW_WIRE_PORT). */
int rw_box_sockaddr(struct sockaddr_storage *ss, const struct rw_box *b);

/*
 * Listen on @addr (AF_INET or AF_INET6, with the port): 0, or -EEXIST (a
 * live listener there), -ENOSPC (RW_LISTEN_MAX), -EADDRNOTAVAIL (no RDMA
 * device has the address), -EADDRINUSE (another rdma_cm user has the
 * port), with *@msg saying so. A listener that is down (its device went)
 * is bound again.
 */
int rw_listen_add(const struct sockaddr_storage *addr, const char **msg);
/* Stop listening on @addr: 0 or -ENOENT. Connections it made stay up. */
int rw_listen_del(const struct sockaddr_storage *addr);
/* Call @fn for each listener in the order they were added. */
int rw_listen_for_each(int (*fn)(const struct rw_listen_info *info,
				 void *arg), void *arg);

#endif /* _RW_RDMA_RDMA_H */
