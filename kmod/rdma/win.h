/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Windows (rdma/win.c): a buffer registered on an RDMA device with fast
 * registration, segment by segment: on the box one of a job's engine
 * buffers as one worker sees it, on a worker host a remote attachment's
 * gradient or parameter buffer. The keys a window hands out cover that
 * worker's pages only.
 */
#ifndef _RW_RDMA_WIN_H
#define _RW_RDMA_WIN_H

#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>

#include "engine/engine.h"
#include "rdma/wire.h"

struct rw_win_seg {
	struct ib_mr *mr;
	struct sg_table sgt;
	int mapped;			/* entries DMA-mapped, 0: none */
};

struct rw_win {
	struct ib_device *dev;
	u32 seg_shift;
	u32 nr_segs;
	struct rw_win_seg *segs;
};

/* A buffer to register: @len bytes, page by page from @page(@arg, off). */
struct rw_win_pages {
	struct page *(*page)(void *arg, u64 off);
	void *arg;
	u64 len;
};

/*
 * The segment size (log2) for windows on @dev holding @chunk_size chunks:
 * the largest power of two the device registers at once, or 0 if it
 * cannot register one chunk.
 */
u32 rw_win_seg_shift(struct ib_device *dev, u32 chunk_size);

/*
 * Build @win over @src in 2^@seg_shift byte segments: memory regions
 * allocated and mapped, not yet registered. 0 or -errno; on error whatever
 * was built is undone.
 */
int rw_win_map(struct rw_win *win, struct ib_pd *pd,
	       const struct rw_win_pages *src, u32 seg_shift);
/*
 * Post the registrations on @qp, unsignaled (@cqe sees only errors), with
 * @access: 0 or -errno from ib_post_send.
 */
int rw_win_post_reg(struct rw_win *win, struct ib_qp *qp, struct ib_cqe *cqe,
		    int access);
/* The segments as the wire carries them (@out has nr_segs entries). */
void rw_win_describe(const struct rw_win *win, struct rw_wire_seg_info *out);
/* Byte @off of the buffer: the local address and key to send from. */
void rw_win_at(const struct rw_win *win, u64 off, u64 *addr, u32 *lkey);
/* Undo rw_win_map once no work request on any QP can use @win. */
void rw_win_unmap(struct rw_win *win);

/*
 * A zeroed buffer of its own (vmalloc, @len bytes at *@buf) as a window,
 * mapped as rw_win_map() does; rw_win_vbuf_free() undoes both (also
 * after a failure, and twice). For control messages and transfers that
 * are not the engine's buffers: inboxes, outboxes, an init's copy.
 */
int rw_win_vbuf(struct rw_win *win, void **buf, struct ib_pd *pd, u64 len,
		u32 seg_shift);
void rw_win_vbuf_free(struct rw_win *win, void **buf);

#endif /* _RW_RDMA_WIN_H */
