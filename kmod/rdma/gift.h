/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Gifts, a move's chunks box to box (uapi "Gifts"; docs/design.md "Many
 * boxes", step 4): the link both ends use (rdma/gift.c), the giving end
 * (rdma/give.c) and the taking end (rdma/take.c). A gift link is short
 * lived and does one thing at a time, so its work item drives it alone:
 * its completion queue is polled by that work (IB_POLL_DIRECT), never by
 * a handler, and its rdma_cm events only mark it gone.
 */
#ifndef _RW_RDMA_GIFT_H
#define _RW_RDMA_GIFT_H

#include <linux/completion.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "rdma/cm.h"
#include "rdma/link.h"
#include "rdma/win.h"

/* How long either end waits for the other's next step. */
#define RW_GIFT_WAIT_MS		15000

struct rw_gift_link {
	struct rw_cm_ctx ctx;		/* RW_CM_TAKE on a taking box */
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	bool has_qp;
	bool connected;			/* a close disconnects and drains */
	struct rw_link ep;
	struct rw_link_cqe send_cqe;
	struct rw_link_cqe recv_cqe;
	struct rw_link_cqe read_cqe;
	struct rw_link_cqe reg_cqe;
	void *in;			/* RW_WIRE_MSG_MAX, the peer's message */
	void *out;			/* RW_WIRE_MSG_MAX, ours */
	u64 in_dma;
	u64 out_dma;
	u32 in_len;			/* the message in, 0: none yet */
	bool recv_out;			/* a receive is posted */
	int busy;			/* sends and reads out */
	int error;			/* a completion failed */
	struct list_head link;		/* on the live links, once open */
	/* rdma_cm's side (its handler writes, the work reads) */
	struct completion cm_done;
	int cm_status;
	bool gone;			/* the peer or the device went */
};

/*
 * Make @gl's QP on @gl->id's device, with a receive posted, and count it
 * live (a device's removal ends it). 0 or -errno; rw_gift_link_close()
 * undoes a failed one too.
 */
int rw_gift_link_open(struct rw_gift_link *gl);
/*
 * Disconnect, flush and destroy the QP: no work request can use a window
 * of the link's from here on (unmap them now, before the close).
 */
void rw_gift_link_stop(struct rw_gift_link *gl);
/* Stop, then free what rw_gift_link_open() made (not the id). */
void rw_gift_link_close(struct rw_gift_link *gl);

/* Send @len bytes of @gl->out. 0 or -errno. */
int rw_gift_link_send(struct rw_gift_link *gl, u32 len);
/* Post the receive for the peer's next message (@in_len back to 0). */
int rw_gift_link_recv(struct rw_gift_link *gl);
/*
 * Read @len bytes at @off of the peer's window @win into @addr under
 * @lkey, one read per segment of @win the bytes span. 0 or -errno.
 */
int rw_gift_link_read(struct rw_gift_link *gl, u64 addr, u32 lkey,
		      const struct rw_wire_win *win, u64 off, u32 len);
/*
 * Poll @gl until a message is in (@msg) or, without @msg, until nothing is
 * out; @ms at most. 0, -ETIMEDOUT, -ECONNRESET (the peer went) or the
 * failed completion's -EIO.
 */
int rw_gift_link_wait(struct rw_gift_link *gl, bool msg, unsigned int ms);

/* The work queue of both ends; rmmod and a device's removal flush it. */
extern struct workqueue_struct *rw_gift_wq;
/*
 * Bumped by rmmod and by a device's removal: a giver that saw it change
 * tries no more (a flush of rw_gift_wq would wait for its tries).
 */
extern atomic_t rw_gift_aborts;

/* The taking end (rdma/take.c): accept an admitted giving box on @id. */
int rw_take_accept(struct rdma_cm_id *id, const struct rw_admit *adm);
/* An event on a taking link's id; always 0 (the work destroys the id). */
int rw_take_cm_event(struct rdma_cm_id *id, struct rdma_cm_event *ev);
/* Every gift link on @dev (NULL: all) ends, synchronously. */
void rw_gift_dev_gone(struct ib_device *dev);

int rw_gift_init(void);
void rw_gift_exit(void);

#endif /* _RW_RDMA_GIFT_H */
