/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the transport: what rdma/listen.c and rdma/conn.c share. Every
 * rdma_cm id of ours has one event handler (rdma/listen.c), and its
 * context starts with struct rw_cm_ctx, which says whose id it is.
 */
#ifndef _RW_RDMA_CM_H
#define _RW_RDMA_CM_H

#include <rdma/rdma_cm.h>

#include "rdma/admit.h"
#include "rdma/rdma.h"

struct rw_listener;

enum rw_cm_kind {
	RW_CM_LISTENER = 1,
	RW_CM_CONN,
	RW_CM_TAKE,			/* a box giving chunks (rdma/take.c) */
};

struct rw_cm_ctx {
	enum rw_cm_kind kind;
};

/*
 * Accept the admitted request on @id (its CONNECT_REQUEST handler runs):
 * the peer becomes rank @adm->req.rank of @adm->job, a worker like a local
 * one. 0, or a negative errno for the refusal (the caller rejects; nothing
 * is left behind). The job reference in @adm is the caller's.
 */
int rw_conn_accept(struct rw_listener *l, struct rdma_cm_id *id,
		   const struct rw_admit *adm);
/* An event on an accepted connection's id; always 0 (never destroy it). */
int rw_conn_cm_event(struct rdma_cm_id *id, struct rdma_cm_event *ev);
/* Close every connection on @dev (NULL: all of them), synchronously. */
void rw_conn_close_all(struct ib_device *dev);
/* A connection holds the listener that made it, and lets go when closed. */
void rw_listen_hold(struct rw_listener *l);
void rw_listen_conn_gone(struct rw_listener *l);
/* A connection @l accepted is closed for @kind (rdma/rdma.h). */
void rw_listen_violation(struct rw_listener *l, enum rw_violation kind);

int rw_conn_init(void);
void rw_conn_exit(void);

#endif /* _RW_RDMA_CM_H */
